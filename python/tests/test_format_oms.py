"""OceanBase OMS formats (doc 004) end to end: oms_default, oms_extend_column_type, oms_dataworks,
oms_shareplex, and the OMS "Canal" variant through canal_json.

One scenario and one dbt build for the module: every doc-004 example verbatim (one Kafka topic per
format), the shipped sample streams (sample_data/oms_*/), a cross-landing duplicate, and a few edge
cases. Every expectation is written out.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from conftest import FIXTURES, doc_example, write_jsonl, write_kafka_parquet

PROJECT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT / "sample_data"


# The two long numbers of doc 004, digit for digit: the exact decimal expansion of the largest
# double below 1e-307, once as 9.99...E-308 (771 characters) and once as 0.000...999 (1074).
DIGITS = (
    "99999999999999990932662533724846199547048873403204569370722504933164788134100221702366853061"
    "10285951575783017584918228243784387925532007637698337754738298625128566834134619399897290654"
    "36937279228852476622948659167943435544622149348072943613294167216662821737555414480159115639"
    "79127605489720142038977058035153396077150619905566488977026029171097782672502440171652303162"
    "73906526041440085979509354924332620424056355639932629496916989309754611348047912359946979384"
    "05200089317860731205010159117711704697471514344499487123311264707354172378099538737850219826"
    "14510236627959137966047188125997672735652160240532978990624776352152598139144388761857527558"
    "86199280891169050617119753084678577564058109616190743318668839610809435427125598308539800029"
    "84826569445431232452392578125"
)
E308 = "9." + DIGITS[1:] + "E-308"
TINY = "0." + "0" * 307 + DIGITS

# --- the doc-004 examples, in landing order (offset = position), with the expected staging rows --

DOC_ORDER = {
    "oms_default": ["insert", "update", "delete", "template"],
    "oms_extend_column_type": ["insert", "update", "delete", "template"],
    "oms_dataworks": ["insert", "update", "delete", "heartbeat", "template"],
    "oms_shareplex": ["insert", "update", "delete", "template"],
    "canal_oms": ["insert", "update", "delete", "template"],
}

DEFAULT_INSERT_POST = {
    "col1": "3", "col2": "129", "col3": "2147483646", "col4": "9223372036854775806",
    "col5": "10223372036854775806", "col6": "1.2222", "col7": "9.999999", "col8": "hello world",
    "col9": "aGVsbG8gd29ybGQ=", "col10": "9.99999999999", "col11": "2020-11-25", "col12": "00:01:02",
    "col13": "2020-11-25 00:01:02", "col14": "1606233662.012345",
}
DEFAULT_UPDATE_PREV = {**DEFAULT_INSERT_POST, "col7": "9.999999999999", "col10": "9.999999999999"}
DEFAULT_UPDATE_POST = {**DEFAULT_UPDATE_PREV, "col8": "hello world 2020"}
# the doc's DELETE example writes col16 where the others have col6, and other digits
DEFAULT_DELETE_PREV = {
    "col1": "3", "col2": "129", "col3": "2147483646", "col4": "9223372036854775806",
    "col5": "10223372036854775806", "col16": "1.2222", "col7": "9.99999999", "col8": "hello world",
    "col9": "aGVsbG8gd29ybGQ=", "col10": "9.999999999", "col11": "2020-11-25", "col12": "00:01:02",
    "col13": "2020-11-25 00:01:02", "col14": "1606233662.012345",
}
EXTEND_IMAGE = {**DEFAULT_INSERT_POST, "col7": E308, "col10": E308}
EXTEND_TYPES = {
    "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "INT64", "bigInt": "BIGINT",
    "float32": "FLOAT", "float64": "DOUBLE", "string": "VARCHAR", "bytes": "BLOB", "decimal": "DECIMAL",
    "localDate": "DATE", "localTime": "TIME", "localDateTime": "DATETIME", "timestamp_in_long": "TIMESTAMP",
}
DATAWORKS_IMAGE = {
    "col1": "3", "col2": "129", "col3": "2147483646", "col4": "9223372036854775806", "col5": "1.2222",
    "col6": TINY, "col7": "10223372036854775806", "col8": "1", "col9": "hello world",
    "col10": "aGVsbG8gd29ybGQ=", "col11": TINY, "col12": "2020-11-25", "col13": "00:01:02",
    "col14": "2020-11-25 00:01:02", "col15": "1606233662.012345",
    "col16": "2020-11-25 00:01:02.012345 Asia/Shanghai", "col17": "INTERVAL '3' DAY",
    "col18": "INTERVAL '4' YEAR",
}
DATAWORKS_TYPES = {
    "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "INT64", "float32": "FLOAT",
    "float64": "DOUBLE", "bigInt": "BIGINT", "boolean": "BOOLEAN", "string": "VARCHAR", "bytes": "BLOB",
    "decimal": "DECIMAL", "localDate": "DATE", "localTime": "TIME", "localDateTime": "DATETIME",
    "timestamp": "TIMESTAMP", "zonedDateTime": "ZONED_DATETIME",
    "intervalDayToSecond": "INTERVAL_DAY_TO_SECOND", "intervalYearToMonth": "INTERVAL_YEAR_TO_MONTH",
}
SHAREPLEX_IMAGE = {
    "col1": "2020-11-25 00:01:02", "col2": "hello world", "col3": "INTERVAL '3' DAY", "col4": "1.2222",
    "col5": E308, "col6": "129", "col7": "00:01:02", "col8": "1",
    "col9": "2020-11-25 00:01:02.012345 Asia/Shanghai", "col10": "2147483646",
    "col11": "9223372036854775806", "col12": "aGVsbG8gd29ybGQ=", "col13": "INTERVAL '4' YEAR",
    "col14": "3", "col15": "2020-11-25", "col16": E308, "col17": "10223372036854775806",
    "col18": "1606233662.012345",
}
CANAL_OMS_IMAGE = {
    "col1": "2020-11-25 00:01:02", "col2": "hello world", "col3": "1.2222", "col4": E308, "col5": "129",
    "col6": "00:01:02", "col7": "2147483646", "col8": "9223372036854775806", "col9": "aGVsbG8gd29ybGQ=",
    "col10": "3", "col11": "2020-11-25", "col12": E308, "col13": "10223372036854775806",
    "col14": "1606233662.012345",
}

DOC_TS_DEFAULT = datetime(2020, 12, 30, 16, 11, 11)  # allMetaData.timestamp 1609344671 (seconds)
DOC_TS_SHAREPLEX = datetime(2020, 11, 25, 0, 1, 2)  # meta.time 2020-11-25T00:01:02
# The templates are not JSON; landing tells where each stops being JSON.
TEMPLATE_REASONS = {
    "oms_default": "invalid JSON at offset 147: Expecting ':' delimiter",  # "allMetaData" {
    "oms_extend_column_type": "invalid JSON at offset 180: Expecting ':' delimiter",  # "allMetaData" {}
    "oms_dataworks": "invalid JSON at offset 287: Expecting ',' delimiter",  # } "column": no comma
    "oms_shareplex": "invalid JSON at offset 310: Expecting value",  # "size": NUMBER
    "canal_oms": "invalid JSON at offset 98: Expecting value",  # "col1": INTEGER
}


def template_row(format_id: str) -> tuple:
    return ("quarantine", None, None, None, None, None, None, None, None, TEMPLATE_REASONS[format_id])


# (event_kind, event_type, database, table, op, key_columns, before, after, event_ts, quarantine_reason)
EXPECTED_DOC_STAGING = {
    "oms_default": [
        ("change", "INSERT", "tenant.database", "table_name", "insert", ["int8", "int16"], None,
         DEFAULT_INSERT_POST, DOC_TS_DEFAULT, None),
        ("change", "UPDATE", "tenant.database", "table_name", "update", ["int8", "int16"],
         DEFAULT_UPDATE_PREV, DEFAULT_UPDATE_POST, DOC_TS_DEFAULT, None),
        ("change", "DELETE", "tenant.database", "table_name", "delete", ["int8", "int16"],
         DEFAULT_DELETE_PREV, None, DOC_TS_DEFAULT, None),
        template_row("oms_default"),
    ],
    "oms_extend_column_type": [
        ("change", "INSERT", "database", "table", "insert", ["int8", "int16"], None, EXTEND_IMAGE,
         DOC_TS_DEFAULT, None),
        ("change", "UPDATE", "database", "table", "update", ["int8", "int16"], EXTEND_IMAGE,
         {**EXTEND_IMAGE, "col8": "hello world 2020"}, DOC_TS_DEFAULT, None),
        ("change", "DELETE", "database", "table", "delete", ["int8", "int16"], EXTEND_IMAGE, None,
         DOC_TS_DEFAULT, None),
        template_row("oms_extend_column_type"),
    ],
    "oms_dataworks": [
        # the INSERT example's pk says pkName12 where the others say pkName2
        ("change", "INSERT", "db", "tab", "insert", ["pkName1", "pkName12"], None, DATAWORKS_IMAGE,
         datetime(2022, 3, 18, 5, 23, 20), None),
        ("change", "UPDATE", "db", "tab", "update", ["pkName1", "pkName2"], DATAWORKS_IMAGE,
         {**DATAWORKS_IMAGE, "col9": "hello world 2020"}, datetime(2022, 3, 18, 5, 23, 58), None),
        ("change", "DELETE", "db", "tab", "delete", ["pkName1", "pkName2"], DATAWORKS_IMAGE, None,
         datetime(2022, 3, 18, 5, 24, 32), None),
        ("control", "HEARTBEAT", None, None, None, None, None, None, datetime(2021, 5, 8, 7, 7, 39), None),
        template_row("oms_dataworks"),
    ],
    "oms_shareplex": [
        ("change", "ins", "mock_database", "mock_table", "insert", None, None, SHAREPLEX_IMAGE,
         DOC_TS_SHAREPLEX, None),
        # data holds only the changed column ("string", not a column of `key`): the after image is
        # `key` overlaid with `data`, so it gains that column
        ("change", "upd", "mock_database", "mock_table", "update", None, SHAREPLEX_IMAGE,
         {**SHAREPLEX_IMAGE, "string": "hello world 2020"}, DOC_TS_SHAREPLEX, None),
        ("change", "del", "mock_database", "mock_table", "delete", None, SHAREPLEX_IMAGE, None,
         DOC_TS_SHAREPLEX, None),
        template_row("oms_shareplex"),
    ],
}

# What becomes of each example downstream: a cdc_changes row, or a cdc_quarantine reason. The
# examples name key columns (int8/int16, pkName1/pkName2) that are not columns of their images:
# they are quarantined, honestly. SharePlex names none, but meta.rowid carries the key values.
MISSING_INT8 = "key column(s) int8, int16 missing from the row image"
EXPECTED_DOC_QUARANTINE = {
    "oms_default": [MISSING_INT8, MISSING_INT8, MISSING_INT8, TEMPLATE_REASONS["oms_default"]],
    "oms_extend_column_type": [MISSING_INT8, MISSING_INT8, MISSING_INT8, TEMPLATE_REASONS["oms_extend_column_type"]],
    "oms_dataworks": [
        "key column(s) pkName1, pkName12 missing from the row image",
        "key column(s) pkName1, pkName2 missing from the row image",
        "key column(s) pkName1, pkName2 missing from the row image",
        None,
        TEMPLATE_REASONS["oms_dataworks"],
    ],
    "oms_shareplex": [None, None, None, TEMPLATE_REASONS["oms_shareplex"]],
    "canal_oms": [None, None, MISSING_INT8, TEMPLATE_REASONS["canal_oms"]],
}

# --- detection (--format auto) of every fixture of doc 000-004 -----------------------------------

EXPECTED_DETECTION = {
    "000_canal_alter_add_column.txt": "canal_json",
    "000_canal_alter_drop_column.txt": "canal_json",
    "000_canal_cindex.txt": "canal_json",
    "000_canal_create_table.txt": "canal_json",
    "000_canal_delete.txt": "canal_json",
    "000_canal_delete_multi_row.txt": "canal_json",
    "000_canal_erase.txt": "canal_json",
    "000_canal_insert.txt": "canal_json",
    "000_canal_rename.txt": "canal_json",
    "000_canal_update.txt": "canal_json",
    "000_canal_update_multi_row.txt": "canal_json",
    "001_kafka_river_canal_delete.txt": "kafka_river_canal",
    "001_kafka_river_canal_insert.txt": "kafka_river_canal",
    "001_kafka_river_canal_update.txt": "kafka_river_canal",
    "002_canal_json_cloudcanal_ddl.txt": "canal_json",
    "002_canal_json_cloudcanal_dml.txt": "canal_json",
    "002_cloudcanal_json_ddl.txt": "cloudcanal_json",
    "002_cloudcanal_json_dml.txt": "cloudcanal_json",
    "002_debezium_cloudcanal_ddl.txt": "debezium_json",
    "002_debezium_cloudcanal_dml.txt": "debezium_json",
    "003_canal_ckafka_alter_table.txt": "canal_json",
    "003_canal_ckafka_create_database.txt": "canal_json",
    "003_canal_ckafka_create_table.txt": "canal_json",
    "003_canal_ckafka_drop_database.txt": "canal_json",
    "003_canal_ckafka_drop_table.txt": "canal_json",
    "003_canal_ckafka_rename_table.txt": "canal_json",
    "003_ckafka_format_one_delete.txt": "ckafka_format_one",
    "003_ckafka_format_one_insert.txt": "ckafka_format_one",
    "003_ckafka_format_one_update.txt": "ckafka_format_one",
    "004_canal_oms_delete.txt": "canal_json",
    "004_canal_oms_insert.txt": "canal_json",
    "004_canal_oms_template.txt": "canal_json",
    "004_canal_oms_update.txt": "canal_json",
    "004_oms_dataworks_delete.txt": "oms_dataworks",
    "004_oms_dataworks_heartbeat.txt": "oms_dataworks",
    "004_oms_dataworks_insert.txt": "oms_dataworks",
    "004_oms_dataworks_template.txt": "oms_dataworks",
    "004_oms_dataworks_update.txt": "oms_dataworks",
    "004_oms_default_delete.txt": "oms_default",
    "004_oms_default_insert.txt": "oms_default",
    "004_oms_default_template.txt": "oms_default",
    "004_oms_default_update.txt": "oms_default",
    "004_oms_extend_column_type_delete.txt": "oms_extend_column_type",
    "004_oms_extend_column_type_insert.txt": "oms_extend_column_type",
    "004_oms_extend_column_type_template.txt": "oms_extend_column_type",
    "004_oms_extend_column_type_update.txt": "oms_extend_column_type",
    "004_oms_shareplex_delete.txt": "oms_shareplex",
    "004_oms_shareplex_insert.txt": "oms_shareplex",
    "004_oms_shareplex_template.txt": "oms_shareplex",
    "004_oms_shareplex_update.txt": "oms_shareplex",
}


def doc_fixture(group: str, kind: str) -> str:
    prefix = "004_canal_oms" if group == "canal_oms" else f"004_{group}"
    return f"{prefix}_{kind}.txt"


# --- edge cases (database oms_edge) --------------------------------------------------------------


def oms_edge(record_type, table="t_edge", prev=None, post=None, pk="id", ts="1700009000", **meta):
    return {
        "allMetaData": {"record_primary_key": pk, "table_name": table, "db": "oms_edge", "timestamp": ts, **meta},
        "prevStruct": prev,
        "recordType": record_type,
        "postStruct": post,
    }


EDGE_DEFAULT = [
    # exotic number texts, a null and an escaped string
    '{"allMetaData":{"record_primary_key":"id","table_name":"t_numbers","db":"oms_edge","timestamp":"1700009000",'
    '"storeDataSequence":170000900000001,"transId":"tx-9"},"recordType":"INSERT","prevStruct":null,'
    '"postStruct":{"id":7,"a":1.0E+10,"b":-0.0,"c":1e400,"d":0.10,"e":null,"f":"caf\\u00e9 \\"q\\""}}',
    json.dumps(oms_edge("UPSERT", post={"id": 1})),
    json.dumps(oms_edge("INSERT", post=None)),
    json.dumps(oms_edge("INSERT", table="", post={"id": 1})),
    json.dumps(oms_edge("DDL", post={"other": "x"})),
    json.dumps(oms_edge("DDL", post={"ddl": "truncate table t_edge"}, ddlType="TRUNCATE")),
    json.dumps(oms_edge("DDL", post={"ddl": "CREATE INDEX idx_a ON t_edge (a)"}, ddlType="CREATE_INDEX")),
    json.dumps(oms_edge("INSERT", table="t_nokey", post={"a": 1}, pk="")),
    '[' + json.dumps(oms_edge("HEARTBEAT", table=None, pk=None)) + ', '
    + json.dumps(oms_edge("ROW", table="t_array", post={"id": 5}, ts=None)) + ']',
]
EXPECTED_EDGE_DEFAULT = [
    # (event_kind, event_type, table, op, after, ddl_type, ddl_sql, reason)
    ("change", "INSERT", "t_numbers", "insert",
     {"id": "7", "a": "1.0E+10", "b": "-0.0", "c": "1e400", "d": "0.10", "e": None, "f": 'café "q"'},
     None, None, None),
    ("quarantine", "UPSERT", "t_edge", None, None, None, None, "unknown OMS recordType: UPSERT"),
    ("quarantine", "INSERT", "t_edge", "insert", None, None, None, "OMS INSERT message without postStruct"),
    ("quarantine", "INSERT", None, "insert", {"id": "1"}, None, None, "missing table name"),
    ("quarantine", "DDL", "t_edge", None, None, None, None, "OMS DDL message without postStruct.ddl"),
    ("ddl", "DDL", "t_edge", None, None, "TRUNCATE", "truncate table t_edge", None),
    ("ddl", "DDL", "t_edge", None, None, "CINDEX", "CREATE INDEX idx_a ON t_edge (a)", None),
    ("change", "INSERT", "t_nokey", "insert", {"a": "1"}, None, None, None),
    ("control", "HEARTBEAT", None, None, None, None, None, None),
    ("change", "ROW", "t_array", "snapshot", {"id": "5"}, None, None, None),
]


def dataworks_edge(op, before=None, after=None, ddl=None, db="oms_edge", schema=None, table="t_dw"):
    return json.dumps({
        "version": "2.0",
        "schema": {"source": {"dbName": db, "schema": schema, "table": table}, "pk": ["id"]},
        "payload": {"before": {"data": before} if before else None, "after": {"data": after} if after else None,
                    "op": op, "timestamp": {"eventTime": 1700009000000}, "ddl": ddl, "scn": "77"},
    })


EDGE_DATAWORKS = [
    dataworks_edge("insert", after={"id": 1}),
    dataworks_edge("GTID"),
    dataworks_edge("XACOMMIT"),
    dataworks_edge("XAROLLBACK"),
    dataworks_edge("TRUNCATE", ddl={"text": "TRUNCATE TABLE t_dw"}),
    dataworks_edge("ERASE", ddl="DROP TABLE t_dw"),
    dataworks_edge("ALTER"),
    dataworks_edge("UPDATE", before={"id": 1}),
    dataworks_edge("INSERT", after={"ID": 1}, db="ORCL", schema="SCOTT", table="EMP"),
]
EXPECTED_EDGE_DATAWORKS = [
    # (event_kind, event_type, database, op, after, ddl_type, ddl_sql, reason)
    ("quarantine", "insert", "oms_edge", None, None, None, None, "unknown Dataworks payload.op: insert"),
    ("control", "GTID", "oms_edge", None, None, None, None, None),
    ("control", "XACOMMIT", "oms_edge", None, None, None, None, None),
    ("control", "XAROLLBACK", "oms_edge", None, None, None, None, None),
    ("ddl", "TRUNCATE", "oms_edge", None, None, "TRUNCATE", "TRUNCATE TABLE t_dw", None),
    ("ddl", "ERASE", "oms_edge", None, None, "ERASE", "DROP TABLE t_dw", None),
    ("quarantine", "ALTER", "oms_edge", None, None, "ALTER", None, "Dataworks DDL message without payload.ddl.text"),
    ("quarantine", "UPDATE", "oms_edge", "update", None, None, None,
     "Dataworks UPDATE message without payload.after.data"),
    ("change", "INSERT", "ORCL.SCOTT", "insert", {"ID": "1"}, None, None, None),
]


def shareplex_edge(op, data=None, key=None, table="oms_edge.t_sp", rowid=None):
    meta = {"op": op, "table": table, "time": "2023-11-15T00:00:00", "scn": "9"}
    if rowid is not None:
        meta["rowid"] = rowid
    message = {"data": data, "meta": meta}
    if key is not None:
        message["key"] = key
    return json.dumps(message)


EDGE_SHAREPLEX = [
    shareplex_edge("truncate"),
    shareplex_edge("upd", data={"a": 2}),
    shareplex_edge("ins", data={"a": 1}, table="lonely"),
    shareplex_edge("ins", data=None),
    # meta.rowid is "{meta.table}-{key values joined by \u0001}"; any other rowid is not read as a key
    shareplex_edge("ins", data={"a": 1, "b": ""}, rowid="oms_edge.t_sp-1\u0001"),
    shareplex_edge("ins", data={"a": 1}, rowid="oms_edge.t_other-1"),
    shareplex_edge("ins", data={"a": 1}, rowid="oms_edge.t_sp1"),
    shareplex_edge("ins", data={"a": 1}, rowid="1"),
]
BAD_ROWID = 'SharePlex meta.rowid does not start with meta.table followed by "-", so its key values cannot be read'
EXPECTED_EDGE_SHAREPLEX = [
    # (event_kind, event_type, database, table, op, row_key_values, after, reason)
    ("quarantine", "truncate", "oms_edge", "t_sp", None, None, None, "unknown SharePlex meta.op: truncate"),
    ("quarantine", "upd", "oms_edge", "t_sp", "update", None, {"a": "2"},
     "SharePlex upd message without key (the before image)"),
    ("change", "ins", None, "lonely", "insert", None, {"a": "1"}, None),
    ("quarantine", "ins", "oms_edge", "t_sp", "insert", None, None, "SharePlex ins message without data"),
    ("change", "ins", "oms_edge", "t_sp", "insert", ["1", ""], {"a": "1", "b": ""}, None),
    ("quarantine", "ins", "oms_edge", "t_sp", "insert", None, {"a": "1"}, BAD_ROWID),
    ("quarantine", "ins", "oms_edge", "t_sp", "insert", None, {"a": "1"}, BAD_ROWID),
    ("quarantine", "ins", "oms_edge", "t_sp", "insert", None, {"a": "1"}, BAD_ROWID),
]


def shareplex_message(op, seq, rowid_values, data, key=None):
    """A SharePlex message of oms_sp_gen.orders (no DDL, no seed): meta.rowid carries the key values."""
    meta = {
        "op": op, "time": f"2023-11-15T10:00:0{seq}", "seq": seq, "table": "oms_sp_gen.orders",
        "rowid": "oms_sp_gen.orders-" + "\u0001".join(rowid_values), "trans": f"t{seq}", "scn": str(seq),
    }
    message = {"data": data, "meta": meta}
    if key is not None:
        message["key"] = key
    return json.dumps(message)


# insert, update, an update changing the key (id 1 -> 2), update and delete under the new key, and
# an update whose key value "4" is held by two columns (id, qty) while one of them changes
SHAREPLEX_STREAM = [
    shareplex_message("ins", 1, ["1", "A"], {"id": 1, "region": "A", "qty": 5}),
    shareplex_message("upd", 2, ["1", "A"], {"qty": 6}, key={"id": 1, "region": "A", "qty": 5}),
    shareplex_message("upd", 3, ["1", "A"], {"id": 2}, key={"id": 1, "region": "A", "qty": 6}),
    shareplex_message("upd", 4, ["2", "A"], {"qty": 7}, key={"id": 2, "region": "A", "qty": 6}),
    shareplex_message("ins", 5, ["3", "B"], {"id": 3, "region": "B", "qty": 9}),
    shareplex_message("del", 6, ["2", "A"], {"id": 2, "region": "A", "qty": 7}),
    shareplex_message("ins", 7, ["4", "C"], {"id": 4, "region": "C", "qty": 4}),
    shareplex_message("upd", 8, ["4", "C"], {"qty": 5}, key={"id": 4, "region": "C", "qty": 4}),
]


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    tmp: Path = tmp_path_factory.mktemp("oms")
    lake.scenario("oms_formats")
    formats = {"canal_oms": "canal_json"}
    for group, kinds in DOC_ORDER.items():
        path = write_kafka_parquet(
            tmp / f"doc004_{group}.parquet",
            [doc_example(doc_fixture(group, kind)) for kind in kinds],
            topic=f"doc004_{group}",
        )
        lake.land([path], formats.get(group, group))
    for format_id in ("oms_default", "oms_extend_column_type", "oms_dataworks", "oms_shareplex"):
        lake.land(sorted((SAMPLES / format_id).glob("*.jsonl")), format_id)
    # the Dataworks price update delivered once more, in another file and landing
    dataworks_lines = (SAMPLES / "oms_dataworks" / "inventory.jsonl").read_text(encoding="utf-8").splitlines()
    lake.land([write_jsonl(tmp / "dataworks_redelivery.jsonl", [dataworks_lines[6]])], "oms_dataworks")
    lake.land([write_jsonl(tmp / "edge_default.jsonl", EDGE_DEFAULT)], "oms_default")
    lake.land([write_jsonl(tmp / "edge_dataworks.jsonl", EDGE_DATAWORKS)], "oms_dataworks")
    lake.land([write_jsonl(tmp / "edge_shareplex.jsonl", EDGE_SHAREPLEX)], "oms_shareplex")
    lake.land([write_jsonl(tmp / "shareplex_stream.jsonl", SHAREPLEX_STREAM)], "oms_shareplex")
    # every model and its data tests; the marts' unit tests run in their own modules
    lake.build("--exclude", "resource_type:unit_test")
    return lake


def history(lake, database: str, table: str) -> list[tuple]:
    return [
        (r["primary_key"], r["version_number"], r["op"], r["row"], r["valid_from"], r["valid_to"],
         r["is_current"], r["is_deleted"])
        for r in lake.rows(
            f"select * from {{schema}}.cdc_history where source_database = '{database}' "
            f"and source_table = '{table}' order by primary_key, version_number"
        )
    ]


def current(lake, database: str, table: str) -> dict[str, tuple]:
    return {
        r["primary_key"]: (r["row"], r["last_changed_ts"], r["last_op"], r["source_format"])
        for r in lake.rows(
            f"select * from {{schema}}.cdc_current where source_database = '{database}' "
            f"and source_table = '{table}'"
        )
    }


def ddl(lake, database: str) -> list[tuple]:
    return [
        tuple(r.values())
        for r in lake.rows(
            "select source_format, source_table, ddl_type, sql, event_ts from {schema}.cdc_ddl "
            f"where source_database = '{database}' order by event_ts, message_index"
        )
    ]


def ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --- detection -----------------------------------------------------------------------------------


def test_every_fixture_is_detected_as_its_format(lake):
    from cdc_lake.formats import detection_sql

    names = sorted(p.name for p in (FIXTURES / "format_docs").glob("*.txt"))
    assert names == sorted(EXPECTED_DETECTION)
    frame = lake.spark.createDataFrame(
        [(name, (FIXTURES / "format_docs" / name).read_text(encoding="utf-8")) for name in names],
        "name string, text string",
    )
    detected = {r["name"]: r["format"] for r in frame.selectExpr("name", f"{detection_sql('text')} as format").collect()}
    assert detected == EXPECTED_DETECTION


def test_every_sample_line_is_detected_as_its_format(lake):
    from cdc_lake.formats import detection_sql

    lines = []
    for format_id in ("oms_default", "oms_extend_column_type", "oms_dataworks", "oms_shareplex"):
        for path in sorted((SAMPLES / format_id).glob("*.jsonl")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                lines.append((f"{format_id}:{number}", line))
    frame = lake.spark.createDataFrame(lines, "name string, text string")
    detected = {r["name"]: r["format"] for r in frame.selectExpr("name", f"{detection_sql('text')} as format").collect()}
    expected = {name: name.split(":")[0] for name, _ in lines}
    # DefaultExtendColumnType messages without an image (DDL, HEARTBEAT) carry no __light_type:
    # they look like Default messages, which the same macro reads the same way.
    for number in (0, 3, 7):
        expected[f"oms_extend_column_type:{number}"] = "oms_default"
    assert detected == expected


# --- the doc-004 examples --------------------------------------------------------------------------


@pytest.mark.parametrize("format_id", ["oms_default", "oms_extend_column_type", "oms_dataworks", "oms_shareplex"])
def test_doc004_examples_staging(built, format_id):
    rows = built.format_events(format_id, f"kafka_topic = 'doc004_{format_id}'")
    got = [
        (r["event_kind"], r["event_type"], r["source_database"], r["source_table"], r["op"], r["key_columns"],
         r["before"], r["after"], r["event_ts"], r["quarantine_reason"])
        for r in rows
    ]
    assert got == EXPECTED_DOC_STAGING[format_id]


def test_doc004_column_types(built):
    types = {
        (r["source_format"], r["kafka_offset"]): r["column_types"]
        for r in built.rows(
            "select source_format, kafka_offset, column_types from {schema}.int_cdc__events "
            "where kafka_topic like 'doc004_oms%' and event_kind = 'change'"
        )
    }
    assert types == {
        ("oms_default", 0): None,
        ("oms_default", 1): None,
        ("oms_default", 2): None,
        # __light_type is type metadata: it fills column_types and is never a column
        ("oms_extend_column_type", 0): EXTEND_TYPES,
        ("oms_extend_column_type", 1): EXTEND_TYPES,
        ("oms_extend_column_type", 2): EXTEND_TYPES,
        ("oms_dataworks", 0): DATAWORKS_TYPES,
        ("oms_dataworks", 1): DATAWORKS_TYPES,
        ("oms_dataworks", 2): DATAWORKS_TYPES,
        ("oms_shareplex", 0): None,
        ("oms_shareplex", 1): None,
        ("oms_shareplex", 2): None,
    }


@pytest.mark.parametrize("group", list(DOC_ORDER))
def test_doc004_examples_outcome(built, group):
    """Each example either becomes a change or is quarantined with its reason (None = not quarantined)."""
    reasons = {
        r["kafka_offset"]: r["reason"]
        for r in built.rows(f"select * from {{schema}}.cdc_quarantine where kafka_topic = 'doc004_{group}'")
    }
    assert [reasons.get(offset) for offset in range(len(DOC_ORDER[group]))] == EXPECTED_DOC_QUARANTINE[group]
    quarantined = built.rows(
        f"select raw_message from {{schema}}.cdc_quarantine where kafka_topic = 'doc004_{group}' order by kafka_offset"
    )
    assert [r["raw_message"] for r in quarantined] == [
        doc_example(doc_fixture(group, kind))
        for kind, reason in zip(DOC_ORDER[group], EXPECTED_DOC_QUARANTINE[group])
        if reason is not None
    ]


def test_doc004_canal_variant_changes(built):
    """OMS "Canal": JSON-number values keep their text; old holds only the changed columns, and the
    UPDATE example's old names "string", not a column of data: the overlay keeps it in before."""
    rows = built.rows(
        "select op, primary_key, before, after, event_ts from {schema}.cdc_changes "
        "where kafka_topic = 'doc004_canal_oms' order by kafka_offset"
    )
    update_after = {**CANAL_OMS_IMAGE, "col2": "hello world 2020"}
    assert rows == [
        {"op": "insert", "primary_key": '{"col1":"2020-11-25 00:01:02","col2":"hello world"}', "before": None,
         "after": CANAL_OMS_IMAGE, "event_ts": DOC_TS_DEFAULT},
        # data's col2 is already the new value and old does not list it: the key is the new one
        {"op": "update", "primary_key": '{"col1":"2020-11-25 00:01:02","col2":"hello world 2020"}',
         "before": {**update_after, "string": "hello world"}, "after": update_after, "event_ts": DOC_TS_DEFAULT},
    ]


