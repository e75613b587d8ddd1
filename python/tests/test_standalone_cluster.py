"""`cdc-lake land` and `dbt build` on a Spark standalone cluster give the lake a local run gives.

A master and two workers (one core, 1 GB each) start from pyspark's own jars (`bin/spark-class`) on
127.0.0.1, each worker with a work folder of its own. The shipped samples are landed and built twice,
each time in a lake (warehouse, metastore) of its own:

1. locally, in this process's embedded session (the `lake` fixture, local mode, expressions
   interpreted as everywhere in the suite: conftest.INTERPRETED_SPARK_CONF);
2. on the cluster, with Spark's generated code as users run it, in subprocesses with
   CDC_LAKE_SPARK_MASTER=spark://127.0.0.1:<port>:
   one `cdc-lake land --format auto` of the Kafka dump of Canal protobuf and the text samples (a
   file scan in tasks, the JVM detector function, the Python decoder and the pandas UDF that
   explains messages that do not parse, the JVM function cdc_exact_json), `dbt build`, then a
   reader that prints the compared tables as JSON and calls the JVM function and a Python UDF
   importing cdc_lake in tasks.

The test compares cdc_current, cdc_history, cdc_ddl and cdc_quarantine row for row (each landing's
wall-clock time, landed_at, replaced by the landing's number wherever it appears), and checks from
each application's event log (spark.eventLog, set in a spark-defaults.conf of the test's own
SPARK_CONF_DIR) that tasks ran on the executors of both workers and none failed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cdc_lake.dbt import PROJECT_DIR
from cdc_lake.serve import spark_home
from cdc_lake.settings import SHORT_RUN_JVM_OPTIONS

from conftest import CALLER_SPARK_CONF, GENERATED_CODE_SPARK_CONF, UNREAD_AND_TYPING, VENV_BIN, free_port, run_checked

pytestmark = pytest.mark.slow

SPARK_HOME = spark_home()
SAMPLES = PROJECT_DIR / "sample_data"
SCHEMA = "cluster_test"
RAW_SCHEMA = "cluster_test_raw"
WORKERS = 2

# (format, inputs) of each landing: one `cdc-lake land` each on the cluster, in this order. One is
# enough: the Kafka dump of Canal protobuf and the text samples of every format, detected (each
# application costs a driver and two executors).
LANDINGS = (
    ("auto", (SAMPLES / "canal_protobuf" / "sales_kafka.parquet", *sorted(SAMPLES.glob("*/*.jsonl")))),
)

# The compared tables. A landing's wall-clock time (landed_at) differs in every run, and the models
# use it as the validity start of a change with no event time (int_cdc__history_versions,
# int_cdc__row_image_versions: the snapshot rows of oms_default), so `canonical` replaces each
# landing's time, wherever it appears, by the landing's number; nothing else is left out.
COMPARED = ("cdc_current", "cdc_history", "cdc_ddl", "cdc_quarantine")
LANDED_AT = "landed_at"

# What `dbt build` builds: what the compared tables read, without the data tests (their invariants
# hold on the cluster's tables if they hold on the local ones, which equal them), the unit tests (SQL
# on fixed inputs) and the typing (conftest.UNREAD_AND_TYPING).
BUILD = ("--select", *(f"+{name}" for name in COMPARED), "--exclude-resource-type", "test", *UNREAD_AND_TYPING)


def compared_queries(schema: str, raw_schema: str) -> dict[str, str]:
    """One JSON text per row of each compared table, and one per landing: its number and time."""
    queries = {name: f"select to_json(struct(*)) as row_json from {schema}.{name}" for name in COMPARED}
    queries[LANDED_AT] = (
        "select to_json(struct(landing_seq, landed_at)) as row_json "
        f"from (select distinct landing_seq, landed_at from {raw_schema}.raw_messages)"
    )
    return queries


def canonical(tables: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each compared table's rows as JSON with sorted keys (a map's entry order depends on how it was
    built), every landing's time replaced by its number, in sorted order."""
    landings = [json.loads(row) for row in tables[LANDED_AT]]
    times = {landing["landed_at"]: f"landed_at of landing {landing['landing_seq']}" for landing in landings}
    assert len(times) == len(landings) > 0, "one time per landing"

    def replace(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: replace(item) for key, item in value.items()}
        if isinstance(value, list):
            return [replace(item) for item in value]
        return times.get(value, value) if isinstance(value, str) else value

    return {
        name: sorted(json.dumps(replace(json.loads(row)), sort_keys=True) for row in tables[name])
        for name in COMPARED
    }


