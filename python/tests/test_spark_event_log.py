"""benchmarks/spark_event_log.py attributes each SQL query's tasks to the table it writes (or reads).

A hand-made event log in Spark's own event shapes: a CTAS with a child query, an insert overwrite,
a data test that only reads, and a task outside any SQL query.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import spark_event_log  # noqa: E402

CTAS_PLAN = """== Physical Plan ==
Execute CreateDataSourceTableAsSelectCommand (1)
+- CreateDataSourceTableAsSelectCommand (2)

(1) Execute CreateDataSourceTableAsSelectCommand
Output: []

(2) CreateDataSourceTableAsSelectCommand
Arguments: `spark_catalog`.`cdc_bench`.`cdc_tables__v20261202012324303619`, ErrorIfExists, [a, b]
"""
INSERT_PLAN = """== Physical Plan ==
AdaptiveSparkPlan (3)
+- Execute InsertIntoHadoopFsRelationCommand (2)
   +- Scan parquet spark_catalog.cdc_bench.int_cdc__changes (1)

(1) Scan parquet spark_catalog.cdc_bench.int_cdc__changes
Output [1]: [change_id#1]

(2) Execute InsertIntoHadoopFsRelationCommand
Input: []
Arguments: file:/lake/warehouse/cdc_bench.db/int_cdc__history_versions, false, Parquet, Overwrite, `spark_catalog`.`cdc_bench`.`int_cdc__history_versions`, [x]
"""
TEST_PLAN = """== Physical Plan ==
AdaptiveSparkPlan (2)
+- Scan parquet spark_catalog.cdc_bench.cdc_changes__v20261202012324303619 (1)
+- Scan parquet spark_catalog.cdc_bench.int_cdc__changes (1)
"""


def query_start(query: int, plan: str, time_ms: int, root: int | None = None) -> dict:
    return {
        "Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
        "executionId": query,
        "rootExecutionId": query if root is None else root,
        "description": "sql at <unknown>:0",
        "physicalPlanDescription": plan,
        "time": time_ms,
    }


def query_end(query: int, time_ms: int) -> dict:
    return {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd", "executionId": query, "time": time_ms}


def job(query: int | None, stages: list[int]) -> dict:
    properties = {} if query is None else {"spark.sql.execution.id": str(query)}
    return {"Event": "SparkListenerJobStart", "Stage IDs": stages, "Properties": properties}


def task(stage: int, run_ms: int, cpu_ns: int, gc_ms: int = 0) -> dict:
    metrics = {"Executor Run Time": run_ms, "Executor CPU Time": cpu_ns, "JVM GC Time": gc_ms}
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Task Metrics": metrics}


def test_tasks_are_summed_per_table_written_or_read(tmp_path: Path) -> None:
    events = [
        query_start(1, CTAS_PLAN, 0),
        query_start(2, "== Physical Plan ==\nScan parquet spark_catalog.cdc_bench.other (1)", 10, root=1),
        job(2, [7]),
        task(7, 2000, 1_500_000_000, 100),
        task(7, 1000, 500_000_000),
        query_end(2, 3000),
        query_end(1, 3500),
        query_start(3, INSERT_PLAN, 4000),
        job(3, [8, 9]),
        task(8, 4000, 3_000_000_000),
        task(9, 500, 250_000_000),
        query_end(3, 9000),
        query_start(4, TEST_PLAN, 9000),
        job(4, [10]),
        task(10, 300, 100_000_000),
        query_end(4, 9500),
        job(None, [11]),
        task(11, 200, 100_000_000),
    ]
    folder = tmp_path / "eventlog_v2_local-1"
    folder.mkdir()
    (folder / "events_1_local-1").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    (folder / "appstatus_local-1").write_text("")

    summary = spark_event_log.summarize(tmp_path)
    rows = {row["table"]: row for row in summary.as_dict()["by_table"]}

    # the child query of the CTAS counts for the table the CTAS writes, under its final name
    assert rows["write cdc_tables"] == {
        "table": "write cdc_tables",
        "queries": 2,
        "query_s": 6.5,
        "task_run_s": 3.0,
        "task_cpu_s": 2.0,
        "task_gc_s": 0.1,
        "tasks": 2,
    }
    assert rows["write int_cdc__history_versions"]["task_run_s"] == 4.5
    assert rows["write int_cdc__history_versions"]["tasks"] == 2
    assert rows["read cdc_changes,int_cdc__changes"]["task_cpu_s"] == 0.1
    assert rows["outside SQL queries"]["task_run_s"] == 0.2
    assert round(summary.task_run_seconds, 1) == 8.0
    # the most task time first
    assert summary.as_dict()["by_table"][0]["table"] == "write int_cdc__history_versions"

    text = spark_event_log.format_summary(summary, top=2, wall_seconds=10.0, cores=2)
    assert text.splitlines()[0] == "Spark tasks: 8 s run, 5 s CPU of 20 core-seconds (60% outside tasks)"
    assert len(text.splitlines()) == 3