def test_doc004_long_numbers_keep_every_digit(built):
    """The 771- and 1074-character numbers of doc 004 reach the images digit for digit."""
    assert (len(E308), len(TINY)) == (771, 1074)
    after = {
        r["source_format"]: r["after"]
        for r in built.rows(
            "select source_format, after from {schema}.int_cdc__events "
            "where kafka_topic like 'doc004_%' and event_type in ('INSERT', 'ins')"
        )
    }
    assert (after["canal_json"]["col4"], after["canal_json"]["col12"]) == (E308, E308)
    assert (after["oms_extend_column_type"]["col7"], after["oms_extend_column_type"]["col10"]) == (E308, E308)
    assert (after["oms_dataworks"]["col6"], after["oms_dataworks"]["col11"]) == (TINY, TINY)
    assert (after["oms_shareplex"]["col5"], after["oms_shareplex"]["col16"]) == (E308, E308)


# --- the sample streams ----------------------------------------------------------------------------

O1 = {"order_id": "1", "customer": "alice", "amount": "0.10", "status": "NEW"}
O1_PAID = {**O1, "status": "PAID"}
O1_PAID_020 = {**O1_PAID, "amount": "0.20"}
O1_SHIPPED = {**O1_PAID_020, "status": "SHIPPED"}
O2 = {"order_id": "2", "customer": "bob", "amount": "12345678901234567890.1234567890", "status": "NEW"}
O2_AGAIN = {"order_id": "2", "customer": "bob", "amount": "98765432109876543210.0000000000", "status": "REOPENED"}
O3 = {"order_id": "3", "customer": "carol", "amount": "-0.0000000001", "status": "NEW"}
O30 = {"order_id": "30", "customer": "carol", "amount": "-0.0000000001", "status": "NEW", "note": "moved"}


