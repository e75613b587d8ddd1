"""SQL text built from Python values: the one place that quotes a value as a Spark SQL literal."""

from __future__ import annotations


def sql_string(value: str) -> str:
    """A Spark SQL string literal of `value`: in single quotes, backslashes and quotes escaped."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
