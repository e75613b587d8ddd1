"""The message formats cdc-lake reads, and how `--format auto` recognises a JSON message.

Each JSON format has detectors: quoted key names (`"op":`, `"meta": {`) that its messages carry.
A format is detected when all its detectors match the message text; the first such format in
FORMATS wins, and the order puts the more specific shapes first.

Detection runs in Spark over every message, so it is built to read the text once: one regular
expression collects every quoted name that some detector looks for, noting whether a colon follows
(`detector_tokens_sql`), and `format_sql` decides from that short list with plain string tests.
The result is the same as testing each detector's own regular expression (`Detector.pattern`) one
`rlike` after another, first format first, as cdc-lake did before (test_detection compares the two
on many messages); but each `rlike` decoded and scanned the whole message again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cdc_lake.sql import sql_string

_NAME = re.compile(r"[A-Za-z0-9_]+")
_FOLLOWS = {"": "", ":": r"\s*:", ":{": r"\s*:\s*\{"}


@dataclass(frozen=True)
class Detector:
    """One test of `--format auto`: one of `names`, in double quotes, somewhere in the message text.

    `follows` is what must come after the closing quote: "" (nothing: the name may be a value), ":"
    (optional whitespace and a colon: a key) or ":{" (a key whose value is an object)."""

    names: tuple[str, ...]
    follows: str = ":"

    def __post_init__(self) -> None:
        bad = [n for n in self.names if not _NAME.fullmatch(n)]
        if not self.names or bad:
            raise ValueError(f"detector names must be letters, digits or _, not {bad or 'none'}")
        if self.follows not in _FOLLOWS:
            raise ValueError(f"a detector's follows must be one of {sorted(_FOLLOWS)}, not {self.follows!r}")

    @property
    def pattern(self) -> str:
        """The regular expression this detector stands for (Java syntax, found anywhere)."""
        names = self.names[0] if len(self.names) == 1 else f"({'|'.join(self.names)})"
        return f'"{names}"{_FOLLOWS[self.follows]}'

    def condition_sql(self, tokens_sql: str, text_sql: str) -> str:
        """SQL that is true when this detector matches, given the message's detector tokens
        (`detector_tokens_sql`): `,name",` is a key, `,name,` a name not followed by a colon.
        A key whose value must be an object is confirmed with the pattern, on the text, only
        when the key is there (rarely)."""
        tests = [f"contains({tokens_sql}, '{_token(name, True)}')" for name in self.names]
        if self.follows == "":
            tests += [f"contains({tokens_sql}, '{_token(name, False)}')" for name in self.names]
        condition = tests[0] if len(tests) == 1 else f"({' or '.join(tests)})"
        if self.follows == ":{":
            condition = f"({condition} and {text_sql} rlike {sql_string(self.pattern)})"
        return condition


def _token(name: str, key: bool) -> str:
    """How a name appears in the tokens: `,name",` followed by a colon, `,name,` not."""
    return f',{name}",' if key else f",{name},"


@dataclass(frozen=True)
class Format:
    """One message format: its id (see CONTRACT.md), whether it arrives as bytes, and its detectors."""

    format_id: str
    binary: bool
    detector: tuple[Detector, ...] = ()
    """Detectors that must all match the message text (JSON formats)."""


def _key(*names: str) -> Detector:
    """`"name"` followed by a colon: a key (any of `names`)."""
    return Detector(names, ":")


def _mention(*names: str) -> Detector:
    """`"name"` anywhere, as a key or a value (any of `names`)."""
    return Detector(names, "")


def _object_key(name: str) -> Detector:
    """`"name"` followed by a colon and `{`: a key whose value is an object."""
    return Detector((name,), ":{")


FORMATS: tuple[Format, ...] = (
    Format(
        "oms_extend_column_type",
        False,
        (_key("__light_type"), _mention("recordType", "allMetaData", "prevStruct", "postStruct")),
    ),
    Format("oms_default", False, (_key("recordType"), _mention("allMetaData", "prevStruct", "postStruct"))),
    Format("kafka_river_canal", False, (_key("binlog"), _key("event"), _key("columns"))),
    Format("cloudcanal_json", False, (_key("action"), _key("entryType", "dbValType", "jdbcType", "bid"))),
    Format("ckafka_format_one", False, (_key("TYPE"), _key("NEW_VALUES", "OLD_VALUES"))),
    Format("oms_shareplex", False, (_object_key("meta"), _key("op"))),
    Format("oms_dataworks", False, (_key("payload"), _key("eventTime"))),
    Format(
        "debezium_json",
        False,
        (_key("op", "ddl", "databaseName"), _key("source", "ts_ms", "payload", "before", "after")),
    ),
    Format("canal_json", False, (_key("database"), _key("type"))),
    Format("dts_avro", True),
    Format("canal_protobuf", True),
)

FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS)
BINARY_FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS if f.binary)
JSON_FORMAT_IDS: tuple[str, ...] = tuple(f.format_id for f in FORMATS if not f.binary)
AUTO = "auto"
UNKNOWN = "unknown"


def _token_pattern() -> str:
    """One regular expression that finds every detector name in double quotes (group 1: the name,
    with its closing quote when a colon follows). The match is only the opening quote, so a name
    whose opening quote closes the one before (`"a"b"`) is found too, as each `rlike` would; the
    first-letter test lets Spark pass over most quotes at once."""
    names = sorted({name for fmt in FORMATS for d in fmt.detector for name in d.names})
    first = "".join(sorted({name[0] for name in names}))
    name = f'(?:{"|".join(names)})(?:"(?=\\s*:)|(?="))'
    return f'"(?=[{first}])(?=({name}))'


def detector_tokens_sql(text_sql: str) -> str:
    """SQL for the detector tokens of the text `text_sql`, one string: `,name",name,`, each name
    found in quotes, with its closing quote when a colon follows; null for a null text."""
    found = f"regexp_extract_all({text_sql}, {sql_string(_token_pattern())}, 1)"
    return f"concat(',', array_join({found}, ','), ',')"


DETECTOR_TOKENS_FUNCTION = "cdc_detector_tokens"
"""The JVM function (python/cdc_lake/jvm/src/io/cdclake/spark/DetectorTokens.java) that gives what
`detector_tokens_sql` gives in one linear scan; `cdc-lake land` registers it for its session."""
DETECTOR_TOKENS_CLASS = "io.cdclake.spark.DetectorTokens"


def detector_tokens_jvm_sql(text_sql: str) -> str:
    """`detector_tokens_sql` through the JVM function DETECTOR_TOKENS_FUNCTION (registered first)."""
    names = sorted({name for fmt in FORMATS for d in fmt.detector for name in d.names})
    return f"{DETECTOR_TOKENS_FUNCTION}({text_sql}, {sql_string(','.join(names))})"


def format_sql(tokens_sql: str, text_sql: str) -> str:
    """SQL naming the JSON format whose detectors all match, or 'unknown', given the detector
    tokens `tokens_sql` of the text `text_sql`: the first format of FORMATS wins."""
    branches = []
    for fmt in FORMATS:
        if fmt.detector:
            condition = " and ".join(d.condition_sql(tokens_sql, text_sql) for d in fmt.detector)
            branches.append(f"when {condition} then '{fmt.format_id}'")
    return f"case {' '.join(branches)} else '{UNKNOWN}' end"


def detection_sql(text_column: str) -> str:
    """A Spark SQL expression naming the JSON format of `text_column`, or 'unknown'.

    It repeats the token expression in every test; `cdc-lake land` computes the tokens once, in a
    column of their own, and uses `format_sql` over that column."""
    return format_sql(detector_tokens_sql(text_column), text_column)


def get_format(format_id: str) -> Format:
    """The format with this id; raises ValueError with the list of ids otherwise."""
    for fmt in FORMATS:
        if fmt.format_id == format_id:
            return fmt
    raise ValueError(
        f"unknown format id {format_id!r}: use one of {', '.join(FORMAT_IDS + (AUTO,))}"
    )
