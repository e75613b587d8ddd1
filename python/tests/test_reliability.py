"""Nothing lost, nothing duplicated: specific quarantine reasons, reconciliation, idempotency, requeue.

One scenario, two builds: everything is landed and built once; then the messages landed with the
wrong format id are requeued as the right one and the lake is built again. A second scenario, two
builds: a key declared after a change was quarantined for its key leaves that change quarantined.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from conftest import UNREAD_AND_TYPING, write_jsonl, write_kafka_parquet

DB = "rel"


def canal(type_: str, table: str | None, data=None, *, old=None, es=0, pk=("id",), msg_id=1) -> dict:
    message = {
        "data": data,
        "database": DB,
        "es": es,
        "id": msg_id,
        "isDdl": False,
        "old": old,
        "pkNames": list(pk) if pk else None,
        "sql": "",
        "ts": es + 1,
        "type": type_,
    }
    if table is not None:
        message["table"] = table
    return message


def dbz(op: str, before, after, pos: int, ts: int, table: str = "moved") -> dict:
    return {
        "before": before,
        "after": after,
        "source": {"connector": "mysql", "db": DB, "table": table, "file": "mysql-bin.000001", "pos": pos, "ts_ms": ts},
        "op": op,
        "ts_ms": ts + 1,
    }


TRUNCATED = '{"data":[{"id":"1"}],"database":"rel","table":"t","type":"INSERT"'
MISSING_COMMA = '{"data":[{"id":"1"}] "database":"rel","table":"t","type":"INSERT","pkNames":["id"]}'
NOT_UTF8 = b'{"data":[{"id":"7","name":"\xff\xfe"}],"database":"rel","table":"t","type":"INSERT","pkNames":["id"],"es":1}'


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    tmp: Path = tmp_path_factory.mktemp("reliability")
    lake.scenario("reliability")

    good = [
        canal("INSERT", "t", [{"id": "1", "v": "0.10"}], es=1_000, msg_id=1),
        canal("UPDATE", "t", [{"id": "1", "v": "2"}], old=[{"v": "0.10"}], es=2_000, msg_id=2),
        canal("INSERT", "t", [{"id": "2", "v": "x"}], es=3_000, msg_id=3),
        canal("DELETE", "t", [{"id": "2", "v": "x"}], es=4_000, msg_id=4),
        # one row keyed, one row without its key column: partly quarantined
        canal("INSERT", "t", [{"id": "3", "v": "y"}, {"v": "no id"}], es=5_000, msg_id=5),
    ]
    write_jsonl(tmp / "good.jsonl", good)
    # the same message bodies in another file (a re-delivery): no new versions
    write_jsonl(tmp / "good_again.jsonl", good[:2])
    bad = [
        TRUNCATED,
        MISSING_COMMA,
        json.dumps(canal("INSERT", None, [{"id": "1"}], es=6_000)),  # missing table name
        json.dumps(canal("INSERT", "nokey", [{"a": "1"}], es=6_000)),  # its key column id is missing
        '["x", "y"]',  # JSON, but not objects
        json.dumps(canal("UPSERT", "t", [{"id": "9"}], es=6_000)),  # unknown type
    ]
    write_jsonl(tmp / "bad.jsonl", bad)
    # a line of a text file that is not UTF-8: quarantined with its bytes, as the Kafka value below
    with open(tmp / "bad.jsonl", "ab") as file:
        file.write(NOT_UTF8 + b"\r\n")
    # Debezium messages landed with the wrong format id: quarantined, then requeued
    wrong = [
        dbz("c", None, {"id": "1", "n": "a"}, 10, 10_000),
        dbz("u", {"id": "1", "n": "a"}, {"id": "1", "n": "b"}, 20, 11_000),
    ]
    write_kafka_parquet(
        tmp / "wrong.parquet", [json.dumps(m) for m in wrong], topic="wrong", keys=['{"id":1}'] * 2
    )
    # Kafka: bytes that are not UTF-8, and the same offsets dumped twice (one more record the 2nd time)
    kafka = [json.dumps(canal("INSERT", "k", [{"id": str(i)}], es=20_000 + i, msg_id=i)) for i in range(3)]
    write_kafka_parquet(tmp / "k1.parquet", [*kafka[:2], NOT_UTF8], topic="k")
    write_kafka_parquet(tmp / "k2.parquet", [*kafka[:2], NOT_UTF8, kafka[2]], topic="k")
    # the topic deleted and re-created: offsets 0 and 1 again, with other records (landed, flagged);
    # offset 2 with the same bytes as before (a re-delivery: landed once)
    recreated = [json.dumps(canal("INSERT", "k", [{"id": str(i)}], es=30_000 + i, msg_id=i)) for i in (10, 11)]
    write_kafka_parquet(tmp / "k3.parquet", [*recreated, NOT_UTF8], topic="k")
    # --format auto: a message no detector claims
    write_jsonl(tmp / "unknown.jsonl", ['{"hello": "world"}'])

    reports = [
        lake.land([tmp / "good.jsonl", tmp / "bad.jsonl"], "canal_json"),
        lake.land([tmp / "good.jsonl"], "canal_json"),  # re-landing a file adds nothing
        lake.land([tmp / "good_again.jsonl"], "canal_json"),
        lake.land([tmp / "wrong.parquet"], "canal_json"),
        lake.land([tmp / "k1.parquet"], "canal_json"),
        lake.land([tmp / "k2.parquet", tmp / "k3.parquet"], "canal_json"),
        lake.land([tmp / "unknown.jsonl"], "auto"),
    ]
    # what a first build killed while it created the events table leaves: files at the table's location
    orphan = lake.root / "warehouse" / "reliability.db" / "int_cdc__events" / "landing_seq=1" / "part-0.parquet"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"a partial file of a killed build")
    lake.build(*UNREAD_AND_TYPING)
    first = {
        "reports": reports,
        "quarantine": lake.rows(
            "select source_format, reason, raw_message, message_id, row_index from {schema}.cdc_quarantine"
        ),
        "history": lake.table("cdc_history", order_by="source_table, primary_key, version_number"),
        "orphan": orphan,
        "audit": audit(lake),
        "kafka_ids": lake.rows(
            "select message_id, kafka_offset, is_kafka_offset_reused from {schema}_raw.raw_messages "
            "where kafka_topic = 'k' order by kafka_offset, is_kafka_offset_reused"
        ),
    }
    return lake, tmp, first


def audit(lake) -> dict[str, dict]:
    def name(landed_input: str) -> str:  # a file's name, or a Kafka topic/partition
        return Path(landed_input).name if landed_input.startswith("/") else landed_input

    return {
        name(r.pop("landed_input")): r
        for r in lake.rows(
            "select landed_input, landed_messages, messages_with_changes, messages_with_ddl, control_messages, "
            "quarantined_messages, unaccounted_messages, outcome_change_messages, outcome_ddl_messages, "
            "outcome_control_messages, requeued_messages, partly_quarantined_messages, duplicate_messages, "
            "reused_offset_messages "
            "from {schema}.cdc_landing_audit"
        )
    }


def counts(landed, with_changes, quarantined, outcome_change, *, partly=0, duplicates=0, requeued=0, reused=0) -> dict:
    return {
        "landed_messages": landed,
        "messages_with_changes": with_changes,
        "messages_with_ddl": 0,
        "control_messages": 0,
        "quarantined_messages": quarantined,
        "unaccounted_messages": 0,
        "outcome_change_messages": outcome_change,
        "outcome_ddl_messages": 0,
        "outcome_control_messages": 0,
        "requeued_messages": requeued,
        "partly_quarantined_messages": partly,
        "duplicate_messages": duplicates,
        "reused_offset_messages": reused,
    }


def test_a_first_build_clears_what_a_killed_one_left(built):
    """Files at an incremental model's location with no table there (a first build killed during
    its CREATE TABLE AS SELECT) are removed, and the model is built there: cdc_clear_orphan_location
    asks the JVM function cdc_path_exists whether anything is at the location."""
    lake, _, first = built
    assert not first["orphan"].exists()
    location = first["orphan"].parent.parent
    assert lake.rows(f"select count(*) as n from {{schema}}.int_cdc__events")[0]["n"] > 0
    exists = lake.rows(
        f"select {{schema}}.cdc_path_exists('{location.as_uri()}') as table_folder, "
        f"{{schema}}.cdc_path_exists('{location}_never') as missing, "
        "{schema}.cdc_path_exists('nosuchscheme://h/t') as unknown"
    )[0]
    assert (exists["table_folder"], exists["missing"], exists["unknown"]) == (True, False, None)


def test_landing_reports(built):
    _, tmp, first = built
    landed = [r.total for r in first["reports"]]
    # good 5 + bad 7; re-landing: 0; good_again 2; wrong 2; k1 3; k2 only the new offset, k3 the two
    # records at reused offsets; unknown 1
    assert landed == [12, 0, 2, 2, 3, 3, 1]
    assert first["reports"][5].reused_offsets == 2
    assert first["reports"][1].skipped == [str(tmp / "good.jsonl")]


def test_quarantine_reasons_are_specific(built):
    _, _, first = built
    by_source = sorted(
        (
            (r["source_format"], r["row_index"], r["reason"], r["raw_message"])
            for r in first["quarantine"]
            if not r["message_id"].startswith("wrong/")
        ),
        key=repr,
    )
    assert by_source == sorted(
        [
            ("canal_json", None, "invalid JSON at offset 65: the message ends early (Expecting ',' delimiter)", TRUNCATED),
            ("canal_json", None, "invalid JSON at offset 21: Expecting ',' delimiter", MISSING_COMMA),
            ("canal_json", 0, "missing table name", json.dumps(canal("INSERT", None, [{"id": "1"}], es=6_000))),
            (
                "canal_json",
                0,
                "key column(s) id missing from the row image",
                json.dumps(canal("INSERT", "nokey", [{"a": "1"}], es=6_000)),
            ),
            (
                "canal_json",
                None,
                "type mismatch: the message is JSON but not an object or a list of objects of canal_json",
                '["x", "y"]',
            ),
            ("canal_json", None, "unknown Canal type: UPSERT", json.dumps(canal("UPSERT", "t", [{"id": "9"}], es=6_000))),
            (
                "canal_json",
                1,
                "key column(s) id missing from the row image",
                json.dumps(canal("INSERT", "t", [{"id": "3", "v": "y"}, {"v": "no id"}], es=5_000, msg_id=5)),
            ),
            # the line of bad.jsonl and the Kafka value: the same bytes, the same reason
            *[
                (
                    "canal_json",
                    None,
                    "undecodable bytes: not valid UTF-8 text at byte offset 27 (bytes ff fe 22 7d): invalid start byte",
                    base64.b64encode(NOT_UTF8).decode(),
                )
            ]
            * 2,
            (
                "unknown",
                None,
                "unknown format: no detector claims this message (declared format: auto)",
                '{"hello": "world"}',
            ),
        ],
        key=repr,
    )
    wrong = sorted(r["reason"] for r in first["quarantine"] if r["message_id"].startswith("wrong/"))
    assert wrong == ["unknown Canal type: (missing)"] * 2


def test_every_message_is_accounted_for(built):
    _, _, first = built
    assert first["audit"] == {
        "good.jsonl": counts(5, 5, 1, 4, partly=1),
        "bad.jsonl": counts(7, 1, 7, 0),
        "good_again.jsonl": counts(2, 2, 0, 2, duplicates=2),
        "wrong/0": counts(2, 0, 2, 0),
        "k/0": counts(6, 5, 1, 5, reused=2),
        "unknown.jsonl": counts(1, 0, 1, 0),
    }


def test_no_duplicate_versions(built):
    _, _, first = built
    history = [
        (r["source_table"], r["primary_key"], r["version_number"], r["op"], r["row"], r["is_current"], r["is_deleted"])
        for r in first["history"]
    ]
    assert history == [
        ("k", '{"id":"0"}', 1, "insert", {"id": "0"}, True, False),
        ("k", '{"id":"1"}', 1, "insert", {"id": "1"}, True, False),
        ("k", '{"id":"10"}', 1, "insert", {"id": "10"}, True, False),
        ("k", '{"id":"11"}', 1, "insert", {"id": "11"}, True, False),
        ("k", '{"id":"2"}', 1, "insert", {"id": "2"}, True, False),
        ("t", '{"id":"1"}', 1, "insert", {"id": "1", "v": "0.10"}, False, False),
        ("t", '{"id":"1"}', 2, "update", {"id": "1", "v": "2"}, True, False),
        ("t", '{"id":"2"}', 1, "insert", {"id": "2", "v": "x"}, False, False),
        ("t", '{"id":"2"}', 2, "delete", {"id": "2", "v": "x"}, True, True),
        ("t", '{"id":"3"}', 1, "insert", {"id": "3", "v": "y"}, True, False),
    ]



def test_a_record_at_a_reused_offset_lands_with_an_id_of_its_own(built):
    """A re-created topic numbers its records from 0 again: a record at a landed offset with other
    bytes is landed (not dropped as a re-delivery), flagged, with its content hash in its id."""
    _, _, first = built
    values = {
        i: hashlib.sha256(json.dumps(canal("INSERT", "k", [{"id": str(i)}], es=30_000 + i, msg_id=i)).encode())
        for i in (10, 11)
    }
    assert first["kafka_ids"] == [
        {"message_id": "k/0/0", "kafka_offset": 0, "is_kafka_offset_reused": False},
        {"message_id": f"k/0/0#{values[10].hexdigest()[:16]}", "kafka_offset": 0, "is_kafka_offset_reused": True},
        {"message_id": "k/0/1", "kafka_offset": 1, "is_kafka_offset_reused": False},
        {"message_id": f"k/0/1#{values[11].hexdigest()[:16]}", "kafka_offset": 1, "is_kafka_offset_reused": True},
        {"message_id": "k/0/2", "kafka_offset": 2, "is_kafka_offset_reused": False},
        {"message_id": "k/0/3", "kafka_offset": 3, "is_kafka_offset_reused": False},
    ]

@pytest.fixture(scope="module")
def requeued(built):
    lake, _, first = built
    from cdc_lake.requeue import requeue

    say = []
    reports = requeue(reason_like="unknown Canal type: (missing)", as_format="debezium_json", spark=lake.spark, say=say.append)
    again = requeue(reason_like="unknown Canal type: (missing)", as_format="debezium_json", spark=lake.spark, say=say.append)
    lake.build(*UNREAD_AND_TYPING)
    return lake, first, reports, again, say


def test_requeue_lands_quarantined_messages_again(requeued):
    lake, _, reports, again, say = requeued
    assert [(r.total, r.by_format) for r in reports] == [(2, {"debezium_json": 2})]
    # the originals are marked requeued at once: a second requeue finds nothing
    assert again == []
    assert say[-1] == "no quarantined message matches: nothing requeued"
    assert lake.rows(
        "select message_id, requeued_as, reason from {schema}_raw.requeued order by message_id"
    ) == [
        {"message_id": f"wrong/0/{i}", "requeued_as": f"wrong/0/{i}#requeue7", "reason": "unknown Canal type: (missing)"}
        for i in range(2)
    ]


def test_requeued_messages_become_history_and_leave_quarantine(requeued):
    lake, first, _, _, _ = requeued
    assert [
        (r["primary_key"], r["version_number"], r["op"], r["row"], r["is_current"])
        for r in lake.table("cdc_history", where="source_table = 'moved'", order_by="version_number")
    ] == [
        ('{"id":"1"}', 1, "insert", {"id": "1", "n": "a"}, False),
        ('{"id":"1"}', 2, "update", {"id": "1", "n": "b"}, True),
    ]
    assert lake.rows("select count(*) as n from {schema}.cdc_quarantine where message_id like 'wrong/%'") == [{"n": 0}]
    after = audit(lake)
    assert after["wrong/0"] == counts(4, 2, 0, 2, requeued=2)
    assert {k: v for k, v in after.items() if k != "wrong/0"} == {
        k: v for k, v in first["audit"].items() if k != "wrong/0"
    }


def test_rebuilding_changes_nothing_else(requeued):
    lake, first, _, _, _ = requeued
    # a second build over the same landings (plus the requeue) keeps every other version as it was
    history = lake.table("cdc_history", where="source_table != 'moved'", order_by="source_table, primary_key, version_number")
    assert history == first["history"]


def ddl(table: str, sql: str, es: int, msg_id: int) -> dict:
    """A Canal DDL message: its type is the statement's first word (CREATE, ALTER)."""
    return {**canal(sql.split()[0].upper(), table, None, es=es, pk=None, msg_id=msg_id), "isDdl": True, "sql": sql}


