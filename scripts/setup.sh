#!/usr/bin/env bash
# Create .venv (Python 3.11) and install cdc-lake into it. Usage: scripts/setup.sh [--dev] [--class-archive]
# --dev: also what the tests need. --class-archive: also record the Spark drivers' class archive
# (about half a minute once per JDK, pyspark and class path; about 5 s less per later `cdc-lake` or
# `dbt` process; the scheduled build asks for it). Says what it does at each step; a step that has
# nothing to do is quick.
set -euo pipefail
cd "$(dirname "$0")/.."
dev=""
class_archive=""
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    --class-archive) class_archive=1 ;;
    *) echo "setup: unknown option $arg (use --dev, --class-archive)" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
command -v java >/dev/null 2>&1 || { echo "setup: Java 17 is required (java not found on PATH)" >&2; exit 1; }
command -v javac >/dev/null 2>&1 || { echo "setup: a JDK 17 is required (javac not found on PATH; install openjdk-17-jdk-headless)" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "setup: Maven 3.8 or later is required (mvn not found on PATH; install maven)" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi
extra=""
if [ -n "$dev" ]; then
  extra="[dev]"
fi
# uv (from PyPI, into .venv) installs the same versions pip would, in parallel: 33-42 s on a fresh
# machine against pip's 57 s with its cache and 100 s without (docs/testing.md).
echo "setup: installing cdc-lake$extra and its dependencies into .venv (uv; about half a minute on a fresh machine)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check uv
.venv/bin/python -m uv pip install --quiet --python .venv/bin/python -e ".$extra"
# uv builds pyspark's wheel from its source archive into a new folder of its cache on every fresh
# install (1.4-1.8 GB each) and never reuses the old ones: 60 of them filled a machine's disk
# (57 GB) and a setup failed with "No space left on device". Pruning drops the unused ones.
.venv/bin/python -m uv cache prune --quiet \
  || echo "setup: could not prune uv's cache (nothing to do; \`uv cache prune\` frees disk space later)"
# Compile the installed modules now (a no-op when done): where PYTHONDONTWRITEBYTECODE is set,
# Python never caches them, and every `cdc-lake` or dbt process compiled pyspark's, pandas' and
# dbt's sources again at start (dbt with pyspark: 8.1 s of imports against 2.6 s compiled).
echo "setup: compiling the installed Python modules (the first time about a quarter of a minute)"
.venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" python/cdc_lake >/dev/null \
  || echo "setup: some installed module did not compile; Python compiles it when it is imported (nothing to do)"
# The JVM functions the Spark sessions load: pom.xml builds python/cdc_lake/jvm/src into
# python/cdc_lake/jvm/cdc-lake-functions.jar (its JUnit tests are scripts/test.sh's "java tests").
echo "setup: the JVM functions jar (Maven)"
bash scripts/build_jvm.sh
# The JVM libraries the sessions load besides pyspark's, pinned in python/cdc_lake/jvm/deps/pom.xml.
echo "setup: the JVM libraries (Maven)"
bash scripts/fetch_jvm_deps.sh
# Generate the Canal protobuf classes from python/cdc_lake/proto/canal.proto now (protoc from
# grpcio-tools), so that the first landing does not have to.
echo "setup: the Canal protobuf classes (protoc)"
.venv/bin/python -c "from cdc_lake.proto import load_canal_pb2; load_canal_pb2()"
# The tests' shared catalog (python/tests/test_catalog.py, `cdc-lake catalog start`) runs Debian's
# PostgreSQL server programs; only --dev installs them (as root, with apt-get).
if [ -n "$dev" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: PostgreSQL's server programs for the catalog tests (apt-get install postgresql)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q postgresql >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q postgresql >/dev/null; }
  else
    echo "setup: the catalog tests need PostgreSQL's server programs: install Debian's postgresql package" >&2
    exit 1
  fi
fi
if [ -n "$dev" ]; then
  # A Kafka broker for the tests of `land --kafka` (python/tests/kafka/pom.xml; git-ignored lib/).
  echo "setup: the test Kafka broker (Maven)"
  (cd python/tests/kafka && { [ -n "$(find lib -maxdepth 1 -name '*.jar' -newer pom.xml -print -quit 2>/dev/null)" ] \
    || { rm -rf lib && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib -DincludeScope=runtime 2>&1 | sed "s/\x1b\[0m//g" && touch lib/*.jar; }; })
fi
if [ -n "$class_archive" ]; then
  # The class archive every Spark driver names (settings.CLASS_ARCHIVE): the JDK's and Spark's
  # classes mapped instead of loaded and verified; nothing to do when it is up to date.
  echo "setup: the Spark drivers' class archive (the first time about half a minute)"
  bash scripts/jvm_class_archive.sh >/dev/null
fi
echo "setup: done"
