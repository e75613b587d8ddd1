"""The acceptance of issue 29 (live Kafka), measured on a real broker; a script, not a test.

    PYTHONPATH=python .venv/bin/python benchmarks/kafka_acceptance.py --messages 100000

In a temporary folder it starts a KRaft Kafka broker on 127.0.0.1 (python/tests/kafka_broker.py)
and a shared catalog (`cdc-lake catalog start`), then:

1. produces N messages into one topic of 4 partitions, a quarter each of canal_json,
   debezium_json, dts_avro and canal_protobuf (the change stream of benchmarks/generate.py; the
   binary formats encoded with cdc_lake.decoders.encode). As CDC tools do, a key's changes go to
   one partition in order: Debezium and DTS records are partitioned by primary key, Canal
   messages (several rows of one table) by table. The same records are written to a Parquet dump
   of the topic (key, value, topic, partition, offset, timestamp) with the offsets the broker gives;
2. `cdc-lake land --kafka --format auto` then `dbt build` (lake `kacc`); the reference lake
   (`kacc_ref`) lands the Parquet dump (the file path of `cdc-lake land`) and builds the same way:
   cdc_current and cdc_history must be equal row for row (except all, both ways; every column
   but landed_at, the landing's clock time), and cdc_landing_audit must account for every message;
3. in a third lake (`kacc_kill`) the landing is killed (SIGKILL, its JVM too) while it writes, and
   run again: each (partition, offset) once, N in all, the same messages as the clean landing;
4. with `cdc-lake serve` over the catalog and a loop of queries through it, M more messages are
   produced, and `land --kafka` and `dbt build` run at the same time, then one more build: every
   command exits 0, the loop's answers and errors are reported; the reference lands the same M
   from a dump and builds, and the two lakes are compared again.

Prints the figures (produce, land, build, re-run times) and PASS/FAIL per check; exits 1 if a
check fails. Everything it starts is stopped at the end, also on failure or Ctrl-C.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(PROJECT_DIR / "python"), str(PROJECT_DIR / "python" / "tests"), str(PROJECT_DIR / "benchmarks")]

import generate  # noqa: E402  (benchmarks/generate.py: the change stream)
from kafka_broker import Broker, create_topic  # noqa: E402
from query_loop import QueryLoop  # noqa: E402

FORMATS = ("canal_json", "debezium_json", "dts_avro", "canal_protobuf")
BY_TABLE = {"canal_json", "canal_protobuf"}  # Canal's partitionHash by table: a message holds rows of one table
TOPIC = "cdc_acceptance"
LAKES = {"kafka": "kacc", "reference": "kacc_ref", "killed": "kacc_kill"}
BUILD = ("build", "--exclude-resource-type", "unit_test")  # as the scheduled build and benchmarks/run.py
IGNORED_COLUMNS = ("landed_at",)  # the clock time of the landing, not data
DTS_TYPES = {"int": 8, "dec": 246, "str": 253, "dt": 12}  # MySQL type numbers DTS writes (bigint, ...)
WRITING = " Kafka partition(s) as landing "  # land --kafka's line just before it writes
TS_MS = 1_700_000_000_000  # Kafka timestamps of the dump (the broker's are the produce time; no model reads them)


# --------------------------------------------------------------------------------------------
# The workload: generate.py's changes, rendered in four formats, each record with its partition
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    partition: int
    key: bytes | None
    value: bytes
    format_id: str


class Changes(generate.ShardGenerator):
    """generate.py's change stream of one format (one shard), for any format id."""

    def __init__(self, job: generate.ShardJob) -> None:
        self.job = job
        self.rng = random.Random((job.seed * 1_000_003 + zlib.crc32(job.format_id.encode())) * 257)
        self.db = f"kacc_{job.format_id}"
        self.clock = generate.Clock()
        self.rows: dict[int, list[str | None]] = {}
        self.last_seq: dict[int, int] = {}
        self.batching = job.format_id in BY_TABLE


def _dts_value(column: generate.Column, value: str | None) -> Any:
    from cdc_lake.decoders import encode

    if value is None:
        return None
    if column.kind == "int":
        return encode.dts_integer(value, 20)
    if column.kind == "dec":
        precision, scale = column.mysql_type[len("decimal("):-1].split(",")
        return encode.dts_decimal(value, int(precision), int(scale))
    if column.kind == "dt":
        day, clock = value.split(" ")
        (year, month, dom), (hour, minute, second) = map(int, day.split("-")), map(int, clock.split(":"))
        return encode.dts_datetime(year=year, month=month, day=dom, hour=hour, minute=minute, second=second)
    return encode.dts_character(value, "utf8mb4")


