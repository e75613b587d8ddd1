"""Decoders for the binary formats (dts_avro, canal_protobuf), run in the landing step.

`decode_binary_messages` turns each binary message into a JSON envelope (message_text) that the
format's staging model reads with plain Spark SQL, so no dbt model needs a Python UDF.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def decode_binary_messages(df: "DataFrame") -> "DataFrame":
    """Fill message_text/decode_error (and message_format for auto) for binary messages.

    Placeholder until the binary decoders land: binary messages are marked undecodable.
    """
    from pyspark.sql import functions as F

    from cdc_lake.formats import AUTO, BINARY_FORMAT_IDS

    binary = F.col("message_format").isin(*BINARY_FORMAT_IDS, AUTO) & F.col("message_bytes").isNotNull()
    return df.withColumn(
        "decode_error",
        F.when(binary, F.lit("binary decoding is not available yet")).otherwise(F.col("decode_error")),
    )
