"""Increments as a follower runs them: land and build, round after round, in one process.

    .venv/bin/python benchmarks/follower_rounds.py --format canal_json FILE --format debezium_json FILE \\
        [--round --format canal_json FILE ...]

`cdc-lake land --incoming DIR --follow` (and `--kafka ... --follow`) lands and runs `dbt build` in
the same process and Spark session, round after round, so only its first round pays the JVM's start
and warm-up. This script runs those rounds as the folder follower does (one round per
`--round`-separated group: the round's files appear in an incoming folder of its own, under
`<format id>/`, beside the earlier rounds' files; `incoming.land_incoming` lands the new ones, a
landing per format, then the follower's build) in the lake the CDC_LAKE_* variables name (dbt's
target and logs under CDC_LAKE_DBT_STATE, as for any in-process build). It prints one JSON line
per round: its landing's and its build's wall seconds, the CPU seconds of the process tree (Python
and the JVM) over the round, the tree's and Python's own resident memory when the round ended,
and the JVM's heap after a full collection, live and committed (whether a long-lived follower
keeps growing, and in what).
`benchmarks/run.py --follower-rounds K` runs it after the separate-process increments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import psutil

from run import TreeSampler  # benchmarks/run.py, beside this script

PROJECT_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_DIR / "python"))


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of `root` and its live descendants (one sample of run.py's
    TreeSampler)."""
    sampler = TreeSampler(root)
    sampler.sample()
    return sampler.cpu_seconds


def tree_rss_bytes(root: int) -> int:
    """Resident memory of `root` and its live descendants, in bytes (one sample of run.py's
    TreeSampler, which counts a child the JVM has just vforked once, not twice)."""
    sampler = TreeSampler(root)
    sampler.sample()
    return sampler.peak_rss


def jvm_heap_after_gc(spark: object) -> tuple[int, int]:
    """The driver JVM's heap in use after a full collection (what it holds on to: a follower whose
    live heap grows round after round keeps something per round) and the heap it has committed
    (what its resident memory follows), in bytes. Taken after a round, outside its timings."""
    jvm = spark._jvm  # type: ignore[attr-defined]
    jvm.java.lang.System.gc()
    runtime = jvm.java.lang.Runtime.getRuntime()
    return runtime.totalMemory() - runtime.freeMemory(), runtime.totalMemory()


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
    from cdc_lake.incoming import IncomingFolder, land_incoming
    from cdc_lake.settings import load_settings
    from cdc_lake.spark import get_spark

    settings = load_settings()
    spark = None  # started in the first round, as the follower's first round pays its start
    incoming = Path(tempfile.mkdtemp(prefix="follower-incoming-"))
    folder = IncomingFolder(incoming)
    for number, groups in enumerate(rounds, start=1):
        cpu_before, started = tree_cpu_seconds(os.getpid()), time.monotonic()
        spark = spark or get_spark(settings)
        for format_id, path in groups:  # the round's files arrive, named for their round
            (incoming / format_id).mkdir(exist_ok=True)
            (incoming / format_id / f"round-{number}-{Path(path).name}").symlink_to(Path(path).absolute())
        land_incoming(folder, spark=spark, settings=settings, say=lambda _message: None, warn=print)
        landed = time.monotonic()
        run_dbt(BUILD_ARGS)
        built = time.monotonic()
        cpu_s, rss = tree_cpu_seconds(os.getpid()) - cpu_before, tree_rss_bytes(os.getpid())
        heap_live, heap_committed = jvm_heap_after_gc(spark)
        print(
            json.dumps(
                {
                    "round": number,
                    "land_s": round(landed - started, 2),
                    "build_s": round(built - landed, 2),
                    "total_s": round(built - started, 2),
                    "cpu_s": round(cpu_s, 2),
                    "rss_gib_after": round(rss / 1024**3, 2),
                    "python_rss_gib_after": round(psutil.Process().memory_info().rss / 1024**3, 2),
                    "heap_live_gib_after": round(heap_live / 1024**3, 3),
                    "heap_committed_gib_after": round(heap_committed / 1024**3, 2),
                }
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
