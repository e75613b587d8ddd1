"""Decoders for the binary formats (dts_avro, canal_protobuf), run in the landing step.

`decode_binary_messages` turns each binary message into a JSON envelope (message_text) that the
format's staging model reads with plain Spark SQL, so no dbt model needs a Python UDF. The
decoders themselves are pure Python (`dts_avro.decode`, `canal_protobuf.decode`: bytes in, JSON
text out, DecodeError when the bytes are not a message of the format); Spark runs them in a
vectorized pandas UDF.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cdc_lake.decoders._common import DecodeError, describe

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["DecodeError", "decode_binary_messages", "decode_message", "DECODERS"]

DTS_AVRO = "dts_avro"
CANAL_PROTOBUF = "canal_protobuf"
AUTO = "auto"


def _dts_avro(data: bytes) -> str:
    from cdc_lake.decoders import dts_avro

    return dts_avro.decode(data)


def _canal_protobuf(data: bytes) -> str:
    from cdc_lake.decoders import canal_protobuf

    return canal_protobuf.decode(data)


DECODERS: dict[str, Callable[[bytes], str]] = {DTS_AVRO: _dts_avro, CANAL_PROTOBUF: _canal_protobuf}
"""Format id to decoder; `auto` tries them in this order (DTS Avro, then Canal protobuf)."""


def _try(format_id: str, data: bytes) -> tuple[str | None, str | None]:
    try:
        return DECODERS[format_id](data), None
    except DecodeError as exc:
        return None, str(exc)
    except Exception as exc:  # a decoder bug must not fail the whole landing: quarantine instead
        return None, f"decoder failure ({describe(exc)})"


def decode_message(format_id: str, data: bytes | None) -> tuple[str, str | None, str | None]:
    """(format, envelope JSON or None, error or None) for one message.

    `format_id` is dts_avro, canal_protobuf or auto; for auto the format is the first decoder that
    accepts the bytes, or auto with both decoders' errors. Null bytes (a tombstone) give no
    envelope and no error.
    """
    if data is None:
        return format_id, None, None
    data = bytes(data)
    if format_id in DECODERS:
        text, error = _try(format_id, data)
        return format_id, text, error
    if format_id != AUTO:
        return format_id, None, f"no binary decoder for format {format_id}"
    errors = []
    for candidate in DECODERS:
        text, error = _try(candidate, data)
        if error is None:
            return candidate, text, None
        errors.append(f"{candidate}: {error}")
    return AUTO, None, "; ".join(errors)


def decode_binary_messages(df: "DataFrame") -> "DataFrame":
    """Fill message_text/decode_error (and message_format for auto) for binary messages.

    Rows whose message_format is a binary format or auto and that carry bytes are decoded; the
    others pass through unchanged (their bytes never reach Python).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf

    from cdc_lake.decoders._spark import decode_series
    from cdc_lake.formats import BINARY_FORMAT_IDS

    decode_udf = pandas_udf(  # type: ignore[call-overload]
        decode_series,
        "message_format string, message_text string, decode_error string",
    ).asNondeterministic()  # keeps Spark from inlining (and so re-running) it in each use below
    needs_decoding = F.col("message_format").isin(*BINARY_FORMAT_IDS, AUTO) & F.col("message_bytes").isNotNull()
    decoded = df.withColumn(
        "_decoded",
        decode_udf(
            F.when(needs_decoding, F.col("message_format")),
            F.when(needs_decoding, F.col("message_bytes")),
        ),
    )
    columns = []
    for name in df.columns:
        if name in ("message_format", "message_text", "decode_error"):
            columns.append(
                F.when(needs_decoding, F.col(f"_decoded.{name}")).otherwise(F.col(name)).alias(name)
            )
        else:
            columns.append(F.col(name))
    return decoded.select(*columns)
