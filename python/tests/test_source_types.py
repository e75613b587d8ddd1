"""Unit tests of the source type table (macros/typing/cdc_spark_type_for.sql): what Spark type a
column's source type text and/or java.sql.Types code gives (cdc_spark_type_for), which code a type
text stands for (cdc_jdbc_type_for) and the name of a code (cdc_jdbc_type_name).

The cases are written out here, not derived from the macros' tables, so a row lost from a table
or a rule taken out of order fails a case. All of them are compiled in one `dbt compile --inline`
and run in one Spark query.
"""

from __future__ import annotations

from typing import Any

import pytest

# (source type text or None, java.sql.Types code text or None, expected Spark type)
SPARK_TYPES: list[tuple[str | None, str | None, str]] = [
    # integers: MySQL's display widths and UNSIGNED, Kafka Connect's sizes
    ("int(11)", None, "int"),
    ("INT(10) UNSIGNED", None, "bigint"),
    ("mediumint unsigned", None, "int"),
    ("tinyint(1)", None, "int"),
    ("year", None, "int"),
    ("bigint(20) unsigned", None, "decimal(20,0)"),
    ("bigint", "4", "bigint"),  # a recognised type text wins over the code
    ("serial", None, "bigint"),
    ("int8", None, "int"),
    ("int64", None, "bigint"),
    ("long", None, "bigint"),
    ("long raw", None, "binary"),  # Oracle's LONG RAW is bytes
    ("LONG  RAW", "-5", "binary"),  # its name wins over the code, as any recognised name does
    ("long\traw", None, "binary"),  # any white space between the words
    # decimals
    ("decimal(10,2)", None, "decimal(10,2)"),
    ("numeric(12)", None, "decimal(12,0)"),
    ("NUMBER", None, "decimal(38,18)"),
    ("decimal(65,30)", None, "decimal(38,30)"),
    ("decimal(50,40)", None, "string"),  # a scale above 38 cannot be held
    ("org.apache.kafka.connect.data.Decimal(scale=2)", None, "decimal(38,2)"),
    ("org.apache.kafka.connect.data.Decimal(precision=10,scale=2)", None, "decimal(10,2)"),
    ("io.debezium.data.VariableScaleDecimal", None, "decimal(38,18)"),
    # floating point
    ("float", None, "float"),
    ("float(53)", None, "double"),
    ("double precision", None, "double"),
    ("binary_float", None, "float"),
    ("float64", None, "double"),
    # booleans and bits
    ("bit(1)", None, "boolean"),
    ("bit(8)", None, "binary"),
    ("bit", None, "binary"),
    ("io.debezium.data.Bits", None, "binary"),
    ("boolean", None, "boolean"),
    # dates and times
    ("date", None, "date"),
    ("DATE", "93", "timestamp"),  # Oracle's DATE holds a time of day
    ("datetime(3)", None, "timestamp"),
    ("timestamp(6) with time zone", None, "timestamp"),
    ("timestamptz", None, "timestamp"),
    ("timestamp with local time zone", None, "timestamp"),
    ("time(6) with time zone", None, "string"),
    ("io.debezium.time.MicroTimestamp", None, "timestamp"),
    ("io.debezium.time.ZonedTimestamp", None, "timestamp"),
    ("org.apache.kafka.connect.data.Timestamp", None, "timestamp"),
    ("io.debezium.time.Date", None, "date"),
    ("io.debezium.time.Year", None, "int"),
    ("io.debezium.time.MicroDuration", None, "bigint"),
    ("time(3)", None, "string"),
    ("io.debezium.time.Time", None, "string"),
    ("io.debezium.time.ZonedTime", None, "string"),
    # text, bytes and the rest
    ("varchar(255)", None, "string"),
    ("character varying(10)", None, "string"),
    ("national char(4)", None, "string"),
    ("enum('a','b')", None, "string"),
    ("json", None, "string"),
    ("geometry", None, "string"),
    ("io.debezium.data.Json", None, "string"),
    ("blob", None, "binary"),
    ("varbinary(16)", None, "binary"),
    ("bytes", None, "binary"),
    ("bytea", None, "binary"),
    # Connect types without a Spark counterpart are text, whatever the code says
    ("struct", "4", "string"),
    ("org.apache.kafka.connect.data.Something", "4", "string"),
    # an unknown type text, or none: the code decides (the 002 appendix), else string
    ("no_such_type", "-5", "bigint"),
    ("no_such_type", "2004", "binary"),
    ("no_such_type", None, "string"),
    (None, "3", "decimal(38,18)"),
    (None, " 16 ", "boolean"),
    (None, "-7", "boolean"),
    (None, "6", "double"),
    (None, "7", "float"),
    ("", "91", "date"),
    (None, "2014", "timestamp"),
    (None, "12", "string"),
    (None, None, "string"),
]