def test_oms_default_sample_history(built):
    t = ts
    assert history(built, "trade_tenant.trade", "orders") == [
        ('{"order_id":"1"}', 1, "insert", O1, t("2023-11-14 22:30:10"), t("2023-11-14 22:30:20"), False, False),
        ('{"order_id":"1"}', 2, "update", O1_PAID, t("2023-11-14 22:30:20"), t("2023-11-14 22:30:30"), False, False),
        # two updates in the same second, delivered out of order: storeDataSequence orders them
        ('{"order_id":"1"}', 3, "update", O1_PAID_020, t("2023-11-14 22:30:30"), t("2023-11-14 22:30:30"), False, False),
        ('{"order_id":"1"}', 4, "update", O1_SHIPPED, t("2023-11-14 22:30:30"), None, True, False),
        ('{"order_id":"2"}', 1, "insert", O2, t("2023-11-14 22:30:11"), t("2023-11-14 22:30:40"), False, False),
        ('{"order_id":"2"}', 2, "delete", O2, t("2023-11-14 22:30:40"), t("2023-11-14 22:30:50"), False, True),
        ('{"order_id":"2"}', 3, "insert", O2_AGAIN, t("2023-11-14 22:30:50"), None, True, False),
        ('{"order_id":"3"}', 1, "insert", O3, t("2023-11-14 22:30:12"), t("2023-11-14 22:31:10"), False, False),
        # the key change 3 -> 30 closes key 3 with a deleted version (its before image, note null)
        ('{"order_id":"3"}', 2, "delete", {**O3, "note": None}, t("2023-11-14 22:31:10"), None, True, True),
        ('{"order_id":"30"}', 1, "update", O30, t("2023-11-14 22:31:10"), None, True, False),
    ]
    assert history(built, "trade_tenant.trade", "order_items") == [
        ('{"line_no":"1","order_id":"1"}', 1, "insert", {"order_id": "1", "line_no": "1", "sku": "A-1", "qty": "2"},
         t("2023-11-14 22:31:20"), t("2023-11-14 22:31:30"), False, False),
        ('{"line_no":"1","order_id":"1"}', 2, "update", {"order_id": "1", "line_no": "1", "sku": "A-1", "qty": "3"},
         t("2023-11-14 22:31:30"), None, True, False),
    ]


