"""Landing's JSON error reasons (cdc_lake.exact_json): the same normalization as the staging macro,
and offsets that point into the message's own text. Pure Python: no Spark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cdc_lake import exact_json

MACRO = Path(__file__).resolve().parents[2] / "macros" / "staging" / "cdc_exact_json.sql"


def _sql_literals(sql: str) -> list[str]:
    """The SQL string literals of the macro cdc_exact_json_regex."""
    body = sql.split("{% macro cdc_exact_json_regex", 1)[1].split("{% endmacro %}", 1)[0]
    body = re.sub(r"\{#.*?#\}", "", body, flags=re.S)  # drop the Jinja comment
    return [
        re.sub(r"\\(.)", r"\1", literal)  # Spark SQL string escapes: \\ -> \, \' -> '
        for literal in re.findall(r"'((?:[^'\\]|\\.)*)'", body)
    ]


def test_regexes_equal_the_macro():
    assert _sql_literals(MACRO.read_text()) == [
        exact_json.STRIP_PATTERN,
        exact_json.STRIP_REPLACEMENT,
        exact_json.QUOTE_PATTERN,
        exact_json.QUOTE_REPLACEMENT,
    ]


def test_normalize_quotes_numbers_and_drops_comments_and_trailing_commas():
    text = '{"a": 0.10, // note\n "b": [1, -2e5,], /* x */ "c": "1,]"}'
    normalized, origin = exact_json.normalize(text)
    assert normalized == '{"a": "0.10", \n "b": ["1", "-2e5"],  "c": "1,]"}'
    # every character that comes from the message maps back to its own offset
    assert all(text[o] == c for c, o in zip(normalized, origin) if c != '"' or text[o] == '"')


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a":1', "invalid JSON at offset 6: the message ends early (Expecting ',' delimiter)"),
        ('{"a": 1 "b": 2}', "invalid JSON at offset 8: Expecting ',' delimiter"),
        ('{"a": 1, // comment\n "b" 2}', "invalid JSON at offset 25: Expecting ':' delimiter"),
        ('{"a": 12345678901234567890.5 x}', "invalid JSON at offset 29: Expecting ',' delimiter"),
        ("hello", "invalid JSON at offset 0: Expecting value"),
        ('{"a": "x"} {"b": 1}', "invalid JSON at offset 11: Expecting ',' delimiter"),
        ("[" * 1200 + "]" * 1200, "invalid JSON: nested more than 1000 levels deep"),
        ('{"a": ' * 1001 + "1" + "}" * 1001, "invalid JSON: nested more than 1000 levels deep"),
        ('{"a": "' + "x" * 20_000_001 + '"}', "unreadable JSON: a value of 20000001 characters (Spark reads at most 20000000)"),
        ('{"a": 1,}', None),
        ('{"a": [1], // the last one\n /* really */ }', None),  # doc 002's tableChanges
        ('[{"a": "tab\there"}]', None),
        (None, None),
    ],
)
def test_explain(text, reason):
    assert exact_json.explain(text) == reason


def test_explain_utf8():
    assert exact_json.explain_utf8(b'{"a": "\xc3\x28"}') == (
        "not valid UTF-8 text at byte offset 7 (bytes c3 28 22 7d): invalid continuation byte"
    )
    assert exact_json.explain_utf8('{"a": "é"}'.encode()) is None


PATHOLOGICAL = {
    # what made the regular expressions (and the scanners before them) read the rest of the text
    # again at every opening: issue 27's "a 120 kB line took about 2 minutes to land"
    "comments opened after the last */": lambda n: '{"a": 1, /* x */ ' + "/* " * (n // 3) + "}",
    "commas before comments that never close": lambda n: '{"a": [' + "1, /* " * (n // 6) + "]}",
    "an unterminated string full of escaped quotes": lambda n: '{"a": "' + '\\"' * (n // 2),
    "escaped quotes up to a backslash before a newline": lambda n: '["' + '\\" ,1 /* ' * (n // 9) + "\\\n]",
    "line comments after a comma, never a bracket": lambda n: "[1" + ", // c\n" * (n // 7) + "2]",
}


class _CountingText(exact_json._Text):
    made: list[exact_json._Text] = []

    def __init__(self, text: str) -> None:
        super().__init__(text)
        _CountingText.made.append(self)


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_normalize_reads_each_character_a_bounded_number_of_times(monkeypatch, name):
    """Linearity without a clock: the searches for the end of a string or comment read at most
    3 characters per character of the text, at 20 kB as at 80 kB. Before issue 27, every `/*`
    after the last `*/` and every `\\"` of an unterminated string searched to the end again: the
    80 kB texts then read about 10^9 characters."""
    monkeypatch.setattr(exact_json, "_Text", _CountingText)
    for size in (20_000, 80_000):
        _CountingText.made = []
        text = PATHOLOGICAL[name](size)
        exact_json.explain(text)
        searched = sum(scan.searched for scan in _CountingText.made)
        assert len(_CountingText.made) == 2  # one per pass
        assert searched <= 3 * len(text), (size, searched)


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ('{"a": 1 /* never closed', '{"a": "1" /* never closed'),
        ('{"a": 1, /* never closed }', '{"a": "1", /* never closed }'),
        ('{"a": "/* in a string */", "b": 2}', '{"a": "/* in a string */", "b": "2"}'),
        ('{"a": 1 */ , "b": 2}', '{"a": "1" */ , "b": "2"}'),
        ('{"a": /* /* nested */ 1 */ }', '{"a":  "1" */ }'),
        ('{"a": "x\\"y, 1 /* c */ ,2', '{"a": "x\\"y, "1"  ,"2"'),
        ('["\\" ,1 /* c */ ,2 \\\n]', '["\\" ,"1"  ,"2" \\\n]'),
    ],
)
def test_normalize_corner_cases(text, normalized):
    """Unterminated comments stay as they are (the message stays invalid), nothing inside a string
    is touched, `*/` without an opening is text, a comment ends at its first `*/`; a string that
    never closes (to the end, or at a backslash before a line terminator) is ordinary text, read
    once. The JVM function and the regular expressions give the same (test_jvm_functions)."""
    assert exact_json.normalize(text)[0] == normalized


def test_nesting_depth_skips_brackets_in_strings():
    assert exact_json._nesting_depth('[{"a": "[[[{", "b": [1, {"c": "\\"]"}]}, []]') == 4
    assert exact_json._nesting_depth('"no brackets"') == 0
