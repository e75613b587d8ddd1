#!/usr/bin/env bash
# The scheduled job (see .github/workflows/ci.yml): land every input under INCOMING/<format>/,
# then `dbt build` and `dbt docs generate` (the docs site is written to target/).
# Usage: scripts/scheduled_build.sh [INCOMING]   (default: $CDC_LAKE_INCOMING, else ./incoming)
# INCOMING holds one folder per format id (canal_json/, debezium_json/, dts_avro/, auto/, ...);
# each file or folder directly inside is one PATH of `cdc-lake land`, which lands them all in one
# command (a landing per format, one Spark start; a bad input anywhere lands nothing). Inputs
# already landed are skipped (by content hash), so the folder may keep its files between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
INCOMING="${1:-${CDC_LAKE_INCOMING:-incoming}}"
bash scripts/setup.sh --class-archive
export DBT_PROFILES_DIR=profiles

land_args=()
if [ -d "$INCOMING" ]; then
  for dir in "$INCOMING"/*/; do
    [ -d "$dir" ] || continue
    format="$(basename "$dir")"
    mapfile -t paths < <(find "$dir" -mindepth 1 -maxdepth 1 ! -name '.*' ! -name '_*' | sort)
    if [ "${#paths[@]}" -eq 0 ]; then
      continue
    fi
    echo "== --format $format: ${#paths[@]} input(s) in $dir"
    land_args+=(--format "$format" "${paths[@]}")
  done
fi
if [ "${#land_args[@]}" -eq 0 ]; then
  echo "== nothing to land in $INCOMING"
else
  echo "== cdc-lake land"
  .venv/bin/cdc-lake land "${land_args[@]}"
fi

echo "== dbt build"
# Unit tests check SQL logic on fixed inputs, not the data: they run in CI (scripts/test.sh), and
# dbt recommends leaving them out of production builds. Data tests (the invariants) run here.
.venv/bin/dbt build --exclude-resource-type unit_test
echo "== dbt docs generate"
.venv/bin/dbt docs generate
