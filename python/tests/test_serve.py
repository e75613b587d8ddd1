"""Fast checks of `cdc-lake serve` and the Derby-lock hint (no JVM; see test_thrift.py for the server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdc_lake.dbt import PROJECT_DIR
from cdc_lake.settings import FUNCTIONS_JAR
from cdc_lake.metastore import derby_lock_hint, exception_mentions_derby_lock, metastore_held, metastore_in_use
from cdc_lake.serve import (
    AUTHENTICATOR_CLASS,
    THRIFT_SERVER_CLASS,
    ServeError,
    password_hash,
    read_password,
    server_command,
    spark_home,
)
from cdc_lake.settings import load_settings
from conftest import VENV_BIN, free_port



@pytest.fixture
def locked_metastore(tmp_path: Path) -> Iterator[Path]:
    """A metastore folder whose dbex.lck another process holds, as a booted Derby does."""
    metastore = tmp_path / "metastore_db"
    metastore.mkdir()
    (metastore / "dbex.lck").write_bytes(b"\x00\x00\x00\x00")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import fcntl, os, sys
                fd = os.open(sys.argv[1], os.O_RDWR)
                fcntl.lockf(fd, fcntl.LOCK_EX)
                print("locked", flush=True)
                sys.stdin.read()
                """
            ),
            str(metastore / "dbex.lck"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        yield metastore
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def test_metastore_in_use_reads_derbys_lock(locked_metastore: Path, tmp_path: Path) -> None:
    assert metastore_in_use(locked_metastore)
    assert not metastore_in_use(tmp_path / "never_booted")
    free = tmp_path / "free_metastore"
    free.mkdir()
    (free / "dbex.lck").write_bytes(b"")
    assert not metastore_in_use(free)


def test_a_lock_released_while_waiting_is_not_held(locked_metastore: Path) -> None:
    """A just-finished build's JVM may hold the lock a few seconds more: land waits for it."""
    assert metastore_held(locked_metastore, wait_seconds=1.0)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import os, signal, time; time.sleep(1.5); os.kill(int(os.environ['HOLDER']), signal.SIGKILL)"],
        env={**os.environ, "HOLDER": str(_holder_pid(locked_metastore))},
    )
    try:
        assert not metastore_held(locked_metastore, wait_seconds=30.0)
    finally:
        holder.wait(timeout=30)


def _holder_pid(metastore: Path) -> int:
    """The pid of the process holding `metastore`'s lock (from /proc/locks, by the file's inode)."""
    inode = (metastore / "dbex.lck").stat().st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if fields[5].endswith(f":{inode}"):
            return int(fields[4])
    raise AssertionError("no process holds the lock")