def render_dts_avro(db: str, change: generate.Change, _clock: generate.Clock) -> bytes:
    from cdc_lake.decoders import encode

    table = change.table
    before, after, _ = change.rows[0]
    images = {
        "before": [_dts_value(c, v) for c, v in zip(table.columns, before)] if before and change.op != "insert" else None,
        "after": [_dts_value(c, v) for c, v in zip(table.columns, after)] if after and change.op != "delete" else None,
    }
    return encode.dts_record(
        change.op.upper(), f"{db}.{table.name}", [(c.name, DTS_TYPES[c.kind]) for c in table.columns],
        record_id=change.seq + 1, source_timestamp=change.ts_ms // 1000, source_position=f"{change.seq + 1}@1",
        txid=f"tx-{change.seq}", primary_key=table.key_names, **images,
    )


def _canal_columns(table: generate.Table, row: list[str | None] | None, changed: list[int]) -> list[Any]:
    from cdc_lake.decoders import encode

    if row is None:
        return []
    return [
        encode.canal_column(c.name, v, mysql_type=c.mysql_type, sql_type=c.jdbc_type, is_key=i in table.key,
                            updated=i in changed, index=i)
        for i, (c, v) in enumerate(zip(table.columns, row))
    ]


def render_canal_protobuf(db: str, change: generate.Change, _clock: generate.Clock) -> bytes:
    from cdc_lake.decoders import encode

    table = change.table
    rows = [
        (_canal_columns(table, before if change.op != "insert" else None, []),
         _canal_columns(table, after if change.op != "delete" else None, changed))
        for before, after, changed in change.rows
    ]
    header = encode.canal_header(db, table.name, offset=change.seq + 4, execute_time=change.ts_ms)
    return encode.canal_message([encode.canal_row_entry(header, change.op.upper(), rows)], batch_id=change.seq + 1)


RENDERERS: dict[str, Callable[[str, generate.Change, generate.Clock], str | bytes]] = {
    "canal_json": generate.render_canal_json,
    "debezium_json": generate.render_debezium_json,
    "dts_avro": render_dts_avro,
    "canal_protobuf": render_canal_protobuf,
}


def _partition_of(format_id: str, db: str, change: generate.Change, partitions: int) -> tuple[int, bytes]:
    """The record's partition and Kafka key: the table for Canal, else the primary key."""
    table = change.table
    if format_id in BY_TABLE:
        key = f"{db}.{table.name}"
    else:
        before, after, _ = change.rows[0]
        row = after if after is not None else before
        key = json.dumps({n: row[i] for n, i in zip(table.key_names, table.key)}, separators=(",", ":"))
        key = f"{db}.{table.name}:{key}"
    return zlib.crc32(key.encode()) % partitions, key.encode()


