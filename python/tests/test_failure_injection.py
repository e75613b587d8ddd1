"""A build that fails at a model, then a build without the failure, ends where an uninterrupted
build of the same landings does (issue 27, item 9).

The failure is injected deterministically by the test hook CDC_LAKE_TEST_FAIL_AT=<model>:<point>
(macros/materializations/cdc_build_state.sql): 'before_write' fails the model after its table is
marked running and before it writes, 'after_write' after it wrote and before it is marked complete.
dbt skips what depends on the failed model and builds the rest.

Scenario: landing 1, build; landings 2 and 3: a DDL that declares the key of a table whose
landing-1 row was keyed by row image for having none, a re-delivery of a landing-1 message, a late event
(it orders before its key's current version), a primary-key change. The uninterrupted reference
builds after landing 1 and after landing 3. Every mart (cdc_history, cdc_current, cdc_quarantine,
cdc_landing_audit, cdc_changes, cdc_ddl, cdc_columns, cdc_tables) must equal the reference.

CI runs one scenario whose second build, and the builds after it, fail at models of each kind and
stage (a staging incremental, the keyed changes, the history versions, the message outcomes, an
incremental mart, a table mart, a view), upstream first, then builds without a failure; both
failure points are used. The long run
(CDC_LAKE_LONG_TESTS=1, or CDC_LAKE_FAILURE_MODELS=N) also fails every model of the build in turn in
one scenario: a build per model and failure point, then a build without a failure (a scenario per
model would take a first build each, about three times as long).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_lake.dbt import DbtError, run_dbt
from conftest import UNREAD, run_size, write_jsonl

pytestmark = pytest.mark.slow

BUILD_ARGS = UNREAD
# The marts compared with the uninterrupted run, each in a fixed order.
MARTS = {
    "cdc_history": "source_database, source_table, primary_key, version_number",
    "cdc_current": "source_database, source_table, primary_key",
    "cdc_quarantine": "message_id, reason",
    "cdc_landing_audit": "landed_input",
    "cdc_changes": "change_id",
    "cdc_ddl": "message_id, element_index",
    "cdc_columns": "source_database, source_table, column_name",
    "cdc_tables": "source_database, source_table",
}
# Columns that differ between two landings of the same files (when they were landed).
LANDING_TIME_COLUMNS = ("landed_at",)
# CI: models of every kind and stage, failed in the second build of one scenario and in the builds
# after it, upstream first (what depends on a failed model is skipped); the models failed in one
# build lie on separate branches.
CI_FAILURES = (
    ("int_cdc__events:after_write",),  # the staged events, incremental
    (
        "int_cdc__changes:after_write",  # keyed and deduplicated changes, incremental
        "int_cdc__ddl:after_write",  # DDL statements, incremental
    ),
    (
        "int_cdc__history_versions:after_write",  # history versions, other partitions
        "int_cdc__message_outcomes:before_write",  # message outcomes, incremental
    ),
    (
        "cdc_current:after_write",  # a table mart
        "cdc_quarantine:before_write",  # a view
    ),
)
POINTS = ("before_write", "after_write")
LONG_MODELS = run_size("CDC_LAKE_FAILURE_MODELS", ci=0, long=1000)


def canal(type_: str, table: str, rows: list[dict] | None, es: int, *, old=None, pk=("id",), sql=None) -> dict:
    message = {
        "data": rows, "old": old, "database": "fail", "table": table, "type": type_, "es": es, "ts": es,
        "pkNames": list(pk) if pk else None, "isDdl": sql is not None,
    }
    if sql is not None:
        message["sql"] = sql
    return message


def batches(tmp: Path) -> list[Path]:
    """Landing 1; landing 2 declares the key of a table whose landing-1 row had none; landing 3
    holds a re-delivery, a late event, a key change and a delete (landing 2 closes no version, so
    the history's re-chain partition 2 is one that a rebuild from all changes would not write)."""
    items = [canal("INSERT", "items", [{"id": str(i), "v": "a"}], 1_000 + i) for i in range(6)]
    first = [
        *items,
        canal("UPDATE", "items", [{"id": "1", "v": "c"}], 3_000, old=[{"v": "a"}]),
        # no key: keyed by row image (landing 2's DDL declares one for the changes processed after it)
        canal("INSERT", "nokey", [{"id": "1", "w": "x"}], 1_500, pk=None),
    ]
    second = [
        canal("CREATE", "nokey", None, 5_000, pk=None, sql="CREATE TABLE nokey (id int, w varchar(8), PRIMARY KEY (id))"),
        canal("INSERT", "nokey", [{"id": "2", "w": "y"}], 5_100, pk=None),
    ]
    third = [
        items[2],  # re-delivered
        canal("UPDATE", "items", [{"id": "1", "v": "b"}], 2_000, old=[{"v": "a"}]),  # late
        canal("UPDATE", "items", [{"id": "40", "v": "a"}], 4_000, old=[{"id": "4"}]),  # key change
        canal("DELETE", "items", [{"id": "5", "v": "a"}], 4_500),
    ]
    return [
        write_jsonl(tmp / f"landing_{n}.jsonl", messages) for n, messages in enumerate((first, second, third), start=1)
    ]


def marts(lake) -> dict[str, list[str]]:
    """Every row of every compared mart as JSON (without landing times), in a fixed order."""
    state = {}
    for mart, order in MARTS.items():
        columns = [r["col_name"] for r in lake.rows(f"describe {{schema}}.{mart}")]
        kept = [c for c in columns[: columns.index("")] if c not in LANDING_TIME_COLUMNS] if "" in columns else [
            c for c in columns if c not in LANDING_TIME_COLUMNS and not c.startswith("#")
        ]
        select = ", ".join(f"`{c}`" for c in kept)
        state[mart] = [
            r["j"] for r in lake.rows(f"select to_json(struct({select})) as j from {{schema}}.{mart} order by {order}")
        ]
    return state


def build(*, fail_at: tuple[str, ...] = ()) -> None:
    """Build; with `fail_at` (`<model>:<point>` each), the build must fail there and only there."""
    if not fail_at:
        run_dbt(["build", *BUILD_ARGS], reuse_manifest=True)
        return
    os.environ["CDC_LAKE_TEST_FAIL_AT"] = ",".join(fail_at)
    try:
        with pytest.raises(DbtError) as failed:
            run_dbt(["build", *BUILD_ARGS], reuse_manifest=True)
    finally:
        del os.environ["CDC_LAKE_TEST_FAIL_AT"]
    failures = str(failed.value).split(" failed: ", 1)[1].split("; ")
    assert sorted(f.split(": ", 1)[0] for f in failures) == sorted(point.split(":")[0] for point in fail_at), failures
    for point in fail_at:
        assert any(f"CDC_LAKE_TEST_FAIL_AT: {point}: failure injected" in f for f in failures), (point, failures)


def run(lake, name: str, data: list[Path], failures: tuple[tuple[str, ...], ...]) -> dict[str, list[str]]:
    """Land and build landing 1; land landings 2 and 3 and build them failing at each set of
    `failures` in turn, then without a failure. The marts at the end."""
    lake.scenario(name)
    lake.land(data[:1], "canal_json")
    build()
    for landing in data[1:]:
        lake.land([landing], "canal_json")
    for fail_at in failures:
        build(fail_at=fail_at)
    build()
    return marts(lake)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> list[Path]:
    return batches(tmp_path_factory.mktemp("failure_data"))


@pytest.fixture(scope="module")
def reference(lake, data) -> dict[str, list[str]]:
    """The uninterrupted run, once per module."""
    return run(lake, "failure_reference", data, ())


def test_reference_is_whole(reference):
    """The scenario holds what the failures must not lose: landing 1's keyless row is keyed by row
    image, landing 2's row of that table by the DDL, the late event has its version."""
    quarantined = [json.loads(r) for r in reference["cdc_quarantine"]]
    assert [r["reason"] for r in quarantined if '"nokey"' in r["raw_message"]] == []
    history = [json.loads(r) for r in reference["cdc_history"]]
    nokey_keys = sorted(r["primary_key"] for r in history if r["source_table"] == "nokey")
    assert len(nokey_keys) == 2 and nokey_keys[0] == '{"id":"2"}'
    assert nokey_keys[1].startswith('{"row_image_chain":"')
    assert [r["row"]["v"] for r in history if r["primary_key"] == '{"id":"1"}'] == ["a", "b", "c"]


def test_failed_builds_then_a_build_end_like_an_uninterrupted_run(lake, data, reference):
    assert run(lake, "failure_ci", data, CI_FAILURES) == reference


def models_of_the_build() -> list[str]:
    """The models a build runs (an ephemeral one is part of the models that read it: nothing to fail)."""
    listed = run_dbt(
        ["ls", "--resource-type", "model", "--output", "name", *BUILD_ARGS, "--exclude", "config.materialized:ephemeral"],
        reuse_manifest=True,
    )
    return sorted(str(name) for name in listed)


@pytest.mark.skipif(not LONG_MODELS, reason="long run only (CDC_LAKE_LONG_TESTS=1 or CDC_LAKE_FAILURE_MODELS=N)")
def test_every_model_failed_in_turn(lake, data, reference):
    """Every model (the first CDC_LAKE_FAILURE_MODELS in name order) fails before its write, then
    after it, each in a build of its own, one after the other; a model that failed is built again
    by the builds after it (as are the models skipped with it). Then a build without a failure."""
    failures = tuple((f"{model}:{point}",) for model in models_of_the_build()[:LONG_MODELS] for point in POINTS)
    assert run(lake, "failure_every_model", data, failures) == reference


@pytest.fixture(autouse=True)
def no_injection_left() -> Iterator[None]:
    yield
    assert "CDC_LAKE_TEST_FAIL_AT" not in os.environ
