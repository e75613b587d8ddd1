"""The Derby metastore admits one process at a time: tell the user when another one holds it.

A booted Derby database holds an exclusive lock on `<metastore>/dbex.lck` (Java's FileChannel
lock, a POSIX record lock on Linux and macOS). `metastore_in_use` probes that lock from Python;
call it only from a process whose own JVM has not booted this metastore (the py4j gateway JVM is a
separate process, so the CLI's Python process is always safe).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# A process that has just finished (a `dbt build`, a `cdc-lake land`) can leave its Spark JVM
# shutting down for a few seconds, still holding Derby's lock: commands wait this long for it.
RELEASE_WAIT_SECONDS = 20.0

DERBY_LOCK_MARKERS = (
    "Another instance of Derby may have already booted the database",
    "XSDB6",
)


def derby_lock_hint(metastore_dir: Path) -> str:
    """The one-line hint printed when the Derby metastore is held by another process."""
    return (
        f"the Derby metastore {metastore_dir} is in use by another process (a running "
        "`cdc-lake serve`, `cdc-lake land`, or dbt on the local target); Derby admits one process "
        "at a time: stop that process and retry"
    )


def is_derby_lock_error(text: str) -> bool:
    """Whether an error message or log says the Derby metastore is booted by another process."""
    return any(marker in text for marker in DERBY_LOCK_MARKERS)


def metastore_in_use(metastore_dir: Path) -> bool:
    """Whether another process has booted the Derby metastore at `metastore_dir`."""
    lock_file = Path(metastore_dir) / "dbex.lck"
    try:
        import fcntl
    except ImportError:  # Windows: no probe; the error after boot still says it
        return False
    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return False  # never booted, or not readable: nothing to say
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def metastore_held(metastore_dir: Path, wait_seconds: float | None = None) -> bool:
    """Whether another process still holds the metastore after waiting up to `wait_seconds`
    (default: CDC_LAKE_METASTORE_WAIT or RELEASE_WAIT_SECONDS) for it to let go."""
    if wait_seconds is None:
        wait_seconds = float(os.environ.get("CDC_LAKE_METASTORE_WAIT", "").strip() or RELEASE_WAIT_SECONDS)
    deadline = time.monotonic() + wait_seconds
    while metastore_in_use(metastore_dir):
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.5)
    return False


def exception_mentions_derby_lock(exc: BaseException) -> bool:
    """Whether a (py4j/pyspark) exception or any of its Java causes is Derby's lock error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if is_derby_lock_error(str(current)):
            return True
        java = getattr(current, "java_exception", None) or getattr(current, "_java_exception", None)
        try:
            while java is not None:
                if is_derby_lock_error(str(java.toString())):
                    return True
                java = java.getCause()
        except Exception:  # noqa: BLE001 - the gateway may be gone; the probe is best effort
            pass
        current = current.__cause__ or current.__context__
    return False
