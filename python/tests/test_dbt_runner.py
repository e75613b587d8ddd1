"""run_dbt's reuse of a parsed manifest (the suite parses the project once per worker and scenario)."""

from __future__ import annotations

import json

import pytest

from cdc_lake import dbt as dbt_runner


def test_parse_options_keep_what_a_parse_depends_on():
    args = ["build", "--select", "cdc_current+", "--vars", '{"a": 1}', "--target=thrift", "--full-refresh", "-t", "x"]
    assert dbt_runner._parse_options(args) == ["--vars", '{"a": 1}', "--target=thrift", "-t", "x"]
    assert dbt_runner._parse_options(["build", "--exclude-resource-type", "unit_test"]) == []


def test_the_folders_a_caller_names_are_not_overridden(tmp_path, monkeypatch):
    """run_dbt adds the project's folders after the caller's arguments, and dbt takes an option's
    last value: a folder the caller names is left out of them."""
    monkeypatch.setenv("CDC_LAKE_DBT_STATE", str(tmp_path / "state"))
    default = dbt_runner._path_args(dbt_runner.PROJECT_DIR)
    assert default[default.index("--target-path") + 1] == str(tmp_path / "state" / "target")
    chosen = dbt_runner._path_args(dbt_runner.PROJECT_DIR, given=["build", "--target-path", "x", "--log-path=y"])
    assert "--target-path" not in chosen and "--log-path" not in chosen
    assert chosen[chosen.index("--project-dir") + 1] == str(dbt_runner.PROJECT_DIR)
    # and dbt writes where the caller said, the reused parse included
    monkeypatch.setattr(dbt_runner, "_MANIFESTS", {})
    for reuse in (False, True):
        target = tmp_path / f"target-{reuse}"
        dbt_runner.run_dbt(["ls", "--resource-type", "seed", "--target-path", str(target)], reuse_manifest=reuse)
        assert (target / "manifest.json").exists()
        assert not (tmp_path / "state" / "target" / "manifest.json").exists()


def _model_schemas(result) -> set[str]:
    return {json.loads(line)["schema"] for line in result}


def test_a_manifest_is_parsed_once_per_environment_and_reused(monkeypatch):
    monkeypatch.setattr(dbt_runner, "_MANIFESTS", {})
    listing = ["ls", "--resource-type", "model", "--output", "json", "--output-keys", "schema"]
    monkeypatch.setenv("CDC_LAKE_SCHEMA", "reuse_one")
    first = dbt_runner.run_dbt(listing, reuse_manifest=True)
    again = dbt_runner.run_dbt(listing, reuse_manifest=True)
    assert len(dbt_runner._MANIFESTS) == 1
    assert _model_schemas(first) == _model_schemas(again) == {"reuse_one"}
    # the target schema is part of the parse: another scenario gets a manifest of its own
    monkeypatch.setenv("CDC_LAKE_SCHEMA", "reuse_two")
    other = dbt_runner.run_dbt(listing, reuse_manifest=True)
    assert len(dbt_runner._MANIFESTS) == 2
    assert _model_schemas(other) == {"reuse_two"}
    # and so are --vars: the union of the events reads the staging models of var('cdc_formats')
    upstream = ["ls", "--resource-type", "model", "--select", "+int_cdc__events", "--output", "name"]
    every_format = dbt_runner.run_dbt(upstream, reuse_manifest=True)
    one_format = dbt_runner.run_dbt([*upstream, "--vars", '{"cdc_formats": ["canal_json"]}'], reuse_manifest=True)
    assert len(dbt_runner._MANIFESTS) == 3
    assert {"stg_canal_json__changes", "stg_debezium_json__changes"} <= set(every_format)
    assert [name for name in one_format if name.startswith("stg_") and name.endswith("__changes")] == [
        "stg_canal_json__changes"
    ]


def test_a_failed_parse_says_so(monkeypatch):
    monkeypatch.setattr(dbt_runner, "_MANIFESTS", {})
    with pytest.raises(dbt_runner.DbtError, match="dbt parse failed"):
        dbt_runner.run_dbt(["build"], reuse_manifest=True, project_dir=dbt_runner.PROJECT_DIR / "no-such-project")


def test_the_profile_settings_are_applied_on_a_commands_first_statement_only(monkeypatch):
    """dbt-spark's session cursor applies the profile's server_side_parameters to the running
    session on every statement; run_dbt lets it do so on the first statement of a command only."""
    from dbt.adapters.spark.session import Cursor

    seen: list[dict[str, str]] = []

    def recording_execute(cursor, sql, *parameters):
        seen.append(dict(cursor.server_side_parameters))

    monkeypatch.setattr(Cursor, "execute", recording_execute)
    profile = {"spark.sql.ansi.enabled": "false", "spark.sql.shuffle.partitions": "2"}
    with dbt_runner._profile_settings_applied_once():
        for _ in range(3):
            cursor = Cursor(server_side_parameters=dict(profile))
            cursor.execute("select 1")
            assert cursor.server_side_parameters == profile  # given back after each statement
    assert seen == [profile, {}, {}]
    with dbt_runner._profile_settings_applied_once():  # the next command applies them again
        Cursor(server_side_parameters=dict(profile)).execute("select 1")
    assert seen[-1] == profile
    assert Cursor.execute is recording_execute


def test_an_in_process_command_still_gives_the_session_the_profile_settings(lake):
    """The first statement still applies them: dbt-spark's spark.sql.ansi.enabled=false is in effect
    after a command, though the session had it on before."""
    lake.spark.conf.set("spark.sql.ansi.enabled", "true")
    dbt_runner.run_dbt(["show", "--inline", "select 1 as one", "--limit", "1"])
    assert lake.spark.conf.get("spark.sql.ansi.enabled") == "false"
