"""The JSON normalization of macros/staging/cdc_exact_json.sql, why a message does not parse, and
why bytes are not UTF-8: in Python, the reference of the JVM functions that do this work.

Staging parses every message with `from_json` after `cdc_exact_json` (drop comments and trailing
commas, quote bare numbers), and for the messages that fail, the JVM function `cdc_json_error`
says where, as Python's json module would: "invalid JSON at offset 123: Expecting ',' delimiter".
`explain` is that function in Python (`normalize`, then `json.loads`, the position mapped back to
the message's own text): the reference the tests compare the JVM function with.

The regular expressions below are the macro's, character for character; test_exact_json checks
that they equal the literals in the macro. Databricks runs them. They are not linear: at every
`/*` after the text's last `*/`, and at every `"` of an unterminated string full of `\"`, the
regular expression engine reads to the end of the text again: such a text of 1 MB takes minutes.
Spark therefore runs the JVM function `cdc_exact_json` (python/cdc_lake/jvm/, the same text in one
linear scan per pass), and `normalize` is this module's port of that scanner (test_jvm_functions
compares all three on the same texts).
"""

from __future__ import annotations

import json
import re
import sys
from array import array
from itertools import accumulate
from collections.abc import Sequence

from cdc_lake.sql import sql_string

STRIP_PATTERN = r'("(?:[^"\\]++|\\.)*+")|,(?:\s++|//[^\n]*+|/\*(?s:.*?)\*/)*+([}\]])|//[^\n]*+|/\*(?s:.*?)\*/'
"""Pass 1: keep string literals ($1); drop a comma before } or ] (keep the bracket, $2), also
with comments between them (`"a": 1, // last` then `}`); drop comments."""
STRIP_REPLACEMENT = "$1$2"

QUOTE_PATTERN = r'"((?:[^"\\]++|\\.)*+)"|([:\[,]\s*+)(-?[0-9][0-9.eE+\-]*+)'
"""Pass 2: keep string literals, quote bare numbers that follow `:`, `[` or `,`."""
QUOTE_REPLACEMENT = '$2"$1$3"'

MAX_NESTING_DEPTH = 1000
"""Spark's JSON reader (Jackson) rejects documents nested deeper than this."""
MAX_STRING_LENGTH = 20_000_000
"""... and strings longer than this (characters)."""


