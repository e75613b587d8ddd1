"""The embedded Spark settings (settings.py) and dbt's local target (profiles.yml) agree."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest
import yaml

from cdc_lake.settings import load_settings

PROJECT_DIR = Path(__file__).resolve().parents[2]
PROFILES = PROJECT_DIR / "profiles" / "profiles.yml"


def _render_defaults(text: str) -> str:
    """Render {{ env_var('X', 'default') }} with its default (the environment is not consulted)."""
    return re.sub(r"\{\{\s*env_var\('([A-Z_]+)',\s*'([^']*)'\)\s*(\|\s*int\s*)?\}\}", r"\2", text)


def test_local_target_mirrors_settings(monkeypatch, tmp_path):
    for name in ("CDC_LAKE_WAREHOUSE", "CDC_LAKE_METASTORE", "CDC_LAKE_DRIVER_MEMORY",
                 "CDC_LAKE_SHUFFLE_PARTITIONS", "CDC_LAKE_SPARK_CONF", "CDC_LAKE_SCHEMA", "CDC_LAKE_FUNCTIONS_JAR",
                 "CDC_LAKE_JVM_OPTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    profile = yaml.safe_load(_render_defaults(PROFILES.read_text()))
    local = profile["cdc_lake"]["outputs"]["local"]
    params = {k: str(v) for k, v in local["server_side_parameters"].items()}
    conf = load_settings().spark_conf()
    # paths: the profile names them relative to the project root, settings resolves them there
    assert Path(params.pop("spark.sql.warehouse.dir")).absolute() == Path(conf.pop("spark.sql.warehouse.dir"))
    url = "spark.hadoop.javax.jdo.option.ConnectionURL"
    profile_db = re.search(r"databaseName=([^;]+)", params.pop(url)).group(1)
    settings_db = re.search(r"databaseName=([^;]+)", conf.pop(url)).group(1)
    assert Path(profile_db).absolute() == Path(settings_db)
    # the functions jar: settings finds it next to its package, whatever the working directory
    assert PROJECT_DIR / params.pop("spark.jars") == Path(conf.pop("spark.jars"))
    # the class archive likewise
    archive_option = "-XX:SharedArchiveFile="
    profile_archive = params.pop("spark.driver.extraJavaOptions").removeprefix(archive_option)
    settings_archive = conf.pop("spark.driver.extraJavaOptions").removeprefix(archive_option)
    assert PROJECT_DIR / profile_archive == Path(settings_archive)
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


def test_jvm_options_map_the_class_archive_unless_set(monkeypatch, tmp_path):
    from cdc_lake import settings as settings_module

    monkeypatch.delenv("CDC_LAKE_JVM_OPTIONS", raising=False)
    default = load_settings().spark_conf()["spark.driver.extraJavaOptions"]
    assert default == f"-XX:SharedArchiveFile={settings_module.CLASS_ARCHIVE}"
    # Spark splits the options on white space: a path with a space is quoted
    spaced = tmp_path / "with space" / "classes.jsa"
    monkeypatch.setattr(settings_module, "CLASS_ARCHIVE", spaced)
    assert load_settings().jvm_options == f'"-XX:SharedArchiveFile={spaced}"'
    # the variable replaces the default (e.g. to run without the archive)
    monkeypatch.setenv("CDC_LAKE_JVM_OPTIONS", "-Xshare:auto -XX:+UseParallelGC")
    assert load_settings().spark_conf()["spark.driver.extraJavaOptions"] == "-Xshare:auto -XX:+UseParallelGC"


def test_class_archive_is_installed_only_when_the_jvm_wrote_it(monkeypatch, tmp_path):
    from cdc_lake import class_archive, demo

    for name in ("CDC_LAKE_JVM_OPTIONS", "CDC_LAKE_WAREHOUSE", "CDC_LAKE_METASTORE", "CDC_LAKE_DBT_STATE",
                 "CDC_LAKE_SPARK_CONF"):
        monkeypatch.setenv(name, "")  # record() sets them; monkeypatch restores them
    archive = tmp_path / "spark-classes.jsa"
    archive.write_bytes(b"the archive of an earlier setup")
    recording = {}

    def fake_demo() -> int:
        option = class_archive.os.environ["CDC_LAKE_JVM_OPTIONS"]
        assert option.startswith("-XX:ArchiveClassesAtExit=")
        recording["path"] = Path(option.split("=", 1)[1])
        assert Path(class_archive.os.environ["CDC_LAKE_WAREHOUSE"]).parent == recording["path"].parent
        return 0

    monkeypatch.setattr(demo, "run_demo", fake_demo)
    monkeypatch.setattr("cdc_lake.spark.get_spark", lambda: None)
    # the JVM exits without writing the archive: the earlier one stays, the error says why
    monkeypatch.setattr(class_archive, "_stop_jvm", lambda spark: None)
    with pytest.raises(RuntimeError, match="exited without writing"):
        class_archive.record(archive)
    assert archive.read_bytes() == b"the archive of an earlier setup"
    # the JVM writes it while it exits: it replaces the old one whole, also when the scratch folder
    # is on another file system than the archive (a rename across them fails)
    monkeypatch.setattr(class_archive, "_stop_jvm", lambda spark: recording["path"].write_bytes(b"new classes"))
    real_replace = os.replace

    def replace_on_one_file_system(source, target):
        if Path(source).parent != Path(target).parent:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_replace(source, target)

    monkeypatch.setattr(class_archive.os, "replace", replace_on_one_file_system)
    class_archive.record(archive)
    assert archive.read_bytes() == b"new classes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spark-classes.jsa"]
    # a failed sample run installs nothing
    monkeypatch.setattr(demo, "run_demo", lambda: 1)
    with pytest.raises(RuntimeError, match="sample run failed"):
        class_archive.record(archive)
    assert archive.read_bytes() == b"new classes"
