"""Typed tables: cdc_columns, cdc_typed_current / cdc_typed_history, cdc_conversion_failures, cdc_tables.

One scenario, one dbt build for the module. The typed tables are what an analyst's one-line model
gives: after the build, the macros are compiled with `dbt compile --inline` (they read cdc_columns at
execution time, as in a model) and the SQL is run, so no model file is added to the project.

Covered: the typed value of every type in the format documents' examples (Canal mysqlType/sqlType
of 000 and of the OMS Canal variant in 004, KafkaRiverCanal `t` of 001), OMS __light_type and
Dataworks types (004's types, in messages whose column names match their types: the 004 examples
name other columns in their type lists than in their rows and their keys are not in the rows),
Debezium logical types (a schema written here), DDL text types; ADD/MODIFY/DROP COLUMN mid-stream;
a column missing from the latest schema; type widening; table RENAME/ERASE/TRUNCATE; conversion
failures; DDL classification.
"""

from __future__ import annotations

import base64
import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import doc_example, write_jsonl, write_kafka_parquet

MARKER = "-- @@typed-query@@"


def canal(type_, table, data=None, old=None, es=0, mysql_type=None, sql_type=None, sql="", is_ddl=False, pk=("id",)):
    return {
        "data": data,
        "database": "typed",
        "es": es,
        "id": 1,
        "isDdl": is_ddl,
        "mysqlType": mysql_type,
        "old": old,
        "pkNames": list(pk) if pk and not is_ddl else None,
        "sql": sql,
        "sqlType": sql_type,
        "table": table,
        "ts": es + 5,
        "type": type_,
    }


EVOLVE_TYPES_1 = {"id": "int(11)", "name": "varchar(20)", "qty": "int(11)", "price": "decimal(10,2)", "seen_at": "datetime"}
EVOLVE_SQL_TYPES_1 = {"id": 4, "name": 12, "qty": 4, "price": 3, "seen_at": 93}
EVOLVE_TYPES_2 = {**EVOLVE_TYPES_1, "note": "varchar(50)"}
EVOLVE_SQL_TYPES_2 = {**EVOLVE_SQL_TYPES_1, "note": 12}
EVOLVE_TYPES_3 = {**EVOLVE_TYPES_2, "qty": "bigint(20)", "price": "decimal(12,4)"}
EVOLVE_SQL_TYPES_3 = {**EVOLVE_SQL_TYPES_2, "qty": -5}
EVOLVE_TYPES_4 = {k: v for k, v in EVOLVE_TYPES_3.items() if k != "name"}
EVOLVE_SQL_TYPES_4 = {k: v for k, v in EVOLVE_SQL_TYPES_3.items() if k != "name"}

# A table whose column names are hostile: SQL syntax, quotes, a newline, empty, non-ASCII, very
# long, characters Parquet/Delta/Hive reject, and names its typed model must rename or prefix
# (name in the source -> name in the typed model).
HOSTILE_COLUMNS = {
    "id": "id",
    "x` , current_user() as `pwned": "x`___current_user___as_`pwned",
    "it's": "it's",
    'say "hi"': 'say_"hi"',
    "two\nlines": "two_lines",
    "back\\slash": "back\\slash",
    "": "_cdc_unnamed",
    "é表": "é表",
    "n" * 300: "n" * 300,
    "unit price": "unit_price_2",  # unit_price is the name of another source column
    "unit_price": "unit_price",
    "a,b;c{d}(e)=f\tg\r": "a_b_c_d__e__f_g_",
    "primary_key": "primary_key",  # the bookkeeping primary_key becomes _cdc_primary_key_2
    "_cdc_primary_key": "_cdc_primary_key",
}
HOSTILE_TABLE = "hostile 'tab`le\\"  # its name goes into the typed models' SQL as a string literal
HOSTILE_TABLE_IN_SQL = HOSTILE_TABLE.replace("\\", "\\\\").replace("'", "\\'")
HOSTILE_TYPES = {name: "int(11)" if name in ("id", "unit price") else "varchar(64)" for name in HOSTILE_COLUMNS}

