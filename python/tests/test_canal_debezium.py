"""Canal JSON (doc 000) and Debezium JSON (doc 002) end to end: every example, and sequences.

One landing per group (a Kafka topic each), one dbt build for the module; the expectations are
written out row by row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import doc_example, write_jsonl, write_kafka_parquet

CANAL_000 = [
    "000_canal_create_table.txt",
    "000_canal_insert.txt",
    "000_canal_update.txt",
    "000_canal_delete.txt",
    "000_canal_cindex.txt",
    "000_canal_erase.txt",
    "000_canal_rename.txt",
    "000_canal_alter_add_column.txt",
    "000_canal_alter_drop_column.txt",
    "000_canal_update_multi_row.txt",
    "000_canal_delete_multi_row.txt",
]
# The malformed examples are not JSON; landing tells where each stops being JSON.
CINDEX_INVALID = "invalid JSON at offset 221: Expecting ',' delimiter"  # "type":"CINDEX" then a newline, no comma
DBZ_TEMPLATE_INVALID = "invalid JSON at offset 11: Expecting value"  # "schema":...


def canal(type_: str, table: str, data=None, old=None, es=0, pk=("id",), sql="", is_ddl=False, msg_id=1):
    return {
        "data": data,
        "database": "seq",
        "es": es,
        "id": msg_id,
        "isDdl": is_ddl,
        "old": old,
        "pkNames": list(pk) if pk else None,
        "sql": sql,
        "table": table,
        "ts": es + 7,
        "type": type_,
    }


def dbz(op, before, after, pos, ts, table="people", with_schema=False):
    payload = {
        "before": before,
        "after": after,
        "source": {"connector": "mysql", "db": "seq", "table": table, "file": "mysql-bin.000009", "pos": pos, "row": 0, "ts_ms": ts},
        "op": op,
        "ts_ms": ts + 3,
    }
    return json.dumps({"schema": {"type": "struct"}, "payload": payload} if with_schema else payload)


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    tmp: Path = tmp_path_factory.mktemp("canal_debezium")
    lake.scenario("canal_debezium")

    # 1. The doc-000 examples verbatim (multi-line, arrays, one of them malformed).
    write_kafka_parquet(tmp / "doc000.parquet", [doc_example(n) for n in CANAL_000], topic="doc000")
    # 2. The malformed CINDEX example with its missing comma added.
    repaired = doc_example("000_canal_cindex.txt").replace('"type":"CINDEX"\n', '"type":"CINDEX",\n')
    write_kafka_parquet(tmp / "doc000_repaired.parquet", [repaired], topic="doc000_repaired")
    # 3. The Debezium examples of doc 002 verbatim (templates with `...`), and repaired copies.
    dbz_dml = doc_example("002_debezium_cloudcanal_dml.txt")
    dbz_ddl = doc_example("002_debezium_cloudcanal_ddl.txt")
    write_kafka_parquet(tmp / "doc002.parquet", [dbz_dml, dbz_ddl], topic="doc002_debezium")

    def repair(text: str) -> str:
        lines = [line for line in text.splitlines() if line.strip() != "..."]
        return "\n".join(lines).replace('"schema":...,', "").replace('"server_id": 223344,', '"server_id": 223344')

    write_kafka_parquet(
        tmp / "doc002_repaired.parquet", [repair(dbz_ddl), repair(dbz_dml)], topic="doc002_repaired"
    )

    # 4. A Canal sequence: DDL with key, insert, partial update, multi-row update (each row its own
    #    old), key change, delete, re-insert, duplicate delivery, heartbeat, unknown type, no key.
    seq = [
        canal("CREATE", "items", sql="CREATE TABLE items (id int, name text, qty int, PRIMARY KEY (id))", is_ddl=True, pk=None, es=1000),
        canal("INSERT", "items", [{"id": "1", "name": "a", "qty": "0.10"}, {"id": "2", "name": "b", "qty": None}], es=2000, msg_id=2),
        canal("UPDATE", "items", [{"id": "1", "name": "a", "qty": "5"}], old=[{"qty": "0.10"}], es=3000, msg_id=3),
        canal(
            "UPDATE",
            "items",
            [{"id": "1", "name": "a1", "qty": "5"}, {"id": "2", "name": "b", "qty": "12345678901234567890.1234567890"}],
            old=[{"name": "a"}, {"qty": None}],
            es=4000,
            msg_id=4,
        ),
        canal("UPDATE", "items", [{"id": "20", "name": "b", "qty": "12345678901234567890.1234567890"}], old=[{"id": "2"}], es=5000, msg_id=5),
        canal("DELETE", "items", [{"id": "1", "name": "a1", "qty": "5"}], es=6000, msg_id=6),
        canal("INSERT", "items", [{"id": "1", "name": "again", "qty": "1"}], es=7000, msg_id=7),
        canal("MHEARTBEAT", "", es=7500, pk=None, msg_id=8),
        canal("UPSERT", "items", [{"id": "9"}], es=7600, msg_id=9),
        canal("INSERT", "nokey", [{"a": "1"}], es=7700, pk=None, msg_id=10),
        canal("INSERT", "", [{"id": "1"}], es=7800, msg_id=11),
    ]
    lines = [json.dumps(m) for m in seq]
    lines.append(lines[2])  # duplicate delivery of the partial update
    write_jsonl(tmp / "canal_seq.jsonl", lines)

    # 5. A Debezium sequence with Kafka keys, a tombstone and a transaction marker.
    a1 = {"id": 1, "name": "ann", "score": 0.10}
    a2 = {"id": 1, "name": "ann", "score": 12345678901234567890.1234567890}
    b1 = {"id": 2, "name": "bob", "score": None}
    dbz_values = [
        dbz("r", None, {"id": 1, "name": "ann", "score": 0.5}, 10, 1_000, with_schema=True),
        dbz("u", {"id": 1, "name": "ann", "score": 0.5}, {"id": 1, "name": "ann", "score": 0.10}, 20, 2_000),
        dbz("c", None, b1, 30, 3_000),
        dbz("d", b1, None, 40, 4_000),
        None,  # tombstone
        dbz("u", a1, a2, 50, 5_000),
        dbz("d", a2, None, 60, 6_000),
        dbz("c", None, {"id": 3, "name": "ann", "score": 12345678901234567890.1234567890}, 61, 6_000),
        json.dumps({"status": "END", "id": "tx-1", "event_count": 2, "ts_ms": 6_001}),
        dbz("c", None, b1, 70, 7_000),
        dbz("x", None, b1, 80, 8_000),
    ]
    # json.dumps writes 0.1 for 0.10: put the exact texts back into the message text.
    dbz_values = [v.replace("0.1,", "0.10,").replace("0.1}", "0.10}") if v else v for v in dbz_values]
    dbz_values = [
        v.replace("1.2345678901234567e+19", "12345678901234567890.1234567890") if v else v for v in dbz_values
    ]
    keys = [json.dumps({"id": k}) for k in (1, 1, 2, 2, 2, 1, 1, 3, 0, 2, 2)]
    keys[8] = None
    write_kafka_parquet(tmp / "dbz_seq.parquet", dbz_values, keys=keys, topic="dbz_seq")
    # the same partition dumped again with one more record: only the new offset lands
    write_kafka_parquet(
        tmp / "dbz_seq_again.parquet",
        dbz_values + [dbz("u", b1, {"id": 2, "name": "bobby", "score": None}, 90, 9_000)],
        keys=keys + [json.dumps({"id": 2})],
        topic="dbz_seq",
    )

    # 6. Deduplication and ordering (issue 27): one Canal batch (same id, es and ts) in which row 1
    #    goes A->B, B->A, A->B (the fourth message is byte-identical to the second), and a DELETE
    #    without `es` after its INSERT; the same lines again in another file (after a heartbeat)
    #    and as a Kafka topic.
    #    Then an INSERT and its UPDATE (same `es`, increasing `ts` and `id`) in two files of one
    #    landing, the UPDATE's file given first and the INSERT on a later line of its file.
    def flip(type_, row, old=None):
        return canal(type_, "flips", [row], old=old, es=10_000, msg_id=20)

    no_es_delete = canal("DELETE", "flips", [{"id": "30", "v": "x"}], es=11_000, msg_id=22)
    del no_es_delete["es"]
    flips = [
        flip("INSERT", {"id": "1", "v": "A"}),
        flip("UPDATE", {"id": "1", "v": "B"}, old=[{"v": "A"}]),
        flip("UPDATE", {"id": "1", "v": "A"}, old=[{"v": "B"}]),
        flip("UPDATE", {"id": "1", "v": "B"}, old=[{"v": "A"}]),
        canal("INSERT", "flips", [{"id": "30", "v": "x"}], es=11_000, msg_id=21),
        no_es_delete,
    ]
    write_jsonl(tmp / "flips.jsonl", flips)
    write_jsonl(tmp / "flips_again.jsonl", [canal("MHEARTBEAT", "", es=10_000, pk=None, msg_id=20), *flips])
    write_kafka_parquet(tmp / "flips.parquet", [json.dumps(m) for m in flips], topic="flips")
    insert_40 = canal("INSERT", "flips", [{"id": "40", "v": "new"}], es=12_000, msg_id=23)
    update_40 = canal("UPDATE", "flips", [{"id": "40", "v": "updated"}], old=[{"v": "new"}], es=12_000, msg_id=24)
    update_40["ts"] += 1
    write_jsonl(tmp / "order_update.jsonl", [update_40])
    write_jsonl(tmp / "order_insert.jsonl", [canal("MHEARTBEAT", "", es=12_000, pk=None, msg_id=23), insert_40])

    lake.land([tmp / "doc000.parquet", tmp / "doc000_repaired.parquet"], "canal_json")
    lake.land([tmp / "doc002.parquet", tmp / "doc002_repaired.parquet"], "debezium_json")
    lake.land([tmp / "canal_seq.jsonl"], "canal_json")
    lake.land([tmp / "canal_seq.jsonl"], "canal_json")  # re-landing the same file adds nothing
    lake.land([tmp / "dbz_seq.parquet"], "debezium_json")
    lake.land([tmp / "dbz_seq_again.parquet"], "auto")
    lake.land([tmp / "flips.jsonl", tmp / "order_update.jsonl", tmp / "order_insert.jsonl"], "canal_json")
    lake.land([tmp / "flips_again.jsonl", tmp / "flips.parquet"], "canal_json")
    lake.build()  # every model, data test and unit test (the analytics examples are off: see below)
    return lake


def changes(lake, where: str) -> list[tuple]:
    return [
        (r["source_table"], r["op"], r["primary_key"], r["before"], r["after"])
        for r in lake.rows(
            "select * from {schema}.cdc_changes where " + where + " order by message_index, element_index, row_index"
        )
    ]


def history(lake, database: str, table: str) -> list[tuple]:
    return [
        (r["primary_key"], r["version_number"], r["op"], r["row"], r["is_current"], r["is_deleted"])
        for r in lake.rows(
            f"select * from {{schema}}.cdc_history where source_database = '{database}' "
            f"and source_table = '{table}' order by primary_key, version_number"
        )
    ]


def current(lake, database: str, table: str) -> dict[str, dict]:
    return {
        r["primary_key"]: r["row"]
        for r in lake.rows(
            f"select * from {{schema}}.cdc_current where source_database = '{database}' and source_table = '{table}'"
        )
    }


def test_doc000_changes(built):
    assert changes(built, "kafka_topic = 'doc000'") == [
        ("asd_copy", "insert", '{"ID":"2223"}', None, {"ID": "2223"}),
        ("asd", "update", '{"ID":"222"}', {"ID": "2223"}, {"ID": "222"}),
        ("asd", "delete", '{"ID":"222"}', {"ID": "222"}, None),
        ("asd", "update", '{"ID":"22"}', {"ID": "22", "TEST_NAME": None}, {"ID": "22", "TEST_NAME": "123"}),
        ("asd", "update", '{"ID":"2223"}', {"ID": "2223", "TEST_NAME": None}, {"ID": "2223", "TEST_NAME": "123"}),
        ("asd", "delete", '{"ID":"22"}', {"ID": "22", "TEST_NAME": "123"}, None),
        ("asd", "delete", '{"ID":"2223"}', {"ID": "2223", "TEST_NAME": "123"}, None),
    ]


def test_doc000_ddl(built):
    rows = built.rows(
        "select source_table, ddl_type, sql, is_database_level, cast(event_ts as string) as ts "
        "from {schema}.cdc_ddl where source_format = 'canal_json' and message_id like 'doc000%' "
        "order by message_id like 'doc000_repaired%', message_index"
    )
    create_sql = (
        "CREATE TABLE `test`.`asd_copy` (\n`ID` int(11) NOT NULL,\nPRIMARY KEY (`ID`)\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=utf8"
    )
    assert [tuple(r.values()) for r in rows] == [
        ("asd_copy", "CREATE", create_sql, False, "2019-03-31 15:05:48"),
        ("asd", "ERASE", "DROP TABLE `asd` /* generated by server */", False, "2019-03-31 15:10:30"),
        ("asd", "RENAME", "alter table `asd_copy` rename to `asd`", False, "2019-03-31 15:11:27"),
        ("asd", "ALTER", "ALTER TABLE `test`.`asd` ADD COLUMN `TEST_NAME` varchar(255) AFTER `ID`", False, "2019-03-31 15:12:35"),
        ("asd", "ALTER", "ALTER TABLE `test`.`asd` DROP COLUMN `TEST_NAME`", False, "2019-03-31 15:13:50"),
        ("asd", "CINDEX", "ALTER TABLE `test`.`asd` ADD PRIMARY KEY (`ID`)", False, "2019-03-31 14:09:27"),
    ]


def test_doc000_malformed_example_is_quarantined_verbatim(built):
    rows = built.rows(
        "select reason, raw_message from {schema}.cdc_quarantine where kafka_topic = 'doc000'"
    )
    assert rows == [{"reason": CINDEX_INVALID, "raw_message": doc_example("000_canal_cindex.txt")}]


def test_doc000_history_and_current(built):
    assert history(built, "test", "asd") == [
        ('{"ID":"22"}', 1, "update", {"ID": "22", "TEST_NAME": "123"}, False, False),
        ('{"ID":"22"}', 2, "delete", {"ID": "22", "TEST_NAME": "123"}, True, True),
        ('{"ID":"222"}', 1, "update", {"ID": "222"}, False, False),
        ('{"ID":"222"}', 2, "delete", {"ID": "222"}, True, True),
        # the key change 2223 -> 222 closes key 2223 with a deleted version
        ('{"ID":"2223"}', 1, "delete", {"ID": "2223"}, False, True),
        ('{"ID":"2223"}', 2, "update", {"ID": "2223", "TEST_NAME": "123"}, False, False),
        ('{"ID":"2223"}', 3, "delete", {"ID": "2223", "TEST_NAME": "123"}, True, True),
    ]
    assert current(built, "test", "asd") == {}
    assert current(built, "test", "asd_copy") == {'{"ID":"2223"}': {"ID": "2223"}}


def test_doc002_debezium_templates_are_quarantined_and_repaired_copies_parse(built):
    rows = built.rows(
        "select reason, raw_message from {schema}.cdc_quarantine where kafka_topic = 'doc002_debezium' "
        "order by kafka_offset"
    )
    assert rows == [
        {"reason": DBZ_TEMPLATE_INVALID, "raw_message": doc_example("002_debezium_cloudcanal_dml.txt")},
        {"reason": DBZ_TEMPLATE_INVALID, "raw_message": doc_example("002_debezium_cloudcanal_ddl.txt")},
    ]
    # repaired: the DDL's tableChanges gives the key col_pk; op "i" is CloudCanal's insert
    assert changes(built, "kafka_topic = 'doc002_repaired'") == [
        ("table_test", "insert", '{"col_pk":"11"}', None, {"col1": "11", "col2": "11", "col_pk": "11"}),
    ]
    ddl = built.rows(
        "select source_database, source_table, ddl_type, sql, ddl_key_columns from {schema}.cdc_ddl "
        "where message_id like 'doc002_repaired%'"
    )
    assert ddl == [
        {
            "source_database": "db_test",
            "source_table": "table_test",
            "ddl_type": "ALTER",
            "sql": "alter table table_test add col2 varchar(22) null",
            "ddl_key_columns": ["col_pk"],
        }
    ]


def test_canal_sequence_history(built):
    assert history(built, "seq", "items") == [
        ('{"id":"1"}', 1, "insert", {"id": "1", "name": "a", "qty": "0.10"}, False, False),
        ('{"id":"1"}', 2, "update", {"id": "1", "name": "a", "qty": "5"}, False, False),
        ('{"id":"1"}', 3, "update", {"id": "1", "name": "a1", "qty": "5"}, False, False),
        ('{"id":"1"}', 4, "delete", {"id": "1", "name": "a1", "qty": "5"}, False, True),
        ('{"id":"1"}', 5, "insert", {"id": "1", "name": "again", "qty": "1"}, True, False),
        ('{"id":"2"}', 1, "insert", {"id": "2", "name": "b", "qty": None}, False, False),
        ('{"id":"2"}', 2, "update", {"id": "2", "name": "b", "qty": "12345678901234567890.1234567890"}, False, False),
        ('{"id":"2"}', 3, "delete", {"id": "2", "name": "b", "qty": "12345678901234567890.1234567890"}, True, True),
        ('{"id":"20"}', 1, "update", {"id": "20", "name": "b", "qty": "12345678901234567890.1234567890"}, True, False),
    ]
    assert current(built, "seq", "items") == {
        '{"id":"1"}': {"id": "1", "name": "again", "qty": "1"},
        '{"id":"20"}': {"id": "20", "name": "b", "qty": "12345678901234567890.1234567890"},
    }


def test_canal_multi_row_update_uses_each_rows_own_old(built):
    rows = built.rows(
        "select primary_key, before from {schema}.cdc_changes where source_table = 'items' "
        "and source_uri like '%canal_seq.jsonl' and message_index = 4 order by row_index"
    )
    assert rows == [
        {"primary_key": '{"id":"1"}', "before": {"id": "1", "name": "a", "qty": "5"}},
        {"primary_key": '{"id":"2"}', "before": {"id": "2", "name": "b", "qty": None}},
    ]


def test_canal_sequence_quarantine_and_control(built):
    rows = built.rows(
        "select source_table, reason from {schema}.cdc_quarantine where source_uri like '%canal_seq.jsonl' "
        "order by message_index"
    )
    assert rows == [
        {"source_table": "items", "reason": "unknown Canal type: UPSERT"},
        {"source_table": None, "reason": "missing table name"},
    ]
    # the table without a key is keyed by row image: its row is live
    assert built.rows(
        "select row from {schema}.cdc_current where source_table = 'nokey'"
    ) == [{"row": {"a": "1"}}]
    audit = built.rows(
        "select landed_input, landed_messages, messages_with_changes, messages_with_ddl, control_messages, "
        "quarantined_messages, unaccounted_messages from {schema}.cdc_landing_audit where landed_input like '%canal_seq.jsonl'"
    )
    assert audit == [
        {
            "landed_input": audit[0]["landed_input"],
            "landed_messages": 12,
            "messages_with_changes": 8,  # lines 2-7 and 12, and line 10 (of a table keyed by row image)
            "messages_with_ddl": 1,
            "control_messages": 1,
            "quarantined_messages": 2,
            "unaccounted_messages": 0,
        }
    ]


def test_debezium_sequence(built):
    assert history(built, "seq", "people") == [
        ('{"id":"1"}', 1, "snapshot", {"id": "1", "name": "ann", "score": "0.5"}, False, False),
        ('{"id":"1"}', 2, "update", {"id": "1", "name": "ann", "score": "0.10"}, False, False),
        ('{"id":"1"}', 3, "update", {"id": "1", "name": "ann", "score": "12345678901234567890.1234567890"}, False, False),
        ('{"id":"1"}', 4, "delete", {"id": "1", "name": "ann", "score": "12345678901234567890.1234567890"}, True, True),
        ('{"id":"2"}', 1, "insert", {"id": "2", "name": "bob", "score": None}, False, False),
        ('{"id":"2"}', 2, "delete", {"id": "2", "name": "bob", "score": None}, False, True),
        ('{"id":"2"}', 3, "insert", {"id": "2", "name": "bob", "score": None}, False, False),
        ('{"id":"2"}', 4, "update", {"id": "2", "name": "bobby", "score": None}, True, False),
        ('{"id":"3"}', 1, "insert", {"id": "3", "name": "ann", "score": "12345678901234567890.1234567890"}, True, False),
    ]
    audit = built.rows(
        "select landed_input, landed_messages, messages_with_changes, messages_with_ddl, control_messages, "
        "quarantined_messages, unaccounted_messages from {schema}.cdc_landing_audit where landed_input = 'dbz_seq/0'"
    )
    assert audit == [
        {
            "landed_input": "dbz_seq/0",
            "landed_messages": 12,
            "messages_with_changes": 9,
            "messages_with_ddl": 0,
            "control_messages": 2,
            "quarantined_messages": 1,
            "unaccounted_messages": 0,
        }
    ]
    assert built.rows(
        "select reason from {schema}.cdc_quarantine where kafka_topic = 'dbz_seq'"
    ) == [{"reason": "unknown Debezium op: x"}]


def test_repeated_change_in_one_batch_is_kept(built):
    """A->B, B->A, A->B in one Canal batch: the second A->B is byte-identical to the first and is a
    change of its own (4 versions, current B), while the same batch delivered again in another
    file and as a Kafka topic (a later landing) adds nothing."""
    assert history(built, "seq", "flips")[:4] == [
        ('{"id":"1"}', 1, "insert", {"id": "1", "v": "A"}, False, False),
        ('{"id":"1"}', 2, "update", {"id": "1", "v": "B"}, False, False),
        ('{"id":"1"}', 3, "update", {"id": "1", "v": "A"}, False, False),
        ('{"id":"1"}', 4, "update", {"id": "1", "v": "B"}, True, False),
    ]
    assert current(built, "seq", "flips")['{"id":"1"}'] == {"id": "1", "v": "B"}
    assert built.rows(
        "select count(*) as n from {schema}.cdc_changes where source_table = 'flips' "
        "and (source_uri like '%flips_again.jsonl' or kafka_topic = 'flips')"
    ) == [{"n": 0}]
    audit = built.rows(
        "select landed_input, landed_messages, duplicate_messages from {schema}.cdc_landing_audit "
        "where landed_input like '%flips%'"
    )
    assert sorted((r["landed_input"].rsplit("/", 1)[-1], r["landed_messages"], r["duplicate_messages"]) for r in audit) == [
        ("0", 6, 6), ("flips.jsonl", 6, 0), ("flips_again.jsonl", 7, 6),
    ]


def test_delete_without_event_time_orders_after_its_insert(built):
    """A DELETE whose message has no `es` is ordered after its key's INSERT (a missing time never
    sorts first): the row stays deleted."""
    assert [v for v in history(built, "seq", "flips") if v[0] == '{"id":"30"}'] == [
        ('{"id":"30"}', 1, "insert", {"id": "30", "v": "x"}, False, False),
        ('{"id":"30"}', 2, "delete", {"id": "30", "v": "x"}, True, True),
    ]
    assert '{"id":"30"}' not in current(built, "seq", "flips")


def test_files_of_one_landing_are_ordered_by_canal_ts_and_id(built):
    """An INSERT and its UPDATE with the same `es`, in two files of one landing, the UPDATE's file
    given first and the INSERT on a later line: Canal's `ts` and `id` order them, not the files."""
    assert [v[1:3] for v in history(built, "seq", "flips") if v[0] == '{"id":"40"}'] == [
        (1, "insert"), (2, "update"),
    ]
    assert current(built, "seq", "flips")['{"id":"40"}'] == {"id": "40", "v": "updated"}


