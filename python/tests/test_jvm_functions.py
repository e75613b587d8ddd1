"""The JVM function cdc_exact_json (python/cdc_lake/jvm/) gives, for every text, exactly what the
macro's two regular expressions give (cdc_exact_json_regex, mirrored in exact_json.normalize_sql),
which Databricks still runs; cdc_json_error and cdc_utf8_error give what exact_json.explain and
explain_utf8 give;
cdc_detector_tokens gives what formats.detector_tokens_sql gives. Checked in Spark on every fixture
and on random JSON-like texts built to hit the corner cases: unterminated strings and comments,
escapes before line terminators, trailing commas with comments, signs, exponents, non-ASCII and
astral characters."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_exact_json import PATHOLOGICAL

from cdc_lake import exact_json
from cdc_lake.formats import (
    DETECTOR_TOKENS_CLASS,
    DETECTOR_TOKENS_FUNCTION,
    FORMATS,
    detector_tokens_jvm_sql,
    detector_tokens_sql,
)

FIXTURES = Path(__file__).parent / "fixtures"
JVM_SOURCES = Path(__file__).resolve().parents[1] / "cdc_lake" / "jvm" / "src"

TOKENS = [
    "{", "}", "[", "]", ":", ",", ", ", ",\n", '"', '\\"', "\\", "\\\n", "\\\r", "/", "*", "//", "/*", "*/",
    " ", "\n", "\r", "\t", "\u000b", "\f", "\u0085", "\u2028", "\u2029", "0", "7", "-", ".", "e", "E", "+",
    "0.10", "-0", "12e5", "1.5E-3", "007", "-x", "a", "é", "第", "🚀", "null", "true", '"k":', '"x,1"',
    '"a\\"b"', '"\\\\"', "// note\n", "/* c */", "/* never closed", '"never closed', ", /* c */ }",
    ",// c\n]", "[1,2,]", '{"a": 0.10,}', ': -12345678901234567890.1234567890', "[ -1, 2 ]",
]


def _random_texts(count: int, seed: int = 20261124) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 40))) for _ in range(count)]


def _fixture_texts() -> list[str]:
    texts = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in {".txt", ".json", ".jsonl"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            texts.append(text)
            texts.extend(line for line in text.splitlines() if line.strip())
    return texts


def _corner_texts() -> list[str]:
    """Issue 27's corner cases: texts that made a scan read the rest again at every opening
    (test_exact_json's PATHOLOGICAL, 3 kB each: the regular expressions are quadratic on them),
    unterminated comments, `/*` in strings, `*/` without an opening, nested openings."""
    texts = [make(3_000) for make in PATHOLOGICAL.values()]
    pieces = ['/* ', "*/", '"/*"', '"*/"', '"\\"', ", ", "1", "]", "}", "//", "\n", '"', "\\\n", "/", "*"]
    rng = random.Random(20261126)
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(3_000)]
    return texts


@pytest.mark.slow
def test_jvm_function_equals_the_regular_expressions(lake):
    """... and exact_json.normalize (what `explain` reads) gives the same text too."""
    spark = lake.spark
    spark.sql("create or replace temporary function test_cdc_exact_json as 'io.cdclake.spark.ExactJson'")
    texts = _fixture_texts() + _random_texts(30_000) + _corner_texts() + [None, ""]
    assert len(texts) > 30_000
    frame = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "i int, text string")
    frame.createOrReplaceTempView("exact_json_corpus")
    differences = spark.sql(
        f"""
        select i, text, test_cdc_exact_json(text) as jvm, {exact_json.normalize_sql('text')} as regex
        from exact_json_corpus
        where not (test_cdc_exact_json(text) <=> {exact_json.normalize_sql('text')})
        """
    ).collect()
    assert [(row.i, row.text, row.jvm, row.regex) for row in differences[:5]] == []
    jvm = spark.sql("select i, test_cdc_exact_json(text) as jvm from exact_json_corpus").collect()
    python = [(row.i, row.jvm, exact_json.normalize(texts[row.i])[0]) for row in jvm if texts[row.i] is not None]
    assert [difference for difference in python if difference[1] != difference[2]][:5] == []
    # the corpus does exercise the rewrites
    changed = spark.sql(
        "select count_if(test_cdc_exact_json(text) != text) from exact_json_corpus"
    ).collect()[0][0]
    assert changed > 10_000


def _broken_texts(count: int, seed: int = 20261129) -> list[str]:
    """Fixture messages with a few characters deleted, inserted (from TOKENS) or cut off: the
    errors a broken producer or a truncated record makes, at every kind of place."""
    rng = random.Random(seed)
    lines = [line for text in _fixture_texts() for line in text.splitlines() if line.strip()]
    texts = []
    for _ in range(count):
        text = rng.choice(lines)
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(0, len(text))
            edit = rng.random()
            if edit < 0.4:
                text = text[:at] + text[at + 1 :]
            elif edit < 0.8:
                text = text[:at] + rng.choice(TOKENS) + text[at:]
            else:
                text = text[:at]
        texts.append(text)
    return texts


@pytest.mark.slow
def test_jvm_json_error_equals_explain(lake):
    """cdc_json_error, which staging calls for a message that does not parse, gives what
    exact_json.explain (Python's json module on the normalized text) gives: the same message, the
    same offset in the message's own text, null for JSON; on broken fixture messages, random texts
    and issue 27's corner cases."""
    spark = lake.spark
    spark.sql("create or replace temporary function test_cdc_json_error as 'io.cdclake.spark.JsonError'")
    texts = _broken_texts(20_000) + _random_texts(10_000) + _corner_texts() + _fixture_texts() + [None, "", " "]
    frame = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "i int, text string")
    rows = frame.selectExpr("i", "test_cdc_json_error(text) as reason").collect()
    differences = [(texts[r.i], r.reason, exact_json.explain(texts[r.i])) for r in rows]
    assert [d for d in differences if d[1] != d[2]][:5] == []
    reasons = [r.reason for r in rows if r.reason is not None]
    assert len(reasons) > 15_000 and len(rows) - len(reasons) > 1_000  # both kinds, many of each
    assert len({reason.split(": ", 1)[-1] for reason in reasons}) >= 8  # many kinds of error


def test_jvm_utf8_error_equals_explain_utf8(lake):
    """cdc_utf8_error, the landing's reason for text that is not UTF-8, gives what
    exact_json.explain_utf8 (Python's decoder) gives, on random bytes rich in the bytes that start,
    continue, or cannot be in a sequence."""
    spark = lake.spark
    spark.sql("create or replace temporary function test_cdc_utf8_error as 'io.cdclake.spark.Utf8Error'")
    rng = random.Random(20261129)
    edges = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
             0xF0, 0xF4, 0xF5, 0xFF]
    data = [
        bytes(rng.choice(edges) if rng.random() < 0.7 else rng.randrange(256) for _ in range(rng.randint(0, 8)))
        for _ in range(30_000)
    ] + ["é第🚀".encode(), None]
    frame = spark.createDataFrame([(i, d) for i, d in enumerate(data)], "i int, data binary")
    rows = frame.selectExpr("i", "test_cdc_utf8_error(data) as reason").collect()
    differences = [(data[r.i], r.reason, exact_json.explain_utf8(data[r.i])) for r in rows]
    assert [d for d in differences if d[1] != d[2]][:5] == []
    reasons = {r.reason.rsplit(": ", 1)[-1] for r in rows if r.reason}
    assert reasons == {"invalid start byte", "invalid continuation byte", "unexpected end of data"}


