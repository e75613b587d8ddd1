"""`cdc-lake demo`: land the shipped sample data, run `dbt build`, print what was built."""

from __future__ import annotations

import os
import time
from pathlib import Path

from cdc_lake.dbt import PROJECT_DIR, DbtError, run_dbt
from cdc_lake.formats import FORMAT_IDS
from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS

SAMPLE_DIR = PROJECT_DIR / "sample_data"
DEMO_SCHEMA = "cdc_demo"
# The example analyst models (models/marts/analytics/: typed tables of the sample data) are off
# unless cdc_examples is set; the demo lands their tables, so it builds them.
DEMO_BUILD_OPTIONS = ("--exclude-resource-type", "unit_test", "--vars", "{cdc_examples: true}")
SUMMARY_TABLES = (
    "cdc_changes",
    "cdc_history",
    "cdc_current",
    "cdc_ddl",
    "cdc_quarantine",
    "cdc_landing_audit",
)


def sample_inputs(sample_dir: Path = SAMPLE_DIR) -> list[tuple[str, Path]]:
    """(format id, path) for every entry of sample_data/<format_id>/, in a stable order."""
    inputs = []
    for format_dir in sorted(p for p in sample_dir.iterdir() if p.is_dir()):
        if format_dir.name not in FORMAT_IDS:
            continue
        for entry in sorted(format_dir.iterdir()):
            if not entry.name.startswith((".", "_")) and entry.name != "README.md":
                inputs.append((format_dir.name, entry))
    return inputs


def use_short_run_jvm() -> None:
    """Give the demo's Spark driver the short-run JVM options (settings.SHORT_RUN_JVM_OPTIONS: the
    sample data is small), unless CDC_LAKE_JVM_OPTIONS says otherwise."""
    os.environ.setdefault("CDC_LAKE_JVM_OPTIONS", SHORT_RUN_JVM_OPTIONS)


def run_demo(reset: bool = True) -> int:
    """Land every sample, build, and print a summary. Uses schemas cdc_demo and cdc_demo_raw."""
    os.chdir(PROJECT_DIR)
    use_short_run_jvm()
    os.environ.setdefault("CDC_LAKE_SCHEMA", DEMO_SCHEMA)
    os.environ.setdefault("CDC_LAKE_RAW_SCHEMA", f"{os.environ['CDC_LAKE_SCHEMA']}_raw")
    from cdc_lake.land import land
    from cdc_lake.settings import load_settings
    from cdc_lake.spark import get_spark

    settings = load_settings()
    started = time.monotonic()
    print(f"cdc-lake demo: warehouse {settings.warehouse_dir}, schemas {settings.schema} and {settings.raw_schema}")
    print("starting Spark ...", flush=True)
    spark = get_spark(settings)
    if reset:
        for schema in (settings.schema, settings.raw_schema):
            spark.sql(f"drop database if exists {schema} cascade")
    for format_id, path in sample_inputs():
        land([str(path)], format_id, spark=spark, settings=settings)
    # The scheduled build's command (scripts/scheduled_build.sh): unit tests check SQL on fixed
    # inputs, not the data, and run in the test suite. dbt prints a line per node as it goes.
    print("dbt build (models and their data tests):", flush=True)
    try:
        run_dbt(["build", *DEMO_BUILD_OPTIONS], quiet=False)
    except DbtError as exc:
        print(f"cdc-lake demo: {exc}")
        return 1
    print(f"\nbuilt in {time.monotonic() - started:.0f}s. Rows per table:")
    for table in SUMMARY_TABLES:
        count = spark.sql(f"select count(*) from {settings.schema}.{table}").collect()[0][0]
        print(f"  {table:<20} {count:>6}")
    print("\ncdc_current (a few live rows):")
    spark.sql(
        f"select source_database, source_table, primary_key, row from {settings.schema}.cdc_current "
        "order by source_database, source_table, primary_key limit 8"
    ).show(truncate=70)
    print("cdc_history of shop.products (SCD2 versions):")
    spark.sql(
        f"select primary_key, version_number, op, valid_from, valid_to, is_current, is_deleted "
        f"from {settings.schema}.cdc_history where source_table = 'products' "
        "order by primary_key, version_number limit 12"
    ).show(truncate=False)
    print("cdc_quarantine (reasons):")
    spark.sql(
        f"select source_format, reason, count(*) as messages from {settings.schema}.cdc_quarantine "
        "group by source_format, reason order by source_format, reason"
    ).show(truncate=110)
    print(
        "Query the results with Spark SQL, e.g.:\n"
        f"  .venv/bin/pyspark  (then spark.sql('select * from {settings.schema}.cdc_current'))\n"
        f"with CDC_LAKE_SCHEMA={settings.schema} CDC_LAKE_RAW_SCHEMA={settings.raw_schema} in the environment."
    )
    return 0
