"""The Derby metastore admits one process at a time: tell the user when another one holds it.

A booted Derby database holds an exclusive lock on `<metastore>/dbex.lck` (Java's FileChannel
lock, a POSIX record lock on Linux and macOS). `metastore_in_use` probes that lock from Python;
call it only from a process whose own JVM has not booted this metastore (the py4j gateway JVM is a
separate process, so the CLI's Python process is always safe).
"""

from __future__ import annotations

import os
from pathlib import Path

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
