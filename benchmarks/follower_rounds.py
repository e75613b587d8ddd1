"""Increments as a follower runs them: land and build, round after round, in one process.

    .venv/bin/python benchmarks/follower_rounds.py --format canal_json FILE --format debezium_json FILE \\
        [--round --format canal_json FILE ...]

`cdc-lake land --kafka ... --follow` lands and runs `dbt build` in the same process and Spark
session, round after round, so only its first round pays the JVM's start and warm-up. This script
does the same with files instead of topics (one round per `--round`-separated group: each file
landed with its known format, a landing per format, then the follower's build) in the lake the
CDC_LAKE_* variables name (dbt's target and logs under CDC_LAKE_DBT_STATE, as for any in-process
build), and prints one JSON line per round: its landing's and its build's wall
seconds and the CPU seconds of the process tree (Python and the JVM) over the round.
`benchmarks/run.py --follower-rounds K` runs it after the separate-process increments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR / "python"))

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of `root` and its live descendants (/proc)."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


def parse_rounds(argv: list[str]) -> list[list[tuple[str, str]]]:
    """The (format id, path) groups of each round, split at `--round`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rounds: list[list[tuple[str, str]]] = [[]]
    words = iter(argv)
    for word in words:
        if word == "--round":
            rounds.append([])
        elif word == "--format":
            format_id, path = next(words, None), next(words, None)
            if path is None:
                parser.error("--format needs a format id and a file")
            rounds[-1].append((format_id, path))
        else:
            parser.error(f"unexpected argument {word!r}: give --format ID FILE pairs split by --round")
    if not all(rounds):
        parser.error("every round needs at least one --format ID FILE")
    return rounds


def main(argv: list[str] | None = None) -> int:
    rounds = parse_rounds(sys.argv[1:] if argv is None else argv)
    from cdc_lake.dbt import run_dbt
    from cdc_lake.follow import BUILD_ARGS
    from cdc_lake.land import land_each

    for number, groups in enumerate(rounds, start=1):
        cpu_before, started = tree_cpu_seconds(os.getpid()), time.monotonic()
        land_each([(format_id, [path]) for format_id, path in groups], say=lambda _message: None)
        landed = time.monotonic()
        run_dbt(BUILD_ARGS)
        built = time.monotonic()
        print(
            json.dumps(
                {
                    "round": number,
                    "land_s": round(landed - started, 2),
                    "build_s": round(built - landed, 2),
                    "total_s": round(built - started, 2),
                    "cpu_s": round(tree_cpu_seconds(os.getpid()) - cpu_before, 2),
                }
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
