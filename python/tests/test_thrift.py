"""`cdc-lake serve` + `dbt build --target thrift` give the SCD2 tables the embedded target gives.

The server and the commands run in subprocesses over a lake in a temporary folder of its own (the
embedded test session of this pytest process holds a Derby metastore of its own, and Derby admits
one process per metastore):

1. `cdc-lake land --format auto` lands the shipped Canal JSON and Debezium JSON samples;
2. `cdc-lake serve --port <free port> --password-file F` starts the Spark Thrift Server over that
   lake, requiring the (non-ASCII) password in F;
3. `dbt build --target thrift` builds schema `thrift_test_served` through it with that password
   (every model, seed and data test runs on the server);
4. its `cdc_current` and `cdc_history`, read through the server with PyHive, must equal row for
   row those of the same samples built on the embedded target in this process (conftest's
   `sample_reference`); a wrong or no password is refused;
5. SIGTERM stops the server cleanly (exit code 0) and frees the port and the metastore.

test_catalog.py serves a lake that the embedded target builds (`dbt build` in subprocesses while the
server runs).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cdc_lake.dbt import PROJECT_DIR
from conftest import SAMPLE_CANAL, SAMPLE_CURRENT, SAMPLE_DEBEZIUM, SAMPLE_HISTORY, VENV_BIN, free_port, run_checked

pytestmark = [pytest.mark.thrift, pytest.mark.slow]

SERVED_SCHEMA = "thrift_test_served"
RAW_SCHEMA = "thrift_test_raw"
PASSWORD = "thrift test pässwörd"


def _dbt(command: list[str], env: dict[str, str], state: Path) -> None:
    run_checked(
        [
            str(VENV_BIN / "dbt"),
            *command,
            "--project-dir", str(PROJECT_DIR),
            "--profiles-dir", str(PROJECT_DIR / "profiles"),
            "--target-path", str(state / "target"),
            "--log-path", str(state / "logs"),
        ],
        env,
    )


def _wait_for_line(process: subprocess.Popen[str], needle: str, timeout: float) -> list[str]:
    """Lines the server printed until one containing `needle`; fails if it exits first."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line:
            lines.append(line.rstrip("\n"))
            if needle in line:
                return lines
        elif process.poll() is not None:
            break
    stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
    pytest.fail(f"the server did not print {needle!r} (exit code {process.poll()}): {lines} {stderr}")


