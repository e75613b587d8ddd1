"""Benchmark cdc_chain_row_images, the chaining of a table without a key (issue 31): the JVM
function (what Spark and the Thrift Server run) against the plain-SQL fold Databricks runs.

    .venv/bin/python benchmarks/row_image_chains.py                   # 1,000 to 64,000 changes
    .venv/bin/python benchmarks/row_image_chains.py --sizes 256000 4096000 --jvm-only

Each size is one table's changes (inserts, updates and deletes over rows of which a tenth are
identical to another live row), chained in one call, timed as wall seconds of a Spark query on
the local session. An implementation stops at the first size that takes more than `--cap`
seconds. Not a test: nothing is asserted (test_row_image_chains.py checks the results).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parents[1]
MACROS = ROOT / "macros" / "marts" / "cdc_chain_row_images.sql"


def changes(count: int, seed: int = 31) -> tuple[list[str], list[str | None], list[str | None]]:
    """A plausible keyless stream: mostly inserts and updates of live rows, some deletes."""
    rng = random.Random(seed)
    live: list[str] = []
    ops, befores, afters = [], [], []
    for i in range(count):
        roll = rng.random()
        if not live or roll < 0.4:
            image = f"row-{rng.randrange(max(1, i // 10 + 1))}" if rng.random() < 0.1 else f"row-{i}"
            ops.append("insert"), befores.append(None), afters.append(image)
            live.append(image)
        elif roll < 0.85:
            at = rng.randrange(len(live))
            image = f"row-{i}-u"
            ops.append("update"), befores.append(live[at]), afters.append(image)
            live[at] = image
        else:
            at = rng.randrange(len(live))
            ops.append("delete"), befores.append(live.pop(at)), afters.append(None)
    return ops, befores, afters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs=2, default=[1000, 64000], metavar=("FROM", "TO"))
    parser.add_argument("--cap", type=float, default=60.0, help="stop an implementation above this many seconds")
    parser.add_argument("--jvm-only", action="store_true", help="time the JVM function only (for large sizes)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "python"))
    from cdc_lake.spark import get_spark

    spark = get_spark()
    spark.sql("create or replace temporary function bench_chain_row_images as 'io.cdclake.spark.RowImageChains'")
    fold = jinja2.Environment().from_string(MACROS.read_text()).module.cdc_chain_row_images_sql("o", "b", "a")
    implementations = {
        "jvm": "bench_chain_row_images(o, b, a)",
        "sql fold (Databricks)": str(fold),
    }
    stopped: set[str] = {"sql fold (Databricks)"} if args.jvm_only else set()
    print(f"{'changes':>9} | {'implementation':<22} | {'wall s':>7} | chained")
    size = args.sizes[0]
    while size <= args.sizes[1]:
        ops, befores, afters = changes(size)
        spark.createDataFrame([(ops, befores, afters)], "o array<string>, b array<string>, a array<string>") \
            .createOrReplaceTempView("bench_changes")
        for name, expression in implementations.items():
            if name in stopped:
                continue
            start = time.perf_counter()
            [row] = spark.sql(f"select size(filter({expression}, s -> s is not null)) as n from bench_changes").collect()
            seconds = time.perf_counter() - start
            print(f"{size:>9,} | {name:<22} | {seconds:>7.2f} | {row['n']:,}", flush=True)
            if seconds > args.cap:
                stopped.add(name)
        size *= 4


if __name__ == "__main__":
    main()