def workload(messages: int, increment: int, partitions: int, seed: int) -> tuple[list[Record], list[Record]]:
    """N base records and M more (later changes of the same keys), a quarter of each per format."""
    base: list[Record] = []
    more: list[Record] = []
    for pos, format_id in enumerate(FORMATS):
        count = generate._split(messages, len(FORMATS))[pos]
        extra = generate._split(increment, len(FORMATS))[pos]
        job = generate.ShardJob(format_id, pos, len(FORMATS), 0, 1, count, extra,
                                max(3, count // generate.MESSAGES_PER_KEY), seed, "", "")
        changes = Changes(job)
        render = RENDERERS[format_id]
        if format_id == "debezium_json":  # the key comes from DDL in the stream (generate.py's preamble)
            for i, table in enumerate(generate.TABLES):
                ddl = generate.debezium_ddl(changes.db, table, generate.BASE_TS_MS - 60_000 + i)
                base.append(Record(0, None, ddl.encode(), format_id))
            count -= len(generate.TABLES)
        for seq in range(count + extra):
            change = changes.change(seq)
            value = render(changes.db, change, changes.clock)
            partition, key = _partition_of(format_id, changes.db, change, partitions)
            (base if seq < count else more).append(
                Record(partition, key, value.encode() if isinstance(value, str) else value, format_id)
            )
    # the formats' streams interleave in event time, as generate.py's clock has them
    return _interleave(base, messages), _interleave(more, increment)


def _interleave(records: list[Record], total: int) -> list[Record]:
    """One record of each format in turn, each format's records in their order."""
    streams = [[r for r in records if r.format_id == f] for f in FORMATS]
    out = [r for batch in itertools.zip_longest(*streams) for r in batch if r is not None]
    assert len(out) == total, (len(out), total)
    return out


def with_offsets(records: list[Record], first: dict[int, int]) -> list[tuple[Record, int]]:
    """Each record with the offset the broker gives it (records of a partition are appended in order)."""
    nxt = dict(first)
    out = []
    for record in records:
        offset = nxt.get(record.partition, 0)
        nxt[record.partition] = offset + 1
        out.append((record, offset))
    return out


def write_dump(path: Path, records: list[tuple[Record, int]]) -> Path:
    """A Parquet dump of the topic, as a Kafka connector writes one (ordered by partition, offset)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ordered = sorted(records, key=lambda ro: (ro[0].partition, ro[1]))
    pq.write_table(pa.table({
        "key": pa.array([r.key for r, _ in ordered], pa.binary()),
        "value": pa.array([r.value for r, _ in ordered], pa.binary()),
        "topic": pa.array([TOPIC] * len(ordered), pa.string()),
        "partition": pa.array([r.partition for r, _ in ordered], pa.int32()),
        "offset": pa.array([o for _, o in ordered], pa.int64()),
        "timestamp": pa.array([TS_MS + i for i in range(len(ordered))], pa.int64()),
    }), path)
    return path


def produce(spark, broker: Broker, dump: Path) -> None:
    """Write the dump's records to the broker in its order (one task: offsets follow the dump's)."""
    spark.read.parquet(str(dump)).select("key", "value", "partition").coalesce(1).write.format("kafka").option(
        "kafka.bootstrap.servers", broker.bootstrap
    ).option("topic", TOPIC).save()


# --------------------------------------------------------------------------------------------
# Processes: the catalog, cdc-lake and dbt commands, serve and its query loop
# --------------------------------------------------------------------------------------------


@dataclass
class Run:
    """A finished command: its exit code, seconds and output."""

    args: list[str]
    returncode: int
    seconds: float
    output: str
    lines: list[tuple[float, str]] = field(default_factory=list)
    """Each line of the output with its time (seconds from the start)."""

    def at(self, text: str) -> float | None:
        """When the first line holding `text` came."""
        return next((t for t, line in self.lines if text in line), None)

    def tail(self, lines: int = 25) -> str:
        return "\n".join(self.output.splitlines()[-lines:])


class Commands:
    def __init__(self, root: Path, env: dict[str, str]):
        self.root = root
        self.env = env
        self.builds = 0

    def cdc_lake(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "cdc_lake.cli", *args]

    def dbt(self, schema: str) -> list[str]:
        self.builds += 1
        state = self.root / "dbt" / f"{schema}-{self.builds}"
        return [str(Path(sys.executable).parent / "dbt"), *BUILD, "--project-dir", str(PROJECT_DIR),
                "--target-path", str(state / "target"), "--log-path", str(state / "logs")]

    def env_of(self, schema: str | None) -> dict[str, str]:
        if schema is None:
            return self.env
        return {**self.env, "CDC_LAKE_SCHEMA": schema, "CDC_LAKE_RAW_SCHEMA": f"{schema}_raw"}

    def start(self, args: list[str], schema: str | None) -> subprocess.Popen[str]:
        return subprocess.Popen(args, cwd=PROJECT_DIR, env=self.env_of(schema), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def run(self, args: list[str], schema: str | None = None, timeout: float = 3600) -> Run:
        """Run a command to its end (killed after `timeout` s), each output line with its time."""
        started = time.monotonic()
        process = self.start(args, schema)
        assert process.stdout is not None
        timer = threading.Timer(timeout, _kill_group, [process])
        timer.start()
        lines = [(time.monotonic() - started, line) for line in process.stdout]
        timer.cancel()
        process.wait()
        output = "".join(line for _, line in lines)
        if process.returncode == -signal.SIGKILL:
            output += f"\n(killed after {timeout} s)"
        return Run(args, process.returncode, time.monotonic() - started, output, lines)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


@dataclass
class Report:
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append((name, ok, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}{': ' + detail if detail else ''}", flush=True)
        return ok

    def figure(self, name: str, value: str) -> None:
        self.figures.append((name, value))
        print(f"      {name}: {value}", flush=True)

    def command(self, name: str, run: Run, messages: int | None = None) -> bool:
        rate = f", {messages / run.seconds:,.0f} messages/s" if messages else ""
        self.figure(name, f"{run.seconds:.1f} s{rate}")
        return self.check(f"{name} exits 0", run.returncode == 0,
                          "" if run.returncode == 0 else f"exit {run.returncode}; its output ends:\n{run.tail()}")


def refreshed(spark, *schemas: str):
    """The session, its cached file listings of `schemas`' tables dropped: other processes (land,
    dbt) replaced their files since this session last read them."""
    for schema in schemas:
        for table in spark.catalog.listTables(schema):
            spark.catalog.refreshTable(f"{schema}.{table.name}")
    return spark


def comparable(spark, table: str) -> str:
    """A select of `table`'s columns as texts that compare exactly (maps with sorted keys)."""
    from pyspark.sql.types import MapType

    columns = []
    for f in spark.table(table).schema.fields:
        if f.name in IGNORED_COLUMNS:
            continue
        c = f"`{f.name}`"
        if isinstance(f.dataType, MapType):
            columns.append(f"to_json(map_from_entries(array_sort(map_entries({c})))) as {c}")
        else:
            columns.append(f"to_json(named_struct('v', {c})) as {c}")
    return f"select {', '.join(columns)} from {table}"