def test_oms_default_sample_current_ddl_and_control(built):
    t = ts
    assert current(built, "trade_tenant.trade", "orders") == {
        '{"order_id":"1"}': (O1_SHIPPED, t("2023-11-14 22:30:30"), "update", "oms_default"),
        '{"order_id":"2"}': (O2_AGAIN, t("2023-11-14 22:30:50"), "insert", "oms_default"),
        '{"order_id":"30"}': (O30, t("2023-11-14 22:31:10"), "update", "oms_default"),
    }
    # full-load ROW records carry no timestamp: their version starts when they were landed
    snapshot = built.rows(
        "select c.primary_key, c.row, c.last_op, c.last_changed_ts = ch.landed_at as starts_at_landing "
        "from {schema}.cdc_current as c join {schema}.cdc_changes as ch "
        "on c.source_database = ch.source_database and c.source_table = ch.source_table "
        "and c.primary_key = ch.primary_key "
        "where c.source_database = 'trade_tenant.trade' and c.source_table = 'currencies' order by c.primary_key"
    )
    assert snapshot == [
        {"primary_key": '{"code":"CNY"}', "row": {"code": "CNY", "name": "Renminbi", "rate": "1.000000000000"},
         "last_op": "snapshot", "starts_at_landing": True},
        {"primary_key": '{"code":"USD"}',
         "row": {"code": "USD", "name": "US dollar", "rate": "7.1234567890123456789012345678901"},
         "last_op": "snapshot", "starts_at_landing": True},
    ]
    assert ddl(built, "trade_tenant.trade") == [
        ("oms_default", "orders", "CREATE",
         "CREATE TABLE `orders` (`order_id` bigint NOT NULL, `customer` varchar(64), `amount` decimal(38,10), "
         "`status` varchar(16), PRIMARY KEY (`order_id`))", t("2023-11-14 22:30:00")),
        ("oms_default", "orders", "ALTER", "ALTER TABLE `orders` ADD COLUMN `note` varchar(255)",
         t("2023-11-14 22:31:00")),
    ]
    sample = "source_uri like '%/sample_data/oms_default/%'"
    assert built.rows(
        "select event_type, event_ts from {schema}.int_cdc__events "
        f"where event_kind = 'control' and {sample} order by event_ts"
    ) == [
        {"event_type": "HEARTBEAT", "event_ts": t("2023-11-14 22:30:05")},
        {"event_type": "HEARTBEAT", "event_ts": t("2023-11-14 22:31:15")},
    ]
    # 18 lines: 2 ROW, 2 DDL, 2 HEARTBEAT, 12 changes of which one is a duplicate delivery
    assert built.rows(f"select count(*) as n from {{schema}}.cdc_changes where {sample}") == [{"n": 13}]
    assert built.rows(
        "select source_log_pos, transaction_id, key_source from {schema}.cdc_changes "
        f"where {sample} and source_table = 'order_items' order by source_log_pos"
    ) == [
        {"source_log_pos": 170000108000001, "transaction_id": "1700001080-1", "key_source": "message"},
        {"source_log_pos": 170000109000001, "transaction_id": "1700001090-1", "key_source": "message"},
    ]


