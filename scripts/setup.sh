#!/usr/bin/env bash
# Create .venv (Python 3.11) and install cdc-lake into it. Usage: scripts/setup.sh [--dev]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
command -v java >/dev/null 2>&1 || { echo "setup: Java 17 is required (java not found on PATH)" >&2; exit 1; }
command -v javac >/dev/null 2>&1 || { echo "setup: a JDK 17 is required (javac not found on PATH; install openjdk-17-jdk-headless)" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "--dev" ]; then
  .venv/bin/python -m pip install --quiet -e '.[dev]'
else
  .venv/bin/python -m pip install --quiet -e .
fi
# Compile the JVM functions the Spark sessions load (python/cdc_lake/jvm/, see scripts/build_jvm.sh).
bash scripts/build_jvm.sh
# Generate the Canal protobuf classes from python/cdc_lake/proto/canal.proto now (protoc from
# grpcio-tools), so that the first landing does not have to.
.venv/bin/python -c "from cdc_lake.proto import load_canal_pb2; load_canal_pb2()"
# Record the classes a landing and a build load in a JVM class archive that every Spark driver
# maps (see scripts/build_class_archive.sh; about 2 minutes, once per JDK and pyspark).
bash scripts/build_class_archive.sh
