"""The embedded Spark settings (settings.py) and dbt's local target (profiles.yml) agree."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import jinja2
import pytest
import yaml

from cdc_lake.settings import load_settings
from conftest import CALLER_SPARK_CONF, GENERATED_CODE_SPARK_SETTINGS, INTERPRETED_SPARK_SETTINGS, write_jsonl

PROJECT_DIR = Path(__file__).resolve().parents[2]
PROFILES = PROJECT_DIR / "profiles" / "profiles.yml"


def _render(text: str, environ: dict[str, str]) -> str:
    """Render profiles.yml as dbt does, with env_var() reading `environ` only."""
    return jinja2.Template(text).render(env_var=lambda name, default="": environ.get(name, default))


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"CDC_LAKE_CATALOG_URL": "jdbc:postgresql://127.0.0.1:5433/m?user=u"},
        {"CDC_LAKE_CLASS_ARCHIVE": "/opt/cds/driver.jsa", "CDC_LAKE_JVM_OPTIONS": "-Xmx1g"},
        {"CDC_LAKE_CLASS_ARCHIVE": "none"},
    ],
    ids=["derby", "catalog", "archive elsewhere", "no archive"],
)
def test_local_target_mirrors_settings(monkeypatch, tmp_path, environ):
    for name in ("CDC_LAKE_WAREHOUSE", "CDC_LAKE_METASTORE", "CDC_LAKE_DRIVER_MEMORY",
                 "CDC_LAKE_SHUFFLE_PARTITIONS", "CDC_LAKE_SPARK_CONF", "CDC_LAKE_SCHEMA", "CDC_LAKE_FUNCTIONS_JAR",
                 "CDC_LAKE_JVM_OPTIONS", "CDC_LAKE_CATALOG_URL", "CDC_LAKE_CLASS_ARCHIVE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    profile = yaml.safe_load(_render(PROFILES.read_text(), environ))
    local = profile["cdc_lake"]["outputs"]["local"]
    params = {k: str(v) for k, v in local["server_side_parameters"].items()}
    conf = load_settings().spark_conf()
    # paths: the profile names them relative to the project root, settings resolves them there
    assert Path(params.pop("spark.sql.warehouse.dir")).absolute() == Path(conf.pop("spark.sql.warehouse.dir"))
    # the class archive: the profile names it relative to the project root (dbt runs there)
    java_options = "spark.driver.extraJavaOptions"
    assert params.pop(java_options).replace(
        "=build/cds/", f"={PROJECT_DIR}/build/cds/"
    ) == conf.pop(java_options)
    url = "spark.hadoop.javax.jdo.option.ConnectionURL"
    if "CDC_LAKE_CATALOG_URL" in environ:
        assert params.pop(url) == conf.pop(url) == environ["CDC_LAKE_CATALOG_URL"]
    else:
        profile_db = re.search(r"databaseName=([^;]+)", params.pop(url)).group(1)
        settings_db = re.search(r"databaseName=([^;]+)", conf.pop(url)).group(1)
        assert Path(profile_db).absolute() == Path(settings_db)
    # the jars: settings finds them next to its package, whatever the working directory
    profile_jars = [PROJECT_DIR / jar for jar in params.pop("spark.jars").split(",")]
    assert profile_jars == [Path(jar) for jar in conf.pop("spark.jars").split(",")]
    assert PROJECT_DIR / params.pop("spark.driver.extraClassPath") == Path(conf.pop("spark.driver.extraClassPath"))
    assert params == conf
    assert local["schema"] == load_settings().schema


def test_dbt_applies_the_sql_settings_of_cdc_lake_spark_conf(lake, monkeypatch):
    from cdc_lake.dbt import DbtError

    lake.scenario("spark_conf_hook")
    before = lake.spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    monkeypatch.setenv("CDC_LAKE_SPARK_CONF", "spark.sql.autoBroadcastJoinThreshold = 12345")
    try:
        lake.build("--select", "cdc_table_keys")
        assert lake.spark.conf.get("spark.sql.autoBroadcastJoinThreshold") == "12345"
    finally:
        lake.spark.conf.set("spark.sql.autoBroadcastJoinThreshold", before)
    # a setting a running session cannot change stops the build and says where it belongs
    monkeypatch.setenv("CDC_LAKE_SPARK_CONF", "spark.driver.memory=8g")
    with pytest.raises(DbtError, match=r"spark\.driver\.memory.*profiles/profiles\.yml"):
        lake.build("--select", "cdc_table_keys")


def test_a_build_with_few_messages_to_parse_runs_interpreted(lake, monkeypatch, tmp_path):
    # the suite sets interpreted mode through CDC_LAKE_SPARK_CONF, which overrides the hook: here
    # the hook decides, from what int_cdc__events has not processed (3 messages, then none)
    lake.scenario("small_build_settings")
    messages = [{"data": [{"id": str(i)}], "database": "d", "table": "t", "type": "INSERT", "pkNames": ["id"],
                 "es": 1_000 + i, "ts": 1_000 + i} for i in range(3)]
    lake.land([write_jsonl(tmp_path / "three.jsonl", messages)], "canal_json")
    monkeypatch.setenv("CDC_LAKE_SPARK_CONF", CALLER_SPARK_CONF)

    def mode_of_a_build(*select: str, at_most: int) -> dict[str, str]:
        at_most_var = f"{{cdc_interpreted_max_new_messages: {at_most}}}"
        lake.build(*select, "--exclude-resource-type", "unit_test", "--vars", at_most_var)
        return {key: lake.spark.conf.get(key) for key in INTERPRETED_SPARK_SETTINGS}

    try:
        assert mode_of_a_build("--select", "cdc_table_keys", at_most=3) == INTERPRETED_SPARK_SETTINGS
        # more than var cdc_interpreted_max_new_messages: generated code (Spark's defaults)
        assert mode_of_a_build("--select", "+int_cdc__events", at_most=2) == GENERATED_CODE_SPARK_SETTINGS
        # int_cdc__events has processed the three
        assert mode_of_a_build("--select", "cdc_table_keys", at_most=2) == INTERPRETED_SPARK_SETTINGS
    finally:
        for key, value in INTERPRETED_SPARK_SETTINGS.items():
            lake.spark.conf.set(key, value)


def test_jvm_options_are_the_class_archives_then_the_variables(monkeypatch):
    from cdc_lake.settings import CLASS_ARCHIVE, DEFAULT_JVM_OPTIONS

    monkeypatch.delenv("CDC_LAKE_JVM_OPTIONS", raising=False)
    monkeypatch.delenv("CDC_LAKE_CLASS_ARCHIVE", raising=False)
    archive_options = f"-XX:SharedArchiveFile={CLASS_ARCHIVE} -Xlog:cds=off -Xlog:cds+dynamic=off"
    assert CLASS_ARCHIVE == PROJECT_DIR / "build" / "cds" / "driver.jsa"
    assert load_settings().spark_conf()["spark.driver.extraJavaOptions"] == f"{archive_options} {DEFAULT_JVM_OPTIONS}"
    # the variable gives the driver JVM's options (e.g. the short-run ones of the demo and the
    # tests), after the archive's, so that its own -Xshare or archive wins
    monkeypatch.setenv("CDC_LAKE_JVM_OPTIONS", "-Xshare:off -XX:+UseParallelGC")
    assert load_settings().spark_conf()["spark.driver.extraJavaOptions"] == (
        f"{archive_options} -Xshare:off -XX:+UseParallelGC"
    )
    # `none`: the default options only
    monkeypatch.setenv("CDC_LAKE_CLASS_ARCHIVE", "none")
    monkeypatch.delenv("CDC_LAKE_JVM_OPTIONS")
    assert load_settings().spark_conf()["spark.driver.extraJavaOptions"] == DEFAULT_JVM_OPTIONS


def test_default_jvm_options_start_this_jdk_with_c2_later_and_the_parallel_collector():
    """The default driver options are options of the JDK in use (a JVM stops at once on an option
    it does not know): the parallel collector, and C2's thresholds raised, leaving C1 and the rest
    as the parallel collector's defaults have them."""
    from cdc_lake.settings import DEFAULT_JVM_OPTIONS

    def flags(*options: str) -> dict[str, str]:
        result = subprocess.run(
            ["java", *options, "-XX:+PrintFlagsFinal", "-version"], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        return {m.group(1): m.group(2) for m in re.finditer(r"^\s*\S+ (\w+)\s+= (\S+)", result.stdout, re.M)}

    defaults, ours = flags("-XX:+UseParallelGC"), flags(*DEFAULT_JVM_OPTIONS.split())
    assert ours["UseParallelGC"] == "true" and ours["UseG1GC"] == "false"
    assert int(ours["Tier4InvocationThreshold"]) == 10 * int(defaults["Tier4InvocationThreshold"])
    assert int(ours["Tier4BackEdgeThreshold"]) == 10 * int(defaults["Tier4BackEdgeThreshold"])
    assert int(ours["Tier4CompileThreshold"]) == 4 * int(defaults["Tier4CompileThreshold"])
    assert ours["TieredStopAtLevel"] == defaults["TieredStopAtLevel"] == "4"
    # (where the JVM maps its class archive differs from run to run)
    changed = {name for name in defaults if ours.get(name) != defaults[name]} - {"SharedBaseAddress"}
    assert changed == {
        "Tier4InvocationThreshold", "Tier4MinInvocationThreshold", "Tier4CompileThreshold", "Tier4BackEdgeThreshold"
    }


def test_a_missing_class_archive_is_ignored_without_a_word(tmp_path):
    """Every driver names the class archive, which a fresh clone does not have until
    `scripts/setup.sh --class-archive` records it: the JVM starts without it and says nothing."""
    from cdc_lake.settings import CLASS_ARCHIVE_JVM_OPTIONS

    options = CLASS_ARCHIVE_JVM_OPTIONS.format(archive=tmp_path / "missing.jsa").split()
    result = subprocess.run(["java", *options, "-version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if not line.startswith("openjdk") and "OpenJDK" not in line] == []


def test_short_run_jvm_options_start_this_jdk():
    """The options the demo and the tests give every Spark driver are options of the JDK in use (a
    JVM stops at once on an option it does not know)."""
    from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS

    result = subprocess.run(
        ["java", *SHORT_RUN_JVM_OPTIONS.split(), "-XX:+PrintFlagsFinal", "-version"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    flags = {m.group(1): m.group(2) for m in re.finditer(r"^\s*\S+ (\w+)\s+= (\S+)", result.stdout, re.M)}
    assert flags["TieredStopAtLevel"] == "1"
    assert flags["UseParallelGC"] == "true"
    assert int(flags["ReservedCodeCacheSize"]) == 240 * 1024 * 1024


def test_the_demo_runs_with_the_short_run_jvm_options_unless_set(monkeypatch):
    from cdc_lake import demo
    from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS

    monkeypatch.delenv("CDC_LAKE_JVM_OPTIONS", raising=False)
    demo.use_short_run_jvm()
    assert os.environ["CDC_LAKE_JVM_OPTIONS"] == SHORT_RUN_JVM_OPTIONS
    monkeypatch.setenv("CDC_LAKE_JVM_OPTIONS", "-Xmx1g")
    demo.use_short_run_jvm()
    assert os.environ["CDC_LAKE_JVM_OPTIONS"] == "-Xmx1g"


def test_the_demo_builds_the_example_models_a_users_build_leaves_off():
    """The example analyst models (typed tables of the sample data, models/marts/analytics/) with their
    data tests and exposures are off by default: a typed model of a table the lake does not have
    fails the build. The demo, which lands those tables, builds them."""
    from cdc_lake.dbt import run_dbt
    from cdc_lake.demo import DEMO_BUILD_OPTIONS

    listing = ["ls", "--select", "path:models/marts/analytics", "--output", "name"]
    assert list(run_dbt([*listing, "--exclude-resource-type", "unit_test"])) == []
    assert sorted(run_dbt([*listing, *DEMO_BUILD_OPTIONS])) == [
        "crm_customers", "crm_tenant_customers", "customer_balance_report", "inventory_customers",
        "inventory_products", "not_null_inventory_customers_primary_key", "not_null_shop_products_primary_key",
        "shop_products", "shop_products_history", "shop_sales_dashboard",
        "unique_inventory_customers_primary_key", "unique_shop_products_primary_key",
    ]


def test_harmless_hive_errors_are_not_printed(lake):
    """Hive's FileUtils "Failed to delete" lines (a first build's orphan-location cleanup) are off;
    other loggers keep the session's level."""
    from cdc_lake.spark import QUIET_LOGGERS

    log_manager = lake.spark.sparkContext._jvm.org.apache.logging.log4j.LogManager
    for name in QUIET_LOGGERS:
        assert log_manager.getLogger(name).getLevel().toString() == "OFF"
    assert log_manager.getLogger("org.apache.spark.sql.execution").getLevel().toString() == "ERROR"


def test_reliability_runs_take_their_size_from_the_settings(monkeypatch):
    import conftest

    monkeypatch.delenv("CDC_LAKE_SOAK_BATCHES", raising=False)
    monkeypatch.setattr(conftest, "LONG_TESTS", False)
    assert conftest.run_size("CDC_LAKE_SOAK_BATCHES", ci=4, long=20) == 4
    monkeypatch.setattr(conftest, "LONG_TESTS", True)
    assert conftest.run_size("CDC_LAKE_SOAK_BATCHES", ci=4, long=20) == 20
    # a run's own variable wins over both
    monkeypatch.setenv("CDC_LAKE_SOAK_BATCHES", "7")
    assert conftest.run_size("CDC_LAKE_SOAK_BATCHES", ci=4, long=20) == 7
    monkeypatch.setenv("CDC_LAKE_SOAK_BATCHES", "many")
    with pytest.raises(ValueError, match="CDC_LAKE_SOAK_BATCHES='many': give a whole number"):
        conftest.run_size("CDC_LAKE_SOAK_BATCHES", ci=4, long=20)


def test_the_session_keeps_a_builds_generated_classes(lake):
    """Spark's default cache of generated classes (100) holds a fraction of one build's (about 730):
    the session keeps more, so a process that builds again does not compile them again."""
    from cdc_lake.settings import CODEGEN_CACHE_ENTRIES

    assert lake.spark.conf.get("spark.sql.codegen.cache.maxEntries") == CODEGEN_CACHE_ENTRIES
    jvm = lake.spark.sparkContext._jvm
    compiles = jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    query = "select id, sum(id * 7) over (partition by id % 3) as s from range(20) where id % 5 <> 1"
    # code generation as users run it: Spark's defaults for the keys the suite sets to interpret
    # expressions (conftest.INTERPRETED_SPARK_SETTINGS)
    saved = {key: lake.spark.conf.get(key) for key in INTERPRETED_SPARK_SETTINGS}
    for key in INTERPRETED_SPARK_SETTINGS:
        lake.spark.conf.unset(key)
    try:
        first = compiles.getCount()
        lake.spark.sql(query).collect()
        assert compiles.getCount() > first, "the query compiled no class: code generation is off"
        # the same query again after more than Spark's default number of other queries' classes
        for n in range(120):
            lake.spark.sql(f"select id * {n + 1000} as v from range(3) where id > {n}").collect()
        before = compiles.getCount()
        lake.spark.sql(query).collect()
        assert compiles.getCount() == before
    finally:
        for key, value in saved.items():
            lake.spark.conf.set(key, value)


def test_no_generated_method_is_larger_than_the_jit_compiles(lake):
    """A stage whose generated code has a method over HotSpot's 8000-byte limit runs without
    whole-stage code generation instead of in the bytecode interpreter (settings.HUGE_METHOD_LIMIT),
    in the session `cdc-lake` opens and in dbt's (test_local_target_mirrors_settings)."""
    from cdc_lake.settings import HUGE_METHOD_LIMIT

    assert HUGE_METHOD_LIMIT == "8000"
    assert lake.spark.conf.get("spark.sql.codegen.hugeMethodLimit") == HUGE_METHOD_LIMIT


def test_parquet_files_have_no_dictionary_pages(lake, tmp_path):
    """The session writes Parquet without dictionary pages (settings.PARQUET_DICTIONARY): a column
    of repeated values, which parquet-mr would dictionary-encode, is stored plain."""
    import pyarrow.parquet as pq

    from cdc_lake.settings import PARQUET_DICTIONARY

    assert PARQUET_DICTIONARY == "false"
    folder = tmp_path / "written"
    lake.spark.sql("select id, concat('table_', id % 3) as source_table from range(1000)").write.parquet(str(folder))
    files = sorted(folder.glob("*.parquet"))
    assert files
    for file in files:
        metadata = pq.ParquetFile(file).metadata
        for group in range(metadata.num_row_groups):
            for column in range(metadata.num_columns):
                chunk = metadata.row_group(group).column(column)
                where = f"{file.name}: {chunk.path_in_schema}"
                assert chunk.dictionary_page_offset is None, f"{where} has a dictionary page"
                assert not any("DICTIONARY" in encoding for encoding in chunk.encodings), chunk.encodings
