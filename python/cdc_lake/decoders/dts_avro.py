"""Aliyun DTS Avro: one `com.alibaba.dts.formats.avro.Record` per message, decoded with fastavro.

`decode(data)` returns the JSON envelope that models/staging/dts_avro reads: the Record's
scalar fields as text, `before`/`after` as {column: text or null} (values rendered as
CONTRACT.md, "Text of values that arrive as bytes", says), `columnTypes` as {column: MySQL type
name}, and the DDL statement (`ddl`) when an image is a string. Every value is a JSON string or
null, so the staging model's from_json keeps the exact text.

The schema is `dts-record.avsc` (a copy of ../shared/specs/dts-record.avsc shipped in the
package). The bytes must be exactly one Record: a read error or bytes left over make a
DecodeError.
"""

from __future__ import annotations

import base64
import codecs
import decimal
import functools
import io
import json
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from cdc_lake.decoders._common import DecodeError, describe, envelope_json

SCHEMA_FILE = Path(__file__).with_name("dts-record.avsc")
NAMESPACE = "com.alibaba.dts.formats.avro"
RECORD = f"{NAMESPACE}.Record"

# dataTypeNumber is the MySQL binlog column type code; the names are MySQL's SQL type names.
# 249-252 are used by both BLOB and TEXT columns: a character value makes them *text.
TYPE_NAMES: dict[int, str] = {
    0: "decimal",
    1: "tinyint",
    2: "smallint",
    3: "int",
    4: "float",
    5: "double",
    6: "null",
    7: "timestamp",
    8: "bigint",
    9: "mediumint",
    10: "date",
    11: "time",
    12: "datetime",
    13: "year",
    14: "date",
    15: "varchar",
    16: "bit",
    17: "timestamp",
    18: "datetime",
    19: "time",
    245: "json",
    246: "decimal",
    247: "enum",
    248: "set",
    249: "tinyblob",
    250: "mediumblob",
    251: "longblob",
    252: "blob",
    253: "varchar",
    254: "char",
    255: "geometry",
}
TEXT_TYPE_NAMES: dict[int, str] = {249: "tinytext", 250: "mediumtext", 251: "longtext", 252: "text"}

# MySQL character set names and the codec that decodes them (as the DTS demo's JDK mapping does:
# MySQL latin1 is Windows-1252, binary is ISO-8859-1, utf16/ucs2 are big-endian).
CHARSETS: dict[str, str] = {
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "utf8mb4": "utf-8",
    "ascii": "ascii",
    "binary": "latin-1",
    "latin1": "cp1252",
    "latin2": "iso8859-2",
    "latin5": "iso8859-9",
    "latin7": "iso8859-13",
    "greek": "iso8859-7",
    "hebrew": "iso8859-8",
    "armscii8": "cp1252",
    "dec8": "cp1252",
    "geostd8": "cp1252",
    "hp8": "cp1252",
    "swe7": "cp1252",
    "cp1250": "cp1250",
    "cp1251": "cp1251",
    "cp1256": "cp1256",
    "cp1257": "cp1257",
    "cp850": "cp850",
    "cp852": "cp852",
    "keybcs2": "cp852",
    "cp866": "cp866",
    "cp932": "cp932",
    "sjis": "shift_jis",
    "ujis": "euc_jp",
    "eucjpms": "euc_jp",
    "euckr": "euc_kr",
    "gb2312": "gb2312",
    "gbk": "gbk",
    "gb18030": "gb18030",
    "big5": "big5",
    "koi8r": "koi8_r",
    "koi8u": "koi8_u",
    "macce": "mac_latin2",
    "macroman": "mac_roman",
    "tis620": "tis_620",
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "utf16le": "utf-16-le",
    "utf32": "utf-32-be",
}

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@functools.cache
def record_schema() -> dict[str, Any]:
    """The parsed Record schema (the other named types of the .avsc are defined first)."""
    from fastavro import parse_schema

    items = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    named: dict[str, Any] = {}
    for item in items:
        parsed = parse_schema(item, named_schemas=named)
        if item.get("name") == "Record":
            return parsed
    raise RuntimeError(f"{SCHEMA_FILE} defines no Record")