# (source type text or None, expected java.sql.Types code or None)
JDBC_CODES: list[tuple[str | None, int | None]] = [
    ("tinyint(4)", -6),
    ("int8", -6),
    ("smallint", 5),
    ("int unsigned", 4),
    ("io.debezium.time.Year", 4),
    ("bigint", -5),
    ("decimal(10,2)", 3),
    ("org.apache.kafka.connect.data.Decimal(scale=2)", 3),
    ("numeric", 2),
    ("NUMBER(10)", 2),
    ("float", 6),
    ("float32", 7),
    ("double precision", 8),
    ("bool", 16),
    ("bit(1)", -7),
    ("io.debezium.data.Bits", -7),
    ("date", 91),
    ("time(3)", 92),
    ("io.debezium.time.MicroTime", 92),
    ("io.debezium.time.ZonedTime", 2013),
    ("datetime", 93),
    ("io.debezium.time.NanoTimestamp", 93),
    ("timestamptz", 2014),
    ("char(2)", 1),
    ("varchar(10)", 12),
    ("io.debezium.time.MicroDuration", 12),  # any other Debezium type is text
    ("text", -1),
    ("jsonb", -1),
    ("clob", 2005),
    ("nclob", 2011),
    ("xml", 2009),
    ("binary(16)", -2),
    ("varbinary(8)", -3),
    ("bytes", -3),
    ("long_raw", -4),
    ("blob", 2004),
    ("geometry", 1111),
    ("money", 1111),
    # names of several words stand for their one-word names
    ("long raw", -4),
    ("LONG RAW", -4),
    ("long\traw", -4),
    ("timestamp\twith time  zone", 2014),
    ("long", -5),
    ("character varying(10)", 12),
    ("char varying", 12),
    ("character(2)", 1),
    ("national character varying(8)", 12),
    ("national char(4)", 1),
    ("timestamp with time zone", 2014),
    ("timestamp(6) with time zone", 2014),
    ("TIMESTAMP (3) WITH LOCAL TIME ZONE", 2014),
    ("timestamp without time zone", 93),
    ("time with time zone", 92),
    ("time(3) without time zone", 92),
    ("struct", None),
    ("no_such_type", None),
    (None, None),
]

# (java.sql.Types code text or None, expected name or None)
JDBC_NAMES: list[tuple[str | None, str | None]] = [
    ("-5", "BIGINT"),
    (" 12", "VARCHAR"),
    ("2014", "TIMESTAMP_WITH_TIMEZONE"),
    ("-16", "LONGNVARCHAR"),
    ("1111", "OTHER"),
    ("10000", "unknown"),
    ("99", None),
    ("x", None),
    (None, None),
]


def _literal(value: object) -> str:
    if value is None:
        return "cast(null as string)"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.fixture(scope="module")
def mapped(lake) -> dict[str, list[dict[str, Any]]]:
    """Every case with what the macros give: {question: [{input..., expected, got}]}."""
    from cdc_lake.dbt import run_dbt

    selects = [
        f"select 'spark' as question, {_literal(source_type)} as source_type, {_literal(jdbc)} as jdbc_type,"
        f" {_literal(expected)} as expected,"
        f" {{{{ cdc_spark_type_for({_literal(source_type)!r}, {_literal(jdbc)!r}) }}}} as got"
        for source_type, jdbc, expected in SPARK_TYPES
    ]
    selects += [
        f"select 'jdbc' as question, {_literal(source_type)}, cast(null as string), {_literal(expected)},"
        f" cast({{{{ cdc_jdbc_type_for({_literal(source_type)!r}) }}}} as string)"
        for source_type, expected in JDBC_CODES
    ]
    selects += [
        f"select 'name' as question, cast(null as string), {_literal(jdbc)}, {_literal(expected)},"
        f" {{{{ cdc_jdbc_type_name({_literal(jdbc)!r}) }}}}"
        for jdbc, expected in JDBC_NAMES
    ]
    sql = run_dbt(["compile", "--inline", "\nunion all\n".join(selects)]).results[0].node.compiled_code
    by_question: dict[str, list[dict[str, Any]]] = {"spark": [], "jdbc": [], "name": []}
    for row in lake.spark.sql(sql).collect():
        by_question[row["question"]].append(row.asDict())
    assert sum(map(len, by_question.values())) == len(SPARK_TYPES) + len(JDBC_CODES) + len(JDBC_NAMES)
    return by_question


@pytest.mark.parametrize("question", ["spark", "jdbc", "name"])
def test_source_types_map_as_tabled(mapped, question):
    assert mapped[question], question
    assert [row for row in mapped[question] if row["got"] != row["expected"]] == []
