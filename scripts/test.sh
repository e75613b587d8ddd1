#!/usr/bin/env bash
# Set up (with dev tools), lint the SQL, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
export DBT_PROFILES_DIR=profiles
echo "== sqlfluff lint"
.venv/bin/sqlfluff lint models macros tests --disable-progress-bar
echo "== pytest"
# Two worker processes (CDC_LAKE_TEST_WORKERS; 0 runs in this process), each with its own Spark
# session; a module runs whole on one worker (--dist loadfile: its fixtures are set up once), in the
# order conftest.py gives (slowest first), not xdist's order by test count.
exec .venv/bin/python -m pytest -n "${CDC_LAKE_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"
