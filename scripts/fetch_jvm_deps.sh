#!/usr/bin/env bash
# Fetch the JVM libraries pinned in python/cdc_lake/jvm/deps/pom.xml from Maven Central into
# python/cdc_lake/jvm/deps/lib/ (git-ignored), named without their versions: the jars every Spark
# session of the project loads besides pyspark's (spark.jars, settings.runtime_jars()). Only the
# artifacts the pom declares are copied, not their dependencies. Nothing to do (and no network
# needed) when lib/ is newer than the pom. Usage: scripts/fetch_jvm_deps.sh (scripts/setup.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/../python/cdc_lake/jvm/deps"
if [ -d lib ] && [ -n "$(find lib -maxdepth 1 -name '*.jar' -newer pom.xml -print -quit)" ]; then
  exit 0
fi
rm -rf lib
mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib -DexcludeTransitive=true -Dmdep.stripVersion=true 2>&1 \
  | sed 's/\x1b\[0m//g'
# Spark redacts every configuration value that matches spark.redaction.regex ("token" among others):
# a jar named spark-token-provider-... turns `set spark.jars` into "*********(redacted)", and the
# dbt macro cdc_functions_jar finds no functions jar in it. The module lends Kafka delegation tokens.
mv lib/spark-token-provider-kafka-0-10_2.13.jar lib/spark-kafka-0-10-delegation-provider_2.13.jar
touch lib/*.jar
echo "setup: fetched $(ls lib | wc -l) jars into python/cdc_lake/jvm/deps/lib ($(cd lib && echo *.jar))"
