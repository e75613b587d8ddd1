"""Soak: land and build small batches in a row; after each, the lake matches a model of it kept in
Python and every invariant holds (dbt's data tests run in each build).

CI lands 3 batches (CDC_LAKE_SOAK_BATCHES; 20 with CDC_LAKE_LONG_TESTS=1, as the nightly workflow
runs): the first build, then two incremental ones, which already bring every fault class below
twice (the re-delivery and the overlapping Kafka offsets start with batch 2) and an incremental
build after an incremental one. A fourth batch brought nothing new for about 35 s of the suite.

Each batch brings inserts, updates and a delete (Canal JSON), Debezium records whose Kafka dump
overlaps the previous batch's offsets, the previous batch's first message again (a re-delivery), and
one message that is not JSON. The first build builds every staging model; the later ones build what
the new landings reach (the two formats' staging models and everything downstream of them, with
their data tests). Every build leaves out the unit tests (they do not read landed data) and the typed
and catalog marts (cdc_columns, cdc_tables and what is built on them), whose rows this test does not
check.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import UNREAD_AND_TYPING, run_size, write_jsonl, write_kafka_parquet

pytestmark = pytest.mark.slow

BATCHES = run_size("CDC_LAKE_SOAK_BATCHES", ci=3, long=20)
SELECT = ["+int_cdc__events+"]
EXCLUDE = list(UNREAD_AND_TYPING)


def canal(type_: str, row: dict, es: int, old: dict | None = None) -> str:
    return json.dumps(
        {"data": [row], "old": [old] if old else None, "database": "soak", "table": "items",
         "type": type_, "pkNames": ["id"], "es": es, "ts": es}
    )


def dbz(offset: int) -> str:
    after = {"id": str(offset % 7), "n": str(offset)}
    source = {"connector": "mysql", "db": "soak", "table": "orders", "file": "bin.1", "pos": offset, "ts_ms": 10**9 + offset}
    return json.dumps({"before": None, "after": after, "source": source, "op": "r" if offset < 7 else "u", "ts_ms": 10**9 + offset})


class Model:
    """What the lake must hold: live rows and the number of versions per key."""

    def __init__(self) -> None:
        self.items: dict[str, dict] = {}
        self.orders: dict[str, dict] = {}
        self.versions: dict[tuple[str, str], int] = {}
        self.landed = 0
        self.quarantined = 0
        self.duplicates = 0

    def change(self, table: str, key: str, row: dict | None) -> None:
        rows = self.items if table == "items" else self.orders
        if row is None:
            rows.pop(key)
        else:
            rows[key] = row
        self.versions[(table, key)] = self.versions.get((table, key), 0) + 1


def make_batch(tmp: Path, n: int, model: Model, previous_first: str | None) -> tuple[list[Path], str]:
    """Batch n's files; applies its changes to the model."""
    es = n * 1_000_000
    lines = []
    for j in range(5):  # inserts
        key = str(5 * (n - 1) + j)
        row = {"id": key, "v": f"{n}.10"}
        lines.append(canal("INSERT", row, es + j))
        model.change("items", key, row)
    live = sorted(model.items, key=int)
    for j, key in enumerate(live[:3]):  # updates of the oldest live rows
        row = {"id": key, "v": f"{n}.{j}0"}
        lines.append(canal("UPDATE", row, es + 10 + j, old={"v": model.items[key]["v"]}))
        model.change("items", key, row)
    victim = live[-1]  # delete one
    lines.append(canal("DELETE", model.items[victim], es + 20))
    model.change("items", victim, None)
    if previous_first is not None:
        lines.append(previous_first)  # re-delivered: no new version
        model.duplicates += 1
    lines.append('{"data": [{"id": "1"}], "database": "soak", "type": "INSERT"')  # not JSON
    model.quarantined += 1
    model.landed += len(lines)
    jsonl = write_jsonl(tmp / f"batch{n:02}.jsonl", lines)

    # Debezium: offsets 3(n-1)-1 .. 3n-1, so each dump repeats the previous one's last offset
    first = max(3 * (n - 1) - 1, 0)
    offsets = list(range(first, 3 * n))
    for offset in offsets:
        if offset >= 3 * (n - 1):  # new offsets only
            model.change("orders", str(offset % 7), {"id": str(offset % 7), "n": str(offset)})
            model.landed += 1
    parquet = write_kafka_parquet(
        tmp / f"batch{n:02}.parquet", [dbz(o) for o in offsets], topic="soak_orders", first_offset=first,
        keys=[json.dumps({"id": str(o % 7)}) for o in offsets],  # Debezium's Kafka key names the key
    )
    return [jsonl, parquet], lines[0]


def test_batches_in_a_row(lake, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("soak")
    lake.scenario("soak")
    model = Model()
    previous_first = None
    for n in range(1, BATCHES + 1):
        (jsonl, parquet), previous_first = make_batch(tmp, n, model, previous_first)
        lake.land([jsonl], "canal_json")
        lake.land([parquet], "debezium_json")
        if n == 1:
            lake.build(*EXCLUDE)
        else:
            lake.build("--select", *SELECT, *EXCLUDE)

        current = {
            (r["source_table"], json.loads(r["primary_key"])["id"]): r["row"]
            for r in lake.rows("select source_table, primary_key, row from {schema}.cdc_current")
        }
        expected = {("items", k): v for k, v in model.items.items()}
        expected |= {("orders", k): v for k, v in model.orders.items()}
        assert current == expected, f"batch {n}"
        versions = {
            (r["source_table"], json.loads(r["primary_key"])["id"]): r["n"]
            for r in lake.rows(
                "select source_table, primary_key, count(*) as n from {schema}.cdc_history "
                "group by source_table, primary_key"
            )
        }
        assert versions == model.versions, f"batch {n}"
        audit = lake.rows(
            "select sum(landed_messages) as landed, sum(unaccounted_messages) as unaccounted, "
            "sum(quarantined_messages) as quarantined, sum(duplicate_messages) as duplicates "
            "from {schema}.cdc_landing_audit"
        )
        assert audit == [
            {"landed": model.landed, "unaccounted": 0, "quarantined": model.quarantined, "duplicates": model.duplicates}
        ], f"batch {n}"
