#!/usr/bin/env bash
# The scheduled job (see .github/workflows/ci.yml): land every input under INCOMING/<format>/
# (`cdc-lake land --incoming`), then `dbt build` and `dbt docs generate` (the docs site is written
# to target/).
# Usage: scripts/scheduled_build.sh [INCOMING]   (default: $CDC_LAKE_INCOMING, else ./incoming)
# INCOMING holds one folder per format id (canal_json/, debezium_json/, dts_avro/, auto/, ...);
# each file or folder directly inside is one input of that format (a landing per format, one Spark
# start). Inputs landed before are passed over unread while they look as they did when landed
# (size, modification time, inode), else by content hash, so the folder may keep its files between
# runs; a text file changed in the last minute lands up to its last newline (the rest next run).
# An input that land refuses is named and left out, the others land and are built,
# and the job then exits 4. To land and build every few minutes in one warm process instead, run
# `cdc-lake land --incoming INCOMING --follow --every 5m`.
set -euo pipefail
cd "$(dirname "$0")/.."
INCOMING="${1:-${CDC_LAKE_INCOMING:-incoming}}"
bash scripts/setup.sh --class-archive
export DBT_PROFILES_DIR=profiles

land_status=0
if [ -d "$INCOMING" ]; then
  echo "== cdc-lake land --incoming $INCOMING"
  .venv/bin/cdc-lake land --incoming "$INCOMING" || land_status=$?
  if [ "$land_status" -ne 0 ] && [ "$land_status" -ne 4 ]; then
    exit "$land_status"
  fi
else
  echo "== nothing to land: no folder $INCOMING"
fi

echo "== dbt build"
# Unit tests check SQL logic on fixed inputs, not the data: they run in CI (scripts/test.sh), and
# dbt recommends leaving them out of production builds. Data tests (the invariants) run here.
.venv/bin/dbt build --exclude-resource-type unit_test
echo "== dbt docs generate"
.venv/bin/dbt docs generate
exit "$land_status"
