"""Shared fixtures: one embedded Spark session per pytest process, one schema pair per scenario.

A scenario (`lake.scenario("name")`) points CDC_LAKE_SCHEMA / CDC_LAKE_RAW_SCHEMA at its own
schemas, so tests in one process never see each other's tables. dbt runs in-process and reuses
the Spark session.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from cdc_lake.dbt import PROJECT_DIR
from cdc_lake.settings import CLASS_ARCHIVE, SHORT_RUN_JVM_OPTIONS

# Every Spark driver of the suite (this process's and the subprocesses', which copy os.environ) runs
# short over small data: C1 only (settings.SHORT_RUN_JVM_OPTIONS), with the JDK's and Spark's classes
# mapped from the class archive that scripts/test.sh has scripts/jvm_class_archive.sh record (every
# driver names settings.CLASS_ARCHIVE; here by its absolute path, for the dbt subprocesses that run
# elsewhere than the project root), unless the caller says otherwise.
os.environ.setdefault("CDC_LAKE_JVM_OPTIONS", SHORT_RUN_JVM_OPTIONS)
os.environ.setdefault("CDC_LAKE_CLASS_ARCHIVE", str(CLASS_ARCHIVE))

# ... and evaluates expressions without generating Java classes (Spark's interpreted mode, which its
# own test suites run beside code generation): over a few rows per query, compiling the ~700 classes
# of a build costs more than it saves (docs/testing.md: test_incremental 341 s against 317 s). What
# a user runs, generated code, is what test_standalone_cluster.py's cluster runs (its lake equals
# this process's, so both modes give the same tables) and what benchmarks/ and the demo run. A
# CDC_LAKE_SPARK_CONF of the caller's comes after these, so it can switch code generation on again.
INTERPRETED_SPARK_SETTINGS = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}
INTERPRETED_SPARK_CONF = ",".join(f"{key}={value}" for key, value in INTERPRETED_SPARK_SETTINGS.items())
# (Spark's own defaults: code generation, as a build of more than cdc_interpreted_max_new_messages runs)
GENERATED_CODE_SPARK_SETTINGS = {"spark.sql.codegen.wholeStage": "true", "spark.sql.codegen.factoryMode": "FALLBACK"}
GENERATED_CODE_SPARK_CONF = ",".join(f"{key}={value}" for key, value in GENERATED_CODE_SPARK_SETTINGS.items())
# (the workers of pytest-xdist inherit the variable this module set in the controlling process)
CALLER_SPARK_CONF = ",".join(
    item.strip() for item in os.environ.get("CDC_LAKE_SPARK_CONF", "").split(",")
    if item.strip() and item.strip() not in INTERPRETED_SPARK_CONF.split(",")
)
os.environ["CDC_LAKE_SPARK_CONF"] = ",".join(filter(None, (INTERPRETED_SPARK_CONF, CALLER_SPARK_CONF)))

FIXTURES = Path(__file__).parent / "fixtures"
SHARED = Path(__file__).resolve().parents[3] / "shared"

# The long reliability runs (soak batches, crash points, fuzz examples) are sized for CI by default:
# each still covers every fault class and every format. CDC_LAKE_LONG_TESTS=1 gives the long size
# that the nightly workflow runs; a run's own variable (e.g. CDC_LAKE_SOAK_BATCHES) overrides both.
LONG_TESTS = os.environ.get("CDC_LAKE_LONG_TESTS", "0") not in ("", "0")


def run_size(variable: str, *, ci: int, long: int) -> int:
    """The size of a reliability run: `$variable` if set, else `long` under CDC_LAKE_LONG_TESTS=1,
    else `ci`."""
    value = os.environ.get(variable, "")
    if not value:
        return long if LONG_TESTS else ci
    if not value.isdigit():
        raise ValueError(f"{variable}={value!r}: give a whole number, or unset it")
    return int(value)


# The modules that take longest on a 2-core machine (serial run of the whole suite, setup and calls
# together), slowest first. scripts/test.sh runs the suite in two processes, a module whole on one of
# them, in collection order: starting with these keeps one long module from being last.
SLOWEST_MODULES = (
    "test_crash_safety.py",  # about 6.5 minutes
    "test_incremental.py",  # about 4
    "test_standalone_cluster.py",  # about 5 (a local run, then 4 applications on a cluster)
    "test_thrift.py",  # about 3
    "test_catalog.py",  # about 3 (a catalog, serve, 3 builds, 2 landings in subprocesses)
    "test_land_kafka.py",  # about 4 (a Kafka broker, a build, two CLI landings, a CLI follower)
    "test_soak.py",  # about 3 (4 batches; 20 with CDC_LAKE_LONG_TESTS=1)
    "test_failure_injection.py",  # 7 builds, 4 of them failing part-way
    "test_typed.py",
    "test_format_oms.py",
    "test_fuzz.py",
    "test_reliability.py",
    "test_canal_debezium.py",
    "test_format_river_cloudcanal_ckafka.py",
    "test_row_image_chains.py",  # about 3.5 (4 builds, one a full refresh)
    "test_format_binary.py",
    "test_cli_errors.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the modules slowest first; tests within a module keep their order."""
    rank = {name: position for position, name in enumerate(SLOWEST_MODULES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(SLOWEST_MODULES)))


