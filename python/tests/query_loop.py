"""A loop of queries through `cdc-lake serve` while other processes land and build: for
test_catalog.py and benchmarks/kafka_acceptance.py. Imports neither pytest nor conftest."""

from __future__ import annotations

import threading
import time


def served_error_message(exc: Exception) -> str:
    """The server's message of a failed statement and, when a missing file caused it, that cause
    (PyHive wraps the Thrift response; its errorMessage is only the outermost exception, e.g.
    "Exception thrown in awaitResult:", and the causes are in infoMessages, the stack trace)."""
    status = getattr(exc.args[0] if exc.args else None, "status", None)
    message = getattr(status, "errorMessage", None) or str(exc)
    causes = [line for line in getattr(status, "infoMessages", None) or [] if "FILE_NOT_EXIST" in line][:1]
    return " ".join(" | ".join([message, *causes]).split())[:600]


class QueryLoop(threading.Thread):
    """Counts cdc_current and cdc_history of `schema` through the server on 127.0.0.1:`port` until
    stopped; keeps every answer and every error (prefixed "after builds: " once `builds_ended`
    is set)."""

    def __init__(self, port: int, schema: str):
        super().__init__(daemon=True)
        self.port = port
        self.schema = schema
        self.answers: list[tuple[int, int]] = []
        self.errors: list[str] = []
        self.answers_after_builds: list[tuple[int, int]] = []  # once every build has ended
        self.builds_ended = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        from pyhive import hive

        connection = hive.connect(host="127.0.0.1", port=self.port, username="cdc_lake")
        try:
            while not self.stopping.is_set():
                cursor = connection.cursor()
                try:
                    cursor.execute(f"select (select count(*) from {self.schema}.cdc_current), "
                                   f"(select count(*) from {self.schema}.cdc_history)")
                    builds_ended = self.builds_ended.is_set()
                    answer = tuple(cursor.fetchone())
                    (self.answers_after_builds if builds_ended else self.answers).append(answer)
                except Exception as exc:  # noqa: BLE001 - every error is the finding
                    prefix = "after builds: " if self.builds_ended.is_set() else ""
                    self.errors.append(prefix + served_error_message(exc))
                finally:
                    cursor.close()
                time.sleep(0.2)
        finally:
            connection.close()