def test_jvm_sources_name_the_regular_expressions():
    """The Java source documents the patterns it implements; keep them in step with the macro's."""
    source = (JVM_SOURCES / "io" / "cdclake" / "spark" / "ExactJson.java").read_text()
    documented = source.replace("*&#47;", "*/")
    assert exact_json.STRIP_PATTERN in documented
    assert exact_json.QUOTE_PATTERN in documented


def _detector_texts(count: int, seed: int = 20261125) -> list[str]:
    """Random texts of detector names, quotes, escapes, white space and colons: every way a name
    can be found or missed (unclosed, closed then a colon after white space, a longer name)."""
    names = sorted({name for fmt in FORMATS for d in fmt.detector for name in d.names})
    quoted = [f'"{n}"' for n in names] + [f'"{n}":' for n in names] + [f'"{n}" \n:' for n in names[:5]]
    pieces = names + quoted + [n + "x" for n in names[:5]] + [n[:-1] for n in names[:5] if len(n) > 1] + [
        '"', '"', '"', '\\"', ":", " ", "\t", "\n", "\r", "\u000b", "\f", "\u0085", "\u00a0", ",", "{", "}",
        "[", "]", "é", "第", "🚀", "1", "null",
    ]
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(count)]


@pytest.mark.slow
def test_jvm_detector_tokens_equal_the_regular_expression(lake):
    """cdc_detector_tokens, which `cdc-lake land --format auto` runs, gives what
    detector_tokens_sql's regular expression gives, for the fixtures and random texts."""
    spark = lake.spark
    spark.sql(f"create or replace temporary function {DETECTOR_TOKENS_FUNCTION} as '{DETECTOR_TOKENS_CLASS}'")
    texts = _fixture_texts() + _detector_texts(30_000) + [None, "", '"', 'x"']
    frame = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "i int, text string")
    frame.createOrReplaceTempView("detector_corpus")
    jvm, regex = detector_tokens_jvm_sql("text"), detector_tokens_sql("text")
    differences = spark.sql(
        f"select i, text, {jvm} as jvm, {regex} as regex from detector_corpus where not ({jvm} <=> {regex})"
    ).collect()
    assert [(row.i, row.text, row.jvm, row.regex) for row in differences[:5]] == []
    # and the corpus does find names, with and without a colon after them
    found = spark.sql(
        f"""select count_if({jvm} != ',,'), count_if({jvm} like '%"%'), count_if({jvm} rlike ',[^",]+,')
        from detector_corpus"""
    ).collect()[0]
    with_names, with_colon, without_colon = found
    assert with_names > 10_000 and with_colon > 1_000 and without_colon > 100, found
