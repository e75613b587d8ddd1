"""Benchmark cdc_exact_json (the JSON repair before from_json) on texts that used to cost the square
of their length (issue 27), and the landing of one such message.

    .venv/bin/python benchmarks/json_repair.py                     # every function, 1 MB and 10 MB
    .venv/bin/python benchmarks/json_repair.py --land              # and `cdc-lake land` of one line
    .venv/bin/python benchmarks/json_repair.py --sizes 1000000 --implementations explain jvm

For each family of texts and each implementation it times sizes from 16 kB, doubling, up to each
size asked for, and stops an implementation at the first size that takes more than `--cap`
seconds; it then prints what the size asked for would take if the time grows with the square of
the size (marked "est."). The implementations:

- `explain`: exact_json.explain, the Python reference of cdc_json_error (normalize, json.loads,
  the nesting and string-length checks; the landing ran it on the messages that failed its check
  until staging explained them);
- `python re`: Python's re over the macro's two patterns (the explain before issue 27);
- `jvm`: the JVM function cdc_exact_json in Spark (what the staging models run on Spark);
- `spark regex`: the macro's two regexp_replace in Spark (what Databricks runs, and the landing's
  check before issue 27);
- `json error`: the JVM function cdc_json_error in Spark (what staging runs on a message whose
  from_json failed, for its quarantine reason).

With `--land`, each family's text of each size is written as a one-line file and landed by
`cdc-lake land --format canal_json` in a fresh process, into an empty lake in a temporary folder
(JVM start, session, both passes, the Parquet write and commit): the wall time. Not a test: nothing
is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from scratch_lake import lake_env  # noqa: E402
IMPLEMENTATIONS = ["explain", "python re", "jvm", "spark regex", "json error"]
PYTHON_IMPLEMENTATIONS = ["explain", "python re"]

FAMILIES: dict[str, tuple[str, Callable[[int], str]]] = {
    "open-comments": ("comments opened after the last */", lambda n: '{"a": 1, /* x */ ' + "/* " * (n // 3) + "}"),
    "comma-open-comments": ("commas before comments that never close", lambda n: '{"a": [' + "1, /* " * (n // 6) + "]}"),
    "escaped-quotes": ("unterminated string of escaped quotes", lambda n: '{"a": "' + '\\"' * (n // 2)),
    "one-open-comment": ("one unterminated comment", lambda n: '{"a": 1, /* ' + "x" * n + "}"),
    "long-string": ("a long string value (valid)", lambda n: '{"a": "' + "x" * n + '"}'),
    "numbers": ("many numbers (valid)", lambda n: '{"a": [' + "1.25, " * (n // 6) + "2]}"),
    "deep": ("deep nesting (900 levels, valid)", lambda n: '{"a": ' * 900 + '"' + "x" * n + '"' + "}" * 900),
    "too-deep": ("deeper than Spark reads", lambda n: "[" * (n // 2) + "]" * (n // 2)),
}


def _timed(name: str, run: Callable[[], object]) -> float:
    """CPU seconds of this process for the Python implementations (a loaded machine inflates wall
    time, not CPU time), wall seconds for the Spark ones (their work is in the JVM)."""
    clock = time.process_time if name in PYTHON_IMPLEMENTATIONS else time.perf_counter
    start = clock()
    run()
    return clock() - start


def _ladder(sizes: list[int]) -> list[int]:
    steps, size = [], 16_000
    while size < max(sizes):
        steps.append(size)
        size *= 2
    return sorted(set(steps) | set(sizes))


def _python_re(text: str) -> str:
    from cdc_lake import exact_json

    stripped = re.sub(exact_json.STRIP_PATTERN, r"\1\2", text)
    return re.sub(exact_json.QUOTE_PATTERN, r'\2"\1\3"', stripped)


def _spark_functions() -> dict[str, Callable[[str], object]]:
    from cdc_lake import exact_json
    from cdc_lake.spark import get_spark

    os.environ.update(lake_env(Path(tempfile.mkdtemp(prefix="json_repair_")), "json_repair"))
    spark = get_spark()
    spark.sql("create or replace temporary function bench_exact_json as 'io.cdclake.spark.ExactJson'")
    spark.sql("create or replace temporary function bench_json_error as 'io.cdclake.spark.JsonError'")

    def query(expression: str) -> Callable[[str], object]:
        def run(text: str) -> object:
            frame = spark.createDataFrame([(text,)], "text string")
            return frame.selectExpr(f"count_if({expression} is not null)").collect()

        return run

    return {
        "jvm": query("bench_exact_json(text)"),
        "spark regex": query(exact_json.normalize_sql("text")),
        "json error": query("bench_json_error(text)"),
    }


def _estimates(
    sizes: list[int], size: int, seconds: float, previous: tuple[int, float] | None
) -> dict[int, str]:
    """What the sizes above `size` would take, growing as from the step before to this one:
    time ~ size^k, k between 1 (linear) and 2 (quadratic)."""
    import math

    k = 2.0
    if previous and previous[1] > 0:
        k = min(2.0, max(1.0, math.log(seconds / previous[1]) / math.log(size / previous[0])))
    return {
        later: f"est. {seconds * (later / size) ** k:,.0f} s (at {size / 1e3:g} kB: {seconds:.1f} s, k = {k:.1f})"
        for later in sizes
        if later > size
    }


def measure(sizes: list[int], cap: float, families: list[str], implementations: list[str]) -> None:
    from cdc_lake import exact_json

    functions: dict[str, Callable[[str], object]] = {"explain": exact_json.explain, "python re": _python_re}
    if set(implementations) - set(functions):
        functions.update(_spark_functions())
    functions = {name: run for name, run in functions.items() if name in implementations}
    for run in functions.values():  # warm up: the JVM compiles, Spark plans its first query
        run('{"a": [1, /* c */ 2,]}')
    print("| family | implementation (Python: CPU s, Spark: wall s) | " + " | ".join(f"{s / 1e6:g} MB" for s in sizes) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in sizes) + " |")
    for family in families:
        description, make = FAMILIES[family]
        for name, run in functions.items():
            figures: dict[int, str] = {}
            previous: tuple[int, float] | None = None
            for size in _ladder(sizes):
                text = make(size)
                seconds = _timed(name, lambda: run(text))
                if size in sizes:
                    figures[size] = f"{seconds:.2f} s"
                if seconds > cap:
                    figures.update(_estimates(sizes, size, seconds, previous))
                    break
                previous = (size, seconds)
            cells = " | ".join(figures.get(s, "") for s in sizes)
            print(f"| {description} | {name} | {cells} |", flush=True)


def land(sizes: list[int], families: list[str]) -> None:
    from run import TreeSampler  # benchmarks/run.py: CPU time of a process tree, sampled

    print("\n| family (one line) | size | `cdc-lake land` wall s | CPU s (process tree) |")
    print("| --- | --- | --- | --- |")
    runs = [("a small valid message (the fixed cost)", 0, '{"a": 1}')]
    runs += [(FAMILIES[family][0], size, FAMILIES[family][1](size)) for family in families for size in sizes]
    for description, size, text in runs:
        if "\n" in text:
            continue
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "message.jsonl"
            path.write_text(text + "\n", encoding="utf-8")
            env = lake_env(Path(folder), "json_repair")
            command = [str(ROOT / ".venv" / "bin" / "cdc-lake"), "land", "--format", "canal_json", str(path)]
            start = time.perf_counter()
            process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            sampler = TreeSampler(process.pid, 0.2)
            sampler.start()
            if process.wait() != 0:
                raise SystemExit(f"{' '.join(command)} failed ({process.returncode})")
            sampler.stop()
            seconds = time.perf_counter() - start
        print(f"| {description} | {size / 1e6:g} MB | {seconds:.1f} | {sampler.cpu_seconds:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000], help="text sizes (characters)")
    parser.add_argument("--cap", type=float, default=20.0, help="stop an implementation after a step this slow (s)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--implementations", nargs="+", default=IMPLEMENTATIONS, choices=IMPLEMENTATIONS)
    parser.add_argument("--land", action="store_true", help="also time `cdc-lake land` of one message")
    parser.add_argument("--land-only", action="store_true", help="only time `cdc-lake land`")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"commit {commit.stdout.strip()}, sizes {args.sizes}, cap {args.cap} s, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if not args.land_only:
        measure(sorted(args.sizes), args.cap, args.families, args.implementations)
    if args.land or args.land_only:
        land(sorted(args.sizes), args.families)


if __name__ == "__main__":
    main()
