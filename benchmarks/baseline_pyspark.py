"""Benchmark baseline (a): a plain hand-written PySpark job over Canal and Debezium JSON messages.

    python benchmarks/baseline_pyspark.py --canal FILE.jsonl --debezium FILE.jsonl --out DIR

What a data engineer would write by hand for one pipeline: `from_json` with a fixed schema per
format, flatten to one row per row change (Canal's `data` array exploded, Debezium's envelope
unwrapped, with or without `schema`), then

- DIR/changes: the flattened changes (Parquet);
- DIR/history: a windowed SCD2 (row_number for the version, lead() for valid_to) (Parquet);
- DIR/current: the latest row per key, deleted keys dropped (Parquet).

Debezium messages in a JSON-lines dump carry no Kafka key, so the job hard-codes the key columns of
the benchmark's tables. It does none of what cdc-lake adds: no exact text for bare JSON numbers
(from_json renders them through a double), no quarantine, no DDL, no provenance, no other formats,
no data tests. It runs with the same Spark settings as cdc-lake (python/cdc_lake/settings.py,
read from the same CDC_LAKE_* environment variables), without a metastore.

With --layered it is step (a2) of benchmarks/run.py, the same job writing the layers a cdc-lake
build writes (see LAYERED).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Sequence

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR / "python"))

# The key columns of the benchmark's tables (benchmarks/generate.py), for Debezium without Kafka keys.
TABLE_KEYS = {"orders": ["id"], "customers": ["id"], "order_lines": ["order_id", "line_no"]}
KEY = ["source_database", "source_table", "primary_key"]

LAYERED = """
write the layers of a cdc-lake build, each with the least work: the landing table, a staging table
per format, the keyed changes, the history and the current rows.

The landing table holds every message text with its format, file, position and landing time; each
staging table is parsed from it and keeps that provenance; the changes are the staging rows with
their keys. Nothing else: no deduplication, exact digits, quarantine, DDL, audit or data tests.
So the job costs what writing and reading those layers costs: a floor under any build that
materializes them. cdc-lake's build also writes the keyed changes before their deduplication and
its bookkeeping tables (message outcomes, column observations, conversion checks, audit).
"""

CANAL_SCHEMA = """struct<
    data: array<map<string, string>>, old: array<map<string, string>>, database: string,
    `table`: string, type: string, isDdl: boolean, pkNames: array<string>, es: bigint, ts: bigint,
    id: bigint
>"""
DEBEZIUM_ENVELOPE = """before: map<string, string>, after: map<string, string>,
    source: struct<db: string, `table`: string, file: string, pos: bigint, `row`: int, ts_ms: bigint>,
    op: string, ts_ms: bigint"""
DEBEZIUM_SCHEMA = f"struct<payload: struct<{DEBEZIUM_ENVELOPE}>, {DEBEZIUM_ENVELOPE}>"


def spark_session():
    from pyspark.sql import SparkSession

    from cdc_lake.settings import load_settings

    settings = load_settings()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("cdc-lake-baseline").master(
        os.environ.get("CDC_LAKE_SPARK_MASTER", "local[*]")
    )
    for key, value in settings.spark_conf().items():
        if key.startswith("spark.hadoop.javax.jdo") or key == "spark.sql.warehouse.dir":
            continue  # no metastore: the baseline writes plain Parquet folders
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def canal_changes(lines, keep: Sequence[str] = ()):
    """Canal's row changes from a DataFrame of message texts (`value`), with the columns `keep`."""
    from pyspark.sql import functions as F

    messages = lines.select(F.from_json("value", CANAL_SCHEMA.replace("\n", " ")).alias("m"), *keep)
    dml = messages.where(F.col("m.type").isin("INSERT", "UPDATE", "DELETE") & ~F.coalesce("m.isDdl", F.lit(False)))
    rows = dml.select(
        "m.*", F.posexplode("m.data").alias("row_index", "data_row"), *keep
    ).withColumn("old_row", F.expr("try_element_at(old, row_index + 1)"))
    before = F.when(
        F.col("type") == "UPDATE",
        F.expr(
            "map_concat(map_filter(data_row, (k, v) -> not array_contains(map_keys(coalesce(old_row, map())), k)), "
            "coalesce(old_row, map()))"
        ),
    ).when(F.col("type") == "DELETE", F.col("data_row"))
    return rows.select(
        F.col("database").alias("source_database"),
        F.col("table").alias("source_table"),
        F.lower("type").alias("op"),
        F.col("pkNames").alias("key_columns"),
        before.alias("before"),
        F.when(F.col("type") != "DELETE", F.col("data_row")).alias("after"),
        F.timestamp_millis("es").alias("event_ts"),
        F.col("id").alias("log_pos"),
        F.col("row_index").cast("int").alias("row_index"),
        *keep,
    )