CANAL_STREAM = [
    canal("QUERY", "", sql="CREATE DATABASE `typed`", is_ddl=True, es=1_700_000_000_000),
    # schema evolution: CREATE, INSERT, ADD COLUMN, INSERT, MODIFY (widen), UPDATE, DROP COLUMN, UPDATE
    canal(
        "CREATE", "evolve", is_ddl=True, es=1_700_000_000_000,
        sql="CREATE TABLE `typed`.`evolve` (`id` int(11) NOT NULL, `name` varchar(20), `qty` int(11), "
        "`price` decimal(10,2), `seen_at` datetime, PRIMARY KEY (`id`)) ENGINE=InnoDB",
    ),
    canal(
        "INSERT", "evolve", es=1_700_000_001_000, mysql_type=EVOLVE_TYPES_1, sql_type=EVOLVE_SQL_TYPES_1,
        data=[{"id": "1", "name": "a", "qty": "5", "price": "1.50", "seen_at": "2023-11-14 22:13:20"}],
    ),
    canal(
        "ALTER", "evolve", is_ddl=True, es=1_700_000_002_000,
        sql="ALTER TABLE `typed`.`evolve` ADD COLUMN `note` varchar(50) AFTER `seen_at`",
    ),
    canal(
        "INSERT", "evolve", es=1_700_000_003_000, mysql_type=EVOLVE_TYPES_2, sql_type=EVOLVE_SQL_TYPES_2,
        data=[{"id": "2", "name": "b", "qty": "6", "price": "2.00", "seen_at": "0000-00-00 00:00:00", "note": "hello"}],
    ),
    canal(
        "ALTER", "evolve", is_ddl=True, es=1_700_000_004_000,
        sql="ALTER TABLE `evolve` MODIFY COLUMN `qty` bigint(20), MODIFY COLUMN `price` decimal(12,4)",
    ),
    canal(
        "UPDATE", "evolve", es=1_700_000_005_000, mysql_type=EVOLVE_TYPES_3, sql_type=EVOLVE_SQL_TYPES_3,
        data=[{"id": "2", "name": "b", "qty": "9999999999", "price": "12345678.1234", "seen_at": "0000-00-00 00:00:00", "note": "hello"}],
        old=[{"qty": "6", "price": "2.00"}],
    ),
    canal("ALTER", "evolve", is_ddl=True, es=1_700_000_006_000, sql="ALTER TABLE `typed`.`evolve` DROP COLUMN `name`"),
    canal(
        "UPDATE", "evolve", es=1_700_000_007_000, mysql_type=EVOLVE_TYPES_4, sql_type=EVOLVE_SQL_TYPES_4,
        data=[{"id": "1", "qty": "7", "price": "1.50", "seen_at": "2023-11-14 22:13:20", "note": "x"}],
        old=[{"qty": "5", "note": None}],
    ),
    # table lifecycle: a dropped table, a renamed table, a truncated table
    canal("INSERT", "gone", es=1_700_000_001_000, mysql_type={"id": "int"}, data=[{"id": "1"}]),
    canal("ERASE", "gone", is_ddl=True, es=1_700_000_002_000, sql="DROP TABLE `gone` /* generated by server */"),
    canal("INSERT", "old_name", es=1_700_000_001_000, mysql_type={"id": "int", "v": "varchar(5)"}, data=[{"id": "1", "v": "a"}, {"id": "2", "v": "b"}]),
    canal("RENAME", "new_name", is_ddl=True, es=1_700_000_003_000, sql="RENAME TABLE `old_name` TO `new_name`"),
    canal("INSERT", "new_name", es=1_700_000_004_000, mysql_type={"id": "int", "v": "varchar(5)"}, data=[{"id": "3", "v": "c"}]),
    canal(
        "UPDATE", "new_name", es=1_700_000_005_000, mysql_type={"id": "int", "v": "varchar(5)"},
        data=[{"id": "1", "v": "a2"}], old=[{"v": "a"}],
    ),
    canal("INSERT", "trunc", es=1_700_000_001_000, mysql_type={"id": "int"}, data=[{"id": "1"}, {"id": "2"}]),
    canal("TRUNCATE", "trunc", is_ddl=True, es=1_700_000_002_000, sql="TRUNCATE TABLE `trunc`"),
    canal("INSERT", "trunc", es=1_700_000_003_000, mysql_type={"id": "int"}, data=[{"id": "3"}]),
    canal("CINDEX", "trunc", is_ddl=True, es=1_700_000_004_000, sql="CREATE INDEX idx_id ON `trunc` (`id`)"),
    # hostile column names (HOSTILE_COLUMNS): values are the column's index, 10 + index after the update
    canal(
        "INSERT", HOSTILE_TABLE, es=1_700_000_001_000, mysql_type=HOSTILE_TYPES,
        data=[{name: str(i) if i else "1" for i, name in enumerate(HOSTILE_COLUMNS)}],
    ),
    canal(
        "UPDATE", HOSTILE_TABLE, es=1_700_000_002_000, mysql_type=HOSTILE_TYPES,
        data=[{name: str(10 + i) if i else "1" for i, name in enumerate(HOSTILE_COLUMNS)}],
        old=[{name: str(i) for i, name in enumerate(HOSTILE_COLUMNS) if i}],
    ),
    canal("QUERY", "", is_ddl=True, es=1_700_000_009_000, sql="DROP DATABASE `scratch`"),
]


