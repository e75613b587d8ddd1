"""The one place that creates the embedded Spark session."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from cdc_lake.settings import Settings, load_settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def get_spark(settings: Settings | None = None) -> "SparkSession":
    """Return the process's Spark session, creating it with the project's settings.

    dbt-spark's `session` method calls `SparkSession.builder.getOrCreate()`, so when dbt runs in the
    same process (tests, the demo) it reuses this session and sees the same tables.
    """
    from pyspark.sql import SparkSession

    settings = settings or load_settings()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("cdc-lake")
    for key, value in settings.spark_conf().items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    _quiet_harmless_errors(spark)
    return spark


# Loggers whose ERROR lines report nothing that failed. Hive's FileUtils logs "Failed to delete"
# for a folder that does not exist: the orphan-location cleanup of an incremental model's first
# build (macros/materializations/cdc_clear_orphan_location.sql) drops a helper table pointed at the
# model's location, which on a first build has no files; it printed about 20 such lines per build.
QUIET_LOGGERS = ("org.apache.hadoop.hive.common.FileUtils",)


def _quiet_harmless_errors(spark: "SparkSession") -> None:
    """Turn off the loggers of QUIET_LOGGERS in the driver JVM."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    off = jvm.org.apache.logging.log4j.Level.OFF
    for name in QUIET_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, off)