def test_relanding_adds_nothing(built):
    landings = built.rows(
        "select count(*) as n from {schema}_raw.raw_messages where source_uri like '%canal_seq.jsonl'"
    )
    assert landings == [{"n": 12}]
    assert built.rows(
        "select count(*) as n from {schema}_raw.raw_messages where kafka_topic = 'dbz_seq'"
    ) == [{"n": 12}]


def test_scd2_versions_test_finds_every_broken_chain(built):
    """The generic test on cdc_history returns each version that breaks its key's chain, with the
    reason; a valid chain returns nothing (the build above passes it on real history)."""
    from cdc_lake.dbt import run_dbt

    t = "timestamp'2024-01-01 00:00:0{}'".format
    cases = [  # key, version_number, valid_from, valid_to, is_current
        ("ok", 1, t(1), t(2), False),
        ("ok", 2, t(2), "null", True),
        ("gap", 1, t(1), t(2), False),
        ("gap", 2, t(2), t(3), False),
        ("gap", 4, t(3), "null", True),
        ("twice", 1, t(1), t(2), False),
        ("twice", 1, t(2), "null", True),
        ("no_current", 1, t(1), "null", False),
        ("overlap", 1, t(1), t(4), False),
        ("overlap", 2, t(2), "null", True),
        ("backwards", 1, t(5), t(2), False),
        ("backwards", 2, t(2), "null", True),
    ]
    values = ", ".join(f"('{k}', {v}, {f}, {to}, {c})" for k, v, f, to, c in cases)
    built.spark.sql(
        f"create or replace temporary view scd2_cases (k, version_number, valid_from, valid_to, is_current) "
        f"as values {values}"
    )
    result = run_dbt(["compile", "--inline", "{{ test_cdc_scd2_versions('scd2_cases', ['k']) }}"])
    sql = result.results[0].node.compiled_code
    found = sorted((r["k"], r["version_number"], r["violation"]) for r in built.spark.sql(sql).collect())
    assert found == [
        ("backwards", 1, "valid_from is after valid_to"),
        ("gap", 4, "the version numbers of the key are not 1, 2, 3, ... (a gap or a repeat)"),
        ("no_current", 1, "is_current is not the same as valid_to is null"),
        ("overlap", 1, "valid_to is not the valid_from of the next version (null for the last)"),
        ("twice", 1, "the version numbers of the key are not 1, 2, 3, ... (a gap or a repeat)"),
    ]


