"""`cdc-lake serve`: a Spark Thrift Server over the embedded target's warehouse and metastore.

The server is Spark's own HiveThriftServer2, started with the PyPI pyspark's `spark-submit` and
jars (`--class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 spark-internal`), with
every setting of `Settings.spark_conf()` passed as `--conf`, so `dbt build --target thrift` sees
the same tables as `cdc-lake land` and the `local` target. No dbt model calls a Python UDF
(binary formats are decoded by `cdc-lake land`), so the JVM-only server needs nothing registered.

The server listens on 127.0.0.1 by default. Without a password it uses HiveServer2's
authentication NONE (SASL PLAIN, any user name and password): any local user can then read every
table and run ADD JAR as the lake's owner. With a password (`--password-file`,
CDC_LAKE_SERVE_PASSWORD_FILE or CDC_LAKE_SERVE_PASSWORD) it uses CUSTOM authentication with the
project's `io.cdclake.spark.ServePasswordAuthenticator` (python/cdc_lake/jvm/src/): the server gets
only a salted PBKDF2 hash of the password (environment variable CDC_LAKE_SERVE_PASSWORD_HASH, never
on the command line) and refuses every connection whose password does not derive it. Binding to an
address other than loopback needs a password.
The Derby metastore admits one process at a time: while the server runs, `cdc-lake land` cannot
open it (and the server cannot start while another process holds it).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import secrets
import shutil
import stat
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from cdc_lake.metastore import derby_lock_hint, is_derby_lock_error, metastore_in_use
from cdc_lake.settings import Settings, load_settings

THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 10000
AUTHENTICATOR_CLASS = "io.cdclake.spark.ServePasswordAuthenticator"
PASSWORD_HASH_VARIABLE = "CDC_LAKE_SERVE_PASSWORD_HASH"
PASSWORD_FILE_VARIABLE = "CDC_LAKE_SERVE_PASSWORD_FILE"
PASSWORD_VARIABLE = "CDC_LAKE_SERVE_PASSWORD"
PBKDF2_ITERATIONS = 100_000
"""PBKDF2-HMAC-SHA256 rounds of the password hash: about 0.1 s per connection on the server."""


class ServeError(Exception):
    """The server could not be started; the message says why."""


@dataclass(frozen=True)
class ServerCommand:
    """The spark-submit command line of the Thrift Server, and its environment."""

    argv: list[str]
    env: dict[str, str]


def password_path(password_file: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path | None:
    """The password file: `password_file`, else the one CDC_LAKE_SERVE_PASSWORD_FILE names."""
    if password_file is not None:
        return password_file
    return Path(environ[PASSWORD_FILE_VARIABLE]) if environ.get(PASSWORD_FILE_VARIABLE) else None


def read_password(password_file: Path | None = None, environ: Mapping[str, str] = os.environ) -> str | None:
    """The server's password: the first line of `password_file`, else of the file named by
    CDC_LAKE_SERVE_PASSWORD_FILE, else CDC_LAKE_SERVE_PASSWORD; None if none is given."""
    path = password_path(password_file, environ)
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ServeError(f"cannot read the password file {path}: {exc}") from exc
        password = text.splitlines()[0] if text else ""
        where = f"the password file {path}"
    elif PASSWORD_VARIABLE in environ:
        password = environ[PASSWORD_VARIABLE]
        where = PASSWORD_VARIABLE
    else:
        return None
    if not password:
        raise ServeError(f"{where} gives an empty password; put the password on its first line")
    return password


def password_file_warning(path: Path) -> str | None:
    """A warning when other users can read the password file (None when only its owner can)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        return f"warning: other users can read the password file {path}; run chmod 600 {path}"
    return None


