"""The pandas UDF body that Spark's Python workers run (pandas is imported here, not in the
decoders, which stay usable without it)."""

from __future__ import annotations

import pandas as pd

from cdc_lake.decoders import decode_message


def decode_series(formats: pd.Series, payloads: pd.Series) -> pd.DataFrame:
    """decode_message over a batch, as a frame of the (message_format, message_text,
    decode_error) struct; rows without bytes come back as nulls."""
    results = [
        decode_message(fmt, payload if isinstance(payload, (bytes, bytearray, memoryview)) else None)
        for fmt, payload in zip(formats, payloads)
    ]
    return pd.DataFrame(results, columns=["message_format", "message_text", "decode_error"], dtype=object)
