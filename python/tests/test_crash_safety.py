"""Crash safety: SIGKILL `cdc-lake land` and `dbt build` at several points, run again, and get
exactly what an uninterrupted run gives; a reader never sees a missing or half-written mart.

`cdc-lake land`, `dbt build` and the reader run as subprocesses on their own warehouse and
metastore (Derby admits one process, so they cannot share the test process's session). Each is
killed with its whole process group (the Python process and its Spark JVM) when a marker appears
in its output, after a short delay. The uninterrupted reference run is made in the test process.
Every build leaves out the unit tests (they read no landed data) and the typed and catalog marts
(cdc_columns, cdc_tables and what is built on them: the same `cdc_table` materialization as the marts
compared here), which keeps the builds affordable.

CI kills each kind of step once: a landing before its commit and while it writes, a first build
while it creates the events table (the staging models' rows), an incremental build while it rebuilds
the marts and while it writes the events. The long run (CDC_LAKE_LONG_TESTS=1, nightly; or
CDC_LAKE_CRASH_POINTS=N) also kills landing B (a Kafka dump among its inputs) before its commit and
the incremental build at N more models in turn (EXTRA_BUILD_KILLS) before it builds to the end.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import UNREAD_AND_TYPING, run_size, subprocess_lake_env, write_jsonl, write_kafka_parquet

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCHEMA = "crash"
BUILD_ARGS = list(UNREAD_AND_TYPING)
# Models at whose start the long run kills the incremental build, one after the other.
EXTRA_BUILD_KILLS = (
    "int_cdc__changes", "int_cdc__message_outcomes", "int_cdc__ddl", "cdc_current", "cdc_landing_audit",
)
CRASH_POINTS = run_size("CDC_LAKE_CRASH_POINTS", ci=0, long=len(EXTRA_BUILD_KILLS))


def canal(type_: str, table: str, rows: list[dict], es: int, old=None) -> dict:
    return {"data": rows, "old": old, "database": "shop", "table": table, "type": type_, "pkNames": ["id"], "es": es, "ts": es}


def dbz(op: str, before, after, pos: int) -> str:
    source = {"connector": "mysql", "db": "shop", "table": "orders", "file": "bin.000001", "pos": pos, "ts_ms": 5_000_000 + pos}
    return json.dumps({"before": before, "after": after, "source": source, "op": op, "ts_ms": 5_000_000 + pos})


def batches(tmp: Path) -> tuple[list[Path], list[Path]]:
    """Batch A: Canal inserts; batch B: Canal updates/deletes of A's rows and Debezium orders (one
    landing with its formats detected)."""
    a = [canal("INSERT", "items", [{"id": str(i), "qty": f"{i}.0"}], 1_000_000 + i) for i in range(40)]
    a += [canal("INSERT", "users", [{"id": str(i), "name": f"u{i}"}, {"id": str(i + 100), "name": "x"}], 2_000_000 + i) for i in range(20)]
    b = [
        canal("UPDATE", "items", [{"id": str(i), "qty": f"{i}.5"}], 3_000_000 + i, old=[{"qty": f"{i}.0"}])
        for i in range(0, 40, 2)
    ]
    b += [canal("DELETE", "users", [{"id": str(i), "name": f"u{i}"}], 4_000_000 + i) for i in range(0, 20, 3)]
    orders = [dbz("c", None, {"id": str(i), "amount": "0.10"}, i) for i in range(30)]
    orders += [dbz("u", {"id": str(i), "amount": "0.10"}, {"id": str(i), "amount": "12345678901234567890.01"}, 100 + i) for i in range(10)]
    return (
        [write_jsonl(tmp / "a_canal.jsonl", a)],
        [
            write_jsonl(tmp / "b_canal.jsonl", b),
            # Debezium's Kafka key names the key (without it every order would be quarantined)
            write_kafka_parquet(
                tmp / "b_orders.parquet", orders, topic="orders",
                keys=[json.dumps({"id": str(i)}) for i in [*range(30), *range(10)]],
            ),
        ],
    )


def state_queries(schema: str, raw_schema: str) -> dict[str, str]:
    """What must be equal to the uninterrupted run: every row as JSON, in a fixed order."""
    return {
        "history": (
            "select to_json(struct(source_database, source_table, primary_key, version_number, row, op, "
            "valid_from, valid_to, is_current, is_deleted, change_id, message_id)) "
            f"from {schema}.cdc_history order by source_database, source_table, primary_key, version_number"
        ),
        "current": (
            f"select to_json(struct(*)) from {schema}.cdc_current "
            "order by source_database, source_table, primary_key"
        ),
        "audit": (
            "select to_json(struct(landed_input, landed_messages, messages_with_changes, quarantined_messages, "
            f"unaccounted_messages, duplicate_messages)) from {schema}.cdc_landing_audit order by landed_input"
        ),
        "landed": (
            "select to_json(struct(landing_seq, count(*), count(distinct message_id))) "
            f"from {raw_schema}.raw_messages where landing_seq in (select landing_seq from {raw_schema}.landings) "
            "group by landing_seq order by landing_seq"
        ),
    }


READER = """
import json, sys
from cdc_lake.spark import get_spark
spark = get_spark()
queries = json.loads(sys.argv[1])
print(json.dumps({name: [r[0] for r in spark.sql(sql).collect()] for name, sql in queries.items()}))
"""


class Lake:
    """A warehouse of its own, driven through subprocesses."""

    def __init__(self, root: Path):
        self.root = root
        self.env = subprocess_lake_env(root, SCHEMA)
        self.log: list[str] = []

    def command(self, what: str, args: list[str]) -> list[str]:
        if what == "land":
            return [str(BIN / "cdc-lake"), "land", *args]
        if what == "build":
            return [
                str(BIN / "dbt"), "build", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT / "profiles"),
                "--target-path", str(self.root / "target"), "--log-path", str(self.root / "logs"), *BUILD_ARGS,
            ]
        raise ValueError(what)

    def run(self, what: str, *args: str, kill_at: str | None = None, delay: float = 0.0) -> str:
        """Run to the end (asserting success), or SIGKILL the process group `delay` seconds after a
        line matching the regular expression `kill_at` appears (asserting it was killed there)."""
        proc = subprocess.Popen(
            self.command(what, list(args)), cwd=PROJECT, env=self.env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        output = []
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            if kill_at is not None and re.search(kill_at, line):
                time.sleep(delay)
                os.killpg(proc.pid, signal.SIGKILL)
                break
        proc.wait(timeout=900)
        text = "".join(output)
        self.log.append(f"$ {what} {' '.join(args)} (kill at {kill_at!r} + {delay}s)\n{text}")
        if kill_at is None:
            assert proc.returncode == 0, text
        else:
            assert proc.returncode == -signal.SIGKILL, f"not killed at {kill_at!r}:\n{text}"
        return text

    def read(self) -> dict[str, list[str]]:
        queries = state_queries(SCHEMA, f"{SCHEMA}_raw")
        result = subprocess.run(
            [sys.executable, "-c", READER, json.dumps(queries)], cwd=PROJECT, env=self.env,
            capture_output=True, text=True, timeout=900,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crash_data")
    return batches(tmp)


@pytest.fixture(scope="module")
def reference(lake, data):
    """The uninterrupted run: land A, land B, build."""
    a, b = data
    lake.scenario(SCHEMA)
    lake.land(a, "canal_json")
    lake.land(b, "auto")
    lake.build(*BUILD_ARGS)
    return {
        name: [r[0] for r in lake.spark.sql(sql).collect()]
        for name, sql in state_queries(SCHEMA, f"{SCHEMA}_raw").items()
    }


def test_killed_runs_end_like_an_uninterrupted_run(reference, data, tmp_path_factory):
    a, b = data
    lake = Lake(tmp_path_factory.mktemp("crash_lake"))
    try:
        # land A, killed between writing the messages and the commit row: the rerun removes them
        lake.run("land", "--format", "canal_json", *map(str, a), kill_at="written; committing$")
        rerun = lake.run("land", "--format", "canal_json", *map(str, a))
        assert "removing landing 1 from crash_raw.raw_messages: it never committed" in rerun
        # the first build killed while it creates the events table, then built to the end
        lake.run("build", kill_at=rf"START .*{SCHEMA}\.int_cdc__events ", delay=3.0)
        lake.run("build")
        after_a = lake.read()

        # land B (Canal JSON and a Debezium Kafka dump, detected), killed while writing, (long run)
        # killed again before its commit, then landed again
        land_b = ["--format", "auto", *map(str, b)]
        lake.run("land", *land_b, kill_at=r"input\(s\) as landing", delay=1.0)
        if CRASH_POINTS:
            lake.run("land", *land_b, kill_at="written; committing")
        lake.run("land", *land_b)

        # dbt build killed while it rebuilds the marts: readers still see the previous build whole
        lake.run("build", kill_at=rf"START .*{SCHEMA}\.int_cdc__history_versions ", delay=2.0)
        during = lake.read()
        assert (during["history"], during["current"]) == (after_a["history"], after_a["current"])

        # killed again, earlier (the events table), and (long run) at more models, then built to the end
        lake.run("build", kill_at=rf"START .*{SCHEMA}\.int_cdc__events ", delay=3.0)
        for model in EXTRA_BUILD_KILLS[:CRASH_POINTS]:
            lake.run("build", kill_at=rf"START .*{SCHEMA}\.{model} ", delay=1.0)
        lake.run("build")
        final = lake.read()
    except AssertionError:
        print("\n".join(lake.log)[-20000:])
        raise
    assert final == reference
    # the reference itself is whole: every order and item has its versions, no message is lost
    assert sum('"source_table":"orders"' in row for row in reference["history"]) == 40
    assert sum('"source_table":"items"' in row for row in reference["history"]) == 60