C1 = {"id": "1", "name": "Ada", "balance": "123456789012345678901234567890.123456789", "avatar": "aGVsbG8=",
      "created_at": "1700000000.123456"}
C1_RENAMED = {**C1, "name": "Ada L."}
C2 = {**C1, "id": "2", "name": "Grace", "balance": "0.10"}
C2_AGAIN = {**C2, "balance": "0.00"}
C100 = {**C1_RENAMED, "id": "100", "tier": "gold"}
CRM_TYPES = {"id": "BIGINT", "name": "VARCHAR", "balance": "DECIMAL", "avatar": "BLOB", "created_at": "TIMESTAMP"}


def test_oms_extend_column_type_sample(built):
    t = ts
    assert history(built, "crm_tenant.crm", "customers") == [
        ('{"id":"1"}', 1, "insert", C1, t("2023-11-14 22:46:41"), t("2023-11-14 22:46:50"), False, False),
        ('{"id":"1"}', 2, "update", C1_RENAMED, t("2023-11-14 22:46:50"), t("2023-11-14 22:47:30"), False, False),
        ('{"id":"1"}', 3, "delete", {**C1_RENAMED, "tier": None}, t("2023-11-14 22:47:30"), None, True, True),
        ('{"id":"100"}', 1, "update", C100, t("2023-11-14 22:47:30"), None, True, False),
        ('{"id":"2"}', 1, "insert", C2, t("2023-11-14 22:46:42"), t("2023-11-14 22:47:00"), False, False),
        ('{"id":"2"}', 2, "delete", C2, t("2023-11-14 22:47:00"), t("2023-11-14 22:47:10"), False, True),
        ('{"id":"2"}', 3, "insert", C2_AGAIN, t("2023-11-14 22:47:10"), None, True, False),
    ]
    assert current(built, "crm_tenant.crm", "customers") == {
        '{"id":"100"}': (C100, t("2023-11-14 22:47:30"), "update", "oms_extend_column_type"),
        '{"id":"2"}': (C2_AGAIN, t("2023-11-14 22:47:10"), "insert", "oms_extend_column_type"),
    }
    assert [
        (r["op"], r["column_types"])
        for r in built.rows(
            "select op, column_types from {schema}.cdc_changes where source_database = 'crm_tenant.crm' "
            "order by source_log_pos"
        )
    ] == [
        ("insert", CRM_TYPES), ("insert", CRM_TYPES), ("update", CRM_TYPES), ("delete", CRM_TYPES),
        ("insert", CRM_TYPES), ("update", {**CRM_TYPES, "tier": "VARCHAR"}),
    ]
    assert ddl(built, "crm_tenant.crm") == [
        ("oms_extend_column_type", "customers", "CREATE",
         "CREATE TABLE customers (id bigint PRIMARY KEY, name varchar(64), balance decimal(65,30), avatar blob, "
         "created_at timestamp(6))", t("2023-11-14 22:46:40")),
        ("oms_extend_column_type", "customers", "ALTER", "ALTER TABLE customers ADD COLUMN tier varchar(16)",
         t("2023-11-14 22:47:20")),
    ]


