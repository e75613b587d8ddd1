"""`cdc-lake land --kafka`: land Kafka topics from a broker, each record exactly once.

Per topic partition, a landing reads from the offset after the last one landed (in committed
landings; a partition never landed starts at its earliest offset) to the partition's end offset,
fetched once before reading: what a landing covers is fixed, and recorded in `landings.inputs`
(`kafka://BOOTSTRAP/TOPIC/PARTITION?offsets=START-END`, END exclusive). The rows go through
land.py's write and commit (`write_landing`): a landing that never committed is removed by the next
`land`, and its records are read again, so a kill at any point then a re-run lands each record
once; a re-run without new records lands nothing. A partition whose earliest offset is past the
last landed one (the broker deleted records before they were landed) is landed from its earliest
offset and reported: on stderr and in `landings.notes`; so is a partition landed for the first
time in a topic landed before. The lost offsets are recorded in `landings.kafka_lost_offsets`
(cdc_landing_audit counts them per partition), also by a landing of no record when nothing
followed them, and count as landed for the next landing's start: a loss is recorded once.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cdc_lake.formats import AUTO, BINARY_FORMAT_IDS
from cdc_lake.land import (
    KAFKA_HEADERS_TYPE,
    LandingError,
    LandingReport,
    _drop_uncommitted,
    check_format_id,
    ensure_tables,
    message_id_column,
    next_landing,
    without_redelivered_records,
    write_landing,
)
from cdc_lake.settings import Settings, load_settings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

BROKER_TIMEOUT_S = 30
"""How long the broker may take to answer the offset requests before the landing gives up."""


@dataclass(frozen=True)
class PartitionRange:
    """What one landing reads of one topic partition: offsets [start, end)."""

    topic: str
    partition: int
    start: int
    end: int
    lost: tuple[int, int] | None = None
    """Offsets [from, to) deleted by the broker before they were landed (retention)."""
    is_new: bool = False
    """No record of this partition was landed before, in a topic landed before."""
    landed_past_end: int | None = None
    """The last offset landed, when it is at or past the partition's end (a re-created topic)."""

    @property
    def uri_suffix(self) -> str:
        return f"{self.topic}/{self.partition}?offsets={self.start}-{self.end}"


def land_kafka(
    bootstrap: str,
    topics: Sequence[str],
    format_id: str,
    *,
    spark: "SparkSession | None" = None,
    settings: Settings | None = None,
    say: Callable[[str], None] = print,
    warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    timeout_s: float = BROKER_TIMEOUT_S,
    before_commit: Callable[[], None] | None = None,
) -> LandingReport:
    """Land every record of `topics` not landed yet, as format `format_id` (or `auto`)."""
    check_format_id(format_id)
    topics = list(dict.fromkeys(topics))
    if not topics:
        raise LandingError("no --topic given: name at least one Kafka topic to land")
    from cdc_lake.spark import get_spark

    settings = settings or load_settings()
    spark = spark or get_spark(settings)
    offsets = broker_offsets(spark, bootstrap, topics, timeout_s)
    ensure_tables(spark, settings)
    _drop_uncommitted(spark, settings, say)
    ranges = plan_ranges(offsets, landed_offsets(spark, settings, topics))
    notes = [note for r in ranges for note in _notes(r)]
    for note in notes:
        warn(f"cdc-lake land: {note}")
    # a partition with lost offsets and nothing after them is landed too, with no record: the
    # landing records the loss (kafka_lost_offsets) once, and later landings start after it
    todo = [r for r in ranges if r.end > r.start or r.lost]
    report = LandingReport()
    for topic in topics:
        count = sum(r.end - r.start for r in todo if r.topic == topic)
        say(f"kafka topic {topic}: {count} offset(s) to read" if count else f"kafka topic {topic}: nothing new")
    if not todo:
        return report
    landing_seq, landing_id = next_landing(spark, settings)
    report.landing_seq = landing_seq
    inputs = [f"kafka://{bootstrap}/{r.uri_suffix}" for r in todo]
    df = without_redelivered_records(spark, settings, read_ranges(spark, bootstrap, todo), kafka=True)
    say(f"landing {len(todo)} Kafka partition(s) as landing {landing_seq} ({landing_id}), format {format_id}")
    write_landing(
        spark,
        settings,
        df.withColumn("message_id", message_id_column()).drop("_input", "_content_hash"),
        report,
        format_id=format_id,
        landing_id=landing_id,
        inputs=inputs,
        source_hashes=[_range_hash(uri) for uri in inputs],
        before_commit=before_commit,
        say=say,
        decode_bytes=format_id == AUTO or format_id in BINARY_FORMAT_IDS,
        notes=notes,
        lost_offsets=[(r.topic, r.partition, *r.lost) for r in ranges if r.lost],
        sources=[_topic_uri(bootstrap, topic) for topic in topics],
    )
    for topic in topics:
        say(f"kafka topic {topic}: {report.landed.get(_topic_uri(bootstrap, topic), 0)} message(s) landed")
    formats = ", ".join(f"{k}={v}" for k, v in sorted(report.by_format.items()))
    say(f"landing {landing_seq} committed: {report.total} message(s) ({formats})")
    return report