def differences(spark, table: str, lake: str, reference: str) -> tuple[int, int, int, int]:
    """(rows of lake, rows of reference, rows only in lake, rows only in reference), multisets."""
    ours, theirs = comparable(spark, f"{lake}.{table}"), comparable(spark, f"{reference}.{table}")
    count = lambda sql: spark.sql(f"select count(*) from ({sql})").first()[0]  # noqa: E731
    return (count(ours), count(theirs), count(f"{ours} except all {theirs}"), count(f"{theirs} except all {ours}"))


def compare_lakes(spark, report: Report, lake: str, reference: str, when: str) -> None:
    refreshed(spark, lake, f"{lake}_raw", reference, f"{reference}_raw")
    for table in ("cdc_current", "cdc_history"):
        n, m, only_ours, only_theirs = differences(spark, table, lake, reference)
        report.check(f"{when}: {table} equals the reference", n == m and only_ours == only_theirs == 0 and n > 0,
                     f"{n:,} rows against {m:,}; {only_ours:,} only in the Kafka lake, {only_theirs:,} only in the reference")


def check_audit(spark, report: Report, lake: str, reference: str, expected: int, when: str) -> None:
    sums = "sum(landed_messages) as landed, sum(quarantined_messages) as quarantined, sum(unaccounted_messages) as unaccounted"
    ours = spark.sql(f"select {sums} from {lake}.cdc_landing_audit").first().asDict()
    theirs = spark.sql(f"select {sums} from {reference}.cdc_landing_audit").first().asDict()
    report.check(f"{when}: cdc_landing_audit accounts for every message",
                 ours["landed"] == expected and ours["unaccounted"] == 0 and ours == theirs,
                 f"Kafka lake {ours}, reference {theirs}, expected landed {expected:,}")


def check_formats(spark, report: Report, lake: str, records: list[Record]) -> None:
    expected = {f: sum(1 for r in records if r.format_id == f) for f in FORMATS}
    found = {r["message_format"]: r["n"] for r in spark.sql(
        f"select message_format, count(*) as n from {lake}_raw.raw_messages group by 1").collect()}
    report.check("--format auto detected each message's format", found == expected, f"{found}")


