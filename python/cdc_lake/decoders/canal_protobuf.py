"""Canal protobuf (canal.mq.flatMessage=false), decoded with the classes generated from canal.proto.

A Kafka record holds a `CanalPacket.Packet` (type MESSAGES, no compression) whose body is a
`CanalPacket.Messages`: a batch id and many serialized `CanalEntry.Entry`s. A record holding one
bare `CanalEntry.Entry` is accepted too. `decode(data)` returns a JSON array with one object
per Entry, shaped like Canal's FlatMessage plus the header's position fields:

    entryIndex, batchId, entryType, headerVersion, logfileName, logfileOffset, serverId,
    serverenCode, executeTime, sourceType, schemaName, tableName, eventLength, headerEventType,
    gtid, props, transactionId (the XID of the TRANSACTIONEND closing the entry's transaction in
    the same record), and for ROWDATA: eventType, isDdl, sql, ddlSchemaName, tableId, pkNames,
    mysqlType, sqlType, rows [{before, after, updated}]; for TRANSACTIONBEGIN: threadId.

Every value is a JSON string or null. Fields that Canal wraps in `oneof xxx_present` get the
documented default when absent (entryType ROWDATA, eventType UPDATE, isDdl false, isNull false,
sourceType MYSQL, version 1), not the proto3 zero value. A column with isNull true is null;
otherwise its `value` text as is. Bytes that do not parse, that carry fields canal.proto does not
define (at any depth), a packet that is not an uncompressed MESSAGES packet, or one without
entries (Canal never sends an empty batch; a packet cut short before its body looks like one)
make a DecodeError.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cdc_lake.decoders._common import DecodeError, describe, envelope_json


def _pb() -> Any:
    from cdc_lake.proto import load_canal_pb2

    return load_canal_pb2()


def _parse(message_class: Any, data: bytes, what: str) -> Any:
    from google.protobuf import unknown_fields

    message = message_class()
    try:
        message.ParseFromString(data)
    except Exception as exc:  # google.protobuf.message.DecodeError (its text only names the type)
        detail = "" if "Error parsing message" in str(exc) else f": {describe(exc)}"
        raise DecodeError(f"{what} does not parse as protobuf{detail}") from None
    _check_known(message, what, unknown_fields)
    return message


def _check_known(message: Any, path: str, unknown_fields: Any) -> None:
    unknown = unknown_fields.UnknownFieldSet(message)
    if len(unknown):
        numbers = sorted({field.field_number for field in unknown})
        raise DecodeError(
            f"{path} has field number(s) {', '.join(map(str, numbers))} that "
            f"{message.DESCRIPTOR.name} does not define"
        )
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        repeated = getattr(field, "is_repeated", None)
        if repeated is None:
            repeated = field.label == field.LABEL_REPEATED
        children = enumerate(value) if repeated else [(None, value)]
        for index, child in children:
            suffix = "" if index is None else f"[{index}]"
            _check_known(child, f"{path}.{field.name}{suffix}", unknown_fields)


def _enum_name(enum_type: Any, value: int) -> str:
    try:
        return str(enum_type.Name(value))
    except ValueError:  # proto3 enums are open: an unknown number is kept as a number
        return str(value)


def _present(message: Any, oneof: str) -> bool:
    return message.WhichOneof(oneof) is not None


def read_entries(data: bytes) -> tuple[int | None, list[Any]]:
    """(batch id or None, the Entries) of one record: a MESSAGES Packet, or one bare Entry."""
    pb = _pb()
    packet_class, entry_class = pb.CanalPacket.Packet, pb.CanalEntry.Entry
    try:
        packet = _parse(packet_class, data, "Packet")
    except DecodeError as packet_error:
        try:
            entry = _parse(entry_class, data, "Entry")
        except DecodeError as entry_error:
            raise DecodeError(f"not a Canal Packet ({packet_error}) nor an Entry ({entry_error})") from None
        if not entry.HasField("header"):
            raise DecodeError(f"not a Canal Packet ({packet_error}) nor an Entry (Entry has no header)")
        return None, [entry]
    messages_type = pb.CanalPacket.PacketType.Value("MESSAGES")
    if packet.type != messages_type:
        raise DecodeError(
            f"not a Canal MESSAGES packet (Packet type {_enum_name(pb.CanalPacket.PacketType, packet.type)})"
        )
    if _present(packet, "compression_present"):
        compression = _enum_name(pb.CanalPacket.Compression, packet.compression)
        if compression not in ("NONE", "COMPRESSIONCOMPATIBLEPROTO2"):
            raise DecodeError(f"compressed Canal packets are not supported (compression {compression})")
    messages = _parse(pb.CanalPacket.Messages, packet.body, "Packet.body (Messages)")
    if not messages.messages:  # Canal never sends an empty batch; a cut-short packet looks like one
        raise DecodeError("Canal MESSAGES packet without entries")
    entries = [
        _parse(entry_class, raw, f"Messages.messages[{index}] (Entry)")
        for index, raw in enumerate(messages.messages)
    ]
    return messages.batch_id, entries


def _columns(columns: Iterable[Any]) -> dict[str, str | None] | None:
    image = {c.name: (None if _present(c, "isNull_present") and c.isNull else c.value) for c in columns}
    return image or None


def _row_change(pb: Any, entry: Any, path: str) -> dict[str, Any]:
    change = _parse(pb.CanalEntry.RowChange, entry.storeValue, f"{path}.storeValue (RowChange)")
    rows, pk_names = [], []
    mysql_types: dict[str, str] = {}
    sql_types: dict[str, str] = {}
    for row in change.rowDatas:
        for column in [*row.afterColumns, *row.beforeColumns]:
            if column.isKey and column.name not in pk_names:
                pk_names.append(column.name)
            mysql_types.setdefault(column.name, column.mysqlType)
            sql_types.setdefault(column.name, str(column.sqlType))
        rows.append(
            {
                "before": _columns(row.beforeColumns),
                "after": _columns(row.afterColumns),
                "updated": [c.name for c in row.afterColumns if c.updated],
            }
        )
    event_type = "UPDATE"
    if _present(change, "eventType_present"):
        event_type = _enum_name(pb.CanalEntry.EventType, change.eventType)
    is_ddl = _present(change, "isDdl_present") and change.isDdl
    return {
        "eventType": event_type,
        "isDdl": "true" if is_ddl else "false",
        "sql": change.sql,
        "ddlSchemaName": change.ddlSchemaName,
        "tableId": str(change.tableId),
        "pkNames": pk_names,
        "mysqlType": mysql_types or None,
        "sqlType": sql_types or None,
        "rows": rows,
    }


def _transaction_ids(entry_types: list[str], end_ids: list[str | None]) -> list[str | None]:
    """Each entry's XID: that of the TRANSACTIONEND closing its transaction in this record."""
    ids: list[str | None] = [None] * len(entry_types)
    current = None
    for index in range(len(entry_types) - 1, -1, -1):
        if entry_types[index] == "TRANSACTIONEND":
            current = end_ids[index]
        ids[index] = current
        if entry_types[index] == "TRANSACTIONBEGIN":
            current = None
    return ids


