"""`cdc-lake land --incoming DIR [--follow]` (cdc_lake/incoming.py): the inputs of DIR/<format id>/,
each checked on its own (what land refuses is left out and said once, the rest lands), and a
follower's rounds that read only what is new or changed since the round before; then the same in a
lake: each input lands once, a grown file its new lines, and a round with nothing new lands nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cdc_lake.follow import follow, stop_on_signals
from cdc_lake.incoming import IncomingFolder, land_incoming
from cdc_lake.land import LandingError
from conftest import PROJECT_DIR, write_jsonl

SAMPLES = PROJECT_DIR / "sample_data"


def canal_insert(row_id: int) -> dict:
    return {
        "database": "shop", "table": "incoming", "type": "INSERT", "isDdl": False, "pkNames": ["id"],
        "es": 1700000000000 + row_id, "ts": 1700000000100 + row_id, "id": row_id,
        "mysqlType": {"id": "int", "name": "varchar(20)"},
        "data": [{"id": str(row_id), "name": f"row {row_id}"}], "old": None,
    }


@pytest.fixture
def incoming(tmp_path: Path) -> Path:
    """canal_json/ with a file, dts_avro/ with a folder of one-message files, and entries to leave out."""
    root = tmp_path / "incoming"
    (root / "canal_json").mkdir(parents=True)
    write_jsonl(root / "canal_json" / "a.jsonl", [canal_insert(1), canal_insert(2)])
    shutil.copytree(SAMPLES / "dts_avro" / "crm_files", root / "dts_avro" / "crm_files")
    (root / "canal_json" / "notes.csv").write_text("id,name\n")  # a type land refuses
    (root / "canal_json" / "_b.jsonl").write_text("{}\n")  # still being written: skipped, unsaid
    (root / "canal_json" / ".c.jsonl").write_text("{}\n")
    (root / "no_such_format").mkdir()
    (root / "stray.jsonl").write_text("{}\n")
    return root


def test_each_input_of_a_format_folder_is_a_path_of_that_format_and_what_land_refuses_is_left_out(incoming):
    found = IncomingFolder(incoming).look()
    assert found.groups == [
        ("canal_json", [str(incoming / "canal_json" / "a.jsonl")]),
        ("dts_avro", [str(incoming / "dts_avro" / "crm_files")]),
    ]
    assert sorted(line.split(": left out: ")[0] for line in found.left_out) == [
        str(incoming / "canal_json" / "notes.csv"),
        str(incoming / "no_such_format"),
        str(incoming / "stray.jsonl"),
    ]
    assert any("unsupported file type .csv" in line for line in found.left_out)
    assert any("not a folder named for a format id (canal_json, canal_protobuf, " in line for line in found.left_out)


def test_a_later_look_reads_only_what_is_new_or_changed_and_says_a_left_out_entry_once(incoming):
    folder = IncomingFolder(incoming)
    folder.landed(folder.look())
    again = folder.look()
    assert (again.groups, again.left_out, again.unchanged) == ([], [], 3)  # notes.csv too

    with (incoming / "canal_json" / "a.jsonl").open("a") as grown:  # a file that grows
        grown.write('{"database":"shop"}\n')
    os.rename(incoming / "canal_json" / "_b.jsonl", incoming / "canal_json" / "b.jsonl")  # written whole
    first = sorted((incoming / "dts_avro" / "crm_files").iterdir())[0]
    os.utime(first, ns=(0, 0))  # a folder input whose file changed
    (incoming / "canal_json" / "notes.csv").write_text("id,name\n1,x\n")  # left out again: said again
    changed = folder.look()
    assert changed.groups == [
        ("canal_json", [str(incoming / "canal_json" / "a.jsonl"), str(incoming / "canal_json" / "b.jsonl")]),
        ("dts_avro", [str(incoming / "dts_avro" / "crm_files")]),
    ]
    assert [line.split(": left out: ")[0] for line in changed.left_out] == [str(incoming / "canal_json" / "notes.csv")]
    # not handed to a landing (one that failed): the next look offers them again
    assert folder.look().groups == changed.groups


def test_a_missing_folder_is_an_error_saying_what_to_give(tmp_path):
    with pytest.raises(LandingError, match="no such folder; --incoming names a folder with a folder per format id"):
        IncomingFolder(tmp_path / "nowhere").look()


def test_incoming_takes_no_format_path_or_kafka_and_follow_needs_a_source(capsys):
    from cdc_lake.cli import main

    assert main(["land", "--incoming", "d", "--format", "canal_json", "x.jsonl"]) == 2
    assert main(["land", "--format", "auto", "--follow", "some.jsonl"]) == 2
    assert main(["land"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "cdc-lake land: --incoming DIR takes each input's format from its folder: give no --format, PATH or "
        "--kafka with it",
        "cdc-lake land: --follow follows Kafka topics or a folder: give --kafka or --incoming",
        "cdc-lake land: give --format FORMAT PATH..., --format FORMAT --kafka BOOTSTRAP --topic TOPIC, or "
        "--incoming DIR",
    ]


def test_rounds_land_each_input_once_and_a_grown_file_its_new_lines(lake, tmp_path):
    lake.scenario("incoming_rounds")
    root = tmp_path / "incoming"
    (root / "canal_json").mkdir(parents=True)
    write_jsonl(root / "canal_json" / "a.jsonl", [canal_insert(i) for i in range(3)])
    shutil.copytree(SAMPLES / "debezium_json", root / "debezium_json")
    (root / "debezium_json" / "copy.jsonl").write_bytes((root / "debezium_json" / "inventory.jsonl").read_bytes())
    folder = IncomingFolder(root)
    warnings: list[str] = []
    builds: list[int] = []

    def land_once():
        reports = land_incoming(folder, spark=lake.spark, say=lambda _m: None, warn=warnings.append)
        if len(builds) == 1:  # after the second round's build: the file grows, a new input arrives
            with (root / "canal_json" / "a.jsonl").open("a") as grown:
                grown.write(json.dumps(canal_insert(3)) + "\n")
        return reports

    lines: list[str] = []
    with stop_on_signals(lines.append) as stop:
        status = follow(land_once, lambda: builds.append(1), 0.0, stop, say=lines.append, rounds=3)
    assert status == 0 and warnings == []
    inventory = sum(1 for line in (SAMPLES / "debezium_json" / "inventory.jsonl").read_text().splitlines() if line.strip())
    assert f"landings 1, 2: {3 + inventory:,} message(s) (canal_json=3, debezium_json={inventory})" in lines[0]
    # the copy of a landed file adds nothing; a round with nothing new neither lands nor builds
    assert "nothing new; no build" in lines[1]
    assert "landing 3: 1 message(s) (canal_json=1)" in lines[2]
    assert len(builds) == 2
    landed = lake.rows(
        "select source_uri, count(*) as messages from {schema}_raw.raw_messages "
        "group by source_uri order by source_uri"
    )
    assert [(row["source_uri"].rsplit("/", 1)[-1], row["messages"]) for row in landed] == [
        ("a.jsonl", 4), ("copy.jsonl", inventory)  # the first of the two same files, in name order
    ]
    landings = lake.rows("select landing_seq, declared_format from {schema}_raw.landings order by 1")
    assert [(row["landing_seq"], row["declared_format"]) for row in landings] == [
        (1, "canal_json"), (2, "debezium_json"), (3, "canal_json")
    ]
