"""Fuzz: mutated messages of every format never crash landing or the build, and every one is accounted.

Hypothesis draws a batch of mutations (truncation, wrong types, missing fields, huge values,
invalid UTF-8, deep nesting, random bytes for the binary formats) of valid messages: the verbatim
format-document examples and the shipped sample data. Each batch is landed as Kafka Parquet, one
landing per format, into a fresh scenario and built once (Spark and dbt are slow, so there are few
batches, each of some 150 messages covering every format, and there is no shrinking); the audit
must account for every message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, run_size, write_kafka_parquet

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]

# fixture-name prefix -> the format its examples are landed as
FIXTURE_FORMATS = (
    ("000_canal_", "canal_json"),
    ("001_kafka_river_canal_", "kafka_river_canal"),
    ("002_canal_json_cloudcanal_", "canal_json"),
    ("002_cloudcanal_json_", "cloudcanal_json"),
    ("002_debezium_cloudcanal_", "debezium_json"),
    ("003_canal_ckafka_", "canal_json"),
    ("003_ckafka_format_one_", "ckafka_format_one"),
    ("004_canal_oms_", "canal_json"),
    ("004_oms_dataworks_", "oms_dataworks"),
    ("004_oms_default_", "oms_default"),
    ("004_oms_extend_column_type_", "oms_extend_column_type"),
    ("004_oms_shareplex_", "oms_shareplex"),
)
BINARY_FORMATS = ("dts_avro", "canal_protobuf")


def _fixture_format(name: str) -> str:
    return next(fmt for prefix, fmt in FIXTURE_FORMATS if name.startswith(prefix))


def seed_messages() -> list[tuple[str, bytes]]:
    """(format, message bytes) of every verbatim example and every shipped sample message."""
    seeds = [
        (_fixture_format(p.name), p.read_bytes())
        for p in sorted((FIXTURES / "format_docs").glob("0*.txt"))
    ]
    samples = PROJECT / "sample_data"
    for folder in sorted(samples.iterdir()) if samples.is_dir() else []:
        for path in sorted(folder.glob("*.jsonl")):
            seeds += [(folder.name, line) for line in path.read_bytes().splitlines()[:20] if line.strip()]
        if folder.name in BINARY_FORMATS:
            import pyarrow.parquet as pq

            for path in sorted(folder.glob("*.parquet")):
                seeds += [(folder.name, v) for v in pq.read_table(path).column("value").to_pylist()[:10] if v]
    return seeds


SEEDS = seed_messages()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


def _paths(value, prefix=()):
    """Every path (tuple of keys/indexes) into a parsed JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


def _replace(value, path, new):
    if not path:
        return new
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


def _delete(value, path):
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    if rest:
        copy[head] = _delete(value[head], rest)
    else:
        del copy[head]
    return copy


