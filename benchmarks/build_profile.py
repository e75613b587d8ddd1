"""Where a small build's Spark time goes (issue 30: small builds are quick).

Lands the shipped Canal JSON samples into a lake of its own and builds once, in one Spark session;
then, per round, lands them again with a blank line added (new inputs: the same messages, which the
build counts as duplicates) and runs an incremental `dbt build` with Spark's analyzer and optimizer
rules timed (`RuleExecutor` metrics, reset before each build). It prints each build's wall seconds,
the SQL statements dbt sent (from its log; the table-property and partition reads counted apart),
the rules that took the most of it (a rule's time includes the rules it runs inside, e.g.
resolving a view analyzes the view's query), its slowest nodes (--nodes, from dbt's run_results.json),
and at the end what analyzing each format's staging query costs once warm (the staging models are
ephemeral: a build analyzes the queries of the formats landed when int_cdc__events reads them).

Usage: .venv/bin/python benchmarks/build_profile.py [--rounds N] [--top N] [--nodes N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from scratch_lake import lake_env

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "build_profile"
BUILD = ["build", "--exclude-resource-type", "unit_test"]
# One line of RuleExecutor.dumpTimeSpent(): the rule, its effective and total nanoseconds, runs.
RULE_LINE = re.compile(r"^(\S+)\s+(\d+) / (\d+)\s+(\d+) / (\d+)\s*$")


def rule_seconds(dump: str) -> list[tuple[str, float, int]]:
    """(rule's short name, total seconds, effective runs) of each rule in a dumpTimeSpent() text,
    the most expensive first."""
    rules = []
    for line in dump.splitlines():
        match = RULE_LINE.match(line.strip())
        if match:
            name, _effective_ns, total_ns, effective_runs, _runs = match.groups()
            rules.append((name.rsplit(".", 1)[-1], int(total_ns) / 1e9, int(effective_runs)))
    return sorted(rules, key=lambda rule: -rule[1])


def statements_logged(log: Path, offset: int) -> str:
    """The SQL statements dbt's log records after byte `offset` ("SQL status" lines), and how many of
    them read a table's properties or partitions."""
    with log.open("rb") as handle:
        handle.seek(offset)
        text = handle.read().decode("utf-8", "replace")
    return (f"{text.count('SQL status: ')} statements ({text.count('show tblproperties ')} show tblproperties, "
            f"{text.count('show partitions ')} show partitions)")


def slowest_nodes(run_results: Path) -> list[tuple[float, str]]:
    """(seconds, node name) of each node of dbt's last run (its run_results.json), slowest first."""
    results = json.loads(run_results.read_text(encoding="utf-8"))["results"]
    return sorted(((result["execution_time"], result["unique_id"].split(".", 2)[-1]) for result in results),
                  reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="incremental builds measured (default 2)")
    parser.add_argument("--top", type=int, default=8, help="rules printed per build (default 8)")
    parser.add_argument("--nodes", type=int, default=0, help="slowest nodes printed per build (default 0)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cdc-lake-build-profile-"))
    os.environ.update(lake_env(root, SCHEMA))
    sys.path.insert(0, str(ROOT / "python"))
    from cdc_lake.dbt import run_dbt
    from cdc_lake.land import land
    from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS
    from cdc_lake.spark import get_spark

    # small data: the driver JVM options of the demo and the test suite, unless the caller says otherwise
    os.environ.setdefault("CDC_LAKE_JVM_OPTIONS", SHORT_RUN_JVM_OPTIONS)

    spark = get_spark()
    rules = spark.sparkContext._jvm.org.apache.spark.sql.catalyst.rules.RuleExecutor
    samples = sorted((ROOT / "sample_data" / "canal_json").glob("*.jsonl"))
    land([str(p) for p in samples], "canal_json", spark=spark, say=lambda _m: None)
    started = time.perf_counter()
    run_dbt(BUILD, reuse_manifest=True)
    print(f"first build: {time.perf_counter() - started:.1f} s")

    log = root / "dbt" / "logs" / "dbt.log"
    for round_number in range(1, args.rounds + 1):
        copies = []
        for path in samples:  # a blank line more per round: a new input, the same messages
            copy = root / f"round{round_number}" / path.name
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(path.read_bytes() + b"\n" * round_number)
            copies.append(str(copy))
        land(copies, "canal_json", spark=spark, say=lambda _m: None)
        rules.resetMetrics()
        offset = log.stat().st_size
        started = time.perf_counter()
        run_dbt(BUILD, reuse_manifest=True)
        wall = time.perf_counter() - started
        timed = rule_seconds(rules.dumpTimeSpent())
        print(f"incremental build {round_number}: {wall:.1f} s, {statements_logged(log, offset)}; "
              "analyzer and optimizer rules "
              f"{sum(seconds for _name, seconds, _runs in timed):.1f} s, the most expensive:")
        for name, seconds, runs in timed[: args.top]:
            print(f"  {name:<40} {seconds:6.2f} s {100 * seconds / wall:5.1f}% of the build, {runs} effective runs")
        for seconds, node in slowest_nodes(root / "dbt" / "target" / "run_results.json")[: args.nodes]:
            print(f"  node {node:<60} {seconds:6.2f} s")

    print("analyzing each format's staging query (warm: the third analysis of each):")
    compiled = run_dbt(["compile", "--select", "path:models/staging", "--exclude", "path:models/staging/landing"],
                       reuse_manifest=True)
    for result in sorted(compiled.results, key=lambda result: result.node.name):
        for _ in range(3):
            started = time.perf_counter()
            spark.sql(result.node.compiled_code)._jdf.queryExecution().analyzed()
            seconds = time.perf_counter() - started
        print(f"  {result.node.name:<40} {seconds:6.2f} s  ({len(result.node.compiled_code) / 1024:.0f} KB of SQL)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
