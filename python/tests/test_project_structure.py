"""The project's structure: the DAG flows one way, and the project's own materializations keep
dbt's names free (issue 30)."""

from __future__ import annotations

import json
import re

from cdc_lake import dbt as dbt_runner


def _models(*args: str, keys: tuple[str, ...] = ("config",)) -> dict[str, dict]:
    listing = ["ls", "--resource-type", "model", "--output", "json", "--output-keys", "name", *keys, *args]
    return {node["name"]: node for node in map(json.loads, dbt_runner.run_dbt(listing, reuse_manifest=True))}


def _layer(node: dict) -> str:
    """staging, intermediate or marts: the models/ folder a model is in."""
    return node["original_file_path"].split("/")[1]


def test_the_dag_flows_one_way():
    """Only staging reads source(); no intermediate model reads a mart; staging reads no model of
    another layer."""
    models = _models("--vars", '{"cdc_examples": true}', keys=("original_file_path", "depends_on"))
    layer_of = {f"model.cdc_lake.{name}": _layer(node) for name, node in models.items()}
    assert set(layer_of.values()) == {"staging", "intermediate", "marts"}
    wrong = []
    for name, node in models.items():
        layer = _layer(node)
        for parent in node["depends_on"]["nodes"]:
            if parent.startswith("source.") and layer != "staging":
                wrong.append(f"{name} ({layer}) reads {parent}")
            parent_layer = layer_of.get(parent)  # None for a seed or a source
            reads_a_mart = parent_layer == "marts" and layer != "marts"
            staging_reads_a_later_layer = layer == "staging" and parent_layer not in (None, "staging")
            if reads_a_mart or staging_reads_a_later_layer:
                wrong.append(f"{name} ({layer}) reads {parent} ({parent_layer})")
    assert wrong == []


def test_the_projects_models_use_its_own_materializations_and_no_hook():
    models = {name: node["config"] for name, node in _models("--vars", '{"cdc_examples": true}').items()}
    assert {config["materialized"] for config in models.values()} == {"cdc_table", "cdc_incremental", "cdc_view", "ephemeral"}
    assert models["stg_canal_json__changes"]["materialized"] == "ephemeral"
    assert models["int_cdc__events"]["materialized"] == "cdc_incremental"
    assert models["int_cdc__changes"]["materialized"] == "cdc_incremental"
    assert models["int_cdc__changes_keyed"]["materialized"] == "cdc_view"  # read, never stored
    assert models["cdc_current"]["materialized"] == "cdc_table"
    assert models["cdc_history"]["materialized"] == "cdc_view"
    assert models["crm_customers"]["materialized"] == "cdc_table"  # an example analyst model: the folder's
    # the crash-safety steps live in cdc_incremental, not in hooks that would run on an analyst's models too
    assert not [name for name, config in models.items() if config["pre-hook"] or config["post-hook"]]


def test_dbt_materializations_are_not_replaced():
    """A model that names dbt's `table`, `incremental` or `view` gets dbt-spark's own: the project
    defines materializations of its own names only, and does not redefine is_incremental()."""
    defined = set()
    for path in (dbt_runner.PROJECT_DIR / "macros").rglob("*.sql"):
        text = path.read_text(encoding="utf-8")
        defined |= set(re.findall(r"\{%-?\s*materialization\s+(\w+)", text))
        assert not re.search(r"\{%-?\s*macro\s+is_incremental\s*\(", text), path
    assert defined == {"cdc_table", "cdc_incremental", "cdc_view"}
