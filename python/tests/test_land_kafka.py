"""`cdc-lake land --kafka` against a real Kafka broker (KRaft, one JVM, started for this module).

JSON and binary messages (the --format auto mix of test_format_binary) are produced with Spark's
Kafka sink into a topic of 3 partitions and landed from the broker: each record once, with its
topic, partition, offset, key, timestamp and headers; again, nothing; after an interrupted landing,
each record once; a partition added later and records deleted by retention before they were landed
are landed from where they can be, reported and counted in the audit; a follower (`--follow`)
lands and builds round by round until SIGTERM.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator

import pytest

from cdc_lake.dbt import PROJECT_DIR
from conftest import UNREAD, VENV_BIN, free_port, run_checked, subprocess_lake_env
from kafka_broker import Broker, admin, create_topic
from test_format_binary import AUTO_KAFKA

TOPIC = "cdc"
DBZ = (
    '{"before":null,"after":{"id":"7","n":"a"},"source":{"connector":"mysql","db":"shop",'
    '"table":"kafka_dbz","file":"mysql-bin.000001","pos":10,"ts_ms":1700000000000},"op":"c",'
    '"ts_ms":1700000000001}'
)
DBZ_KEY = '{"id":"7"}'
"""The Debezium record's Kafka key: its primary key."""
MESSAGES = [*AUTO_KAFKA, DBZ]
"""A DTS Avro record, a Canal protobuf message, bytes no detector claims, a Canal JSON message and a
Debezium JSON message: record i goes to partition i % 3."""


def canal_insert(row_id: int) -> str:
    """A Canal JSON insert of row `row_id` into shop.followed."""
    return (
        '{"database":"shop","table":"followed","type":"INSERT","isDdl":false,"pkNames":["id"],'
        f'"data":[{{"id":"{row_id}"}}],"es":1700000005000,"ts":1700000005001,"id":{row_id}}}'
    )


@pytest.fixture(scope="module")
def broker(tmp_path_factory) -> Iterator[Broker]:
    handle = Broker(tmp_path_factory.mktemp("kafka"))
    handle.start()
    yield handle
    handle.stop()


def add_partitions(spark, broker: Broker, topic: str, total: int) -> None:
    jvm = spark._jvm
    client = admin(spark, broker)
    try:
        wanted = jvm.java.util.HashMap()
        wanted.put(topic, jvm.org.apache.kafka.clients.admin.NewPartitions.increaseTo(total))
        client.createPartitions(wanted).all().get()
    finally:
        client.close()