_STRING_BODY = re.compile(r'(?:[^"\\]++|\\[^\n\r\x85\u2028\u2029])*+')
"""The inside of a string literal as Java reads `(?:[^"\\]++|\\.)*+`: its `.` matches no line terminator
(Python's matches all but a newline)."""
_SPACES = re.compile(r"[ \t\n\x0b\f\r]*+")
"""Java's `\\s*+` (Python's `\\s` matches more)."""
_NUMBER = re.compile(r"-?[0-9][0-9.eE+\-]*+")
_STRIP_START = re.compile(r'"|,(?=[ \t\n\x0b\f\r]*+[}\]/])|//|/\*')
"""Where pass 1 may change something: a string, a comma that white space and then a bracket or a
comment follow, a comment (a search stops at these only, so plain text costs no Python step)."""
_QUOTE_START = re.compile(r'"|[:\[,](?=[ \t\n\x0b\f\r]*+-?[0-9])')
"""Where pass 2 may change something: a string, or a `:`, `[` or `,` before a number."""
_STRING_LITERAL = re.compile(r'"(?:[^"\\]++|\\.)*+"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]++")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def normalize_sql(text_sql: str) -> str:
    """The Spark SQL of cdc_exact_json over the expression `text_sql`."""
    inner = (
        f"regexp_replace({text_sql}, {sql_string(STRIP_PATTERN)}, {sql_string(STRIP_REPLACEMENT)})"
    )
    return f"regexp_replace({inner}, {sql_string(QUOTE_PATTERN)}, {sql_string(QUOTE_REPLACEMENT)})"


class _Text:
    """One text and what its scan has learnt about it (ExactJson.Text in the JVM function): where
    its last `*/` is, and which span an unterminated string covers (every `"` in it opens a string
    that stops at the same place), so that no opening makes the scan read the rest again."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.last_close = text.rfind("*/")
        self.failed = (-1, -1)
        self.searched = 0
        """How many characters the searches for the end of a string or a comment have read (the
        tests check that it stays within a small multiple of the text's length)."""

    def string_end(self, start: int) -> int:
        """The offset after the string literal that opens at `start`, or -1 if it does not close."""
        if self.failed[0] < start < self.failed[1]:
            return -1
        end = _STRING_BODY.match(self.text, start + 1).end()  # type: ignore[union-attr]
        self.searched += end - start
        if end < len(self.text) and self.text[end] == '"':
            return end + 1
        self.failed = (start, end)
        return -1

    def line_comment_end(self, start: int) -> int:
        found = self.text.find("\n", start + 2)
        end = len(self.text) if found < 0 else found
        self.searched += end - start
        return end

    def block_comment_end(self, start: int) -> int:
        """The offset after the `*/` that closes the comment opening at `start`, or -1."""
        if self.last_close < start + 2:
            return -1
        end = self.text.find("*/", start + 2) + 2
        self.searched += end - start
        return end

    def trailing_comma_bracket(self, comma: int) -> int:
        """The offset of the } or ] that the comma at `comma` trails (with only white space and
        comments between them), or -1."""
        text, j = self.text, comma + 1
        while j < len(text):
            j = _SPACES.match(text, j).end()  # type: ignore[union-attr]
            if text.startswith("//", j):
                j = self.line_comment_end(j)
            elif text.startswith("/*", j) and (end := self.block_comment_end(j)) > 0:
                j = end
            else:
                break
        return j if j < len(text) and text[j] in "}]" else -1

    def strip_end(self, start: int) -> int:
        """For a `,`, `//` or `/*` at `start`: the offset after what pass 1 drops there, or -1."""
        if self.text[start] == ",":
            return self.trailing_comma_bracket(start)  # the bracket is kept
        if self.text[start + 1] == "/":
            return self.line_comment_end(start)
        return self.block_comment_end(start)


def _strip(text: str) -> list[tuple[int, int]]:
    """Pass 1 (STRIP_PATTERN): the spans of `text` that are kept."""
    scan = _Text(text)
    kept = []
    copied = i = 0
    while (found := _STRIP_START.search(text, i)) is not None:
        i = found.start()
        end = scan.string_end(i) if text[i] == '"' else scan.strip_end(i)
        if end > 0 and text[i] != '"':
            kept.append((copied, i))
            copied = end
        i = end if end > 0 else i + 1
    kept.append((copied, len(text)))
    return kept


def _quote(text: str, origin: array) -> tuple[str, array]:
    """Pass 2 (QUOTE_PATTERN): `text` with its bare numbers quoted, and each character's origin
    (an added quote has the origin of the `:`, `[` or `,` before the number)."""
    scan = _Text(text)
    out: list[str] = []
    out_origin = array("q")
    copied = i = 0
    while (found := _QUOTE_START.search(text, i)) is not None:
        i = found.start()
        if text[i] == '"':
            end = scan.string_end(i)
            i = end if end > 0 else i + 1
            continue
        start = _SPACES.match(text, i + 1).end()  # type: ignore[union-attr]
        number = _NUMBER.match(text, start)
        if number is None:
            i += 1
            continue
        anchor = array("q", [origin[i]])
        out += [text[copied:start], '"', number.group(), '"']
        out_origin += origin[copied:start] + anchor + origin[start : number.end()] + anchor
        copied = i = number.end()
    out.append(text[copied:])
    out_origin += origin[copied:]
    return "".join(out), out_origin


def normalize(text: str) -> tuple[str, Sequence[int]]:
    """cdc_exact_json in Python: the normalized text and each character's original offset.

    The same text as the JVM function gives, and as the regular expressions give as Java reads
    them, in one linear scan per pass."""
    spans = _strip(text)
    identity = array("q", range(len(text)))
    origin = array("q")
    for start, end in spans:
        origin += identity[start:end]
    return _quote("".join(text[start:end] for start, end in spans), origin)


def _nesting_depth(text: str) -> int:
    """How deeply the JSON `text` nests (json.loads read it: its strings are closed)."""
    brackets = _NOT_BRACKETS.sub("", _STRING_LITERAL.sub("", text))
    return max(accumulate(_BRACKET_STEP[char] for char in brackets), default=0)


def explain(text: str | None) -> str | None:
    """Why `text` is not JSON as staging parses it, or None if it is: the JVM function
    cdc_json_error in Python (json.loads of the normalized text), which the tests compare it with.

    The offset counts characters of the message's own text from 0, before normalization. A text
    that opens more than MAX_NESTING_DEPTH brackets (counting the ones staging wraps it in) before
    its first error is too deep, as Spark's reader says.
    """
    if text is None:
        return None
    normalized, origin = normalize(text)
    wrapped = normalized if text.lstrip(" ").startswith("[") else "[" + normalized + "\n]"
    shift = 0 if wrapped is normalized else 1
    too_deep = f"invalid JSON: nested more than {MAX_NESTING_DEPTH} levels deep"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * MAX_NESTING_DEPTH))  # json.loads recurses once per level
    try:
        json.loads(wrapped, strict=False)
    except RecursionError:
        return too_deep
    except json.JSONDecodeError as exc:
        if _nesting_depth(wrapped[: exc.pos]) > MAX_NESTING_DEPTH:
            return too_deep
        index = exc.pos - shift
        offset = origin[index] if 0 <= index < len(origin) else len(text)
        if index >= len(origin) and exc.msg.startswith("Expecting"):
            return f"invalid JSON at offset {offset}: the message ends early ({exc.msg})"
        return f"invalid JSON at offset {offset}: {exc.msg}"
    finally:
        sys.setrecursionlimit(limit)
    if _nesting_depth(wrapped) > MAX_NESTING_DEPTH:
        return too_deep
    longest = 0
    if len(normalized) > MAX_STRING_LENGTH:  # no string is longer than the text
        longest = max((m.end() - m.start() - 2 for m in _STRING_LITERAL.finditer(normalized)), default=0)
    if longest > MAX_STRING_LENGTH:
        return f"unreadable JSON: a value of {longest} characters (Spark reads at most {MAX_STRING_LENGTH})"
    return None


def explain_utf8(data: bytes | None) -> str | None:
    """Why `data` is not UTF-8 text, or None if it is: the JVM function cdc_utf8_error, which the
    landing runs on text that is not UTF-8, in Python (the tests compare the two)."""
    if data is None:
        return None
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = bytes(data)[exc.start : exc.start + 4].hex(" ")
        return f"not valid UTF-8 text at byte offset {exc.start} (bytes {bad}): {exc.reason}"
    return None