def debezium_changes(lines, keep: Sequence[str] = ()):
    """Debezium's row changes from a DataFrame of message texts (`value`), with the columns `keep`."""
    from pyspark.sql import functions as F

    messages = lines.select(F.from_json("value", DEBEZIUM_SCHEMA.replace("\n", " ")).alias("m"), *keep)
    envelope = messages.select(
        F.when(F.col("m.payload").isNotNull(), F.col("m.payload")).otherwise(
            F.struct(*[F.col(f"m.{name}").alias(name) for name in ("before", "after", "source", "op", "ts_ms")])
        ).alias("e"),
        *keep,
    ).select("e.*", *keep)
    keys = F.create_map(*[x for table, cols in TABLE_KEYS.items() for x in (F.lit(table), F.array(*map(F.lit, cols)))])
    ops = F.create_map(F.lit("c"), F.lit("insert"), F.lit("r"), F.lit("insert"), F.lit("u"), F.lit("update"), F.lit("d"), F.lit("delete"))
    return envelope.where(F.col("op").isin("c", "r", "u", "d")).select(
        F.col("source.db").alias("source_database"),
        F.col("source.table").alias("source_table"),
        ops[F.col("op")].alias("op"),
        keys[F.col("source.table")].alias("key_columns"),
        F.when(F.col("op").isin("u", "d"), F.col("before")).alias("before"),
        F.when(F.col("op") != "d", F.col("after")).alias("after"),
        F.timestamp_millis(F.coalesce("source.ts_ms", "ts_ms")).alias("event_ts"),
        F.col("source.pos").alias("log_pos"),
        F.coalesce(F.col("source.row"), F.lit(0)).alias("row_index"),
        *keep,
    )


def keyed(changes):
    """The row changes with their primary key (JSON of the key values) and row image."""
    from pyspark.sql import functions as F

    image = F.coalesce("after", "before")
    return changes.withColumn(
        "primary_key", F.to_json(F.transform("key_columns", lambda k: image[k]))
    ).withColumn("row", F.when(F.col("op") == "delete", F.col("before")).otherwise(F.col("after")))


def history_of(flat):
    """The windowed SCD2: one row per change, numbered per key, valid until the key's next change."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    in_order = Window.partitionBy(*KEY).orderBy("event_ts", "log_pos", "row_index")
    return (
        flat.withColumn("version_number", F.row_number().over(in_order))
        .withColumn("valid_from", F.col("event_ts"))
        .withColumn("valid_to", F.lead("event_ts").over(in_order))
        .select(
            *KEY,
            "version_number",
            "row",
            "op",
            "valid_from",
            "valid_to",
            F.col("valid_to").isNull().alias("is_current"),
            (F.col("op") == "delete").alias("is_deleted"),
        )
    )


def current_of(flat):
    """The latest row per key, deleted keys dropped."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    latest_first = Window.partitionBy(*KEY).orderBy(
        F.col("event_ts").desc(), F.col("log_pos").desc(), F.col("row_index").desc()
    )
    return (
        flat.withColumn("_rank", F.row_number().over(latest_first))
        .where((F.col("_rank") == 1) & (F.col("op") != "delete"))
        .select(*KEY, "row", F.col("event_ts").alias("last_changed_ts"), F.col("op").alias("last_op"))
    )


