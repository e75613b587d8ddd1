"""`--format auto` detection (cdc_lake.formats): the one-scan token expression gives the format that
testing each detector's regular expression in turn gives, first format first, as cdc-lake did
before. Pure Python checks first (the patterns, and the token logic with Python's re, which reads
these ASCII patterns as Java does with re.ASCII), then Spark on every example and sample message
and on thousands of generated strings."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdc_lake.formats import FORMATS, UNKNOWN, Detector, _token_pattern, detection_sql

FIXTURES = Path(__file__).parent / "fixtures" / "format_docs"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"

# The detectors as regular expressions, as formats.py declared them before detection read the
# text once: a change of a detector must be a decision, not a side effect.
PREVIOUS_DETECTORS = {
    "oms_extend_column_type": (r'"__light_type"\s*:', r'"(recordType|allMetaData|prevStruct|postStruct)"'),
    "oms_default": (r'"recordType"\s*:', r'"(allMetaData|prevStruct|postStruct)"'),
    "kafka_river_canal": (r'"binlog"\s*:', r'"event"\s*:', r'"columns"\s*:'),
    "cloudcanal_json": (r'"action"\s*:', r'"(entryType|dbValType|jdbcType|bid)"\s*:'),
    "ckafka_format_one": (r'"TYPE"\s*:', r'"(NEW_VALUES|OLD_VALUES)"\s*:'),
    "oms_shareplex": (r'"meta"\s*:\s*\{', r'"op"\s*:'),
    "oms_dataworks": (r'"payload"\s*:', r'"eventTime"\s*:'),
    "debezium_json": (r'"(op|ddl|databaseName)"\s*:', r'"(source|ts_ms|payload|before|after)"\s*:'),
    "canal_json": (r'"database"\s*:', r'"type"\s*:'),
}

TRICKY = [
    '{"a": "x \\"op\\": 1", "source": {}}',  # a key inside a string value, quotes escaped
    '{"sql": "select \\"database\\": 1", "type": "INSERT"}',
    '"op"recordType"',  # the closing quote of one name opens the next
    '{"meta"\u000b:\u000c{"a": 1}, "op"\r\n\t : "I"}',  # every whitespace \\s allows
    '{"meta" : [1], "op": "I"}',  # meta is not an object
    '{"meta"\u00a0: {}, "op": 1}',  # a space \\s does not allow
    '{"meta": {}, "op" 1}',
    '{"databaseName": "d", "source": {}}',  # databaseName, not database
    '{"databas": 1, "database": 2, "type": 3}',
    '{"database": 1, "type"}',
    '{"database": 1, "type": 2, "op": 3, "ts_ms": 4}',  # debezium_json comes first
    '{"__light_type": {}, "x": "recordType"}',  # a mention as a value
    '{"recordType": "INSERT", "y": ["postStruct"]}',
    '{"recordType" : "INSERT", "postStruct" : {}}',
    '{"TYPE": "I", "NEW_VALUES"\n: {}}',
    '{"action": "insert", "bid": 1}',
    '{"binlog": 1, "event": 2, "columns": 3}',
    '{"payload": {}, "eventTime": 1}',
    '{"payload": {}, "op": "c"}',
    '{"type": "INSERT", "database": "d", "小明": "Émile"}',
    "[]",
    "",
    '"',
    '""',
    '":',
    '"op""op":',
    '"op"  ',
    '\\"op":',
    '{"OP": 1, "Source": 2, "DATABASE": 3, "TYPE ": 4}',
]

FRAGMENTS = sorted({name for fmt in FORMATS for d in fmt.detector for name in d.names}) + [
    "databas", "databaseNam", "opx", "Type", "meta_", "typ", "_type", "e",
    '"', '"', '"', '\\"', ":", ":", " ", "\t", "\n", "\u000b", "\u000c", "\r", "\u00a0", "\u2028",
    "{", "}", "[", "]", ",", "x", "1", "小", "é",
]


def previous_detection(text: str) -> str:
    """What the previous detection_sql gave: the first format all of whose regexes match."""
    for fmt in FORMATS:
        patterns = PREVIOUS_DETECTORS.get(fmt.format_id, ())
        if patterns and all(re.search(p, text, re.ASCII) for p in patterns):
            return fmt.format_id
    return UNKNOWN


def token_detection(text: str) -> str:
    """detection_sql's logic in Python: the tokens, then the string tests of each detector."""
    tokens = "," + ",".join(re.findall(_token_pattern(), text, re.ASCII)) + ","

    def matches(d: Detector) -> bool:
        keys = [f',{name}",' in tokens for name in d.names]
        mentions = [f",{name}," in tokens for name in d.names] if d.follows == "" else []
        found = any(keys + mentions)
        return found and (d.follows != ":{" or re.search(d.pattern, text, re.ASCII) is not None)

    for fmt in FORMATS:
        if fmt.detector and all(matches(d) for d in fmt.detector):
            return fmt.format_id
    return UNKNOWN


def examples() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.txt"))]
    for path in sorted(SAMPLES.glob("*/*.jsonl")):
        texts += path.read_text(encoding="utf-8").splitlines()
    return texts + TRICKY


def generated(count: int, seed: int = 20261124) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 40))) for _ in range(count)]


def test_detectors_are_the_previous_regexes():
    declared = {fmt.format_id: tuple(d.pattern for d in fmt.detector) for fmt in FORMATS if fmt.detector}
    assert declared == PREVIOUS_DETECTORS


def test_detector_names_are_checked():
    with pytest.raises(ValueError, match="letters, digits or _"):
        Detector(("a|b",))
    with pytest.raises(ValueError, match="follows"):
        Detector(("a",), "{")


@pytest.mark.parametrize("text", examples() + generated(500))
def test_token_logic_agrees_with_the_regexes(text):
    assert token_detection(text) == previous_detection(text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
def test_token_logic_agrees_on_random_strings(parts):
    text = "".join(parts)
    assert token_detection(text) == previous_detection(text)


def test_detection_sql_agrees_with_the_regexes_in_spark(lake):
    """The same comparison in Spark (Java regular expressions): detection_sql against the previous
    expression, one rlike per detector, on every example, sample and generated message."""
    texts = examples() + generated(20_000, seed=7)
    previous = "case " + " ".join(
        f"when {' and '.join(f'text rlike {_sql(p)}' for p in patterns)} then '{format_id}'"
        for format_id, patterns in PREVIOUS_DETECTORS.items()
    ) + f" else '{UNKNOWN}' end"
    frame = lake.spark.createDataFrame(list(enumerate(texts)), "id long, text string")
    rows = frame.selectExpr("id", f"{previous} as previous", f"{detection_sql('text')} as detected")
    disagree = [(texts[r["id"]], r["previous"], r["detected"]) for r in rows.where("previous != detected").collect()]
    assert disagree == []
    detected = {r["detected"] for r in rows.collect()}
    assert detected == {fmt.format_id for fmt in FORMATS if fmt.detector} | {UNKNOWN}


def _sql(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
