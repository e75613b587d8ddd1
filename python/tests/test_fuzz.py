"""Fuzz: mutated messages of every format never crash landing or the build, and every one is accounted.

Hypothesis draws a batch of mutations of valid messages (the verbatim format-document examples and
the shipped sample data): of the parsed message (truncation, wrong types, null at a key, missing
fields, huge values, invalid UTF-8, deep nesting, random bytes for the binary formats) and of its
text, which a parsed message cannot express (a key repeated, null, empty or hostile keys, invalid
escapes, bare huge numbers). Each batch is landed as Kafka Parquet, one landing per format, between
two landings of a control table, into a fresh scenario and built once (Spark and dbt are slow, so
there are few batches, each of some 150 messages covering every format, and there is no
shrinking): the build passes, the audit accounts for every message, the control table's history is
exactly its own, and the messages of KEY_REGRESSIONS (one per map a format reads) are quarantined
with the reason that names the key and where it is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, run_size, write_jsonl, write_kafka_parquet

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

# A JSON object key in message text (any key; one inside a string value is a fine mutation too).
KEY = re.compile(r'(?<=[{,])\s*("(?:[^"\\]|\\.)*")\s*:')
# The opening quote of a string value.
STRING_VALUE = re.compile(r':\s*"')
# A string or scalar value (after a key's colon).
SCALAR_VALUE = re.compile(r'\s*(?:"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)')
HOSTILE_KEYS = [
    "", " ", 'a"b', "a\\b", "'; drop table x; --", "`x`", "${x}", "{{ x }}", "\u0000", "\n", "é", "💥",
    "k" * 10_000, "__proto__", "a.b", "[0]", "null", "%s", "$.a", "__light_type", "TYPE", "id",
]
INVALID_ESCAPES = ["\\x41", "\\u12", "\\ud800", "\\udc00\\ud800", "\\'", "\\", "\\u00zz", "\\U0001F600", "\\\n"]
BARE_NUMBERS = ["9" * 10_000, "1e999999", "-1E-999999", "-0", "0." + "0" * 5_000 + "1", "1" + "0" * 400 + ".5e-400"]
JSON_TEXTS = ['"x"', "null", "1", "{}", "[]", "true", '{"a":{"b":[]}}']
TEXT_MUTATIONS = ("duplicate_key", "hostile_key", "null_key", "invalid_escape", "bare_number")


def _text_mutation(draw, kind: str, text: str) -> str:
    """`text` with one mutation that only text can express (a parsed message has unique keys)."""
    keys = list(KEY.finditer(text))
    if kind in ("duplicate_key", "hostile_key", "null_key") and keys:
        match = draw(st.sampled_from(keys))
        key = match.group(1)
        if kind == "hostile_key":
            key = json.dumps(draw(st.sampled_from(HOSTILE_KEYS)))
        if kind == "null_key":
            return text[: match.start(1)] + draw(st.sampled_from(["null", '""', "1", "{}"])) + text[match.end(1) :]
        # the key once more in the same object (twice for a hostile key), before the original
        entry = f"{key}:{draw(st.sampled_from(JSON_TEXTS))},"
        copies = 1 if kind == "duplicate_key" else draw(st.integers(1, 2))
        return text[: match.start(1)] + entry * copies + text[match.start(1) :]
    values = list(STRING_VALUE.finditer(text))
    if kind == "invalid_escape" and values:
        position = draw(st.sampled_from(values)).end()
        return text[:position] + draw(st.sampled_from(INVALID_ESCAPES)) + text[position:]
    if kind == "bare_number" and keys:
        # a string or scalar value after a key replaced by a bare number (before an object or an
        # array, the number makes invalid JSON)
        position = draw(st.sampled_from(keys)).end()
        value = SCALAR_VALUE.match(text, position)
        return text[:position] + draw(st.sampled_from(BARE_NUMBERS)) + text[value.end() if value else position :]
    return text


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
            [
                "truncate", "wrong_type", "null_at_key", "missing_field", "huge_value", "invalid_utf8",
                "deep_nesting", "junk", "as_is", *TEXT_MUTATIONS, *TEXT_MUTATIONS,
            ]
        )
    )
    if fmt in BINARY_FORMATS:
        if kind == "truncate":
            return fmt, data[: draw(st.integers(0, max(len(data) - 1, 0)))]
        if kind in ("wrong_type", "null_at_key", "missing_field", "huge_value", *TEXT_MUTATIONS):
            position = draw(st.integers(0, max(len(data) - 1, 0)))
            flipped = draw(st.integers(0, 255))
            return fmt, data[:position] + bytes([flipped]) + data[position + 1 :]
        if kind == "junk":
            return fmt, draw(st.binary(max_size=200))
        return fmt, data
    text = data.decode("utf-8")
    if kind in TEXT_MUTATIONS:
        return fmt, _text_mutation(draw, kind, text).encode()
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
    elif kind == "null_at_key":  # e.g. a Debezium schema field whose `field` (its name) is null
        keyed = [p for p in paths if p and isinstance(p[-1], str)]
        parsed = _replace(parsed, draw(st.sampled_from(keyed)), None) if keyed else parsed
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


# One message per map a JSON format reads, repeating a key there (or, where a model builds a map
# from names, a name missing): quarantined with the reason that names the key and where it is. Any
# of them failed the build before, which failed every later build too.
DBZ_SCHEMA_NULL_NAME = {
    "type": "struct",
    "fields": [
        {"type": "struct", "field": "after", "fields": [{"type": "int32", "field": "id"}, {"type": "string"}]}
    ],
}
KEY_REGRESSIONS = (
    (
        "canal_json",
        '{"data":[{"id":"1","v":"b","w":"x","w":"y"}],"old":[{"v":"a"}],"database":"fuzz_keys","table":"t",'
        '"type":"UPDATE","pkNames":["id"],"es":1,"ts":1}',
        'duplicate key "w" in data[0]',
    ),
    (
        "canal_json",
        '{"data":[{"id":"1"},{"id":"2","v":"b"}],"old":[{},{"v":"a","v":"c"}],"database":"fuzz_keys",'
        '"table":"t","type":"UPDATE","pkNames":["id"],"es":1,"ts":1}',
        'duplicate key "v" in old[1]',
    ),
    (
        "canal_json",
        '{"data":[{"id":"1","a\\"b":"x","a\\"b":"y"}],"database":"fuzz_keys","table":"t","type":"INSERT",'
        '"pkNames":["id"],"mysqlType":{"id":"int"},"es":1,"ts":1}',
        'duplicate key "a\\"b" in data[0]',
    ),
    (
        "canal_json",
        '{"data":[{"id":"1"}],"database":"fuzz_keys","table":"t","type":"INSERT","pkNames":["id"],'
        '"mysqlType":{"id":"int","id":"bigint"},"es":1,"ts":1}',
        'duplicate key "id" in mysqlType',
    ),
    (
        "debezium_json",
        json.dumps({"schema": DBZ_SCHEMA_NULL_NAME, "payload": {
            "op": "c", "after": {"id": 1}, "source": {"db": "fuzz_keys", "table": "t"}, "ts_ms": 1}}),
        "null key in schema: the field names of after (or before)",
    ),
    (
        "debezium_json",
        '{"op":"c","after":{"id":"1","n":"a","n":"b"},"source":{"db":"fuzz_keys","table":"t"},"ts_ms":1}',
        'duplicate key "n" in after',
    ),
    (
        "debezium_json",
        '{"payload":{"op":"u","before":{"id":"1","id":"1"},"after":{"id":"1"},'
        '"source":{"db":"fuzz_keys","table":"t"},"ts_ms":1}}',
        'duplicate key "id" in payload.before',
    ),
    (
        "debezium_json",
        json.dumps({"source": {"db": "fuzz_keys", "table": "t"}, "ddl": "CREATE TABLE t (id int)", "ts_ms": 1,
                    "tableChanges": [{"type": "CREATE", "id": "fuzz_keys.t", "table": {
                        "primaryKeyColumnNames": ["id"], "columns": [{"name": "id"}, {"jdbcType": 4}]}}]}),
        "null key in tableChanges[0].table.columns: the column names",
    ),
    (
        "cloudcanal_json",
        '{"action":"UPDATE","before":[{"id":"1","q":"1","q":"2"}],"data":[{"id":"1","q":"3"}],'
        '"db":"fuzz_keys","table":"t","pks":["id"],"execTs":1}',
        'duplicate key "q" in before[0]',
    ),
    (
        "ckafka_format_one",
        '{"DATABASE":"fuzz_keys","TABLE":"t","TYPE":"I","TYPE":"D","NEW_VALUES":{"id":"1"},"TIME":"20240101000000"}',
        'duplicate key "TYPE" in the message',
    ),
    (
        "ckafka_format_one",
        '{"DATABASE":"fuzz_keys","TABLE":"t","TYPE":"I","NEW_VALUES":{"id":"1","id":"2"},"TIME":"20240101000000"}',
        'duplicate key "id" in NEW_VALUES',
    ),
    (
        "oms_dataworks",
        '{"schema":{"source":{"dbName":"fuzz_keys","table":"t"},"pk":["id"]},"payload":{"op":"INSERT",'
        '"after":{"data":{"id":"1","id":"2"}},"timestamp":{"eventTime":1}}}',
        'duplicate key "id" in payload.after.data',
    ),
    (
        "oms_default",
        '{"allMetaData":{"record_primary_key":"id","table_name":"t","db":"fuzz_keys","timestamp":"1"},'
        '"recordType":"INSERT","postStruct":{"id":"1","x":"1","x":"2"}}',
        'duplicate key "x" in postStruct',
    ),
    (
        "oms_extend_column_type",
        '{"allMetaData":{"record_primary_key":"id","table_name":"t","db":"fuzz_keys","timestamp":"1"},'
        '"recordType":"INSERT","postStruct":{"id":"1","__light_type":{"id":{"schemaType":"INT"},'
        '"id":{"schemaType":"BIGINT"}}}}',
        'duplicate key "id" in __light_type',
    ),
    (
        "oms_shareplex",
        '{"data":{"v":"2"},"key":{"id":"1","id":"1"},"meta":{"op":"upd","table":"fuzz_keys.t","time":"2024-01-01T00:00:00"}}',
        'duplicate key "id" in key',
    ),
)

# Key columns named twice (by the message, or by a DDL statement landed before): the primary key
# is a map of them, which failed the build on the repeated name. They key their rows as named once.
KEY_COLUMN_REGRESSIONS = (
    (
        "oms_default",
        '{"allMetaData":{"record_primary_key":"id\\u0001id","table_name":"pk_twice","db":"fuzz_keys",'
        '"timestamp":"1"},"recordType":"INSERT","postStruct":{"id":"1","v":"a"}}',
    ),
    (
        "canal_json",
        '{"data":[{"k":"1","v":"a"}],"database":"fuzz_keys","table":"pk_by_ddl","type":"INSERT","es":5000,"ts":5000}',
    ),
)
KEYED_ONCE = [("pk_by_ddl", '{"k":"1"}'), ("pk_twice", '{"id":"1"}')]

# A control table landed before and after the fuzz batch: its history is exactly its own.
CONTROL_BEFORE = [
    {"database": "fuzz_keys", "table": "pk_by_ddl", "type": "CREATE", "isDdl": True, "es": 1_000, "ts": 1_000,
     "sql": "CREATE TABLE pk_by_ddl (k int, v text, PRIMARY KEY (k, k))",
     "tableChanges": {"table": {"primaryKeyColumnNames": ["k", "k"]}}},
    {"data": [{"id": "1", "v": "a"}, {"id": "2", "v": "b"}], "database": "fuzz_control", "table": "accounts",
     "type": "INSERT", "pkNames": ["id"], "es": 1_000, "ts": 1_000, "id": 1},
]
CONTROL_AFTER = [
    {"data": [{"id": "1", "v": "c"}], "old": [{"v": "a"}], "database": "fuzz_control", "table": "accounts",
     "type": "UPDATE", "pkNames": ["id"], "es": 2_000, "ts": 2_000, "id": 2},
    {"data": [{"id": "2", "v": "b"}], "database": "fuzz_control", "table": "accounts",
     "type": "DELETE", "pkNames": ["id"], "es": 3_000, "ts": 3_000, "id": 3},
]
CONTROL_HISTORY = [
    ('{"id":"1"}', 1, "insert", {"id": "1", "v": "a"}, False),
    ('{"id":"1"}', 2, "update", {"id": "1", "v": "c"}, True),
    ('{"id":"2"}', 1, "insert", {"id": "2", "v": "b"}, False),
    ('{"id":"2"}', 2, "delete", {"id": "2", "v": "b"}, True),
]

def _keys_of(text: str) -> list[list[str]]:
    """The keys of every object in a JSON text, repeats kept."""
    objects: list[list[str]] = []
    json.loads(text, object_pairs_hook=lambda pairs: objects.append([k for k, _ in pairs]))
    return objects


@settings(max_examples=50, derandomize=True, deadline=None)
@given(data=st.data())
def test_text_mutations_repeat_and_replace_keys(data):
    """The text mutations make what a parsed message cannot hold: a key twice in one object."""
    text = '{"a":"1","b":{"c":[1,{"d":"x"}]}}'
    repeated = _text_mutation(data.draw, "duplicate_key", text)
    assert any(len(keys) != len(set(keys)) for keys in _keys_of(repeated))
    hostile = _text_mutation(data.draw, "hostile_key", text)
    assert sum(map(len, _keys_of(hostile))) > sum(map(len, _keys_of(text)))
    assert _text_mutation(data.draw, "null_key", text) != text
    assert _text_mutation(data.draw, "invalid_escape", text) != text
    assert _text_mutation(data.draw, "bare_number", text) != text


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
    # the guards against repeated and null map keys are SQL: the build runs under Spark's default
    # policy (fail on a repeated key), as the Thrift server and Databricks do
    assert lake.spark.conf.get("spark.sql.mapKeyDedupPolicy") == "EXCEPTION"
    tmp = tmp_path_factory.mktemp("fuzz")
    lake.scenario("fuzz")
    by_format: dict[str, list[bytes]] = {}
    regressions = [(fmt, text.encode()) for fmt, text, *_ in (*KEY_REGRESSIONS, *KEY_COLUMN_REGRESSIONS)]
    for fmt, data in [*batch, *regressions]:
        by_format.setdefault(fmt, []).append(data)
    landed = lake.land([write_jsonl(tmp / "control_before.jsonl", CONTROL_BEFORE)], "canal_json").total
    for index, (fmt, values) in enumerate(sorted(by_format.items())):
        path = write_kafka_parquet(tmp / f"{fmt}.parquet", values, topic=f"fuzz_{fmt}", partition=index)
        landed += lake.land([path], fmt).total
    landed += lake.land([write_jsonl(tmp / "control_after.jsonl", CONTROL_AFTER)], "canal_json").total
    total = len(batch) + len(regressions) + len(CONTROL_BEFORE) + len(CONTROL_AFTER)
    assert landed == total
    lake.build("--exclude-resource-type", "unit_test")  # unit tests do not read the landed data

    audit = lake.rows(
        "select landed_input, landed_messages, unaccounted_messages, outcome_change_messages + "
        "outcome_ddl_messages + outcome_control_messages + quarantined_messages + requeued_messages "
        "as accounted from {schema}.cdc_landing_audit order by landed_input"
    )
    assert sum(r["landed_messages"] for r in audit) == total
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
    # int_cdc__changes joins each change's id back to its row by its message and its place in the
    # message: no two changes share them
    shared = lake.rows(
        "select message_id, element_index, row_index, count(*) as changes "
        "from {schema}.int_cdc__events where event_kind = 'change' "
        "group by message_id, element_index, row_index having count(*) > 1"
    )
    assert shared == []
    # quarantined messages keep the raw message and a reason
    assert lake.rows(
        "select count(*) as n from {schema}.cdc_quarantine where reason is null or raw_message is null"
    ) == [{"n": 0}]
    # each map a format reads: a repeated (or missing) key quarantines the message, and says where
    regressions = {text for _, text, _ in KEY_REGRESSIONS}
    reasons = lake.rows(
        "select landed.message_format, landed.message_text, quarantined.reason "
        "from {schema}_raw.raw_messages as landed "
        "left join {schema}.cdc_quarantine as quarantined on landed.message_id = quarantined.message_id "
        "where landed.kafka_topic like 'fuzz_%'"
    )
    found = sorted((r["message_format"], r["message_text"], r["reason"]) for r in reasons if r["message_text"] in regressions)
    assert found == sorted(KEY_REGRESSIONS)
    # the control table's history is its own: nothing of the fuzz batch reached it
    control = lake.table("cdc_history", where="source_database = 'fuzz_control'", order_by="primary_key, version_number")
    assert [(r["primary_key"], r["version_number"], r["op"], r["row"], r["is_current"]) for r in control] == (
        CONTROL_HISTORY
    )
    keyed = lake.rows(
        "select source_table, primary_key from {schema}.cdc_current "
        "where source_database = 'fuzz_keys' order by source_table"
    )
    assert [(r["source_table"], r["primary_key"]) for r in keyed] == KEYED_ONCE
