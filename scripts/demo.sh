#!/usr/bin/env bash
# Set up, then land the shipped sample data and build everything on embedded Spark.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/cdc-lake demo "$@"
