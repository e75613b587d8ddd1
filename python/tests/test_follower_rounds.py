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


def test_a_failed_follower_counts_the_messages_it_was_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """benchmarks/run.py: a follower that fails in its second of three rounds shows its first round
    as a step of its own and the process as a failed step with the messages of all three rounds
    (not 0, as if it had been given none)."""
    import argparse

    import run

    log = tmp_path / "f.log"
    log.write_text(
        'landing...\n{"round": 1, "total_s": 9.0, "cpu_s": 12.0, "land_s": 2.0, "build_s": 7.0, '
        '"rss_gib_after": 1.0, "python_rss_gib_after": 0.2, "heap_live_gib_after": 0.3, '
        '"heap_committed_gib_after": 0.6}\nTraceback (most recent call last): ...\n'
    )
    commands: list[list[str]] = []

    def failed_process(name: str, command: list[str], env: dict, log_path: Path, interval: float) -> run.Step:
        commands.append(command)
        return run.Step(name, seconds=30.0, returncode=1, log=str(log), peak_rss_bytes=2**30)

    monkeypatch.setattr(run, "measure", failed_process)
    args = argparse.Namespace(increments=1, follower_rounds=3, out=tmp_path, sample_interval=0.5)
    manifest = {"increment_messages": [100, 110, 120, 130]}
    steps: dict[str, run.Step] = {}
    messages: dict[str, int] = {}
    checks: dict[str, str] = {}
    run.follower_rounds("x", tmp_path, tmp_path, ["canal_json"], manifest, {}, args, steps, messages, checks)
    assert commands[0].count("--round") == 2  # increments 2, 3 and 4, in one process
    assert list(steps) == ["(f1) follower round x", "(f) follower x"]
    assert messages == {"(f1) follower round x": 110, "(f) follower x": 110 + 120 + 130}
    assert steps["(f) follower x"].returncode == 1 and not checks
