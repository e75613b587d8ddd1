"""The project's own materializations keep dbt's names free (issue 30): what a model gets."""

from __future__ import annotations

import json
import re

from cdc_lake import dbt as dbt_runner


def _models(*args: str) -> dict[str, dict]:
    listing = ["ls", "--resource-type", "model", "--output", "json", "--output-keys", "name", "config", *args]
    return {node["name"]: node["config"] for node in map(json.loads, dbt_runner.run_dbt(listing, reuse_manifest=True))}


def test_the_projects_models_use_its_own_materializations_and_no_hook():
    models = _models("--vars", '{"cdc_examples": true}')
    assert {config["materialized"] for config in models.values()} == {"cdc_table", "cdc_incremental", "cdc_view"}
    assert models["stg_canal_json__changes"]["materialized"] == "cdc_incremental"
    assert models["int_cdc__changes_keyed"]["materialized"] == "cdc_incremental"
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
