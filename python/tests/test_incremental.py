"""Incremental builds equal a full rebuild (issue 6).

Five landings, each followed by an incremental `dbt build`: inserts, updates, a late-arriving
older event (it orders before the key's current version, so that key is re-chained into a new
partition and its earlier versions are superseded), duplicates (the same message body again, a
Canal batch with a repeated change, A->B, B->A, A->B, delivered again, and the same Kafka offsets
re-delivered), a key change and deletes. Then `dbt build --full-refresh`
must give the same cdc_history and cdc_current, row for row.

After the third build, a build killed while insert_overwrite replaced partitions is simulated:
three models are marked as being built and have a partition folder deleted
(int_cdc__history_versions loses every current version). The fourth build must notice: the two
landing-ordered models drop and build again the partitions above the watermark the interrupted build
started from, int_cdc__history_versions is rebuilt whole.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from urllib.parse import urlparse

import jinja2
import pytest

from conftest import UNREAD, write_jsonl, write_kafka_parquet

PARSE_MACROS = Path(__file__).resolve().parents[2] / "macros" / "staging" / "cdc_parse_messages.sql"
HISTORY_COLUMNS = (
    "source_database, source_table, primary_key, version_number, row, op, valid_from, valid_to, "
    "is_current, is_deleted, change_id, closed_in_landing"
)


def canal(type_, rows, es, old=None, msg_id=0, table="t", mysql_type=None):
    message = {"data": rows, "old": old, "database": "inc", "table": table, "type": type_, "isDdl": False,
               "pkNames": ["id"], "es": es, "ts": es + 1, "id": msg_id}
    if mysql_type:
        message["mysqlType"] = mysql_type
    return json.dumps(message)


def dbz(op, before, after, pos, ts):
    return json.dumps(
        {"op": op, "before": before, "after": after, "ts_ms": ts,
         "source": {"db": "inc", "table": "d", "file": "bin.000001", "pos": pos, "row": 0, "ts_ms": ts}}
    )


def snapshot(lake):
    history = lake.rows(f"select {HISTORY_COLUMNS} from {{schema}}.cdc_history order by 1, 2, 3, 4")
    current = lake.rows("select * from {schema}.cdc_current order by 1, 2, 3")
    return history, current


def derived(lake):
    """The other models built from landing-ordered increments: columns, the reconciliation, DDL and
    the conversion checks (with the hash of the column types each landing was checked against)."""
    return {
        "cdc_columns": lake.rows("select * from {schema}.cdc_columns order by 1, 2, 3"),
        "cdc_landing_audit": lake.rows("select * from {schema}.cdc_landing_audit order by 1"),
        "cdc_changes": lake.rows("select change_id, landing_seq from {schema}.cdc_changes order by 1"),
        "cdc_ddl": lake.rows("select * from {schema}.cdc_ddl order by message_id, element_index"),
        "int_cdc__conversion_checks": lake.rows(
            "select * from {schema}.int_cdc__conversion_checks "
            "order by landing_seq, record_kind, source_database, source_table, change_id, column_name"
        ),
        "cdc_conversion_failures": lake.rows(
            "select * from {schema}.cdc_conversion_failures order by change_id, column_name"
        ),
    }


def superseded_versions(lake):
    """Stored versions that cdc_history leaves out (superseded by a re-chaining)."""
    stored = lake.rows("select count(*) as n from {schema}.int_cdc__history_versions")[0]["n"]
    shown = lake.rows("select count(*) as n from {schema}.cdc_history")[0]["n"]
    return stored - shown


def interrupt(lake, model, partition):
    """Leave `model` as a build killed during insert_overwrite's commit would: the table property
    still says 'running' and the folder of `partition` is gone (deleted, the new one not moved in)."""
    lake.rows(f"alter table {{schema}}.{model} set tblproperties ('cdc_lake.build' = 'running')")
    location = next(r["data_type"] for r in lake.rows(f"describe table extended {{schema}}.{model}")
                    if r["col_name"] == "Location")
    shutil.rmtree(Path(urlparse(location).path) / partition)
    lake.rows(f"refresh table {{schema}}.{model}")


@pytest.fixture(scope="module")
def runs(lake, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("incremental")
    lake.scenario("incremental")
    # one Canal batch (same id, es, ts) in which key f/1 goes A->B, B->A, A->B: four changes
    flips = [canal("INSERT", [{"id": "1", "v": "A"}], 2_500, msg_id=10, table="f")] + [
        canal("UPDATE", [{"id": "1", "v": new}], 2_500, old=[{"v": old}], msg_id=10, table="f")
        for old, new in (("A", "B"), ("B", "A"), ("A", "B"))
    ]
    landings = [
        # v is declared int: its letters do not convert (cdc_conversion_failures) until landing 5
        [canal("INSERT", [{"id": str(i), "v": "a"} for i in range(1, 6)], 1_000, msg_id=1,
               mysql_type={"id": "int", "v": "int"}),
         canal("UPDATE", [{"id": "3", "v": "c"}], 3_000, old=[{"v": "a"}], msg_id=2),
         *flips],
        # the batch of landing 1 that flips key f/1 is delivered again: it adds nothing
        [canal("UPDATE", [{"id": "1", "v": "b"}, {"id": "2", "v": "b"}], 4_000, old=[{"v": "a"}, {"v": "a"}], msg_id=3),
         *flips],
        # late: key 3 changed at 2_000, between its insert (1_000) and its update (3_000)
        [canal("UPDATE", [{"id": "3", "v": "b"}], 2_000, old=[{"v": "a"}], msg_id=4),
         canal("UPDATE", [{"id": "1", "v": "b"}, {"id": "2", "v": "b"}], 4_000, old=[{"v": "a"}, {"v": "a"}], msg_id=3)],
        [canal("UPDATE", [{"id": "40", "v": "a"}], 5_000, old=[{"id": "4"}], msg_id=5),
         canal("DELETE", [{"id": "5", "v": "a"}], 5_500, msg_id=6)],
        # v declared varchar(8): the column widens to string, so landings 1-4 are checked again
        [canal("INSERT", [{"id": "6", "v": "new"}], 6_000, msg_id=7, mysql_type={"id": "int", "v": "varchar(8)"}),
         # late again for the re-keyed 40, and one before every version of key 2
         canal("UPDATE", [{"id": "40", "v": "z"}], 5_200, old=[{"v": "a"}], msg_id=8),
         canal("UPDATE", [{"id": "2", "v": "early"}], 500, old=[{"v": "?"}], msg_id=9)],
    ]
    debezium = [
        dbz("c", None, {"id": 1, "w": "0.10"}, 10, 1_000),
        dbz("u", {"id": 1, "w": "0.10"}, {"id": 1, "w": "0.20"}, 20, 2_000),
        dbz("c", None, {"id": 2, "w": "x"}, 30, 3_000),
        dbz("d", {"id": 2, "w": "x"}, None, 40, 4_000),
    ]
    keys = [json.dumps({"id": k}) for k in (1, 1, 2, 2)]
    for n, messages in enumerate(landings, start=1):
        lake.land([write_jsonl(tmp / f"canal_{n}.jsonl", messages)], "canal_json")
        if n in (2, 4):
            # Kafka dumps that overlap: offsets 0-1 then 0-3 (0-1 again are re-deliveries)
            upto = 2 if n == 2 else 4
            lake.land([write_kafka_parquet(tmp / f"dbz_{n}.parquet", debezium[:upto], keys=keys[:upto], topic="inc")], "debezium_json")
        result = lake.build(*UNREAD)
        if n == 3:
            # the newest landing's partition (landing 4: Debezium took landing 3)
            interrupt(lake, "int_cdc__events", "landing_seq=4")
            interrupt(lake, "int_cdc__changes", "landing_seq=4")
            interrupt(lake, "int_cdc__history_versions", "stored_in_landing=0")
            current_after_interruption = lake.rows(
                "select count(*) as n from {schema}.cdc_history where closed_in_landing = 0"
            )[0]["n"]
        if n == 4:
            # v is still int: the letters of landings 1-4 are listed as conversion failures
            failures_before_widening = lake.rows(
                "select count(*) as n from {schema}.cdc_conversion_failures where column_name = 'v'"
            )[0]["n"]
    incremental, incremental_derived = snapshot(lake), derived(lake)
    superseded = {"incremental": superseded_versions(lake)}
    tested = {"incremental": _test_sql(result)}
    compiled = {r.node.name: r.node.compiled_code for r in result.results if r.node.resource_type == "model"}
    messages = {r.node.name: r.message for r in result.results if r.node.resource_type == "model"}
    formats = lake.rows("select landing_seq, formats from {schema}_raw.landings order by 1")
    # the incremental builds broadcast their change ids to join them to their rows (a small
    # build); the full rebuild leaves the join to Spark, as a build over both limits does
    no_join_hint = "{cdc_broadcast_max_new_rows: 0, cdc_hash_join_max_rows: 0}"
    tested["full"] = _test_sql(lake.build("--full-refresh", *UNREAD, "--vars", no_join_hint))
    full, full_derived = snapshot(lake), derived(lake)
    superseded["full"] = superseded_versions(lake)
    return (incremental, full, incremental_derived, full_derived, failures_before_widening,
            current_after_interruption, superseded, tested, formats, compiled, messages)


def _test_sql(result):
    """The SQL each data test of a build ran, by test name."""
    return {r.node.name: r.node.compiled_code for r in result.results if r.node.resource_type == "test"}


def test_incremental_equals_full_refresh(runs):
    """Also after the simulated interrupted build (its damage is checked first)."""
    incremental, full, incremental_derived, full_derived, _, current_after_interruption, *_ = runs
    assert current_after_interruption == 0
    assert incremental[0] == full[0]
    assert incremental[1] == full[1]
    for model, rows in incremental_derived.items():
        assert rows == full_derived[model], model
    assert sum(r["landed_messages"] for r in full_derived["cdc_landing_audit"]) > 0


def test_widened_column_is_checked_again(runs):
    """Landing 5 widens v from int to string: the old landings' failures are gone, as in a full
    rebuild, and every landing's checks carry the table's new type hash."""
    _, _, incremental_derived, full_derived, failures_before_widening, *_ = runs
    assert failures_before_widening > 0
    assert [r for r in incremental_derived["cdc_conversion_failures"] if r["column_name"] == "v"] == []
    hashes = {
        r["types_fingerprint"]
        for r in incremental_derived["int_cdc__conversion_checks"]
        if r["record_kind"] == "checked_table" and r["source_table"] == "t"
    }
    assert len(hashes) == 1


def test_late_events_leave_old_partitions_alone(runs):
    """Re-chained keys' earlier versions stay in their partitions, hidden by cdc_history; a full
    refresh stores none."""
    superseded = runs[6]
    assert superseded["incremental"] > 0
    assert superseded["full"] == 0


def test_late_events_are_chained_in_order(runs):
    history, _ = runs[1]
    key3 = [(r["version_number"], r["row"]["v"], r["is_current"]) for r in history if r["primary_key"] == '{"id":"3"}']
    assert key3 == [(1, "a", False), (2, "b", False), (3, "c", True)]
    key2 = [(r["version_number"], r["row"]["v"], r["op"]) for r in history
            if r["primary_key"] == '{"id":"2"}' and r["source_table"] == "t"]
    assert key2 == [(1, "early", "update"), (2, "a", "insert"), (3, "b", "update")]
    key40 = [(r["version_number"], r["row"]["v"]) for r in history if r["primary_key"] == '{"id":"40"}']
    assert key40 == [(1, "a"), (2, "z")]


def test_duplicates_do_not_create_versions(runs):
    history, current = runs[1]
    key1 = [(r["version_number"], r["row"]["v"]) for r in history
            if r["primary_key"] == '{"id":"1"}' and r["source_table"] == "t"]
    assert key1 == [(1, "a"), (2, "b")]
    debezium = [(r["primary_key"], r["version_number"], r["op"]) for r in history if r["source_table"] == "d"]
    assert debezium == [('{"id":"1"}', 1, "insert"), ('{"id":"1"}', 2, "update"),
                        ('{"id":"2"}', 1, "insert"), ('{"id":"2"}', 2, "delete")]
    flips = [(r["version_number"], r["row"]["v"], r["is_current"]) for r in history if r["source_table"] == "f"]
    assert flips == [(1, "A", False), (2, "B", False), (3, "A", False), (4, "B", True)]
    assert sorted((r["source_table"], r["primary_key"]) for r in current) == [
        ("d", '{"id":"1"}'), ("f", '{"id":"1"}'), ("t", '{"id":"1"}'), ("t", '{"id":"2"}'), ("t", '{"id":"3"}'),
        ("t", '{"id":"40"}'), ("t", '{"id":"6"}'),
    ]


def test_scheduled_build_tests_the_landings_it_added(runs):
    """The fifth build started from landing 6 (cdc_lake.built_above): its data tests on the big
    incremental models read landing 7 (the chains of the keys it changed, for cdc_history), while
    the --full-refresh build tests every row."""
    tested = runs[7]
    incremental, full = tested["incremental"], tested["full"]
    scoped = {
        "cdc_not_null_columns_cdc_changes_change_id__primary_key": 6,
        "cdc_unique_new_values_cdc_changes_change_id__int_cdc__changes": 6,
        "not_null_int_cdc__message_outcomes_message_id": 6,
        "cdc_event_kind_is_known_int_cdc__events_": 6,
        "not_null_cdc_history_primary_key": 6,
    }
    for name, watermark in scoped.items():
        assert re.search(rf"landing_seq > {watermark}\b", incremental[name]), name
        assert "landing_seq >" not in full[name], name
    scd2 = next(name for name in incremental if name.startswith("cdc_scd2_versions_cdc_history"))
    assert "changed_keys" in incremental[scd2] and "landing_seq > 6" in incremental[scd2]
    assert "changed_keys" not in full[scd2]


def test_landings_record_their_formats(runs):
    """Each landing records the formats it holds; a staging model reads only those landings."""
    assert [(r["landing_seq"], r["formats"]) for r in runs[8]] == [
        (1, ["canal_json"]), (2, ["canal_json"]), (3, ["debezium_json"]), (4, ["canal_json"]),
        (5, ["canal_json"]), (6, ["debezium_json"]), (7, ["canal_json"]),
    ]


def test_events_read_only_the_formats_of_new_landings(runs):
    """The fifth build's landing holds Canal messages only: int_cdc__events's query holds the Canal
    staging model (ephemeral), not the Debezium model or those of formats never landed, and reads no
    unclaimed messages (no landing holds a format without a staging model); the Canal model reads
    the Canal landings, named as literals (no subquery of the landings to run); the models after
    it read the stored events, no staging model."""
    compiled = runs[9]
    events = compiled["int_cdc__events"]
    assert "stg_canal_json__changes" in events
    assert "stg_debezium_json__changes" not in events and "stg_oms_default__changes" not in events
    assert re.search(r"landing_seq > 6\b", events)
    assert re.search(r"stg_cdc_landing__unclaimed\s+where false", events)
    assert re.search(r"message_format = 'canal_json'\s+and \(landing_seq in \(1, 2, 4, 5, 7\)\)", events)
    assert "array_contains(formats" not in events
    parsing_again = [name for name, code in compiled.items()
                     if name != "int_cdc__events" and re.search(r"\.stg_\w+__changes\b", code)]
    assert parsing_again == []


def test_landing_condition_names_exactly_the_landings():
    """cdc_landing_seq_in: runs of three or more landings as `between`, the others in a list, and
    `false` for none; whatever the landings, the condition holds for them and no others."""
    macros = jinja2.Environment(extensions=["jinja2.ext.do"]).from_string(PARSE_MACROS.read_text()).module
    assert str(macros.cdc_landing_seq_in([])).strip() == "false"
    assert str(macros.cdc_landing_seq_in([7, 2, 3, 4, 9, 10, 3])).strip() == (
        "(landing_seq between 2 and 4 or landing_seq in (7, 9, 10))"
    )
    rng = random.Random(20261129)
    for _ in range(300):
        landings = rng.sample(range(1, 60), rng.randint(0, 40))
        condition = str(macros.cdc_landing_seq_in(landings)).strip()
        named = {n for low, high in re.findall(r"landing_seq between (\d+) and (\d+)", condition)
                 for n in range(int(low), int(high) + 1)}
        listed = re.search(r"landing_seq in \(([\d, ]+)\)", condition)
        named |= {int(n) for n in listed.group(1).split(", ")} if listed else set()
        assert sorted(named) == sorted(landings) and (condition == "false") == (not landings), condition


def test_unchanged_views_are_left_as_they_are(runs):
    """A view whose SQL is what it was (every landing-log staging view in the fifth build) is not
    altered again (cdc_view: no statement); the format staging models are ephemeral, never created."""
    messages = runs[10]
    staging = {name: message for name, message in messages.items() if name.startswith("stg_")}
    assert sorted(staging) == [
        "stg_cdc_landing__kafka_lost_offsets", "stg_cdc_landing__landings", "stg_cdc_landing__messages",
        "stg_cdc_landing__requeued", "stg_cdc_landing__unclaimed",
    ]
    assert set(staging.values()) == {"OK: view unchanged"}
    assert messages["int_cdc__events"] != "OK: view unchanged"


def test_history_partitions_follow_the_closing_landing(runs):
    history, _ = runs[1]
    for row in history:
        assert (row["closed_in_landing"] == 0) == row["is_current"]


def partition_files(lake, model, partition):
    """The data files of one partition of `model`'s table, with their modification times."""
    location = next(r["data_type"] for r in lake.rows(f"describe table extended {{schema}}.{model}")
                    if r["col_name"] == "Location")
    folder = Path(urlparse(location).path) / partition
    return sorted((path.name, path.stat().st_mtime_ns) for path in folder.iterdir() if not path.name.startswith("."))