def test_light_type_is_never_a_column(built):
    assert built.rows(
        "select count(*) as n from {schema}.int_cdc__events "
        "where array_contains(map_keys(coalesce(before, map())), '__light_type') "
        "or array_contains(map_keys(coalesce(after, map())), '__light_type')"
    ) == [{"n": 0}]
    assert built.rows(
        "select count(*) as n from {schema}.cdc_history where array_contains(map_keys(row), '__light_type')"
    ) == [{"n": 0}]


P1 = {"sku_id": "1", "title": "kettle", "price": "0.10", "updated_ms": "1700003001000.123456789"}
P1_PRICE = {**P1, "price": "0.15", "updated_ms": "1700003006000.000000001"}
P2 = {"sku_id": "2", "title": "teapot", "price": "12345678901234567890.1234567890", "updated_ms": "1700003002000"}
P2_AGAIN = {**P2, "price": "12345678901234567890.1234567891", "updated_ms": "1700003009000"}
P11 = {"sku_id": "11", "title": "kettle", "price": "0.15", "updated_ms": "1700003011000", "stock": "5"}


def test_oms_dataworks_sample(built):
    t = ts
    assert history(built, "inventory", "products") == [
        ('{"sku_id":"1"}', 1, "insert", P1, t("2023-11-14 23:03:21"), t("2023-11-14 23:03:26"), False, False),
        ('{"sku_id":"1"}', 2, "update", P1_PRICE, t("2023-11-14 23:03:26"), t("2023-11-14 23:03:31"), False, False),
        ('{"sku_id":"1"}', 3, "delete", {**P1_PRICE, "stock": None}, t("2023-11-14 23:03:31"), None, True, True),
        ('{"sku_id":"11"}', 1, "update", P11, t("2023-11-14 23:03:31"), None, True, False),
        ('{"sku_id":"2"}', 1, "insert", P2, t("2023-11-14 23:03:22"), t("2023-11-14 23:03:27"), False, False),
        ('{"sku_id":"2"}', 2, "delete", P2, t("2023-11-14 23:03:27"), t("2023-11-14 23:03:29"), False, True),
        ('{"sku_id":"2"}', 3, "insert", P2_AGAIN, t("2023-11-14 23:03:29"), None, True, False),
    ]
    assert current(built, "inventory", "products") == {
        '{"sku_id":"11"}': (P11, t("2023-11-14 23:03:31"), "update", "oms_dataworks"),
        '{"sku_id":"2"}': (P2_AGAIN, t("2023-11-14 23:03:29"), "insert", "oms_dataworks"),
    }
    assert ddl(built, "inventory") == [
        ("oms_dataworks", "products", "CREATE",
         "CREATE TABLE products (sku_id bigint PRIMARY KEY, title varchar(64), price decimal(38,10), "
         "updated_ms timestamp(6))", t("2023-11-14 23:03:20")),
        ("oms_dataworks", "products", "ALTER", "ALTER TABLE products ADD COLUMN stock int", t("2023-11-14 23:03:30")),
    ]
    assert built.rows(
        "select event_type, source_log_pos from {schema}.int_cdc__events where event_kind = 'control' "
        "and source_uri like '%/sample_data/oms_dataworks/%' order by event_ts, source_log_pos"
    ) == [
        {"event_type": "TRANSACTION_BEGIN", "source_log_pos": 5002},
        {"event_type": "TRANSACTION_END", "source_log_pos": 5005},
        {"event_type": "HEARTBEAT", "source_log_pos": None},
    ]
    # the price update arrives three times (twice in the sample file, once more in another landing)
    assert built.rows(
        "select count(*) as n from {schema}.int_cdc__events where source_format = 'oms_dataworks' "
        "and source_log_pos = 5006"
    ) == [{"n": 3}]
    assert built.rows(
        "select source_log_pos, column_types from {schema}.cdc_changes where source_log_pos = 5006"
    ) == [{"source_log_pos": 5006, "column_types": {
        "sku_id": "BIGINT", "title": "VARCHAR(64)", "price": "DECIMAL(38,10)", "updated_ms": "TIMESTAMP"}}]