# Modules that run on the same worker under --dist loadfile, one after the other, because they share
# a costly per-worker fixture: both served-lake modules compare with `sample_reference` (a landing
# and a build), which a worker then builds once, not once for each.
SAME_WORKER = {"test_thrift.py": "served lakes", "test_catalog.py": "served lakes"}


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's --dist loadfile, with the modules of SAME_WORKER sent to one worker together."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LoadFileOrGroupScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return SAME_WORKER.get(Path(module).name, module)

    return LoadFileOrGroupScheduling(config, log)


# What a test's build leaves out when the test reads none of it: dbt's unit tests (they check SQL on
# fixed inputs, not the landed data; test_canal_debezium runs every one). The analytics examples
# are off unless --vars '{cdc_examples: true}'.
UNREAD = ("--exclude-resource-type", "unit_test")
# ... and the column catalogue and table lifecycle with all that is built on them (test_typed's).
UNREAD_AND_TYPING = (*UNREAD, "--exclude", "int_cdc__columns+", "cdc_tables+")


class Lake:
    """A handle on the embedded lake for tests: land, build, query."""

    def __init__(self, root: Path):
        self.root = root
        self.spark = None

    def start(self) -> None:
        os.environ["CDC_LAKE_WAREHOUSE"] = str(self.root / "warehouse")
        os.environ["CDC_LAKE_METASTORE"] = str(self.root / "metastore_db")
        os.environ["CDC_LAKE_DBT_STATE"] = str(self.root / "dbt")
        os.environ.setdefault("CDC_LAKE_DRIVER_MEMORY", "2g")
        os.environ.setdefault("CDC_LAKE_SHUFFLE_PARTITIONS", "2")
        from cdc_lake.spark import get_spark

        self.spark = get_spark()

    def scenario(self, name: str) -> "Lake":
        """Use fresh schemas `<name>` and `<name>_raw` (dropped first if they exist)."""
        name = re.sub(r"\W", "_", name).lower()
        for schema in (name, f"{name}_raw"):
            self.spark.sql(f"drop database if exists {schema} cascade")
        os.environ["CDC_LAKE_SCHEMA"] = name
        os.environ["CDC_LAKE_RAW_SCHEMA"] = f"{name}_raw"
        return self

    @property
    def schema(self) -> str:
        return os.environ["CDC_LAKE_SCHEMA"]

    def land(self, paths: Sequence[Path | str], format_id: str) -> Any:
        from cdc_lake.land import land

        return land([str(p) for p in paths], format_id, spark=self.spark, say=lambda _m: None)

    def build(self, *args: str) -> Any:
        from cdc_lake.dbt import run_dbt

        return run_dbt(["build", *args], reuse_manifest=True)

    def rows(self, sql: str) -> list[dict[str, Any]]:
        """Run SQL ({schema} is replaced by the scenario's schema) and return plain dicts."""
        sql = sql.replace("{schema}", self.schema)
        return [r.asDict(recursive=True) for r in self.spark.sql(sql).collect()]

    def table(self, name: str, where: str = "true", order_by: str = "1") -> list[dict[str, Any]]:
        return self.rows(f"select * from {{schema}}.{name} where {where} order by {order_by}")

    def format_events(self, format_id: str, where: str, columns: str = "*") -> list[dict[str, Any]]:
        """One format's rows of int_cdc__events (its staging model is ephemeral: this is where its
        rows are stored), in landing order."""
        return self.rows(
            f"select {columns} from {{schema}}.int_cdc__events where source_format = '{format_id}' and ({where}) "
            "order by landing_seq, message_index, element_index, row_index"
        )


@pytest.fixture(scope="session")
def lake() -> Iterator[Lake]:
    with tempfile.TemporaryDirectory(prefix="cdc-lake-test-") as tmp:
        handle = Lake(Path(tmp))
        handle.start()
        yield handle


# The shipped Canal JSON and Debezium JSON samples, and what a lake built from them is compared by:
# cdc_current and cdc_history (with what they read; no data or unit tests), each row's image as JSON
# with sorted keys, in a fixed order. test_thrift.py and test_catalog.py compare the lakes they
# serve with the embedded one (`sample_reference`).
SAMPLE_CANAL = sorted((PROJECT_DIR / "sample_data" / "canal_json").glob("*.jsonl"))
SAMPLE_DEBEZIUM = sorted((PROJECT_DIR / "sample_data" / "debezium_json").glob("*.jsonl"))
SAMPLE_BUILD = ("--select", "+cdc_current", "+cdc_history", "--exclude", "resource_type:test",
                "resource_type:unit_test")
