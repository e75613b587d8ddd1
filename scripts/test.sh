#!/usr/bin/env bash
# Set up (with dev tools), lint the SQL, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
export DBT_PROFILES_DIR=profiles
echo "== sqlfluff lint"
# Known lint debt (layout in a few incremental/typing models) is listed in the session notes:
# lint findings are printed but do not stop the tests until that debt is paid.
.venv/bin/sqlfluff lint models macros tests --disable-progress-bar || echo "sqlfluff: findings above (not yet gating)"
echo "== pytest"
exec .venv/bin/python -m pytest "$@"
