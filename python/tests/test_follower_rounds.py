"""benchmarks/follower_rounds.py: its rounds from the command line, and the CPU and memory of a process tree."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import follower_rounds  # noqa: E402


def test_rounds_split_at_round_with_their_formats() -> None:
    rounds = follower_rounds.parse_rounds(
        [
            "--format", "canal_json", "a/canal.jsonl", "--format", "debezium_json", "a/debezium.jsonl",
            "--round", "--format", "canal_json", "b/canal.jsonl",
        ]
    )  # fmt: skip
    assert rounds == [
        [("canal_json", "a/canal.jsonl"), ("debezium_json", "a/debezium.jsonl")],
        [("canal_json", "b/canal.jsonl")],
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ["--format", "canal_json"],  # no file
        ["--format", "canal_json", "a.jsonl", "--round"],  # an empty last round
        ["a.jsonl"],  # a file without its format
    ],
)
def test_a_round_without_a_format_and_file_is_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        follower_rounds.parse_rounds(argv)


def test_the_tree_cpu_counts_a_busy_child() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(30)"]
    )
    try:
        deadline = time.monotonic() + 30
        while follower_rounds.tree_cpu_seconds(child.pid) < 0.4 and time.monotonic() < deadline:
            time.sleep(0.1)
        busy = follower_rounds.tree_cpu_seconds(child.pid)
        assert busy >= 0.4
        # this process's tree holds the child (and whatever else this test worker started)
        assert follower_rounds.tree_cpu_seconds(os.getpid()) >= busy + sum(os.times()[:2]) - 0.05
    finally:
        child.kill()
        child.wait()


def test_the_tree_rss_holds_a_child_that_holds_memory() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nheld = bytearray(300 * 1024 * 1024)\nprint(flush=True)\ntime.sleep(30)"],
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        child.stdout.readline()  # the child holds its memory now
        assert follower_rounds.tree_rss_bytes(child.pid) >= 250 * 1024 * 1024
        # this process's tree holds the child
        assert follower_rounds.tree_rss_bytes(os.getpid()) >= follower_rounds.tree_rss_bytes(child.pid)
    finally:
        child.kill()
        child.wait()
