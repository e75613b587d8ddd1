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
    builder = SparkSession.builder.appName("cdc-lake").master(
        os.environ.get("CDC_LAKE_SPARK_MASTER", "local[*]")
    )
    for key, value in settings.spark_conf().items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
