#!/usr/bin/env bash
# Set up (with dev tools), lint the SQL, run the JUnit tests of the JVM functions and the whole
# test suite; print each phase's wall time and the slowest tests at the end. Arguments go to pytest
# (e.g. a module, -k, -x).
# CDC_LAKE_LONG_TESTS=1 runs the reliability tests (soak, crash points, fuzz) at their long size, as
# the nightly workflow does.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/setup.sh --dev
setup_s=$((SECONDS - started))
export DBT_PROFILES_DIR=profiles

# The Spark drivers of the suite map the JDK's and Spark's classes from one archive
# (scripts/jvm_class_archive.sh; made once per JDK, pyspark and class path, in the background while the lint
# and the Java tests run): about 5 s less per driver JVM the suite starts. Without it the suite
# runs as before, only slower.
archive_log="$(mktemp)"
bash scripts/jvm_class_archive.sh >"$archive_log" 2>&1 &
archive_pid=$!

echo "== sqlfluff lint"
started=$SECONDS
# one process per core: the files are linted in parallel (about half the time on 2 cores)
.venv/bin/sqlfluff lint models macros tests --disable-progress-bar --processes "$(nproc)"
lint_s=$((SECONDS - started))

echo "== java tests"
# The JUnit tests of the JVM functions (pom.xml, python/cdc_lake/jvm/test): each class's line and
# the total; the whole Maven log when one fails (then pytest does not run).
started=$SECONDS
java_log="$(mktemp)"
if ! mvn -B -ntp test >"$java_log" 2>&1; then
  cat "$java_log"
  rm -f "$java_log"
  echo "java tests failed: see above" >&2
  exit 1
fi
grep -E '^\[INFO\] Tests run:' "$java_log" | sed 's/^\[INFO\] //'
rm -f "$java_log"
java_s=$((SECONDS - started))

echo "== class archive"
started=$SECONDS
wait "$archive_pid" || echo "no class archive: the tests run without it"
cat "$archive_log"
rm -f "$archive_log"
archive_s=$((SECONDS - started))

echo "== pytest"
# Two worker processes (CDC_LAKE_TEST_WORKERS; 0 runs in this process), each with its own Spark
# session; a module runs whole on one worker (--dist loadfile: its fixtures are set up once), in the
# order conftest.py gives (slowest first), not xdist's order by test count.
started=$SECONDS
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
.venv/bin/python -m pytest -n "${CDC_LAKE_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder \
  --durations=15 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
tests_s=$((SECONDS - started))

echo "== wall time: setup ${setup_s} s, lint ${lint_s} s, java tests ${java_s} s, class archive (the wait for it) ${archive_s} s, tests ${tests_s} s, total $((setup_s + lint_s + java_s + archive_s + tests_s)) s"
# pytest's closing line again, so that it is the last line of the run
grep -E '^=+ .*(passed|failed|error|no tests ran).* =+$' "$log" | tail -1 || true
exit "$status"
