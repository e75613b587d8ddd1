"""run_dbt's reuse of a parsed manifest (the suite parses the project once per worker and scenario)."""

from __future__ import annotations

import json

import pytest

from cdc_lake import dbt as dbt_runner


def test_parse_options_keep_what_a_parse_depends_on():
    args = ["build", "--select", "cdc_current+", "--vars", '{"a": 1}', "--target=thrift", "--full-refresh", "-t", "x"]
    assert dbt_runner._parse_options(args) == ["--vars", '{"a": 1}', "--target=thrift", "-t", "x"]
    assert dbt_runner._parse_options(["build", "--exclude-resource-type", "unit_test"]) == []


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
    assert [name for name in one_format if name.startswith("stg_") and name != "stg_cdc_landing__unclaimed"] == [
        "stg_canal_json__changes"
    ]


def test_a_failed_parse_says_so(monkeypatch):
    monkeypatch.setattr(dbt_runner, "_MANIFESTS", {})
    with pytest.raises(dbt_runner.DbtError, match="dbt parse failed"):
        dbt_runner.run_dbt(["build"], reuse_manifest=True, project_dir=dbt_runner.PROJECT_DIR / "no-such-project")
