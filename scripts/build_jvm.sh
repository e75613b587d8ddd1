#!/usr/bin/env bash
# Compile cdc-lake's JVM functions (python/cdc_lake/jvm/src/**/*.java) against the jars of the
# PyPI pyspark in .venv into python/cdc_lake/jvm/cdc-lake-functions.jar, the jar every Spark
# session of the project loads (spark.jars). Rebuilt only when a source file is newer than the jar.
# Needs a JDK 17 (javac and jar on PATH). Usage: scripts/build_jvm.sh (after .venv exists).
set -euo pipefail
cd "$(dirname "$0")/.."
JVM_DIR=python/cdc_lake/jvm
JAR="$JVM_DIR/cdc-lake-functions.jar"
mapfile -t sources < <(find "$JVM_DIR/src" -name '*.java' | sort)
if [ -f "$JAR" ] && [ -z "$(find "$JVM_DIR/src" -name '*.java' -newer "$JAR")" ]; then
  exit 0
fi
for tool in javac jar; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "setup: a JDK 17 is required to build $JAR ($tool not found on PATH; install openjdk-17-jdk-headless)" >&2
    exit 1
  }
done
SPARK_JARS="$(.venv/bin/python -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
CLASSES="$(mktemp -d)"
trap 'rm -rf "$CLASSES"' EXIT
javac --release 17 -nowarn -cp "$SPARK_JARS/*" -d "$CLASSES" "${sources[@]}"
jar --create --file "$JAR.tmp" -C "$CLASSES" .
mv "$JAR.tmp" "$JAR"
echo "setup: built $JAR"
