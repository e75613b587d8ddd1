"""Generate a deterministic CDC message workload for the benchmark (see benchmarks/run.py).

    python benchmarks/generate.py --messages 1000000 --out benchmarks/out/data

writes, for every JSON format id that has a staging model (the `cdc_formats` var of
dbt_project.yml, or --formats):

    OUT/base/<format>.jsonl          N messages in all, split evenly over the formats
    OUT/increment-<n>/<format>.jsonl increment n of --increments (default 1), about N/100 messages
                                     each: later changes, some late-arriving older changes and
                                     some duplicates of base messages
    OUT/manifest.json                counts per format (increment n's as increment_<n>, the
                                     live rows after it as live_rows_<n>), keys, seed, settings

Each format writes to its own database (`bench_<format>`) with the same three tables: `orders` and
`customers` keyed by `id`, `order_lines` keyed by (`order_id`, `line_no`). There are about N/10
keys; every key goes through insert, updates, deletes and re-inserts. Decimals are exact texts
(`amount` 18,2, `balance` 30,10 with 20 integer digits, `price` 12,4). Canal and CloudCanal batch
several rows of one statement into one message. Formats whose messages do not name key columns get
the key from DDL in the stream: Debezium from a schema-change event, CKafka format one and
SharePlex from a Canal-shaped CREATE TABLE (the CKafka DDL shape), as a user's stream would carry.

The output depends only on --messages, --seed, --formats, --increment-fraction and --increments (not
on --jobs):
each format is split into fixed shards of at most SHARD_MESSAGES messages, generated in parallel.
Messages are rendered from string templates, not json.dumps, to keep N = 10,000,000 feasible.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
SHARD_MESSAGES = 500_000
BASE_TS_MS = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC
STEP_MS = 100  # between two consecutive messages of the whole workload
MESSAGES_PER_KEY = 10
LATE_SHARE = 0.05  # of the increment: changes whose event time lies in the base period
DUPLICATE_SHARE = 0.03  # of the increment: base messages delivered again, byte for byte
MULTI_ROW_SHARE = 0.2  # of Canal/CloudCanal messages: 2-4 rows of one statement
DELETE_SHARE = 0.12  # of the changes of a live key
SHANGHAI_OFFSET_MS = 8 * 3600 * 1000  # CKafka format one writes TIME in the source's local time


# --------------------------------------------------------------------------------------------
# Tables and rows
# --------------------------------------------------------------------------------------------

NOTES = [
    "",
    "gift wrap",
    "leave at the door",
    'say "hi"',
    "back\\slash",
    "第二件半价",
    "naïve café",
    "line one\nline two",
    "tab\there",
    "emoji 🚀",
]
NAMES = ["Ann", "Bob", "Chen Wei", "Dana", "Émile", "Fatima", "小明", "O'Neil"]
STATUSES = ["NEW", "PAID", "SHIPPED", "DONE", "CANCELLED"]
_ENCODED = {text: json.dumps(text, ensure_ascii=False) for text in NOTES + NAMES + STATUSES}


def q(value: str | None) -> str:
    """A value as a JSON string literal (null for None)."""
    if value is None:
        return "null"
    encoded = _ENCODED.get(value)
    return encoded if encoded is not None else '"' + value + '"'


@dataclass(frozen=True)
class Column:
    name: str
    mysql_type: str
    jdbc_type: int
    kind: str  # int, dec, str, dt
    light_type: str  # OMS schemaType


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    key: tuple[int, ...]  # column positions

    @property
    def key_names(self) -> list[str]:
        return [self.columns[i].name for i in self.key]


TABLES = (
    Table(
        "orders",
        (
            Column("id", "bigint(20)", -5, "int", "BIGINT"),
            Column("customer_id", "bigint(20)", -5, "int", "BIGINT"),
            Column("amount", "decimal(18,2)", 3, "dec", "DECIMAL"),
            Column("status", "varchar(16)", 12, "str", "VARCHAR"),
            Column("note", "varchar(255)", 12, "str", "VARCHAR"),
            Column("updated_at", "datetime", 93, "dt", "DATETIME"),
        ),
        (0,),
    ),
    Table(
        "customers",
        (
            Column("id", "bigint(20)", -5, "int", "BIGINT"),
            Column("name", "varchar(64)", 12, "str", "VARCHAR"),
            Column("email", "varchar(128)", 12, "str", "VARCHAR"),
            Column("balance", "decimal(30,10)", 3, "dec", "DECIMAL"),
            Column("created_at", "datetime", 93, "dt", "DATETIME"),
        ),
        (0,),
    ),
    Table(
        "order_lines",
        (
            Column("order_id", "bigint(20)", -5, "int", "BIGINT"),
            Column("line_no", "int(11)", 4, "int", "INT"),
            Column("sku", "varchar(32)", 12, "str", "VARCHAR"),
            Column("qty", "int(11)", 4, "int", "INT"),
            Column("price", "decimal(12,4)", 3, "dec", "DECIMAL"),
        ),
        (0, 1),
    ),
)


def table_of_key(local_key: int, shard: int, shards: int) -> tuple[Table, list[str]]:
    """The table of a shard's key number `local_key` and its key column texts (unique over shards)."""
    table = TABLES[local_key % 3]
    j = (local_key // 3) * shards + shard
    if table.name == "order_lines":
        return table, [str(j // 4 + 1), str(j % 4 + 1)]
    return table, [str(j + 1)]


class Clock:
    """Epoch milliseconds to datetime text, cached per second (messages come 100 ms apart)."""

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def datetime(self, ts_ms: int, sep: str = " ") -> str:
        second = ts_ms // 1000
        if second != self._second:
            self._second = second
            self._text = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(second))
        return self._text if sep == " " else self._text.replace(" ", sep)


def new_row(rng: random.Random, table: Table, key_values: list[str], when: str) -> list[str | None]:
    if table.name == "orders":
        cents = rng.randrange(1, 10_000_000)
        return [
            key_values[0],
            str(rng.randrange(1, 100_000)),
            f"{cents // 100}.{cents % 100:02d}",
            "NEW",
            rng.choice(NOTES) if rng.random() < 0.7 else None,
            when,
        ]
    if table.name == "customers":
        return [
            key_values[0],
            rng.choice(NAMES),
            f"user{key_values[0]}@example.com",
            f"{rng.randrange(10**19, 10**20)}.{rng.randrange(10**10):010d}",
            when,
        ]
    units = rng.randrange(1, 10_000_000)
    return [
        key_values[0],
        key_values[1],
        f"SKU-{rng.randrange(100000):05d}",
        str(rng.randrange(1, 50)),
        f"{units // 10000}.{units % 10000:04d}",
    ]


def changed_row(
    rng: random.Random, table: Table, row: list[str | None], when: str
) -> tuple[list[str | None], list[int]]:
    """A new version of `row` and the positions of the columns that changed."""
    new = list(row)
    if table.name == "orders":
        choice = rng.random()
        changed = [3, 5]
        new[3] = rng.choice(STATUSES)
        if choice < 0.5:
            cents = rng.randrange(1, 10_000_000)
            new[2] = f"{cents // 100}.{cents % 100:02d}"
            changed.insert(0, 2)
        elif choice < 0.7:
            new[4] = None if row[4] is not None and rng.random() < 0.5 else rng.choice(NOTES)
            changed.insert(1, 4)
        new[5] = when
    elif table.name == "customers":
        new[3] = f"{rng.randrange(10**19, 10**20)}.{rng.randrange(10**10):010d}"
        changed = [3]
        if rng.random() < 0.3:
            new[1] = rng.choice(NAMES)
            changed.insert(0, 1)
    else:
        new[3] = str(rng.randrange(1, 50))
        changed = [3]
        if rng.random() < 0.4:
            units = rng.randrange(1, 10_000_000)
            new[4] = f"{units // 10000}.{units % 10000:04d}"
            changed.append(4)
    changed = [i for i in changed if new[i] != row[i]]
    return new, changed


@dataclass
class Change:
    """One message's worth of row changes (several rows only for batching formats)."""

    op: str  # insert, update, delete
    table: Table
    rows: list[tuple[list[str | None] | None, list[str | None] | None, list[int]]]  # before, after, changed
    ts_ms: int
    seq: int  # position in the source log, increasing with the change's place in the stream


# --------------------------------------------------------------------------------------------
# Renderers: one function per format, Change -> one JSON line
# --------------------------------------------------------------------------------------------


def _obj_str(table: Table, row: list[str | None]) -> str:
    """A row as a JSON object of strings (null stays null)."""
    return "{" + ",".join(f'"{c.name}":{q(v)}' for c, v in zip(table.columns, row)) + "}"


def _obj_typed(table: Table, row: list[str | None], bare_decimals: bool) -> str:
    """A row as a JSON object with bare integers (and decimals when asked)."""
    parts = []
    for c, v in zip(table.columns, row):
        if v is not None and (c.kind == "int" or (bare_decimals and c.kind == "dec")):
            parts.append(f'"{c.name}":{v}')
        else:
            parts.append(f'"{c.name}":{q(v)}')
    return "{" + ",".join(parts) + "}"


def _type_map(table: Table, attr: str) -> str:
    return "{" + ",".join(f'"{c.name}":{json.dumps(getattr(c, attr))}' for c in table.columns) + "}"


_MYSQL_TYPES = {t.name: _type_map(t, "mysql_type") for t in TABLES}
_JDBC_TYPES = {t.name: _type_map(t, "jdbc_type") for t in TABLES}
_PK_NAMES = {t.name: json.dumps(t.key_names) for t in TABLES}


def create_table_sql(database: str, table: Table) -> str:
    cols = ", ".join(f"`{c.name}` {c.mysql_type}" for c in table.columns)
    keys = ", ".join(f"`{n}`" for n in table.key_names)
    return f"CREATE TABLE `{database}`.`{table.name}` ({cols}, PRIMARY KEY ({keys}))"


def canal_create_table(database: str, table: Table, ts_ms: int) -> str:
    """Canal FlatMessage CREATE TABLE (also the shape CKafka uses for DDL)."""
    return (
        f'{{"data":null,"database":"{database}","es":{ts_ms},"id":0,"isDdl":true,"mysqlType":null,'
        f'"old":null,"pkNames":null,"sql":{json.dumps(create_table_sql(database, table))},'
        f'"sqlType":null,"table":"{table.name}","ts":{ts_ms + 50},"type":"CREATE"}}'
    )


def render_canal_json(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    data = ",".join(_obj_str(t, (after if after is not None else before)) for before, after, _ in ch.rows)
    if ch.op == "update":
        olds = []
        for before, _after, changed in ch.rows:
            olds.append("{" + ",".join(f'"{t.columns[i].name}":{q(before[i])}' for i in changed) + "}")
        old = "[" + ",".join(olds) + "]"
    else:
        old = "null"
    return (
        f'{{"data":[{data}],"database":"{db}","es":{ch.ts_ms},"id":{ch.seq},"isDdl":false,'
        f'"mysqlType":{_MYSQL_TYPES[t.name]},"old":{old},"pkNames":{_PK_NAMES[t.name]},"sql":"",'
        f'"sqlType":{_JDBC_TYPES[t.name]},"table":"{t.name}","ts":{ch.ts_ms + 120},'
        f'"type":"{ch.op.upper()}"}}'
    )


def _debezium_schema(t: Table) -> str:
    kinds = {"int": "int64", "dec": "string", "str": "string", "dt": "string"}
    fields = [
        {"type": kinds[c.kind], "optional": i not in t.key, "field": c.name}
        for i, c in enumerate(t.columns)
    ]
    value = {"type": "struct", "optional": True, "name": f"bench.{t.name}.Value", "fields": fields}
    return json.dumps(
        {
            "type": "struct",
            "name": f"bench.{t.name}.Envelope",
            "optional": False,
            "fields": [
                {**value, "field": "before"},
                {**value, "field": "after"},
                {"type": "struct", "optional": False, "field": "source", "fields": []},
                {"type": "string", "optional": False, "field": "op"},
                {"type": "int64", "optional": True, "field": "ts_ms"},
            ],
        },
        separators=(",", ":"),
    )


_DEBEZIUM_SCHEMAS = {t.name: _debezium_schema(t) for t in TABLES}
_DEBEZIUM_OPS = {"insert": "c", "update": "u", "delete": "d"}


def debezium_ddl(db: str, table: Table, ts_ms: int) -> str:
    """A Debezium schema-change event (the key comes from tableChanges)."""
    columns = [
        {"name": c.name, "jdbcType": c.jdbc_type, "typeName": c.mysql_type.split("(")[0].upper(), "position": i + 1}
        for i, c in enumerate(table.columns)
    ]
    return json.dumps(
        {
            "source": {"version": "2.5.0.Final", "connector": "mysql", "name": "bench", "ts_ms": ts_ms,
                       "db": db, "table": table.name, "file": "mysql-bin.000001", "pos": 0},
            "databaseName": db,
            "ddl": create_table_sql(db, table),
            "tableChanges": [{"type": "CREATE", "id": f'"{db}"."{table.name}"',
                              "table": {"primaryKeyColumnNames": table.key_names, "columns": columns}}],
            "ts_ms": ts_ms,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def render_debezium_json(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    before, after, _ = ch.rows[0]
    b = _obj_typed(t, before, False) if before is not None and ch.op != "insert" else "null"
    a = _obj_typed(t, after, False) if after is not None and ch.op != "delete" else "null"
    payload = (
        f'"before":{b},"after":{a},"source":{{"version":"2.5.0.Final","connector":"mysql",'
        f'"name":"bench","ts_ms":{ch.ts_ms},"snapshot":"false","db":"{db}","table":"{t.name}",'
        f'"server_id":1,"gtid":null,"file":"mysql-bin.000001","pos":{ch.seq},"row":0}},'
        f'"op":"{_DEBEZIUM_OPS[ch.op]}","ts_ms":{ch.ts_ms + 7}'
    )
    if (ch.seq // 10) % 10 == 3:  # one message in ten carries its schema (JsonConverter schemas.enable)
        return f'{{"schema":{_DEBEZIUM_SCHEMAS[t.name]},"payload":{{{payload}}}}}'
    return "{" + payload + "}"


def render_kafka_river_canal(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    before, after, changed = ch.rows[0]
    row = after if ch.op != "delete" else before
    cols = []
    for i, c in enumerate(t.columns):
        v = row[i]
        text = f'{{"n":"{c.name}","t":"{c.mysql_type}","v":{q(v if v is not None else "")},"null":{"true" if v is None else "false"}'
        if ch.op == "update":
            if i in changed:
                text += f',"origin_val":{q(before[i])},"updated":true'
            else:
                text += ',"updated":false'
        cols.append(text + "}")
    return (
        f'{{"binlog":"{ch.seq}@mysql-bin.000001","time":{ch.ts_ms},"canalTime":{ch.ts_ms + 300},'
        f'"db":"{db}","table":"{t.name}","event":"{ch.op[0]}","columns":[{",".join(cols)}],'
        f'"keys":{_PK_NAMES[t.name]}}}'
    )


def render_cloudcanal_json(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    if ch.op == "update":
        before = "[" + ",".join(_obj_str(t, b) for b, _, _ in ch.rows) + "]"
    else:
        before = "[]"
    data = ",".join(_obj_str(t, a if a is not None else b) for b, a, _ in ch.rows)
    return (
        f'{{"action":"{ch.op.upper()}","before":{before},"bid":{ch.seq // 7},"data":[{data}],'
        f'"db":"{db}","dbValType":{_MYSQL_TYPES[t.name]},"isDdl":false,"entryType":"ROWDATA",'
        f'"execTs":{ch.ts_ms},"jdbcType":{_JDBC_TYPES[t.name]},"pks":{_PK_NAMES[t.name]},'
        f'"schema":"{db}","sendTs":{ch.ts_ms + 250},"sql":"","table":"{t.name}"}}'
    )


_CKAFKA_TYPES = {"insert": "I", "update": "U", "delete": "D"}


def render_ckafka_format_one(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    before, after, _ = ch.rows[0]
    new = _obj_str(t, after) if ch.op != "delete" else "null"
    old = _obj_str(t, before) if ch.op != "insert" else "null"
    local = clock.datetime(ch.ts_ms + SHANGHAI_OFFSET_MS)
    stamp = local[0:4] + local[5:7] + local[8:10] + local[11:13] + local[14:16] + local[17:19]
    return (
        f'{{"BINLOG_NAME":"mysql-bin.000001","BINLOG_POS":{ch.seq},"DATABASE":"{db}",'
        f'"EVENT_SERVER_ID":null,"GLOBAL_ID":null,"GROUP_ID":null,"NEW_VALUES":{new},'
        f'"OLD_VALUES":{old},"TABLE":"{t.name}","TIME":"{stamp}","TYPE":"{_CKAFKA_TYPES[ch.op]}"}}'
    )


def _light_types(t: Table) -> str:
    return "{" + ",".join(f'"{c.name}":{{"schemaType":"{c.light_type}"}}' for c in t.columns) + "}"


_LIGHT_TYPES = {t.name: _light_types(t) for t in TABLES}
_SEP = "\\u0001"  # OMS joins multi-column key names and values with U+0001 (escaped in JSON)


def _oms_default(db: str, ch: Change, extend: bool) -> str:
    t = ch.table
    before, after, _ = ch.rows[0]
    key_values = _SEP.join((after if after is not None else before)[i] for i in t.key)
    light = f',"__light_type":{_LIGHT_TYPES[t.name]}' if extend else ""
    prev = _obj_typed(t, before, True)[:-1] + light + "}" if ch.op != "insert" else "null"
    post = _obj_typed(t, after, True)[:-1] + light + "}" if ch.op != "delete" else "null"
    return (
        f'{{"allMetaData":{{"checkpoint":"{ch.ts_ms // 1000}","record_primary_key":"{_SEP.join(t.key_names)}",'
        f'"source_identity":null,"record_primary_value":"{key_values}","dbType":"OB_MYSQL",'
        f'"storeDataSequence":"{ch.ts_ms // 1000}{ch.seq % 100000:05d}","table_name":"{t.name}",'
        f'"db":"bench_tenant.{db}","timestamp":"{ch.ts_ms // 1000}"}},"prevStruct":{prev},'
        f'"recordType":"{ch.op.upper()}","postStruct":{post}}}'
    )


def render_oms_default(db: str, ch: Change, clock: Clock) -> str:
    return _oms_default(db, ch, False)


def render_oms_extend_column_type(db: str, ch: Change, clock: Clock) -> str:
    return _oms_default(db, ch, True)


def _dataworks_schema(t: Table) -> str:
    columns = ",".join(f'{{"name":"{c.name}","type":"{c.light_type}"}}' for c in t.columns)
    return f'"column":[{columns}],"pk":{_PK_NAMES[t.name]}'


_DATAWORKS_SCHEMAS = {t.name: _dataworks_schema(t) for t in TABLES}


def render_oms_dataworks(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    before, after, _ = ch.rows[0]
    b = f'{{"data":{_obj_typed(t, before, True)}}}' if ch.op != "insert" else "null"
    a = f'{{"data":{_obj_typed(t, after, True)}}}' if ch.op != "delete" else "null"
    return (
        f'{{"version":"2.0","schema":{{"source":{{"dbType":"ob_mysql","dbVersion":null,'
        f'"dbName":"{db}","schema":null,"table":"{t.name}"}},{_DATAWORKS_SCHEMAS[t.name]}}},'
        f'"payload":{{"before":{b},"after":{a},"op":"{ch.op.upper()}","timestamp":{{'
        f'"eventTime":{ch.ts_ms},"systemTime":{ch.ts_ms + 600},"checkpointTime":{ch.ts_ms // 1000}}},'
        f'"ddl":null,"scn":"{ch.seq}"}},"extend":{{}}}}'
    )


_SHAREPLEX_OPS = {"insert": "ins", "update": "upd", "delete": "del"}


def render_oms_shareplex(db: str, ch: Change, clock: Clock) -> str:
    t = ch.table
    before, after, changed = ch.rows[0]
    if ch.op == "update":
        data = "{" + ",".join(f'"{t.columns[i].name}":{q(after[i])}' for i in changed) + "}"
        key = _obj_typed(t, before, True)
    else:
        data = _obj_typed(t, after if ch.op == "insert" else before, True)
        key = "{}"
    row = after if after is not None else before
    rowid = _SEP.join(row[i] for i in t.key)
    stamp = clock.datetime(ch.ts_ms, "T")
    return (
        f'{{"data":{data},"meta":{{"posttime":"{stamp}","op":"{_SHAREPLEX_OPS[ch.op]}","size":1,'
        f'"time":"{stamp}","idx":"1/1","seq":1,"table":"{db}.{t.name}",'
        f'"rowid":"{db}.{t.name}-{rowid}","trans":"tx{ch.seq // 5}","scn":"{ch.seq}"}},"key":{key}}}'
    )


RENDERERS = {
    "canal_json": render_canal_json,
    "debezium_json": render_debezium_json,
    "kafka_river_canal": render_kafka_river_canal,
    "cloudcanal_json": render_cloudcanal_json,
    "ckafka_format_one": render_ckafka_format_one,
    "oms_default": render_oms_default,
    "oms_extend_column_type": render_oms_extend_column_type,
    "oms_dataworks": render_oms_dataworks,
    "oms_shareplex": render_oms_shareplex,
}
BATCHING_FORMATS = {"canal_json", "cloudcanal_json"}
# DDL at the start of the stream: where the key comes from for formats that name no key columns.
DDL_PREAMBLE = {
    "debezium_json": debezium_ddl,
    "ckafka_format_one": canal_create_table,
    "oms_shareplex": canal_create_table,
}


def database_of(format_id: str) -> str:
    return f"bench_{format_id}"


def source_database_of(format_id: str) -> str:
    """The database as cdc-lake reports it (OMS Default names OceanBase databases "tenant.database")."""
    if format_id in ("oms_default", "oms_extend_column_type"):
        return f"bench_tenant.{database_of(format_id)}"
    return database_of(format_id)


# --------------------------------------------------------------------------------------------
# One shard: a disjoint set of keys and a share of the messages of one format
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardJob:
    format_id: str
    format_pos: int
    format_count: int
    shard: int
    shards: int
    messages: int  # base messages of this shard
    increment: int  # messages of each increment of this shard
    keys: int  # keys of this shard
    seed: int
    base_path: str
    increment_path: str  # with {n}: the increment's number, 1 to `increments`
    increments: int = 1


class ShardGenerator:
    def __init__(self, job: ShardJob) -> None:
        self.job = job
        self.rng = random.Random((job.seed * 1_000_003 + zlib.crc32(job.format_id.encode())) * 257 + job.shard)
        self.render = RENDERERS[job.format_id]
        self.db = database_of(job.format_id)
        self.clock = Clock()
        self.rows: dict[int, list[str | None]] = {}  # live rows by local key number
        self.last_seq: dict[int, int] = {}  # log position of each key's latest change
        self.batching = job.format_id in BATCHING_FORMATS

    def ts_of(self, local_seq: int) -> int:
        """Event time of the shard's local_seq-th message: formats and shards interleave."""
        job = self.job
        global_seq = (local_seq * job.shards + job.shard) * job.format_count + job.format_pos
        return BASE_TS_MS + global_seq * STEP_MS

    def change(
        self, local_seq: int, ts_ms: int | None = None, seq: int | None = None, late: bool = False
    ) -> Change:
        rng = self.rng
        local_key = rng.randrange(self.job.keys)
        for _ in range(100):
            if not late or (local_key in self.rows and self.last_seq[local_key] >= 10):
                break
            local_key = rng.randrange(self.job.keys)
        table, _ = table_of_key(local_key, self.job.shard, self.job.shards)
        if late:
            # a change delivered late: its place in the log lies before the key's latest change,
            # so it becomes an older version and the current row stays the same
            earlier = rng.randrange(max(1, self.last_seq.get(local_key, 0) // 10))
            ts_ms, seq = self.ts_of(earlier) + 37, earlier * 10 + 5
        ts_ms = self.ts_of(local_seq) if ts_ms is None else ts_ms
        seq = local_seq * 10 if seq is None else seq
        when = self.clock.datetime(ts_ms)
        current = self.rows.get(local_key)
        if current is None:
            op = "insert"
        else:
            op = "delete" if rng.random() < DELETE_SHARE else "update"
        keys = [local_key]
        if self.batching and rng.random() < MULTI_ROW_SHARE:
            for _ in range(rng.randrange(1, 4)):
                other = rng.randrange(max(1, self.job.keys // 3)) * 3 + local_key % 3  # same table
                if other in keys or other >= self.job.keys:
                    continue
                if (self.rows.get(other) is None) == (op == "insert") and (
                    not late or self.last_seq.get(other, -1) > seq
                ):
                    keys.append(other)
        rows = []
        for k in keys:
            if not late:
                self.last_seq[k] = seq
            _, values = table_of_key(k, self.job.shard, self.job.shards)
            before = self.rows.get(k)
            if op == "insert":
                after = new_row(rng, table, values, when)
                rows.append((None, after, []))
                if not late:
                    self.rows[k] = after
            elif op == "update":
                after, changed = changed_row(rng, table, before, when)
                rows.append((before, after, changed))
                if not late:
                    self.rows[k] = after
            else:
                rows.append((before, None, []))
                if not late:
                    del self.rows[k]
        return Change(op, table, rows, ts_ms, seq)

    def late_change(self, local_seq: int) -> Change:
        """An update or delete of a live key delivered late (see change(late=True)); it is not
        applied to self.rows, which stay the latest versions."""
        return self.change(local_seq, late=True)

    def run(self) -> dict[str, int]:
        job = self.job
        counts = {"base": 0, "base_rows": 0, "ddl": 0}
        duplicate_count = int(job.increment * DUPLICATE_SHARE)
        late_count = int(job.increment * LATE_SHARE)
        # the base messages each increment delivers again, drawn before the base is written
        keeps = [
            set(self.rng.sample(range(job.messages), min(duplicate_count, job.messages)))
            for _ in range(job.increments)
        ]
        kept: list[list[str]] = [[] for _ in keeps]
        buffer: list[str] = []
        with open(job.base_path, "w", encoding="utf-8", newline="\n") as out:
            if job.shard == 0 and job.format_id in DDL_PREAMBLE:
                for i, table in enumerate(TABLES):
                    buffer.append(DDL_PREAMBLE[job.format_id](self.db, table, BASE_TS_MS - 60_000 + i))
                    counts["ddl"] += 1
            for local_seq in range(job.messages):
                change = self.change(local_seq)
                line = self.render(self.db, change, self.clock)
                buffer.append(line)
                counts["base_rows"] += len(change.rows)
                for keep, lines in zip(keeps, kept):
                    if local_seq in keep:
                        lines.append(line)
                if len(buffer) >= 20000:
                    out.write("\n".join(buffer) + "\n")
                    buffer.clear()
            if buffer:
                out.write("\n".join(buffer) + "\n")
                buffer.clear()
        counts["base"] = job.messages + counts["ddl"]
        counts["live_rows_base"] = len(self.rows)
        next_seq = job.messages
        for number, duplicates in enumerate(kept, start=1):
            next_seq = self.write_increment(number, next_seq, late_count, duplicates, counts)
        return counts

    def write_increment(
        self, number: int, first_seq: int, late_count: int, duplicates: list[str], counts: dict[str, int]
    ) -> int:
        """Write increment `number`: fresh changes from log position `first_seq` on, `late_count`
        late ones and the `duplicates`, shuffled; count them in `counts`; return the next position."""
        job = self.job
        fresh = max(0, job.increment - len(duplicates) - late_count)
        lines: list[str] = []
        rows = 0
        for i in range(fresh):
            change = self.change(first_seq + i)
            lines.append(self.render(self.db, change, self.clock))
            rows += len(change.rows)
        for i in range(late_count):
            change = self.late_change(first_seq + fresh + i)
            lines.append(self.render(self.db, change, self.clock))
            rows += len(change.rows)
        lines.extend(duplicates)
        self.rng.shuffle(lines)  # late and duplicate messages arrive among the fresh ones
        with open(job.increment_path.format(n=number), "w", encoding="utf-8", newline="\n") as out:
            if lines:
                out.write("\n".join(lines) + "\n")
        counts[f"increment_{number}"] = len(lines)
        counts[f"increment_{number}_rows"] = rows
        counts[f"increment_{number}_late"] = late_count
        counts[f"increment_{number}_duplicates"] = len(duplicates)
        counts[f"live_rows_{number}"] = len(self.rows)
        return first_seq + fresh + late_count


def _run_shard(job: ShardJob) -> tuple[ShardJob, dict[str, int]]:
    return job, ShardGenerator(job).run()


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def project_formats() -> list[str]:
    """The JSON formats that have a staging model now (dbt_project.yml var cdc_formats)."""
    import yaml

    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())
    configured = project.get("vars", {}).get("cdc_formats", [])
    return [f for f in configured if f in RENDERERS]


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def generate(
    messages: int,
    out: Path,
    formats: list[str],
    *,
    seed: int = 42,
    increment_fraction: float = 0.01,
    increments: int = 1,
    jobs: int | None = None,
) -> dict:
    """Write OUT/base/<format>.jsonl, OUT/increment-<n>/<format>.jsonl (n = 1 to `increments`)
    and OUT/manifest.json."""
    unknown = [f for f in formats if f not in RENDERERS]
    if unknown:
        raise SystemExit(f"no generator for {', '.join(unknown)}; known: {', '.join(RENDERERS)}")
    started = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    parts_dir = out / "parts"
    kinds = ["base", *(f"increment-{n}" for n in range(1, increments + 1))]
    for sub in (*kinds, "parts"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    per_format = _split(messages, len(formats))
    increment_per_format = _split(round(messages * increment_fraction), len(formats))
    shard_jobs: list[ShardJob] = []
    for pos, format_id in enumerate(formats):
        shards = max(1, -(-per_format[pos] // SHARD_MESSAGES))
        keys = _split(max(shards * 3, per_format[pos] // MESSAGES_PER_KEY), shards)
        for shard, (count, increment) in enumerate(
            zip(_split(per_format[pos], shards), _split(increment_per_format[pos], shards))
        ):
            shard_jobs.append(
                ShardJob(
                    format_id, pos, len(formats), shard, shards, count, increment, max(3, keys[shard]),
                    seed,
                    str(parts_dir / f"{format_id}.base.{shard:04d}.jsonl"),
                    str(parts_dir / f"{format_id}.increment-{{n}}.{shard:04d}.jsonl"),
                    increments,
                )
            )
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(shard_jobs) > 1:
        with multiprocessing.Pool(min(jobs, len(shard_jobs))) as pool:
            results = pool.map(_run_shard, shard_jobs, chunksize=1)
    else:
        results = [_run_shard(job) for job in shard_jobs]
    manifest: dict = {
        "messages": messages,
        "seed": seed,
        "increment_fraction": increment_fraction,
        "increments": increments,
        "formats": {},
    }
    for format_id in formats:
        mine = [(job, counts) for job, counts in results if job.format_id == format_id]
        for kind in kinds:
            with open(out / kind / f"{format_id}.jsonl", "wb") as target:
                for job, _ in mine:
                    path = job.base_path if kind == "base" else job.increment_path.format(n=kind.split("-")[1])
                    with open(path, "rb") as part:
                        shutil.copyfileobj(part, target, 1 << 22)
        totals: dict[str, int] = {"keys": sum(job.keys for job, _ in mine)}
        for _, counts in mine:
            for name, value in counts.items():
                totals[name] = totals.get(name, 0) + value
        totals["database"] = source_database_of(format_id)
        manifest["formats"][format_id] = totals
    shutil.rmtree(parts_dir)
    manifest["base_messages"] = sum(f["base"] for f in manifest["formats"].values())
    manifest["increment_messages"] = [
        sum(f[f"increment_{n}"] for f in manifest["formats"].values()) for n in range(1, increments + 1)
    ]
    manifest["keys"] = sum(f["keys"] for f in manifest["formats"].values())
    manifest["seconds"] = round(time.monotonic() - started, 1)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000, help="base messages N (default 1,000,000)")
    parser.add_argument("--out", type=Path, default=PROJECT_DIR / "benchmarks" / "out" / "data")
    parser.add_argument(
        "--formats",
        default="",
        help="comma-separated format ids (default: the JSON formats in dbt_project.yml var cdc_formats)",
    )
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--increment-fraction", type=float, default=0.01, help="increment size / N (default 0.01)")
    parser.add_argument("--increments", type=int, default=1, help="successive increments (default 1)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU count)")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()] or project_formats()
    manifest = generate(
        args.messages,
        args.out,
        formats,
        seed=args.seed,
        increment_fraction=args.increment_fraction,
        increments=args.increments,
        jobs=args.jobs,
    )
    increments = " + ".join(f"{m:,}" for m in manifest["increment_messages"])
    print(
        f"generated {manifest['base_messages']:,} base + {increments} increment messages, "
        f"{manifest['keys']:,} keys, formats {', '.join(formats)} in {manifest['seconds']}s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