@st.composite
def mutated(draw) -> tuple[str, bytes]:
    fmt, data = draw(st.sampled_from(SEEDS))
    kind = draw(
        st.sampled_from(
            ["truncate", "wrong_type", "missing_field", "huge_value", "invalid_utf8", "deep_nesting", "junk", "as_is"]
        )
    )
    if fmt in BINARY_FORMATS:
        if kind == "truncate":
            return fmt, data[: draw(st.integers(0, max(len(data) - 1, 0)))]
        if kind in ("wrong_type", "missing_field", "huge_value"):
            position = draw(st.integers(0, max(len(data) - 1, 0)))
            flipped = draw(st.integers(0, 255))
            return fmt, data[:position] + bytes([flipped]) + data[position + 1 :]
        if kind == "junk":
            return fmt, draw(st.binary(max_size=200))
        return fmt, data
    text = data.decode("utf-8")
    if kind == "truncate":
        return fmt, text[: draw(st.integers(0, max(len(text) - 1, 0)))].encode()
    if kind == "invalid_utf8":
        position = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]))
        return fmt, data[:position] + junk + data[position:]
    if kind == "junk":
        return fmt, draw(st.sampled_from(["", " ", "null", "[]", "{}", "[1,2]", '"text"', "\u0000", "{{{"])).encode()
    try:
        parsed = json.loads(text, strict=False)
    except ValueError:  # the doc templates are not JSON: mutate their text
        return fmt, (text + draw(st.sampled_from(["}", "]", ",", '"'])) ).encode()
    paths = list(_paths(parsed))
    path = draw(st.sampled_from(paths))
    if kind == "wrong_type":
        parsed = _replace(parsed, path, draw(JSON_VALUES))
    elif kind == "missing_field" and path:
        parsed = _delete(parsed, path)
    elif kind == "huge_value":
        huge = draw(
            st.sampled_from(
                ["x" * 200_000, "9" * 5_000, "\\u00e9" * 1000, [{"id": str(i)} for i in range(2000)]]
            )
        )
        parsed = _replace(parsed, path, huge)
    elif kind == "deep_nesting":
        depth = draw(st.sampled_from([50, 999, 1500]))
        nested: object = "deep"
        for _ in range(depth):
            nested = [nested]
        # built as text: json.dumps would recurse as deep
        marker = "__deep__"
        return fmt, json.dumps(_replace(parsed, path, marker)).replace(
            json.dumps(marker), "[" * depth + '"deep"' + "]" * depth
        ).encode()
    return fmt, json.dumps(parsed, ensure_ascii=draw(st.booleans())).encode()


# CI builds one batch (121 messages of every one of the 11 formats: the batch is derandomized, so
# always the same); the nightly run builds 8.
EXAMPLES = run_size("CDC_LAKE_FUZZ_EXAMPLES", ci=1, long=8)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(batch=st.lists(mutated(), min_size=120, max_size=180))
def test_mutated_messages_are_all_accounted_for(lake, tmp_path_factory, batch):
    # Hypothesis first tries its simplest example: the same mutation (an empty message) every time.
    # That is not a fuzz batch, and with so few examples it would be half of them.
    assume(len(set(batch)) > len(batch) // 2)
    tmp = tmp_path_factory.mktemp("fuzz")
    lake.scenario("fuzz")
    by_format: dict[str, list[bytes]] = {}
    for fmt, data in batch:
        by_format.setdefault(fmt, []).append(data)
    landed = 0
    for index, (fmt, values) in enumerate(sorted(by_format.items())):
        path = write_kafka_parquet(tmp / f"{fmt}.parquet", values, topic=f"fuzz_{fmt}", partition=index)
        landed += lake.land([path], fmt).total
    assert landed == len(batch)
    lake.build("--exclude-resource-type", "unit_test")  # unit tests do not read the landed data

    audit = lake.rows(
        "select landed_input, landed_messages, unaccounted_messages, outcome_change_messages + "
        "outcome_ddl_messages + outcome_control_messages + quarantined_messages + requeued_messages "
        "as accounted from {schema}.cdc_landing_audit order by landed_input"
    )
    assert sum(r["landed_messages"] for r in audit) == len(batch)
    assert [r for r in audit if r["unaccounted_messages"] or r["accounted"] != r["landed_messages"]] == []
    # every landed message is in the marts: a change (or a duplicate of one), DDL, control event
    # or quarantine row
    lost = lake.rows(
        """
        select message_id, message_format, substr(coalesce(message_text, base64(message_bytes)), 1, 300) as message
        from {schema}_raw.raw_messages
        where message_id not in (
            select message_id from {schema}.int_cdc__changes_keyed where key_problem is null
            union all select message_id from {schema}.cdc_ddl
            union all select message_id from {schema}.int_cdc__events where event_kind = 'control'
            union all select message_id from {schema}.cdc_quarantine
        )
        """
    )
    assert lost == []
    # quarantined messages keep the raw message and a reason
    assert lake.rows(
        "select count(*) as n from {schema}.cdc_quarantine where reason is null or raw_message is null"
    ) == [{"n": 0}]