SAMPLE_CURRENT = ("select source_database, source_table, primary_key, "
                  "to_json(map_from_entries(array_sort(map_entries(row)))) from {schema}.cdc_current "
                  "order by 1, 2, 3")
SAMPLE_HISTORY = ("select source_database, source_table, primary_key, "
                  "to_json(map_from_entries(array_sort(map_entries(row)))), cast(valid_from as string), "
                  "cast(valid_to as string), is_current, is_deleted from {schema}.cdc_history "
                  "order by 1, 2, 3, 5, 6 nulls last, 8")


@pytest.fixture(scope="session")
def sample_reference(lake: Lake) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows of SAMPLE_CURRENT and SAMPLE_HISTORY after landing SAMPLE_CANAL and SAMPLE_DEBEZIUM
    and building SAMPLE_BUILD in this process's embedded lake (once per worker): what a lake served
    by `cdc-lake serve` and built from the same inputs must hold."""
    assert SAMPLE_CANAL and SAMPLE_DEBEZIUM, "the shipped samples sample_data/canal_json and debezium_json are missing"
    lake.scenario("sample_reference")
    lake.land(SAMPLE_CANAL, "canal_json")
    lake.land(SAMPLE_DEBEZIUM, "debezium_json")
    lake.build(*SAMPLE_BUILD)
    current, history = ([tuple(row.values()) for row in lake.rows(sql)] for sql in (SAMPLE_CURRENT, SAMPLE_HISTORY))
    return current, history


VENV_BIN = Path(sys.executable).parent
"""The folder of the test's Python, its `cdc-lake` and its `dbt`."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (released before it is returned)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def subprocess_lake_env(root: Path, schema: str) -> dict[str, str]:
    """The environment of cdc-lake and dbt subprocesses over a lake of their own in `root`, with
    the models in `schema` and the landing tables in `<schema>_raw`, sized for small test data."""
    return {
        **os.environ,
        "CDC_LAKE_WAREHOUSE": str(root / "warehouse"),
        "CDC_LAKE_METASTORE": str(root / "metastore_db"),
        "CDC_LAKE_SCHEMA": schema,
        "CDC_LAKE_RAW_SCHEMA": f"{schema}_raw",
        "CDC_LAKE_DRIVER_MEMORY": "1g",
        "CDC_LAKE_SHUFFLE_PARTITIONS": "2",
        "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
        "PYTHONUNBUFFERED": "1",
    }


def run_checked(args: list[str], env: dict[str, str], timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """Run a command of the project (cdc-lake, dbt...) in the project root; fail the test with the
    end of its output unless it exits 0."""
    result = subprocess.run(
        args, cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, (
        f"{' '.join(args)} exited {result.returncode}\n--- stdout\n{result.stdout[-4000:]}\n"
        f"--- stderr\n{result.stderr[-4000:]}"
    )
    return result


def write_jsonl(path: Path, messages: Sequence[str | dict]) -> Path:
    """One message per line (dicts are dumped compactly; strings are written as given)."""
    path.write_text(
        "".join((m if isinstance(m, str) else json.dumps(m, ensure_ascii=False)) + "\n" for m in messages),
        encoding="utf-8",
    )
    return path


def as_bytes(value: str | bytes | None) -> bytes | None:
    """A message or key as bytes: text as UTF-8, bytes and None as they are."""
    return value.encode("utf-8") if isinstance(value, str) else value


def write_kafka_parquet(
    path: Path,
    values: Sequence[str | bytes | None],
    *,
    topic: str = "cdc",
    partition: int = 0,
    first_offset: int = 0,
    keys: Sequence[str | bytes | None] | None = None,
    string_values: bool = False,
) -> Path:
    """A Kafka-shaped Parquet file (key, value binary, topic, partition, offset, timestamp).

    `string_values`: the value column is a string column holding the same bytes, unchecked (as a
    dump written by a tool that does not validate UTF-8 may hold)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(values)
    table = pa.table(
        {
            "key": pa.array([as_bytes(k) for k in (keys or [None] * n)], pa.binary()),
            "value": pa.array([as_bytes(v) for v in values], pa.binary()).view(
                pa.string() if string_values else pa.binary()
            ),
            "topic": pa.array([topic] * n, pa.string()),
            "partition": pa.array([partition] * n, pa.int32()),
            "offset": pa.array(range(first_offset, first_offset + n), pa.int64()),
            "timestamp": pa.array([1_700_000_000_000 + i for i in range(n)], pa.int64()),
        }
    )
    pq.write_table(table, path)
    return path


def doc_example(name: str) -> str:
    """A format-document example kept verbatim in fixtures/format_docs/ (see test_format_docs)."""
    return (FIXTURES / "format_docs" / name).read_text(encoding="utf-8")