def delete_records(spark, broker: Broker, topic: str, partition: int, before: int) -> None:
    """What retention does: the partition's records before offset `before` are gone."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    # py4j does not find this class's static method (the class comes from spark.jars): reflection
    records = jvm.java.lang.Thread.currentThread().getContextClassLoader().loadClass(
        "org.apache.kafka.clients.admin.RecordsToDelete"
    )
    types = gateway.new_array(jvm.java.lang.Class, 1)
    types[0] = jvm.java.lang.Long.TYPE
    args = gateway.new_array(jvm.java.lang.Object, 1)
    args[0] = jvm.java.lang.Long.valueOf(str(before))
    client = admin(spark, broker)
    try:
        cut = jvm.java.util.HashMap()
        cut.put(
            jvm.org.apache.kafka.common.TopicPartition(topic, partition),
            records.getMethod("beforeOffset", types).invoke(None, args),
        )
        client.deleteRecords(cut).all().get()
    finally:
        client.close()


def produce(
    spark, broker: Broker, topic: str, records: list[tuple[int, bytes | str, dict[str, bytes]]],
    keys: dict[int, str] | None = None,
) -> None:
    """Write (partition, value, headers) records with Spark's Kafka sink, key `keys[i]` or k<i>, in order
    (one task: record i gets the next offset of its partition)."""
    rows = [
        (partition, (keys or {}).get(i, f"k{i}").encode(), value.encode() if isinstance(value, str) else value, list(headers.items()))
        for i, (partition, value, headers) in enumerate(records)
    ]
    spark.createDataFrame(
        rows, "partition int, key binary, value binary, headers array<struct<key:string,value:binary>>"
    ).coalesce(1).write.format("kafka").option("kafka.bootstrap.servers", broker.bootstrap).option("topic", topic).save()


def land(lake, broker: Broker, topics: list[str], format_id: str = "auto", **kw):
    from cdc_lake.kafka import land_kafka

    warnings: list[str] = []
    report = land_kafka(
        broker.bootstrap, topics, format_id, spark=lake.spark, say=lambda _m: None, warn=warnings.append, **kw
    )
    return report, warnings


def landed_records(lake, topic: str) -> list[tuple[int, int]]:
    return [
        (r["kafka_partition"], r["kafka_offset"])
        for r in lake.rows(
            f"select kafka_partition, kafka_offset from {{schema}}_raw.raw_messages where kafka_topic = '{topic}' "
            "order by 1, 2"
        )
    ]


@pytest.fixture(scope="module")
def landed(lake, broker):
    lake.scenario("land_kafka")
    create_topic(lake.spark, broker, TOPIC, 3)
    produce(
        lake.spark, broker, TOPIC, [(i % 3, m, {"origin": b"test", "n": str(i).encode()}) for i, m in enumerate(MESSAGES)],
        keys={len(MESSAGES) - 1: DBZ_KEY},
    )
    report, warnings = land(lake, broker, [TOPIC])
    lake.build("--select", "+cdc_current", "+cdc_landing_audit", *UNREAD)
    return report, warnings


def test_lands_every_record_once_with_provenance(lake, landed):
    report, warnings = landed
    assert report.total == len(MESSAGES) and warnings == []
    rows = lake.rows(
        "select message_id, kafka_partition, kafka_offset, kafka_key, kafka_timestamp is not null as has_ts, "
        "kafka_headers, message_format, source_uri from {schema}_raw.raw_messages order by kafka_offset, kafka_partition"
    )
    formats = ["dts_avro", "canal_protobuf", "unknown", "canal_json", "debezium_json"]
    assert [
        (r["message_id"], r["kafka_key"], r["has_ts"], r["message_format"], r["kafka_headers"]) for r in rows
    ] == [
        (f"{TOPIC}/{i % 3}/{i // 3}", DBZ_KEY if MESSAGES[i] is DBZ else f"k{i}", True, formats[i],
         [{"key": "origin", "value": b"test"}, {"key": "n", "value": str(i).encode()}])
        for i in range(len(MESSAGES))
    ]
    inputs = lake.rows("select inputs, notes from {schema}_raw.landings")
    assert inputs == [{
        "inputs": [f"kafka://{lake_bootstrap(rows)}/{TOPIC}/{p}?offsets=0-{n}" for p, n in ((0, 2), (1, 2), (2, 1))],
        "notes": None,
    }]


def lake_bootstrap(rows) -> str:
    return rows[0]["source_uri"].split("/")[2]


def test_current_and_audit_account_for_every_record(lake, landed):
    assert lake.rows(
        "select source_table, primary_key, row, source_format from {schema}.cdc_current order by source_table"
    ) == [
        {"source_table": "auto_canal", "primary_key": '{"id":"1"}', "row": {"id": "1"}, "source_format": "canal_protobuf"},
        {"source_table": "auto_dts", "primary_key": '{"id":"1"}', "row": {"id": "1"}, "source_format": "dts_avro"},
        {"source_table": "auto_json", "primary_key": '{"id":"1"}', "row": {"id": "1", "v": "0.10"},
         "source_format": "canal_json"},
        {"source_table": "kafka_dbz", "primary_key": '{"id":"7"}', "row": {"id": "7", "n": "a"},
         "source_format": "debezium_json"},
    ]
    audit = lake.rows(
        "select sum(landed_messages) as landed, sum(quarantined_messages) as quarantined, "
        "sum(unaccounted_messages) as unaccounted from {schema}.cdc_landing_audit"
    )
    assert audit == [{"landed": len(MESSAGES), "quarantined": 1, "unaccounted": 0}]


def test_running_again_lands_nothing(lake, broker, landed):
    report, warnings = land(lake, broker, [TOPIC])
    assert (report.landing_seq, report.total, warnings) == (None, 0, [])
    assert len(landed_records(lake, TOPIC)) == len(MESSAGES)


def test_an_interrupted_landing_then_a_rerun_lands_each_record_once(lake, broker, landed):
    produce(lake.spark, broker, TOPIC, [(p, f'{{"n":{p}}}', {}) for p in (0, 1, 2, 0)])

    def killed() -> None:
        raise KeyboardInterrupt("killed after the write, before the commit")

    with pytest.raises(KeyboardInterrupt):
        land(lake, broker, [TOPIC], "canal_json", before_commit=killed)
    report, _ = land(lake, broker, [TOPIC], "canal_json")
    assert report.total == 4
    assert landed_records(lake, TOPIC) == sorted(
        [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)] + [(0, 2), (1, 2), (2, 1), (0, 3)]
    )


def test_a_killed_cli_landing_then_a_rerun_lands_each_record_once(lake, broker, landed, tmp_path):
    """`cdc-lake land --kafka` killed (SIGKILL, its JVM too) while it lands, in a lake of its own
    (the test process holds this one's metastore), then run again: every record once."""
    import pyarrow.dataset as ds

    create_topic(lake.spark, broker, "killed", 2)
    produce(lake.spark, broker, "killed", [(i % 2, f'{{"n":{i}}}', {}) for i in range(2000)])
    env = subprocess_lake_env(tmp_path, "killed")
    command = [str(VENV_BIN / "cdc-lake"), "land", "--format", "canal_json", "--kafka", broker.bootstrap,
               "--topic", "killed"]
    first = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
    try:
        for line in first.stdout:  # killed once it starts to land (the write under way)
            if " as landing " in line:
                break
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL  # killed, not finished
    rerun = run_checked(command, env)
    table = tmp_path / "warehouse" / "killed_raw.db" / "raw_messages"
    rows = ds.dataset(table, format="parquet", partitioning="hive").to_table(
        columns=["kafka_partition", "kafka_offset"]
    ).to_pylist()
    assert sorted((r["kafka_partition"], r["kafka_offset"]) for r in rows) == sorted(
        (p, o) for p in (0, 1) for o in range(1000)
    ), rerun.stdout


def test_a_new_partition_is_landed_and_reported(lake, broker, landed):
    add_partitions(lake.spark, broker, TOPIC, 4)
    produce(lake.spark, broker, TOPIC, [(3, '{"new":1}', {})])
    report, warnings = land(lake, broker, [TOPIC], "canal_json")
    assert report.total == 1 and (3, 0) in landed_records(lake, TOPIC)
    assert warnings == [f"cdc-lake land: kafka {TOPIC}/3: a new partition, landed from its earliest offset 0"]
    notes = lake.rows(f"select notes from {{schema}}_raw.landings where landing_seq = {report.landing_seq}")
    assert notes == [{"notes": [warnings[0].removeprefix("cdc-lake land: ")]}]


def test_records_deleted_before_they_were_landed_are_reported(lake, broker, landed):
    create_topic(lake.spark, broker, "kept", 1)
    produce(lake.spark, broker, "kept", [(0, f'{{"n":{i}}}', {}) for i in range(2)])
    land(lake, broker, ["kept"], "canal_json")
    produce(lake.spark, broker, "kept", [(0, f'{{"n":{i}}}', {}) for i in range(2, 6)])
    delete_records(lake.spark, broker, "kept", 0, 4)  # offsets 2 and 3 were never landed
    report, warnings = land(lake, broker, ["kept"], "canal_json")
    assert report.total == 2
    assert landed_records(lake, "kept") == [(0, 0), (0, 1), (0, 4), (0, 5)]
    assert warnings == [
        "cdc-lake land: kafka kept/0: offsets 2 to 3 (2 record(s) at most) were deleted by the broker "
        "(retention) before they were landed; landing from offset 4"
    ]
    lost = lake.rows(f"select kafka_lost_offsets from {{schema}}_raw.landings where landing_seq = {report.landing_seq}")
    assert lost == [{"kafka_lost_offsets": [
        {"kafka_topic": "kept", "kafka_partition": 0, "first_offset": 2, "end_offset": 4}
    ]}]
    # every record after the landed ones deleted, nothing new: a landing of no record keeps the loss
    produce(lake.spark, broker, "kept", [(0, f'{{"n":{i}}}', {}) for i in range(6, 9)])
    delete_records(lake.spark, broker, "kept", 0, 9)
    report, warnings = land(lake, broker, ["kept"], "canal_json")
    assert (report.total, len(warnings)) == (0, 1) and "offsets 6 to 8 (3 record(s) at most)" in warnings[0]
    again, warned_again = land(lake, broker, ["kept"], "canal_json")
    assert (again.landing_seq, warned_again) == (None, [])  # recorded once, not reported again
    lake.build("--select", "+cdc_landing_audit", *UNREAD)
    assert lake.rows(
        "select landed_input, landed_messages, kafka_lost_offsets from {schema}.cdc_landing_audit "
        "where landed_input like 'kept/%'"
    ) == [{"landed_input": "kept/0", "landed_messages": 4, "kafka_lost_offsets": 5}]


def test_an_unreachable_broker_lands_nothing(lake, landed):
    from cdc_lake.kafka import land_kafka
    from cdc_lake.land import LandingError

    before = lake.rows("select count(*) as n from {schema}_raw.landings")
    with pytest.raises(LandingError, match=r"did not answer within 2 s: check --kafka"):
        land_kafka(f"127.0.0.1:{free_port()}", [TOPIC], "auto", spark=lake.spark, say=lambda _m: None, timeout_s=2)
    assert lake.rows("select count(*) as n from {schema}_raw.landings") == before


def test_kafka_and_paths_are_one_or_the_other(capsys):
    from cdc_lake.cli import main

    assert main(["land", "--format", "auto", "--kafka", "h:1", "--topic", "t", "some.jsonl"]) == 2
    assert main(["land", "--format", "auto", "--kafka", "h:1"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "cdc-lake land: give PATH... or --kafka BOOTSTRAP --topic TOPIC [--topic ...], not both"
    ] * 2


def test_a_partition_ending_before_what_was_landed_is_reported():
    from cdc_lake.kafka import PartitionRange, _notes, plan_ranges

    # t/0 re-created with 3 records where 6 were landed; t/1 landed to its end
    ranges = plan_ranges({("t", 0): (0, 3), ("t", 1): (0, 10)}, {("t", 0): 5, ("t", 1): 9})
    assert ranges == [
        PartitionRange("t", 0, 6, 6, landed_past_end=5),
        PartitionRange("t", 1, 10, 10),
    ]
    assert [_notes(r) for r in ranges] == [
        ["kafka t/0: its end offset is at or below offset 5, already landed (a re-created topic?): its "
         "records up to there are not landed from the broker; land them from a dump (Parquet) if they are new"],
        [],
    ]


def test_a_follower_lands_and_builds_each_round_until_sigterm(lake, broker, landed, tmp_path):
    """`cdc-lake land --kafka ... --follow` in a lake of its own: the first round lands and builds,
    a later round lands what was produced meanwhile and builds, SIGTERM ends it (exit 0)."""
    import queue
    import threading

    create_topic(lake.spark, broker, "followed", 2)
    produce(lake.spark, broker, "followed", [(i % 2, canal_insert(i), {}) for i in range(3)])
    command = [str(VENV_BIN / "cdc-lake"), "land", "--format", "canal_json", "--kafka", broker.bootstrap,
               "--topic", "followed", "--follow", "--every", "2s", "--select", "+cdc_current"]
    follower = subprocess.Popen(command, cwd=PROJECT_DIR, env=subprocess_lake_env(tmp_path, "followed"),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in follower.stdout], daemon=True).start()
    seen: list[str] = []

    def until(fragment: str, within_s: float = 600) -> str:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                assert follower.poll() is None, f"the follower exited {follower.returncode}:\n" + "\n".join(seen)
                continue
            seen.append(line)
            if fragment in line:
                return line
        pytest.fail(f"no line with {fragment!r} within {within_s} s:\n" + "\n".join(seen))

    try:
        first = until("round 1 ")
        assert "landing 1: 3 message(s) (canal_json=3)" in first and "built in" in first, first
        produce(lake.spark, broker, "followed", [(i % 2, canal_insert(i), {}) for i in range(3, 5)])
        # the two records (one per partition) may become visible in different rounds
        landed_later = 0
        while landed_later < 2:
            later = until(": landing ")
            counts = re.search(r"landing \d+: (\d+) message\(s\) \(canal_json=(\d+)\)", later)
            assert counts and counts[1] == counts[2] and "built in" in later, later
            landed_later += int(counts[1])
        assert landed_later == 2, "\n".join(seen)
        follower.send_signal(signal.SIGTERM)
        follower.wait(timeout=300)
        time.sleep(0.5)  # the reader thread takes the last lines
        while not lines.empty():
            seen.append(lines.get())
    finally:
        if follower.poll() is None:
            follower.kill()
    assert follower.returncode == 0, "\n".join(seen)
    assert seen[-1].startswith("stopped after round") or seen[-1].endswith("; stopped"), "\n".join(seen)
    assert not [line for line in seen if "round" in line and "failed" in line], "\n".join(seen)
    import pyarrow.dataset as ds

    # cdc_current is a view over its newest build table, cdc_current__v<build time>
    newest = max((tmp_path / "warehouse" / "followed.db").glob("cdc_current__v*"))
    rows = ds.dataset(newest, format="parquet").to_table(columns=["source_table", "primary_key"]).to_pylist()
    assert sorted(rows, key=str) == sorted(
        ({"source_table": "followed", "primary_key": f'{{"id":"{i}"}}'} for i in range(5)), key=str
    )
