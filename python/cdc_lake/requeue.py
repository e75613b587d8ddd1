"""`cdc-lake requeue`: land quarantined messages again, after a fix.

A message is quarantined with its raw text or bytes (see the cdc_quarantine model). Once the
cause is fixed (a key added to seeds/cdc_table_keys.csv, a format id corrected, a decoder or
staging model repaired), `requeue` lands the selected messages again, as a new landing, from the
raw landing table, and records each original message_id in `<raw schema>.requeued`. cdc_quarantine
then leaves the originals out, and cdc_landing_audit counts them as requeued, so nothing is counted
twice; the next `dbt build` processes the new copies like any landed message.

The new copy keeps the original provenance (file or topic/partition/offset, position) and gets the
message_id `<original id>#requeue<landing_seq>`. The requeue landing commits like any landing (its
row in `landings` is written last), so an interrupted requeue leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cdc_lake.land import (
    LandingError,
    LandingReport,
    _drop_uncommitted,
    check_format_id,
    ensure_tables,
    next_landing,
    write_landing,
)
from cdc_lake.settings import Settings, load_settings
from cdc_lake.sql import sql_string

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def requeue(
    *,
    reason_like: str | None = None,
    source_format: str | None = None,
    as_format: str | None = None,
    dry_run: bool = False,
    spark: "SparkSession | None" = None,
    settings: Settings | None = None,
    say: Callable[[str], None] = print,
) -> list[LandingReport]:
    """Land the quarantined messages that match again; one landing per format landed as.

    reason_like: a SQL LIKE pattern on cdc_quarantine.reason (e.g. 'key column(s)%').
    source_format: only messages cdc_quarantine lists under this source_format (e.g. unknown).
    as_format: land them as this format (or auto) instead of the format they were landed as.
    """
    from pyspark.sql import functions as F

    if as_format is not None:
        check_format_id(as_format)

    from cdc_lake.spark import get_spark

    settings = settings or load_settings()
    spark = spark or get_spark(settings)
    quarantine = f"{settings.schema}.cdc_quarantine"
    if not spark.catalog.tableExists(quarantine):
        raise LandingError(f"{quarantine} does not exist: run `dbt build` first")
    ensure_tables(spark, settings)
    _drop_uncommitted(spark, settings, say)

    committed = f"select landing_seq from {settings.raw_schema}.landings"
    conditions = [
        f"message_id not in (select message_id from {settings.raw_schema}.requeued "
        f"where landing_seq in ({committed}))"
    ]
    if reason_like is not None:
        conditions.append(f"reason like {sql_string(reason_like)}")
    if source_format is not None:
        conditions.append(f"source_format = {sql_string(source_format)}")
    selected = spark.sql(
        f"select message_id, concat_ws('; ', array_sort(collect_set(reason))) as reason "
        f"from {quarantine} where {' and '.join(conditions)} group by message_id"
    )
    raw = spark.sql(f"select * from {settings.raw_table} where landing_seq in ({committed})")
    rows = raw.join(selected, "message_id").withColumn(
        "land_as", F.lit(as_format) if as_format else F.col("declared_format")
    )
    rows = rows.persist()
    try:
        plan = sorted(
            (r[0], r[1]) for r in rows.groupBy("land_as").count().collect()
        )
        if not plan:
            say("no quarantined message matches: nothing requeued")
            return []
        for fmt, count in plan:
            say(f"{count} quarantined message(s) to land again as {fmt}")
        if dry_run:
            return []
        return [_requeue_as(spark, settings, rows, fmt, reason_like, source_format, say) for fmt, _ in plan]
    finally:
        rows.unpersist()


def _requeue_as(
    spark: "SparkSession",
    settings: Settings,
    rows: "object",
    format_id: str,
    reason_like: str | None,
    source_format: str | None,
    say: Callable[[str], None],
) -> LandingReport:
    from pyspark.sql import functions as F

    landing_seq, landing_id = next_landing(spark, settings)
    report = LandingReport(landing_seq=landing_seq)
    # The message as it was read: its bytes when it had bytes (binary formats, text that was
    # not UTF-8), else its text; exactly what _read_input gives for a Kafka value.
    original = rows.where(F.col("land_as") == format_id)  # type: ignore[attr-defined]
    raw_bytes = F.coalesce(F.col("message_bytes"), F.col("message_text").cast("binary"))
    new_id = F.concat(F.col("message_id"), F.lit(f"#requeue{landing_seq}"))
    df = original.select(
        new_id.alias("message_id"),
        "source_uri",
        "source_hash",
        "kafka_topic",
        "kafka_partition",
        "kafka_offset",
        "kafka_key",
        "kafka_timestamp",
        "message_index",
        raw_bytes.cast("string").alias("message_text"),
        raw_bytes.alias("message_bytes"),
    )
    marks = original.select(
        F.col("message_id"),
        new_id.alias("requeued_as"),
        F.current_timestamp().alias("requeued_at"),
        F.col("reason"),
        F.lit(landing_seq).cast("bigint").alias("landing_seq"),
    )

    def mark_requeued() -> None:
        marks.select(*spark.table(f"{settings.raw_schema}.requeued").columns).write.insertInto(
            f"{settings.raw_schema}.requeued"
        )

    filters = ", ".join(
        f for f in (
            f"reason like {reason_like!r}" if reason_like is not None else "",
            f"source_format {source_format}" if source_format is not None else "",
        ) if f
    )
    say(f"requeueing as landing {landing_seq} ({landing_id}), format {format_id}")
    write_landing(
        spark,
        settings,
        df,
        report,
        format_id=format_id,
        landing_id=landing_id,
        inputs=[f"requeue of quarantined messages{' (' + filters + ')' if filters else ''}"],
        source_hashes=[],
        before_commit=mark_requeued,
        say=say,
    )
    formats = ", ".join(f"{k}={v}" for k, v in sorted(report.by_format.items()))
    say(
        f"landing {landing_seq} committed: {report.total} quarantined message(s) landed again "
        f"({formats}); run `dbt build` to process them"
    )
    return report