def password_hash(password: str, *, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """`pbkdf2_sha256$<iterations>$<salt>$<hash>` (base64) of the password, as the server's
    ServePasswordAuthenticator reads it from CDC_LAKE_SERVE_PASSWORD_HASH."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return "$".join(["pbkdf2_sha256", str(iterations), base64.b64encode(salt).decode(), base64.b64encode(digest).decode()])


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address or `localhost` (only local users can connect)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def spark_home() -> Path:
    """The PyPI pyspark's own Spark distribution (bin/spark-submit and jars/)."""
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def server_command(
    settings: Settings, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, password_hash: str | None = None
) -> ServerCommand:
    """`spark-submit --class HiveThriftServer2 ... spark-internal --hiveconf ...` for these settings;
    with `password_hash` (see `password_hash()`), CUSTOM authentication against that hash."""
    home = spark_home()
    conf = settings.spark_conf()
    argv = [
        str(home / "bin" / "spark-submit"),
        "--class",
        THRIFT_SERVER_CLASS,
        "--name",
        "cdc-lake thrift server",
        "--master",
        settings.spark_master,
        "--driver-memory",
        conf["spark.driver.memory"],
    ]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    # The driver's own RPC and block-manager ports (no authentication) listen on loopback only,
    # whatever the Thrift port's address.
    argv += ["--conf", "spark.driver.bindAddress=127.0.0.1", "--conf", "spark.driver.host=127.0.0.1"]
    # Other processes (land, dbt) write the tables it serves: no cached table relation or file
    # listing, so every query lists the files as they are now (a cached listing outlived the
    # files a later build replaced, and every query after that build failed).
    if not settings.uses_derby:
        argv += ["--conf", "spark.sql.filesourceTableRelationCacheSize=0",
                 "--conf", "spark.sql.hive.filesourcePartitionFileCacheSize=0"]
    argv += [
        "spark-internal",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={host}",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        "hive.server2.transport.mode=binary",
    ]
    if password_hash is None:
        argv += ["--hiveconf", "hive.server2.authentication=NONE"]
    else:
        argv += [
            "--hiveconf",
            "hive.server2.authentication=CUSTOM",
            "--hiveconf",
            f"hive.server2.custom.authentication.class={AUTHENTICATOR_CLASS}",
        ]
    env = dict(os.environ)
    # The plaintext never reaches the server; the hash goes in its environment, not on its command
    # line (which every local user can read in ps).
    for name in (PASSWORD_VARIABLE, PASSWORD_FILE_VARIABLE, PASSWORD_HASH_VARIABLE):
        env.pop(name, None)
    if password_hash is not None:
        env[PASSWORD_HASH_VARIABLE] = password_hash
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
        password_hash: str | None = None,
    ):
        self.settings = settings or load_settings()
        self.host = host
        self.port = port
        self.password_hash = password_hash
        default_log = os.environ.get("CDC_LAKE_SERVE_LOG", f"logs/thrift-server-{port}.log")
        self.log_path = (log_path or Path(default_log)).absolute()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready_timeout: float = 600.0, should_stop: Callable[[], bool] = lambda: False) -> None:
        """Start the server and return once it accepts connections; raise ServeError if it cannot."""
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise ServeError("Java 17 is required (java not found on PATH and JAVA_HOME not set)")
        if port_is_open(self.host, self.port):
            raise ServeError(f"{self.host}:{self.port} is already in use; choose another --port")
        if self.settings.uses_derby and metastore_in_use(self.settings.metastore_dir):
            raise ServeError(derby_lock_hint(self.settings.metastore_dir))
        self.settings.warehouse_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        command = server_command(self.settings, self.host, self.port, self.password_hash)
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


def server_password(host: str, password_file: Path | None = None) -> str | None:
    """The password the server will require (None: none, on loopback only); raises ServeError when
    the password cannot be read or `host` is not loopback and no password is given."""
    password = read_password(password_file)
    if password is None and not is_loopback(host):
        raise ServeError(
            f"refusing to listen on {host} without a password: anyone who can reach it could read every "
            f"table and run code as you. Give one with --password-file FILE, {PASSWORD_FILE_VARIABLE} or "
            f"{PASSWORD_VARIABLE}, or listen on 127.0.0.1"
        )
    path = password_path(password_file)
    warning = password_file_warning(path) if path is not None else None
    if warning:
        say_error(f"cdc-lake serve: {warning}")
    return password


def say_error(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def say_out(message: str) -> None:
    print(message, flush=True)


def _catalog_named(settings: Settings) -> str:
    """The metastore, for the start line: the Derby folder, or the shared catalog's JDBC URL
    without its parameters (they may hold a user or password)."""
    if settings.uses_derby:
        return f"metastore {settings.metastore_dir}"
    return f"shared catalog {settings.catalog_url.split('?', 1)[0]}"


def serve(
    port: int = DEFAULT_PORT,
    *,
    host: str = DEFAULT_HOST,
    password_file: Path | None = None,
    settings: Settings | None = None,
    say: Callable[[str], None] = say_out,
) -> int:
    """Run the Thrift Server until SIGINT/SIGTERM; the exit code for the command."""
    try:
        password = server_password(host, password_file)
    except ServeError as exc:
        say_error(f"cdc-lake serve: {exc}")
        return 2
    settings = settings or load_settings()
    server = ThriftServer(settings, host=host, port=port, password_hash=None if password is None else password_hash(password))
    stop_requested: list[int] = []

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        stop_requested.append(signum)

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        say(
            f"starting the Spark Thrift Server on {host}:{port} "
            f"({'password required' if password is not None else 'no password: local users only'}; "
            f"warehouse {settings.warehouse_dir}, "
            f"{_catalog_named(settings)}; log {server.log_path})"
        )
        try:
            server.start(should_stop=lambda: bool(stop_requested))
        except ServeError as exc:
            say_error(f"cdc-lake serve: {exc}")
            return 1
        client_env = [f"CDC_LAKE_THRIFT_PORT={port}"] if port != DEFAULT_PORT else []
        client_env += ["DBT_ENV_SECRET_CDC_LAKE_THRIFT_PASSWORD"] if password is not None else []
        say(f"listening on {host}:{port}: run `DBT_PROFILES_DIR=profiles dbt build --target thrift`"
            + (f" with {' and '.join(client_env)} set" if client_env else "")
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