def broker_offsets(
    spark: "SparkSession", bootstrap: str, topics: Sequence[str], timeout_s: float
) -> dict[tuple[str, int], tuple[int, int]]:
    """(earliest, end) offset per (topic, partition), asked once of the broker with kafka-clients.

    A broker that does not answer within `timeout_s`, or a topic it does not have, is a
    LandingError (nothing is landed)."""
    from py4j.protocol import Py4JJavaError

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    timeout_ms = str(int(timeout_s * 1000))
    props = jvm.java.util.Properties()
    for key, value in {
        "bootstrap.servers": bootstrap,
        "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
        "value.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
        "allow.auto.create.topics": "false",
        "request.timeout.ms": timeout_ms,
        "default.api.timeout.ms": timeout_ms,
        "client.id": "cdc-lake-land",
    }.items():
        props.setProperty(key, value)
    wait = jvm.java.time.Duration.ofMillis(int(timeout_ms))
    try:
        consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer(props)
    except Py4JJavaError as exc:
        raise LandingError(f"--kafka {bootstrap}: {exc.java_exception.getMessage()}") from None
    try:
        partitions = jvm.java.util.ArrayList()
        for topic in topics:
            infos = consumer.partitionsFor(topic, wait)
            if infos is None or infos.isEmpty():
                raise LandingError(
                    f"topic {topic} does not exist on the Kafka broker {bootstrap}: check --topic"
                )
            for info in infos:
                partitions.add(jvm.org.apache.kafka.common.TopicPartition(topic, info.partition()))
        earliest = consumer.beginningOffsets(partitions, wait)
        ends = consumer.endOffsets(partitions, wait)
        return {
            (tp.topic(), int(tp.partition())): (int(earliest.get(tp)), int(ends.get(tp))) for tp in partitions
        }
    except Py4JJavaError as exc:
        if "TimeoutException" in str(exc.java_exception.getClass().getName()):
            raise LandingError(
                f"the Kafka broker {bootstrap} did not answer within {timeout_s:g} s: check --kafka "
                "(host:port of a broker) and that the broker is up; nothing was landed"
            ) from None
        raise
    finally:
        consumer.close()


def landed_offsets(spark: "SparkSession", settings: Settings, topics: Sequence[str]) -> dict[tuple[str, int], int]:
    """The last offset landed per (topic, partition) of `topics`, in committed landings: of a
    landed record, or the last of the offsets a landing recorded as lost (deleted by retention)."""
    from pyspark.sql import functions as F

    landings = spark.table(f"{settings.raw_schema}.landings")
    records = (
        spark.table(settings.raw_table)
        .where(F.col("kafka_topic").isin(*topics) & F.col("kafka_offset").isNotNull())
        .join(landings.select("landing_seq"), "landing_seq", "left_semi")
        .select("kafka_topic", "kafka_partition", "kafka_offset")
    )
    lost = (
        landings.select(F.explode("kafka_lost_offsets").alias("lost"))
        .where(F.col("lost.kafka_topic").isin(*topics))
        .select("lost.kafka_topic", "lost.kafka_partition", (F.col("lost.end_offset") - 1).alias("kafka_offset"))
    )
    rows = records.unionByName(lost).groupBy("kafka_topic", "kafka_partition").agg(F.max("kafka_offset")).collect()
    return {(r[0], int(r[1])): int(r[2]) for r in rows}