def _write(frame, path: Path, timings: dict[str, float | int], name: str) -> None:
    step = time.monotonic()
    frame.write.mode("overwrite").parquet(str(path))
    timings[f"{name}_s"] = round(time.monotonic() - step, 1)


def _changes(canal_lines, debezium_lines):
    """The row changes of both formats, from DataFrames of their message texts (None: no input)."""
    frames = []
    if canal_lines is not None:
        frames.append(canal_changes(canal_lines))
    if debezium_lines is not None:
        frames.append(debezium_changes(debezium_lines))
    changes = frames[0]
    for other in frames[1:]:
        changes = changes.unionByName(other)
    return changes


def run(canal: list[str], debezium: list[str], out: Path, *, layered: bool = False) -> dict[str, float | int]:
    """Run the job; `layered` writes the layers cdc-lake's build writes (see LAYERED)."""
    from pyspark.sql import functions as F

    timings: dict[str, float | int] = {}
    started = time.monotonic()
    spark = spark_session()
    timings["spark_start_s"] = round(time.monotonic() - started, 1)
    if out.exists():
        shutil.rmtree(out)

    if not layered:
        changes = _changes(
            spark.read.text(canal) if canal else None,
            spark.read.text(debezium) if debezium else None,
        )
        _write(keyed(changes), out / "changes", timings, "changes")
    else:
        # the landing table: every message as it came, with its file, position and landing time
        inputs = [(path, "canal") for path in canal] + [(path, "debezium") for path in debezium]
        landing = None
        for path, kind in inputs:
            lines = spark.read.text(path).select(
                F.col("value").alias("message_text"),
                F.lit(kind).alias("source_format"),
                F.lit(path).alias("source_uri"),
                F.monotonically_increasing_id().alias("message_index"),
                F.current_timestamp().alias("landed_at"),
            )
            landing = lines if landing is None else landing.unionByName(lines)
        _write(landing, out / "landing", timings, "landing")
        # one staging table per format, parsed from the landing table, with the message's provenance
        landed = spark.read.parquet(str(out / "landing")).withColumnRenamed("message_text", "value")
        provenance = ("source_uri", "message_index", "landed_at")
        for kind, parse in (("canal", canal_changes), ("debezium", debezium_changes)):
            if any(k == kind for _, k in inputs):
                staged = parse(landed.where(F.col("source_format") == kind), provenance)
                _write(staged, out / f"staging_{kind}", timings, f"staging_{kind}")
        # the row changes of every format, keyed
        staged_folders = [out / f"staging_{kind}" for kind in ("canal", "debezium")]
        staging = [spark.read.parquet(str(folder)) for folder in staged_folders if folder.exists()]
        changes = staging[0]
        for other in staging[1:]:
            changes = changes.unionByName(other)
        _write(keyed(changes), out / "changes", timings, "changes")

    flat = spark.read.parquet(str(out / "changes"))
    _write(history_of(flat), out / "history", timings, "history")
    _write(current_of(flat), out / "current", timings, "current")

    for name in ("changes", "history", "current"):
        timings[f"{name}_rows"] = spark.read.parquet(str(out / name)).count()
    spark.stop()
    timings["total_s"] = round(time.monotonic() - started, 1)
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--canal", nargs="*", default=[], help="Canal FlatMessage JSON-lines files")
    parser.add_argument("--debezium", nargs="*", default=[], help="Debezium JSON-lines files")
    parser.add_argument("--out", type=Path, required=True, help="output folder (replaced)")
    parser.add_argument(
        "--layered",
        action="store_true",
        help="write the layers a cdc-lake build writes (landing, staging per format, keyed changes, "
        "history, current), each with the least work: step (a2) of benchmarks/run.py",
    )
    args = parser.parse_args(argv)
    if not args.canal and not args.debezium:
        parser.error("give at least one --canal or --debezium file")
    timings = run(args.canal, args.debezium, args.out, layered=args.layered)
    print(json.dumps(timings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
