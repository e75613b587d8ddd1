"""The message formats cdc-lake reads, and how `--format auto` recognises a JSON message.

Detection looks for each format's characteristic top-level keys in the message text with
regular expressions (run inside Spark, so it costs one pass at landing time). The first
detector that matches wins; the order puts the more specific shapes first.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    """One message format: its id (see CONTRACT.md), whether it arrives as bytes, and its detector."""

    format_id: str
    binary: bool
    detector: tuple[str, ...] = ()
    """Regular expressions that must all match the message text (JSON formats)."""


def _key(name: str) -> str:
    return rf'"{name}"\s*:'


FORMATS: tuple[Format, ...] = (
    Format(
        "oms_extend_column_type",
        False,
        (_key("__light_type"), r'"(recordType|allMetaData|prevStruct|postStruct)"'),
    ),
    Format("oms_default", False, (_key("recordType"), r'"(allMetaData|prevStruct|postStruct)"')),
    Format("kafka_river_canal", False, (_key("binlog"), _key("event"), _key("columns"))),
    Format("cloudcanal_json", False, (_key("action"), r'"(entryType|dbValType|jdbcType|bid)"\s*:')),
    Format("ckafka_format_one", False, (_key("TYPE"), r'"(NEW_VALUES|OLD_VALUES)"\s*:')),
    Format("oms_shareplex", False, (r'"meta"\s*:\s*\{', _key("op"))),
    Format("oms_dataworks", False, (_key("payload"), _key("eventTime"))),
    Format(
        "debezium_json",
        False,
        (r'"(op|ddl|databaseName)"\s*:', r'"(source|ts_ms|payload|before|after)"\s*:'),
    ),
    Format("canal_json", False, (_key("database"), _key("type"))),
    Format("dts_avro", True),
    Format("canal_protobuf", True),
)

FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS)
BINARY_FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS if f.binary)
JSON_FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS if not f.binary)
AUTO = "auto"
UNKNOWN = "unknown"


def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def detection_sql(text_column: str) -> str:
    """A Spark SQL expression naming the JSON format of `text_column`, or 'unknown'."""
    branches = []
    for fmt in FORMATS:
        if not fmt.detector:
            continue
        condition = " and ".join(f"{text_column} rlike {_sql_string(rx)}" for rx in fmt.detector)
        branches.append(f"when {condition} then '{fmt.format_id}'")
    return f"case {' '.join(branches)} else '{UNKNOWN}' end"


def get_format(format_id: str) -> Format:
    """The format with this id; raises ValueError with the list of ids otherwise."""
    for fmt in FORMATS:
        if fmt.format_id == format_id:
            return fmt
    raise ValueError(
        f"unknown format id {format_id!r}: use one of {', '.join(FORMAT_IDS + (AUTO,))}"
    )