def b64_signed(value: int, length: int | None = None) -> str:
    """Kafka Connect Decimal bytes: big-endian two's complement, minimal length unless given."""
    length = length or max(1, (value.bit_length() + 8) // 8)
    return base64.b64encode(value.to_bytes(length, "big", signed=True)).decode()


DBZ_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "bytes", "optional": True, "field": "amount", "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}},
    {"type": "bytes", "optional": True, "field": "big", "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "0"}},
    {"type": "int32", "optional": True, "field": "d", "name": "io.debezium.time.Date", "version": 1},
    {"type": "int64", "optional": True, "field": "ts_ms", "name": "io.debezium.time.Timestamp", "version": 1},
    {"type": "int64", "optional": True, "field": "ts_us", "name": "io.debezium.time.MicroTimestamp", "version": 1},
    {"type": "int64", "optional": True, "field": "ts_ns", "name": "io.debezium.time.NanoTimestamp", "version": 1},
    {"type": "string", "optional": True, "field": "zts", "name": "io.debezium.time.ZonedTimestamp", "version": 1},
    {"type": "int32", "optional": True, "field": "t_ms", "name": "io.debezium.time.Time", "version": 1},
    {"type": "int64", "optional": True, "field": "t_us", "name": "io.debezium.time.MicroTime", "version": 1},
    {"type": "int32", "optional": True, "field": "yr", "name": "io.debezium.time.Year", "version": 1},
    {"type": "boolean", "optional": True, "field": "flag"},
    {"type": "int16", "optional": True, "field": "small"},
    {"type": "int64", "optional": True, "field": "big_int"},
    {"type": "float32", "optional": True, "field": "f32"},
    {"type": "float64", "optional": True, "field": "f64"},
    {"type": "bytes", "optional": True, "field": "raw"},
    {"type": "string", "optional": True, "field": "js", "name": "io.debezium.data.Json", "version": 1},
    {"type": "bytes", "optional": True, "field": "bits", "name": "io.debezium.data.Bits", "version": 1,
     "parameters": {"length": "8"}},
    {"type": "struct", "optional": True, "field": "vsd", "name": "io.debezium.data.VariableScaleDecimal",
     "version": 1, "fields": [{"type": "int32", "field": "scale"}, {"type": "bytes", "field": "value"}]},
    {"type": "string", "optional": True, "field": "legacy"},
]


def dbz(op, after, pos, ts, fields):
    value_schema = {"type": "struct", "optional": True, "name": "typed.dbz.Value", "fields": fields}
    schema = {
        "type": "struct", "name": "typed.dbz.Envelope", "optional": False,
        "fields": [{**value_schema, "field": "before"}, {**value_schema, "field": "after"},
                   {"type": "string", "optional": False, "field": "op"}],
    }
    payload = {
        "before": None, "after": after, "op": op, "ts_ms": ts + 5,
        "source": {"connector": "mysql", "db": "typed", "table": "dbz", "file": "mysql-bin.000001", "pos": pos, "row": 0, "ts_ms": ts},
    }
    return json.dumps({"schema": schema, "payload": payload})


BIG_POSITIVE = 10**37 + 12345  # 16 bytes, beyond 64 bits
BIG_NEGATIVE = -(10**37) - 6789
BEYOND_38_DIGITS = 2**127  # 39 digits: no decimal(38) holds it

DEBEZIUM_STREAM = [
    dbz("c", {
        "id": 1, "amount": "AN0=", "big": b64_signed(BIG_POSITIVE), "d": 19000, "ts_ms": 1700000000123,
        "ts_us": 1700000000123456, "ts_ns": 1700000000123456789, "zts": "2023-11-14T22:13:20.123456+08:00",
        "t_ms": 3723500, "t_us": 3723500001, "yr": 2023, "flag": True, "small": -5,
        "big_int": 9223372036854775807, "f32": 1.5, "f64": 0.30000000000000004, "raw": "aGVsbG8=",
        "js": "{\"a\": [1, 2]}", "bits": "BQ==", "vsd": {"scale": 3, "value": b64_signed(-12345)}, "legacy": "old",
    }, 100, 1_700_000_100_000, DBZ_FIELDS),
    dbz("c", {"id": 2, "amount": "/w==", "big": b64_signed(BIG_NEGATIVE)}, 200, 1_700_000_101_000, DBZ_FIELDS),
    # the schema no longer has `legacy`: the column is gone from the table (no DDL says so)
    dbz("c", {"id": 3, "amount": b64_signed(-1234567), "big": b64_signed(BEYOND_38_DIGITS)}, 300, 1_700_000_102_000,
        [f for f in DBZ_FIELDS if f["field"] != "legacy"]),
]

# OMS DefaultExtendColumnType and Dataworks with the 004 documents' types and values.
OMS_VALUES = {
    "i8": ("TINYINT", "3"), "i16": ("SMALLINT", "129"), "i32": ("INT", "2147483646"),
    "i64": ("INT64", "9223372036854775806"), "bi": ("BIGINT", "10223372036854775806"), "f": ("FLOAT", "1.2222"),
    "dbl": ("DOUBLE", "0.30000000000000004"), "s": ("VARCHAR", '"hello world"'), "b": ("BLOB", '"aGVsbG8gd29ybGQ="'),
    "dec": ("DECIMAL", "12345.678900"), "dt": ("DATE", '"2020-11-25"'), "tm": ("TIME", '"00:01:02"'),
    "dtm": ("DATETIME", '"2020-11-25 00:01:02"'), "ts": ("TIMESTAMP", '"1606233662.012345"'),
}


def oms_extend_message():
    post = ",".join(f'"{name}":{value}' for name, (_type, value) in OMS_VALUES.items())
    light = ",".join(f'"{name}":{{"schemaType":"{type_}"}}' for name, (type_, _value) in OMS_VALUES.items())
    return (
        '{"allMetaData":{"checkpoint":null,"record_primary_key":"i8","source_identity":null,'
        '"record_primary_value":"3","dbType":"OB_MYSQL","table_name":"light","db":"typed","timestamp":"1609344671"},'
        f'"prevStruct":null,"recordType":"INSERT","postStruct":{{{post},"__light_type":{{{light}}}}}}}'
    )


DATAWORKS_VALUES = {
    "int8": ("TINYINT", "3"), "int64": ("INT64", "9223372036854775806"), "bigInt": ("BIGINT", "10223372036854775806"),
    "boolean": ("BOOLEAN", "1"), "bytes": ("BLOB", '"aGVsbG8gd29ybGQ="'), "decimal": ("DECIMAL", "1.2222"),
    "localDate": ("DATE", '"2020-11-25"'), "localTime": ("TIME", '"00:01:02"'),
    "localDateTime": ("DATETIME", '"2020-11-25 00:01:02"'), "timestamp": ("TIMESTAMP", '"1606233662.012345"'),
    "zonedDateTime": ("ZONED_DATETIME", '"2020-11-25 00:01:02.012345 Asia/Shanghai"'),
    "intervalDayToSecond": ("INTERVAL_DAY_TO_SECOND", "\"INTERVAL '3' DAY\""),
    "ts13": ("DATETIME", "1590315269000.123456789"),
}


def dataworks_message():
    columns = ",".join(f'{{"name":"{name}","type":"{type_}"}}' for name, (type_, _v) in DATAWORKS_VALUES.items())
    data = ",".join(f'"{name}":{value}' for name, (_t, value) in DATAWORKS_VALUES.items())
    return (
        '{"version":"2.0","schema":{"source":{"dbType":"ob_mysql","dbVersion":null,"dbName":"typed","schema":null,'
        f'"table":"works"}},"column":[{columns}],"pk":["int8"]}},'
        f'"payload":{{"before":null,"after":{{"data":{{{data}}}}},"op":"INSERT",'
        '"timestamp":{"eventTime":1647581000000,"systemTime":1647581000795,"checkpointTime":1647581000},'
        '"ddl":null,"scn":"null"},"extend":{"load_fm":"test"}}'
    )


TYPED_TABLES = [
    ("current", "typed", "evolve"),
    ("history", "typed", "evolve"),
    ("current", "typed", "dbz"),
    ("history", "typed", "dbz"),
    ("current", "typed", "light"),
    ("current", "typed", "works"),
    ("current", "database", "table"),
    ("current", "test", "asd"),
    ("current", "TestCanal", "g_order_010"),
    ("history", "TestCanal", "g_order_010"),
    ("current", "typed", "gone"),
    ("current", "typed", "old_name"),
    ("current", "typed", "new_name"),
    ("current", "typed", "trunc"),
    ("current", "typed", HOSTILE_TABLE),
    ("history", "typed", HOSTILE_TABLE),
]


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    return build_scenario(lake, tmp_path_factory.mktemp("typed"))


def build_scenario(lake, tmp: Path):
    """Land every stream, build once, and compile the typed tables of TYPED_TABLES."""
    lake.scenario("typed_tables")
    lake.land([write_jsonl(tmp / "canal_stream.jsonl", CANAL_STREAM)], "canal_json")
    docs = [doc_example(name) for name in (
        "000_canal_create_table.txt", "000_canal_insert.txt", "000_canal_update.txt", "000_canal_delete.txt",
        "000_canal_erase.txt", "000_canal_rename.txt", "000_canal_alter_add_column.txt",
        "000_canal_alter_drop_column.txt", "000_canal_update_multi_row.txt", "000_canal_delete_multi_row.txt",
        "004_canal_oms_insert.txt", "004_canal_oms_update.txt",
    )]
    lake.land([write_kafka_parquet(tmp / "canal_docs.parquet", docs, topic="canal-docs")], "canal_json")
    river = [doc_example(f"001_kafka_river_canal_{kind}.txt") for kind in ("insert", "update", "delete")]
    lake.land([write_kafka_parquet(tmp / "river_docs.parquet", river, topic="river-docs")], "kafka_river_canal")
    # Debezium names the key columns in the Kafka key
    dbz_keys = [json.dumps({"id": json.loads(m)["payload"]["after"]["id"]}) for m in DEBEZIUM_STREAM]
    lake.land([write_kafka_parquet(tmp / "dbz.parquet", DEBEZIUM_STREAM, topic="dbz", keys=dbz_keys)], "debezium_json")
    lake.land([write_jsonl(tmp / "oms_extend.jsonl", [oms_extend_message()])], "oms_extend_column_type")
    lake.land([write_jsonl(tmp / "dataworks.jsonl", [dataworks_message()])], "oms_dataworks")
    lake.build()  # the example analyst models (shipped sample tables) are off without cdc_examples
    return lake, compile_typed_tables(lake)


def compile_typed_tables(lake):
    """The typed tables of TYPED_TABLES, compiled as an analyst's one-line models are, as DataFrames."""
    from cdc_lake.dbt import run_dbt

    inline = f"\n{MARKER}\n".join(
        f"{{{{ cdc_typed_{kind}({json.dumps(db)}, {json.dumps(table)}) }}}}" for kind, db, table in TYPED_TABLES
    )
    result = run_dbt(["compile", "--inline", inline])
    compiled = result.results[0].node.compiled_code.split(MARKER)
    return {key: lake.spark.sql(sql) for key, sql in zip(TYPED_TABLES, compiled, strict=True)}


def rows(frame, order_by="primary_key"):
    return [r.asDict(recursive=True) for r in frame.orderBy(*order_by.split(",")).collect()]


def columns_of(lake, db, table):
    return {
        r["column_name"]: r
        for r in lake.rows(
            f"select * from {{schema}}.cdc_columns where source_database = '{db}' and source_table = '{table}'"
        )
    }


# ---------------------------------------------------------------------------------------------
# Canal: schema evolution mid-stream, widening, DDL types


def test_cdc_columns_follow_add_modify_drop(built):
    lake, _ = built
    cols = columns_of(lake, "typed", "evolve")
    got = {
        name: (c["ordinal_position"], c["source_type"], c["jdbc_type"], c["spark_type"], c["column_status"])
        for name, c in cols.items()
    }
    assert got == {
        "id": (1, "int(11)", 4, "int", "current"),
        "name": (2, "varchar(20)", 12, "string", "dropped"),
        "qty": (3, "bigint(20)", -5, "bigint", "current"),
        "price": (4, "decimal(12,4)", 3, "decimal(12,4)", "current"),
        "seen_at": (5, "datetime", 93, "timestamp", "current"),
        "note": (6, "varchar(50)", 12, "string", "current"),
    }
    assert cols["qty"]["source_types"] == ["bigint(20)", "int(11)"]
    assert cols["name"]["dropped_ts"] == datetime(2023, 11, 14, 22, 13, 26)
    assert cols["note"]["first_seen_ts"] == datetime(2023, 11, 14, 22, 13, 22)
    assert cols["id"]["observed_in"] == ["change", "ddl"]


def test_typed_history_keeps_dropped_column_and_nulls_added_one(built):
    lake, typed = built
    frame = typed[("history", "typed", "evolve")]
    assert [(f.name, f.dataType.simpleString()) for f in frame.schema.fields] == [
        ("primary_key", "string"), ("id", "int"), ("name", "string"), ("qty", "bigint"),
        ("price", "decimal(12,4)"), ("seen_at", "timestamp"), ("note", "string"),
        ("version_number", "int"), ("op", "string"), ("valid_from", "timestamp"), ("valid_to", "timestamp"),
        ("is_current", "boolean"), ("is_deleted", "boolean"),
    ]
    got = [
        (r["id"], r["version_number"], r["name"], r["qty"], r["price"], r["seen_at"], r["note"], r["is_current"])
        for r in rows(frame, "id,version_number")
    ]
    assert got == [
        (1, 1, "a", 5, Decimal("1.5000"), datetime(2023, 11, 14, 22, 13, 20), None, False),
        (1, 2, None, 7, Decimal("1.5000"), datetime(2023, 11, 14, 22, 13, 20), "x", True),
        (2, 1, "b", 6, Decimal("2.0000"), None, "hello", False),
        (2, 2, "b", 9999999999, Decimal("12345678.1234"), None, "hello", True),
    ]


def test_typed_current_drops_the_dropped_column(built):
    lake, typed = built
    frame = typed[("current", "typed", "evolve")]
    assert [f.name for f in frame.schema.fields] == [
        "primary_key", "id", "qty", "price", "seen_at", "note", "last_changed_ts", "last_op",
    ]
    assert rows(frame, "id") == [
        {"primary_key": '{"id":"1"}', "id": 1, "qty": 7, "price": Decimal("1.5000"),
         "seen_at": datetime(2023, 11, 14, 22, 13, 20), "note": "x",
         "last_changed_ts": datetime(2023, 11, 14, 22, 13, 27), "last_op": "update"},
        {"primary_key": '{"id":"2"}', "id": 2, "qty": 9999999999, "price": Decimal("12345678.1234"),
         "seen_at": None, "note": "hello", "last_changed_ts": datetime(2023, 11, 14, 22, 13, 25), "last_op": "update"},
    ]


def test_conversion_failures_list_every_value_that_does_not_convert(built):
    lake, _ = built
    got = lake.rows(
        "select source_database, source_table, column_name, primary_key, raw_text, source_type, target_type,"
        " version_number from {schema}.cdc_conversion_failures order by 1, 2, 3, 4, version_number"
    )
    assert [tuple(r.values()) for r in got] == [
        ("database", "table", "col12", '{"col1":"2020-11-25 00:01:02","col2":"hello world 2020"}',
         OMS_DECIMAL_TEXT, "decimal", "decimal(38,18)", 1),
        ("database", "table", "col12", '{"col1":"2020-11-25 00:01:02","col2":"hello world"}',
         OMS_DECIMAL_TEXT, "decimal", "decimal(38,18)", 1),
        ("typed", "dbz", "big", '{"id":"3"}', b64_signed(BEYOND_38_DIGITS),
         "org.apache.kafka.connect.data.Decimal(scale=0)", "decimal(38,0)", 1),
        ("typed", "evolve", "seen_at", '{"id":"2"}', "0000-00-00 00:00:00", "datetime", "timestamp", 1),
        ("typed", "evolve", "seen_at", '{"id":"2"}', "0000-00-00 00:00:00", "datetime", "timestamp", 2),
    ]


SURELY_TARGETS = [
    "int", "bigint", "smallint", "tinyint", "decimal(10,2)", "decimal(38,0)", "decimal(5,5)", "decimal(38,18)",
    "float", "double", "boolean", "date", "timestamp", "binary", "string",
]
SURELY_SOURCE_TYPES = [
    None, "int(11)", "bigint unsigned", "decimal(10,2)", "varchar(8)", "datetime", "TIMESTAMP", "blob", "bit(1)",
    "org.apache.kafka.connect.data.Decimal(scale=2)", "io.debezium.data.VariableScaleDecimal",
    "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp", "io.debezium.time.Date",
    "io.debezium.time.MicroTime", "org.apache.kafka.connect.data.Timestamp", " IO.Debezium.time.Date",
]
SURELY_TEXTS = [
    "0", "1", "-1", "+5", " 12 ", "12.", ".5", "1.5", "1.50", "0.001", "12.345", "1e3", "1E-2", "-0", "007",
    "2147483647", "2147483648", "-2147483649", "32767", "32768", "127", "128", "9223372036854775807",
    "9223372036854775808", "99999999.99", "999999999.99", "0.12345", "0.123456", "1" * 38, "1" * 39,
    "1" * 21 + ".5", "true", "false", "TRUE", " true", "t", "yes", "NaN", "nan", "Infinity", "-inf", "1e309",
    "3.4e39", "AQ==", "AA==", "aGVsbG8=", "aGVsbG8", "AN0=", "hello", "", "  ", "\t5", "5\n", "１２", "2020-01-01",
    "2020-1-1", "2020-02-30", "+12020-01-01", "2020-01-01 00:00:00", "2020-01-01 10:11:12",
    "2020-01-01T10:11:12Z", "2020-11-25 00:01:02.012345 Asia/Shanghai", "0000-00-00 00:00:00", "0000-00-00",
    "1606233662.012345", "1606233662012", "1606233662012345", "1700000000000.123456789", "18000", "12:34:56",
    '{"scale":2,"value":"AN0="}',
]


def test_surely_converts_never_claims_a_value_that_does_not_convert(built):
    """cdc_surely_converts lets int_cdc__conversion_checks skip the full conversion: it must never be
    true for a text that cdc_typed_value turns into null, for any target type and source type; and it
    is true for the plain texts that make up most values."""
    from cdc_lake.dbt import run_dbt

    lake, _ = built
    inputs = [
        (text, source_type)
        for text in SURELY_TEXTS
        for source_type in SURELY_SOURCE_TYPES
        # 2147483647 days after 1970 overflows as a timestamp: cdc_typed_value raises an error there
        if not (text == "2147483647" and source_type and source_type.lower().endswith("time.date"))
    ]
    lake.spark.createDataFrame(inputs, "value_text string, source_type string").createOrReplaceTempView(
        "surely_inputs"
    )
    checks = "\nunion all\n".join(
        f"select '{target}' as target, value_text, source_type,"
        f" {{{{ cdc_surely_converts('value_text', '{target}', 'source_type') }}}} as surely,"
        f" {{{{ cdc_typed_value('value_text', '{target}', 'source_type') }}}} is null as fails"
        " from surely_inputs"
        for target in SURELY_TARGETS
    )
    sql = run_dbt(["compile", "--inline", checks]).results[0].node.compiled_code
    got = [r.asDict() for r in lake.spark.sql(sql).collect()]
    assert len(got) == len(inputs) * len(SURELY_TARGETS)
    assert [r for r in got if r["surely"] is None] == []
    assert [r for r in got if r["surely"] and r["fails"]] == []
    surely = {(r["target"], r["value_text"], r["source_type"]) for r in got if r["surely"]}
    for plain in [
        ("int", "1", None), ("bigint", "9223372036854775807", "bigint unsigned"), ("int", "-1", "int(11)"),
        ("decimal(10,2)", "1.50", "decimal(10,2)"), ("decimal(10,2)", "99999999.99", None),
        ("double", "1e3", None), ("boolean", "true", "bit(1)"), ("date", "2020-01-01", None),
        ("timestamp", "2020-01-01 10:11:12", "datetime"), ("timestamp", "2020-11-25 00:01:02.012345 Asia/Shanghai", None),
        ("binary", "aGVsbG8=", "blob"), ("string", "hello", "varchar(8)"), ("string", "12:34:56", None),
    ]:
        assert plain in surely, plain


# ---------------------------------------------------------------------------------------------
# Debezium logical types


def test_debezium_schema_gives_column_types(built):
    lake, _ = built
    cols = columns_of(lake, "typed", "dbz")
    got = {name: (c["source_type"], c["jdbc_type"], c["spark_type"], c["column_status"]) for name, c in cols.items()}
    assert got == {
        "id": ("int32", 4, "int", "current"),
        "amount": ("org.apache.kafka.connect.data.Decimal(precision=10,scale=2)", 3, "decimal(10,2)", "current"),
        "big": ("org.apache.kafka.connect.data.Decimal(scale=0)", 3, "decimal(38,0)", "current"),
        "d": ("io.debezium.time.Date", 91, "date", "current"),
        "ts_ms": ("io.debezium.time.Timestamp", 93, "timestamp", "current"),
        "ts_us": ("io.debezium.time.MicroTimestamp", 93, "timestamp", "current"),
        "ts_ns": ("io.debezium.time.NanoTimestamp", 93, "timestamp", "current"),
        "zts": ("io.debezium.time.ZonedTimestamp", 2014, "timestamp", "current"),
        "t_ms": ("io.debezium.time.Time", 92, "string", "current"),
        "t_us": ("io.debezium.time.MicroTime", 92, "string", "current"),
        "yr": ("io.debezium.time.Year", 4, "int", "current"),
        "flag": ("boolean", 16, "boolean", "current"),
        "small": ("int16", 5, "int", "current"),
        "big_int": ("int64", -5, "bigint", "current"),
        "f32": ("float32", 7, "float", "current"),
        "f64": ("float64", 8, "double", "current"),
        "raw": ("bytes", -3, "binary", "current"),
        "js": ("io.debezium.data.Json", 12, "string", "current"),
        "bits": ("io.debezium.data.Bits", -7, "binary", "current"),
        "vsd": ("io.debezium.data.VariableScaleDecimal", 3, "decimal(38,18)", "current"),
        "legacy": ("string", 12, "string", "absent"),
    }
    assert all(c["is_jdbc_type_derived"] for c in cols.values())


def test_debezium_logical_types_are_decoded(built):
    lake, typed = built
    got = rows(typed[("history", "typed", "dbz")], "id")
    first = {k: v for k, v in got[0].items() if k not in ("valid_from", "valid_to", "primary_key")}
    assert first == {
        "id": 1, "amount": Decimal("2.21"), "big": Decimal(BIG_POSITIVE), "d": date(2022, 1, 8),
        "ts_ms": datetime(2023, 11, 14, 22, 13, 20, 123000), "ts_us": datetime(2023, 11, 14, 22, 13, 20, 123456),
        "ts_ns": datetime(2023, 11, 14, 22, 13, 20, 123456), "zts": datetime(2023, 11, 14, 14, 13, 20, 123456),
        "t_ms": "01:02:03.5", "t_us": "01:02:03.500001", "yr": 2023, "flag": True, "small": -5,
        "big_int": 9223372036854775807, "f32": 1.5, "f64": 0.30000000000000004, "raw": b"hello",
        "js": '{"a": [1, 2]}', "bits": b"\x05", "vsd": Decimal("-12.345"), "legacy": "old",
        "version_number": 1, "op": "insert", "is_current": True, "is_deleted": False,
    }
    assert [(r["id"], r["amount"], r["big"], r["legacy"]) for r in got[1:]] == [
        (2, Decimal("-0.01"), Decimal(BIG_NEGATIVE), None),
        (3, Decimal("-12345.67"), None, None),
    ]
    current = typed[("current", "typed", "dbz")]
    assert "legacy" not in current.columns
    assert [r["id"] for r in rows(current, "id")] == [1, 2, 3]


# ---------------------------------------------------------------------------------------------
# The format documents' examples and types

OMS_DECIMAL_TEXT = (
    "9.99999999999999909326625337248461995470488734032045693707225049331647881341002217023668530611028595"
    "157578301758491822824378438792553200763769833775473829862512856683413461939989729065436937279228852476"
    "622948659167943435544622149348072943613294167216662821737555414480159115639791276054897201420389770580"
    "351533960771506199055664889770260291710977826725024401716523031627390652604144008597950935492433262042"
    "405635563993262949691698930975461134804791235994697938405200089317860731205010159117711704697471514344"
    "499487123311264707354172378099538737850219826145102366279591379660471881259976727356521602405329789906"
    "247763521525981391443887618575275588619928089116905061711975308467857756405810961619074331866883961080"
    "943542712559830853980002984826569445431232452392578125E-308"
)


def test_canal_oms_004_example_types_and_values(built):
    lake, typed = built
    cols = columns_of(lake, "database", "table")
    assert {n: (c["source_type"], c["jdbc_type"], c["spark_type"]) for n, c in cols.items()} == {
        "col1": ("datetime", 93, "timestamp"), "col2": ("varchar", 12, "string"), "col3": ("float", 6, "float"),
        "col4": ("double", 8, "double"), "col5": ("smallint", 5, "int"), "col6": ("time", 92, "string"),
        "col7": ("int", 4, "int"), "col8": ("int64", -5, "bigint"), "col9": ("blob", 2004, "binary"),
        "col10": ("tinyint", -6, "int"), "col11": ("date", 91, "date"),
        # DECIMAL without precision, its only value needs 310 fraction digits: decimal(38,18), a failure
        "col12": ("decimal", 3, "decimal(38,18)"),
        # BIGINT holding 10223372036854775806 (> 2^63-1) widens to decimal(38,0)
        "col13": ("bigint", -5, "decimal(38,0)"),
        "col14": ("timestamp", 93, "timestamp"),
        # the UPDATE example's `old` names a column `string` (its before image has it)
        "string": (None, None, "string"),
    }
    got = rows(typed[("current", "database", "table")])
    assert [r["primary_key"] for r in got] == [
        '{"col1":"2020-11-25 00:01:02","col2":"hello world 2020"}',
        '{"col1":"2020-11-25 00:01:02","col2":"hello world"}',
    ]
    row = {k: v for k, v in got[0].items() if k not in ("primary_key", "last_changed_ts", "last_op")}
    assert row == {
        "col1": datetime(2020, 11, 25, 0, 1, 2), "col2": "hello world 2020", "col3": pytest.approx(1.2222),
        "col4": 1e-307, "col5": 129, "col6": "00:01:02", "col7": 2147483646, "col8": 9223372036854775806,
        "col9": b"hello world", "col10": 3, "col11": date(2020, 11, 25), "col12": None,
        "col13": Decimal("10223372036854775806"),
        # TIMESTAMP "seconds.fraction" (UTC): 2020-11-25 00:01:02.012345 in Asia/Shanghai
        "col14": datetime(2020, 11, 24, 16, 1, 2, 12345),
        "string": None,
    }


def test_canal_000_example_types(built):
    lake, typed = built
    assert {n: (c["source_type"], c["jdbc_type"], c["spark_type"]) for n, c in columns_of(lake, "test", "asd").items()} == {
        "ID": ("int(11)", 4, "int"), "TEST_NAME": ("varchar(255)", 12, "string"),
    }
    assert {n: (c["source_type"], c["spark_type"], c["observed_in"]) for n, c in columns_of(lake, "test", "asd_copy").items()} == {
        # from the CREATE TABLE text and the INSERT's mysqlType
        "ID": ("int(11)", "int", ["change", "ddl"]),
    }
    # asd_copy's row 2223 moved to asd with the RENAME, where it was later updated and deleted
    assert rows(typed[("current", "test", "asd")]) == []


def test_kafka_river_canal_001_example_types(built):
    lake, typed = built
    cols = columns_of(lake, "TestCanal", "g_order_010")
    got = {n: (c["ordinal_position"], c["source_type"], c["jdbc_type"], c["spark_type"], c["is_current"]) for n, c in cols.items()}
    # the update example lists only the key columns and the updated `name`: an update is not a full
    # column list, so phone and time stay current
    assert got == {
        "order_id": (1, "bigint(20)", -5, "bigint", True), "x_id": (2, "bigint(20)", -5, "bigint", True),
        "phone": (3, "varchar(15)", 12, "string", True), "name": (4, "varchar(100)", 12, "string", True),
        "time": (5, "timestamp", 93, "timestamp", True),
    }
    history = rows(typed[("history", "TestCanal", "g_order_010")], "version_number")
    assert [(r["version_number"], r["op"], r["is_deleted"]) for r in history] == [
        (1, "insert", False), (2, "update", False), (3, "delete", True),
    ]
    assert {k: v for k, v in history[0].items() if k in cols} == {
        "order_id": 126, "x_id": 123456, "phone": "13264494028", "name": None,
        "time": datetime(2015, 8, 10, 13, 8, 13),
    }
    assert history[1]["name"] == "小春"
    # the delete example deletes order 126
    assert rows(typed[("current", "TestCanal", "g_order_010")]) == []


def test_oms_light_types(built):
    lake, typed = built
    cols = columns_of(lake, "typed", "light")
    assert {n: (c["source_type"], c["jdbc_type"], c["spark_type"]) for n, c in cols.items()} == {
        "i8": ("TINYINT", -6, "int"), "i16": ("SMALLINT", 5, "int"), "i32": ("INT", 4, "int"),
        "i64": ("INT64", -5, "bigint"), "bi": ("BIGINT", -5, "decimal(38,0)"), "f": ("FLOAT", 6, "float"),
        "dbl": ("DOUBLE", 8, "double"), "s": ("VARCHAR", 12, "string"), "b": ("BLOB", 2004, "binary"),
        "dec": ("DECIMAL", 3, "decimal(11,6)"), "dt": ("DATE", 91, "date"), "tm": ("TIME", 92, "string"),
        "dtm": ("DATETIME", 93, "timestamp"), "ts": ("TIMESTAMP", 93, "timestamp"),
    }
    got = rows(typed[("current", "typed", "light")])
    row = {k: v for k, v in got[0].items() if k not in ("primary_key", "last_changed_ts", "last_op")}
    assert row == {
        "i8": 3, "i16": 129, "i32": 2147483646, "i64": 9223372036854775806, "bi": Decimal("10223372036854775806"),
        "f": pytest.approx(1.2222), "dbl": 0.30000000000000004, "s": "hello world", "b": b"hello world",
        "dec": Decimal("12345.678900"), "dt": date(2020, 11, 25), "tm": "00:01:02",
        "dtm": datetime(2020, 11, 25, 0, 1, 2), "ts": datetime(2020, 11, 24, 16, 1, 2, 12345),
    }


def test_dataworks_types(built):
    lake, typed = built
    cols = columns_of(lake, "typed", "works")
    assert {n: c["spark_type"] for n, c in cols.items()} == {
        "int8": "int", "int64": "bigint", "bigInt": "decimal(38,0)", "boolean": "boolean", "bytes": "binary",
        "decimal": "decimal(5,4)", "localDate": "date", "localTime": "string", "localDateTime": "timestamp",
        "timestamp": "timestamp", "zonedDateTime": "timestamp", "intervalDayToSecond": "string",
        "ts13": "timestamp",
    }
    got = rows(typed[("current", "typed", "works")])
    row = {k: v for k, v in got[0].items() if k not in ("primary_key", "last_changed_ts", "last_op")}
    assert row == {
        "int8": 3, "int64": 9223372036854775806, "bigInt": Decimal("10223372036854775806"), "boolean": True,
        "bytes": b"hello world", "decimal": Decimal("1.2222"), "localDate": date(2020, 11, 25),
        "localTime": "00:01:02", "localDateTime": datetime(2020, 11, 25, 0, 1, 2),
        "timestamp": datetime(2020, 11, 24, 16, 1, 2, 12345),
        # DATETIME with a zone id: the instant, in UTC
        "zonedDateTime": datetime(2020, 11, 24, 16, 1, 2, 12345),
        "intervalDayToSecond": "INTERVAL '3' DAY",
        # 13-digit milliseconds . 9 digits of nanoseconds (Dataworks)
        "ts13": datetime(2020, 5, 24, 10, 14, 29, 123456),
    }


# ---------------------------------------------------------------------------------------------
# Tables: ERASE, RENAME, TRUNCATE; DDL classification


def test_cdc_tables_status(built):
    lake, _ = built
    got = lake.rows(
        "select source_table, table_status, renamed_to_table, renamed_from_table, rows_cleared_ts"
        " from {schema}.cdc_tables where source_database = 'typed' order by 1"
    )
    assert [tuple(r.values()) for r in got] == [
        ("dbz", "live", None, None, None),
        ("evolve", "live", None, None, None),
        ("gone", "dropped", None, None, datetime(2023, 11, 14, 22, 13, 22)),
        (HOSTILE_TABLE, "live", None, None, None),
        ("light", "live", None, None, None),
        ("new_name", "live", None, "old_name", None),
        ("old_name", "renamed", "new_name", None, datetime(2023, 11, 14, 22, 13, 23)),
        ("trunc", "live", None, None, datetime(2023, 11, 14, 22, 13, 22)),
        ("works", "live", None, None, None),
    ]
    doc_tables = lake.rows(
        "select source_table, table_status, renamed_to_table from {schema}.cdc_tables"
        " where source_database = 'test' order by 1"
    )
    # 000: asd is dropped (ERASE), then asd_copy is renamed to asd, which changes again
    assert [tuple(r.values()) for r in doc_tables] == [("asd", "live", None), ("asd_copy", "renamed", "asd")]


def test_typed_current_follows_table_lifecycle(built):
    lake, typed = built
    assert rows(typed[("current", "typed", "gone")]) == []
    assert rows(typed[("current", "typed", "old_name")]) == []
    assert [(r["id"], r["v"]) for r in rows(typed[("current", "typed", "new_name")], "id")] == [
        (1, "a2"), (2, "b"), (3, "c"),
    ]
    assert [r["id"] for r in rows(typed[("current", "typed", "trunc")], "id")] == [3]
    assert columns_of(lake, "typed", "new_name")["v"]["observed_in"] == ["change", "rename"]


def test_typed_tables_of_hostile_column_names_build_and_store(built):
    """Every column name from data ends up quoted: the typed models of a table with hostile column
    names compile, carry every value under the name cdc_typed_column_names gives, and can be stored
    as Parquet tables; cdc_columns keeps the source's names."""
    lake, typed = built
    catalogue = lake.spark.table(f"{lake.schema}.cdc_columns").where(f"source_table = '{HOSTILE_TABLE_IN_SQL}'")
    assert {r["column_name"] for r in catalogue.collect()} == set(HOSTILE_COLUMNS)
    expected = {
        name: (value if HOSTILE_TYPES[source] == "int(11)" else str(value))
        for i, (source, name) in enumerate(HOSTILE_COLUMNS.items())
        for value in [10 + i if i else 1]
    }
    for kind in ("current", "history"):
        table = f"{lake.schema}.typed_hostile_{kind}"
        lake.spark.sql(f"drop table if exists {table}")
        typed[(kind, "typed", HOSTILE_TABLE)].write.format("parquet").saveAsTable(table)
        stored = lake.spark.table(table)
        meta = ["_cdc_primary_key_2", "last_changed_ts", "last_op"] if kind == "current" else [
            "_cdc_primary_key_2", "version_number", "op", "valid_from", "valid_to", "is_current", "is_deleted",
        ]
        assert stored.columns == [meta[0], *HOSTILE_COLUMNS.values(), *meta[1:]]
        got = [r.asDict() for r in (stored.orderBy("version_number") if kind == "history" else stored).collect()]
        assert len(got) == (1 if kind == "current" else 2)
        assert {name: got[-1][name] for name in expected} == expected
        assert got[-1][meta[0]] == '{"id":"1"}'


def test_cdc_ddl_classifies_every_statement(built):
    lake, _ = built
    got = lake.rows(
        "select source_table, ddl_type, is_database_level, column_changes, renamed_tables"
        " from {schema}.cdc_ddl where source_database = 'typed' order by event_ts, source_table"
    )
    simplified = [
        (r["source_table"], r["ddl_type"], r["is_database_level"],
         [(c["action"], c["column_name"], c["source_type"]) for c in r["column_changes"]],
         [(t["from_table"], t["to_table"]) for t in r["renamed_tables"]])
        for r in got
    ]
    assert simplified == [
        (None, "QUERY", True, [], []),
        ("evolve", "CREATE", False, [("add", "id", "int(11)"), ("add", "name", "varchar(20)"), ("add", "qty", "int(11)"),
                                     ("add", "price", "decimal(10,2)"), ("add", "seen_at", "datetime")], []),
        ("evolve", "ALTER", False, [("add", "note", "varchar(50)")], []),
        ("gone", "ERASE", False, [], []),
        ("trunc", "TRUNCATE", False, [], []),
        ("new_name", "RENAME", False, [], [("old_name", "new_name")]),
        ("evolve", "ALTER", False, [("modify", "qty", "bigint(20)"), ("modify", "price", "decimal(12,4)")], []),
        ("trunc", "CINDEX", False, [], []),
        ("evolve", "ALTER", False, [("drop", "name", None)], []),
        (None, "QUERY", True, [], []),
    ]


def test_docs_generate_describes_every_model_and_column(built):
    """`dbt docs generate` works on the built lake, and every model of the project, and every column
    the catalog finds in it, has a description in YAML (the docs site shows no blanks)."""
    import os

    from cdc_lake.dbt import run_dbt

    # the analytics examples too (on with cdc_examples), their YAML only: this scenario has not their tables
    run_dbt(["docs", "generate", "--vars", "{cdc_examples: true}", "--exclude", "models/marts/analytics"])
    target = Path(os.environ["CDC_LAKE_DBT_STATE"]) / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    models = {k: v for k, v in manifest["nodes"].items() if v["resource_type"] == "model" and v["package_name"] == "cdc_lake"}
    assert len(models) > 20
    assert [k for k, v in models.items() if not v["description"].strip()] == []
    assert {e["name"] for e in manifest["exposures"].values()}, "an exposures: example"
    undocumented = []
    # the analytics examples are not built here (their YAML is checked above)
    built_models = {k: v for k, v in models.items() if not v["original_file_path"].startswith("models/marts/analytics/")}
    assert len(built_models) > 20
    # a format's staging model is ephemeral (no relation, not in the catalog): its columns are the
    # staging contract, which int_cdc__events stores
    contract = catalog["nodes"]["model.cdc_lake.int_cdc__events"]["columns"]
    ephemeral = [key for key, node in built_models.items() if node["config"]["materialized"] == "ephemeral"]
    assert "model.cdc_lake.stg_canal_json__changes" in ephemeral
    for key, node in built_models.items():
        assert key in ephemeral or key in catalog["nodes"], f"{key} is not in the docs catalog"
        columns = contract if key in ephemeral else catalog["nodes"][key]["columns"]
        described = {name.lower() for name, col in node["columns"].items() if col["description"].strip()}
        undocumented += [f"{node['name']}.{c}" for c in columns if c.lower() not in described]
    assert undocumented == []


HOSTILE_NAMES = [
    "x` , current_user() as `pwned",  # would end the identifier and add a column
    "it's",
    'say "hi"',
    "two\nlines",
    "back\\slash",
    "",
    "é表",
    "n" * 300,
]


def test_column_names_from_data_are_quoted(lake):
    """Names from data become identifiers with their backticks doubled (cdc_sql_identifier), never
    SQL, whatever they hold (the typed models rename only a few: see the hostile table's test)."""
    from cdc_lake.dbt import run_dbt

    columns = [
        {"name": name, "variants": [name], "spark_type": "string", "source_type": "varchar(10)"}
        for name in HOSTILE_NAMES
    ]
    inline = (
        "{% set columns = var('hostile_columns') %}"
        "select {{ cdc_typed_columns_select(columns, 'row', 'types', columns | map(attribute='name') | list) }} "
        "1 as end_marker "
        "from (select map({% for column in columns %}{{ cdc_sql_string(column.name) }}, "
        "{{ cdc_sql_string(loop.index0) }}{{ ', ' if not loop.last }}{% endfor %}) as row, map('', '') as types)"
    )
    vars_text = json.dumps({"hostile_columns": columns})
    sql = run_dbt(["compile", "--inline", inline, "--vars", vars_text]).results[0].node.compiled_code
    frame = lake.spark.sql(sql)
    assert frame.columns == [*HOSTILE_NAMES, "end_marker"]
    assert [frame.collect()[0][i] for i in range(len(HOSTILE_NAMES))] == [str(i) for i in range(len(HOSTILE_NAMES))]


def test_a_spark_type_that_cdc_lake_does_not_make_is_never_compiled(lake, capfd):
    """cdc_columns.spark_type is compiled into casts: anything but a type cdc_spark_type_for makes
    stops the compilation instead of becoming SQL."""
    from cdc_lake.dbt import DbtError, run_dbt

    def compiled(spark_type: str) -> str:
        inline = "select {{ cdc_typed_value(\"'1'\", var('spark_type')) }} as v"
        result = run_dbt(["compile", "--inline", inline, "--vars", json.dumps({"spark_type": spark_type})])
        return result.results[0].node.compiled_code

    assert "as decimal(12,4)" in compiled("DECIMAL(12, 4)")
    for hostile in ["decimal(10,2)) as string) -- ", "int) union select current_user() --", "decimal(1,2,3)", ""]:
        capfd.readouterr()
        with pytest.raises(DbtError, match="Error parsing inline query"):
            compiled(hostile)
        assert "is not a Spark type cdc-lake makes" in capfd.readouterr().out


def test_typed_column_names_are_safe_and_distinct(lake):
    from cdc_lake.dbt import run_dbt

    source = ["a b", "a_b", "", "", "Primary_Key", "x(1)", "ok", "OK"]
    inline = "{{ tojson(cdc_typed_column_names(var('names'), ['primary_key', 'op'])) }}"
    result = run_dbt(["compile", "--inline", inline, "--vars", json.dumps({"names": source})])
    names = json.loads(result.results[0].node.compiled_code)
    assert names == {
        "columns": ["a_b_2", "a_b", "_cdc_unnamed", "_cdc_unnamed_2", "Primary_Key", "x_1_", "ok", "OK_2"],
        "meta": {"primary_key": "_cdc_primary_key", "op": "op"},
    }
