#!/usr/bin/env bash
# Set up (with dev tools), lint the SQL, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
export DBT_PROFILES_DIR=profiles
echo "== sqlfluff lint"
.venv/bin/sqlfluff lint models macros tests --disable-progress-bar
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