# Run on the cluster after the build: the compared tables, then a JVM function (from the shipped jar)
# and a Python UDF importing cdc_lake evaluated in tasks over the landed rows, each task giving its
# working directory (an executor's folder in a worker's work folder).
READER = """
import json, os, sys
from pyspark.sql import functions as F
from cdc_lake.spark import get_spark

queries = json.loads(sys.argv[1])
spark = get_spark()
out = {name: [row[0] for row in spark.sql(sql).collect()] for name, sql in queries.items()}

def where_python_ran(text):
    import cdc_lake.exact_json
    return os.getcwd() + "|" + str(cdc_lake.exact_json.explain(text))

spark.sql("create or replace temporary function cdc_exact_json as 'io.cdclake.spark.ExactJson'")
raw = spark.table(os.environ["CDC_LAKE_RAW_SCHEMA"] + ".raw_messages").where("message_text is not null")
tasks = (
    raw.repartition(8)
    .select(F.udf(where_python_ran)("message_text").alias("python"), F.expr("cdc_exact_json(message_text)").alias("jvm"))
    .collect()
)
out["tasks"] = [row.python.split("|", 1)[0] for row in tasks]
out["jvm_results"] = sum(row.jvm is not None for row in tasks)
out["rows"] = len(tasks)
print("READER " + json.dumps(out))
"""


def _tail(path: Path, chars: int = 3000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else f"({path} missing)"


@dataclass
class Cluster:
    """A running standalone cluster: its master URL and where its daemons log and work."""

    master_url: str
    web_ui: str
    root: Path
    work_dirs: list[Path]

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.web_ui}/json/", timeout=5) as response:
            return json.load(response)