def envelope(batch_id: int | None, entries: list[Any]) -> list[dict[str, Any]]:
    """The JSON-ready envelope: one object per Entry (see the module docstring)."""
    pb = _pb()
    objects: list[dict[str, Any]] = []
    end_ids: list[str | None] = []
    for index, entry in enumerate(entries):
        path = f"Entry {index}"
        header = entry.header
        entry_type = "ROWDATA"
        if _present(entry, "entryType_present"):
            entry_type = _enum_name(pb.CanalEntry.EntryType, entry.entryType)
        obj: dict[str, Any] = {
            "entryIndex": str(index),
            "batchId": None if batch_id is None else str(batch_id),
            "entryType": entry_type,
            "headerVersion": str(header.version) if _present(header, "version_present") else "1",
            "logfileName": header.logfileName,
            "logfileOffset": str(header.logfileOffset),
            "serverId": str(header.serverId),
            "serverenCode": header.serverenCode,
            "executeTime": str(header.executeTime),
            "sourceType": (
                _enum_name(pb.CanalEntry.Type, header.sourceType)
                if _present(header, "sourceType_present")
                else "MYSQL"
            ),
            "schemaName": header.schemaName,
            "tableName": header.tableName,
            "eventLength": str(header.eventLength),
            "headerEventType": (
                _enum_name(pb.CanalEntry.EventType, header.eventType)
                if _present(header, "eventType_present")
                else "UPDATE"
            ),
            "gtid": header.gtid,
            "props": {p.key: p.value for p in header.props} or None,
        }
        end_id = None
        if entry_type == "ROWDATA":
            obj.update(_row_change(pb, entry, path))
        elif entry_type == "TRANSACTIONBEGIN":
            begin = _parse(pb.CanalEntry.TransactionBegin, entry.storeValue, f"{path}.storeValue (TransactionBegin)")
            obj["threadId"] = str(begin.threadId)
        elif entry_type == "TRANSACTIONEND":
            end = _parse(pb.CanalEntry.TransactionEnd, entry.storeValue, f"{path}.storeValue (TransactionEnd)")
            end_id = end.transactionId or None
        end_ids.append(end_id)
        objects.append(obj)
    for obj, transaction_id in zip(
        objects, _transaction_ids([o["entryType"] for o in objects], end_ids)
    ):
        obj["transactionId"] = transaction_id
    return objects


def decode(data: bytes) -> str:
    """The JSON envelope (an array, one object per Entry) of one Canal protobuf message."""
    return envelope_json(envelope(*read_entries(data)))
