"""`cdc-lake land --incoming DIR [--follow]` (cdc_lake/incoming.py): the inputs of DIR/<format id>/,
each checked on its own (what land refuses is left out and said once, the rest lands), and a
follower's rounds that read only what is new or changed since the round before; then the same in a
lake: each input lands once, a grown file its new lines, and a round with nothing new lands nothing;
a text file still being written lands up to its last newline, and its last line once it is whole;
a new process passes over the inputs the landings log says were landed, without reading them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from cdc_lake.follow import follow, stop_on_signals
from cdc_lake.incoming import SETTLE_SECONDS, IncomingFolder, land_incoming
from cdc_lake.land import LandingError, _hash_whole_lines, landed_signatures
from cdc_lake.settings import load_settings
from conftest import PROJECT_DIR, write_jsonl

SAMPLES = PROJECT_DIR / "sample_data"


def canal_insert(row_id: int) -> dict:
    return {
        "database": "shop", "table": "incoming", "type": "INSERT", "isDdl": False, "pkNames": ["id"],
        "es": 1700000000000 + row_id, "ts": 1700000000100 + row_id, "id": row_id,
        "mysqlType": {"id": "int", "name": "varchar(20)"},
        "data": [{"id": str(row_id), "name": f"row {row_id}"}], "old": None,
    }


def settle(root: Path) -> None:
    """Date `root` and every file under it an hour back: written long enough ago to be whole."""
    an_hour_ago = time.time() - 3600
    for path in [root, *(root.rglob("*") if root.is_dir() else ())]:
        os.utime(path, (an_hour_ago, an_hour_ago))


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
    settle(root)
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
    settle(incoming / "canal_json")
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


def test_a_text_file_changed_lately_is_hashed_up_to_its_last_newline_and_looked_at_until_it_settles(incoming):
    folder = IncomingFolder(incoming)
    folder.landed(folder.look())
    with (incoming / "canal_json" / "a.jsonl").open("a") as growing:
        growing.write('{"database":')  # half a line
    for _ in range(2):  # not remembered while it may still be written
        found = folder.look()
        folder.landed(found)
        (format_id, (checked,)), = found.inputs
        assert (format_id, checked.up_to_last_newline) == ("canal_json", True)
        assert checked.hashed().waiting_bytes == len('{"database":')
    settle(incoming / "canal_json")  # unchanged for an hour: offered whole, then remembered
    found = folder.look()
    folder.landed(found)
    (_, (checked,)), = found.inputs
    assert not checked.up_to_last_newline and checked.hashed().waiting_bytes == 0
    assert folder.look().inputs == []


def test_the_hash_up_to_the_last_newline_spans_blocks(tmp_path):
    text = tmp_path / "big.jsonl"
    whole = b"".join(b'{"n": %d}\n' % i for i in range(200_000))  # about 2 MB: three 1 MB blocks
    half_line = b'{"n": "' + b"x" * 1_500_000  # longer than a block
    text.write_bytes(whole + half_line)
    assert _hash_whole_lines(text) == (hashlib.sha256(whole).hexdigest(), len(whole), 200_000, len(half_line))
    text.write_bytes(whole)
    assert _hash_whole_lines(text) == (hashlib.sha256(whole).hexdigest(), len(whole), 200_000, 0)
    text.write_bytes(half_line)
    assert _hash_whole_lines(text) == (hashlib.sha256(b"").hexdigest(), 0, 0, len(half_line))


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


def test_a_line_still_being_written_waits_and_lands_once_whole(lake, tmp_path):
    lake.scenario("incoming_growing_line")
    root = tmp_path / "incoming"
    (root / "canal_json").mkdir(parents=True)
    growing = root / "canal_json" / "a.jsonl"
    line = [json.dumps(canal_insert(i)) for i in range(4)]
    growing.write_text(f"{line[0]}\n{line[1]}\n{line[2][:25]}")  # the writer is in the middle of line 3
    folder = IncomingFolder(root)
    said: list[str] = []
    warnings: list[str] = []

    def land_round() -> list[int]:
        reports = land_incoming(folder, spark=lake.spark, say=said.append, warn=warnings.append)
        return [report.total for report in reports]

    assert land_round() == [2]
    assert any(f"{growing}: its last line (25 bytes) has no newline yet: it waits" in s for s in said)
    assert land_round() == [0]  # unchanged and still recent: nothing new
    with growing.open("a") as writer:
        writer.write(f"{line[2][25:]}\n{line[3]}")  # line 3 ends; line 4 is written without a newline
    assert land_round() == [1]
    # landed up to its last newline each time: recorded as not landed whole (looked at again)
    signatures = lake.rows("select input_signatures from {schema}_raw.landings order by landing_seq")
    assert [row["input_signatures"] for row in signatures] == [[None], [None]]
    # the writer stopped: once the file has stayed unchanged SETTLE_SECONDS, line 4 lands as it is
    past = time.time() - SETTLE_SECONDS - 1
    os.utime(growing, (past, past))
    assert land_round() == [1]
    assert land_round() == []  # settled and remembered: not even looked at
    assert warnings == []
    landed = lake.rows(
        "select message_index, message_text from {schema}_raw.raw_messages order by message_index"
    )
    assert [(row["message_index"], row["message_text"]) for row in landed] == list(enumerate(line, start=1))


def test_a_new_process_passes_over_the_inputs_landed_before_without_reading_them(lake, tmp_path):
    lake.scenario("incoming_landed_before")
    root = tmp_path / "incoming"
    (root / "canal_json").mkdir(parents=True)
    write_jsonl(root / "canal_json" / "a.jsonl", [canal_insert(1), canal_insert(2)])
    shutil.copytree(SAMPLES / "dts_avro" / "crm_files", root / "dts_avro" / "crm_files")
    settle(root)
    said: list[str] = []
    assert [r.total for r in land_incoming(IncomingFolder(root), spark=lake.spark, say=said.append)] == [2, 2]
    # landed by a plain `land` too: its landing records what the file looked like
    write_jsonl(root / "canal_json" / "b.jsonl", [canal_insert(3)])
    settle(root / "canal_json" / "b.jsonl")
    assert lake.land([root / "canal_json" / "b.jsonl"], "canal_json").total == 1
    assert set(landed_signatures(lake.spark, load_settings())) == {
        str(root / "canal_json" / "a.jsonl"), str(root / "canal_json" / "b.jsonl"), str(root / "dts_avro" / "crm_files")
    }

    later = IncomingFolder(root)  # a later run of `land --incoming`
    said.clear()
    assert land_incoming(later, spark=lake.spark, say=said.append) == []
    assert said == []  # not read, so not said to be landed already
    assert later.look().unchanged == 3

    # touched: it looks different, so it is read again, and adds nothing
    an_hour_and_a_minute_ago = time.time() - 3660
    os.utime(root / "canal_json" / "a.jsonl", (an_hour_and_a_minute_ago, an_hour_and_a_minute_ago))
    reports = land_incoming(later, spark=lake.spark, say=said.append)
    assert [r.total for r in reports] == [0]
    assert said == [f"{root / 'canal_json' / 'a.jsonl'}: already landed, nothing added"]
