"""The binary decoders without Spark: every DTS union branch and Canal column type rendered to the
exact text of CONTRACT.md, Canal's `oneof xxx_present` defaults, auto detection, and bytes that
must not decode (truncated, trailing, corrupt, unknown fields)."""

from __future__ import annotations

import json
import random

import pytest

from cdc_lake.decoders import DecodeError, canal_protobuf, decode_message, dts_avro
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

# --- DTS Avro ------------------------------------------------------------------------------------

# (column, dataTypeNumber, union value, expected text, expected column type)
DTS_BRANCHES = [
    ("id", 3, dts_integer("42"), "42", "int"),
    ("big", 8, dts_integer("18446744073709551615", 20), "18446744073709551615", "bigint"),
    ("name", 253, dts_character("Zoë 🌍", "utf8mb4"), "Zoë 🌍", "varchar"),
    ("city", 254, dts_character("北京", "gbk"), "北京", "char"),
    ("latin", 15, dts_character(b"caf\xe9 \x80", "latin1"), "café €", "varchar"),
    ("raw_chars", 254, dts_character(b"\x00\xff", "binary"), "\x00\xff", "char"),
    ("wide", 253, dts_character("é".encode("utf-16-be"), "utf16"), "é", "varchar"),
    (
        "amount",
        246,
        dts_decimal("12345678901234567890.1234567890", 30, 10),
        "12345678901234567890.1234567890",
        "decimal(30,10)",
    ),
    ("small", 0, dts_decimal("0.10", 10, 2), "0.10", "decimal(10,2)"),
    ("ratio", 5, dts_float(0.1 + 0.2), "0.30000000000000004", "double"),
    ("whole", 4, dts_float(1.0), "1", "float"),
    ("created", 7, dts_timestamp(1_700_000_000, 123_456), "2023-11-14 22:13:20.123456", "timestamp"),
    ("created_s", 17, dts_timestamp(1_700_000_000, 0), "2023-11-14 22:13:20", "timestamp"),
    ("old_ts", 7, dts_timestamp(-1, 500_000), "1969-12-31 23:59:59.500000", "timestamp"),
    ("birthday", 10, dts_datetime(year=1990, month=5, day=17), "1990-05-17", "date"),
    ("zero_date", 14, dts_datetime(year=0, month=0, day=0), "0000-00-00", "date"),
    (
        "updated_at",
        12,
        dts_datetime(year=2024, month=2, day=29, hour=13, minute=5, second=9, millis=500),
        "2024-02-29 13:05:09.000500",
        "datetime",
    ),
    (
        "midnight",
        18,
        dts_datetime(year=2024, month=2, day=29, hour=0, minute=0, second=0, millis=0),
        "2024-02-29 00:00:00",
        "datetime",
    ),
    ("wake", 11, dts_datetime(hour=7, minute=30, second=0), "07:30:00", "time"),
    ("long_time", 19, dts_datetime(hour=838, minute=59, second=59), "838:59:59", "time"),
    (
        "negative_time",
        11,
        dts_datetime(hour=-12, minute=-30, second=-1, millis=-250_000),
        "-12:30:01.250000",
        "time",
    ),
    ("yr", 13, dts_datetime(year=2024), "2024", "year"),
    (
        "local_ts",
        7,
        dts_timestamp_tz("+08:00", year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=7),
        "2024-01-02 03:04:05.000007 +08:00",
        "timestamp",
    ),
    (
        "zoned",
        7,
        dts_timestamp_tz("Asia/Shanghai", year=2024, month=1, day=2, hour=3, minute=4, second=5),
        "2024-01-02 03:04:05 Asia/Shanghai",
        "timestamp",
    ),
    (
        "shape",
        255,
        dts_binary_geometry(bytes.fromhex("000000000101000000000000000000f03f0000000000000040")),
        "AAAAAAEBAAAAAAAAAAAA8D8AAAAAAAAAQA==",
        "geometry",
    ),
    ("wkt", 255, dts_text_geometry("POINT(1 2)"), "POINT(1 2)", "geometry"),
    ("photo", 252, dts_binary(b"\x89PNG\x00\xff"), "iVBORwD/", "blob"),
    ("tiny", 249, dts_binary(b"\x00\x01\xfe\xff", "tinyblob"), "AAH+/w==", "tinyblob"),
    ("body", 251, dts_character("long text", "utf8"), "long text", "longtext"),
    ("doc", 245, dts_text('{"k": [1, 2.50]}'), '{"k": [1, 2.50]}', "json"),
    ("color", 247, dts_text("red", "enum"), "red", "enum"),
    ("tags", 248, dts_text("a,b", "set"), "a,b", "set"),
    ("bits", 16, dts_integer("5"), "5", "bit"),
    ("empty_null", 15, dts_empty("NULL"), None, "varchar"),
    ("empty_none", 15, dts_empty("NONE"), None, "varchar"),
    ("avro_null", 3, None, None, "int"),
    ("odd_type", 99, dts_integer("7"), "7", "99"),
]