def test_a_key_learnt_later_leaves_earlier_keyless_changes_quarantined(lake, tmp_path):
    """A change whose key column is missing stays in cdc_quarantine, with its reason, after a later
    DDL statement declares another key for its table: keys apply to the changes processed after
    them, so the change is neither dropped nor keyed silently; `cdc-lake requeue` re-keys it.
    Likewise a landing of re-deliveries only (it adds no change) is not keyed again by a later
    build with the new key, which would make its copy a second change of another key.
    (Its own scenario, after the module's others: they read the scenario their fixture made.)"""
    lake.scenario("late_key")
    created = [
        ddl("late", "CREATE TABLE late (id int, code varchar(8), PRIMARY KEY (id))", 1_000, 1),
        canal("INSERT", "late", [{"code": "a"}], es=2_000, pk=None, msg_id=2),  # no id: quarantined
        ddl("kept", "CREATE TABLE kept (id int, code varchar(8), PRIMARY KEY (id))", 1_000, 4),
    ]
    inserted = canal("INSERT", "kept", [{"id": "1", "code": "a"}], es=2_000, pk=None, msg_id=5)
    lake.land([write_jsonl(tmp_path / "created.jsonl", [*created, inserted])], "canal_json")
    lake.build(*UNREAD_AND_TYPING)
    quarantined = "select message_id, reason from {schema}.cdc_quarantine order by message_id"
    before = lake.rows(quarantined)
    assert [r["reason"] for r in before] == ["key column(s) id missing from the row image"]
    lake.land([write_jsonl(tmp_path / "again.jsonl", [inserted])], "canal_json")  # a re-delivery only
    lake.build(*UNREAD_AND_TYPING)
    rekeyed = [
        ddl("late", "ALTER TABLE late DROP PRIMARY KEY, ADD PRIMARY KEY (code)", 3_000, 3),
        ddl("kept", "ALTER TABLE kept DROP PRIMARY KEY, ADD PRIMARY KEY (code)", 3_000, 6),
    ]
    lake.land([write_jsonl(tmp_path / "rekeyed.jsonl", rekeyed)], "canal_json")
    lake.build(*UNREAD_AND_TYPING)
    assert lake.rows(
        "select source_table, key_columns from {schema}.int_cdc__table_keys "
        "where source_table in ('late', 'kept') order by source_table"
    ) == [{"source_table": "kept", "key_columns": ["code"]}, {"source_table": "late", "key_columns": ["code"]}]
    assert lake.rows(quarantined) == before
    # neither keyed by the new key into the history, nor gone from the quarantine
    assert lake.rows(
        "select key_problem from {schema}.int_cdc__changes where source_table = 'late'"
    ) == [{"key_problem": "key column(s) id missing from the row image"}]
    assert lake.rows("select count(*) as n from {schema}.cdc_changes where source_table = 'late'") == [{"n": 0}]
    # the re-delivered insert is the one change it was, keyed as when it was first processed
    assert lake.rows("select primary_key from {schema}.cdc_changes where source_table = 'kept'") == [
        {"primary_key": '{"id":"1"}'}
    ]
    assert lake.rows("select count(*) as n from {schema}.cdc_current where source_table = 'kept'") == [{"n": 1}]