E1 = {"emp_id": "1", "name": "Li Lei", "salary": "12345678901234567890.1234567890", "dept": "R&D"}
E1_RAISE = {**E1, "salary": "23456789012345678901.2345678901"}
E2 = {"emp_id": "2", "name": "Han Meimei", "salary": "0.10", "dept": "Sales"}
E2_AGAIN = {**E2, "salary": "0.20", "dept": "Support"}
E10 = {**E1_RAISE, "emp_id": "10", "dept": "Research"}


def test_oms_shareplex_sample(built):
    t = ts
    assert history(built, "oms_sp_hr", "employees") == [
        ('["1"]', 1, "insert", E1, t("2023-11-14 22:53:20"), t("2023-11-14 22:53:30"), False, False),
        # upd: data has only salary; the after image is key overlaid with data
        ('["1"]', 2, "update", E1_RAISE, t("2023-11-14 22:53:30"), t("2023-11-14 22:54:00"), False, False),
        ('["1"]', 3, "delete", E1_RAISE, t("2023-11-14 22:54:00"), None, True, True),
        ('["10"]', 1, "update", E10, t("2023-11-14 22:54:00"), None, True, False),
        ('["2"]', 1, "insert", E2, t("2023-11-14 22:53:21"), t("2023-11-14 22:53:40"), False, False),
        ('["2"]', 2, "delete", E2, t("2023-11-14 22:53:40"), t("2023-11-14 22:53:50"), False, True),
        ('["2"]', 3, "insert", E2_AGAIN, t("2023-11-14 22:53:50"), None, True, False),
    ]
    assert current(built, "oms_sp_hr", "employees") == {
        '["10"]': (E10, t("2023-11-14 22:54:00"), "update", "oms_shareplex"),
        '["2"]': (E2_AGAIN, t("2023-11-14 22:53:50"), "insert", "oms_shareplex"),
    }
    # keyed by meta.rowid's values; the seed cdc_table_keys names them (and the changed key's column)
    assert built.rows(
        "select op, key_source, source_log_pos, transaction_id from {schema}.cdc_changes "
        "where source_database = 'oms_sp_hr' order by source_log_pos"
    ) == [
        {"op": op, "key_source": "seed", "source_log_pos": 170000400000000 + n, "transaction_id": f"trans-{170000400000000 + n}"}
        for op, n in (("insert", 1), ("insert", 2), ("update", 3), ("delete", 4), ("insert", 5), ("update", 6))
    ]


def test_samples_quarantine_nothing(built):
    assert built.rows(
        "select count(*) as n from {schema}.cdc_quarantine where source_uri like '%/sample_data/%'"
    ) == [{"n": 0}]


def test_sample_values_are_exact(built):
    """0.10, trailing zeros, 30+-digit decimals and nanosecond epochs keep their text in every format."""
    exact = {
        ("trade_tenant.trade", "orders", '{"order_id":"2"}', "amount"): "98765432109876543210.0000000000",
        ("trade_tenant.trade", "currencies", '{"code":"USD"}', "rate"): "7.1234567890123456789012345678901",
        ("trade_tenant.trade", "currencies", '{"code":"CNY"}', "rate"): "1.000000000000",
        ("crm_tenant.crm", "customers", '{"id":"100"}', "balance"): "123456789012345678901234567890.123456789",
        ("crm_tenant.crm", "customers", '{"id":"2"}', "balance"): "0.00",
        ("inventory", "products", '{"sku_id":"2"}', "price"): "12345678901234567890.1234567891",
        ("oms_sp_hr", "employees", '["10"]', "salary"): "23456789012345678901.2345678901",
        ("oms_sp_hr", "employees", '["2"]', "salary"): "0.20",
    }
    got = {}
    for (database, table, key, column) in exact:
        rows = built.rows(
            f"select row['{column}'] as v from {{schema}}.cdc_current where source_database = '{database}' "
            f"and source_table = '{table}' and primary_key = '{key}'"
        )
        got[(database, table, key, column)] = rows[0]["v"] if rows else None
    assert got == exact
    assert built.rows(
        "select before['updated_ms'] as b, after['updated_ms'] as a from {schema}.cdc_changes "
        "where source_format = 'oms_dataworks' and source_log_pos = 5006"
    ) == [{"b": "1700003001000.123456789", "a": "1700003006000.000000001"}]


# --- edge cases ------------------------------------------------------------------------------------


def test_oms_default_edge_cases(built):
    rows = built.format_events("oms_default", "source_uri like '%edge_default.jsonl'")
    assert [
        (r["event_kind"], r["event_type"], r["source_table"], r["op"], r["after"], r["ddl_type"], r["ddl_sql"],
         r["quarantine_reason"])
        for r in rows
    ] == EXPECTED_EDGE_DEFAULT
    assert (rows[0]["source_log_pos"], rows[0]["transaction_id"], rows[0]["event_ts"]) == (
        170000900000001, "tx-9", datetime(2023, 11, 15, 0, 43, 20)
    )
    assert [(r["message_index"], r["element_index"]) for r in rows[-2:]] == [(9, 0), (9, 1)]
    # no key known: keyed by row image, not quarantined
    assert built.rows(
        "select reason from {schema}.cdc_quarantine where source_database = 'oms_edge' and source_table = 't_nokey'"
    ) == []
    assert built.rows(
        "select distinct key_source from {schema}.cdc_changes where source_database = 'oms_edge' and source_table = 't_nokey'"
    ) == [{"key_source": "row_image"}]


def test_oms_dataworks_edge_cases(built):
    rows = built.format_events("oms_dataworks", "source_uri like '%edge_dataworks.jsonl'")
    assert [
        (r["event_kind"], r["event_type"], r["source_database"], r["op"], r["after"], r["ddl_type"], r["ddl_sql"],
         r["quarantine_reason"])
        for r in rows
    ] == EXPECTED_EDGE_DATAWORKS


def test_oms_shareplex_edge_cases(built):
    rows = built.format_events("oms_shareplex", "source_uri like '%edge_shareplex.jsonl'")
    assert [
        (r["event_kind"], r["event_type"], r["source_database"], r["source_table"], r["op"], r["row_key_values"],
         r["after"], r["quarantine_reason"])
        for r in rows
    ] == EXPECTED_EDGE_SHAREPLEX
    # downstream: the row without meta.rowid (and no key known) is keyed by row image; the
    # well-formed rowid keys its row
    assert sorted(
        r["reason"] for r in built.rows(
            "select reason from {schema}.cdc_quarantine where source_uri like '%edge_shareplex.jsonl'"
        )
    ) == sorted(row[-1] for row in EXPECTED_EDGE_SHAREPLEX if row[-1] is not None)
    assert [r["key_source"] for r in built.rows(
        "select key_source from {schema}.cdc_changes where source_uri like '%edge_shareplex.jsonl' "
        "and source_table != 't_sp'"
    )] == ["row_image"]
    assert built.rows(
        "select primary_key, key_columns, key_source from {schema}.cdc_changes "
        "where source_database = 'oms_edge' and source_table = 't_sp'"
    ) == [{"primary_key": '["1",""]', "key_columns": ["a", "b"], "key_source": "rowid"}]