def _decode_dts(data: bytes) -> dict:
    return json.loads(dts_avro.decode(data))


def test_dts_every_union_branch_renders_exact_text():
    data = dts_record(
        "INSERT",
        "shop.orders",
        [(name, number) for name, number, _, _, _ in DTS_BRANCHES],
        after=[value for _, _, value, _, _ in DTS_BRANCHES],
        record_id=7,
        source_timestamp=1_700_000_000,
        source_position="1234@5",
        txid="88",
        primary_key=["id"],
    )
    envelope = _decode_dts(data)
    assert envelope["after"] == {name: text for name, _, _, text, _ in DTS_BRANCHES}
    assert envelope["columnTypes"] == {name: kind for name, _, _, _, kind in DTS_BRANCHES}
    assert envelope["before"] is None
    assert {k: envelope[k] for k in ("operation", "objectName", "id", "sourceTimestamp",
                                     "sourcePosition", "sourceTxid", "ddl", "version")} == {
        "operation": "INSERT",
        "objectName": "shop.orders",
        "id": "7",
        "sourceTimestamp": "1700000000",
        "sourcePosition": "1234@5",
        "sourceTxid": "88",
        "ddl": None,
        "version": "1",
    }
    assert envelope["tags"] == {"pk_uk_info": '{"PRIMARY":["id"]}'}
    assert envelope["fields"][0] == {"name": "id", "dataTypeNumber": "3"}


def test_dts_envelope_values_are_strings_or_null():
    data = dts_record("INSERT", "shop.orders", [("id", 3)], after=[dts_integer("1")])
    text = dts_avro.decode(data)

    def leaves(node):
        if isinstance(node, dict):
            for value in node.values():
                yield from leaves(value)
        elif isinstance(node, list):
            for value in node:
                yield from leaves(value)
        else:
            yield node

    assert all(leaf is None or isinstance(leaf, str) for leaf in leaves(json.loads(text)))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1 + 0.2, "0.30000000000000004"),
        (1.0, "1"),
        (-2.5, "-2.5"),
        (-0.0, "-0"),
        (123.456, "123.456"),
        (1e16, "10000000000000000"),
        (1e-7, "0.0000001"),
        (1.7976931348623157e308, "17976931348623157" + "0" * 292),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_dts_float_is_shortest_round_trip_text(value, text):
    assert dts_avro.float_text(value) == text
    if value == value and abs(value) != float("inf"):
        assert float(text) == value


def test_dts_update_delete_and_ddl_records():
    fields = [("id", 3), ("name", 253)]
    update = _decode_dts(
        dts_record(
            "UPDATE",
            "shop.orders",
            fields,
            before=[dts_integer("1"), dts_character("a")],
            after=[dts_integer("1"), None],
        )
    )
    assert (update["before"], update["after"]) == ({"id": "1", "name": "a"}, {"id": "1", "name": None})
    delete = _decode_dts(dts_record("DELETE", "shop.orders", fields, before=[dts_integer("2"), dts_empty()]))
    assert (delete["before"], delete["after"]) == ({"id": "2", "name": None}, None)
    ddl = _decode_dts(dts_record("DDL", "shop", None, after="CREATE TABLE t (id int primary key)"))
    assert (ddl["operation"], ddl["objectName"], ddl["ddl"], ddl["fields"], ddl["after"]) == (
        "DDL",
        "shop",
        "CREATE TABLE t (id int primary key)",
        None,
        None,
    )
    ddl_with_text_fields = _decode_dts(dts_record("DDL", "shop.t", "id,name", after="ALTER TABLE t ADD c int"))
    assert (ddl_with_text_fields["fieldsText"], ddl_with_text_fields["columnTypes"]) == ("id,name", None)


