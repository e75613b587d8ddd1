"""Where a step's Spark task time goes: the task time of each table a build wrote, from Spark's event log.

    .venv/bin/python benchmarks/spark_event_log.py EVENT_LOG_DIR_OR_FILE [--top N]

`benchmarks/run.py --event-log` turns Spark's event log on for every step (JVM options
`-Dspark.eventLog.*`, one folder per step under OUT/event-logs) and prints this summary after each
`dbt build`. Each SQL query is attributed to the table it writes (`create table ... as` or
`insert overwrite`), or else to the tables it reads (a data test, a watermark, a row count), and
its tasks' run, CPU and GC seconds are summed per attribution. A build's wall seconds times the
cores it had, less the tasks' run seconds, is the time no task ran: planning, code generation,
dbt, the JVM's start and its compiler, waiting between nodes.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

# The table a query writes: the argument line of its write command's entry in the plan's details.
WRITE = re.compile(
    r"\(\d+\) (?:Execute )?(?:CreateDataSourceTableAsSelectCommand|InsertIntoHadoopFsRelationCommand)\n"
    r"(?:\w+(?: \[\d+\])?: [^\n]*\n)*?Arguments: (?P<arguments>[^\n]*)"
)
# `spark_catalog`.`schema`.`table` or spark_catalog.schema.table in an argument line or a scan.
TABLE_NAME = re.compile(r"spark_catalog`?\.`?\w+`?\.`?(\w+)")
SCAN = re.compile(r"Scan \w+ spark_catalog\.\w+\.(\w+)")
# A table of a build whose name carries dbt's staging suffix (cdc_table's build-then-swap).
BUILD_SUFFIX = re.compile(r"__v\d{14,}$")


@dataclass
class TableTime:
    """The summed figures of the queries attributed to one table."""

    queries: int = 0
    query_seconds: float = 0.0
    task_run_seconds: float = 0.0
    task_cpu_seconds: float = 0.0
    task_gc_seconds: float = 0.0
    tasks: int = 0


@dataclass
class EventLogSummary:
    by_table: dict[str, TableTime] = field(default_factory=lambda: defaultdict(TableTime))

    @property
    def task_run_seconds(self) -> float:
        return sum(t.task_run_seconds for t in self.by_table.values())

    @property
    def task_cpu_seconds(self) -> float:
        return sum(t.task_cpu_seconds for t in self.by_table.values())

    def as_dict(self, top: int | None = None) -> dict:
        rows = sorted(self.by_table.items(), key=lambda kv: -kv[1].task_run_seconds)[:top]
        return {
            "task_run_s": round(self.task_run_seconds, 1),
            "task_cpu_s": round(self.task_cpu_seconds, 1),
            "by_table": [
                {
                    "table": name,
                    "queries": t.queries,
                    "query_s": round(t.query_seconds, 1),
                    "task_run_s": round(t.task_run_seconds, 1),
                    "task_cpu_s": round(t.task_cpu_seconds, 1),
                    "task_gc_s": round(t.task_gc_seconds, 1),
                    "tasks": t.tasks,
                }
                for name, t in rows
            ],
        }


def query_label(plan: str, description: str) -> str:
    """What a query is attributed to: 'write T' for the table it writes, 'read T1,T2' for the tables
    a query that writes nothing scans, else Spark's description of it."""
    written = WRITE.search(plan)
    if written:
        arguments = written.group("arguments")
        name = TABLE_NAME.search(arguments)
        if name:
            return "write " + BUILD_SUFFIX.sub("", name.group(1))
    scanned = sorted({BUILD_SUFFIX.sub("", t) for t in SCAN.findall(plan)})
    if scanned:
        return "read " + ",".join(scanned)
    return (description or "other").split(" at ")[0]


def event_log_files(path: Path) -> list[Path]:
    """The event log files of a file or a folder (Spark's rolling logs: eventlog_v2_*/events_N_*),
    in order."""
    if path.is_file():
        return [path]

    def order(p: Path) -> tuple[str, int]:
        number = re.match(r"events_(\d+)_", p.name)
        return (str(p.parent), int(number.group(1)) if number else 0)

    files = [p for p in path.rglob("*") if p.is_file() and not p.name.startswith((".", "appstatus"))]
    return sorted(files, key=order)


def summarize(path: Path) -> EventLogSummary:
    """Sum the tasks of every SQL query in the event log(s) at `path` per table (query_label)."""
    summary = EventLogSummary()
    label_of: dict[int, str] = {}
    started: dict[int, int] = {}
    query_of_stage: dict[int, int] = {}
    for file in event_log_files(path):
        with file.open() as lines:
            for line in lines:
                event = json.loads(line)
                kind = event.get("Event", "")
                if kind.endswith("SQLExecutionStart"):
                    query = event["executionId"]
                    root = event.get("rootExecutionId", query)
                    label = label_of.get(root) or query_label(
                        event.get("physicalPlanDescription") or "", event.get("description") or ""
                    )
                    label_of[query] = label
                    started[query] = event["time"]
                    summary.by_table[label].queries += 1
                elif kind.endswith("SQLExecutionEnd") and event["executionId"] in started:
                    query = event["executionId"]
                    summary.by_table[label_of[query]].query_seconds += (event["time"] - started[query]) / 1e3
                elif kind == "SparkListenerJobStart":
                    query = (event.get("Properties") or {}).get("spark.sql.execution.id")
                    for stage in event.get("Stage IDs", []):
                        query_of_stage[stage] = int(query) if query is not None else -1
                elif kind == "SparkListenerTaskEnd":
                    metrics = event.get("Task Metrics") or {}
                    label = label_of.get(query_of_stage.get(event["Stage ID"], -1), "outside SQL queries")
                    table = summary.by_table[label]
                    table.tasks += 1
                    table.task_run_seconds += metrics.get("Executor Run Time", 0) / 1e3
                    table.task_cpu_seconds += metrics.get("Executor CPU Time", 0) / 1e9
                    table.task_gc_seconds += metrics.get("JVM GC Time", 0) / 1e3
    return summary


def format_summary(summary: EventLogSummary, top: int, wall_seconds: float | None = None, cores: int | None = None) -> str:
    """A few lines a person can read: the totals, then the tables with the most task time."""
    lines = [f"Spark tasks: {summary.task_run_seconds:.0f} s run, {summary.task_cpu_seconds:.0f} s CPU"]
    if wall_seconds and cores:
        core_seconds = wall_seconds * cores
        idle = max(0.0, core_seconds - summary.task_run_seconds)
        lines[0] += f" of {core_seconds:.0f} core-seconds ({idle / core_seconds:.0%} outside tasks)"
    for row in summary.as_dict(top)["by_table"]:
        lines.append(
            f"  {row['task_run_s']:7.1f} s run {row['task_cpu_s']:7.1f} s CPU {row['task_gc_s']:5.1f} s GC "
            f"{row['tasks']:5d} tasks {row['queries']:3d} queries  {row['table']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="an event log file, or a folder holding event logs")
    parser.add_argument("--top", type=int, default=15, help="tables to list (default 15)")
    args = parser.parse_args(argv)
    if not event_log_files(args.path):
        parser.error(f"no event log under {args.path}: run a step with benchmarks/run.py --event-log first")
    print(format_summary(summarize(args.path), args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
