#!/usr/bin/env bash
# What a build costs on tiny data, where per-table overhead (commits, snapshots, code generation)
# is all there is: `cdc-lake demo` (land the 13 samples + build) in a lake of its own, then one
# build with nothing new per variant of CDC_LAKE_SPARK_CONF given (settings the dbt hook
# cdc_apply_spark_conf can apply to a running session).
#
# Usage: benchmarks/build_overhead.sh [LABEL=CONF ...]
#   e.g. benchmarks/build_overhead.sh base= \
#          interpreted=spark.sql.codegen.wholeStage=false,spark.sql.codegen.factoryMode=NO_CODEGEN
# Prints the demo's and each build's wall seconds, and the machine's busy and idle CPU seconds
# during each build (2 cores: busy near 2x wall means both cores worked).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d "${TMPDIR:-/tmp}/cdc-lake-overhead.XXXX")
trap 'rm -rf "$root"' EXIT
export CDC_LAKE_WAREHOUSE=$root/warehouse CDC_LAKE_METASTORE=$root/metastore_db CDC_LAKE_DBT_STATE=$root/dbt
export DBT_PROFILES_DIR=profiles CDC_LAKE_SCHEMA=cdc_demo CDC_LAKE_RAW_SCHEMA=cdc_demo_raw
export CDC_LAKE_JVM_OPTIONS=${CDC_LAKE_JVM_OPTIONS:-"-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseParallelGC"}

cpu() { awk '/^cpu /{print $2+$3+$4, $5+$6}' /proc/stat; }
now() { date +%s.%N; }

t0=$(now)
.venv/bin/cdc-lake demo > "$root/demo.log" 2>&1 || { tail -20 "$root/demo.log"; exit 1; }
printf 'demo (land + first build): %.1f s\n' "$(echo "$(now) - $t0" | bc)"

for variant in "${@:-base=}"; do
  label=${variant%%=*} conf=${variant#*=}
  before=$(cpu) t0=$(now)
  CDC_LAKE_SPARK_CONF=$conf .venv/bin/dbt build --exclude-resource-type unit_test \
    > "$root/$label.log" 2>&1 || { tail -20 "$root/$label.log"; exit 1; }
  wall=$(echo "$(now) - $t0" | bc)
  read -r busy idle <<< "$(paste -d' ' <(echo "$before") <(cpu) | awk '{print ($3-$1)/100, ($4-$2)/100}')"
  printf 'build with nothing new, %s: %.1f s (CPU busy %.1f s, idle %.1f s)\n' "$label" "$wall" "$busy" "$idle"
done