@pytest.mark.parametrize("operation", ["BEGIN", "COMMIT", "ROLLBACK", "HEARTBEAT", "CHECKPOINT", "NOOP"])
def test_dts_control_records(operation):
    envelope = _decode_dts(dts_record(operation, None, record_id=9, txid="t-9"))
    assert {k: envelope[k] for k in ("operation", "objectName", "before", "after", "sourceTxid")} == {
        "operation": operation,
        "objectName": None,
        "before": None,
        "after": None,
        "sourceTxid": "t-9",
    }


def test_dts_every_truncation_and_trailing_bytes_fail():
    data = dts_record(
        "UPDATE",
        "shop.orders",
        [("id", 3), ("ts", 7)],
        before=[dts_integer("1"), dts_timestamp(1, 2)],
        after=[dts_integer("1"), dts_timestamp(3, 4)],
    )
    for cut in range(len(data)):
        with pytest.raises(DecodeError, match="not a DTS Avro Record"):
            dts_avro.decode(data[:cut])
    with pytest.raises(DecodeError, match=r"1 byte\(s\) left over"):
        dts_avro.decode(data + b"\x00")


def test_dts_random_bytes_fail():
    rng = random.Random(20240229)
    for _ in range(300):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 120)))
        with pytest.raises(DecodeError):
            dts_avro.decode(blob)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (dts_character(b"\xff\xfe", "utf8"), r"afterImages, column c: bytes are not valid utf8"),
        (dts_character(b"abc", "klingon"), r"afterImages, column c: unknown character set 'klingon'"),
    ],
)
def test_dts_characters_that_do_not_decode(value, error):
    with pytest.raises(DecodeError, match=error):
        dts_avro.decode(dts_record("INSERT", "shop.t", [("c", 253)], after=[value]))


def test_dts_images_must_match_fields():
    with pytest.raises(DecodeError, match=r"afterImages has 1 value\(s\) for 2 field\(s\)"):
        dts_avro.decode(dts_record("INSERT", "shop.t", [("a", 3), ("b", 3)], after=[dts_integer("1")]))
    with pytest.raises(DecodeError, match="no fields"):
        dts_avro.decode(dts_record("INSERT", "shop.t", None, after=[dts_integer("1")]))
    with pytest.raises(DecodeError, match="duplicate field name"):
        dts_avro.decode(
            dts_record("INSERT", "shop.t", [("a", 3), ("a", 3)], after=[dts_integer("1"), dts_integer("2")])
        )


# --- Canal protobuf ------------------------------------------------------------------------------

# (name, mysqlType, sqlType, value as Canal writes it)
CANAL_COLUMNS = [
    ("id", "int(11)", 4, "1"),
    ("tiny", "tinyint(1)", -6, "-1"),
    ("small", "smallint(6)", 5, "32767"),
    ("medium", "mediumint(9)", 4, "-8388608"),
    ("big", "bigint(20) unsigned", -5, "18446744073709551615"),
    ("price", "decimal(30,10)", 3, "12345678901234567890.1234567890"),
    ("cents", "decimal(10,2)", 3, "0.10"),
    ("ratio", "float", 7, "0.3"),
    ("weight", "double", 8, "0.30000000000000004"),
    ("bits", "bit(8)", -7, "5"),
    ("name", "varchar(50)", 12, "Zoë 🌍"),
    ("code", "char(2)", 1, "CN"),
    ("body", "text", 2005, "line1\nline2 \"quoted\""),
    ("photo", "blob", 2004, "\x89PNG\x00\xff"),
    ("bin", "varbinary(4)", -3, "\x00\x01"),
    ("born", "date", 91, "1990-05-17"),
    ("created", "datetime(6)", 93, "2024-02-29 13:05:09.000500"),
    ("stamped", "timestamp", 93, "2024-02-29 13:05:09"),
    ("wake", "time", 92, "-838:59:59"),
    ("yr", "year(4)", 12, "2024"),
    ("color", "enum('red','green')", 4, "2"),
    ("flags", "set('a','b','c')", -7, "5"),
    ("doc", "json", 12, '{"k": [1, 2.50]}'),
    ("shape", "geometry", -2, "\x00\x00\x00\x00\x01\x01"),
    ("empty", "varchar(10)", 12, ""),
]