def test_scd2_versions_test_checks_the_keys_the_last_build_changed(built):
    """With new_landings_of, a scheduled build's test checks every version of the keys whose
    versions came with the landings above the model's recorded watermark, and no other key; when
    the property says the last build did not finish, every key again."""
    from cdc_lake.dbt import run_dbt

    schema = built.schema
    t = "timestamp'2024-01-01 00:00:0{}'".format
    cases = [  # key, version_number, valid_from, valid_to, is_current, landing_seq
        ("changed_gap", 1, t(1), t(2), False, 1),
        ("changed_gap", 3, t(2), "null", True, 2),
        ("old_overlap", 1, t(1), t(4), False, 1),
        ("old_overlap", 2, t(2), "null", True, 1),
    ]
    values = ", ".join(f"('{k}', {v}, {f}, {to}, {c}, {s})" for k, v, f, to, c, s in cases)
    built.spark.sql(f"drop table if exists {schema}.scd2_scoped_cases")
    built.spark.sql(
        f"create table {schema}.scd2_scoped_cases using parquet as select * from values {values} "
        "as t(k, version_number, valid_from, valid_to, is_current, landing_seq)"
    )

    def violations(build_state):
        built.spark.sql(
            f"alter table {schema}.scd2_scoped_cases set tblproperties "
            f"('cdc_lake.build' = '{build_state}', 'cdc_lake.built_above' = '1')"
        )
        relation = f"api.Relation.create(schema='{schema}', identifier='scd2_scoped_cases')"
        result = run_dbt([
            "compile", "--inline",
            f"{{{{ test_cdc_scd2_versions({relation}, ['k'], new_landings_of='scd2_scoped_cases') }}}}",
        ])
        sql = result.results[0].node.compiled_code
        return sorted(r["k"] for r in built.spark.sql(sql).collect())

    assert violations("complete") == ["changed_gap"]
    assert violations("running") == ["changed_gap", "old_overlap"]
    built.spark.sql(f"drop table {schema}.scd2_scoped_cases")


def test_the_example_models_pass_their_unit_tests(built):
    """The example analyst models (models/marts/analytics/) are off unless cdc_examples is set (a
    user's lake does not have the sample data's tables), so the full build above leaves out their
    unit tests; they run here, with the var (they read fixed inputs, not the landed data)."""
    from cdc_lake.dbt import run_dbt

    def unit_tests(*options: str) -> list[tuple[str, str]]:
        selected = ["test", "--select", "resource_type:unit_test,path:models/marts/analytics", *options]
        results = run_dbt(selected, reuse_manifest=True).results  # also the on-run-start hooks
        return sorted((r.node.name, str(r.status)) for r in results if r.node.resource_type == "unit_test")

    assert unit_tests() == []
    assert unit_tests("--vars", "{cdc_examples: true}") == [
        ("typed_current_decodes_debezium_decimal_and_date", "pass"),
        ("typed_current_reads_oms_timestamp_seconds_fraction", "pass"),
    ]
