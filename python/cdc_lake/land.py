"""`cdc-lake land`: append raw messages to the landing table, with provenance.

Every message keeps its text (or, for binary formats, its bytes plus the decoded JSON envelope),
where it came from (file and line, or Kafka topic/partition/offset) and when it was landed.
A landing is committed by one row in the `landings` table written after its messages: dbt reads
only committed landings, and the next `land` removes the partition of a landing that never
committed (a crash), so re-running after a crash lands each input exactly once.

Nothing lands twice and nothing is dropped unsaid: an input already landed (by content hash) adds
nothing; a text file that grew lands its new lines only; a Kafka record re-delivered (same
topic/partition/offset and bytes) adds nothing, and one at a reused offset with other bytes lands
flagged. An input that cannot be landed that way is refused (the whole command, or that input
alone when the others can land: `LandingReport.refused`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import zlib
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cdc_lake.formats import (
    AUTO,
    BINARY_FORMAT_IDS,
    DETECTOR_TOKENS_CLASS,
    DETECTOR_TOKENS_FUNCTION,
    FORMAT_IDS,
    UNKNOWN,
    detector_tokens_jvm_sql,
    format_sql,
    get_format,
)
from cdc_lake.settings import Settings, load_settings

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow.parquet as pq
    from pyspark.sql import Column, DataFrame, Row, SparkSession
    from pyspark.sql.types import StructType

KAFKA_HEADERS_TYPE = "array<struct<key:string,value:binary>>"
"""The type of raw_messages.kafka_headers, as Spark's Kafka source gives a record's headers."""
KAFKA_LOST_OFFSETS_TYPE = (
    "array<struct<kafka_topic:string,kafka_partition:int,first_offset:bigint,end_offset:bigint>>"
)
"""The type of landings.kafka_lost_offsets."""
TEXT_SUFFIXES = {".jsonl", ".json", ".txt", ".ndjson"}
GZIP_SUFFIX = ".gz"
"""A text file compressed with gzip (`x.jsonl.gz`): Spark's text reader decompresses it by this
suffix; the hashing checks that it decompresses whole (a broken one is refused, alone)."""
PARQUET_SUFFIXES = {".parquet"}
# A landing of at most this many source URIs counts its messages per URI while it writes them
# (`_observed_counts`); one of more reads them back: each URI is a comparison per message.
MOST_OBSERVED_SOURCES = 64
RAW_COLUMNS = (
    "message_id string",
    "landing_id string",
    "landed_at timestamp",
    "declared_format string",
    "message_format string",
    "source_uri string",
    "source_hash string",
    "kafka_topic string",
    "kafka_partition int",
    "kafka_offset bigint",
    "kafka_key string",
    "kafka_timestamp timestamp",
    "message_index bigint",
    "message_text string",
    "message_bytes binary",
    "decode_error string",
    "message_hash string",
    "parse_error string",
    # a Kafka record at a topic/partition/offset that a record with other bytes was landed at
    # first (a re-created topic): landed as a message of its own (null in older landings)
    "is_kafka_offset_reused boolean",
    # the headers of a Kafka record (read from a broker, or a dump's `headers` column); null for other inputs
    f"kafka_headers {KAFKA_HEADERS_TYPE}",
)
UTF8_ERROR_FUNCTION = "cdc_utf8_error"
"""The JVM function (python/cdc_lake/jvm/src/io/cdclake/spark/Utf8Error.java) that says why bytes
are not UTF-8; exact_json.explain_utf8 is the same in Python."""
UTF8_ERROR_CLASS = "io.cdclake.spark.Utf8Error"
LANDINGS_COLUMNS = (
    "landing_seq bigint",
    "landing_id string",
    "landed_at timestamp",
    "declared_format string",
    "inputs array<string>",
    "source_hashes array<string>",
    "messages bigint",
    # the message formats the landing holds: a staging model skips the landings without its format
    # (null in landings of an older cdc-lake: read by every staging model)
    "formats array<string>",
    # per input (as `inputs`), for a plain text file: the bytes and the lines landed (the whole file
    # as hashed); a file that grows is landed from there. Null for other inputs and in landings of
    # an older cdc-lake (a file of theirs that grows is landed whole again).
    "input_bytes array<bigint>",
    "input_lines array<bigint>",
    # per input (as `inputs`), a file or folder: what it looked like before it was read to be
    # landed (`input_signature`: each file's size, modification time and inode); `land --incoming`
    # passes over an input that still looks like that without reading it. Null for other inputs,
    # for a text file whose last line waited (`LandingInput.waiting_bytes`) and in landings of an
    # older cdc-lake.
    "input_signatures array<string>",
    # what the landing reports besides its messages (`land --kafka`: records a broker deleted
    # before they were landed, partitions landed for the first time); null when nothing
    "notes array<string>",
    # `land --kafka`: per topic partition, the offsets [first_offset, end_offset) the broker deleted
    # (retention) before they were landed; cdc_landing_audit counts them. Null when none.
    f"kafka_lost_offsets {KAFKA_LOST_OFFSETS_TYPE}",
)
REQUEUED_COLUMNS = (
    "message_id string",
    "requeued_as string",
    "requeued_at timestamp",
    "reason string",
)


class LandingError(Exception):
    """A problem with the command's input; the message says what to fix. Nothing was landed."""


@dataclass(frozen=True)
class LandingInput:
    """One PATH argument, classified."""

    path: Path
    kind: str  # "text", "parquet" or "binary_folder"
    source_hash: str
    files: tuple[Path, ...] = ()
    """A folder's files (`_folder_files`): the hash covers them and the landing reads them."""
    size: int | None = None
    """A plain text file: its bytes, and the lines Spark numbers in them (None for other inputs)."""
    lines: int | None = None
    refused: str | None = None
    """Why this input cannot be landed (the other inputs land); None when it can."""
    skip_lines: int = 0
    """A text file that grew since it was landed: the lines landed before (`_grown_from`)."""
    signature: str | None = None
    """What the input looked like before it was read (`input_signature`); None when not recorded."""
    waiting_bytes: int = 0
    """A text file still being written (`_Checked.up_to_last_newline`): the bytes of its last line,
    which has no newline yet, left for a later landing; `size`, `lines` and `source_hash` cover
    the file up to its last newline."""


@dataclass
class LandingReport:
    """What one `land` call did."""

    landing_seq: int | None = None
    landed: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    by_format: dict[str, int] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    """Inputs not landed, with the reason (the other inputs were landed)."""
    reused_offsets: int = 0
    """Kafka records landed at an offset that an earlier record with other bytes holds."""
    waiting: list[str] = field(default_factory=list)
    """Text files still being written whose last line (no newline yet) was left for later."""

    @property
    def total(self) -> int:
        return sum(self.landed.values())


def _hash_file(path: Path, digest: "hashlib._Hash") -> tuple[int, int, bytes]:
    """Add the file's bytes to `digest`; its size, its count of newlines and its last byte."""
    size = newlines = 0
    last = b""
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
            newlines += block.count(b"\n")
            last = block[-1:]
    return size, newlines, last


