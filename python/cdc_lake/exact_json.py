"""The JSON normalization of macros/staging/cdc_exact_json.sql, and why a message does not parse.

Staging parses every message with `from_json` after `cdc_exact_json` (drop comments and trailing
commas, quote bare numbers). Spark cannot say where a message stops being JSON, so `cdc-lake land`
finds the messages that fail that parse with a cheap check in Spark (`validity_check_sql`) and,
for those few only, asks Python's json module (`explain`) for the position of the error, mapped
back to the message's own text: "invalid JSON at offset 123: Expecting ',' delimiter".

The regular expressions below are the macro's, character for character (Java and Python 3.11
share this syntax, possessive quantifiers included); test_reliability checks that they equal the
literals in the macro, so a change to one without the other fails the tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

STRIP_PATTERN = r'("(?:[^"\\]++|\\.)*+")|,(?:\s++|//[^\n]*+|/\*(?s:.*?)\*/)*+([}\]])|//[^\n]*+|/\*(?s:.*?)\*/'
"""Pass 1: keep string literals ($1); drop a comma before } or ] (keep the bracket, $2), also
with comments between them (`"a": 1, // last` then `}`); drop comments."""
STRIP_REPLACEMENT = "$1$2"

QUOTE_PATTERN = r'"((?:[^"\\]++|\\.)*+)"|([:\[,]\s*+)(-?[0-9][0-9.eE+\-]*+)'
"""Pass 2: keep string literals, quote bare numbers that follow `:`, `[` or `,`."""
QUOTE_REPLACEMENT = '$2"$1$3"'

JSON_OPTIONS_SQL = "map('allowUnquotedControlChars', 'true', 'mode', 'PERMISSIVE')"
"""The options of macros/staging/cdc_json_options.sql."""

MAX_NESTING_DEPTH = 1000
"""Spark's JSON reader (Jackson) rejects documents nested deeper than this."""
MAX_STRING_LENGTH = 20_000_000
"""... and strings longer than this (characters)."""

_TEMPLATE_PART = re.compile(r"\$(\d)|([^$]+)")
_STRING_LITERAL = re.compile(r'"(?:[^"\\]++|\\.)*+"')


def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def normalize_sql(text_sql: str) -> str:
    """The Spark SQL of cdc_exact_json over the expression `text_sql`."""
    inner = (
        f"regexp_replace({text_sql}, {_sql_string(STRIP_PATTERN)}, {_sql_string(STRIP_REPLACEMENT)})"
    )
    return f"regexp_replace({inner}, {_sql_string(QUOTE_PATTERN)}, {_sql_string(QUOTE_REPLACEMENT)})"


def _parses_sql(text_sql: str, json_sql: str) -> str:
    """True when `json_sql` (the text `text_sql`, maybe normalized) parses as cdc_parse_messages
    reads a message: an array as is, anything else wrapped in [ and ]."""
    wrapped = f"case when ltrim({text_sql}) like '[%' then {json_sql} else concat('[', {json_sql}, '\\n]') end"
    return f"from_json({wrapped}, 'array<string>', {JSON_OPTIONS_SQL}) is not null"


def validity_check_sql(text_sql: str) -> str:
    """Spark SQL that is true when `text_sql` is not null and does not parse as the staging
    models parse it (after cdc_exact_json).

    Plain JSON parses unchanged and normalization keeps it valid (it only quotes numbers that
    follow `:`, `[` or `,`), so the regular expressions run only on the few messages that do not
    parse as they are (comments, trailing commas, numbers too long for Jackson, broken text):
    Spark's `and` does not evaluate its right side when the left is false.
    """
    return (
        f"({text_sql} is not null and not ({_parses_sql(text_sql, text_sql)}) "
        f"and not ({_parses_sql(text_sql, normalize_sql(text_sql))}))"
    )


def _substitute(pattern: str, template: str, text: str, origin: Sequence[int]) -> tuple[str, list[int]]:
    """Java-style regexp_replace of `pattern` by `template` ($n = group n, unmatched = ""), also
    returning, for each output character, the offset in the original text it comes from."""
    parts = _TEMPLATE_PART.findall(template)
    out: list[str] = []
    out_origin: list[int] = []
    position = 0
    for match in re.finditer(pattern, text):
        out.append(text[position : match.start()])
        out_origin.extend(origin[position : match.start()])
        for group, literal in parts:
            if group:
                index = int(group)
                if match.group(index) is not None:
                    out.append(match.group(index))
                    out_origin.extend(origin[match.start(index) : match.end(index)])
            else:
                anchor = origin[match.start()] if match.start() < len(origin) else len(text)
                out.append(literal)
                out_origin.extend([anchor] * len(literal))
        position = match.end()
    out.append(text[position:])
    out_origin.extend(origin[position:])
    return "".join(out), out_origin


def normalize(text: str) -> tuple[str, list[int]]:
    """cdc_exact_json in Python: the normalized text and each character's original offset."""
    origin = list(range(len(text)))
    stripped, origin = _substitute(STRIP_PATTERN, STRIP_REPLACEMENT, text, origin)
    return _substitute(QUOTE_PATTERN, QUOTE_REPLACEMENT, stripped, origin)


def _nesting_depth(text: str) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def explain(text: str | None) -> str | None:
    """Why `text` (a message that failed the Spark check) is not JSON, or None if it is.

    The offset counts characters of the message's own text from 0, before normalization.
    """
    if text is None:
        return None
    try:
        normalized, origin = normalize(text)
    except RecursionError:  # pragma: no cover - Python's re does not recurse on these patterns
        return "invalid JSON: the message is too deeply nested to read"
    wrapped = normalized if text.lstrip(" ").startswith("[") else "[" + normalized + "\n]"
    shift = 0 if wrapped is normalized else 1
    try:
        json.loads(wrapped, strict=False)
    except RecursionError:
        return f"invalid JSON: nested more than {MAX_NESTING_DEPTH} levels deep"
    except json.JSONDecodeError as exc:
        index = exc.pos - shift
        offset = origin[index] if 0 <= index < len(origin) else len(text)
        if index >= len(origin) and exc.msg.startswith("Expecting"):
            return f"invalid JSON at offset {offset}: the message ends early ({exc.msg})"
        return f"invalid JSON at offset {offset}: {exc.msg}"
    depth = _nesting_depth(normalized)
    if depth > MAX_NESTING_DEPTH:
        return f"invalid JSON: nested {depth} levels deep (Spark reads at most {MAX_NESTING_DEPTH})"
    longest = max((m.end() - m.start() - 2 for m in _STRING_LITERAL.finditer(normalized)), default=0)
    if longest > MAX_STRING_LENGTH:
        return f"unreadable JSON: a value of {longest} characters (Spark reads at most {MAX_STRING_LENGTH})"
    return None


def explain_utf8(data: bytes | None) -> str | None:
    """Why `data` is not UTF-8 text, or None if it is."""
    if data is None:
        return None
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = bytes(data)[exc.start : exc.start + 4].hex(" ")
        return f"not valid UTF-8 text at byte offset {exc.start} (bytes {bad}): {exc.reason}"
    return None
