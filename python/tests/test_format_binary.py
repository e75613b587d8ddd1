"""dts_avro and canal_protobuf end to end: messages built with fastavro / the generated protobuf
classes, landed from Kafka-shaped Parquet and from folders of one-message files (and through
--format auto), decoded at landing, built once with dbt; final tables asserted exactly."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from cdc_lake.decoders.encode import (
    canal_column,
    canal_entry_of_type,
    canal_header,
    canal_message,
    canal_row_entry,
    canal_transaction_begin,
    canal_transaction_end,
    dts_binary,
    dts_binary_geometry,
    dts_character,
    dts_datetime,
    dts_decimal,
    dts_empty,
    dts_float,
    dts_integer,
    dts_record,
    dts_text,
    dts_text_geometry,
    dts_timestamp,
    dts_timestamp_tz,
)
from cdc_lake.proto import load_canal_pb2

from conftest import write_kafka_parquet

pytestmark = pytest.mark.slow

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"

T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC

# --- Aliyun DTS Avro: shop.dts_orders (key from pk_uk_info) and shop.dts_items (key from DDL) -----

ORDER_FIELDS = [
    ("id", 3), ("name", 253), ("city", 254), ("amount", 246), ("ratio", 5), ("created", 7),
    ("birthday", 10), ("updated_at", 12), ("wake", 11), ("yr", 13), ("local_ts", 7), ("photo", 252),
    ("doc", 245), ("shape", 255), ("wkt", 255), ("note", 15), ("memo", 253),
]
SHAPE = bytes.fromhex("000000000101000000000000000000f03f0000000000000040")


def _order_1(name: str, amount, ratio: float, note) -> list:
    return [
        dts_integer("1"), dts_character(name, "utf8mb4"), dts_character("北京", "gbk"), amount,
        dts_float(ratio), dts_timestamp(T0, 123_456), dts_datetime(year=1990, month=5, day=17),
        dts_datetime(year=2024, month=2, day=29, hour=13, minute=5, second=9, millis=500),
        dts_datetime(hour=7, minute=30, second=0), dts_datetime(year=2024),
        dts_timestamp_tz("+08:00", year=2024, month=1, day=2, hour=3, minute=4, second=5),
        dts_binary(b"\x89PNG\x00\xff"), dts_text('{"k": [1, 2.50]}'), dts_binary_geometry(SHAPE),
        dts_text_geometry("POINT(1 2)"), note, None,
    ]


ORDER_1 = _order_1("Zoë 🌍", dts_decimal("12345678901234567890.1234567890", 30, 10), 0.1 + 0.2, dts_empty())
ORDER_1_UPDATED = _order_1("Zoë", dts_decimal("0.10", 10, 2), 1.0, dts_character("hi"))
ORDER_2 = [dts_integer("2"), dts_character("Bob"), dts_empty("NONE")] + [None] * (len(ORDER_FIELDS) - 3)

ORDER_1_ROW = {
    "id": "1",
    "name": "Zoë 🌍",
    "city": "北京",
    "amount": "12345678901234567890.1234567890",
    "ratio": "0.30000000000000004",
    "created": "2023-11-14 22:13:20.123456",
    "birthday": "1990-05-17",
    "updated_at": "2024-02-29 13:05:09.000500",
    "wake": "07:30:00",
    "yr": "2024",
    "local_ts": "2024-01-02 03:04:05 +08:00",
    "photo": "iVBORwD/",
    "doc": '{"k": [1, 2.50]}',
    "shape": "AAAAAAEBAAAAAAAAAAAA8D8AAAAAAAAAQA==",
    "wkt": "POINT(1 2)",
    "note": None,
    "memo": None,
}
ORDER_1_UPDATED_ROW = {**ORDER_1_ROW, "name": "Zoë", "amount": "0.10", "ratio": "1", "note": "hi"}
ORDER_2_ROW = {name: None for name, _ in ORDER_FIELDS} | {"id": "2", "name": "Bob"}

ITEM_FIELDS = [("sku", 253), ("qty", 3)]
ITEMS_DDL = "CREATE TABLE `dts_items` (`sku` varchar(20) NOT NULL, `qty` int, PRIMARY KEY (`sku`))"


def _order(operation: str, record_id: int, ts: int, txid: str, **images) -> bytes:
    return dts_record(
        operation, "shop.dts_orders", ORDER_FIELDS, record_id=record_id, source_timestamp=ts,
        source_position=f"{record_id * 10}@3", txid=txid, primary_key=["id"], **images,
    )


def _item(operation: str, record_id: int, ts: int, **images) -> bytes:
    return dts_record(
        operation, "shop.dts_items", ITEM_FIELDS, record_id=record_id, source_timestamp=ts,
        source_position=f"{record_id * 10}@3", **images,
    )


DTS_TRUNCATED = _order("INSERT", 199, T0, "", after=ORDER_2)[:-5]
DTS_KAFKA = [
    dts_record("BEGIN", None, record_id=100, source_timestamp=T0, txid="tx-1"),
    dts_record("DDL", "shop.dts_items", None, after=ITEMS_DDL, record_id=101, source_timestamp=T0),
    _order("INSERT", 102, T0 + 1, "tx-1", after=ORDER_1),
    _order("INSERT", 103, T0 + 1, "tx-1", after=ORDER_2),
    dts_record("COMMIT", None, record_id=104, source_timestamp=T0 + 1, txid="tx-1"),
    _order("UPDATE", 105, T0 + 60, "tx-2", before=ORDER_1, after=ORDER_1_UPDATED),
    _order("DELETE", 106, T0 + 60, "tx-2", before=ORDER_2),
    _item("INSERT", 107, T0 + 61, after=[dts_character("A-1"), dts_integer("5")]),
    dts_record("HEARTBEAT", None, record_id=108, source_timestamp=T0 + 62),
    DTS_TRUNCATED,
    _item("INIT", 109, T0 + 63, after=[dts_character("B-2"), dts_integer("1")]),
]
DTS_GARBAGE = b"\x00\x01not avro at all"
DTS_FILES = {
    "001.avro": _item(
        "UPDATE", 110, T0 + 120,
        before=[dts_character("A-1"), dts_integer("5")], after=[dts_character("A-1"), dts_integer("6")],
    ),
    "002.avro": DTS_GARBAGE,
}

# --- Canal protobuf: shop.cp_users (key from Column.isKey) and shop.cp_tags (key from DDL) ---------


def _head(offset: int, table: str = "cp_users", **kw):
    return canal_header("shop", table, offset=offset, execute_time=(T0 + offset) * 1000, **kw)


def _user(values: dict, *, updated: tuple[str, ...] = ()) -> list:
    types = {
        "id": ("int(11)", 4), "name": ("varchar(50)", 12), "balance": ("decimal(10,2)", 3),
        "created": ("datetime", 93), "avatar": ("blob", 2004), "nick": ("varchar(20)", 12),
    }
    return [
        canal_column(name, values[name], mysql_type=types[name][0], sql_type=types[name][1],
                     is_key=name == "id", updated=name in updated, index=i)
        for i, name in enumerate(types)
    ]


USER_1 = {"id": "1", "name": "Ann", "balance": "10.50", "created": "2024-01-01 00:00:00",
          "avatar": "\x89PNG", "nick": None}
USER_1_RICHER = {**USER_1, "balance": "11.00"}
USER_1_RENAMED = {**USER_1_RICHER, "name": "Annie", "nick": "annie"}
USER_2 = {"id": "2", "name": "Bob", "balance": "0.10", "created": "2024-01-02 08:00:00", "avatar": "",
          "nick": "bobby"}
USER_3 = {"id": "3", "name": "Cy", "balance": "1.00", "created": "2024-01-03 00:00:00", "avatar": "",
          "nick": None}
USER_4 = {"id": "4", "name": "Di", "balance": "2.00", "created": "2024-01-04 00:00:00", "avatar": "",
          "nick": "d"}
TAGS_DDL = "CREATE TABLE `cp_tags` (`tag` varchar(10) NOT NULL, `n` int, PRIMARY KEY (`tag`))"


def _presence_update() -> object:
    """Entry.entryType and RowChange.eventType absent (defaults ROWDATA, UPDATE)."""
    pb = load_canal_pb2()
    change = pb.CanalEntry.RowChange()
    change.rowDatas.add(
        beforeColumns=_user(USER_1_RICHER), afterColumns=_user(USER_1_RENAMED, updated=("name", "nick"))
    )
    return pb.CanalEntry.Entry(header=_head(900), storeValue=change.SerializeToString())


CANAL_TRUNCATED = canal_message([canal_row_entry(_head(950), "INSERT", [([], _user(USER_3))])])[:-7]
CANAL_KAFKA = [
    canal_message(
        [
            canal_transaction_begin(_head(100, "")),
            canal_row_entry(_head(200), "INSERT", [([], _user(USER_1)), ([], _user(USER_2))]),
            canal_row_entry(
                _head(300), "UPDATE", [(_user(USER_1), _user(USER_1_RICHER, updated=("balance",)))]
            ),
            canal_transaction_end(_head(400, ""), "5001"),
        ],
        batch_id=1,
    ),
    canal_message(
        [
            canal_row_entry(_head(500, "cp_tags"), "CREATE", is_ddl=True, sql=TAGS_DDL),
            canal_row_entry(
                _head(600, "cp_tags"), "INSERT",
                [([], [canal_column("tag", "x", mysql_type="varchar(10)"),
                       canal_column("n", "1", mysql_type="int(11)", sql_type=4)])],
            ),
            canal_row_entry(_head(700, gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562:7"), "DELETE",
                            [(_user(USER_2), [])]),
            canal_entry_of_type(_head(800, ""), "HEARTBEAT"),
        ],
        batch_id=2,
    ),
    CANAL_TRUNCATED,
    canal_message([_presence_update()], batch_id=3),
]
CANAL_FILES = {
    "001.bin": canal_message([canal_row_entry(_head(1000), "INSERT", [([], _user(USER_3))])], batch_id=4),
    "002.bin": canal_row_entry(_head(1100), "INSERT", [([], _user(USER_4))]).SerializeToString(),
}

# --- --format auto: one message of each binary format, garbage, and a Canal JSON message -----------

AUTO_GARBAGE = b"\x08\x96\x01garbage"
AUTO_KAFKA = [
    dts_record("INSERT", "shop.auto_dts", [("id", 3)], after=[dts_integer("1")], primary_key=["id"],
               record_id=300, source_timestamp=T0 + 5),
    canal_message([canal_row_entry(_head(50, "auto_canal"), "INSERT",
                                   [([], [canal_column("id", "1", is_key=True, mysql_type="int(11)", sql_type=4)])])]),
    AUTO_GARBAGE,
    '{"database":"shop","table":"auto_json","type":"INSERT","isDdl":false,"pkNames":["id"],'
    '"data":[{"id":"1","v":0.10}],"es":1700000005000,"ts":1700000005001,"id":1}',
]


def _write_files(folder: Path, files: dict[str, bytes]) -> Path:
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture(scope="module")
def built(lake, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binary")
    lake.scenario("binary_formats")
    dts_parquet = write_kafka_parquet(tmp / "dts.parquet", DTS_KAFKA, topic="dts")
    canal_parquet = write_kafka_parquet(tmp / "canal.parquet", CANAL_KAFKA, topic="canal")
    auto_parquet = write_kafka_parquet(tmp / "auto.parquet", AUTO_KAFKA, topic="mixed")
    dts_folder = _write_files(tmp / "dts_files", DTS_FILES)
    canal_folder = _write_files(tmp / "canal_files", CANAL_FILES)
    # the shipped samples (scripts/make_binary_samples.py) land alongside, as the demo lands them
    dts_samples = sorted((SAMPLE_DATA / "dts_avro").iterdir())
    canal_samples = sorted((SAMPLE_DATA / "canal_protobuf").iterdir())
    lake.land([dts_parquet, dts_folder, *dts_samples], "dts_avro")
    lake.land([canal_parquet, canal_folder, *canal_samples], "canal_protobuf")
    lake.land([auto_parquet], "auto")
    # the marts this module asserts, with everything upstream (every format's staging model and its
    # data tests); unit tests of the marts' SQL belong to their own modules
    lake.build(
        "--select", "+cdc_current", "+cdc_history", "+cdc_quarantine", "+cdc_ddl", "+cdc_changes",
        "+cdc_landing_audit", "--exclude", "test_type:unit",
    )
    return {
        "dts_folder": str(dts_folder),
        "canal_folder": str(canal_folder),
        "dts_sample_folder": str(SAMPLE_DATA / "dts_avro" / "crm_files"),
        "canal_sample_folder": str(SAMPLE_DATA / "canal_protobuf" / "sales_files"),
    }


def _history(lake, table: str) -> list[dict]:
    return lake.rows(
        "select primary_key, version_number, op, row, cast(valid_from as string) as valid_from, "
        "cast(valid_to as string) as valid_to, is_current, is_deleted "
        f"from {{schema}}.cdc_history where source_table = '{table}' order by primary_key, version_number"
    )


def _current(lake, table: str) -> list[dict]:
    return lake.rows(
        "select source_database, primary_key, row, source_format from {schema}.cdc_current "
        f"where source_table = '{table}' order by primary_key"
    )


def test_landing_decodes_and_detects_formats(lake, built):
    rows = lake.rows(
        "select coalesce(kafka_topic, 'folder') as input, message_index, message_format, "
        "message_text is not null as decoded, decode_error is not null as failed, "
        "message_bytes is not null as kept_bytes "
        "from {schema}_raw.raw_messages where source_uri not like '%/sample_data/%' "
        "order by input, message_index, message_format"
    )
    got = [(r["input"], r["message_index"], r["message_format"], r["decoded"], r["failed"], r["kept_bytes"])
           for r in rows]
    assert got == [
        ("canal", 0, "canal_protobuf", True, False, True),
        ("canal", 1, "canal_protobuf", True, False, True),
        ("canal", 2, "canal_protobuf", False, True, True),
        ("canal", 3, "canal_protobuf", True, False, True),
        ("dts", 0, "dts_avro", True, False, True),
        ("dts", 1, "dts_avro", True, False, True),
        ("dts", 2, "dts_avro", True, False, True),
        ("dts", 3, "dts_avro", True, False, True),
        ("dts", 4, "dts_avro", True, False, True),
        ("dts", 5, "dts_avro", True, False, True),
        ("dts", 6, "dts_avro", True, False, True),
        ("dts", 7, "dts_avro", True, False, True),
        ("dts", 8, "dts_avro", True, False, True),
        ("dts", 9, "dts_avro", False, True, True),
        ("dts", 10, "dts_avro", True, False, True),
        ("folder", 1, "canal_protobuf", True, False, True),
        ("folder", 1, "dts_avro", True, False, True),
        ("folder", 2, "canal_protobuf", True, False, True),
        ("folder", 2, "dts_avro", False, True, True),
        ("mixed", 0, "dts_avro", True, False, True),
        ("mixed", 1, "canal_protobuf", True, False, True),
        ("mixed", 2, "unknown", False, True, True),
        ("mixed", 3, "canal_json", True, False, False),
    ]


def test_dts_orders_history_and_current(lake, built):
    key_1, key_2 = '{"id":"1"}', '{"id":"2"}'
    assert _history(lake, "dts_orders") == [
        {"primary_key": key_1, "version_number": 1, "op": "insert", "row": ORDER_1_ROW,
         "valid_from": "2023-11-14 22:13:21", "valid_to": "2023-11-14 22:14:20",
         "is_current": False, "is_deleted": False},
        {"primary_key": key_1, "version_number": 2, "op": "update", "row": ORDER_1_UPDATED_ROW,
         "valid_from": "2023-11-14 22:14:20", "valid_to": None, "is_current": True, "is_deleted": False},
        {"primary_key": key_2, "version_number": 1, "op": "insert", "row": ORDER_2_ROW,
         "valid_from": "2023-11-14 22:13:21", "valid_to": "2023-11-14 22:14:20",
         "is_current": False, "is_deleted": False},
        {"primary_key": key_2, "version_number": 2, "op": "delete", "row": ORDER_2_ROW,
         "valid_from": "2023-11-14 22:14:20", "valid_to": None, "is_current": True, "is_deleted": True},
    ]
    assert _current(lake, "dts_orders") == [
        {"source_database": "shop", "primary_key": key_1, "row": ORDER_1_UPDATED_ROW, "source_format": "dts_avro"}
    ]


def test_dts_items_keyed_by_ddl_with_snapshot_and_folder_update(lake, built):
    assert _history(lake, "dts_items") == [
        {"primary_key": '{"sku":"A-1"}', "version_number": 1, "op": "insert", "row": {"sku": "A-1", "qty": "5"},
         "valid_from": "2023-11-14 22:14:21", "valid_to": "2023-11-14 22:15:20",
         "is_current": False, "is_deleted": False},
        {"primary_key": '{"sku":"A-1"}', "version_number": 2, "op": "update", "row": {"sku": "A-1", "qty": "6"},
         "valid_from": "2023-11-14 22:15:20", "valid_to": None, "is_current": True, "is_deleted": False},
        {"primary_key": '{"sku":"B-2"}', "version_number": 1, "op": "snapshot", "row": {"sku": "B-2", "qty": "1"},
         "valid_from": "2023-11-14 22:14:23", "valid_to": None, "is_current": True, "is_deleted": False},
    ]
    assert _current(lake, "dts_items") == [
        {"source_database": "shop", "primary_key": '{"sku":"A-1"}', "row": {"sku": "A-1", "qty": "6"},
         "source_format": "dts_avro"},
        {"source_database": "shop", "primary_key": '{"sku":"B-2"}', "row": {"sku": "B-2", "qty": "1"},
         "source_format": "dts_avro"},
    ]


def test_canal_users_history_and_current(lake, built):
    k1, k2, k3, k4 = ('{"id":"%s"}' % i for i in "1234")
    assert _history(lake, "cp_users") == [
        {"primary_key": k1, "version_number": 1, "op": "insert", "row": USER_1,
         "valid_from": "2023-11-14 22:16:40", "valid_to": "2023-11-14 22:18:20",
         "is_current": False, "is_deleted": False},
        {"primary_key": k1, "version_number": 2, "op": "update", "row": USER_1_RICHER,
         "valid_from": "2023-11-14 22:18:20", "valid_to": "2023-11-14 22:28:20",
         "is_current": False, "is_deleted": False},
        {"primary_key": k1, "version_number": 3, "op": "update", "row": USER_1_RENAMED,
         "valid_from": "2023-11-14 22:28:20", "valid_to": None, "is_current": True, "is_deleted": False},
        {"primary_key": k2, "version_number": 1, "op": "insert", "row": USER_2,
         "valid_from": "2023-11-14 22:16:40", "valid_to": "2023-11-14 22:25:00",
         "is_current": False, "is_deleted": False},
        {"primary_key": k2, "version_number": 2, "op": "delete", "row": USER_2,
         "valid_from": "2023-11-14 22:25:00", "valid_to": None, "is_current": True, "is_deleted": True},
        {"primary_key": k3, "version_number": 1, "op": "insert", "row": USER_3,
         "valid_from": "2023-11-14 22:30:00", "valid_to": None, "is_current": True, "is_deleted": False},
        {"primary_key": k4, "version_number": 1, "op": "insert", "row": USER_4,
         "valid_from": "2023-11-14 22:31:40", "valid_to": None, "is_current": True, "is_deleted": False},
    ]
    assert _current(lake, "cp_users") == [
        {"source_database": "shop", "primary_key": key, "row": row, "source_format": "canal_protobuf"}
        for key, row in ((k1, USER_1_RENAMED), (k3, USER_3), (k4, USER_4))
    ]
    assert _current(lake, "cp_tags") == [
        {"source_database": "shop", "primary_key": '{"tag":"x"}', "row": {"tag": "x", "n": "1"},
         "source_format": "canal_protobuf"}
    ]


def test_auto_detected_binary_and_json_messages(lake, built):
    assert lake.rows(
        "select source_table, primary_key, row, source_format from {schema}.cdc_current "
        "where source_table like 'auto%' order by source_table"
    ) == [
        {"source_table": "auto_canal", "primary_key": '{"id":"1"}', "row": {"id": "1"},
         "source_format": "canal_protobuf"},
        {"source_table": "auto_dts", "primary_key": '{"id":"1"}', "row": {"id": "1"}, "source_format": "dts_avro"},
        {"source_table": "auto_json", "primary_key": '{"id":"1"}', "row": {"id": "1", "v": "0.10"},
         "source_format": "canal_json"},
    ]


def test_undecodable_bytes_are_quarantined_with_base64(lake, built):
    rows = lake.rows(
        "select source_format, coalesce(kafka_topic, 'folder') as input, message_index, raw_message, reason "
        "from {schema}.cdc_quarantine order by input, message_index"
    )
    assert [(r["source_format"], r["input"], r["message_index"], r["raw_message"]) for r in rows] == [
        ("canal_protobuf", "canal", 2, base64.b64encode(CANAL_TRUNCATED).decode()),
        ("dts_avro", "dts", 9, base64.b64encode(DTS_TRUNCATED).decode()),
        ("dts_avro", "folder", 2, base64.b64encode(DTS_GARBAGE).decode()),
        ("unknown", "mixed", 2, base64.b64encode(AUTO_GARBAGE).decode()),
    ]
    reasons = [r["reason"] for r in rows]
    assert reasons[0].startswith("undecodable bytes: not a Canal Packet (Packet does not parse as protobuf)")
    assert reasons[1].startswith("undecodable bytes: not a DTS Avro Record (EOFError")
    assert reasons[2].startswith("undecodable bytes: not a DTS Avro Record (")
    assert reasons[3].startswith("undecodable bytes: dts_avro: not a DTS Avro Record (")
    assert "; canal_protobuf: not a Canal Packet (" in reasons[3]


def test_ddl_statements(lake, built):
    assert lake.rows(
        "select source_format, source_database, source_table, ddl_type, sql, cast(event_ts as string) as event_ts "
        "from {schema}.cdc_ddl where source_database = 'shop' order by source_format"
    ) == [
        {"source_format": "canal_protobuf", "source_database": "shop", "source_table": "cp_tags",
         "ddl_type": "CREATE", "sql": TAGS_DDL, "event_ts": "2023-11-14 22:21:40"},
        {"source_format": "dts_avro", "source_database": "shop", "source_table": "dts_items",
         "ddl_type": "CREATE", "sql": ITEMS_DDL, "event_ts": "2023-11-14 22:13:20"},
    ]


def test_changes_carry_transactions_positions_and_types(lake, built):
    rows = lake.rows(
        "select source_table, op, primary_key, transaction_id, source_log_file, source_log_pos, key_source, "
        "column_types, column_jdbc_types from {schema}.cdc_changes "
        "where source_table in ('dts_orders', 'cp_users', 'cp_tags') "
        "order by source_table, source_log_file, source_log_pos, row_index"
    )
    user_types = {"id": "int(11)", "name": "varchar(50)", "balance": "decimal(10,2)", "created": "datetime",
                  "avatar": "blob", "nick": "varchar(20)"}
    user_jdbc = {"id": "4", "name": "12", "balance": "3", "created": "93", "avatar": "2004", "nick": "12"}
    order_types = {
        "id": "int", "name": "varchar", "city": "char", "amount": "decimal(30,10)", "ratio": "double",
        "created": "timestamp", "birthday": "date", "updated_at": "datetime", "wake": "time", "yr": "year",
        "local_ts": "timestamp", "photo": "blob", "doc": "json", "shape": "geometry", "wkt": "geometry",
        "note": "varchar", "memo": "varchar",
    }
    got = [(r["source_table"], r["op"], r["primary_key"], r["transaction_id"], r["source_log_file"],
            r["source_log_pos"], r["key_source"]) for r in rows]
    assert got == [
        ("cp_tags", "insert", '{"tag":"x"}', None, "mysql-bin.000001", 600, "ddl"),
        ("cp_users", "insert", '{"id":"1"}', "5001", "mysql-bin.000001", 200, "message"),
        ("cp_users", "insert", '{"id":"2"}', "5001", "mysql-bin.000001", 200, "message"),
        ("cp_users", "update", '{"id":"1"}', "5001", "mysql-bin.000001", 300, "message"),
        ("cp_users", "delete", '{"id":"2"}', "3e11fa47-71ca-11e1-9e33-c80aa9429562:7", "mysql-bin.000001", 700,
         "message"),
        ("cp_users", "update", '{"id":"1"}', None, "mysql-bin.000001", 900, "message"),
        ("cp_users", "insert", '{"id":"3"}', None, "mysql-bin.000001", 1000, "message"),
        ("cp_users", "insert", '{"id":"4"}', None, "mysql-bin.000001", 1100, "message"),
        ("dts_orders", "insert", '{"id":"1"}', "tx-1", None, 102, "message"),
        ("dts_orders", "insert", '{"id":"2"}', "tx-1", None, 103, "message"),
        ("dts_orders", "update", '{"id":"1"}', "tx-2", None, 105, "message"),
        ("dts_orders", "delete", '{"id":"2"}', "tx-2", None, 106, "message"),
    ]
    users = [r for r in rows if r["source_table"] == "cp_users"]
    assert all(r["column_types"] == user_types and r["column_jdbc_types"] == user_jdbc for r in users)
    assert rows[8]["column_types"] == order_types and rows[8]["column_jdbc_types"] is None
    assert rows[10]["column_types"] == {**order_types, "amount": "decimal(10,2)"}


def test_every_landed_message_is_accounted_for(lake, built):
    rows = lake.rows(
        "select landed_input, landed_messages, messages_with_changes, messages_with_ddl, control_messages, "
        "quarantined_messages, unaccounted_messages from {schema}.cdc_landing_audit order by landed_input"
    )
    counts = {r.pop("landed_input"): tuple(r.values()) for r in rows}
    assert counts == {
        "canal/0": (4, 3, 1, 2, 1, 0),
        "dts/0": (11, 6, 1, 3, 1, 0),
        "mixed/0": (4, 3, 0, 0, 1, 0),
        built["canal_folder"]: (2, 2, 0, 0, 0, 0),
        built["dts_folder"]: (2, 1, 0, 0, 1, 0),
        "canal_sales/0": (3, 2, 1, 2, 0, 0),
        "dts_crm/0": (10, 6, 1, 3, 0, 0),
        built["canal_sample_folder"]: (2, 2, 1, 2, 0, 0),
        built["dts_sample_folder"]: (2, 2, 0, 0, 0, 0),
    }


def test_shipped_samples(lake, built):
    rows = lake.rows(
        "select source_database, source_table, primary_key, row, source_format from {schema}.cdc_current "
        "where source_database in ('crm', 'sales') order by source_database, source_table, primary_key"
    )
    prefs = '{"lang": "en", "digest": true}'
    assert [(r["source_database"], r["source_table"], r["primary_key"], r["row"], r["source_format"])
            for r in rows] == [
        ("crm", "customers", '{"id":"1"}',
         {"id": "1", "name": "Alice", "email": "alice@example.com", "balance": "250.75",
          "score": "0.30000000000000004", "signup_ts": "2023-11-15 02:00:00.250000", "birthday": "1991-01-11",
          "last_login": "2023-11-16 08:01:02.345000", "avatar": "iVBORwE=", "prefs": prefs, "tier": "gold",
          "note": "VIP since 2023"}, "dts_avro"),
        ("crm", "customers", '{"id":"3"}',
         {"id": "3", "name": "Bob", "email": "bob@example.com", "balance": "12345678.90", "score": "0.5",
          "signup_ts": "2023-11-13 02:00:00.250000", "birthday": "1993-03-13", "last_login": "2023-11-15 09:30:00",
          "avatar": "iVBORwM=", "prefs": prefs, "tier": "silver", "note": "met at expo"}, "dts_avro"),
        ("crm", "plans", '{"code":"basic"}', {"code": "basic", "price": "9.90", "active": "1"}, "dts_avro"),
        ("crm", "plans", '{"code":"pro"}', {"code": "pro", "price": "29.00", "active": "1"}, "dts_avro"),
        ("sales", "orders", '{"id":"1"}',
         {"id": "1", "customer": "alice", "amount": "19.90", "status": "PAID", "created": "2023-11-16 02:05:00"},
         "canal_protobuf"),
        ("sales", "orders", '{"id":"2"}',
         {"id": "2", "customer": "bob", "amount": "1.10", "status": "NEW", "created": "2023-11-16 02:05:01"},
         "canal_protobuf"),
        ("sales", "orders", '{"id":"4"}',
         {"id": "4", "customer": "dave", "amount": "5.00", "status": "NEW", "created": "2023-11-16 02:20:00",
          "note": None}, "canal_protobuf"),
    ]
    assert lake.rows(
        "select source_database, source_table, ddl_type from {schema}.cdc_ddl "
        "where source_database in ('crm', 'sales') order by source_database, event_ts"
    ) == [
        {"source_database": "crm", "source_table": "customers", "ddl_type": "CREATE"},
        {"source_database": "sales", "source_table": "orders", "ddl_type": "CREATE"},
        {"source_database": "sales", "source_table": "orders", "ddl_type": "ALTER"},
    ]
