#!/usr/bin/env bash
# The class-data-sharing archive of the test suite's Spark drivers (build/cds/driver.jsa), made
# once per JDK and pyspark: a short landing runs with -XX:ArchiveClassesAtExit and the JVM writes
# the classes it loaded from the JDK and pyspark's jars into the archive. The suite starts about
# 50 driver JVMs beyond its two workers (each `cdc-lake` or `dbt` subprocess); with the archive each maps those classes
# instead of loading and verifying them (python/tests/conftest.py passes -XX:SharedArchiveFile).
# A JVM whose class path differs from the archive's ignores it. Prints the archive's path.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=build/cds/driver.jsa
key="$(java -version 2>&1 | head -1) pyspark $(.venv/bin/python -c 'import pyspark; print(pyspark.__version__)')"
if [ -s "$archive" ] && [ "$(cat "$archive.key" 2>/dev/null)" = "$key" ]; then
  echo "$PWD/$archive"
  exit 0
fi
mkdir -p build/cds
rm -f "$archive" "$archive.key"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
echo "the test drivers' class archive: one landing of the Canal sample with -XX:ArchiveClassesAtExit" >&2
CDC_LAKE_WAREHOUSE="$scratch/warehouse" CDC_LAKE_METASTORE="$scratch/metastore_db" \
  CDC_LAKE_SCHEMA=cds CDC_LAKE_RAW_SCHEMA=cds_raw CDC_LAKE_DRIVER_MEMORY=1g CDC_LAKE_SHUFFLE_PARTITIONS=2 \
  CDC_LAKE_JVM_OPTIONS="$(.venv/bin/python -c 'from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS as o; print(o)') -XX:ArchiveClassesAtExit=$PWD/$archive.tmp -Xlog:cds=off -Xlog:cds+dynamic=off" \
  .venv/bin/cdc-lake land --format canal_json sample_data/canal_json/shop.jsonl >"$scratch/land.log" 2>&1 \
  || { cat "$scratch/land.log" >&2; echo "the class archive's landing failed: see above" >&2; exit 1; }
# the driver JVM writes the archive as it exits, after the Python process that started it
for _ in $(seq 240); do
  pgrep -f "ArchiveClassesAtExit=$PWD/$archive.tmp" >/dev/null || break
  sleep 0.5
done
[ -s "$archive.tmp" ] || { echo "the JVM wrote no class archive ($archive.tmp): the suite runs without one" >&2; exit 1; }
mv "$archive.tmp" "$archive"
echo "$key" >"$archive.key"
echo "$PWD/$archive"