def _hash_whole_lines(path: Path) -> tuple[str, int, int, int]:
    """For a text file: the SHA-256 of its bytes up to and including its last newline, the count of
    those bytes and of their lines, and the bytes after them (a last line without a newline)."""
    digest = hashlib.sha256()
    at_last_newline = digest.copy()
    size = newlines = whole = 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            end = block.rfind(b"\n") + 1
            if end:
                digest.update(block[:end])
                at_last_newline = digest.copy()
                whole = size + end
                newlines += block.count(b"\n")
            digest.update(block[end:])
            size += len(block)
    return at_last_newline.hexdigest(), whole, newlines, size - whole


def _gzip_problem(path: Path) -> str | None:
    """Why a .gz file does not decompress whole (None when it does): Spark would fail the whole
    landing on it, so it is refused alone."""
    decompressor = zlib.decompressobj(wbits=31)
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                while block:
                    decompressor.decompress(block, 1 << 20)
                    block = decompressor.unconsumed_tail
                    if decompressor.eof and decompressor.unused_data:  # another gzip member
                        block = decompressor.unused_data + block
                        decompressor = zlib.decompressobj(wbits=31)
    except zlib.error as exc:
        return f"not a readable gzip file ({exc})"
    if not decompressor.eof:
        return "a truncated gzip file (it ends before its compressed data does)"
    return None