def check_once(spark, report: Report, lake: str, expected: int, clean: str) -> None:
    refreshed(spark, f"{lake}_raw", f"{clean}_raw")
    row = spark.sql(
        f"select count(*) as n, count(distinct kafka_partition, kafka_offset) as distinct_offsets, "
        f"count(distinct landing_seq) as landings from {lake}_raw.raw_messages"
    ).first()
    report.check("killed then re-run: each (partition, offset) landed once, N in all",
                 row["n"] == row["distinct_offsets"] == expected,
                 f"{row['n']:,} rows, {row['distinct_offsets']:,} distinct offsets, expected {expected:,}; "
                 f"{row['landings']} landing(s)")
    same = f"select message_id, message_hash, message_format from {{}}_raw.raw_messages"
    a, b = same.format(lake), same.format(clean)
    only = [spark.sql(f"select count(*) from ({x} except all {y})").first()[0] for x, y in ((a, b), (b, a))]
    report.check("killed then re-run: the same messages as the clean landing", only == [0, 0],
                 f"{only[0]:,} only after the kill, {only[1]:,} only in the clean landing")


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


@contextmanager
def stopped_at_end(what: str, stop: Callable[[], Any]) -> Iterator[None]:
    try:
        yield
    finally:
        try:
            stop()
        except Exception as exc:  # noqa: BLE001 - report, then stop the rest
            print(f"could not stop {what}: {exc}", file=sys.stderr)


def stop_process(process: subprocess.Popen[str] | None, grace: float = 90) -> None:
    if process is not None and process.poll() is None:
        _kill_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.wait(timeout=30)