def _decode_canal(data: bytes) -> list[dict]:
    return json.loads(canal_protobuf.decode(data))


def test_canal_every_column_type_keeps_its_text():
    header = canal_header("shop", "items", offset=120, execute_time=1_700_000_000_000)
    after = [
        canal_column(name, value, mysql_type=mysql, sql_type=sql, is_key=name == "id", index=i)
        for i, (name, mysql, sql, value) in enumerate(CANAL_COLUMNS)
    ]
    after.append(canal_column("missing", None, mysql_type="int(11)", sql_type=4))
    [entry] = _decode_canal(canal_message([canal_row_entry(header, "INSERT", [([], after)])], batch_id=5))
    assert entry["rows"] == [
        {
            "before": None,
            "after": {**{name: value for name, _, _, value in CANAL_COLUMNS}, "missing": None},
            "updated": [],
        }
    ]
    assert entry["mysqlType"] == {**{n: m for n, m, _, _ in CANAL_COLUMNS}, "missing": "int(11)"}
    assert entry["sqlType"] == {**{n: str(s) for n, _, s, _ in CANAL_COLUMNS}, "missing": "4"}
    assert entry["pkNames"] == ["id"]
    assert {k: entry[k] for k in ("entryType", "eventType", "isDdl", "schemaName", "tableName",
                                  "logfileName", "logfileOffset", "executeTime", "batchId")} == {
        "entryType": "ROWDATA",
        "eventType": "INSERT",
        "isDdl": "false",
        "schemaName": "shop",
        "tableName": "items",
        "logfileName": "mysql-bin.000001",
        "logfileOffset": "120",
        "executeTime": "1700000000000",
        "batchId": "5",
    }


def test_canal_absent_oneof_fields_take_documented_defaults():
    pb = load_canal_pb2()
    entry_pb = pb.CanalEntry
    column = entry_pb.Column(name="id", value="1", isKey=True)  # isNull absent
    assert column.WhichOneof("isNull_present") is None
    change = entry_pb.RowChange(rowDatas=[entry_pb.RowData(afterColumns=[column])])  # eventType, isDdl absent
    header = entry_pb.Header(schemaName="shop", tableName="t")  # version, sourceType, eventType absent
    entry = entry_pb.Entry(header=header, storeValue=change.SerializeToString())  # entryType absent
    [decoded] = _decode_canal(canal_message([entry]))
    assert {k: decoded[k] for k in ("entryType", "eventType", "isDdl", "headerVersion", "sourceType",
                                    "headerEventType")} == {
        "entryType": "ROWDATA",
        "eventType": "UPDATE",
        "isDdl": "false",
        "headerVersion": "1",
        "sourceType": "MYSQL",
        "headerEventType": "UPDATE",
    }
    assert decoded["rows"][0]["after"] == {"id": "1"}


def test_canal_present_oneof_fields_keep_their_values_even_zero():
    pb = load_canal_pb2()
    entry_pb = pb.CanalEntry
    change = entry_pb.RowChange(eventType=entry_pb.EVENTTYPECOMPATIBLEPROTO2, isDdl=False)
    header = entry_pb.Header(version=0, sourceType=entry_pb.PGSQL, eventType=entry_pb.DELETE)
    entry = entry_pb.Entry(header=header, entryType=entry_pb.ROWDATA, storeValue=change.SerializeToString())
    zero_entry = entry_pb.Entry(header=header, entryType=entry_pb.ENTRYTYPECOMPATIBLEPROTO2)
    decoded, zero = _decode_canal(canal_message([entry, zero_entry]))
    assert (decoded["eventType"], decoded["isDdl"], decoded["headerVersion"], decoded["sourceType"],
            decoded["headerEventType"]) == ("EVENTTYPECOMPATIBLEPROTO2", "false", "0", "PGSQL", "DELETE")
    assert zero["entryType"] == "ENTRYTYPECOMPATIBLEPROTO2"
    ddl_change = entry_pb.RowChange(isDdl=True, sql="TRUNCATE t")  # eventType absent: UPDATE
    [ddl] = _decode_canal(canal_message([entry_pb.Entry(header=header, storeValue=ddl_change.SerializeToString())]))
    assert (ddl["isDdl"], ddl["eventType"], ddl["sql"]) == ("true", "UPDATE", "TRUNCATE t")