def _spark_skips(name: str) -> bool:
    """Spark's file listing leaves out these names, at any depth of a folder (its
    `shouldFilterOutPathName`): hidden (`.x`), underscored (`_x`, not a `k=v` partition folder)
    and files still being copied (`x._COPYING_`). A folder input's listing leaves them out too."""
    return (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_")


def _folder_files(root: Path) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """The files a folder input holds, in name order, and what was left out and why. The one
    listing of a folder: its source hash covers exactly these files and the landing reads exactly
    these (Spark is given their paths). A symbolic link is followed to the file or folder it
    names, each real file and folder once (so a link loop ends, and two links to one file land it
    once); a link to nothing is left out."""
    files: list[Path] = []
    left_out: list[str] = []
    seen_folders = {os.path.realpath(root)}
    seen_files: dict[str, Path] = {}

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            name = str(entry.relative_to(root))
            real = os.path.realpath(entry)
            if _spark_skips(entry.name):
                left_out.append(f"{name} (hidden, _-prefixed or ._COPYING_: Spark skips these)")
            elif entry.is_dir():
                if real in seen_folders:
                    left_out.append(f"{name} (a link to a folder already read: a link loop or a second link)")
                else:
                    seen_folders.add(real)
                    walk(entry)
            elif entry.is_file():
                if real in seen_files:
                    left_out.append(f"{name} (a link to {seen_files[real]}, read once)")
                else:
                    seen_files[real] = entry.relative_to(root)
                    files.append(entry)
            else:
                left_out.append(f"{name} (a link to nothing, or not a regular file)")

    walk(root)
    return tuple(files), tuple(left_out)


@dataclass(frozen=True)
class _Checked:
    """One PATH argument, checked and classified, not yet hashed."""

    path: Path
    kind: str
    files: tuple[Path, ...] = ()
    """A folder's files (`_folder_files`), which its source hash covers with their names; () for a file."""
    left_out: tuple[str, ...] = ()
    """A folder's entries that `_folder_files` left out, with why."""
    signature: str | None = None
    """What the input looked like when it was checked, before it is read (`input_signature`)."""
    up_to_last_newline: bool = False
    """A plain text file that may still be written to (`incoming`): land it up to its last newline,
    and leave a last line without one for a later landing, which lands it once it is whole."""

    @property
    def is_gzip(self) -> bool:
        return self.kind == "text" and self.path.name.endswith(GZIP_SUFFIX)

    @property
    def is_plain_text_file(self) -> bool:
        """A text file Spark reads by lines and splits (not gzip, not a folder)."""
        return self.kind == "text" and not self.files and not self.is_gzip

    def source_hash(self) -> str:
        """The SHA-256 of the input: reads it whole."""
        return self.hashed().source_hash

    def hashed(self) -> LandingInput:
        """The input with its SHA-256 (read whole), and for a plain text file its size and lines;
        a .gz file that does not decompress is refused (alone)."""
        if self.up_to_last_newline and self.is_plain_text_file:
            source_hash, size, lines, waiting = _hash_whole_lines(self.path)
            # a file whose last line waits is not recorded as landed whole: looked at again
            signature = None if waiting else self.signature
            return LandingInput(
                self.path, self.kind, source_hash, size=size, lines=lines, signature=signature,
                waiting_bytes=waiting,
            )
        digest = hashlib.sha256()
        if self.files:
            for file in self.files:
                digest.update(str(file.relative_to(self.path)).encode())
                _hash_file(file, digest)
            return LandingInput(
                self.path, self.kind, digest.hexdigest(), files=self.files, signature=self.signature
            )
        size, newlines, last = _hash_file(self.path, digest)
        if self.is_gzip:
            return LandingInput(
                self.path, self.kind, digest.hexdigest(), refused=_gzip_problem(self.path),
                signature=self.signature,
            )
        if self.kind != "text":
            return LandingInput(self.path, self.kind, digest.hexdigest(), signature=self.signature)
        # Spark numbers a last line without a newline too
        lines = newlines + (1 if last not in (b"", b"\n") else 0)
        return LandingInput(
            self.path, self.kind, digest.hexdigest(), size=size, lines=lines, signature=self.signature
        )


def classify(path_text: str, format_id: str) -> LandingInput:
    """Classify one PATH, or raise LandingError naming the problem."""
    return _check_input(path_text, format_id).hashed()


def _check_input(path_text: str, format_id: str) -> _Checked:
    """Check and classify one PATH (reading no more than Parquet footers), or raise LandingError."""
    path = Path(path_text).absolute()
    if not path.exists():
        raise LandingError(f"{path_text}: no such file or directory")
    if path.is_file():
        suffix = path.suffix.lower()
        if path.name.endswith(GZIP_SUFFIX) and Path(path.stem).suffix.lower() in TEXT_SUFFIXES:
            suffix = Path(path.stem).suffix.lower()  # x.jsonl.gz: read decompressed
        if suffix in TEXT_SUFFIXES:
            if format_id in BINARY_FORMAT_IDS:
                raise LandingError(
                    f"{path_text}: {format_id} messages are binary; land them from Kafka-shaped "
                    "Parquet or a folder of one-message files, not a text file"
                )
            kind = "text"
        elif suffix in PARQUET_SUFFIXES:
            _check_kafka_parquet(path_text, [path])
            kind = "parquet"
        else:
            raise LandingError(
                f"{path_text}: unsupported file type {suffix or '(none)'}; expected "
                ".jsonl/.json/.txt/.ndjson (one message per line, or any of them gzipped: .jsonl.gz), "
                ".parquet (Kafka-shaped), or a folder"
            )
        return _Checked(path, kind, signature=input_signature(path, ()))
    files, left_out = _folder_files(path)
    if not files:
        why = f" (left out: {_listed(left_out)})" if left_out else ""
        raise LandingError(f"{path_text}: the folder holds no files to land{why}")
    parquet = [p for p in files if p.suffix.lower() in PARQUET_SUFFIXES]
    if parquet and len(parquet) != len(files):
        others = ", ".join(p.name for p in files if p not in parquet)[:200]
        raise LandingError(
            f"{path_text}: the folder mixes Parquet files with other files ({others}); "
            "land a Parquet folder or a folder of one-message files, not both"
        )
    if parquet:
        _check_kafka_parquet(path_text, parquet)
    if not parquet and format_id not in BINARY_FORMAT_IDS + (AUTO,):
        raise LandingError(
            f"{path_text}: a folder of one-message files is for binary formats "
            f"({', '.join(BINARY_FORMAT_IDS)} or auto), not {format_id}"
        )
    kind = "parquet" if parquet else "binary_folder"
    return _Checked(path, kind, files, left_out, signature=input_signature(path, files))


def input_signature(path: Path, files: Sequence[Path] | None = None) -> str:
    """What a file or folder input looks like without reading it: per file (a folder's as
    `_folder_files` lists them, or `files`), its name in the folder, size, modification time (ns)
    and inode, as JSON. A file that is appended to, rewritten or replaced looks different."""
    if files is None:
        files = _folder_files(path)[0] if path.is_dir() else ()
    stats = []
    for file in files or (path,):
        stat = file.stat()
        name = str(file.relative_to(path)) if files else ""
        stats.append([name, stat.st_size, stat.st_mtime_ns, stat.st_ino])
    return json.dumps(stats, separators=(",", ":"))


def _listed(names: Sequence[str], most: int = 5) -> str:
    """Up to `most` names, and how many more."""
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return "; ".join(names[:most]) + more


class _Hashing:
    """Hashes the checked inputs in a thread while Spark starts: the hashes are needed only once
    the landings log can be read, and reading every input takes as long as a JVM takes to start.
    A daemon thread, so that an error starting Spark is not kept waiting for it."""

    def __init__(self, checked: Sequence[_Checked]):
        self.checked = checked
        self._result: list[LandingInput] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = [c.hashed() for c in self.checked]
        except BaseException as exc:  # handed to result(), in the caller's thread
            self._error = exc

    def result(self) -> list[LandingInput]:
        """The classified inputs with their hashes, once all are read (or the error reading one)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def _check_kafka_parquet(path_text: str, files: Sequence[Path]) -> None:
    """Read each Parquet file's footer (cheap): a file that is not Parquet, or not Kafka-shaped,
    is refused before anything is landed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for file in files:
        name = file.name if len(files) > 1 else ""
        where = f"{path_text}{': ' + name if name else ''}"
        try:
            parquet = pq.ParquetFile(file)
            schema = parquet.schema_arrow
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... for a bad file
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise LandingError(f"{where}: unreadable Parquet file ({detail[:200]})") from None
        missing = {"value", "topic", "partition", "offset"} - set(schema.names)
        if missing:
            raise LandingError(
                f"{where}: not Kafka-shaped Parquet, missing column(s) {', '.join(sorted(missing))} "
                "(expected key, value, topic, partition, offset, timestamp)"
            )
        value_type = schema.field("value").type
        if not (
            pa.types.is_binary(value_type)
            or pa.types.is_large_binary(value_type)
            or pa.types.is_string(value_type)
            or pa.types.is_large_string(value_type)
        ):
            raise LandingError(f"{where}: column value must be binary or string, not {value_type}")
        _check_record_ids(where, parquet)


# A Kafka record is identified by these columns: a record without one of them could not be told
# apart from others (records with no offset would land as one message).
KAFKA_RECORD_ID_COLUMNS = ("topic", "partition", "offset")


def _check_record_ids(where: str, parquet: "pq.ParquetFile") -> None:
    """Refuse a Kafka-shaped Parquet file in which a record has no topic, partition or offset. The
    footer's statistics say how many nulls each column holds; a file written without them has
    those three columns read."""
    schema = parquet.metadata.schema
    # a column's index among the file's leaf columns (a nested column, e.g. headers, has several)
    leaf_index = {schema.column(i).path: i for i in range(len(schema))}
    nulls = dict.fromkeys(KAFKA_RECORD_ID_COLUMNS, 0)
    for group in range(parquet.metadata.num_row_groups):
        row_group = parquet.metadata.row_group(group)
        for column in KAFKA_RECORD_ID_COLUMNS:
            statistics = row_group.column(leaf_index[column]).statistics
            if statistics is None or not statistics.has_null_count:
                counted = parquet.read_row_group(group, columns=[column]).column(0).null_count
            else:
                counted = statistics.null_count
            nulls[column] += counted
    missing = [f"{count} without a {column}" for column, count in nulls.items() if count]
    if missing:
        raise LandingError(
            f"{where}: {', '.join(missing)} of {parquet.metadata.num_rows} record(s); every Kafka record "
            "needs its topic, partition and offset (they tell records apart): fix the dump, or land "
            "its values as a text file of one message per line"
        )


class _Progress:
    """Prints a progress line every few seconds while Spark works on a long landing."""

    def __init__(self, spark: "SparkSession", say: Callable[[str], None], every: float = 5.0):
        self._tracker = spark.sparkContext.statusTracker()
        self._say = say
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "_Progress":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            for stage_id in self._tracker.getActiveStageIds():
                info = self._tracker.getStageInfo(stage_id)
                if info is not None and info.numTasks:
                    self._say(
                        f"  ... working: stage {stage_id}, {info.numCompletedTasks}/{info.numTasks} "
                        "tasks done"
                    )


def ensure_tables(spark: "SparkSession", settings: Settings) -> None:
    """Create the raw schema, the landing table and the landings log if they do not exist."""
    landings = f"{settings.raw_schema}.landings"
    requeued = f"{settings.raw_schema}.requeued"
    # reading a table's schema is one catalog lookup, cheaper than a `create ... if not exists`
    schemas = {table: _schema_or_none(spark, table) for table in (settings.raw_table, landings)}
    if None in schemas.values() or not spark.catalog.tableExists(requeued):
        spark.sql(f"create database if not exists {settings.raw_schema}")
        spark.sql(
            f"create table if not exists {settings.raw_table} ({', '.join(RAW_COLUMNS)}, "
            "landing_seq bigint) using parquet partitioned by (landing_seq)"
        )
        spark.sql(f"create table if not exists {landings} ({', '.join(LANDINGS_COLUMNS)}) using parquet")
        spark.sql(
            f"create table if not exists {requeued} ({', '.join(REQUEUED_COLUMNS)}, "
            "landing_seq bigint) using parquet partitioned by (landing_seq)"
        )
        schemas = {table: spark.table(table).schema for table in schemas}
    # A lake landed by an older cdc-lake gains the columns added since (null in old rows).
    for table, columns in ((settings.raw_table, RAW_COLUMNS), (landings, LANDINGS_COLUMNS)):
        present = {f.name for f in schemas[table].fields}
        missing = [c for c in columns if c.split(" ", 1)[0] not in present]
        if missing:
            spark.sql(f"alter table {table} add columns ({', '.join(missing)})")


def _schema_or_none(spark: "SparkSession", table: str) -> "StructType | None":
    """The schema of `table`, or None when it does not exist."""
    from pyspark.errors import AnalysisException

    try:
        return spark.table(table).schema
    except AnalysisException:
        return None


def _drop_uncommitted(
    spark: "SparkSession",
    settings: Settings,
    say: Callable[[str], None],
    committed: set[int] | None = None,
) -> None:
    """Remove what an interrupted `land` or `requeue` left: partitions of landings that never
    committed, and files written but never registered as a partition (a kill during the commit of
    the write), which a later landing reusing the same landing_seq would otherwise pick up.
    `committed`: the landing_seq of every row of `landings`, when the caller has read them."""
    if committed is None:
        committed = {r[0] for r in spark.sql(f"select landing_seq from {settings.raw_schema}.landings").collect()}
    for table in (settings.raw_table, f"{settings.raw_schema}.requeued"):
        _remove_uncommitted_partitions(spark, table, committed, say)


def _remove_uncommitted_partitions(
    spark: "SparkSession", table: str, committed: set[int], say: Callable[[str], None]
) -> None:
    """Drop the partitions of `table` whose landing never committed, and delete its folders that
    no committed landing wrote. The table's folder is listed (one file system call) rather than
    its partitions (a metastore call): a write creates a partition's folder before it registers
    the partition, so an uncommitted partition always has one (a partition registered without a
    folder holds no rows, and a later write into it starts empty)."""
    location = next(
        r[1] for r in spark.sql(f"describe table extended {table}").collect() if r[0] == "Location"
    )
    jvm = spark.sparkContext._jvm
    root = jvm.org.apache.hadoop.fs.Path(location)
    fs = root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not fs.exists(root):
        return
    for status in fs.listStatus(root):
        name = status.getPath().getName()
        stray = name in ("_temporary",) or name.startswith(".spark-staging")
        if name.startswith("landing_seq="):
            seq = name.split("=", 1)[1]
            uncommitted = seq.isdigit() and int(seq) not in committed
            stray = uncommitted or not seq.isdigit()
            if uncommitted:
                say(f"removing landing {seq} from {table}: it never committed (an interrupted run)")
                spark.sql(f"alter table {table} drop if exists partition (landing_seq={seq})")
        if stray and fs.exists(status.getPath()):
            say(f"removing {status.getPath()}: files of an interrupted write")
            fs.delete(status.getPath(), True)


def _lines(spark: "SparkSession", path: Path) -> "DataFrame":
    """Every line of a text file, blank ones too, with its Spark partition (_pid), its position
    in that partition (_rip), as read (both passes over a file number its lines the same way), and
    whether it is UTF-8 (_is_utf8, computed once per line for every reader of the lines).

    A line loses a trailing carriage return: a UTF-8 line by regexp_replace of `\\r$` (which decodes
    and copies the line, so it gets only the lines that hold a carriage return), a line that is not
    UTF-8 by dropping its last byte if that is one. A line that is not UTF-8 keeps its bytes as they
    are (regexp_replace would turn them into U+FFFD): the write lands it as undecodable, with its
    bytes and the reason, and staging quarantines it, as it does a Kafka value that is not UTF-8."""
    from pyspark.sql import functions as F

    value = F.col("value")
    is_utf8 = F.col("_is_utf8")
    not_utf8_without_cr = F.expr(
        "cast(case when endswith(value, '\\r') then substring(cast(value as binary), 1, octet_length(value) - 1) "
        "else cast(value as binary) end as string)"
    )
    text = (
        F.when(~is_utf8, not_utf8_without_cr)
        .when(value.contains("\r"), F.regexp_replace(value, "\r$", ""))
        .otherwise(value)
    )
    read = spark.read.option("lineSep", "\n").text(_spark_path(path))
    lines = read.withColumn("_is_utf8", F.expr("is_valid_utf8(value)")).select(
        text.alias("message_text"),
        is_utf8,
        F.spark_partition_id().alias("_pid"),
        F.monotonically_increasing_id().alias("_mid"),
    )
    return lines.select(
        "message_text",
        "_is_utf8",
        "_pid",
        (F.col("_mid") - F.shiftleft(F.col("_pid").cast("long"), 33)).alias("_rip"),
    )


def _scan_text_inputs(
    spark: "SparkSession", items: Sequence[LandingInput], *, say: Callable[[str], None]
) -> dict[str, dict[int, int]]:
    """The first pass over the text files of a landing that Spark splits (not `_read_whole`), one
    Spark job for all of them: it counts each partition's lines, so that the write numbers lines
    without a single-partition sort. Per file (by source_hash): Spark partition id -> lines of the
    file before that partition.

    Nothing else is checked here: the write finds the lines that are not UTF-8 (and explains those
    only), and staging finds the messages that are not JSON (`cdc_parse_failure_reason`)."""
    from pyspark.sql import functions as F

    frames = [_lines(spark, item.path).withColumn("_input", F.lit(i)) for i, item in enumerate(items)]
    lines = frames[0]
    for other in frames[1:]:
        lines = lines.unionByName(other)
    with _Progress(spark, say):
        groups = lines.groupBy("_input", "_pid").count().collect()
    offsets: dict[str, dict[int, int]] = {item.source_hash: {} for item in items}
    running = {item.source_hash: 0 for item in items}
    for row in sorted(groups, key=lambda r: (r["_input"], r["_pid"])):
        source_hash = items[row["_input"]].source_hash
        offsets[source_hash][row["_pid"]] = running[source_hash]
        running[source_hash] += row["count"]
    return offsets


def _read_whole(spark: "SparkSession", items: Sequence[LandingInput]) -> list[LandingInput]:
    """The text files of `items` that Spark reads as one partition (so their lines need no first
    pass to be numbered: partition 0 starts at line 1): a gzip file, which Spark cannot split, and
    a plain file no larger than the smallest split Spark makes of a file (FilePartition's
    maxSplitBytes is at least the lesser of spark.sql.files.maxPartitionBytes and
    spark.sql.files.openCostInBytes, 4 MB by default). A file that grows past that while it lands
    keeps its hashed lines in the first partition; the lines after them land next time."""
    conf = spark._jsparkSession.sessionState().conf()
    smallest_split = min(conf.filesMaxPartitionBytes(), conf.filesOpenCostInBytes())
    return [
        item
        for item in items
        if item.path.name.endswith(GZIP_SUFFIX) or (item.size is not None and item.size <= smallest_split)
    ]


def _spark_path(path: Path) -> str:
    """A path for Spark's readers, which take `{}[]*?\\` as a glob: those characters escaped, so
    that a file name holding them names that one file."""
    return re.sub(r"([{}\[\]*?\\])", r"\\\1", str(path))


def _numbered_lines(spark: "SparkSession", item: LandingInput, offsets: dict[int, int]) -> "DataFrame":
    """The messages of a text file (its lines that are not blank) with their 1-based line
    numbers: a line's position in its partition plus `offsets` (lines before the partition).
    Only lines after `item.skip_lines` (landed before the file grew) and, for a plain file, up to
    `item.lines` (the file as hashed: lines appended while it lands are left to the next landing)."""
    from pyspark.sql import functions as F

    if offsets:
        pairs = [F.lit(x) for pid, offset in sorted(offsets.items()) for x in (pid, offset)]
        offset = F.element_at(F.create_map(*pairs), F.col("_pid")).cast("long")
    else:  # an empty file: no line to number
        offset = F.lit(None).cast("long")
    index = offset + F.col("_rip") + 1
    wanted = (F.trim("message_text") != "") & (index > F.lit(item.skip_lines))
    if item.lines is not None:
        wanted = wanted & (index <= F.lit(item.lines))
    return _lines(spark, item.path).where(wanted).select("message_text", index.alias("message_index"))


def _read_input(
    spark: "SparkSession", item: LandingInput, offsets: dict[int, int] | None = None
) -> "DataFrame":
    """One input as rows of (kafka_*, message_index, message_text, message_bytes); a text file's
    `offsets` come from `_scan_text_inputs` ({0: 0} for a file `_read_whole`)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StringType

    null_str = F.lit(None).cast("string")
    no_headers = F.lit(None).cast(KAFKA_HEADERS_TYPE).alias("kafka_headers")
    if item.kind == "text":
        if offsets is None:
            raise ValueError(f"{item.path}: a text input is read with the line offsets of _scan_text_inputs")
        df = _numbered_lines(spark, item, offsets)
        return df.select(
            null_str.alias("kafka_topic"),
            F.lit(None).cast("int").alias("kafka_partition"),
            F.lit(None).cast("bigint").alias("kafka_offset"),
            null_str.alias("kafka_key"),
            F.lit(None).cast("timestamp").alias("kafka_timestamp"),
            "message_index",
            "message_text",
            F.lit(None).cast("binary").alias("message_bytes"),
            no_headers,
        )
    # a folder: the files of _folder_files, which its hash covers (basePath: the same partition
    # columns as reading the folder)
    paths = [_spark_path(f) for f in item.files] or [_spark_path(item.path)]
    reader = spark.read.option("basePath", str(item.path)) if item.files else spark.read
    if item.kind == "binary_folder":
        files = reader.format("binaryFile").load(paths)
        from pyspark.sql.window import Window

        return files.select(
            null_str.alias("kafka_topic"),
            F.lit(None).cast("int").alias("kafka_partition"),
            F.lit(None).cast("bigint").alias("kafka_offset"),
            F.col("path").alias("kafka_key"),
            F.lit(None).cast("timestamp").alias("kafka_timestamp"),
            F.row_number().over(Window.orderBy("path")).cast("bigint").alias("message_index"),
            null_str.alias("message_text"),
            F.col("content").alias("message_bytes"),
            no_headers,
        )
    df = reader.parquet(*paths)
    missing = {"value", "topic", "partition", "offset"} - set(df.columns)
    if missing:
        raise LandingError(
            f"{item.path}: not Kafka-shaped Parquet, missing column(s) {', '.join(sorted(missing))} "
            "(expected key, value, topic, partition, offset, timestamp)"
        )
    value_type = df.schema["value"].dataType
    if not isinstance(value_type, (BinaryType, StringType)):
        raise LandingError(f"{item.path}: column value must be binary or string, not {value_type.simpleString()}")
    # Both casts keep the bytes as stored (a cast to the column's own type is a no-op); encode() would
    # decode a string first and put U+FFFD for bytes that are not UTF-8.
    text = F.col("value").cast("string")
    raw = F.col("value").cast("binary")
    key = F.col("key").cast("string") if "key" in df.columns else null_str
    if "timestamp" in df.columns:
        ts_type = df.schema["timestamp"].dataType.simpleString()
        if ts_type in ("bigint", "int"):
            kafka_ts = F.timestamp_millis(F.col("timestamp"))
        else:
            kafka_ts = F.col("timestamp").cast("timestamp")
    else:
        kafka_ts = F.lit(None).cast("timestamp")
    return df.select(
        F.col("topic").cast("string").alias("kafka_topic"),
        F.col("partition").cast("int").alias("kafka_partition"),
        F.col("offset").cast("bigint").alias("kafka_offset"),
        key.alias("kafka_key"),
        kafka_ts.alias("kafka_timestamp"),
        F.col("offset").cast("bigint").alias("message_index"),
        text.alias("message_text"),
        raw.alias("message_bytes"),
        _dump_headers(item, df).alias("kafka_headers"),
    )


def _dump_headers(item: LandingInput, df: "DataFrame") -> "Column":
    """A Kafka dump's `headers` column as kafka_headers: Spark's Kafka source writes
    array<struct<key,value>> (with includeHeaders); a map of key to value is taken too. None when
    the dump has no such column; a `headers` column of another type is refused, not dropped."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, BinaryType, MapType, StringType, StructType

    if "headers" not in df.columns:
        return F.lit(None).cast(KAFKA_HEADERS_TYPE)
    kind = df.schema["headers"].dataType
    text_or_bytes = (StringType, BinaryType)
    if isinstance(kind, MapType) and isinstance(kind.keyType, StringType) and isinstance(kind.valueType, text_or_bytes):
        return F.map_entries("headers").cast(KAFKA_HEADERS_TYPE)
    element = kind.elementType if isinstance(kind, ArrayType) else None
    if (
        isinstance(element, StructType)
        and [f.name for f in element.fields] == ["key", "value"]
        and isinstance(element["key"].dataType, StringType)
        and isinstance(element["value"].dataType, text_or_bytes)
    ):
        return F.col("headers").cast(KAFKA_HEADERS_TYPE)
    raise LandingError(
        f"{item.path}: column headers must be array<struct<key:string,value:binary>> (as Spark's Kafka "
        f"source writes it) or map<string,binary>, not {kind.simpleString()}; rename the column to land "
        "the dump without its headers"
    )


def _resolve_formats(df: "DataFrame", format_id: str, *, decode_bytes: bool = True) -> "DataFrame":
    """Set message_format (declared, or detected for auto) and decode binary messages.

    `decode_bytes=False` (inputs that are all text files, or a declared JSON format) leaves the
    decoder out of the plan: no row then goes through the Python UDF."""
    from pyspark.sql import functions as F

    from cdc_lake.decoders import decode_binary_messages

    if format_id == AUTO:
        # The detector tokens get a column of their own, so that Spark finds them once per message
        # (format_sql tests them many times); null when the text does not look like JSON. The JVM
        # function finds them in one scan, about 4 times faster than detector_tokens_sql's regular
        # expression, with the same result (test_jvm_functions).
        looks_like_text = F.col("message_text").isNotNull() & F.col("message_text").rlike(r"^\s*[\[{]")
        df.sparkSession.sql(
            f"create or replace temporary function {DETECTOR_TOKENS_FUNCTION} as '{DETECTOR_TOKENS_CLASS}'"
        )
        df = df.withColumn("_tokens", F.when(looks_like_text, F.expr(detector_tokens_jvm_sql("message_text"))))
        fmt = F.when(F.col("message_bytes").isNull() & F.col("message_text").isNull(), F.lit(UNKNOWN))
        fmt = fmt.when(F.col("_tokens").isNotNull(), F.expr(format_sql("_tokens", "message_text")))
        fmt = fmt.otherwise(F.lit(AUTO))
    else:
        fmt = F.lit(format_id)
    df = df.withColumn("message_format", fmt).drop("_tokens")
    needs_decoding = F.col("message_format").isin(*BINARY_FORMAT_IDS, AUTO) & F.col("message_bytes").isNotNull()
    df = df.withColumn(
        "message_text", F.when(needs_decoding, F.lit(None).cast("string")).otherwise(F.col("message_text"))
    )
    df = df.withColumn("decode_error", F.lit(None).cast("string"))
    if decode_bytes:
        df = decode_binary_messages(df)
    keep_bytes = F.col("message_format").isin(*BINARY_FORMAT_IDS) | F.col("decode_error").isNotNull()
    return df.withColumn(
        "message_bytes", F.when(keep_bytes, F.col("message_bytes")).otherwise(F.lit(None).cast("binary"))
    ).withColumn(
        "message_format",
        F.when(F.col("message_format") == AUTO, F.lit(UNKNOWN)).otherwise(F.col("message_format")),
    )


def _message_content() -> "Column":
    """A message's bytes: message_bytes, else the bytes of message_text (cast, not encoded)."""
    from pyspark.sql import functions as F

    return F.coalesce(F.col("message_bytes"), F.col("message_text").cast("binary"))


def _with_utf8_check(df: "DataFrame") -> "DataFrame":
    """Mark text that is not UTF-8 as undecodable: it keeps its bytes and no text, and decode_error
    says where the bytes stop being UTF-8 (the JVM function UTF8_ERROR_FUNCTION, called for those
    messages only). parse_error is null: whether a message is JSON is not checked here (staging
    parses every message, and explains the ones that fail)."""
    from pyspark.sql import functions as F

    df.sparkSession.sql(f"create or replace temporary function {UTF8_ERROR_FUNCTION} as '{UTF8_ERROR_CLASS}'")
    df = df.withColumn("_bad_utf8", F.col("message_text").isNotNull() & ~F.expr("is_valid_utf8(message_text)"))
    bad = F.col("_bad_utf8")
    content = _message_content()
    # one projection (Spark analyzes each withColumn on its own); each expression reads the input's columns
    return df.withColumns(
        {
            "message_bytes": F.when(bad, content).otherwise(F.col("message_bytes")),
            "decode_error": F.when(bad, F.call_function(UTF8_ERROR_FUNCTION, content)).otherwise(
                F.col("decode_error")
            ),
            "message_text": F.when(bad, F.lit(None).cast("string")).otherwise(F.col("message_text")),
            "parse_error": F.lit(None).cast("string"),
        }
    ).drop("_bad_utf8")


def write_landing(
    spark: "SparkSession",
    settings: Settings,
    df: "DataFrame",
    report: LandingReport,
    *,
    format_id: str,
    landing_id: str,
    inputs: Sequence[str],
    source_hashes: Sequence[str],
    input_bytes: Sequence[int | None] | None = None,
    input_lines: Sequence[int | None] | None = None,
    input_signatures: Sequence[str | None] | None = None,
    before_commit: Callable[[], None] | None = None,
    say: Callable[[str], None] = print,
    decode_bytes: bool = True,
    notes: Sequence[str] = (),
    lost_offsets: Sequence[tuple[str, int, int, int]] = (),
    sources: Sequence[str] | None = None,
) -> None:
    """Write the messages of `df` as landing `report.landing_seq` and commit it.

    `df` has message_id, source_uri, source_hash, the kafka_* columns, message_index, message_text
    and message_bytes as read. Formats are resolved (and binary messages decoded), text that is not
    UTF-8 is kept as bytes (`_with_utf8_check`), the rows are
    written, `before_commit` runs, and the row in `landings` commits it all. A failure before the
    commit leaves nothing visible (and the next `land` removes the partition).
    `sources`: every source_uri of `df`, when the caller knows them: the report's counts are then
    taken while the rows are written (`_observed_counts`) instead of read back from the table.
    """
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    landing_seq = report.landing_seq
    if "is_kafka_offset_reused" not in df.columns:
        df = df.withColumn("is_kafka_offset_reused", F.lit(False))
    if "kafka_headers" not in df.columns:
        df = df.withColumn("kafka_headers", F.lit(None).cast(KAFKA_HEADERS_TYPE))
    df = _with_utf8_check(_resolve_formats(df, format_id, decode_bytes=decode_bytes))
    # message_text is UTF-8 here (text that is not has been moved to message_bytes), so its bytes
    # are what encode(message_text, 'UTF-8') gives, without decoding and encoding every message.
    content = _message_content()
    df = df.withColumns(
        {
            "landing_id": F.lit(landing_id),
            "landed_at": F.current_timestamp(),
            "declared_format": F.lit(format_id),
            "message_hash": F.sha2(content, 256),
            "landing_seq": F.lit(landing_seq).cast("bigint"),
        }
    )
    df = df.select(*spark.table(settings.raw_table).columns)
    observation = None
    if sources is not None and len(sources) <= MOST_OBSERVED_SOURCES:
        observation = Observation(f"landing {landing_seq}")
        df = df.observe(observation, *_count_columns(sources))
    try:
        with _Progress(spark, say):
            df.write.insertInto(settings.raw_table)
    except Exception:
        spark.sql(f"alter table {settings.raw_table} drop if exists partition (landing_seq={landing_seq})")
        raise
    counts = _observed_counts(observation.get, sources or ()) if observation is not None else None
    by_source, by_format, reused = counts or _counts_read_back(spark, settings, landing_seq)
    for uri, count in by_source.items():
        report.landed[uri] = report.landed.get(uri, 0) + count
    for fmt, count in by_format.items():
        report.by_format[fmt] = report.by_format.get(fmt, 0) + count
    report.reused_offsets += reused
    say(f"landing {landing_seq}: {report.total} message(s) written; committing")
    if before_commit is not None:
        before_commit()
    landings_table = f"{settings.raw_schema}.landings"
    spark.createDataFrame(
        [(landing_seq, landing_id, format_id, list(inputs), list(source_hashes), report.total,
          sorted(report.by_format), list(input_bytes or [None] * len(inputs)),
          list(input_lines or [None] * len(inputs)), list(input_signatures or [None] * len(inputs)),
          list(notes) or None, list(lost_offsets) or None)],
        "landing_seq long, landing_id string, declared_format string, inputs array<string>, "
        "source_hashes array<string>, messages long, formats array<string>, input_bytes array<long>, "
        "input_lines array<long>, input_signatures array<string>, notes array<string>, "
        f"kafka_lost_offsets {KAFKA_LOST_OFFSETS_TYPE}",
    ).withColumn("landed_at", F.current_timestamp()).select(
        *spark.table(landings_table).columns
    ).coalesce(1).write.insertInto(landings_table)


def _count_columns(sources: Sequence[str]) -> list["Column"]:
    """The aggregates `_observed_counts` reads: all messages, those at a reused Kafka offset, and
    the messages of each of `sources` and of each format id (and unknown)."""
    from pyspark.sql import functions as F

    return [
        F.count(F.lit(1)).alias("messages"),
        F.count_if(F.col("is_kafka_offset_reused")).alias("reused"),
        *(F.count_if(F.col("source_uri") == F.lit(uri)).alias(f"source {i}") for i, uri in enumerate(sources)),
        *(
            F.count_if(F.col("message_format") == F.lit(fmt)).alias(f"format {fmt}")
            for fmt in (*FORMAT_IDS, UNKNOWN)
        ),
    ]


# A landing's counts: messages per source_uri and per message_format (those with any), and how
# many are at a reused Kafka offset.
LandingCounts = tuple[dict[str, int], dict[str, int], int]


def _observed_counts(observed: dict[str, int], sources: Sequence[str]) -> LandingCounts | None:
    """The counts `_count_columns` observed; None unless the sources' counts and the formats'
    counts each add up to all messages (a message of another source or format: the caller reads
    the counts back)."""
    by_source = {uri: observed[f"source {i}"] for i, uri in enumerate(sources)}
    by_format = {fmt: observed[f"format {fmt}"] for fmt in (*FORMAT_IDS, UNKNOWN)}
    if sum(by_source.values()) != observed["messages"] or sum(by_format.values()) != observed["messages"]:
        return None
    return (
        {uri: count for uri, count in by_source.items() if count},
        {fmt: count for fmt, count in by_format.items() if count},
        observed["reused"],
    )


def _counts_read_back(spark: "SparkSession", settings: Settings, landing_seq: int) -> LandingCounts:
    """The counts of landing `landing_seq`, read from the landing table (before it commits)."""
    by_source: dict[str, int] = {}
    by_format: dict[str, int] = {}
    reused = 0
    for uri, fmt, count, reused_here in spark.sql(
        f"select source_uri, message_format, count(*), count_if(is_kafka_offset_reused) "
        f"from {settings.raw_table} where landing_seq = {landing_seq} group by source_uri, message_format"
    ).collect():
        by_source[uri] = by_source.get(uri, 0) + count
        by_format[fmt] = by_format.get(fmt, 0) + count
        reused += reused_here
    return by_source, by_format, reused


def next_landing(
    spark: "SparkSession", settings: Settings, landings: Sequence["Row"] | None = None
) -> tuple[int, str]:
    """The sequence number (one above the last committed landing's) and a new id of a landing.
    `landings`: the rows of the landings log (with landing_seq), when the caller has read them."""
    if landings is None:
        last = spark.sql(f"select coalesce(max(landing_seq), 0) from {settings.raw_schema}.landings").collect()[0][0]
    else:
        last = max((r["landing_seq"] for r in landings), default=0)
    return int(last) + 1, f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"


def check_format_id(format_id: str) -> None:
    """A LandingError naming the known format ids unless `format_id` is one of them or `auto`."""
    if format_id == AUTO:
        return
    try:
        get_format(format_id)
    except ValueError as exc:
        raise LandingError(str(exc)) from None


def check_inputs(paths: Sequence[str], format_id: str) -> list[_Checked]:
    """Check the format id and classify every PATH (no more than Parquet footers read), or raise
    LandingError naming the first problem."""
    check_format_id(format_id)
    if not paths:
        raise LandingError("no PATH given: name at least one file or folder to land")
    return [_check_input(p, format_id) for p in paths]


def land_each(
    groups: Sequence[tuple[str, Sequence[str]]],
    *,
    say: Callable[[str], None] = print,
    spark: "SparkSession | None" = None,
    settings: Settings | None = None,
) -> list[LandingReport]:
    """Land each (format id, paths) group as a landing of its own, in order, in one Spark session
    (`cdc-lake land --format a X --format b Y`: one JVM start for all; `spark`, when the caller has
    one). Every group's inputs are checked first, so that a bad PATH in any group lands nothing."""
    checked = [(format_id, check_inputs(paths, format_id)) for format_id, paths in groups]
    return land_checked(checked, say=say, spark=spark, settings=settings)


def land_checked(
    groups: Sequence[tuple[str, Sequence[_Checked]]],
    *,
    say: Callable[[str], None] = print,
    spark: "SparkSession | None" = None,
    settings: Settings | None = None,
) -> list[LandingReport]:
    """`land_each` of inputs already checked (`check_inputs`): all are hashed at once, while Spark
    starts, then each group lands as a landing of its own."""
    from pyspark.sql import SparkSession

    hashings = [_Hashing(inputs) for _, inputs in groups]
    settings = settings or load_settings()
    reports = []
    # without the caller's session, the first landing starts one
    for (format_id, inputs), hashing in zip(groups, hashings):
        paths = [str(item.path) for item in inputs]
        reports.append(land(paths, format_id, spark=spark, settings=settings, say=say, hashing=hashing))
        spark = spark or SparkSession.getActiveSession()
    return reports


def refusal_line(path: str, reason: str) -> str:
    """How a command names an input that a landing refused alone."""
    return f"{path}: not landed: {' '.join(reason.split())} (the other inputs were landed)"


def land(
    paths: Sequence[str],
    format_id: str,
    *,
    spark: "SparkSession | None" = None,
    settings: Settings | None = None,
    say: Callable[[str], None] = print,
    hashing: _Hashing | None = None,
) -> LandingReport:
    """Land every message of `paths` as format `format_id` (or `auto`). See the module docstring.
    `hashing`: the hashing of `check_inputs(paths, format_id)`, when the caller has started it."""
    from pyspark.sql import functions as F

    if hashing is None:
        hashing = _Hashing(check_inputs(paths, format_id))
    for item in hashing.checked:
        if item.left_out:
            say(f"{item.path}: left out {len(item.left_out)} entr(ies): {_listed(item.left_out)}")

    from cdc_lake.spark import get_spark

    settings = settings or load_settings()
    spark = spark or get_spark(settings)
    ensure_tables(spark, settings)
    # the landings log, read once: what committed, what is landed already, the next landing_seq
    landings = spark.sql(
        f"select landing_seq, inputs, source_hashes, input_bytes, input_lines from {settings.raw_schema}.landings"
    ).collect()
    _drop_uncommitted(spark, settings, say, {r["landing_seq"] for r in landings})
    inputs = hashing.result()

    report = LandingReport()
    landed_hashes = {h for r in landings for h in r["source_hashes"]}
    landed_text = _landed_text_files(landings)
    todo: list[LandingInput] = []
    for item in inputs:
        if item.waiting_bytes:
            say(
                f"{item.path}: its last line ({item.waiting_bytes:,} bytes) has no newline yet: it waits "
                "for a later landing, which lands it once it ends with a newline or stays unchanged"
            )
            report.waiting.append(str(item.path))
            if not item.lines:
                continue
        if item.source_hash in landed_hashes or any(t.source_hash == item.source_hash for t in todo):
            say(f"{item.path}: already landed, nothing added")
            report.skipped.append(str(item.path))
            continue
        if str(item.path) in landed_text and item.refused is None:
            item = _grown_from(item, landed_text[str(item.path)], say)
        if item.refused is not None:
            say(f"{item.path}: not landed: {item.refused}")
            report.refused[str(item.path)] = item.refused
        else:
            todo.append(item)
    if not todo:
        return report

    landing_seq, landing_id = next_landing(spark, settings, landings)
    report.landing_seq = landing_seq

    texts = [item for item in todo if item.kind == "text"]
    offsets = {item.source_hash: {0: 0} for item in _read_whole(spark, texts)}
    to_scan = [item for item in texts if item.source_hash not in offsets]
    offsets.update(_scan_text_inputs(spark, to_scan, say=say) if to_scan else {})
    frames = []
    for position, item in enumerate(todo):
        df = _read_input(spark, item, offsets.get(item.source_hash)).withColumn(
            "source_uri", F.lit(str(item.path))
        ).withColumn("source_hash", F.lit(item.source_hash)).withColumn("_input", F.lit(position))
        frames.append(df)
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    df = without_redelivered_records(spark, settings, df, kafka=any(item.kind == "parquet" for item in todo))

    say(f"landing {len(todo)} input(s) as landing {landing_seq} ({landing_id}), format {format_id}")
    write_landing(
        spark,
        settings,
        df.withColumn("message_id", message_id_column()).drop("_input", "_content_hash"),
        report,
        format_id=format_id,
        landing_id=landing_id,
        inputs=[str(i.path) for i in todo],
        source_hashes=[i.source_hash for i in todo],
        input_bytes=[i.size for i in todo],
        input_lines=[i.lines for i in todo],
        input_signatures=[i.signature for i in todo],
        say=say,
        # bytes to decode come only from Kafka dumps and binary folders, in a binary format or auto
        decode_bytes=(format_id == AUTO or format_id in BINARY_FORMAT_IDS)
        and any(item.kind != "text" for item in todo),
        sources=[str(item.path) for item in todo],
    )
    for item in todo:
        say(f"{item.path}: {report.landed.get(str(item.path), 0)} message(s) landed")
    formats = ", ".join(f"{k}={v}" for k, v in sorted(report.by_format.items()))
    say(f"landing {landing_seq} committed: {report.total} message(s) ({formats})")
    if report.reused_offsets:
        say(
            f"landing {landing_seq}: {report.reused_offsets} Kafka record(s) at an offset already landed with "
            "other content (a re-created topic?): landed as messages of their own (message_id "
            "topic/partition/offset#hash), counted in cdc_landing_audit.reused_offset_messages"
        )
    return report


def message_id_column() -> "Column":
    """topic/partition/offset for a Kafka record, else a file-hash prefix and the message_index; a
    record at a reused offset names its content too (it is not the record landed first). Reads the
    columns of `without_redelivered_records`' result."""
    from pyspark.sql import functions as F

    message_id = F.when(
        F.col("kafka_topic").isNotNull(),
        F.concat_ws("/", "kafka_topic", "kafka_partition", "kafka_offset"),
    ).otherwise(F.concat(F.substring("source_hash", 1, 16), F.lit(":"), F.col("message_index")))
    return F.when(
        F.col("is_kafka_offset_reused"),
        F.concat(message_id, F.lit("#"), F.coalesce(F.substring("_content_hash", 1, 16), F.lit("null"))),
    ).otherwise(message_id)


def without_redelivered_records(
    spark: "SparkSession", settings: Settings, df: "DataFrame", *, kafka: bool
) -> "DataFrame":
    """The rows of `df` less the Kafka records delivered before, each flagged
    is_kafka_offset_reused (and given _content_hash, the SHA-256 of its value).

    A Kafka record is re-delivered when its topic, partition and offset, and its bytes, were
    landed before or come earlier in this landing: it is landed once. A record at an offset that
    holds other bytes (a re-created topic numbers its records from 0 again) is another message:
    it lands, with is_kafka_offset_reused. The first record landed at an offset is not flagged;
    within one landing, the one of the first input (then the lowest hash) is the first. Without
    `kafka` (no Kafka dump among the inputs) the landing table is not read."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    others = df.where(F.col("kafka_topic").isNull()).withColumn(
        "_content_hash", F.lit(None).cast("string")
    ).withColumn("is_kafka_offset_reused", F.lit(False))
    if not kafka:
        return others
    record = ["kafka_topic", "kafka_partition", "kafka_offset"]
    # a Kafka value's bytes as read: what the landing table's message_hash hashes (write_landing)
    records = df.where(F.col("kafka_topic").isNotNull()).withColumn(
        "_content_hash", F.sha2(F.col("message_bytes"), 256)
    )
    landed = (
        spark.table(settings.raw_table)
        .where(F.col("kafka_topic").isNotNull())
        .groupBy(*record)
        .agg(F.collect_set(F.coalesce("message_hash", F.lit(""))).alias("_landed_hashes"))
    )
    records = records.join(landed, record, "left").where(
        ~F.coalesce(F.array_contains("_landed_hashes", F.coalesce("_content_hash", F.lit(""))), F.lit(False))
    )
    # both windows partition as the join does: the new records are shuffled once
    by_record = Window.partitionBy(*record)
    by_content = by_record.orderBy("_content_hash", "_input", "message_index")
    first_content = F.min(F.struct("_input", "_content_hash")).over(by_record)["_content_hash"]
    repeated = F.lag("_content_hash").over(by_content).eqNullSafe(F.col("_content_hash")) & (
        F.row_number().over(by_content) > 1
    )
    records = records.withColumn(
        "is_kafka_offset_reused",
        F.col("_landed_hashes").isNotNull() | ~first_content.eqNullSafe(F.col("_content_hash")),
    ).withColumn("_repeated", repeated)
    records = records.where(~F.col("_repeated")).drop("_landed_hashes", "_repeated")
    return others.unionByName(records)


def _landed_text_files(landings: Sequence["Row"]) -> dict[str, list[tuple[int, int, str, int]]]:
    """Per path, each landing of it as a plain text file: (bytes, lines, source hash, landing_seq)."""
    landed: dict[str, list[tuple[int, int, str, int]]] = {}
    for row in landings:
        sizes, lines = row["input_bytes"] or [], row["input_lines"] or []
        for path, source_hash, size, count in zip(row["inputs"], row["source_hashes"], sizes, lines):
            if size is not None and count is not None:
                landed.setdefault(path, []).append((size, count, source_hash, row["landing_seq"]))
    return landed


def landed_signatures(spark: "SparkSession", settings: Settings) -> dict[str, str]:
    """Per input path landed (committed), the signature its latest landing recorded
    (`landings.input_signatures`); paths whose latest landing recorded none are left out."""
    ensure_tables(spark, settings)
    rows = spark.sql(
        f"select landing_seq, inputs, input_signatures from {settings.raw_schema}.landings "
        "where input_signatures is not null order by landing_seq"
    ).collect()
    signatures: dict[str, str] = {}
    for row in rows:
        for path, signature in zip(row["inputs"], row["input_signatures"]):
            if signature is None:
                signatures.pop(path, None)
            else:
                signatures[path] = signature
    return signatures


def _prefix(path: Path, size: int) -> tuple[str, bytes, bytes]:
    """The SHA-256 of a file's first `size` bytes, the last of them and the byte after them."""
    digest = hashlib.sha256()
    last = b""
    with path.open("rb") as handle:
        left = size
        while left:
            block = handle.read(min(left, 1 << 20))
            if not block:
                break
            digest.update(block)
            last = block[-1:]
            left -= len(block)
        return digest.hexdigest(), last, handle.read(1)


def _grown_from(
    item: LandingInput, landed: Sequence[tuple[int, int, str, int]], say: Callable[[str], None]
) -> LandingInput:
    """A plain text file landed before under this path, and changed since. If it starts with the
    bytes a landing of it held (it was appended to), only its new lines land, numbered on from
    there (`skip_lines`); if its last landed line had no newline and has been continued, it is
    refused (that message was landed cut). A file whose start differs from every landing of it
    (rewritten, or rotated under the same name) is a new input and lands whole."""
    if item.size is None:  # a .gz file: not compared
        say(f"{item.path}: changed since it was landed (a gzip file is not compared): landed whole as a new input")
        return item
    for size, lines, source_hash, landing_seq in sorted(landed, reverse=True):
        if size == 0 or size > item.size:
            continue
        digest, last, following = _prefix(item.path, size)
        if digest != source_hash:
            continue
        if last != b"\n" and following != b"\n":
            return replace(
                item,
                refused=f"it grew since landing {landing_seq}, which landed its last line {lines} without "
                "a newline, and that line has been continued since: land the file under a new name, or "
                "append whole lines only",
            )
        say(
            f"{item.path}: grew since landing {landing_seq} (its first {size} bytes, lines 1-{lines}, were "
            f"landed then): landing the lines after {lines} only"
        )
        return replace(item, skip_lines=lines)
    say(
        f"{item.path}: changed since it was landed (its start differs from every landing of it): "
        "landed whole as a new input"
    )
    return item


def iter_paths(paths: Iterable[str]) -> list[str]:
    """The PATH arguments as a list (kept for symmetry with the CLI)."""
    return list(paths)