def _kill_group(process: subprocess.Popen[str], sig: int = signal.SIGKILL) -> None:
    """Signal the process and its children (its JVM): it was started in a session of its own."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def killed_landing(commands: Commands, report: Report, land_args: list[str], delay: float) -> None:
    """Start the landing of lake kacc_kill, SIGKILL it `delay` s after it starts to write, re-run it."""
    started = time.monotonic()
    first = commands.start(land_args, LAKES["killed"])
    assert first.stdout is not None
    seen: list[str] = []
    try:
        for line in first.stdout:
            seen.append(line)
            if WRITING in line:
                time.sleep(delay)
                break
    finally:
        _kill_group(first)
        first.wait(timeout=60)
    rest = first.stdout.read()
    output = "".join(seen) + rest
    report.figure("killed landing: ran before the kill", f"{time.monotonic() - started:.1f} s ({delay} s after it started to write)")
    report.check("the landing was killed before it committed", first.returncode == -signal.SIGKILL and " committed:" not in output,
                 f"exit {first.returncode}" + ("; it had committed: give a smaller --kill-after" if " committed:" in output else ""))
    rerun = commands.run(land_args, LAKES["killed"])
    report.command("re-run of the killed landing", rerun)
    report.figure("re-run output", " | ".join(line for line in rerun.output.splitlines() if "cdc-lake land" in line or "kafka" in line)[:400])


def live_phase(commands: Commands, report: Report, spark, land_args: list[str], more: int) -> None:
    """serve + a query loop; land --kafka of `more` messages and dbt build at once; one more build."""
    lake = LAKES["kafka"]
    port = _free_port()
    server = subprocess.Popen(
        commands.cdc_lake("serve", "--port", str(port)), cwd=PROJECT_DIR, env=commands.env_of(lake),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    loop = QueryLoop(port, lake)
    with stopped_at_end("cdc-lake serve", lambda: stop_process(server)):
        assert server.stdout is not None
        for line in server.stdout:
            if f"listening on 127.0.0.1:{port}" in line:
                break
        if not report.check("cdc-lake serve started over the catalog", server.poll() is None, f"exit {server.returncode}"):
            return
        threading.Thread(target=server.stdout.read, daemon=True).start()  # drained: a full pipe would block it
        loop.start()
        landings: list[Run] = []
        landing = threading.Thread(target=lambda: landings.append(commands.run(land_args, lake)))
        landing.start()
        build = commands.run(commands.dbt(lake), lake)
        landing.join()
        landed = landings[0]
        report.command("live: land --kafka (while dbt build and the query loop run)", landed, more)
        report.command("live: dbt build (while land --kafka and the query loop run)", build)
        after = commands.run(commands.dbt(lake), lake)
        report.command("live: dbt build after both (while the query loop runs)", after)
        loop.builds_ended.set()
        deadline = time.monotonic() + 60
        while len(loop.answers_after_builds) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        loop.stopping.set()
        loop.join(timeout=60)
    final = refreshed(spark, lake, f"{lake}_raw").sql(f"select (select count(*) from {lake}.cdc_current), (select count(*) from {lake}.cdc_history)").first()
    final_counts = (final[0], final[1])
    during = sorted(set(loop.answers))
    report.figure("query loop", f"{len(loop.answers)} answers during the builds ({len(during)} distinct counts "
                  f"(current, history): {during[:6]}), {len(loop.answers_after_builds)} after, {len(loop.errors)} errors")
    for error in loop.errors[:5]:
        report.figure("query loop error", error)
    transient = [e for e in loop.errors if "FILE_NOT_EXIST" in e and not e.startswith("after builds")]
    report.check("query loop answered during land and build", len(loop.answers) >= 5, f"{len(loop.answers)} answers")
    report.check("query loop: no error but a file replaced under a running query (FILE_NOT_EXIST during a build)",
                 len(transient) == len(loop.errors), f"{len(loop.errors) - len(transient)} other error(s)")
    report.check("query loop: saw the lake change (its first answer is not the final one)",
                 bool(loop.answers) and loop.answers[0] != final_counts, f"first {loop.answers[:1]}, final {final_counts}")
    report.check("query loop: after the builds, every answer is the final count",
                 len(loop.answers_after_builds) >= 3 and set(loop.answers_after_builds) == {final_counts},
                 f"{sorted(set(loop.answers_after_builds))} against {final_counts}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000, help="N, the messages of the acceptance (default 100,000)")
    parser.add_argument("--more", type=int, default=None, help="messages landed while serve runs (default N/20)")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--kill-after", type=float, default=None,
                        help="seconds after the killed landing starts to write (default: a third of the clean landing's time)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (lakes, logs)")
    args = parser.parse_args(argv)
    more = args.more if args.more is not None else max(40, args.messages // 20)

    root = Path(tempfile.mkdtemp(prefix="cdc-lake-kafka-acceptance-"))
    root.chmod(0o755)  # as root the catalog's PostgreSQL runs as `postgres`: it must reach its folder
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PROJECT_DIR / "python"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "PYTHONUNBUFFERED": "1",
        "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
        "CDC_LAKE_WAREHOUSE": str(root / "warehouse"),
        "CDC_LAKE_METASTORE": str(root / "metastore_db"),
        "CDC_LAKE_DBT_STATE": str(root / "dbt"),
        "CDC_LAKE_CATALOG_DIR": str(root / "catalog"),
        "CDC_LAKE_CATALOG_PORT": str(_free_port()),
        "CDC_LAKE_SERVE_LOG": str(root / "thrift-server.log"),
        "CDC_LAKE_DRIVER_MEMORY": os.environ.get("CDC_LAKE_DRIVER_MEMORY", "2g"),
    }
    commands = Commands(root, env)
    report = Report()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_DIR, capture_output=True,
                            text=True, check=False).stdout.strip()
    print(f"kafka acceptance: N = {args.messages:,}, M = {more:,} more, {args.partitions} partitions, "
          f"commit {commit}, folder {root}", flush=True)
    broker = Broker(root)
    try:
        started = time.monotonic()
        broker.start()
        with stopped_at_end("the Kafka broker", broker.stop):
            catalog = commands.run(commands.cdc_lake("catalog", "start"), timeout=600)
            if not report.command("cdc-lake catalog start", catalog):
                return 1
            with stopped_at_end("the catalog", lambda: commands.run(commands.cdc_lake("catalog", "stop"), timeout=300)):
                export = [line for line in catalog.output.splitlines() if line.startswith("export CDC_LAKE_CATALOG_URL=")]
                if not report.check("cdc-lake catalog start prints its export line", len(export) == 1,
                                    "" if len(export) == 1 else catalog.tail(5)):
                    return 1
                env["CDC_LAKE_CATALOG_URL"] = export[0].split("=", 1)[1].strip("'")
                report.figure("broker and catalog started", f"{time.monotonic() - started:.1f} s")
                run_acceptance(args, more, root, env, commands, report, broker)
    except KeyboardInterrupt:
        report.check("the run finished", False, "interrupted")
    except Exception as exc:  # noqa: BLE001 - a failure of the run is a failed check, with its trace
        traceback.print_exc()
        report.check("the run finished", False, f"{type(exc).__name__}: {str(exc)[:300]}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    failed = [name for name, ok, _ in report.checks if not ok]
    print(f"\n{len(report.checks) - len(failed)} of {len(report.checks)} checks passed"
          + (f"; FAILED: {'; '.join(failed)}" if failed else "") + f" (commit {commit}, N = {args.messages:,})")
    return 1 if failed else 0


def run_acceptance(args: argparse.Namespace, more: int, root: Path, env: dict[str, str], commands: Commands,
                   report: Report, broker: Broker) -> None:
    os.environ.update({k: v for k, v in env.items() if k.startswith(("CDC_LAKE_", "PYSPARK"))})
    from cdc_lake.kafka import broker_offsets
    from cdc_lake.spark import get_spark

    started = time.monotonic()
    base, extra = workload(args.messages, more, args.partitions, args.seed)
    base_offsets = with_offsets(base, {})
    ends = {p: sum(1 for r in base if r.partition == p) for p in range(args.partitions)}
    extra_offsets = with_offsets(extra, ends)
    base_dump = write_dump(root / "base.parquet", base_offsets)
    extra_dump = write_dump(root / "more.parquet", extra_offsets)
    report.figure("generated", f"{len(base):,} + {len(extra):,} messages in {time.monotonic() - started:.1f} s; "
                  f"per partition {[ends[p] for p in range(args.partitions)]}; per format "
                  f"{ {f: sum(1 for r in base if r.format_id == f) for f in FORMATS} }")
    spark = get_spark()
    create_topic(spark, broker, TOPIC, args.partitions)
    started = time.monotonic()
    produce(spark, broker, base_dump)
    seconds = time.monotonic() - started
    report.figure("produce", f"{seconds:.1f} s, {len(base) / seconds:,.0f} messages/s")
    offsets = broker_offsets(spark, broker.bootstrap, [TOPIC], 30)
    report.check("the broker holds N messages, the dump's offsets",
                 {p: end for (_, p), (_, end) in offsets.items()} == ends, f"{dict(sorted(offsets.items()))}")

    land_args = commands.cdc_lake("land", "--format", "auto", "--kafka", broker.bootstrap, "--topic", TOPIC)
    kafka, reference = LAKES["kafka"], LAKES["reference"]
    landed = commands.run(land_args, kafka)
    report.command("land --kafka", landed, len(base))
    built = commands.run(commands.dbt(kafka), kafka)
    report.command("dbt build of the Kafka lake", built)
    again = commands.run(land_args, kafka)
    report.command("land --kafka again (nothing new)", again)
    report.check("land --kafka again lands nothing", "kafka topic cdc_acceptance: nothing new" in again.output, again.tail(3))
    ref_landed = commands.run(commands.cdc_lake("land", "--format", "auto", str(base_dump)), reference)
    report.command("reference: land the Parquet dump", ref_landed, len(base))
    ref_built = commands.run(commands.dbt(reference), reference)
    report.command("reference: dbt build", ref_built)
    if landed.returncode == built.returncode == ref_landed.returncode == ref_built.returncode == 0:
        check_formats(spark, report, kafka, base)
        compare_lakes(spark, report, kafka, reference, "after land --kafka + build")
        check_audit(spark, report, kafka, reference, len(base), "after land --kafka + build")

    writing, committed = landed.at(WRITING), landed.at(" committed:")
    if writing is not None and committed is not None:
        report.figure("land --kafka: from its first line to the write, the write and commit",
                      f"{writing:.1f} s, {committed - writing:.1f} s")
    delay = args.kill_after if args.kill_after is not None else round((committed - writing) / 2 if writing and committed else 5.0, 1)
    killed_landing(commands, report, land_args, delay)
    check_once(spark, report, LAKES["killed"], len(base), kafka)

    started = time.monotonic()
    produce(spark, broker, extra_dump)
    report.figure("produce M more", f"{time.monotonic() - started:.1f} s")
    live_phase(commands, report, spark, land_args, len(extra))
    ref_more = commands.run(commands.cdc_lake("land", "--format", "auto", str(extra_dump)), reference)
    report.command("reference: land the M more from a dump", ref_more, len(extra))
    ref_build = commands.run(commands.dbt(reference), reference)
    report.command("reference: dbt build of the M more", ref_build)
    if ref_more.returncode == ref_build.returncode == 0:
        compare_lakes(spark, report, kafka, reference, "after the live phase")
        check_audit(spark, report, kafka, reference, len(base) + len(extra), "after the live phase")


if __name__ == "__main__":
    sys.exit(main())
