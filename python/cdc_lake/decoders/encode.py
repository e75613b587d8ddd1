"""Build DTS Avro and Canal protobuf messages with the producers' own schemas and libraries.

For tests and the shipped sample data (scripts/make_binary_samples.py): DTS Records are written
with fastavro's writer and dts-record.avsc, Canal messages with the classes generated from
canal.proto, exactly as a producer lays them out (Packet(MESSAGES) > Messages > Entry bytes).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from cdc_lake.decoders.dts_avro import NAMESPACE, record_schema

DtsValue = tuple[str, Any] | None
"""One image value: (full type name, value) for a union branch, or None for Avro null."""


# --- Aliyun DTS Avro -----------------------------------------------------------------------------


def _named(kind: str, value: Any) -> tuple[str, Any]:
    return (f"{NAMESPACE}.{kind}", value)


def dts_integer(value: str, precision: int = 11) -> DtsValue:
    return _named("Integer", {"precision": precision, "value": value})


def dts_character(value: str | bytes, charset: str = "utf8") -> DtsValue:
    data = value if isinstance(value, bytes) else value.encode(_python_codec(charset))
    return _named("Character", {"charset": charset, "value": data})


def dts_decimal(value: str, precision: int, scale: int) -> DtsValue:
    return _named("Decimal", {"value": value, "precision": precision, "scale": scale})


def dts_float(value: float, precision: int = 0, scale: int = 0) -> DtsValue:
    return _named("Float", {"value": value, "precision": precision, "scale": scale})


def dts_timestamp(seconds: int, micros: int = 0) -> DtsValue:
    return _named("Timestamp", {"timestamp": seconds, "millis": micros})


def _datetime_fields(**parts: int | None) -> dict[str, int | None]:
    names = ("year", "month", "day", "hour", "minute", "second", "millis")
    unknown = set(parts) - set(names)
    if unknown:
        raise TypeError(f"unknown DateTime part(s) {', '.join(sorted(unknown))}")
    return {name: parts.get(name) for name in names}


def dts_datetime(**parts: int | None) -> DtsValue:
    """A DateTime; pass the parts that are set (year, month, day, hour, minute, second, millis)."""
    return _named("DateTime", _datetime_fields(**parts))


def dts_timestamp_tz(timezone: str, **parts: int | None) -> DtsValue:
    return _named("TimestampWithTimeZone", {"value": _datetime_fields(**parts), "timezone": timezone})


def dts_binary_geometry(value: bytes, type_name: str = "geometry") -> DtsValue:
    return _named("BinaryGeometry", {"type": type_name, "value": value})


def dts_text_geometry(value: str, type_name: str = "geometry") -> DtsValue:
    return _named("TextGeometry", {"type": type_name, "value": value})


def dts_binary(value: bytes, type_name: str = "blob") -> DtsValue:
    return _named("BinaryObject", {"type": type_name, "value": value})


def dts_text(value: str, type_name: str = "json") -> DtsValue:
    return _named("TextObject", {"type": type_name, "value": value})


def dts_empty(symbol: str = "NULL") -> DtsValue:
    return _named("EmptyObject", symbol)


def _python_codec(charset: str) -> str:
    from cdc_lake.decoders.dts_avro import CHARSETS

    return CHARSETS.get(charset.lower(), charset)


def dts_record(
    operation: str,
    object_name: str | None,
    fields: Sequence[tuple[str, int]] | str | None = None,
    *,
    before: Sequence[DtsValue] | str | None = None,
    after: Sequence[DtsValue] | str | None = None,
    record_id: int = 1,
    source_timestamp: int = 1_700_000_000,
    source_position: str | None = None,
    txid: str = "",
    primary_key: Sequence[str] | None = None,
    tags: dict[str, str] | None = None,
    source_type: str = "MySQL",
    born_timestamp: int = 0,
) -> bytes:
    """The Avro bytes of one DTS Record (fields are (name, dataTypeNumber) pairs).

    The source position defaults to `<record_id * 100>@1` (binlog offset@file number)."""
    from fastavro import schemaless_writer

    position = source_position if source_position is not None else f"{record_id * 100}@1"

    all_tags = dict(tags or {})
    if primary_key is not None:
        all_tags["pk_uk_info"] = '{"PRIMARY":[' + ",".join(f'"{c}"' for c in primary_key) + "]}"
    record = {
        "version": 1,
        "id": record_id,
        "sourceTimestamp": source_timestamp,
        "sourcePosition": position,
        "safeSourcePosition": position,
        "sourceTxid": txid,
        "source": {"sourceType": source_type, "version": "5.7.40"},
        "operation": operation,
        "objectName": object_name,
        "processTimestamps": None,
        "tags": all_tags,
        "fields": (
            fields
            if fields is None or isinstance(fields, str)
            else [{"name": n, "dataTypeNumber": t} for n, t in fields]
        ),
        "beforeImages": before if before is None or isinstance(before, str) else list(before),
        "afterImages": after if after is None or isinstance(after, str) else list(after),
        "bornTimestamp": born_timestamp,
    }
    out = io.BytesIO()
    schemaless_writer(out, record_schema(), record)
    return out.getvalue()


# --- Canal protobuf ------------------------------------------------------------------------------


def _pb() -> Any:
    from cdc_lake.proto import load_canal_pb2

    return load_canal_pb2()


def canal_column(
    name: str,
    value: str | None,
    *,
    mysql_type: str = "varchar(255)",
    sql_type: int = 12,
    is_key: bool = False,
    updated: bool = False,
    index: int = 0,
) -> Any:
    """A CanalEntry.Column; value None sets isNull (and leaves value empty), as Canal does."""
    column = _pb().CanalEntry.Column(
        index=index, sqlType=sql_type, name=name, isKey=is_key, updated=updated, mysqlType=mysql_type
    )
    if value is None:
        column.isNull = True
    else:
        column.value = value
        column.length = len(value)
    return column


def canal_header(
    schema: str = "",
    table: str = "",
    *,
    logfile: str = "mysql-bin.000001",
    offset: int = 4,
    execute_time: int = 1_700_000_000_000,
    event_type: str | None = None,
    gtid: str = "",
    server_id: int = 1,
) -> Any:
    pb = _pb()
    header = pb.CanalEntry.Header(
        logfileName=logfile,
        logfileOffset=offset,
        serverId=server_id,
        serverenCode="UTF-8",
        executeTime=execute_time,
        schemaName=schema,
        tableName=table,
        eventLength=31,
        gtid=gtid,
    )
    header.version = 1
    header.sourceType = pb.CanalEntry.MYSQL
    if event_type is not None:
        header.eventType = pb.CanalEntry.EventType.Value(event_type)
    return header


def canal_row_entry(
    header: Any,
    event_type: str | None,
    rows: Sequence[tuple[Sequence[Any], Sequence[Any]]] = (),
    *,
    is_ddl: bool | None = None,
    sql: str = "",
    entry_type: str | None = "ROWDATA",
) -> Any:
    """A ROWDATA Entry: rows are (beforeColumns, afterColumns); None leaves a oneof field absent."""
    pb = _pb()
    change = pb.CanalEntry.RowChange(tableId=7, sql=sql)
    if event_type is not None:
        change.eventType = pb.CanalEntry.EventType.Value(event_type)
    if is_ddl is not None:
        change.isDdl = is_ddl
    for before, after in rows:
        change.rowDatas.add(beforeColumns=list(before), afterColumns=list(after))
    entry = pb.CanalEntry.Entry(header=header, storeValue=change.SerializeToString())
    if entry_type is not None:
        entry.entryType = pb.CanalEntry.EntryType.Value(entry_type)
    return entry


def canal_transaction_begin(header: Any, thread_id: int = 42) -> Any:
    pb = _pb()
    begin = pb.CanalEntry.TransactionBegin(threadId=thread_id)
    return pb.CanalEntry.Entry(
        header=header, entryType=pb.CanalEntry.TRANSACTIONBEGIN, storeValue=begin.SerializeToString()
    )


def canal_transaction_end(header: Any, transaction_id: str) -> Any:
    pb = _pb()
    end = pb.CanalEntry.TransactionEnd(transactionId=transaction_id)
    return pb.CanalEntry.Entry(
        header=header, entryType=pb.CanalEntry.TRANSACTIONEND, storeValue=end.SerializeToString()
    )


def canal_entry_of_type(header: Any, entry_type: str, store_value: bytes = b"") -> Any:
    pb = _pb()
    return pb.CanalEntry.Entry(
        header=header, entryType=pb.CanalEntry.EntryType.Value(entry_type), storeValue=store_value
    )


def canal_message(entries: Sequence[Any], batch_id: int = 1) -> bytes:
    """A Kafka record value as Canal writes it with flatMessage=false: Packet(MESSAGES, Messages)."""
    pb = _pb()
    messages = pb.CanalPacket.Messages(
        batch_id=batch_id, messages=[entry.SerializeToString() for entry in entries]
    )
    packet = pb.CanalPacket.Packet(type=pb.CanalPacket.MESSAGES, body=messages.SerializeToString())
    packet.version = 1
    return packet.SerializeToString()