def plan_ranges(
    offsets: dict[tuple[str, int], tuple[int, int]], landed: dict[tuple[str, int], int]
) -> list[PartitionRange]:
    """Each partition's range: after its last landed offset (or from its earliest) to its end."""
    landed_topics = {topic for topic, _ in landed}
    ranges = []
    for (topic, partition), (earliest, end) in sorted(offsets.items()):
        last = landed.get((topic, partition))
        if last is None:
            # in a topic landed before, a new partition's offsets before its earliest were never landed
            is_new = topic in landed_topics
            lost = (0, earliest) if is_new and earliest > 0 else None
            ranges.append(PartitionRange(topic, partition, earliest, end, lost=lost, is_new=is_new))
        elif earliest > last + 1:
            ranges.append(PartitionRange(topic, partition, earliest, end, lost=(last + 1, earliest)))
        else:
            past_end = last if end <= last else None
            ranges.append(PartitionRange(topic, partition, last + 1, max(end, last + 1), landed_past_end=past_end))
    return ranges


def _notes(r: PartitionRange) -> list[str]:
    notes = []
    if r.lost is not None:
        notes.append(
            f"kafka {r.topic}/{r.partition}: offsets {r.lost[0]} to {r.lost[1] - 1} "
            f"({r.lost[1] - r.lost[0]} record(s) at most) were deleted by the broker (retention) before "
            f"they were landed; landing from offset {r.start}"
        )
    if r.landed_past_end is not None:
        notes.append(
            f"kafka {r.topic}/{r.partition}: its end offset is at or below offset {r.landed_past_end}, "
            "already landed (a re-created topic?): its records up to there are not landed from the "
            "broker; land them from a dump (Parquet) if they are new"
        )
    if r.is_new:
        notes.append(f"kafka {r.topic}/{r.partition}: a new partition, landed from its earliest offset {r.start}")
    return notes


def read_ranges(spark: "SparkSession", bootstrap: str, ranges: Sequence[PartitionRange]) -> "DataFrame":
    """The records of `ranges` as rows of land.py's inputs (kafka_*, message_index, message_text,
    message_bytes, source_uri, source_hash, _input), read by Spark's Kafka source. A record the
    broker deleted since the offsets were asked fails the read (failOnDataLoss): nothing lands, and
    the next run reports it."""
    from pyspark.sql import functions as F

    assign: dict[str, list[int]] = {}
    starting: dict[str, dict[str, int]] = {}
    ending: dict[str, dict[str, int]] = {}
    for r in ranges:
        assign.setdefault(r.topic, []).append(r.partition)
        starting.setdefault(r.topic, {})[str(r.partition)] = r.start
        ending.setdefault(r.topic, {})[str(r.partition)] = r.end
    df = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", json.dumps(assign))
        .option("startingOffsets", json.dumps(starting))
        .option("endingOffsets", json.dumps(ending))
        .option("includeHeaders", "true")
        .load()
    )
    uris = {(r.topic, r.partition): f"kafka://{bootstrap}/{r.uri_suffix}" for r in ranges}
    hash_of = F.create_map(
        *[x for (topic, partition), uri in uris.items() for x in (F.lit(f"{topic}/{partition}"), F.lit(_range_hash(uri)))]
    )
    part_key = F.concat_ws("/", F.col("topic"), F.col("partition"))
    return df.select(
        F.col("topic").alias("kafka_topic"),
        F.col("partition").cast("int").alias("kafka_partition"),
        F.col("offset").cast("bigint").alias("kafka_offset"),
        F.col("key").cast("string").alias("kafka_key"),
        F.col("timestamp").alias("kafka_timestamp"),
        F.col("offset").cast("bigint").alias("message_index"),
        F.col("value").cast("string").alias("message_text"),
        F.col("value").alias("message_bytes"),
        F.col("headers").cast(KAFKA_HEADERS_TYPE).alias("kafka_headers"),
        F.concat(F.lit(f"kafka://{bootstrap}/"), F.col("topic")).alias("source_uri"),
        hash_of[part_key].alias("source_hash"),
        F.lit(0).alias("_input"),
    )


def _topic_uri(bootstrap: str, topic: str) -> str:
    return f"kafka://{bootstrap}/{topic}"


def _range_hash(uri: str) -> str:
    """The source hash of a partition range: of its URI (a range is landed once; it is not a file)."""
    return hashlib.sha256(uri.encode()).hexdigest()
