"""Unit tests of the conversions cdc_typed_value is made of (macros/typing/values/): each family's
macro runs on its own cases (the session time zone is UTC, as cdc-lake sets it).

All cases are compiled in one `dbt compile --inline` and run in one Spark query; each test checks
its family's rows. A case is (value text, source type or None, expected value as Spark prints it
as a string, or None when the value must not convert).
"""

from __future__ import annotations

from typing import Any

import pytest

# family -> (macro call with {text}, {base}, {source_type} and {target} placeholders, {target: cases})
FAMILIES: dict[str, tuple[str, dict[str, list[tuple[str, str | None, str | None]]]]] = {
    "integer": (
        "cdc_typed_integer({text}, '{target}')",
        {
            "int": [("42", None, "42"), ("-7", None, "-7"), ("2147483648", None, None), ("abc", None, None)],
            "bigint": [("9223372036854775807", None, "9223372036854775807"), ("9223372036854775808", None, None)],
            "smallint": [("32767", None, "32767"), ("32768", None, None)],
        },
    ),
    "decimal": (
        "cdc_typed_decimal({text}, '{target}')",
        {
            "decimal(10,2)": [
                ("12.5", None, "12.50"),
                ("12.340", None, "12.34"),  # trailing zeros are not digits the value needs
                ("12.345", None, None),  # never rounded
                ("123456789.1", None, None),  # 9 integer digits in decimal(10,2)
                ("-0.10", None, "-0.10"),
                ("221E-2", None, "2.21"),  # a decoded Kafka Connect Decimal
                ("x", None, None),
            ],
            "decimal(4,0)": [("1500E-2", None, "15"), ("1.5E+3", None, "1500")],
        },
    ),
    "floating": (
        "cdc_typed_floating({text}, '{target}')",
        {
            "double": [
                ("1e3", None, "1000.0"),
                ("-2.5", None, "-2.5"),
                ("1e400", None, None),  # overflows to infinity
                ("NaN", None, "NaN"),  # said by the text itself
                ("-Infinity", None, "-Infinity"),
                ("abc", None, None),
            ],
            "float": [("3.4e39", None, None), ("0.5", None, "0.5")],
        },
    ),
    "boolean": (
        "cdc_typed_boolean({text})",
        {
            "boolean": [
                ("AQ==", None, "true"),  # BIT(1) as base64 bytes
                ("AA==", None, "false"),
                (" yes ", None, "true"),
                ("0", None, "false"),
                ("t", None, "true"),
                ("maybe", None, None),
            ],
        },
    ),
    "date": (
        "cdc_typed_date({text}, {base})",
        {
            "date": [
                ("2020-01-02", None, "2020-01-02"),
                ("2020-1-2", None, "2020-01-02"),
                ("2020-01-02 00:00:00", None, "2020-01-02"),
                ("2020-01-02 10:11:12", None, None),  # a time of day is never cut off
                ("2020-02-30", None, None),
                ("18000", "io.debezium.time.Date", "2019-04-14"),  # days since 1970-01-01
                ("18000", "org.apache.kafka.connect.data.Date", "2019-04-14"),
                ("1577923200000", None, "2020-01-02"),  # epoch milliseconds of a midnight
                ("1577923200001", None, None),
                ("0000-00-00", None, None),
            ],
        },
    ),
    "timestamp": (
        "cdc_typed_timestamp({text}, {base})",
        {
            "timestamp": [
                ("1606233662012", "io.debezium.time.Timestamp", "2020-11-24 16:01:02.012"),
                ("1606233662012", "org.apache.kafka.connect.data.Timestamp", "2020-11-24 16:01:02.012"),
                ("1606233662012345", "io.debezium.time.MicroTimestamp", "2020-11-24 16:01:02.012345"),
                ("1606233662012345678", "io.debezium.time.NanoTimestamp", "2020-11-24 16:01:02.012345"),
                ("18000", "io.debezium.time.Date", "2019-04-14 00:00:00"),
                ("1700000000000.123456789", None, "2023-11-14 22:13:20.123456"),  # Dataworks
                ("1606233662.012345", None, "2020-11-24 16:01:02.012345"),  # epoch seconds
                ("2020-11-25 00:01:02.012345 Asia/Shanghai", None, "2020-11-24 16:01:02.012345"),
                ("2020-01-01T10:11:12Z", None, "2020-01-01 10:11:12"),
                ("0000-00-00 00:00:00", None, None),
                ("soon", None, None),
            ],
        },
    ),
    "binary": (
        "cdc_typed_binary({text})",
        {"binary": [("aGVsbG8=", None, "hello"), (" aGVs\nbG8= ", None, "hello"), ("aGVsbG8", None, None)]},
    ),
    "text": (
        "cdc_typed_text({text}, {base})",
        {
            "string": [
                ("3723500", "io.debezium.time.Time", "01:02:03.5"),  # milliseconds of the day
                ("3723500000", "io.debezium.time.MicroTime", "01:02:03.5"),
                ("3723000000000", "io.debezium.time.NanoTime", "01:02:03"),
                ("-3600000", "org.apache.kafka.connect.data.Time", "-01:00:00"),  # a MySQL TIME duration
                ("12:34:56", "time", "12:34:56"),
                ("hello", None, "hello"),
            ],
        },
    ),
    "number_text": (
        "cdc_numeric_text({text}, {source_type})",
        {
            "string": [
                ("AN0=", "org.apache.kafka.connect.data.Decimal(scale=2)", "221E-2"),
                ("/w==", "org.apache.kafka.connect.data.Decimal(scale=0)", "-1E-0"),  # two's complement
                ('{"scale":2,"value":"AN0="}', "io.debezium.data.VariableScaleDecimal", "221E-2"),
                ("true", "bit(1)", "1"),
                ("False", None, "0"),
                ("12.50", "decimal(10,2)", "12.50"),
            ],
        },
    ),
}


@pytest.fixture(scope="module")
def converted(lake) -> dict[str, list[dict[str, Any]]]:
    """Every family's cases, converted: {family: [{text, source_type, target, expected, got}]}."""
    from cdc_lake.dbt import run_dbt

    rows = [
        (family, target, text, source_type, expected)
        for family, (_, by_target) in FAMILIES.items()
        for target, cases in by_target.items()
        for text, source_type, expected in cases
    ]
    lake.spark.createDataFrame(
        rows, "family string, target string, text string, source_type string, expected string"
    ).createOrReplaceTempView("typed_value_cases")
    selects = []
    for family, (call, by_target) in FAMILIES.items():
        for target in by_target:
            macro = call.format(
                text="'text'", base="cdc_type_base('source_type')", source_type="'source_type'", target=target
            )
            selects.append(
                f"select family, target, text, source_type, expected, cast({{{{ {macro} }}}} as string) as got"
                f" from typed_value_cases where family = '{family}' and target = '{target}'"
            )
    sql = run_dbt(["compile", "--inline", "\nunion all\n".join(selects)]).results[0].node.compiled_code
    by_family: dict[str, list[dict[str, Any]]] = {family: [] for family in FAMILIES}
    for row in lake.spark.sql(sql).collect():
        by_family[row["family"]].append(row.asDict())
    assert sum(map(len, by_family.values())) == len(rows)
    return by_family


def wrong(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for row in rows if row["got"] != row["expected"]]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family_converts_its_cases(converted, family):
    assert converted[family], family
    assert wrong(converted[family]) == []