class Served:
    """The lake after both builds, with the running server and a PyHive cursor on it."""

    def __init__(self, env: dict[str, str], port: int, process: subprocess.Popen[str], startup: list[str]):
        self.env = env
        self.port = port
        self.process = process
        self.startup = startup
        from pyhive import hive

        self.connection = hive.connect(
            host="127.0.0.1", port=port, username="cdc_lake", auth="CUSTOM", password=PASSWORD
        )

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        cursor = self.connection.cursor()
        try:
            cursor.execute(sql)
            return cursor.fetchall()
        finally:
            cursor.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("thrift-lake")
    env = {
        **os.environ,
        "CDC_LAKE_WAREHOUSE": str(root / "warehouse"),
        "CDC_LAKE_METASTORE": str(root / "metastore_db"),
        "CDC_LAKE_RAW_SCHEMA": RAW_SCHEMA,
        "CDC_LAKE_DRIVER_MEMORY": os.environ.get("CDC_LAKE_DRIVER_MEMORY", "2g"),
        "CDC_LAKE_SHUFFLE_PARTITIONS": "2",
        "CDC_LAKE_SERVE_LOG": str(root / "thrift-server.log"),
        "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("CDC_LAKE_TARGET", None)
    # one landing of both samples, their formats detected (a JVM started once, not once per format)
    samples = [str(path) for path in (*SAMPLE_CANAL, *SAMPLE_DEBEZIUM)]
    run_checked([str(VENV_BIN / "cdc-lake"), "land", "--format", "auto", *samples], env)

    port = free_port()
    password_file = root / "serve-password"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    password_file.chmod(0o600)
    process = subprocess.Popen(
        [str(VENV_BIN / "cdc-lake"), "serve", "--port", str(port), "--password-file", str(password_file)],
        cwd=PROJECT_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        startup = _wait_for_line(process, f"listening on 127.0.0.1:{port}", timeout=300)
        served_env = {**env, "CDC_LAKE_SCHEMA": SERVED_SCHEMA, "CDC_LAKE_THRIFT_PORT": str(port),
                      "DBT_ENV_SECRET_CDC_LAKE_THRIFT_PASSWORD": PASSWORD}
        # Every model, seed and data test, through the server. Unit tests check model logic on fixed
        # inputs whatever the target; the embedded suite runs them.
        _dbt(["build", "--target", "thrift", "--exclude", "resource_type:unit_test"], served_env, root / "dbt-thrift")
        yield Served(served_env, port, process, startup)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _served_tables(served: Served, schema: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """SAMPLE_CURRENT and SAMPLE_HISTORY of `schema`, read through the server."""
    current, history = (
        [tuple(row) for row in served.rows(sql.format(schema=schema))] for sql in (SAMPLE_CURRENT, SAMPLE_HISTORY)
    )
    return current, history


def test_serve_prints_where_it_listens(served: Served) -> None:
    assert served.startup[-1].startswith(f"listening on 127.0.0.1:{served.port}")


def test_server_refuses_a_wrong_or_no_password(served: Served) -> None:
    from pyhive import hive
    from thrift.transport.TTransport import TTransportException

    for credentials in ({"auth": "CUSTOM", "password": PASSWORD[:-1]}, {"auth": "CUSTOM", "password": "x"}, {}):
        with pytest.raises(TTransportException, match="Error validating the login"):
            hive.connect(host="127.0.0.1", port=served.port, username="cdc_lake", **credentials)
    assert served.rows("select 1") == [(1,)]  # the right password still works


def test_thrift_build_equals_embedded_build(served: Served, sample_reference) -> None:
    served_current, served_history = _served_tables(served, SERVED_SCHEMA)
    embedded_current, embedded_history = sample_reference
    assert served_current == embedded_current
    assert served_history == embedded_history

    # Not vacuous: both formats' tables are there, with exact values.
    tables = {(db, table) for db, table, *_ in served_current}
    assert len(served_history) > len(served_current) > 0
    assert ("shop", "products") in tables and ("inventory", "customers") in tables
    apple = [row for db, table, key, row in served_current if table == "products" and key == '{"id":"1"}']
    assert len(apple) == 1 and json.loads(apple[0])["price"] == "0.20"


def test_land_says_the_metastore_is_in_use_while_serving(served: Served) -> None:
    sample = PROJECT_DIR / "python" / "tests" / "fixtures" / "format_docs" / "000_canal_insert.txt"
    # the server holds the metastore for good: the landing need not wait the 20 s a finishing
    # process may take to let go of it (metastore.RELEASE_WAIT_SECONDS)
    result = subprocess.run(
        [str(VENV_BIN / "cdc-lake"), "land", "--format", "canal_json", str(sample)],
        cwd=PROJECT_DIR, env={**served.env, "CDC_LAKE_METASTORE_WAIT": "2"}, capture_output=True, text=True,
        timeout=120,
    )
    assert result.returncode == 3
    assert "is in use by another process" in result.stderr
    assert "Derby admits one process at a time" in result.stderr


def test_server_stops_cleanly_on_sigterm(served: Served) -> None:
    from cdc_lake.metastore import metastore_in_use
    from cdc_lake.serve import port_is_open

    served.connection.close()
    served.process.send_signal(signal.SIGTERM)
    code = served.process.wait(timeout=120)
    out = served.process.stdout.read() if served.process.stdout else ""
    assert code == 0, out
    assert "stopped" in out.splitlines()
    assert not port_is_open("127.0.0.1", served.port)
    assert not metastore_in_use(Path(served.env["CDC_LAKE_METASTORE"]))