def test_a_build_without_new_changes_writes_no_history(runs, lake, tmp_path):
    """Last in the module (it lands once more, after the full refresh): a landing of a re-delivered
    change only gives no new change, so int_cdc__history_versions writes nothing, not even its
    current versions (partition 0) again, and the history is what it was."""
    before = snapshot(lake)
    current_versions = partition_files(lake, "int_cdc__history_versions", "stored_in_landing=0")
    again = canal("DELETE", [{"id": "5", "v": "a"}], 5_500, msg_id=6)  # landing 4's delete of key 5
    lake.land([write_jsonl(tmp_path / "redelivered.jsonl", [again])], "canal_json")
    lake.build(*UNREAD)
    assert partition_files(lake, "int_cdc__history_versions", "stored_in_landing=0") == current_versions
    assert snapshot(lake) == before
    audit = lake.rows("select * from {schema}.cdc_landing_audit where landed_input like '%/redelivered.jsonl'")
    assert [(r["landed_messages"], r["duplicate_messages"], r["unaccounted_messages"]) for r in audit] == [(1, 1, 0)]


LANDING_MODELS = (
    "int_cdc__changes", "int_cdc__ddl", "int_cdc__ddl_keys", "int_cdc__table_changes",
    "int_cdc__column_observations", "int_cdc__message_outcomes", "int_cdc__landing_input_counts",
)
"""The incremental models partitioned by landing_seq that read only other models' new landings."""


