"""`cdc-lake serve`: a Spark Thrift Server over the embedded target's warehouse and metastore.

The server is Spark's own HiveThriftServer2, started with the PyPI pyspark's `spark-submit` and
jars (`--class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 spark-internal`), with
every setting of `Settings.spark_conf()` passed as `--conf`, so `dbt build --target thrift` sees
the same tables as `cdc-lake land` and the `local` target. No dbt model calls a Python UDF
(binary formats are decoded by `cdc-lake land`), so the JVM-only server needs nothing registered.

The server listens on 127.0.0.1 with HiveServer2's default authentication (NONE: SASL PLAIN, any
user name, no password), which is what dbt-spark's `thrift` method and PyHive speak by default.
The Derby metastore admits one process at a time: while the server runs, `cdc-lake land` cannot
open it (and the server cannot start while another process holds it).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from cdc_lake.metastore import derby_lock_hint, is_derby_lock_error, metastore_in_use
from cdc_lake.settings import Settings, load_settings

THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 10000
class ServeError(Exception):
    """The server could not be started; the message says why."""


@dataclass(frozen=True)
class ServerCommand:
    """The spark-submit command line of the Thrift Server, and its environment."""

    argv: list[str]
    env: dict[str, str]


def spark_home() -> Path:
    """The PyPI pyspark's own Spark distribution (bin/spark-submit and jars/)."""
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def server_command(settings: Settings, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> ServerCommand:
    """`spark-submit --class HiveThriftServer2 ... spark-internal --hiveconf ...` for these settings."""
    home = spark_home()
    conf = settings.spark_conf()
    argv = [
        str(home / "bin" / "spark-submit"),
        "--class",
        THRIFT_SERVER_CLASS,
        "--name",
        "cdc-lake thrift server",
        "--master",
        os.environ.get("CDC_LAKE_SPARK_MASTER", "local[*]"),
        "--driver-memory",
        conf["spark.driver.memory"],
    ]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    argv += [
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={host}",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        "hive.server2.transport.mode=binary",
        "--hiveconf",
        "hive.server2.authentication=NONE",
    ]
    env = dict(os.environ)
    env["SPARK_HOME"] = str(home)
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    # spark-submit would otherwise put ./conf or $SPARK_CONF_DIR's spark-defaults on top of ours.
    env.pop("SPARK_CONF_DIR", None)
    return ServerCommand(argv, env)


def port_is_open(host: str, port: int, timeout: float = 1.0) -> bool:
    """Whether something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _log_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


class ThriftServer:
    """A running Thrift Server child process (see `serve` for the command)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        log_path: Path | None = None,
    ):
        self.settings = settings or load_settings()
        self.host = host
        self.port = port
        default_log = os.environ.get("CDC_LAKE_SERVE_LOG", f"logs/thrift-server-{port}.log")
        self.log_path = (log_path or Path(default_log)).absolute()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready_timeout: float = 600.0, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Start the server and return once it accepts connections; raise ServeError if it cannot."""
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise ServeError("Java 17 is required (java not found on PATH and JAVA_HOME not set)")
        if port_is_open(self.host, self.port):
            raise ServeError(f"{self.host}:{self.port} is already in use; choose another --port")
        if metastore_in_use(self.settings.metastore_dir):
            raise ServeError(derby_lock_hint(self.settings.metastore_dir))
        self.settings.warehouse_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        command = server_command(self.settings, self.host, self.port)
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command.argv,
                env=command.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own process group: a terminal's Ctrl-C reaches only us, and we stop it in order.
                start_new_session=True,
            )
        deadline = time.monotonic() + ready_timeout
        while True:
            if self.process.poll() is not None:
                raise ServeError(self._failure(f"the server exited with code {self.process.returncode}"))
            if is_derby_lock_error(_log_text(self.log_path)):
                self.stop()
                raise ServeError(derby_lock_hint(self.settings.metastore_dir))
            if port_is_open(self.host, self.port):
                return
            if should_stop():
                self.stop()
                raise ServeError("interrupted while starting")
            if time.monotonic() > deadline:
                self.stop()
                raise ServeError(self._failure(f"not accepting connections after {ready_timeout:.0f} s"))
            time.sleep(0.5)

    def _failure(self, what: str) -> str:
        log = _log_text(self.log_path)
        if is_derby_lock_error(log):
            return derby_lock_hint(self.settings.metastore_dir)
        return f"{what}; the last lines of {self.log_path}:\n{_tail(self.log_path)}"

    def wait(self, should_stop: Callable[[], bool]) -> int | None:
        """Wait until the server exits (its exit code) or should_stop() is true (None)."""
        assert self.process is not None
        while not should_stop():
            code = self.process.poll()
            if code is not None:
                return code
            time.sleep(0.2)
        return None

    def stop(self, timeout: float = 60.0) -> int | None:
        """Stop the server: SIGTERM (Spark's shutdown hooks close the server and the metastore),
        then SIGKILL if it has not exited within `timeout` seconds. Returns its exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            try:
                self.process.send_signal(signal.SIGTERM)
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            except ProcessLookupError:
                pass
        return self.process.returncode


def say_error(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def say_out(message: str) -> None:
    print(message, flush=True)


def serve(
    port: int = DEFAULT_PORT,
    *,
    host: str = DEFAULT_HOST,
    settings: Settings | None = None,
    say: Callable[[str], None] = say_out,
) -> int:
    """Run the Thrift Server until SIGINT/SIGTERM; the exit code for the command."""
    settings = settings or load_settings()
    server = ThriftServer(settings, host=host, port=port)
    stop_requested: list[int] = []

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        stop_requested.append(signum)

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        say(
            f"starting the Spark Thrift Server on {host}:{port} (warehouse {settings.warehouse_dir}, "
            f"metastore {settings.metastore_dir}; log {server.log_path})"
        )
        try:
            server.start(should_stop=lambda: bool(stop_requested))
        except ServeError as exc:
            say_error(f"cdc-lake serve: {exc}")
            return 1
        say(f"listening on {host}:{port}: run `DBT_PROFILES_DIR=profiles dbt build --target thrift`"
            + ("" if port == DEFAULT_PORT else f" with CDC_LAKE_THRIFT_PORT={port}")
            + "; stop with Ctrl-C or SIGTERM")
        code = server.wait(lambda: bool(stop_requested))
        if code is not None:
            say_error(f"cdc-lake serve: the server exited unexpectedly with code {code}; see {server.log_path}")
            return 1
        say("stopping the Spark Thrift Server ...")
        server.stop()
        say("stopped")
        return 0
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
