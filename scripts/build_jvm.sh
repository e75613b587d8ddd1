#!/usr/bin/env bash
# Build python/cdc_lake/jvm/cdc-lake-functions.jar (the jar every Spark session of the project
# loads, spark.jars) with Maven from pom.xml: the sources in python/cdc_lake/jvm/src, compiled
# against the Hive and Hadoop APIs that the pyspark in .venv bundles. Nothing to do (and no network
# needed) when the jar is newer than every source and than pom.xml. Stops when pom.xml's hive.version
# or hadoop.version is not what pyspark/jars bundles. Usage: scripts/build_jvm.sh (after .venv
# exists; scripts/setup.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
JVM_DIR=python/cdc_lake/jvm
JAR="$JVM_DIR/cdc-lake-functions.jar"
SPARK_JARS="$(.venv/bin/python -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
hive_version="$(sed -n 's|.*<hive.version>\(.*\)</hive.version>.*|\1|p' pom.xml)"
hadoop_version="$(sed -n 's|.*<hadoop.version>\(.*\)</hadoop.version>.*|\1|p' pom.xml)"
for bundled in "hive-exec-$hive_version-core.jar" "hive-serde-$hive_version.jar" "hadoop-client-api-$hadoop_version.jar"; do
  [ -f "$SPARK_JARS/$bundled" ] || {
    echo "setup: pom.xml compiles against $bundled, but pyspark does not bundle it" \
      "(it has: $(cd "$SPARK_JARS" && echo hive-exec-*.jar hadoop-client-api-*.jar)); set hive.version and" \
      "hadoop.version (and spark.version) in pom.xml to what pyspark bundles" >&2
    exit 1
  }
done
if [ -f "$JAR" ] && [ -z "$(find "$JVM_DIR/src" pom.xml -newer "$JAR" -print -quit)" ]; then
  exit 0
fi
# clean: a fresh build, as javac into an empty folder was (no class of a removed source stays);
# -q: only errors; -B: no colours or progress in logs (sed drops the colour resets that Debian's
# Maven 3.8 prints anyway). The jar plugin writes $JAR itself; the tests run in scripts/test.sh.
mvn -q -B -DskipTests clean package 2>&1 | sed 's/\x1b\[0m//g'
echo "setup: built $JAR"
