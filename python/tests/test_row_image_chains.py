"""Tables with no key known (issue 31): their changes are chained by row image.

- cdc_chain_row_images: the JVM function and the plain-SQL fold Databricks runs give, for random
  change sequences, exactly what a reference model of the rule gives.
- The changes of Flink's test file debezium-data-schema-include.txt (Debezium with `schema`, no
  Kafka keys, no schema-change events) give the final table Flink's retraction asserts.
- A keyless Canal stream with identical rows, updates and deletes gives the exact multiset of live
  rows and SCD2 chains; an update of a row that is not live is quarantined with its reason; the
  audit accounts for every message; a key found later (DDL) is warned about and a full refresh
  re-keys the history with it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import jinja2
import pytest

from conftest import UNREAD, write_jsonl, write_kafka_parquet

MACROS = Path(__file__).resolve().parents[2] / "macros" / "marts" / "cdc_chain_row_images.sql"
FORMATS = ["canal_json", "debezium_json"]
SELECTION = [
    "+cdc_changes", "+cdc_history", "+cdc_current", "+cdc_quarantine", "+cdc_landing_audit", "+cdc_tables",
    "warn_cdc_tables_keyed_by_row_image", "warn_cdc_row_image_tables_now_keyed",
]


def reference_chains(ops: list[str], befores: list[str | None], afters: list[str | None]) -> list[int | None]:
    """The rule, written plainly: live rows per image, oldest first."""
    live: dict[str, list[int]] = {}
    starts: list[int | None] = []
    for position, (op, before, after) in enumerate(zip(ops, befores, afters)):
        start: int | None = None
        if op in ("insert", "snapshot"):
            start = position if after is not None else None
        elif op == "delete" or (op == "update" and after is not None):
            rows = live.get(before) if before is not None else None
            start = rows.pop(0) if rows else None
        if start is not None and op != "delete":
            live.setdefault(after, []).append(start)
        starts.append(start)
    return starts


def random_sequence(rng: random.Random, length: int) -> tuple[list[str], list[str | None], list[str | None]]:
    images = ["A", "B", "C"]
    ops, befores, afters = [], [], []
    for _ in range(length):
        op = rng.choice(["insert", "insert", "snapshot", "update", "update", "update", "delete", "delete"])
        ops.append(op)
        befores.append(rng.choice(images) if op in ("update", "delete") else None)
        afters.append(rng.choice(images) if op != "delete" else None)
    return ops, befores, afters


def chain_sql() -> str:
    """cdc_chain_row_images_sql (the Databricks fold) over columns o, b, a."""
    module = jinja2.Environment().from_string(MACROS.read_text()).module
    return str(module.cdc_chain_row_images_sql("o", "b", "a"))


def test_jvm_function_and_sql_fold_follow_the_rule(lake):
    spark = lake.spark
    spark.sql("create or replace temporary function test_chain_row_images as 'io.cdclake.spark.RowImageChains'")
    rng = random.Random(20261126)
    cases = [random_sequence(rng, rng.randint(0, 30)) for _ in range(300)]
    cases.append((["insert", "insert", "update", "delete", "update"], [None, None, "A", "B", "A"], ["A", "A", "B", None, "C"]))
    spark.createDataFrame(
        [(i, *case) for i, case in enumerate(cases)], "i int, o array<string>, b array<string>, a array<string>"
    ).createOrReplaceTempView("chain_cases")
    rows = spark.sql(
        f"select i, test_chain_row_images(o, b, a) as jvm, {chain_sql()} as fold from chain_cases order by i"
    ).collect()
    for row in rows:
        expected = reference_chains(*cases[row["i"]])
        assert list(row["jvm"]) == expected, cases[row["i"]]
        assert list(row["fold"]) == expected, cases[row["i"]]
    # the hand-checked case: two identical rows, the update takes the oldest, the second update
    # finds the first one gone (its image changed) and the second one still A
    assert list(rows[-1]["jvm"]) == [0, 1, 0, 0, 1]


# ---------------------------------------------------------------------------------------------
# Flink's debezium-data-schema-include.txt

FIELDS = [("int32", "id"), ("string", "name"), ("string", "description"), ("double", "weight")]


def flink_envelope(op: str, before: dict | None, after: dict | None, pos: int, ts_ms: int) -> dict:
    value = {
        "type": "struct",
        "fields": [{"type": t, "optional": f != "id", "field": f} for t, f in FIELDS],
        "optional": True,
        "name": "dbserver1.inventory.products.Value",
    }
    return {
        "schema": {
            "type": "struct",
            "fields": [{**value, "field": "before"}, {**value, "field": "after"}],
            "optional": False,
            "name": "dbserver1.inventory.products.Envelope",
        },
        "payload": {
            "before": before,
            "after": after,
            "source": {
                "version": "1.1.1.Final", "connector": "mysql", "name": "dbserver1",
                "ts_ms": 0 if pos == 154 else ts_ms - 936, "snapshot": "true" if pos == 154 else "false",
                "db": "inventory", "table": "products", "server_id": 0 if pos == 154 else 223344,
                "file": "mysql-bin.000003", "pos": pos, "row": 0,
            },
            "op": op,
            "ts_ms": ts_ms,
            "transaction": None,
        },
    }


def product(id_: int, name: str, description: str, weight: float) -> dict:
    return {"id": id_, "name": name, "description": description, "weight": weight}


SNAPSHOT = [
    product(101, "scooter", "Small 2-wheel scooter", 3.140000104904175),
    product(102, "car battery", "12V car battery", 8.100000381469727),
    product(103, "12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3", 0.800000011920929),
    product(104, "hammer", "12oz carpenter's hammer", 0.75),
    product(105, "hammer", "14oz carpenter's hammer", 0.875),
    product(106, "hammer", "16oz carpenter's hammer", 1.0),
    product(107, "rocks", "box of assorted rocks", 5.300000190734863),
    product(108, "jacket", "water resistent black wind breaker", 0.10000000149011612),
    product(109, "spare tire", "24 inch spare tire", 22.200000762939453),
]


def flink_messages() -> list[dict]:
    """The 16 changes of the file, in its order (snapshot rows share position 154)."""
    messages = [flink_envelope("c", None, row, 154, 1589355606100 + min(i, 1)) for i, row in enumerate(SNAPSHOT)]
    rocks_after = product(107, "rocks", "box of assorted rocks", 5.099999904632568)
    jacket = product(110, "jacket", "water resistent white wind breaker", 0.20000000298023224)
    scooter = product(111, "scooter", "Big 2-wheel scooter ", 5.179999828338623)
    scooter_lighter = product(111, "scooter", "Big 2-wheel scooter ", 5.170000076293945)
    messages += [
        flink_envelope("u", SNAPSHOT[5], product(106, "hammer", "18oz carpenter hammer", 1.0), 362, 1589361987936),
        flink_envelope("u", SNAPSHOT[6], rocks_after, 717, 1589362099505),
        flink_envelope("c", None, jacket, 1068, 1589362210230),
        flink_envelope("c", None, scooter, 1394, 1589362243428),
        flink_envelope("u", jacket, product(110, "jacket", "new water resistent white wind breaker", 0.5), 1707, 1589362315192),
        flink_envelope("u", scooter, scooter_lighter, 2090, 1589362330904),
        flink_envelope("d", scooter_lighter, None, 2443, 1589362344455),
    ]
    return messages


# The final table Flink's test asserts for this file (+I/-U/+U/-D folded), as exact value text.
FLINK_FINAL = [
    ("101", "scooter", "Small 2-wheel scooter", "3.140000104904175"),
    ("102", "car battery", "12V car battery", "8.100000381469727"),
    ("103", "12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3", "0.800000011920929"),
    ("104", "hammer", "12oz carpenter's hammer", "0.75"),
    ("105", "hammer", "14oz carpenter's hammer", "0.875"),
    ("106", "hammer", "18oz carpenter hammer", "1.0"),
    ("107", "rocks", "box of assorted rocks", "5.099999904632568"),
    ("108", "jacket", "water resistent black wind breaker", "0.10000000149011612"),
    ("109", "spare tire", "24 inch spare tire", "22.200000762939453"),
    ("110", "jacket", "new water resistent white wind breaker", "0.5"),
]


# ---------------------------------------------------------------------------------------------
# A keyless Canal stream

def canal(type_: str, data: list[dict], *, old: list[dict] | None = None, es: int, msg_id: int, sql: str = "") -> dict:
    return {
        "data": data, "database": "shop_nk", "table": "visits", "es": es, "id": msg_id, "isDdl": bool(sql),
        "old": old, "pkNames": None, "sql": sql, "ts": es + 1, "type": type_,
    }


def row(id_: str, page: str) -> dict:
    return {"id": id_, "page": page}


# (op, before, after) of the stream below, for the reference multiset
CANAL_STREAM = [
    canal("INSERT", [row("1", "home"), row("1", "home"), row("2", "cart")], es=1_000, msg_id=1),
    # one of the two identical rows changes: the other stays
    canal("UPDATE", [row("1", "shop")], old=[{"page": "home"}], es=2_000, msg_id=2),
    canal("INSERT", [row("3", "home")], es=3_000, msg_id=3),
    canal("DELETE", [row("2", "cart")], es=4_000, msg_id=4),
    # an update of a row that is not live (never inserted): cannot be chained, quarantined
    canal("UPDATE", [row("9", "late")], old=[{"page": "early"}], es=5_000, msg_id=5),
    canal("UPDATE", [row("1", "pay")], old=[{"page": "shop"}], es=6_000, msg_id=6),
    canal("INSERT", [row("1", "home")], es=7_000, msg_id=7),
    canal("DELETE", [row("1", "home")], es=8_000, msg_id=8),
]


def live_multiset(lake, database: str, table: str) -> Counter:
    rows = lake.rows(
        f"select row from {{schema}}.cdc_current where source_database = '{database}' and source_table = '{table}'"
    )
    return Counter(json.dumps(r["row"], sort_keys=True) for r in rows)


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("row_image_chains")
    lake.scenario("row_image_chains")
    # no Kafka keys: Debezium names no key columns, and no schema-change event gives them
    write_kafka_parquet(tmp / "flink.parquet", [json.dumps(m) for m in flink_messages()], topic="dbserver1.inventory.products")
    write_jsonl(tmp / "visits.jsonl", CANAL_STREAM)
    # the same file again: a re-delivery adds no rows (and no phantom identical row)
    write_jsonl(tmp / "visits_again.jsonl", CANAL_STREAM)
    lake.land([tmp / "flink.parquet"], "debezium_json")
    lake.land([tmp / "visits.jsonl"], "canal_json")
    lake.land([tmp / "visits_again.jsonl"], "canal_json")
    result = lake.build("--select", *SELECTION, "--vars", json.dumps({"cdc_formats": FORMATS}), *UNREAD)
    return {"tmp": tmp, "result": result}


def test_flink_debezium_file_gives_flinks_final_table(lake, built):
    rows = lake.rows(
        "select row from {schema}.cdc_current where source_database = 'inventory' and source_table = 'products'"
    )
    final = sorted((r["row"]["id"], r["row"]["name"], r["row"]["description"], r["row"]["weight"]) for r in rows)
    assert final == FLINK_FINAL
    # each product's history is one chain: 106 was updated once, 111 created, updated, deleted
    history = lake.rows(
        "select row['id'] as id, version_number, op, is_current, is_deleted, row['weight'] as weight "
        "from {schema}.cdc_history where source_table = 'products' and row['id'] in ('106', '111') "
        "order by id, version_number"
    )
    assert [(h["id"], h["version_number"], h["op"], h["is_current"], h["is_deleted"]) for h in history] == [
        ("106", 1, "insert", False, False), ("106", 2, "update", True, False),
        ("111", 1, "insert", False, False), ("111", 2, "update", False, False), ("111", 3, "delete", True, True),
    ]
    assert lake.rows(
        "select count(*) as n from {schema}.cdc_quarantine where source_table = 'products'"
    ) == [{"n": 0}]


def test_keyless_stream_gives_the_exact_multiset_of_live_rows(lake, built):
    expected = Counter({
        json.dumps(row("1", "home"), sort_keys=True): 1,  # the re-insert (the delete took the oldest "home": the twin)
        json.dumps(row("1", "pay"), sort_keys=True): 1,
        json.dumps(row("3", "home"), sort_keys=True): 1,
    })
    assert live_multiset(lake, "shop_nk", "visits") == expected
    # the row that went home -> shop -> pay is one chain of three versions
    chains = lake.rows(
        "select primary_key, collect_list(row['page']) as pages from ("
        "select primary_key, version_number, row from {schema}.cdc_history where source_table = 'visits' "
        "order by primary_key, version_number) group by primary_key"
    )
    pages = sorted(tuple(c["pages"]) for c in chains)
    assert pages == sorted([
        ("home", "shop", "pay"),  # the first of the identical rows: the update takes the oldest
        ("home", "home"),  # its twin: the delete at 8_000 takes it (the oldest live "home" of id 1)
        ("home",),  # the re-insert at 7_000, live
        ("cart", "cart"),  # inserted, deleted
        ("home",),  # row 3
    ])


def test_unchainable_update_is_quarantined_and_everything_is_accounted_for(lake, built):
    quarantined = lake.rows(
        "select reason, message_id from {schema}.cdc_quarantine where source_table = 'visits'"
    )
    assert [q["reason"] for q in quarantined] == [
        "no live row to update: the table has no key, and its before image matches no live row "
        "(keyed by row image; add its key to the seed cdc_table_keys)"
    ]
    audit = lake.rows("select * from {schema}.cdc_landing_audit order by landed_input")
    for landing in audit:
        assert landing["unaccounted_messages"] == 0, landing
    outcomes = lake.rows(
        "select outcome, count(*) as n from {schema}.int_cdc__message_outcomes "
        "where source_uri like '%visits.jsonl' group by outcome order by outcome"
    )
    assert outcomes == [{"outcome": "change", "n": 7}, {"outcome": "quarantined", "n": 1}]
    tables = lake.rows(
        "select source_table, is_keyed_by_row_image from {schema}.cdc_tables order by source_table"
    )
    assert tables == [
        {"source_table": "products", "is_keyed_by_row_image": True},
        {"source_table": "visits", "is_keyed_by_row_image": True},
    ]
    results = {r.node.name: r for r in built["result"].results}
    assert results["warn_cdc_tables_keyed_by_row_image"].status == "warn"
    assert results["warn_cdc_tables_keyed_by_row_image"].failures == 2
    assert results["warn_cdc_row_image_tables_now_keyed"].status == "pass"


def test_a_key_found_later_is_warned_about_and_a_full_refresh_rekeys(lake, built):
    tmp = built["tmp"]
    ddl = canal("ALTER", [], es=9_000, msg_id=9, sql="ALTER TABLE visits ADD PRIMARY KEY (id, page)")
    ddl["data"] = None
    write_jsonl(tmp / "visits_key.jsonl", [ddl])
    lake.land([tmp / "visits_key.jsonl"], "canal_json")
    result = lake.build("--select", *SELECTION, "--vars", json.dumps({"cdc_formats": FORMATS}), *UNREAD)
    results = {r.node.name: r for r in result.results}
    assert results["warn_cdc_row_image_tables_now_keyed"].status == "warn"
    assert results["warn_cdc_row_image_tables_now_keyed"].failures == 1
    lake.build("--full-refresh", "--select", *SELECTION, "--vars", json.dumps({"cdc_formats": FORMATS}), *UNREAD)
    assert lake.rows(
        "select distinct key_source from {schema}.cdc_changes where source_table = 'visits'"
    ) == [{"key_source": "ddl"}]
    keyed = lake.rows(
        "select primary_key, row['page'] as page from {schema}.cdc_current where source_table = 'visits' "
        "order by primary_key"
    )
    # keyed by (id, page): the identical twins are one key (deleted at 8_000), and the update of
    # row 9, which no live row matched, is an ordinary key change of a keyed table now
    assert [(k["primary_key"], k["page"]) for k in keyed] == [
        ('{"id":"1","page":"pay"}', "pay"), ('{"id":"3","page":"home"}', "home"), ('{"id":"9","page":"late"}', "late"),
    ]
    assert lake.rows(
        "select count(*) as n from {schema}.cdc_quarantine where source_table = 'visits'"
    ) == [{"n": 0}]
