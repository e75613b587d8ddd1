#!/usr/bin/env bash
# The class-data-sharing archive of the Spark driver JVMs (build/cds/driver.jsa, settings.CLASS_ARCHIVE),
# made once per JDK, pyspark and driver class path: a short landing runs with -XX:ArchiveClassesAtExit
# and the JVM writes the classes it loaded from the JDK and pyspark's jars into the archive. Every
# driver (`cdc-lake`, the local dbt target) names it and maps those classes instead of loading and
# verifying them: about 5 s less per JVM. `scripts/setup.sh --class-archive` runs this (the
# scheduled build asks for it), and scripts/test.sh while the lint runs: the suite starts about 50
# driver JVMs beyond its two workers. A JVM ignores an archive whose JDK or class path differs,
# silently. Prints the archive's path.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=build/cds/driver.jsa
# the driver's class path besides pyspark's jars is the metastore's JDBC driver (spark.driver.extraClassPath)
key="$(java -version 2>&1 | head -1) pyspark $(.venv/bin/python -c 'import pyspark; print(pyspark.__version__)') $(stat -c '%n %s %Y' python/cdc_lake/jvm/deps/lib/postgresql.jar)"
if [ -s "$archive" ] && [ "$(cat "$archive.key" 2>/dev/null)" = "$key" ]; then
  echo "$PWD/$archive"
  exit 0
fi
mkdir -p build/cds
rm -f "$archive" "$archive.key"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
echo "the Spark drivers' class archive: one landing of the Canal sample with -XX:ArchiveClassesAtExit" >&2
CDC_LAKE_WAREHOUSE="$scratch/warehouse" CDC_LAKE_METASTORE="$scratch/metastore_db" \
  CDC_LAKE_SCHEMA=cds CDC_LAKE_RAW_SCHEMA=cds_raw CDC_LAKE_CLASS_ARCHIVE=none CDC_LAKE_DRIVER_MEMORY=1g CDC_LAKE_SHUFFLE_PARTITIONS=2 \
  CDC_LAKE_JVM_OPTIONS="$(.venv/bin/python -c 'from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS as o; print(o)') -XX:ArchiveClassesAtExit=$PWD/$archive.tmp -Xlog:cds=off -Xlog:cds+dynamic=off" \
  .venv/bin/cdc-lake land --format canal_json sample_data/canal_json/shop.jsonl >"$scratch/land.log" 2>&1 \
  || { cat "$scratch/land.log" >&2; echo "the class archive's landing failed: see above" >&2; exit 1; }
# the driver JVM writes the archive as it exits, after the Python process that started it
for _ in $(seq 240); do
  pgrep -f "ArchiveClassesAtExit=$PWD/$archive.tmp" >/dev/null || break
  sleep 0.5
done
[ -s "$archive.tmp" ] || { echo "the JVM wrote no class archive ($archive.tmp): the drivers run without one" >&2; exit 1; }
mv "$archive.tmp" "$archive"
echo "$key" >"$archive.key"
echo "$PWD/$archive"