def read_record(data: bytes) -> dict[str, Any]:
    """The Record in `data`; union values of named types come back as (type name, value)."""
    from fastavro import schemaless_reader

    stream = io.BytesIO(data)
    try:
        record = schemaless_reader(stream, record_schema(), None, return_named_type=True)
    except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError, UnicodeDecodeError...
        raise DecodeError(f"not a DTS Avro Record ({describe(exc)})") from None
    left = len(data) - stream.tell()
    if left:
        raise DecodeError(f"not a DTS Avro Record ({left} byte(s) left over after the Record)")
    return record


def float_text(value: float) -> str:
    """The shortest decimal text that reads back as the same double, without an exponent."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = format(decimal.Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _fraction(micros: int | None) -> str:
    return f".{micros:06d}" if micros else ""


def timestamp_text(seconds: int, micros: int) -> str:
    """`YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC; `micros` is the DTS Timestamp's `millis` field."""
    try:
        moment = _EPOCH + timedelta(seconds=seconds, microseconds=micros)
    except OverflowError:
        raise DecodeError(f"Timestamp {seconds}.{micros} is out of range") from None
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} "
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{_fraction(moment.microsecond)}"
    )


def datetime_text(value: dict[str, int | None]) -> str:
    """A DTS DateTime: DATE, DATETIME, TIME (hour may be negative or >= 100) or YEAR.

    Only date parts set: `YYYY-MM-DD` (only the year: `YYYY`); only time parts set:
    `[-]HH:MM:SS[.ffffff]`; else `YYYY-MM-DD HH:MM:SS[.ffffff]` (a missing part is 0).
    `millis` holds microseconds.
    """
    year, month, day = value.get("year"), value.get("month"), value.get("day")
    hour, minute, second = value.get("hour"), value.get("minute"), value.get("second")
    micros = value.get("millis")
    has_date = any(p is not None for p in (year, month, day))
    has_time = any(p is not None for p in (hour, minute, second, micros))
    if has_date and not has_time:
        if month is None and day is None:
            return f"{year:04d}"
        return f"{year or 0:04d}-{month or 0:02d}-{day or 0:02d}"
    if has_time and not has_date:
        parts = [hour or 0, minute or 0, second or 0, micros or 0]
        sign = "-" if any(p < 0 for p in parts) else ""
        h, m, s, us = (abs(p) for p in parts)
        return f"{sign}{h:02d}:{m:02d}:{s:02d}{_fraction(us)}"
    return (
        f"{year or 0:04d}-{month or 0:02d}-{day or 0:02d} "
        f"{hour or 0:02d}:{minute or 0:02d}:{second or 0:02d}{_fraction(micros)}"
    )


def character_text(data: bytes, charset: str) -> str:
    """Bytes of a DTS Character decoded with its own MySQL charset (or any Python codec name)."""
    name = charset.strip().lower()
    codec = CHARSETS.get(name, name)
    try:
        codecs.lookup(codec)
    except LookupError:
        raise DecodeError(f"unknown character set {charset!r}") from None
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise DecodeError(f"bytes are not valid {charset} ({exc.reason} at byte {exc.start})") from None


def value_text(value: Any) -> str | None:
    """The text of one image value (a union branch as (type name, value), or None)."""
    if value is None:
        return None
    if not (isinstance(value, tuple) and len(value) == 2):
        raise DecodeError(f"unexpected image value {value!r}")
    type_name, body = value
    kind = type_name.rsplit(".", 1)[-1]
    if kind in ("Integer", "Decimal", "TextObject", "TextGeometry"):
        return body["value"]
    if kind == "Character":
        return character_text(body["value"], body["charset"])
    if kind == "Float":
        return float_text(body["value"])
    if kind == "Timestamp":
        return timestamp_text(body["timestamp"], body["millis"])
    if kind == "DateTime":
        return datetime_text(body)
    if kind == "TimestampWithTimeZone":
        text = datetime_text(body["value"])
        return f"{text} {body['timezone']}" if body["timezone"] else text
    if kind in ("BinaryObject", "BinaryGeometry"):
        return base64.b64encode(body["value"]).decode("ascii")
    if kind == "EmptyObject":
        return None
    raise DecodeError(f"unknown value type {type_name}")


def _image(fields: list[dict[str, Any]] | None, images: Any, side: str) -> dict[str, str | None] | None:
    if images is None or isinstance(images, str):
        return None
    if fields is None:
        raise DecodeError(f"{side} has {len(images)} value(s) but the Record has no fields")
    if len(images) != len(fields):
        raise DecodeError(f"{side} has {len(images)} value(s) for {len(fields)} field(s)")
    image: dict[str, str | None] = {}
    for field, value in zip(fields, images):
        try:
            image[field["name"]] = value_text(value)
        except DecodeError as exc:
            raise DecodeError(f"{side}, column {field['name']}: {exc}") from None
    return image


def _column_types(fields: list[dict[str, Any]], images: list[Any]) -> dict[str, str]:
    types = {}
    for position, field in enumerate(fields):
        number = field["dataTypeNumber"]
        name = TYPE_NAMES.get(number, str(number))
        values = [image[position] for image in images if image[position] is not None]
        kinds = {v[0].rsplit(".", 1)[-1] for v in values if isinstance(v, tuple)}
        if number in TEXT_TYPE_NAMES and kinds & {"Character", "TextObject"}:
            name = TEXT_TYPE_NAMES[number]
        decimals = [v[1] for v in values if isinstance(v, tuple) and v[0].endswith(".Decimal")]
        if decimals:
            name = f"decimal({decimals[0]['precision']},{decimals[0]['scale']})"
        types[field["name"]] = name
    return types


def envelope(record: dict[str, Any]) -> dict[str, Any]:
    """The JSON-ready envelope of a decoded Record (see the module docstring)."""
    fields = record["fields"] if isinstance(record["fields"], list) else None
    if fields is not None:
        names = [f["name"] for f in fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise DecodeError(f"duplicate field name(s) {', '.join(duplicates)}")
    before, after = record["beforeImages"], record["afterImages"]
    images = [i for i in (after, before) if isinstance(i, list)]
    before_image = _image(fields, before, "beforeImages")
    after_image = _image(fields, after, "afterImages")
    ddl = next((i for i in (after, before) if isinstance(i, str)), None)
    return {
        "version": str(record["version"]),
        "id": str(record["id"]),
        "sourceTimestamp": str(record["sourceTimestamp"]),
        "sourcePosition": record["sourcePosition"],
        "safeSourcePosition": record["safeSourcePosition"],
        "sourceTxid": record["sourceTxid"],
        "sourceType": record["source"]["sourceType"],
        "sourceVersion": record["source"]["version"],
        "operation": record["operation"],
        "objectName": record["objectName"],
        "processTimestamps": (
            None if record["processTimestamps"] is None else [str(t) for t in record["processTimestamps"]]
        ),
        "tags": record["tags"],
        "fields": (
            None
            if fields is None
            else [{"name": f["name"], "dataTypeNumber": str(f["dataTypeNumber"])} for f in fields]
        ),
        "fieldsText": record["fields"] if isinstance(record["fields"], str) else None,
        "columnTypes": None if fields is None else _column_types(fields, images),
        "before": before_image,
        "after": after_image,
        "ddl": ddl,
        "bornTimestamp": str(record["bornTimestamp"]),
    }


def decode(data: bytes) -> str:
    """The JSON envelope of one DTS Avro message, or DecodeError."""
    return envelope_json(envelope(read_record(data)))
