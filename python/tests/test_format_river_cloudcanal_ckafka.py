"""KafkaRiverCanal, CloudCanal JSON, CKafka format one, and the Canal-compatible variants of docs 002/003.

Every example of format documents 001, 002 (CloudCanal JSON and Canal Json; the Debezium ones
are tested elsewhere) and 003 is landed verbatim (as Kafka values) with its expected rows written
out below; the documents' templates ("action":"INSERT/DELETE/UPDATE") are quarantined and get a
realistic instantiated variant. Each format also gets a stream (insert, partial update, delete,
re-insert, key change, DDL or schema change mid-stream, transaction end, duplicate delivery) with
the exact final cdc_current and cdc_history. Everything is landed into one scenario and built once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import doc_example, write_jsonl, write_kafka_parquet

FORMATS = ["canal_json", "kafka_river_canal", "cloudcanal_json", "ckafka_format_one"]
# Everything upstream of the marts, with cdc_formats limited to the formats tested here (so other
# formats' staging models are not built), plus the row-image-key warning test.
BUILD_SELECTION = [
    "+cdc_changes", "+cdc_history", "+cdc_current", "+cdc_ddl", "+cdc_quarantine", "+cdc_landing_audit",
    "warn_cdc_tables_keyed_by_row_image",
]


def pk(**columns: str) -> str:
    """The primary_key string of cdc_key_of: a JSON object of the key columns sorted by name."""
    return json.dumps(dict(sorted(columns.items())), separators=(",", ":"), ensure_ascii=False)


def line(text: str) -> str:
    """A message written as raw JSON text (to keep bare numbers as written); checked to be JSON."""
    json.loads(text)
    return text


# ---------------------------------------------------------------------------------------------
# KafkaRiverCanal stream: shop_river.orders, keys [id]. R7 sits in the next binlog file and is
# written before R6 in the input: the binlog position orders them.

def river(pos: str, minute: int, event: str, columns: list[dict[str, Any]], table: str = "orders") -> dict:
    time_ms = 1_704_067_200_000 + minute * 60_000
    return {
        "binlog": pos, "time": time_ms, "canalTime": time_ms + 500, "db": "shop_river", "table": table,
        "event": event, "columns": columns, "keys": ["id"],
    }


def col(name: str, value: str | None, type_text: str = "varchar(10)", **extra: Any) -> dict[str, Any]:
    column: dict[str, Any] = {"n": name, "t": type_text, "null": value is None}
    if value is not None:
        column["v"] = value
    column.update(extra)
    return column


R1 = river("100@mysql-bin.000001", 1, "i", [col("id", "1", "bigint(20)"), col("amount", "0.10", "decimal(30,10)"), col("note", "a")])
R2 = line(
    '{"binlog":"200@mysql-bin.000001","time":1704067320000,"canalTime":1704067320500,"db":"shop_river",'
    '"table":"orders","event":"i","columns":[{"n":"id","t":"bigint(20)","v":"2","null":false},'
    '{"n":"amount","t":"decimal(30,10)","v":12345678901234567890.1234567890,"null":false},'
    '{"n":"note","t":"varchar(10)","null":true}],"keys":["id"]}'
)
R3 = river("300@mysql-bin.000001", 3, "u", [
    col("id", "1", "bigint(20)", updated=False),
    col("amount", "0.20", "decimal(30,10)", updated=True, origin_val="0.10"),
    col("note", "a", updated=False),
])
R4 = line(
    '{"binlog":"400@mysql-bin.000001","time":1704067440000,"canalTime":1704067440500,"db":"shop_river",'
    '"table":"orders","event":"d","columns":[{"n":"id","t":"bigint(20)","v":"2","null":false},'
    '{"n":"amount","t":"decimal(30,10)","v":12345678901234567890.1234567890,"null":false},'
    '{"n":"note","t":"varchar(10)","null":true}],"keys":["id"]}'
)
R5 = river("500@mysql-bin.000001", 5, "i", [col("id", "2", "bigint(20)"), col("amount", "5.00", "decimal(30,10)"), col("note", "b")])
R6 = river("600@mysql-bin.000001", 6, "u", [
    col("id", "3", "bigint(20)", updated=True, origin_val="1"),
    col("amount", "0.20", "decimal(30,10)", updated=False),
    col("note", None, updated=True, origin_val="a"),
])
R7 = river("4@mysql-bin.000002", 7, "u", [
    col("id", "3", "bigint(20)", updated=False),
    col("amount", "0.20", "decimal(30,10)", updated=False),
    col("note", None, updated=False),
    col("status", "paid", "varchar(8)", updated=True),
])
RIVER_STREAM = [R1, R2, R3, R4, R5, R7, R6, R3]
RIVER_BAD = [
    river("700@mysql-bin.000002", 8, "t", [col("id", "9")]),
    river("800@mysql-bin.000002", 9, "i", [col("id", "9"), col("id", "10")]),
    '{"binlog": "900@mysql-bin.000002", "event": i}',
    {**river("950@mysql-bin.000002", 9, "i", [col("id", "9")]), "table": ""},
]

# ---------------------------------------------------------------------------------------------
# CloudCanal stream: shop_cc.items (pks named in the messages) and shop_cc.prices (pks [], the
# key comes from the CREATE's tableChanges).

CC_TYPES = {"sku": "varchar(8)", "qty": "int", "price": "decimal(20,4)"}
CC_JDBC = {"sku": 12, "qty": 4, "price": 3}


def cloudcanal(action: str, minute: int, table: str = "items", *, data=None, before=None, pks=None,
               ddl: bool = False, sql: str = "", entry_type: str = "ROWDATA", **extra: Any) -> dict:
    exec_ts = 1_706_745_600_000 + minute * 60_000
    message = {
        "action": action, "before": before or [], "bid": minute, "data": data or [], "db": "shop_cc",
        "dbValType": CC_TYPES if table == "items" else {"id": "int", "v": "decimal(10,2)"},
        "isDdl": ddl, "entryType": entry_type, "execTs": exec_ts,
        "jdbcType": CC_JDBC if table == "items" else {"id": 4, "v": 3},
        "pks": pks if pks is not None else (["sku"] if table == "items" else []),
        "schema": "shop_cc", "sendTs": exec_ts + 1377, "sql": sql, "table": table,
    }
    message.update(extra)
    return message


C1 = cloudcanal(
    "CREATE", 0, ddl=True, pks=[],
    sql="CREATE TABLE items (sku varchar(8) NOT NULL, qty int, price decimal(20,4), PRIMARY KEY (sku))",
    tableChanges={"table": {"primaryKeyColumnNames": ["sku"]}, "type": "CREATE"},
)
# a real message spells the DDL flag `ddl`; prices are bare JSON numbers
C2 = line(
    '{"action":"INSERT","before":[],"bid":1,"data":[{"sku":"A1","qty":1,"price":0.10},'
    '{"sku":"B2","qty":2,"price":1.50E+3}],"db":"shop_cc","dbValType":{"sku":"varchar(8)","qty":"int",'
    '"price":"decimal(20,4)"},"ddl":false,"entryType":"ROWDATA","execTs":1706745660000,'
    '"jdbcType":{"sku":12,"qty":4,"price":3},"pks":["sku"],"schema":"shop_cc","sendTs":1706745661377,'
    '"sql":"","table":"items"}'
)
C3 = {"action": "", "bid": 1, "db": "shop_cc", "schema": "shop_cc", "table": "", "entryType": "TRANSACTIONEND",
      "isDdl": False, "execTs": 1706745660000, "sendTs": 1706745661400, "data": [], "before": [], "pks": []}
C4 = line(
    '{"action":"UPDATE","before":[{"qty":1}],"bid":2,"data":[{"sku":"A1","qty":5,"price":0.10}],'
    '"db":"shop_cc","dbValType":{"sku":"varchar(8)","qty":"int","price":"decimal(20,4)"},"isDdl":false,'
    '"entryType":"ROWDATA","execTs":1706745720000,"jdbcType":{"sku":12,"qty":4,"price":3},"pks":["sku"],'
    '"schema":"shop_cc","sendTs":1706745721377,"sql":"","table":"items"}'
)
C5 = line(
    '{"action":"DELETE","before":[{"sku":"B2","qty":2,"price":1.50E+3}],"bid":3,"data":[],"db":"shop_cc",'
    '"dbValType":{"sku":"varchar(8)","qty":"int","price":"decimal(20,4)"},"isDdl":false,"entryType":"ROWDATA",'
    '"execTs":1706745780000,"jdbcType":{"sku":12,"qty":4,"price":3},"pks":["sku"],"schema":"shop_cc",'
    '"sendTs":1706745781377,"sql":"","table":"items"}'
)
C6 = cloudcanal("INSERT", 4, data=[{"sku": "B2", "qty": "7", "price": "2.5"}])
C7 = cloudcanal(
    "ALTER", 5, ddl=True, pks=[], sql="alter table items add note varchar(10) null",
    tableChanges={"table": {"primaryKeyColumnNames": ["sku"]}, "type": "ALTER"},
)
C8 = cloudcanal(
    "UPDATE", 6,
    before=[{"sku": "A1", "qty": "5", "price": "0.10", "note": None}],
    data=[{"sku": "A9", "qty": "5", "price": "0.10", "note": "x"}],
)
P1 = cloudcanal(
    "CREATE", 0, "prices", ddl=True, sql="CREATE TABLE prices (id int, v decimal(10,2), PRIMARY KEY (id))",
    tableChanges={"table": {"primaryKeyColumnNames": ["id"]}, "type": "CREATE"},
)
P2 = cloudcanal("INSERT", 1, "prices", data=[{"id": "1", "v": "9.90"}])
P3 = cloudcanal("UPDATE", 2, "prices", before=[{"id": "1", "v": "9.90"}], data=[{"id": "1", "v": "8.80"}])
P4 = cloudcanal("DELETE", 3, "prices", data=[{"id": "1", "v": "8.80"}])
CLOUDCANAL_STREAM = [C1, P1, C2, C3, P2, C4, P3, C5, P4, C6, C7, C8, C4]
CLOUDCANAL_BAD = [
    cloudcanal("UPSERT", 7, data=[{"sku": "Z9"}]),
    cloudcanal("INSERT", 7),
]

# The documents' template examples, instantiated. CloudCanal JSON: db_test.table_test with
# "pks":[], keyed by the DDL example's tableChanges (col_pk). Canal Json: same rows, renamed to
# database db_canal so its history stays apart from the CloudCanal rows.
ROW_22 = {"col1": "22", "col2": "22", "col_pk": "22"}
ROW_11 = {"col1": "11", "col2": "11", "col_pk": "11"}
CLOUDCANAL_DOC_INSTANCES = [
    {"action": "INSERT", "before": [], "bid": 0, "data": [ROW_22], "db": "db_test",
     "dbValType": {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}, "isDdl": False,
     "entryType": "ROWDATA", "execTs": 1669789151000, "jdbcType": {"col1": 12, "col2": 12, "col_pk": 12},
     "pks": [], "schema": "db_test", "sendTs": 1669789152377, "sql": "", "table": "table_test"},
    {"action": "UPDATE", "before": [ROW_22], "bid": 0, "data": [ROW_11], "db": "db_test",
     "dbValType": {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}, "isDdl": False,
     "entryType": "ROWDATA", "execTs": 1669789152000, "jdbcType": {"col1": 12, "col2": 12, "col_pk": 12},
     "pks": [], "schema": "db_test", "sendTs": 1669789153377, "sql": "", "table": "table_test"},
]
CANAL_DOC_INSTANCES = [
    {"data": [ROW_22], "database": "db_canal", "es": 1669790846000, "id": 0, "isDdl": False,
     "mysqlType": {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}, "old": None,
     "pkNames": ["col_pk"], "sql": "", "sqlType": {"col1": 12, "col2": 12, "col_pk": 12},
     "table": "table_test", "ts": 1669790847072, "type": "INSERT"},
    {"data": [ROW_11], "database": "db_canal", "es": 1669790847000, "id": 0, "isDdl": False,
     "mysqlType": {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}, "old": [ROW_22],
     "pkNames": ["col_pk"], "sql": "", "sqlType": {"col1": 12, "col2": 12, "col_pk": 12},
     "table": "table_test", "ts": 1669790848072, "type": "UPDATE"},
]

# ---------------------------------------------------------------------------------------------
# CKafka format one stream: shop_ck.users (keyed by the canal-shaped CREATE TABLE in the same
# topic) and shop_ck.logs (no DDL: keyed by the whole row). TIME is Asia/Shanghai local time:
# 20240301080100 is 2024-03-01 00:01:00 UTC.

GTID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def ckafka(type_code: str, pos: int, hhmmss: str, new=None, old=None, table: str = "users") -> dict:
    return {
        "BINLOG_NAME": "mysql-bin.000010", "BINLOG_POS": pos, "DATABASE": "shop_ck", "EVENT_SERVER_ID": None,
        "GLOBAL_ID": f"{GTID}:{pos}", "GROUP_ID": None, "NEW_VALUES": new, "OLD_VALUES": old, "TABLE": table,
        "TIME": f"20240301{hhmmss}", "TYPE": type_code,
    }


def ckafka_ddl(sql: str, es: int, ddl_type: str, table: str = "users") -> dict:
    return {
        "data": None, "database": "shop_ck", "es": es, "id": 0, "isDdl": True, "mysqlType": None, "old": None,
        "pkNames": None, "sql": sql, "sqlType": None, "table": table, "ts": es, "type": ddl_type,
    }


K1 = ckafka_ddl(
    "CREATE TABLE `users` (\n`id` int NOT NULL,\n`name` varchar(20),\n`score` decimal(10,2),\nPRIMARY KEY (`id`)\n)",
    1709251200, "CREATE",
)
K2 = line(
    '{"BINLOG_NAME":"mysql-bin.000010","BINLOG_POS":100,"DATABASE":"shop_ck","EVENT_SERVER_ID":null,'
    f'"GLOBAL_ID":"{GTID}:100","GROUP_ID":null,"NEW_VALUES":{{"id":1,"name":"Ann","score":0.10}},'
    '"OLD_VALUES":null,"TABLE":"users","TIME":"20240301080100","TYPE":"I"}'
)
K3 = line(
    '{"BINLOG_NAME":"mysql-bin.000010","BINLOG_POS":200,"DATABASE":"shop_ck","EVENT_SERVER_ID":null,'
    f'"GLOBAL_ID":"{GTID}:200","GROUP_ID":null,"NEW_VALUES":{{"id":2,"name":"Bob","score":1e5}},'
    '"OLD_VALUES":null,"TABLE":"users","TIME":"20240301080200","TYPE":"l"}'
)
K4 = ckafka("U", 300, "080300", new={"id": "1", "name": "Anne", "score": "0.10"},
            old={"id": "1", "name": "Ann", "score": "0.10"})
K5 = line(
    '{"BINLOG_NAME":"mysql-bin.000010","BINLOG_POS":400,"DATABASE":"shop_ck","EVENT_SERVER_ID":null,'
    f'"GLOBAL_ID":"{GTID}:400","GROUP_ID":null,"NEW_VALUES":null,'
    '"OLD_VALUES":{"id":2,"name":"Bob","score":1e5},"TABLE":"users","TIME":"20240301080400","TYPE":"D"}'
)
K6 = ckafka("i", 500, "080500", new={"id": "2", "name": "Bob", "score": "7"})
K7 = ckafka_ddl("ALTER TABLE `users` ADD COLUMN `email` varchar(40) NULL", 1709251560, "ALTER")
K8 = ckafka("U", 700, "080700", new={"id": "3", "name": "Anne", "score": "0.10", "email": "a@x"},
            old={"id": "1", "name": "Anne", "score": "0.10", "email": None})
# NEW_VALUES as a string holding the JSON row (the documentation only says "json"); its bare 1 is kept
L1 = ckafka("I", 150, "080130", new='{"msg":"a","lvl":1}', table="logs")
L2 = ckafka("U", 350, "080330", new={"msg": "a", "lvl": "2"}, old={"msg": "a", "lvl": "1"}, table="logs")
CKAFKA_STREAM = [K1, K2, L1, K3, K4, L2, K5, K6, K7, K8, K4]
CKAFKA_BAD = [
    ckafka("X", 800, "080800", new={"id": "9"}),
    {"data": [{"id": "9"}], "database": "shop_ck", "es": 1709251700, "isDdl": False, "sql": "",
     "table": "users", "type": "INSERT"},
    ckafka("D", 900, "080900", new=None, old=None),
]

# ---------------------------------------------------------------------------------------------

RIVER_DOCS = ["001_kafka_river_canal_insert.txt", "001_kafka_river_canal_update.txt", "001_kafka_river_canal_delete.txt"]
CLOUDCANAL_DOCS = ["002_cloudcanal_json_dml.txt", "002_cloudcanal_json_ddl.txt"]
CANAL_DOCS = [
    "002_canal_json_cloudcanal_dml.txt", "002_canal_json_cloudcanal_ddl.txt",
    "003_canal_ckafka_create_database.txt", "003_canal_ckafka_drop_database.txt",
    "003_canal_ckafka_create_table.txt", "003_canal_ckafka_alter_table.txt",
    "003_canal_ckafka_drop_table.txt", "003_canal_ckafka_rename_table.txt",
]
CKAFKA_DOCS = ["003_ckafka_format_one_insert.txt", "003_ckafka_format_one_update.txt", "003_ckafka_format_one_delete.txt"]


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("river_cloudcanal_ckafka")
    lake.scenario("fmt_river_cloudcanal_ckafka")
    landings = [
        (write_kafka_parquet(tmp / "river_docs.parquet", [doc_example(n) for n in RIVER_DOCS], topic="river_docs"), "kafka_river_canal"),
        (write_jsonl(tmp / "river_stream.jsonl", RIVER_STREAM), "kafka_river_canal"),
        (write_jsonl(tmp / "river_bad.jsonl", RIVER_BAD), "kafka_river_canal"),
        (write_kafka_parquet(tmp / "cloudcanal_docs.parquet", [doc_example(n) for n in CLOUDCANAL_DOCS], topic="cloudcanal_docs"), "cloudcanal_json"),
        (write_jsonl(tmp / "cloudcanal_doc_instances.jsonl", CLOUDCANAL_DOC_INSTANCES), "cloudcanal_json"),
        (write_jsonl(tmp / "cloudcanal_stream.jsonl", CLOUDCANAL_STREAM), "cloudcanal_json"),
        (write_jsonl(tmp / "cloudcanal_bad.jsonl", CLOUDCANAL_BAD), "cloudcanal_json"),
        (write_kafka_parquet(tmp / "canal_docs.parquet", [doc_example(n) for n in CANAL_DOCS], topic="canal_docs"), "canal_json"),
        (write_jsonl(tmp / "canal_doc_instances.jsonl", CANAL_DOC_INSTANCES), "canal_json"),
        (write_kafka_parquet(tmp / "ckafka_docs.parquet", [doc_example(n) for n in CKAFKA_DOCS], topic="ckafka_docs"), "ckafka_format_one"),
        (write_jsonl(tmp / "ckafka_stream.jsonl", CKAFKA_STREAM), "ckafka_format_one"),
        (write_jsonl(tmp / "ckafka_bad.jsonl", CKAFKA_BAD), "ckafka_format_one"),
    ]
    samples = Path(__file__).resolve().parents[2] / "sample_data"
    for format_id in ("kafka_river_canal", "cloudcanal_json", "ckafka_format_one"):
        landings += [(path, format_id) for path in sorted((samples / format_id).glob("*.jsonl"))]
    for path, format_id in landings:
        lake.land([path], format_id)
    result = lake.build(
        "--select", *BUILD_SELECTION,
        "--indirect-selection", "cautious",
        "--exclude-resource-type", "unit_test",
        "--vars", json.dumps({"cdc_formats": FORMATS}),
    )
    return {"result": result, "tmp": tmp}


def history(lake, database: str, table: str) -> list[tuple]:
    return [
        (r["primary_key"], r["version_number"], r["op"], r["row"], r["valid_from"], r["valid_to"],
         r["is_current"], r["is_deleted"])
        for r in lake.rows(
            "select primary_key, version_number, op, row, cast(valid_from as string) as valid_from, "
            "cast(valid_to as string) as valid_to, is_current, is_deleted from {schema}.cdc_history "
            f"where source_database = '{database}' and source_table = '{table}' "
            "order by primary_key, version_number"
        )
    ]


def current(lake, database: str, table: str) -> list[tuple]:
    return [
        (r["primary_key"], r["row"])
        for r in lake.rows(
            f"select primary_key, row from {{schema}}.cdc_current where source_database = '{database}' "
            f"and source_table = '{table}' order by primary_key"
        )
    ]


def row_image_chain(lake, database: str, table: str, first_image: dict) -> str:
    """The primary_key of a row of a table keyed by row image: the change that inserted it."""
    [start] = lake.rows(
        f"select change_id from {{schema}}.cdc_changes where source_database = '{database}' "
        f"and source_table = '{table}' and op in ('insert', 'snapshot') and primary_key = '{pk(**first_image)}'"
    )
    return json.dumps({"row_image_chain": start["change_id"]}, separators=(",", ":"))


STAGED_COLUMNS = (
    "event_kind, event_type, source_database, source_table, op, key_columns, before, after, "
    "column_types, column_jdbc_types, ddl_type, ddl_sql, ddl_key_columns, "
    "cast(event_ts as string) as event_ts, source_log_file, source_log_pos, transaction_id, quarantine_reason"
)


def staged(lake, format_id: str, where: str) -> list[dict[str, Any]]:
    return lake.format_events(format_id, where, STAGED_COLUMNS)


def quarantine_reasons(lake, format_id: str, uri_part: str) -> list[str]:
    return [
        r["reason"]
        for r in lake.rows(
            f"select reason from {{schema}}.cdc_quarantine where source_format = '{format_id}' "
            f"and coalesce(kafka_topic, source_uri) like '%{uri_part}%' "
            "order by landing_seq, message_index, element_index, row_index"
        )
    ]


NO_DDL = {"ddl_type": None, "ddl_sql": None, "ddl_key_columns": None}

# ---------------------------------------------------------------------------------------------
# Document 001: KafkaRiverCanal


def test_river_doc_examples_parse_into_rows(lake, built):
    river_types = {"order_id": "bigint(20)", "x_id": "bigint(20)"}
    assert staged(lake, "kafka_river_canal", "kafka_topic = 'river_docs'") == [
        {
            "event_kind": "change", "event_type": "i", "source_database": "TestCanal",
            "source_table": "g_order_010", "op": "insert", "key_columns": ["order_id"], "before": None,
            "after": {"order_id": "126", "x_id": "123456", "phone": "13264494028", "time": "2015-08-10 13:08:13"},
            "column_types": {**river_types, "phone": "varchar(15)", "time": "timestamp"},
            "column_jdbc_types": None, **NO_DDL, "event_ts": "2015-12-16 03:04:52",
            "source_log_file": "mysql-bin.000070", "source_log_pos": 6816, "transaction_id": None,
            "quarantine_reason": None,
        },
        {
            "event_kind": "change", "event_type": "u", "source_database": "TestCanal",
            "source_table": "g_order_010", "op": "update", "key_columns": ["order_id"],
            "before": {"order_id": "126", "x_id": "123456", "name": "小明"},
            "after": {"order_id": "126", "x_id": "123456", "name": "小春"},
            "column_types": {**river_types, "name": "varchar(100)"},
            "column_jdbc_types": None, **NO_DDL, "event_ts": "2015-12-16 03:25:07",
            "source_log_file": "mysql-bin.000070", "source_log_pos": 25521, "transaction_id": None,
            "quarantine_reason": None,
        },
        {
            "event_kind": "change", "event_type": "d", "source_database": "TestCanal",
            "source_table": "g_order_010", "op": "delete", "key_columns": ["order_id"],
            "before": {"order_id": "126", "x_id": "123456", "phone": "13264494028"}, "after": None,
            "column_types": {**river_types, "phone": "varchar(15)"},
            "column_jdbc_types": None, **NO_DDL, "event_ts": "2015-12-16 03:37:14",
            "source_log_file": "mysql-bin.000070", "source_log_pos": 58851, "transaction_id": None,
            "quarantine_reason": None,
        },
    ]


def test_river_doc_examples_history(lake, built):
    key = pk(order_id="126")
    assert history(lake, "TestCanal", "g_order_010") == [
        (key, 1, "insert", {"order_id": "126", "x_id": "123456", "phone": "13264494028", "time": "2015-08-10 13:08:13"},
         "2015-12-16 03:04:52", "2015-12-16 03:25:07", False, False),
        (key, 2, "update", {"order_id": "126", "x_id": "123456", "name": "小春"},
         "2015-12-16 03:25:07", "2015-12-16 03:37:14", False, False),
        (key, 3, "delete", {"order_id": "126", "x_id": "123456", "phone": "13264494028"},
         "2015-12-16 03:37:14", None, True, True),
    ]
    assert current(lake, "TestCanal", "g_order_010") == []


def test_river_stream_history_and_current(lake, built):
    one, two, three = pk(id="1"), pk(id="2"), pk(id="3")
    big = "12345678901234567890.1234567890"
    assert history(lake, "shop_river", "orders") == [
        (one, 1, "insert", {"id": "1", "amount": "0.10", "note": "a"}, "2024-01-01 00:01:00", "2024-01-01 00:03:00", False, False),
        (one, 2, "update", {"id": "1", "amount": "0.20", "note": "a"}, "2024-01-01 00:03:00", "2024-01-01 00:06:00", False, False),
        (one, 3, "delete", {"id": "1", "amount": "0.20", "note": "a"}, "2024-01-01 00:06:00", None, True, True),
        (two, 1, "insert", {"id": "2", "amount": big, "note": None}, "2024-01-01 00:02:00", "2024-01-01 00:04:00", False, False),
        (two, 2, "delete", {"id": "2", "amount": big, "note": None}, "2024-01-01 00:04:00", "2024-01-01 00:05:00", False, True),
        (two, 3, "insert", {"id": "2", "amount": "5.00", "note": "b"}, "2024-01-01 00:05:00", None, True, False),
        (three, 1, "update", {"id": "3", "amount": "0.20", "note": None}, "2024-01-01 00:06:00", "2024-01-01 00:07:00", False, False),
        (three, 2, "update", {"id": "3", "amount": "0.20", "note": None, "status": "paid"}, "2024-01-01 00:07:00", None, True, False),
    ]
    assert current(lake, "shop_river", "orders") == [
        (two, {"id": "2", "amount": "5.00", "note": "b"}),
        (three, {"id": "3", "amount": "0.20", "note": None, "status": "paid"}),
    ]


def test_river_update_images_and_positions(lake, built):
    rows = lake.rows(
        "select source_log_file, source_log_pos, before, after from {schema}.cdc_changes "
        "where source_database = 'shop_river' and op = 'update' order by source_log_file, source_log_pos"
    )
    assert rows == [
        # partial update: only amount has updated=true; the duplicate delivery of R3 is dropped
        {"source_log_file": "mysql-bin.000001", "source_log_pos": 300,
         "before": {"id": "1", "amount": "0.10", "note": "a"}, "after": {"id": "1", "amount": "0.20", "note": "a"}},
        # key change with a NULL after value (null=true) and a before value from origin_val
        {"source_log_file": "mysql-bin.000001", "source_log_pos": 600,
         "before": {"id": "1", "amount": "0.20", "note": "a"}, "after": {"id": "3", "amount": "0.20", "note": None}},
        # updated=true without origin_val: the before value was NULL
        {"source_log_file": "mysql-bin.000002", "source_log_pos": 4,
         "before": {"id": "3", "amount": "0.20", "note": None, "status": None},
         "after": {"id": "3", "amount": "0.20", "note": None, "status": "paid"}},
    ]


def test_river_quarantine(lake, built):
    reasons = quarantine_reasons(lake, "kafka_river_canal", "river_bad")
    # the wording of a JSON syntax error (with its offset) is the landing step's
    reasons[2] = reasons[2][: len("invalid JSON")]
    assert reasons == [
        "unknown KafkaRiverCanal event: t",
        "KafkaRiverCanal message names a column twice",
        "invalid JSON",
        "missing table name",
    ]


# ---------------------------------------------------------------------------------------------
# Document 002: CloudCanal JSON and CloudCanal's Canal Json


def test_cloudcanal_doc_examples(lake, built):
    rows = staged(lake, "cloudcanal_json", "kafka_topic = 'cloudcanal_docs'")
    types = {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}
    jdbc = {"col1": "12", "col2": "12", "col_pk": "12"}
    assert rows == [
        # the DML example is a template: its action is "INSERT/DELETE/UPDATE"
        {
            "event_kind": "quarantine", "event_type": "INSERT/DELETE/UPDATE", "source_database": "db_test",
            "source_table": "table_test", "op": None, "key_columns": None, "before": None, "after": None,
            "column_types": types, "column_jdbc_types": jdbc, **NO_DDL, "event_ts": "2022-11-30 06:19:12",
            "source_log_file": None, "source_log_pos": None, "transaction_id": None,
            "quarantine_reason": "unknown CloudCanal action: INSERT/DELETE/UPDATE",
        },
        {
            "event_kind": "ddl", "event_type": "ALTER", "source_database": "db_test",
            "source_table": "table_test", "op": None, "key_columns": None, "before": None, "after": None,
            "column_types": types, "column_jdbc_types": jdbc, "ddl_type": "ALTER",
            "ddl_sql": "alter table table_test add col2 varchar(22) null", "ddl_key_columns": ["col_pk"],
            "event_ts": "2022-11-30 06:19:48", "source_log_file": None, "source_log_pos": None,
            "transaction_id": None, "quarantine_reason": None,
        },
    ]
    assert quarantine_reasons(lake, "cloudcanal_json", "cloudcanal_docs") == [
        "unknown CloudCanal action: INSERT/DELETE/UPDATE"
    ]


def test_cloudcanal_doc_instances_keyed_by_ddl_table_changes(lake, built):
    rows = lake.rows(
        "select op, key_columns, key_source, primary_key, before_primary_key, before, after "
        "from {schema}.cdc_changes where source_format = 'cloudcanal_json' and source_database = 'db_test' "
        "order by event_ts"
    )
    assert rows == [
        {"op": "insert", "key_columns": ["col_pk"], "key_source": "ddl", "primary_key": pk(col_pk="22"),
         "before_primary_key": None, "before": None, "after": ROW_22},
        {"op": "update", "key_columns": ["col_pk"], "key_source": "ddl", "primary_key": pk(col_pk="11"),
         "before_primary_key": pk(col_pk="22"), "before": ROW_22, "after": ROW_11},
    ]
    assert history(lake, "db_test", "table_test") == [
        (pk(col_pk="11"), 1, "update", ROW_11, "2022-11-30 06:19:12", None, True, False),
        (pk(col_pk="22"), 1, "insert", ROW_22, "2022-11-30 06:19:11", "2022-11-30 06:19:12", False, False),
        (pk(col_pk="22"), 2, "delete", ROW_22, "2022-11-30 06:19:12", None, True, True),
    ]
    assert current(lake, "db_test", "table_test") == [(pk(col_pk="11"), ROW_11)]


def test_canal_json_cloudcanal_doc_examples(lake, built):
    rows = staged(lake, "canal_json", "kafka_topic = 'canal_docs' and message_index < 2")
    types = {"col1": "varchar(22)", "col2": "varchar(22)", "col_pk": "varchar(22)"}
    jdbc = {"col1": "12", "col2": "12", "col_pk": "12"}
    assert rows == [
        {
            "event_kind": "quarantine", "event_type": "INSERT/DELETE/UPDATE", "source_database": "db_test",
            "source_table": "table_test", "op": None, "key_columns": ["col_pk"], "before": None, "after": None,
            # canal_json keeps the message's `sql` (here "") on every non-change row
            "column_types": types, "column_jdbc_types": jdbc, "ddl_type": None, "ddl_sql": "",
            "ddl_key_columns": None, "event_ts": "2022-11-30 06:47:27",
            "source_log_file": None, "source_log_pos": None, "transaction_id": None,
            "quarantine_reason": "unknown Canal type: INSERT/DELETE/UPDATE",
        },
        {
            "event_kind": "ddl", "event_type": "ALTER", "source_database": "db_test",
            "source_table": "table_test", "op": None, "key_columns": None, "before": None, "after": None,
            "column_types": types, "column_jdbc_types": jdbc, "ddl_type": "ALTER",
            "ddl_sql": "alter table table_test add col2 varchar(22) null", "ddl_key_columns": ["col_pk"],
            "event_ts": "2022-11-30 06:49:11", "source_log_file": None, "source_log_pos": None,
            "transaction_id": None, "quarantine_reason": None,
        },
    ]


def test_canal_json_cloudcanal_doc_instances(lake, built):
    assert history(lake, "db_canal", "table_test") == [
        (pk(col_pk="11"), 1, "update", ROW_11, "2022-11-30 06:47:27", None, True, False),
        (pk(col_pk="22"), 1, "insert", ROW_22, "2022-11-30 06:47:26", "2022-11-30 06:47:27", False, False),
        (pk(col_pk="22"), 2, "delete", ROW_22, "2022-11-30 06:47:27", None, True, True),
    ]
    assert current(lake, "db_canal", "table_test") == [(pk(col_pk="11"), ROW_11)]


def test_cloudcanal_stream_history_and_current(lake, built):
    a1, a9, b2 = pk(sku="A1"), pk(sku="A9"), pk(sku="B2")
    assert history(lake, "shop_cc", "items") == [
        (a1, 1, "insert", {"sku": "A1", "qty": "1", "price": "0.10"}, "2024-02-01 00:01:00", "2024-02-01 00:02:00", False, False),
        (a1, 2, "update", {"sku": "A1", "qty": "5", "price": "0.10"}, "2024-02-01 00:02:00", "2024-02-01 00:06:00", False, False),
        (a1, 3, "delete", {"sku": "A1", "qty": "5", "price": "0.10", "note": None}, "2024-02-01 00:06:00", None, True, True),
        (a9, 1, "update", {"sku": "A9", "qty": "5", "price": "0.10", "note": "x"}, "2024-02-01 00:06:00", None, True, False),
        (b2, 1, "insert", {"sku": "B2", "qty": "2", "price": "1.50E+3"}, "2024-02-01 00:01:00", "2024-02-01 00:03:00", False, False),
        (b2, 2, "delete", {"sku": "B2", "qty": "2", "price": "1.50E+3"}, "2024-02-01 00:03:00", "2024-02-01 00:04:00", False, True),
        (b2, 3, "insert", {"sku": "B2", "qty": "7", "price": "2.5"}, "2024-02-01 00:04:00", None, True, False),
    ]
    assert current(lake, "shop_cc", "items") == [
        (a9, {"sku": "A9", "qty": "5", "price": "0.10", "note": "x"}),
        (b2, {"sku": "B2", "qty": "7", "price": "2.5"}),
    ]
    one = pk(id="1")
    assert history(lake, "shop_cc", "prices") == [
        (one, 1, "insert", {"id": "1", "v": "9.90"}, "2024-02-01 00:01:00", "2024-02-01 00:02:00", False, False),
        (one, 2, "update", {"id": "1", "v": "8.80"}, "2024-02-01 00:02:00", "2024-02-01 00:03:00", False, False),
        (one, 3, "delete", {"id": "1", "v": "8.80"}, "2024-02-01 00:03:00", None, True, True),
    ]
    assert current(lake, "shop_cc", "prices") == []


def test_cloudcanal_stream_events(lake, built):
    kinds = lake.rows(
        "select event_kind, event_type, source_table, op, row_index, ddl_type, ddl_key_columns, key_columns "
        "from {schema}.int_cdc__events where source_format = 'cloudcanal_json' and source_uri like '%cloudcanal_stream%' "
        "order by message_index, row_index"
    )
    assert [tuple(r.values()) for r in kinds] == [
        ("ddl", "CREATE", "items", None, None, "CREATE", ["sku"], None),
        ("ddl", "CREATE", "prices", None, None, "CREATE", ["id"], None),
        ("change", "INSERT", "items", "insert", 0, None, None, ["sku"]),
        ("change", "INSERT", "items", "insert", 1, None, None, ["sku"]),
        ("control", "TRANSACTIONEND", None, None, None, None, None, None),
        ("change", "INSERT", "prices", "insert", 0, None, None, None),
        ("change", "UPDATE", "items", "update", 0, None, None, ["sku"]),
        ("change", "UPDATE", "prices", "update", 0, None, None, None),
        ("change", "DELETE", "items", "delete", 0, None, None, ["sku"]),
        ("change", "DELETE", "prices", "delete", 0, None, None, None),
        ("change", "INSERT", "items", "insert", 0, None, None, ["sku"]),
        ("ddl", "ALTER", "items", None, None, "ALTER", ["sku"], None),
        ("change", "UPDATE", "items", "update", 0, None, None, ["sku"]),
        ("change", "UPDATE", "items", "update", 0, None, None, ["sku"]),
    ]
    # the partial before image (only qty) is overlaid on data
    updates = lake.rows(
        "select before, after, column_types, column_jdbc_types from {schema}.cdc_changes "
        "where source_database = 'shop_cc' and source_table = 'items' and op = 'update' order by event_ts"
    )
    assert updates == [
        {"before": {"sku": "A1", "qty": "1", "price": "0.10"}, "after": {"sku": "A1", "qty": "5", "price": "0.10"},
         "column_types": CC_TYPES, "column_jdbc_types": {"sku": "12", "qty": "4", "price": "3"}},
        {"before": {"sku": "A1", "qty": "5", "price": "0.10", "note": None},
         "after": {"sku": "A9", "qty": "5", "price": "0.10", "note": "x"},
         "column_types": CC_TYPES, "column_jdbc_types": {"sku": "12", "qty": "4", "price": "3"}},
    ]
    assert quarantine_reasons(lake, "cloudcanal_json", "cloudcanal_bad") == [
        "unknown CloudCanal action: UPSERT",
        "CloudCanal INSERT message without rows",
    ]


# ---------------------------------------------------------------------------------------------
# Document 003: CKafka's canal-shaped DDL and format one


def test_ckafka_canal_ddl_doc_examples(lake, built):
    rows = lake.rows(
        "select source_format, source_database, source_table, ddl_type, sql, is_database_level, "
        "ddl_key_columns, cast(event_ts as string) as event_ts from {schema}.cdc_ddl "
        "where message_id in (select message_id from {schema}.int_cdc__events "
        "where source_format = 'canal_json' and kafka_topic = 'canal_docs' and message_index >= 2) order by message_index"
    )
    create_table_sql = json.loads(doc_example("003_canal_ckafka_create_table.txt"), strict=False)["sql"]
    assert create_table_sql.startswith("CREATE TABLE `customers` (\n`id` int NOT NULL AUTO_INCREMENT,")
    assert rows == [
        {"source_format": "canal_json", "source_database": "dip_test", "source_table": None, "ddl_type": "QUERY",
         "sql": "CREATE DATABASE `dip_test` CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci",
         "is_database_level": True, "ddl_key_columns": None, "event_ts": "2022-06-21 11:52:06"},
        {"source_format": "canal_json", "source_database": "dip_test", "source_table": None, "ddl_type": "QUERY",
         "sql": "DROP DATABASE IF EXISTS `dip_test`", "is_database_level": True, "ddl_key_columns": None,
         "event_ts": "2022-06-21 11:52:06"},
        {"source_format": "canal_json", "source_database": "dip_test", "source_table": "customers",
         "ddl_type": "CREATE", "sql": create_table_sql, "is_database_level": False, "ddl_key_columns": None,
         "event_ts": "2022-06-21 11:52:06"},
        {"source_format": "canal_json", "source_database": "test", "source_table": "user", "ddl_type": "ALTER",
         "sql": "ALTER TABLE `user` ADD COLUMN `createtime` datetime NULL DEFAULT CURRENT_TIMESTAMP",
         "is_database_level": False, "ddl_key_columns": None, "event_ts": "2022-06-21 03:29:13"},
        {"source_format": "canal_json", "source_database": "dip_test", "source_table": "customers",
         "ddl_type": "ERASE", "sql": "DROP TABLE IF EXISTS `dip_test`.`customers`", "is_database_level": False,
         "ddl_key_columns": None, "event_ts": "2022-06-21 11:52:06"},
        {"source_format": "canal_json", "source_database": "testDB", "source_table": "t_test", "ddl_type": "RENAME",
         "sql": "rename table test to t_test", "is_database_level": False, "ddl_key_columns": None,
         "event_ts": "2022-06-27 03:36:19.748"},
    ]
    # every table keyed by a DDL statement in this scenario (the sample streams' included)
    keys = lake.rows(
        "select source_database, source_table, key_columns, key_source from {schema}.int_cdc__table_keys "
        "where key_source = 'ddl' order by source_database, source_table"
    )
    assert keys == [
        {"source_database": "db_test", "source_table": "table_test", "key_columns": ["col_pk"], "key_source": "ddl"},
        {"source_database": "dip_test", "source_table": "customers", "key_columns": ["id"], "key_source": "ddl"},
        {"source_database": "membership", "source_table": "members", "key_columns": ["id"], "key_source": "ddl"},
        {"source_database": "shop_cc", "source_table": "items", "key_columns": ["sku"], "key_source": "ddl"},
        {"source_database": "shop_cc", "source_table": "prices", "key_columns": ["id"], "key_source": "ddl"},
        {"source_database": "shop_ck", "source_table": "users", "key_columns": ["id"], "key_source": "ddl"},
        {"source_database": "teahouse", "source_table": "products", "key_columns": ["sku"], "key_source": "ddl"},
        {"source_database": "teahouse", "source_table": "stock", "key_columns": ["sku", "warehouse"],
         "key_source": "ddl"},
    ]


ANNE = {"last_name": "Kretchmar", "id": "1004", "first_name": "Anne", "email": "annek@noanswer.org"}
ANNE_MARIE = {**ANNE, "first_name": "Anne Marie"}


def test_ckafka_format_one_doc_examples(lake, built):
    common = {
        "source_database": "inventory", "source_table": "customers", "key_columns": None, "column_types": None,
        "column_jdbc_types": None, **NO_DDL, "source_log_file": "mysql-bin.000003", "transaction_id": None,
        "quarantine_reason": None, "event_kind": "change",
    }
    assert staged(lake, "ckafka_format_one", "kafka_topic = 'ckafka_docs'") == [
        # TIME is Asia/Shanghai local time: 19700101080000 is the epoch
        {**common, "event_type": "I", "op": "insert", "before": None, "after": ANNE,
         "event_ts": "1970-01-01 00:00:00", "source_log_pos": 154},
        {**common, "event_type": "U", "op": "update", "before": ANNE, "after": ANNE_MARIE,
         "event_ts": "2016-06-10 17:50:29", "source_log_pos": 484},
        {**common, "event_type": "D", "op": "delete", "before": ANNE_MARIE, "after": None,
         "event_ts": "2016-06-10 18:05:02", "source_log_pos": 805},
    ]
    # no key names and no DDL for inventory.customers: keyed by row image, the update continues
    # the inserted row (one chain, named by the insert) and the delete ends it
    anne = row_image_chain(lake, "inventory", "customers", ANNE)
    assert history(lake, "inventory", "customers") == [
        (anne, 1, "insert", ANNE, "1970-01-01 00:00:00", "2016-06-10 17:50:29", False, False),
        (anne, 2, "update", ANNE_MARIE, "2016-06-10 17:50:29", "2016-06-10 18:05:02", False, False),
        (anne, 3, "delete", ANNE_MARIE, "2016-06-10 18:05:02", None, True, True),
    ]
    assert current(lake, "inventory", "customers") == []


def test_ckafka_stream_history_and_current(lake, built):
    one, two, three = pk(id="1"), pk(id="2"), pk(id="3")
    assert history(lake, "shop_ck", "users") == [
        (one, 1, "insert", {"id": "1", "name": "Ann", "score": "0.10"}, "2024-03-01 00:01:00", "2024-03-01 00:03:00", False, False),
        (one, 2, "update", {"id": "1", "name": "Anne", "score": "0.10"}, "2024-03-01 00:03:00", "2024-03-01 00:07:00", False, False),
        (one, 3, "delete", {"id": "1", "name": "Anne", "score": "0.10", "email": None}, "2024-03-01 00:07:00", None, True, True),
        (two, 1, "insert", {"id": "2", "name": "Bob", "score": "1e5"}, "2024-03-01 00:02:00", "2024-03-01 00:04:00", False, False),
        (two, 2, "delete", {"id": "2", "name": "Bob", "score": "1e5"}, "2024-03-01 00:04:00", "2024-03-01 00:05:00", False, True),
        (two, 3, "insert", {"id": "2", "name": "Bob", "score": "7"}, "2024-03-01 00:05:00", None, True, False),
        (three, 1, "update", {"id": "3", "name": "Anne", "score": "0.10", "email": "a@x"}, "2024-03-01 00:07:00", None, True, False),
    ]
    assert current(lake, "shop_ck", "users") == [
        (two, {"id": "2", "name": "Bob", "score": "7"}),
        (three, {"id": "3", "name": "Anne", "score": "0.10", "email": "a@x"}),
    ]
    # shop_ck.logs has no key: keyed by row image, its update continues the inserted row
    log = row_image_chain(lake, "shop_ck", "logs", {"msg": "a", "lvl": "1"})
    assert history(lake, "shop_ck", "logs") == [
        (log, 1, "insert", {"msg": "a", "lvl": "1"}, "2024-03-01 00:01:30", "2024-03-01 00:03:30", False, False),
        (log, 2, "update", {"msg": "a", "lvl": "2"}, "2024-03-01 00:03:30", None, True, False),
    ]
    assert current(lake, "shop_ck", "logs") == [(log, {"msg": "a", "lvl": "2"})]


def test_ckafka_stream_events(lake, built):
    rows = lake.rows(
        "select event_kind, event_type, source_table, op, ddl_type, source_log_pos, transaction_id, "
        "cast(event_ts as string) as event_ts from {schema}.int_cdc__events "
        "where source_format = 'ckafka_format_one' and source_uri like '%ckafka_stream%' order by message_index"
    )
    assert [tuple(r.values()) for r in rows] == [
        ("ddl", "CREATE", "users", None, "CREATE", None, None, "2024-03-01 00:00:00"),
        ("change", "I", "users", "insert", None, 100, f"{GTID}:100", "2024-03-01 00:01:00"),
        ("change", "I", "logs", "insert", None, 150, f"{GTID}:150", "2024-03-01 00:01:30"),
        ("change", "l", "users", "insert", None, 200, f"{GTID}:200", "2024-03-01 00:02:00"),
        ("change", "U", "users", "update", None, 300, f"{GTID}:300", "2024-03-01 00:03:00"),
        ("change", "U", "logs", "update", None, 350, f"{GTID}:350", "2024-03-01 00:03:30"),
        ("change", "D", "users", "delete", None, 400, f"{GTID}:400", "2024-03-01 00:04:00"),
        ("change", "i", "users", "insert", None, 500, f"{GTID}:500", "2024-03-01 00:05:00"),
        ("ddl", "ALTER", "users", None, "ALTER", None, None, "2024-03-01 00:06:00"),
        ("change", "U", "users", "update", None, 700, f"{GTID}:700", "2024-03-01 00:07:00"),
        ("change", "U", "users", "update", None, 300, f"{GTID}:300", "2024-03-01 00:03:00"),
    ]
    key_sources = lake.rows(
        "select source_table, key_source, count(*) as changes from {schema}.cdc_changes "
        "where source_database = 'shop_ck' group by source_table, key_source order by source_table"
    )
    # the duplicate delivery of K4 is one change
    assert key_sources == [
        {"source_table": "logs", "key_source": "row_image", "changes": 2},
        {"source_table": "users", "key_source": "ddl", "changes": 6},
    ]
    assert quarantine_reasons(lake, "ckafka_format_one", "ckafka_bad") == [
        "unknown CKafka format one TYPE: X",
        "canal-shaped INSERT message: only the DDL messages of this shape are read as ckafka_format_one; "
        "land canal-shaped DML as canal_json",
        "CKafka delete without OLD_VALUES (a JSON object)",
    ]


def test_row_image_key_warning(lake, built):
    results = {r.node.name: r for r in built["result"].results}
    warning = results["warn_cdc_tables_keyed_by_row_image"]
    assert warning.status == "warn"
    assert warning.failures == 3
    assert lake.rows(
        "select source_database, source_table from {schema}.int_cdc__changes_keyed "
        "where key_source = 'row_image' group by source_database, source_table order by 1, 2"
    ) == [
        {"source_database": "inventory", "source_table": "customers"},
        {"source_database": "membership", "source_table": "page_views"},
        {"source_database": "shop_ck", "source_table": "logs"},
    ]


# ---------------------------------------------------------------------------------------------
# Exact values and reconciliation


def test_values_keep_their_exact_text(lake, built):
    """Bare JSON numbers reach row/before/after with every character they were written with."""
    rows = lake.rows(
        "select source_format, op, before, after from {schema}.cdc_changes where "
        "(source_database = 'shop_river' and source_log_pos in (200, 400)) "
        "or (source_database = 'shop_cc' and source_table = 'items' and op in ('insert', 'delete') "
        "and event_ts < timestamp'2024-02-01 00:04:00') "
        "or (source_database = 'shop_ck' and source_log_pos in (100, 150, 200, 400)) "
        "order by source_format, event_ts, row_index"
    )
    assert rows == [
        {"source_format": "ckafka_format_one", "op": "insert", "before": None,
         "after": {"id": "1", "name": "Ann", "score": "0.10"}},
        {"source_format": "ckafka_format_one", "op": "insert", "before": None, "after": {"msg": "a", "lvl": "1"}},
        {"source_format": "ckafka_format_one", "op": "insert", "before": None,
         "after": {"id": "2", "name": "Bob", "score": "1e5"}},
        {"source_format": "ckafka_format_one", "op": "delete", "before": {"id": "2", "name": "Bob", "score": "1e5"},
         "after": None},
        {"source_format": "cloudcanal_json", "op": "insert", "before": None,
         "after": {"sku": "A1", "qty": "1", "price": "0.10"}},
        {"source_format": "cloudcanal_json", "op": "insert", "before": None,
         "after": {"sku": "B2", "qty": "2", "price": "1.50E+3"}},
        {"source_format": "cloudcanal_json", "op": "delete", "before": {"sku": "B2", "qty": "2", "price": "1.50E+3"},
         "after": None},
        {"source_format": "kafka_river_canal", "op": "insert", "before": None,
         "after": {"id": "2", "amount": "12345678901234567890.1234567890", "note": None}},
        {"source_format": "kafka_river_canal", "op": "delete",
         "before": {"id": "2", "amount": "12345678901234567890.1234567890", "note": None}, "after": None},
    ]


def test_every_landed_message_is_accounted_for(lake, built):
    audit = {
        (Path(r["landed_input"]).name if r["landed_input"].startswith("/") else r["landed_input"]): (
            r["landed_messages"], r["messages_with_changes"], r["messages_with_ddl"],
            r["control_messages"], r["quarantined_messages"], r["unaccounted_messages"],
        )
        for r in lake.rows("select * from {schema}.cdc_landing_audit")
    }
    assert audit == {
        "river_docs/0": (3, 3, 0, 0, 0, 0),
        "river_stream.jsonl": (8, 8, 0, 0, 0, 0),
        "river_bad.jsonl": (4, 0, 0, 0, 4, 0),
        "cloudcanal_docs/0": (2, 0, 1, 0, 1, 0),
        "cloudcanal_doc_instances.jsonl": (2, 2, 0, 0, 0, 0),
        "cloudcanal_stream.jsonl": (13, 9, 3, 1, 0, 0),
        "cloudcanal_bad.jsonl": (2, 0, 0, 0, 2, 0),
        "canal_docs/0": (8, 0, 7, 0, 1, 0),
        "canal_doc_instances.jsonl": (2, 2, 0, 0, 0, 0),
        "ckafka_docs/0": (3, 3, 0, 0, 0, 0),
        "ckafka_stream.jsonl": (11, 9, 2, 0, 0, 0),
        "ckafka_bad.jsonl": (3, 0, 0, 0, 3, 0),
        "retail.jsonl": (9, 9, 0, 0, 0, 0),
        "teahouse.jsonl": (10, 7, 2, 1, 0, 0),
        "membership.jsonl": (10, 8, 2, 0, 0, 0),
    }


def test_sample_data_streams(lake, built):
    """The demo's sample streams parse completely; their final state, table by table."""
    live = lake.rows(
        "select source_format, source_database, source_table, array_sort(collect_list(primary_key)) as keys "
        "from {schema}.cdc_current where source_database in ('retail', 'teahouse', 'membership') "
        "group by source_format, source_database, source_table order by 2, 3"
    )
    assert live == [
        {"source_format": "ckafka_format_one", "source_database": "membership", "source_table": "members",
         "keys": [pk(id="100")]},
        {"source_format": "ckafka_format_one", "source_database": "membership", "source_table": "page_views",
         # no key: the row inserted for member 1, which an update renumbered 100, is one row
         "keys": [row_image_chain(lake, "membership", "page_views",
                                  {"member_id": "1", "path": "/tea", "seen_at": "2024-06-03 08:02:00"})]},
        {"source_format": "kafka_river_canal", "source_database": "retail", "source_table": "customers",
         "keys": [pk(id="1"), pk(id="2")]},
        {"source_format": "kafka_river_canal", "source_database": "retail", "source_table": "orders",
         "keys": [pk(order_id="9102")]},
        {"source_format": "cloudcanal_json", "source_database": "teahouse", "source_table": "products",
         "keys": [pk(sku="CUP-08"), pk(sku="TEA-01")]},
        {"source_format": "cloudcanal_json", "source_database": "teahouse", "source_table": "stock",
         "keys": [pk(sku="CUP-07", warehouse="SH")]},
    ]
    rows = {
        (r["source_database"], r["source_table"], r["primary_key"]): r["row"]
        for r in lake.rows("select * from {schema}.cdc_current where source_database in ('retail', 'teahouse', 'membership')")
    }
    assert rows[("membership", "members", pk(id="100"))] == {"id": "100", "nick": "小龙", "points": "0.10", "level": "3"}
    assert rows[("retail", "customers", pk(id="1"))] == {"id": "1", "name": "王芳", "city": "上海", "vip": "1"}
    assert rows[("retail", "customers", pk(id="2"))] == {"id": "2", "name": "Li Lei", "city": "北京"}
    assert rows[("retail", "orders", pk(order_id="9102"))] == {
        "order_id": "9102", "customer_id": "2", "amount": "12345678901234567890.1234567890"
    }
    assert rows[("teahouse", "products", pk(sku="TEA-01"))] == {"sku": "TEA-01", "title": "Longjing tea", "price": "0.12"}
    assert rows[("teahouse", "products", pk(sku="CUP-08"))] == {
        "sku": "CUP-08", "title": "Gaiwan", "price": "89.90", "origin": "景德镇"
    }
    assert rows[("teahouse", "stock", pk(sku="CUP-07", warehouse="SH"))] == {"sku": "CUP-07", "warehouse": "SH", "qty": "11"}
    audit = lake.rows(
        "select sum(landed_messages) as landed, sum(quarantined_messages) as quarantined, "
        "sum(unaccounted_messages) as unaccounted from {schema}.cdc_landing_audit where landed_input like '%sample_data%'"
    )
    assert audit == [{"landed": 29, "quarantined": 0, "unaccounted": 0}]