def test_oms_shareplex_doc_examples_history(built):
    """The doc's three examples are keyed by meta.rowid; its INSERT example writes "3129" for 3\u0001129."""
    t = DOC_TS_SHAREPLEX
    updated = {**SHAREPLEX_IMAGE, "string": "hello world 2020"}
    assert history(built, "mock_database", "mock_table") == [
        ('["3","129"]', 1, "update", updated, t, t, False, False),
        ('["3","129"]', 2, "delete", SHAREPLEX_IMAGE, t, None, True, True),
        ('["3129"]', 1, "insert", SHAREPLEX_IMAGE, t, None, True, False),
    ]


def test_oms_shareplex_stream_without_ddl_is_keyed_by_rowid(built):
    def t(second: int) -> datetime:
        return ts(f"2023-11-15 10:00:0{second}")

    def row(key: str, qty: int) -> dict[str, str]:
        return {"id": key[0], "region": key[1], "qty": str(qty)}

    assert history(built, "oms_sp_gen", "orders") == [
        ('["1","A"]', 1, "insert", row("1A", 5), t(1), t(2), False, False),
        ('["1","A"]', 2, "update", row("1A", 6), t(2), t(3), False, False),
        # the update changing id closes the old key and opens the new one
        ('["1","A"]', 3, "delete", row("1A", 6), t(3), None, True, True),
        ('["2","A"]', 1, "update", row("2A", 6), t(3), t(4), False, False),
        ('["2","A"]', 2, "update", row("2A", 7), t(4), t(6), False, False),
        ('["2","A"]', 3, "delete", row("2A", 7), t(6), None, True, True),
        ('["3","B"]', 1, "insert", row("3B", 9), t(5), None, True, False),
        ('["4","C"]', 1, "insert", row("4C", 4), t(7), None, True, False),
    ]
    # the key columns are named where the row image holds each rowid value in one column only
    assert built.rows(
        "select source_log_pos, key_columns, key_source from {schema}.cdc_changes "
        "where source_database = 'oms_sp_gen' order by source_log_pos"
    ) == [
        {"source_log_pos": pos, "key_columns": names, "key_source": "rowid"}
        for pos, names in ((1, ["id", "region"]), (2, ["id", "region"]), (3, ["id", "region"]),
                           (4, ["id", "region"]), (5, ["id", "region"]), (6, ["id", "region"]), (7, None))
    ]
    assert built.rows(
        "select reason from {schema}.cdc_quarantine where source_uri like '%shareplex_stream.jsonl'"
    ) == [{"reason": (
        "SharePlex update: the key values of meta.rowid are not each in one column of the row images, so "
        "a key change cannot be followed; name the key columns in the seed cdc_table_keys"
    )}]


def test_every_landed_message_is_accounted_for(built):
    rows = built.rows(
        "select landed_input, landed_messages, messages_with_changes, messages_with_ddl, control_messages, "
        "quarantined_messages, unaccounted_messages from {schema}.cdc_landing_audit order by landed_input"
    )
    assert all(r["unaccounted_messages"] == 0 for r in rows)
    by_input = {r["landed_input"].rsplit("/", 1)[-1]: tuple(list(r.values())[1:6]) for r in rows}
    # (landed, with changes, with DDL, control, quarantined)
    assert by_input["trade.jsonl"] == (18, 14, 2, 2, 0)
    assert by_input["crm.jsonl"] == (10, 7, 2, 1, 0)
    assert by_input["inventory.jsonl"] == (12, 7, 2, 3, 0)
    assert by_input["hr.jsonl"] == (7, 7, 0, 0, 0)
    # every message has a row change (keyed or not); the ambiguous key change is quarantined
    assert by_input["shareplex_stream.jsonl"] == (8, 8, 0, 0, 1)


def compile_inline(inline: str) -> str:
    from cdc_lake.dbt import run_dbt

    return run_dbt(["compile", "--inline", inline]).results[0].node.compiled_code


def test_typed_macros_find_an_oms_table_by_its_bare_database_name(built):
    """OMS names a database with its tenant (trade_tenant.trade); an analyst writes `trade`: the typed
    macros read the one tenant's table that has that database name, with all its columns."""
    bare = built.spark.sql(compile_inline("{{ cdc_typed_current('trade', 'orders') }}"))
    named = built.spark.sql(compile_inline("{{ cdc_typed_current('trade_tenant.trade', 'orders') }}"))
    assert bare.columns == named.columns == [
        "primary_key", "order_id", "customer", "amount", "status", "note", "last_changed_ts", "last_op",
    ]
    live = sorted(tuple(r) for r in bare.collect())
    assert [r[0] for r in live] == ['{"order_id":"1"}', '{"order_id":"2"}', '{"order_id":"30"}']
    assert live == sorted(tuple(r) for r in named.collect())
    history = built.spark.sql(compile_inline("{{ cdc_typed_history('trade', 'orders') }}"))
    assert "order_id" in history.columns and history.count() == len(history_rows(built, "orders"))


def history_rows(lake, table: str) -> list[dict]:
    return lake.rows(
        f"select * from {{schema}}.cdc_history where source_database = 'trade_tenant.trade' and source_table = '{table}'"
    )


def test_typed_macro_of_a_table_not_in_the_lake_fails_naming_the_closest_tables(built, capfd):
    """A typed model of a table the lake does not have is an error naming the nearest tables, never a
    model of only primary_key, last_changed_ts and last_op."""
    from cdc_lake.dbt import DbtError

    for inline, closest in [
        ("{{ cdc_typed_current('trade', 'order') }}", "('trade_tenant.trade', 'orders')"),
        ("{{ cdc_typed_history('trade_tenant.trade', 'order_item') }}", "('trade_tenant.trade', 'order_items')"),
        ("{{ cdc_typed_current('crm', 'orders') }}", "('trade_tenant.trade', 'orders')"),
    ]:
        capfd.readouterr()
        with pytest.raises(DbtError):
            compile_inline(inline)
        output = capfd.readouterr().out
        assert "the lake has no such table" in output and "Closest tables: " in output, output
        assert closest in output, output


def test_oms_shareplex_later_ddl_does_not_split_a_row(built, tmp_path):
    """Last in the module (it lands and builds again): a DDL naming the key of oms_sp_gen.orders,
    landed after its rows were keyed by meta.rowid alone, names the key of a later update of row
    ["3","B"] but keeps its key, so the row's history stays one."""
    ddl = {
        "data": None, "database": "oms_sp_gen", "es": 1700000000000, "id": 1, "isDdl": True, "old": None,
        "pkNames": None, "table": "orders", "ts": 1700000000000, "type": "ALTER",
        "sql": "ALTER TABLE orders ADD PRIMARY KEY (id, region)",
    }
    built.land([write_jsonl(tmp_path / "orders_ddl.jsonl", [json.dumps(ddl)])], "canal_json")
    update = shareplex_message("upd", 9, ["3", "B"], {"qty": 10}, key={"id": 3, "region": "B", "qty": 9})
    built.land([write_jsonl(tmp_path / "shareplex_later.jsonl", [update])], "oms_shareplex")
    built.build("--select", "+cdc_history", "--exclude-resource-type", "unit_test", "test")
    later = ts("2023-11-15 10:00:09")
    assert [version for version in history(built, "oms_sp_gen", "orders") if version[0] == '["3","B"]'] == [
        ('["3","B"]', 1, "insert", {"id": "3", "region": "B", "qty": "9"}, ts("2023-11-15 10:00:05"), later,
         False, False),
        ('["3","B"]', 2, "update", {"id": "3", "region": "B", "qty": "10"}, later, None, True, False),
    ]
    assert built.rows(
        "select key_columns, key_source from {schema}.cdc_changes "
        "where source_database = 'oms_sp_gen' and source_log_pos = 9"
    ) == [{"key_columns": ["id", "region"], "key_source": "ddl"}]