def test_canal_is_null_wins_over_value():
    pb = load_canal_pb2()
    column = pb.CanalEntry.Column(name="c", value="ignored", isNull=True)
    explicit_false = pb.CanalEntry.Column(name="d", value="kept", isNull=False)
    header = canal_header("shop", "t")
    [entry] = _decode_canal(canal_message([canal_row_entry(header, "INSERT", [([], [column, explicit_false])])]))
    assert entry["rows"][0]["after"] == {"c": None, "d": "kept"}


def test_canal_multi_entry_message_with_transactions_ddl_and_heartbeat():
    def head(offset, table="users", **kw):
        return canal_header("shop", table, offset=offset, execute_time=1_700_000_000_000 + offset, **kw)

    key = dict(mysql_type="int(11)", sql_type=4, is_key=True)
    entries = [
        canal_transaction_begin(head(100, ""), thread_id=77),
        canal_row_entry(
            head(200),
            "INSERT",
            [([], [canal_column("id", "1", **key), canal_column("name", "Ann")]),
             ([], [canal_column("id", "2", **key), canal_column("name", "Bob")])],
        ),
        canal_row_entry(
            head(300),
            "UPDATE",
            [([canal_column("id", "1", **key), canal_column("name", "Ann")],
              [canal_column("id", "1", **key), canal_column("name", "Annie", updated=True)])],
        ),
        canal_transaction_end(head(400, ""), "5001"),
        canal_row_entry(head(500, "tags"), "CREATE", is_ddl=True, sql="CREATE TABLE tags (tag varchar(9) PRIMARY KEY)"),
        canal_entry_of_type(head(600, ""), "HEARTBEAT"),
        canal_transaction_begin(head(700, "")),
        canal_row_entry(head(800, gtid="uuid:9"), "DELETE", [([canal_column("id", "2", **key)], [])]),
    ]
    decoded = _decode_canal(canal_message(entries, batch_id=42))
    assert [(e["entryIndex"], e["entryType"], e.get("eventType"), e["transactionId"]) for e in decoded] == [
        ("0", "TRANSACTIONBEGIN", None, "5001"),
        ("1", "ROWDATA", "INSERT", "5001"),
        ("2", "ROWDATA", "UPDATE", "5001"),
        ("3", "TRANSACTIONEND", None, "5001"),
        ("4", "ROWDATA", "CREATE", None),
        ("5", "HEARTBEAT", None, None),
        ("6", "TRANSACTIONBEGIN", None, None),
        ("7", "ROWDATA", "DELETE", None),
    ]
    assert decoded[0]["threadId"] == "77"
    assert decoded[1]["rows"] == [
        {"before": None, "after": {"id": "1", "name": "Ann"}, "updated": []},
        {"before": None, "after": {"id": "2", "name": "Bob"}, "updated": []},
    ]
    assert decoded[2]["rows"] == [
        {"before": {"id": "1", "name": "Ann"}, "after": {"id": "1", "name": "Annie"}, "updated": ["name"]}
    ]
    assert (decoded[4]["isDdl"], decoded[4]["sql"], decoded[4]["rows"]) == (
        "true",
        "CREATE TABLE tags (tag varchar(9) PRIMARY KEY)",
        [],
    )
    assert (decoded[7]["rows"], decoded[7]["gtid"], decoded[7]["pkNames"]) == (
        [{"before": {"id": "2"}, "after": None, "updated": []}],
        "uuid:9",
        ["id"],
    )
    assert {e["batchId"] for e in decoded} == {"42"}


def test_canal_bare_entry_is_accepted():
    entry = canal_row_entry(canal_header("shop", "t"), "INSERT", [([], [canal_column("id", "3")])])
    [decoded] = _decode_canal(entry.SerializeToString())
    assert (decoded["batchId"], decoded["rows"][0]["after"]) == (None, {"id": "3"})


def test_canal_every_truncation_fails():
    header = canal_header("shop", "t")
    data = canal_message(
        [canal_row_entry(header, "INSERT", [([], [canal_column("id", "1"), canal_column("n", None)])]),
         canal_transaction_end(header, "9")]
    )
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            canal_protobuf.decode(data[:cut])


