"""One catalog for many processes: with `cdc-lake catalog start` (a Hive metastore on PostgreSQL),
`cdc-lake serve` answers queries while `cdc-lake land` and `dbt build` run against the same lake.

Everything but the reference runs in subprocesses over one lake in a temporary folder:

1. `cdc-lake catalog start` creates and starts the catalog (a free port, a folder of the test's);
2. `cdc-lake land` lands the Canal JSON sample, `cdc-lake serve` starts, and `dbt build` builds
   cdc_current and cdc_history while the server runs;
3. a thread queries both tables through the server in a loop while `cdc-lake land` (the Debezium
   JSON sample) and `dbt build` run at the same time, then one more build after both;
4. every command exits 0, every query of the loop is answered, and the final tables read through
   the server equal those of the embedded Derby lake built from the same inputs in this process
   (conftest's `sample_reference`);
5. `cdc-lake catalog stop` stops the catalog.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cdc_lake.dbt import PROJECT_DIR
from conftest import (
    SAMPLE_BUILD,
    SAMPLE_CANAL,
    SAMPLE_CURRENT,
    SAMPLE_DEBEZIUM,
    SAMPLE_HISTORY,
    VENV_BIN,
    free_port,
    run_checked,
    subprocess_lake_env,
)
from query_loop import QueryLoop

pytestmark = [pytest.mark.slow]

SCHEMA = "catalog_test"
BUILD = ("build", *SAMPLE_BUILD)


class Live:
    def __init__(self, port: int, loop: QueryLoop, first: tuple[int, int], final: list[list[tuple[Any, ...]]],
                 created: tuple[dict[str, str], dict[str, str]]):
        self.port = port
        self.loop = loop
        self.first = first
        self.final = final
        self.created = created


def _served_rows(port: int, sql: str) -> list[tuple[Any, ...]]:
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=port, username="cdc_lake")
    try:
        cursor = connection.cursor()
        cursor.execute(sql)
        return [tuple(row) for row in cursor.fetchall()]
    finally:
        connection.close()


VIEWS = ("cdc_current", "cdc_history")
"""A `table` model (a view of its latest build) and a `view` model."""


def _created_times(port: int) -> dict[str, str]:
    """When the metastore created each of VIEWS (a view dropped and created again has a new time)."""
    return {
        view: next(str(row[1]) for row in _served_rows(port, f"describe table extended {SCHEMA}.{view}")
                   if row[0] == "Created Time")
        for view in VIEWS
    }


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    # not under pytest's tmp folder (mode 700): as root the catalog's server runs as `postgres`
    root = Path(tempfile.mkdtemp(prefix="cdc-lake-catalog-test-"))
    root.chmod(0o755)
    env = {
        **subprocess_lake_env(root, SCHEMA),
        "CDC_LAKE_CATALOG_DIR": str(root / "catalog"),
        "CDC_LAKE_CATALOG_PORT": str(free_port()),
        "CDC_LAKE_SERVE_LOG": str(root / "thrift-server.log"),
    }
    cdc_lake = str(VENV_BIN / "cdc-lake")
    started = run_checked([cdc_lake, "catalog", "start"], env, timeout=300)
    export = started.stdout.strip()
    assert export.startswith("export CDC_LAKE_CATALOG_URL='jdbc:postgresql://127.0.0.1:"), export
    env["CDC_LAKE_CATALOG_URL"] = export.split("=", 1)[1].strip("'")

    # one target folder for the three builds, one after the other: the later ones parse only what
    # changed (nothing), as a user's builds do
    dbt_build = [str(VENV_BIN / "dbt"), *BUILD, "--project-dir", str(PROJECT_DIR),
                 "--target-path", str(root / "dbt" / "target"), "--log-path", str(root / "dbt" / "logs")]

    port = free_port()
    server: subprocess.Popen[str] | None = None
    loop = QueryLoop(port, SCHEMA)
    try:
        run_checked([cdc_lake, "land", "--format", "canal_json", *map(str, SAMPLE_CANAL)], env)
        server = subprocess.Popen(
            [cdc_lake, "serve", "--port", str(port)], cwd=PROJECT_DIR, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        assert server.stdout is not None
        for line in server.stdout:  # ends when the server exits
            if f"listening on 127.0.0.1:{port}" in line:
                break
        assert server.poll() is None, f"cdc-lake serve exited {server.returncode}; log {root / 'thrift-server.log'}"
        run_checked(dbt_build, env)  # a build while the server runs
        created_first = _created_times(port)
        first = _served_rows(port, f"select (select count(*) from {SCHEMA}.cdc_current), "
                                   f"(select count(*) from {SCHEMA}.cdc_history)")[0]
        loop.start()
        # land and build at the same time, while the loop queries
        landing = subprocess.Popen(
            [cdc_lake, "land", "--format", "debezium_json", *map(str, SAMPLE_DEBEZIUM)], cwd=PROJECT_DIR, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        run_checked(dbt_build, env)
        landed_output, _ = landing.communicate(timeout=900)
        assert landing.returncode == 0, f"cdc-lake land exited {landing.returncode}: {landed_output[-3000:]}"
        run_checked(dbt_build, env)
        loop.builds_ended.set()
        deadline = time.monotonic() + 60
        while len(loop.answers_after_builds) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        loop.stopping.set()
        loop.join(timeout=60)
        final = [_served_rows(port, sql.format(schema=SCHEMA)) for sql in (SAMPLE_CURRENT, SAMPLE_HISTORY)]
        yield Live(port, loop, first, final, (created_first, _created_times(port)))
    finally:
        loop.stopping.set()
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=90)
            except subprocess.TimeoutExpired:
                server.kill()
        run_checked([cdc_lake, "catalog", "stop"], env, timeout=120)
        shutil.rmtree(root, ignore_errors=True)


def test_the_query_loop_was_answered_during_land_and_build(live: Live) -> None:
    """Every answer is a count of one built version. On Parquet a query that lists a table's files
    just before a build replaces them cannot read them (FILE_NOT_EXIST): such errors may happen
    while a build runs, never after (the server caches no listing), and never another error."""
    assert len(live.loop.answers) >= 5
    assert [e for e in live.loop.errors if "FILE_NOT_EXIST" not in e or e.startswith("after builds")] == []
    final_counts = (len(live.final[0]), len(live.final[1]))
    assert live.first != final_counts, "the Debezium landing added nothing: the loop saw one version only"
    for current, history in live.loop.answers:
        assert live.first[0] <= current <= final_counts[0]
        assert live.first[1] <= history <= final_counts[1]
    assert len(live.loop.answers_after_builds) >= 3
    assert set(live.loop.answers_after_builds) == {final_counts}


def test_later_builds_change_the_views_in_place(live: Live) -> None:
    """Builds 2 and 3 alter cdc_current and cdc_history, never drop and create them again: Spark runs
    CREATE OR REPLACE VIEW as a drop then a create, and a query between the two found no view
    (TABLE_OR_VIEW_NOT_FOUND in benchmarks/kafka_acceptance.py's query loop)."""
    first, final = live.created
    assert final == first


def test_the_shared_lake_equals_the_embedded_one(live: Live, sample_reference) -> None:
    current, history = sample_reference
    assert live.final[0] == current
    assert live.final[1] == history


def test_status_of_a_catalog_never_started(tmp_path: Path) -> None:
    """`status` says where the catalog would run, and exits 1 while it does not."""
    env = {**os.environ, "CDC_LAKE_CATALOG_DIR": str(tmp_path / "catalog"), "CDC_LAKE_CATALOG_PORT": str(free_port())}
    result = subprocess.run([str(VENV_BIN / "cdc-lake"), "catalog", "status"], cwd=PROJECT_DIR, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert "catalog: not running on 127.0.0.1:" in result.stderr


def test_stop_of_a_catalog_never_started_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "CDC_LAKE_CATALOG_DIR": str(tmp_path / "catalog")}
    result = subprocess.run([str(VENV_BIN / "cdc-lake"), "catalog", "stop"], cwd=PROJECT_DIR, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    assert result.stderr.strip() == f"catalog: not running ({tmp_path / 'catalog'})"


def test_a_port_that_is_not_a_number_is_refused_with_its_variable() -> None:
    from cdc_lake.catalog import CatalogError, load_catalog

    with pytest.raises(CatalogError, match="CDC_LAKE_CATALOG_PORT must be a port number, not 'five'"):
        load_catalog({"CDC_LAKE_CATALOG_PORT": "five"})


def test_the_catalog_url_replaces_derby_in_every_session(monkeypatch) -> None:
    from cdc_lake.settings import load_settings

    monkeypatch.setenv("CDC_LAKE_CATALOG_URL", "jdbc:postgresql://127.0.0.1:5433/cdc_lake_metastore?user=cdc_lake")
    settings = load_settings()
    conf = settings.spark_conf()
    assert not settings.uses_derby
    assert conf["spark.hadoop.javax.jdo.option.ConnectionURL"].startswith("jdbc:postgresql://127.0.0.1:5433/")
    assert conf["spark.hadoop.javax.jdo.option.ConnectionDriverName"] == "org.postgresql.Driver"
    monkeypatch.delenv("CDC_LAKE_CATALOG_URL")
    assert load_settings().uses_derby