def _daemon(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args],
            env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each daemon's process group, then SIGKILL what is left after 20 s."""
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A master and WORKERS workers on 127.0.0.1 (one core, 1 GB each), stopped whatever happens."""
    root = tmp_path_factory.mktemp("standalone")
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": "256m",
        "SPARK_CONF_DIR": str(root / "conf"),
    }
    (root / "conf").mkdir()
    port, web_port = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web_port}", root, [])
    processes = [
        _daemon(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                 "--webui-port", str(web_port)], root / "master.log", env)
    ]
    try:
        for number in range(WORKERS):
            work_dir = root / f"worker{number}"
            work_dir.mkdir()
            cluster.work_dirs.append(work_dir)
            processes.append(_daemon(
                ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1", "--memory", "1g",
                 "--work-dir", str(work_dir), "--webui-port", str(free_port()), cluster.master_url],
                root / f"worker{number}.log", env,
            ))
        _wait_for_workers(cluster, processes, timeout=180)
        yield cluster
    finally:
        _stop(processes)


def _wait_for_workers(cluster: Cluster, processes: list[subprocess.Popen[bytes]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    alive = 0
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in processes):
            break
        try:
            alive = sum(worker["state"] == "ALIVE" for worker in cluster.state()["workers"])
        except OSError:
            alive = 0
        if alive == WORKERS:
            return
        time.sleep(1)
    logs = "\n".join(f"--- {log.name}\n{_tail(log)}" for log in sorted(cluster.root.glob("*.log")))
    pytest.fail(f"{alive} of {WORKERS} workers registered with {cluster.master_url} within {timeout} s\n{logs}")


@dataclass
class Runs:
    """The compared tables of both runs, what the reader saw on the cluster, and its event logs."""

    local: dict[str, list[str]]
    clustered: dict[str, Any]
    event_logs: list[Path]
    cluster: Cluster
    seconds: dict[str, float]


@pytest.fixture(scope="module")
def runs(cluster: Cluster, lake, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    seconds: dict[str, float] = {}
    started = time.monotonic()
    lake.scenario(SCHEMA)
    for format_id, inputs in LANDINGS:
        lake.land(inputs, format_id)
    lake.build(*BUILD)
    queries = compared_queries(SCHEMA, f"{SCHEMA}_raw")
    local = canonical({name: [row["row_json"] for row in lake.rows(sql)] for name, sql in queries.items()})
    seconds["local land and build"] = time.monotonic() - started

    root = tmp_path_factory.mktemp("cluster-lake")
    events = root / "events"
    events.mkdir()
    (cluster.root / "conf" / "spark-defaults.conf").write_text(
        # the event logs, and the executors' JVMs tuned for short runs as the drivers are (conftest)
        f"spark.eventLog.enabled true\nspark.eventLog.dir {events}\n"
        "spark.eventLog.rolling.enabled false\nspark.eventLog.compress false\n"
        f"spark.executor.extraJavaOptions {SHORT_RUN_JVM_OPTIONS}\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "CDC_LAKE_SPARK_MASTER": cluster.master_url,
        "CDC_LAKE_WAREHOUSE": str(root / "warehouse"),
        "CDC_LAKE_METASTORE": str(root / "metastore_db"),
        "CDC_LAKE_SCHEMA": SCHEMA,
        "CDC_LAKE_RAW_SCHEMA": RAW_SCHEMA,
        "CDC_LAKE_DRIVER_MEMORY": "1g",
        "SPARK_CONF_DIR": str(cluster.root / "conf"),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
        # the cluster runs generated code, as users' builds of more than 50,000 messages do (a
        # build this small would run interpreted: cdc_small_build_settings), where this
        # process interprets expressions (conftest.INTERPRETED_SPARK_CONF): equal lakes show both
        # modes agree
        "CDC_LAKE_SPARK_CONF": ",".join(filter(None, (GENERATED_CODE_SPARK_CONF, CALLER_SPARK_CONF))),
    }
    env.pop("CDC_LAKE_TARGET", None)
    started = time.monotonic()
    for format_id, inputs in LANDINGS:
        run_checked([str(VENV_BIN / "cdc-lake"), "land", "--format", format_id, *map(str, inputs)], env)
    seconds["cluster land"] = time.monotonic() - started
    started = time.monotonic()
    run_checked(
        [str(VENV_BIN / "dbt"), "--quiet", "build", *BUILD, "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR / "profiles"), "--target-path", str(root / "dbt" / "target"),
         "--log-path", str(root / "dbt" / "logs")],
        env,
    )
    seconds["cluster build"] = time.monotonic() - started
    started = time.monotonic()
    queries = compared_queries(SCHEMA, RAW_SCHEMA)
    result = run_checked([sys.executable, "-c", READER, json.dumps(queries)], env)
    seconds["cluster read"] = time.monotonic() - started
    line = next(line for line in result.stdout.splitlines() if line.startswith("READER "))
    clustered = json.loads(line.removeprefix("READER "))
    clustered.update(canonical(clustered))
    print(f"standalone cluster test, seconds: {json.dumps({k: round(v, 1) for k, v in seconds.items()})}")
    return Runs(local, clustered, sorted(events.iterdir()), cluster, seconds)


def test_cluster_lake_equals_local_lake(runs: Runs) -> None:
    for name in COMPARED:
        assert runs.clustered[name] == runs.local[name], name
    # not vacuous: every compared table has rows, and the one landing's Kafka dump was detected and
    # decoded as Canal protobuf beside the text formats
    assert all(runs.local[name] for name in COMPARED), {name: len(rows) for name, rows in runs.local.items()}
    formats = {json.loads(row)["source_format"] for row in runs.local["cdc_current"]}
    assert "canal_protobuf" in formats and len(formats) > 1, formats


def test_every_application_ran_tasks_on_both_workers(runs: Runs) -> None:
    # one application per landing, the build and the reader
    assert len(runs.event_logs) == len(LANDINGS) + 2, runs.event_logs
    for event_log in runs.event_logs:
        with event_log.open(encoding="utf-8") as lines:
            events = [json.loads(line) for line in lines]
        added = {e["Executor ID"]: e["Executor Info"]["Host"] for e in events if e["Event"] == "SparkListenerExecutorAdded"}
        tasks = [e for e in events if e["Event"] == "SparkListenerTaskEnd"]
        assert len(added) == WORKERS, (event_log.name, added)
        assert {task["Task Info"]["Executor ID"] for task in tasks} == set(added), event_log.name
        assert "driver" not in {task["Task Info"]["Executor ID"] for task in tasks}
        failed = [task["Task End Reason"] for task in tasks if task["Task End Reason"]["Reason"] != "Success"]
        assert not failed, (event_log.name, failed)


def test_executors_load_the_shipped_jar_and_import_cdc_lake(runs: Runs) -> None:
    # every landed text went through the JVM function and the Python UDF in a task ...
    assert runs.clustered["rows"] > 0
    assert runs.clustered["jvm_results"] == runs.clustered["rows"]
    # ... run by executors in the work folders of both workers (an executor's working directory is
    # <work dir>/<application id>/<executor id>), never by the driver in the project
    folders = {Path(cwd) for cwd in runs.clustered["tasks"]}
    workers = {folder.parents[1] for folder in folders}
    assert workers == set(runs.cluster.work_dirs), folders


def test_the_cluster_generated_code_where_the_local_run_did_not(runs: Runs, lake) -> None:
    # the cluster's build compiled whole stages (its plans hold WholeStageCodegen nodes), as a
    # user's build does; the local lake it equals was built with expressions interpreted
    build_log = runs.event_logs[len(LANDINGS)].read_text(encoding="utf-8")
    assert '"nodeName":"WholeStageCodegen' in build_log
    assert lake.spark.conf.get("spark.sql.codegen.wholeStage") == "false"