def test_a_build_with_nothing_new_leaves_the_landing_models_alone(runs, lake):
    """Last in the module (after the landing above): a build with nothing landed since the last
    one runs no statement for LANDING_MODELS (their tables, files and build marks stay as they
    are) and their data tests check no landing; int_cdc__conversion_checks, which may check old
    landings again, still runs. Every table is as it was."""
    newest = lake.rows("select max(landing_seq) as n from {schema}_raw.landings")[0]["n"]
    before = snapshot(lake), derived(lake)
    marks = {model: lake.rows(f"show tblproperties {{schema}}.{model}") for model in LANDING_MODELS}
    outcome_files = partition_files(lake, "int_cdc__message_outcomes", f"landing_seq={newest}")
    result = lake.build(*UNREAD)
    messages = {r.node.name: r.message for r in result.results if r.node.resource_type == "model"}
    for model in LANDING_MODELS:
        assert messages[model] == f"OK: nothing new above landing {newest}", model
        assert lake.rows(f"show tblproperties {{schema}}.{model}") == marks[model], model
    assert messages["int_cdc__conversion_checks"] != f"OK: nothing new above landing {newest}"
    assert partition_files(lake, "int_cdc__message_outcomes", f"landing_seq={newest}") == outcome_files
    assert (snapshot(lake), derived(lake)) == before
    tested = _test_sql(result)
    assert re.search(rf"landing_seq > {newest}\b", tested["not_null_int_cdc__message_outcomes_message_id"])
