"""What landing a small input costs once the Spark session is up (issue 30: "well under a second").

Lands the shipped samples (13 inputs of a few messages, `cdc-lake demo`'s) one `land` call each
into a lake of its own, in one Spark session, and prints each call's seconds and where they went:
the steps of cdc_lake.land are timed by wrapping them. Later rounds land the text files again
with a blank line added (new content, the same messages; binary inputs only once): their
figures are the warm ones, the first round pays for the JVM's first use of each code path.

Usage: .venv/bin/python benchmarks/small_landing.py [--rounds N]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

from scratch_lake import lake_env

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("ensure_tables", "_drop_uncommitted", "next_landing", "_scan_text_inputs", "write_landing")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="times the 13 samples are landed (default 2)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cdc-lake-small-landing-"))
    os.environ.update(lake_env(root, "small_landing"))
    sys.path.insert(0, str(ROOT / "python"))
    from cdc_lake import land as landing
    from cdc_lake.demo import sample_inputs
    from cdc_lake.spark import get_spark

    spent: dict[str, float] = defaultdict(float)

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*a: Any, **k: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                spent[name] += time.perf_counter() - started

        return wrapper

    for name in STEPS:
        setattr(landing, name, timed(name, getattr(landing, name)))
    started = time.perf_counter()
    spark = get_spark()
    print(f"Spark session: {time.perf_counter() - started:.1f} s")
    samples = sample_inputs()
    print(f"{'round':>5} {'input':<28} {'total':>6} " + " ".join(f"{s.strip('_')[:13]:>13}" for s in STEPS))
    totals: list[float] = []
    for round_number in range(1, args.rounds + 1):
        for format_id, path in samples:
            is_text = path.is_file() and path.suffix in (".json", ".jsonl", ".txt")
            if not is_text and round_number > 1:
                continue  # binary messages (a folder, a Kafka dump) cannot take a blank line: landed once
            spent.clear()
            copy = path
            if is_text:  # a blank line more per round: new content, the same messages
                copy = root / f"round{round_number}" / path.name
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(path.read_bytes() + b"\n" * round_number)
            started = time.perf_counter()
            landing.land([str(copy)], format_id, spark=spark, say=lambda _m: None)
            total = time.perf_counter() - started
            if round_number > 1:
                totals.append(total)
            print(
                f"{round_number:>5} {path.name[:28]:<28} {total:6.2f} "
                + " ".join(f"{spent[s]:13.2f}" for s in STEPS)
            )
    if totals:
        print(f"after the first round: median {statistics.median(totals):.2f} s, max {max(totals):.2f} s per input")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
