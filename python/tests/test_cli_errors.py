"""Bad input at the command line: one line on stderr naming the problem, a non-zero exit, nothing landed.

`cdc-lake` runs as a subprocess with its own warehouse and metastore. One good landing first (the
only run that starts Spark), then every bad command; the warehouse's files must be exactly as the
good landing left them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_jsonl, write_kafka_parquet

PROJECT = Path(__file__).resolve().parents[2]
CDC_LAKE = Path(sys.executable).with_name("cdc-lake")


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CDC_LAKE), *args], cwd=PROJECT, env=env, capture_output=True, text=True, timeout=600
    )


def snapshot(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli_errors")
    env = {
        **os.environ,
        "CDC_LAKE_WAREHOUSE": str(tmp / "warehouse"),
        "CDC_LAKE_METASTORE": str(tmp / "metastore_db"),
        "CDC_LAKE_SCHEMA": "cli_errors",
        "CDC_LAKE_RAW_SCHEMA": "cli_errors_raw",
        "CDC_LAKE_DRIVER_MEMORY": "1g",
    }
    good = write_jsonl(
        tmp / "good.jsonl",
        [{"data": [{"id": "1"}], "database": "d", "table": "t", "type": "INSERT", "pkNames": ["id"], "es": 1}],
    )
    debezium = write_jsonl(
        tmp / "debezium.jsonl",
        [{"payload": {"op": "c", "after": {"id": 1}, "source": {"db": "d", "table": "t"}, "ts_ms": 1}}],
    )
    # two formats in one command: a landing each; a broken .gz file is refused alone: the other
    # inputs land, and the exit status says so
    broken = tmp / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip at all\n")
    first = run(env, "land", "--format", "canal_json", str(good), "--format", "debezium_json", str(debezium), str(broken))
    assert first.returncode == 4, first.stderr
    assert "landing 1 committed: 1 message(s) (canal_json=1)" in first.stdout
    assert "landing 2 committed: 1 message(s) (debezium_json=1)" in first.stdout
    assert first.stderr.splitlines()[-1] == (
        f"cdc-lake land: {broken}: not landed: not a readable gzip file (Error -3 while decompressing data: "
        "incorrect header check) (the other inputs were landed)"
    )
    return tmp, env


def bad_inputs(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name: (arguments, the error line expected on stderr)."""
    garbage = tmp / "garbage.parquet"
    garbage.write_bytes(b"this is not parquet at all\n" * 10)
    truncated = tmp / "truncated.parquet"
    write_kafka_parquet(truncated, ['{"a": 1}'] * 3)
    truncated.write_bytes(truncated.read_bytes()[:-20])
    not_kafka = tmp / "not_kafka.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": [1, 2], "payload": ["a", "b"]}), not_kafka)
    mixed = tmp / "mixed"
    mixed.mkdir()
    write_kafka_parquet(mixed / "part-0.parquet", ['{"a": 1}'])
    (mixed / "notes.txt").write_text("hello\n")
    empty = tmp / "empty"
    empty.mkdir()
    skipped_only = tmp / "skipped_only"
    (skipped_only / "_temporary").mkdir(parents=True)
    write_kafka_parquet(skipped_only / "_temporary" / "part-0.parquet", ['{"a": 1}'])
    text = write_jsonl(tmp / "messages.jsonl", ['{"a": 1}'])
    other = tmp / "data.csv"
    other.write_text("a,b\n")
    json_folder = tmp / "json_folder"
    json_folder.mkdir()
    (json_folder / "m1.bin").write_bytes(b"{}")
    good = str(tmp / "good.jsonl")
    not_landed = str(write_jsonl(tmp / "not_landed.jsonl", ['{"a": 1}']))
    return {
        "a bad PATH under a later --format": (
            ["land", "--format", "canal_json", not_landed, "--format", "debezium_json", str(tmp / "nope.jsonl")],
            f"cdc-lake land: {tmp / 'nope.jsonl'}: no such file or directory",
        ),
        "a --format without a PATH among several": (
            ["land", "--format", "canal_json", not_landed, "--format", "debezium_json"],
            "cdc-lake land: --format debezium_json names no PATH after it",
        ),
        "a PATH before the first of several --format": (
            ["land", not_landed, "--format", "canal_json", good, "--format", "debezium_json", good],
            f"cdc-lake land: with several --format, put each PATH after the --format of its format ({not_landed} comes first)",
        ),
        "missing file": (
            ["land", "--format", "canal_json", str(tmp / "nope.jsonl")],
            f"cdc-lake land: {tmp / 'nope.jsonl'}: no such file or directory",
        ),
        "a good file and a missing one": (
            ["land", "--format", "canal_json", good, str(tmp / "nope.jsonl")],
            f"cdc-lake land: {tmp / 'nope.jsonl'}: no such file or directory",
        ),
        "unknown format id": (
            ["land", "--format", "canal_xml", good],
            "cdc-lake land: error: argument --format: invalid choice: 'canal_xml' (choose from "
            "'oms_extend_column_type', 'oms_default', 'kafka_river_canal', 'cloudcanal_json', "
            "'ckafka_format_one', 'oms_shareplex', 'oms_dataworks', 'debezium_json', 'canal_json', "
            "'dts_avro', 'canal_protobuf', 'auto') (see cdc-lake land --help)",
        ),
        "garbage with a .parquet name": (
            ["land", "--format", "canal_json", str(garbage)],
            f"cdc-lake land: {garbage}: unreadable Parquet file (Parquet magic bytes not found in "
            "footer. Either the file is corrupted or this is not a parquet file.)",
        ),
        "truncated Parquet": (
            ["land", "--format", "canal_json", str(truncated)],
            f"cdc-lake land: {truncated}: unreadable Parquet file (Parquet magic bytes not found in "
            "footer. Either the file is corrupted or this is not a parquet file.)",
        ),
        "Parquet that is not Kafka-shaped": (
            ["land", "--format", "canal_json", str(not_kafka)],
            f"cdc-lake land: {not_kafka}: not Kafka-shaped Parquet, missing column(s) offset, partition, "
            "topic, value (expected key, value, topic, partition, offset, timestamp)",
        ),
        "a folder with mixed files": (
            ["land", "--format", "canal_json", str(mixed)],
            f"cdc-lake land: {mixed}: the folder mixes Parquet files with other files (notes.txt); "
            "land a Parquet folder or a folder of one-message files, not both",
        ),
        "an empty folder": (
            ["land", "--format", "canal_json", str(empty)],
            f"cdc-lake land: {empty}: the folder holds no files to land",
        ),
        "a folder of files Spark skips only": (
            ["land", "--format", "canal_json", str(skipped_only)],
            f"cdc-lake land: {skipped_only}: the folder holds no files to land (left out: _temporary "
            "(hidden, _-prefixed or ._COPYING_: Spark skips these))",
        ),
        "a text file for a binary format": (
            ["land", "--format", "dts_avro", str(text)],
            f"cdc-lake land: {text}: dts_avro messages are binary; land them from Kafka-shaped "
            "Parquet or a folder of one-message files, not a text file",
        ),
        "a folder of one-message files for a JSON format": (
            ["land", "--format", "canal_json", str(json_folder)],
            f"cdc-lake land: {json_folder}: a folder of one-message files is for binary formats "
            "(dts_avro, canal_protobuf or auto), not canal_json",
        ),
        "an unsupported file type": (
            ["land", "--format", "canal_json", str(other)],
            f"cdc-lake land: {other}: unsupported file type .csv; expected .jsonl/.json/.txt/.ndjson "
            "(one message per line, or any of them gzipped: .jsonl.gz), .parquet (Kafka-shaped), or a folder",
        ),
        "no --format": (
            ["land", good],
            "cdc-lake land: give --format FORMAT PATH..., --format FORMAT --kafka BOOTSTRAP --topic TOPIC, "
            "or --incoming DIR",
        ),
        "requeue as an unknown format": (
            ["requeue", "--as-format", "nope"],
            "cdc-lake requeue: error: argument --as-format: invalid choice: 'nope' (choose from "
            "'oms_extend_column_type', 'oms_default', 'kafka_river_canal', 'cloudcanal_json', "
            "'ckafka_format_one', 'oms_shareplex', 'oms_dataworks', 'debezium_json', 'canal_json', "
            "'dts_avro', 'canal_protobuf', 'auto') (see cdc-lake requeue --help)",
        ),
    }


def test_bad_input_gives_one_line_and_lands_nothing(cli):
    tmp, env = cli
    cases = bad_inputs(tmp)
    before = snapshot(tmp / "warehouse")
    results = {name: run(env, *args) for name, (args, _) in cases.items()}
    assert {name: (r.returncode, r.stderr, r.stdout) for name, r in results.items()} == {
        name: (2, expected + "\n", "") for name, (_, expected) in cases.items()
    }
    assert snapshot(tmp / "warehouse") == before


def test_requeue_before_any_build_says_so(cli):
    tmp, env = cli
    before = snapshot(tmp / "warehouse")
    result = run(env, "requeue")
    # Spark's own start-up lines come first on stderr; the error is the last line
    assert (result.returncode, result.stderr.splitlines()[-1]) == (
        2,
        "cdc-lake requeue: cli_errors.cdc_quarantine does not exist: run `dbt build` first",
    )
    assert snapshot(tmp / "warehouse") == before