def test_canal_corrupt_packets_fail():
    pb = load_canal_pb2()
    packet_pb = pb.CanalPacket
    header = canal_header("shop", "t")
    good_entry = canal_row_entry(header, "INSERT", [([], [canal_column("id", "1")])])

    def packet(body: bytes, **fields) -> bytes:
        return packet_pb.Packet(body=body, **fields).SerializeToString()

    body = packet_pb.Messages(batch_id=1, messages=[good_entry.SerializeToString()]).SerializeToString()
    cases = {
        packet(body, type=packet_pb.GET): "not a Canal MESSAGES packet (Packet type GET)",
        packet(body, type=packet_pb.MESSAGES, compression=packet_pb.ZLIB): "compressed Canal packets are not supported (compression ZLIB)",
        packet(packet_pb.Messages(batch_id=1).SerializeToString(), type=packet_pb.MESSAGES): "Canal MESSAGES packet without entries",
        packet(packet_pb.Messages(messages=[b"\xff\xff"]).SerializeToString(), type=packet_pb.MESSAGES): "Messages.messages[0] (Entry) does not parse as protobuf",
        canal_message([pb.CanalEntry.Entry(header=header, storeValue=b"\x0a\x05ab")]): "Entry 0.storeValue (RowChange) does not parse as protobuf",
        # field 99 is not in RowChange: a RowChange from some other schema, or corrupt bytes
        canal_message([pb.CanalEntry.Entry(header=header, storeValue=b"\x98\x06\x01")]): "Entry 0.storeValue (RowChange) has field number(s) 99",
        b"": "not a Canal MESSAGES packet (Packet type PACKAGETYPECOMPATIBLEPROTO2)",
        b"\x10\x01": "not a Canal MESSAGES packet (Packet type PACKAGETYPECOMPATIBLEPROTO2)",
        # field 1 as bytes: not a Packet (its field 1 is a number) nor an Entry (its header is a Header)
        b"\x0a\x02\xff\xff": "not a Canal Packet (Packet has field number(s) 1 that Packet does not define) nor an Entry",
    }
    for data, error in cases.items():
        with pytest.raises(DecodeError) as caught:
            canal_protobuf.decode(data)
        assert error in str(caught.value)
    nested = pb.CanalEntry.Column(name="id", value="1")
    nested_bytes = nested.SerializeToString() + b"\xa0\x06\x01"  # unknown field 100 inside a Column
    row = b"\x12" + bytes([len(nested_bytes)]) + nested_bytes  # RowData.afterColumns
    change = pb.CanalEntry.RowChange(eventType=pb.CanalEntry.INSERT).SerializeToString() + b"\x62" + bytes([len(row)]) + row
    with pytest.raises(DecodeError, match=r"rowDatas\[0\]\.afterColumns\[0\] has field number\(s\) 100"):
        canal_protobuf.decode(canal_message([pb.CanalEntry.Entry(header=header, storeValue=change)]))


def test_canal_random_bytes_fail():
    rng = random.Random(7)
    for _ in range(300):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 120)))
        with pytest.raises(DecodeError):
            canal_protobuf.decode(blob)


# --- dispatch and auto detection -------------------------------------------------------------------


def test_decode_message_dispatch_and_auto_detection():
    dts = dts_record("INSERT", "shop.t", [("id", 3)], after=[dts_integer("1")])
    canal = canal_message([canal_row_entry(canal_header("shop", "t"), "INSERT", [([], [canal_column("id", "1")])])])
    assert decode_message("dts_avro", dts) == ("dts_avro", dts_avro.decode(dts), None)
    assert decode_message("canal_protobuf", canal) == ("canal_protobuf", canal_protobuf.decode(canal), None)
    assert decode_message("auto", dts)[:1] == ("dts_avro",)
    assert decode_message("auto", canal)[:1] == ("canal_protobuf",)
    fmt, text, error = decode_message("auto", b"\x08\x96\x01garbage")
    assert (fmt, text) == ("auto", None)
    assert error.startswith("dts_avro: not a DTS Avro Record (") and "; canal_protobuf: not a Canal Packet" in error
    fmt, text, error = decode_message("dts_avro", canal)
    assert (fmt, text, error.startswith("not a DTS Avro Record")) == ("dts_avro", None, True)
    fmt, text, error = decode_message("canal_protobuf", dts)
    assert (fmt, text, error.startswith("not a Canal Packet")) == ("canal_protobuf", None, True)
    assert decode_message("dts_avro", None) == ("dts_avro", None, None)