def test_land_and_serve_say_the_metastore_is_locked(locked_metastore: Path, tmp_path: Path) -> None:
    env = {**os.environ, "CDC_LAKE_METASTORE": str(locked_metastore), "CDC_LAKE_WAREHOUSE": str(tmp_path / "wh"),
           "CDC_LAKE_METASTORE_WAIT": "2"}
    sample = PROJECT_DIR / "python" / "tests" / "fixtures" / "format_docs" / "000_canal_insert.txt"
    hint = derby_lock_hint(locked_metastore)

    land = subprocess.run(
        [str(VENV_BIN / "cdc-lake"), "land", "--format", "canal_json", str(sample)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert land.returncode == 3
    assert land.stderr.strip() == f"cdc-lake land: {hint}"

    serve = subprocess.run(
        [str(VENV_BIN / "cdc-lake"), "serve", "--port", str(free_port())],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert serve.returncode == 1
    assert serve.stderr.strip() == f"cdc-lake serve: {hint}"
    assert not (tmp_path / "wh").exists() or not any((tmp_path / "wh").iterdir())


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    env = {**os.environ, "CDC_LAKE_METASTORE": str(tmp_path / "ms"), "CDC_LAKE_WAREHOUSE": str(tmp_path / "wh")}
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        serve = subprocess.run(
            [str(VENV_BIN / "cdc-lake"), "serve", "--port", str(port)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )
    assert serve.returncode == 1
    assert serve.stderr.strip() == f"cdc-lake serve: 127.0.0.1:{port} is already in use; choose another --port"


def test_server_command_is_spark_submit_of_hive_thrift_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CDC_LAKE_WAREHOUSE", str(tmp_path / "wh"))
    monkeypatch.setenv("CDC_LAKE_METASTORE", str(tmp_path / "ms"))
    settings = load_settings()
    command = server_command(settings, "127.0.0.1", 10123)
    argv = command.argv

    home = spark_home()
    assert argv[0] == str(home / "bin" / "spark-submit") and Path(argv[0]).exists()
    assert any(p.name.startswith("spark-hive-thriftserver_") for p in (home / "jars").glob("*.jar"))
    assert argv[argv.index("--class") + 1] == THRIFT_SERVER_CLASS
    assert argv[argv.index("--master") + 1] == "local[*]"
    assert command.env["SPARK_HOME"] == str(home)

    # Every setting of the embedded session, so the server opens the same warehouse and metastore;
    # the driver's own ports on loopback.
    confs = [argv[i + 1] for i, a in enumerate(argv) if a == "--conf"]
    assert confs == [f"{k}={v}" for k, v in settings.spark_conf().items()] + [
        "spark.driver.bindAddress=127.0.0.1", "spark.driver.host=127.0.0.1",
    ]
    assert f"spark.sql.warehouse.dir={tmp_path / 'wh'}" in confs
    assert f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={tmp_path / 'ms'};create=true" in confs

    app_args = argv[argv.index("spark-internal") + 1:]
    assert app_args == [
        "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
        "--hiveconf", "hive.server2.thrift.port=10123",
        "--hiveconf", "hive.server2.transport.mode=binary",
        "--hiveconf", "hive.server2.authentication=NONE",
    ]


def test_derby_lock_is_found_in_an_exception_chain() -> None:
    try:
        try:
            raise RuntimeError(
                "ERROR XSDB6: Another instance of Derby may have already booted the database /x/metastore_db."
            )
        except RuntimeError as inner:
            raise ValueError("Unable to instantiate SessionHiveMetaStoreClient") from inner
    except ValueError as outer:
        assert exception_mentions_derby_lock(outer)
    assert not exception_mentions_derby_lock(ValueError("Table or view not found"))


def test_a_password_makes_the_server_check_its_hash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CDC_LAKE_WAREHOUSE", str(tmp_path / "wh"))
    monkeypatch.setenv("CDC_LAKE_METASTORE", str(tmp_path / "ms"))
    monkeypatch.setenv("CDC_LAKE_SERVE_PASSWORD", "plain secret")
    encoded = password_hash("plain secret")
    command = server_command(load_settings(), "0.0.0.0", 10123, encoded)
    app_args = command.argv[command.argv.index("spark-internal") + 1:]
    assert app_args[-4:] == [
        "--hiveconf", "hive.server2.authentication=CUSTOM",
        "--hiveconf", f"hive.server2.custom.authentication.class={AUTHENTICATOR_CLASS}",
    ]
    # The server gets the salted hash in its environment; the plaintext reaches it nowhere.
    assert command.env["CDC_LAKE_SERVE_PASSWORD_HASH"] == encoded
    assert "CDC_LAKE_SERVE_PASSWORD" not in command.env
    assert not any("plain secret" in part for part in [*command.argv, *command.env.values()])
    assert password_hash("plain secret") != encoded  # a new salt each time


@pytest.mark.parametrize(
    ("password", "sent", "accepted"),
    [
        ("correct horse", "correct horse", True),
        ("correct horse", "correct hors", False),
        ("correct horse", "", False),
        ("pässwörd 密码", "pässwörd 密码", True),
        ("pässwörd 密码", "passwörd 密码", False),
    ],
)
def test_the_jvm_authenticator_accepts_only_the_password(password: str, sent: str, accepted: bool) -> None:
    """io.cdclake.spark.ServePasswordAuthenticator, fed as HiveServer2's SASL PLAIN server feeds it
    (each byte cast to a char), checks the hash Python wrote."""
    jars = spark_home() / "jars"
    check = subprocess.run(
        ["java", "-cp", f"{FUNCTIONS_JAR}:{jars}/*", AUTHENTICATOR_CLASS, password_hash(password, iterations=1000)],
        input=(sent + "\n").encode("utf-8"), capture_output=True, timeout=60,
    )
    assert check.returncode == (0 if accepted else 1), check.stderr.decode()


def test_serve_refuses_to_listen_beyond_loopback_without_a_password(tmp_path: Path) -> None:
    env = {**os.environ, "CDC_LAKE_METASTORE": str(tmp_path / "ms"), "CDC_LAKE_WAREHOUSE": str(tmp_path / "wh")}
    for name in ("CDC_LAKE_SERVE_PASSWORD", "CDC_LAKE_SERVE_PASSWORD_FILE"):
        env.pop(name, None)
    serve = subprocess.run(
        [str(VENV_BIN / "cdc-lake"), "serve", "--host", "0.0.0.0", "--port", "1"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert serve.returncode == 2
    assert serve.stderr.startswith("cdc-lake serve: refusing to listen on 0.0.0.0 without a password")
    assert not (tmp_path / "wh").exists()


def test_the_password_comes_from_the_file_then_the_variables(tmp_path: Path) -> None:
    given = tmp_path / "given"
    given.write_text("from the option\n", encoding="utf-8")
    named = tmp_path / "named"
    named.write_text("from the file variable\r\nsecond line ignored\n", encoding="utf-8")
    env = {"CDC_LAKE_SERVE_PASSWORD_FILE": str(named), "CDC_LAKE_SERVE_PASSWORD": "from the variable"}
    assert read_password(given, env) == "from the option"
    assert read_password(None, env) == "from the file variable"
    assert read_password(None, {"CDC_LAKE_SERVE_PASSWORD": "from the variable"}) == "from the variable"
    assert read_password(None, {}) is None
    empty = tmp_path / "empty"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ServeError, match="gives an empty password"):
        read_password(empty, {})
    with pytest.raises(ServeError, match="cannot read the password file"):
        read_password(tmp_path / "missing", {})
