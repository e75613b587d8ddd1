#!/usr/bin/env bash
# Write the JVM class archive (Java's CDS) python/cdc_lake/jvm/spark-classes.jsa: the classes that
# `cdc-lake land` and `dbt build` load, recorded from the sample run of `cdc-lake demo` in a
# scratch warehouse (python -m cdc_lake.class_archive). Every Spark driver of the project maps it
# (settings.py, profiles.yml: the default of CDC_LAKE_JVM_OPTIONS), which saves a few seconds of
# start-up and warm-up per process. Rewritten only when the JDK or pyspark changed; a JVM ignores
# an archive of another JDK or pyspark and runs without one as before, so a failure here is
# reported but does not stop setup. Usage: scripts/build_class_archive.sh (after .venv exists).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=python/cdc_lake/jvm/spark-classes.jsa
STAMP="$(java -version 2>&1 | tr '\n' ' ')pyspark $(.venv/bin/python -c 'import pyspark; print(pyspark.__version__)')"
if [ -f "$ARCHIVE" ] && [ "$(cat "$ARCHIVE.stamp" 2>/dev/null)" = "$STAMP" ]; then
  exit 0
fi
rm -f "$ARCHIVE.stamp"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
if .venv/bin/python -m cdc_lake.class_archive >"$LOG" 2>&1; then
  echo "$STAMP" >"$ARCHIVE.stamp"
  echo "setup: built $ARCHIVE"
else
  echo "setup: could not build $ARCHIVE (Spark starts without it, a few seconds slower):" >&2
  grep -v '\[warning\]\[cds' "$LOG" | tail -20 >&2
fi
