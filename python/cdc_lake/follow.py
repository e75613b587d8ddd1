"""`cdc-lake land --kafka ... --follow` and `land --incoming DIR --follow`: land and build on a
schedule until stopped.

Each round lands what is new (the topics past the landed offsets, kafka.land_kafka: exactly once; or
the new and changed inputs of DIR, incoming.land_incoming) and, when it landed something (and always
in the first round, for landings of earlier runs; and after a build that failed), runs `dbt build`
in the same process and Spark session. One line per round says what it did. A round starts every
`every_s` seconds, or right after the previous one when that took longer.

A failed landing (a broker down) or a failed build (a data test, a lost executor) is reported and
the next round tries again, a failed build even when nothing new landed: a follower runs until it is
stopped. SIGINT or SIGTERM stops it after the step in progress: a landing commits (or, stopped
before its commit, is removed by the next `land`), a build ends; nothing new starts. A second signal
stops it at once, which the commit protocol makes safe too (an uncommitted landing is removed by the
next `land`, an interrupted build is redone by the next build).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from cdc_lake.land import LandingError, LandingReport

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from cdc_lake.settings import Settings

BUILD_ARGS = ("build", "--exclude-resource-type", "unit_test")
"""A round's build: the scheduled build's (scripts/scheduled_build.sh); unit tests check SQL on
fixed inputs and run in the test suite."""


class StopRequest:
    """SIGINT/SIGTERM while installed: the first asks the follower to stop after the step in
    progress, a second raises KeyboardInterrupt (stop at once)."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self.event = threading.Event()

    def handle(self, signum: int, _frame: object) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt(f"second {signal.Signals(signum).name}: stopping at once")
        self.event.set()
        self.say(
            f"{signal.Signals(signum).name}: stopping after the step in progress "
            "(send it again to stop at once; an interrupted landing is removed by the next land)"
        )

    @property
    def requested(self) -> bool:
        return self.event.is_set()

    def wait(self, seconds: float) -> None:
        """Sleep until `seconds` have passed or a stop is requested."""
        self.event.wait(max(0.0, seconds))


@contextmanager
def stop_on_signals(say: Callable[[str], None]) -> Iterator[StopRequest]:
    """Install a StopRequest for SIGINT and SIGTERM; restore the previous handlers on exit."""
    stop = StopRequest(say)
    previous = {signum: signal.signal(signum, stop.handle) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@dataclass
class Round:
    """What one round did, for its progress line."""

    number: int
    started: datetime
    landed: Sequence[LandingReport] = ()
    land_error: str | None = None
    land_s: float = 0.0
    built: bool = False
    build_error: str | None = None
    build_s: float = 0.0

    @property
    def total(self) -> int:
        """Messages the round landed."""
        return sum(report.total for report in self.landed)

    def line(self, next_at: datetime | None) -> str:
        parts = [f"round {self.number} {self.started:%H:%M:%S}:"]
        if self.land_error is not None:
            parts.append(f"not landed ({self.land_error});")
        elif self.total:
            by_format: dict[str, int] = {}
            for report in self.landed:
                for format_id, count in report.by_format.items():
                    by_format[format_id] = by_format.get(format_id, 0) + count
            formats = ", ".join(f"{k}={v:,}" for k, v in sorted(by_format.items()))
            seqs = [str(report.landing_seq) for report in self.landed if report.total]
            landings = f"landing {seqs[0]}" if len(seqs) == 1 else f"landings {', '.join(seqs)}"
            parts.append(f"{landings}: {self.total:,} message(s) ({formats}) in {self.land_s:.0f} s;")
        else:
            parts.append("nothing new;")
        waiting = sum(len(report.waiting) for report in self.landed)
        if waiting:
            parts.append(f"{waiting} file(s) end in a line without a newline yet (it waits);")
        if self.build_error is not None:
            parts.append(f"build failed after {self.build_s:.0f} s ({self.build_error});")
        elif self.built:
            parts.append(f"built in {self.build_s:.0f} s;")
        else:
            parts.append("no build;")
        parts.append(f"next round at {next_at:%H:%M:%S}" if next_at else "stopped")
        return " ".join(parts)


def follow(
    land_once: Callable[[], Sequence[LandingReport]],
    build_once: Callable[[], None] | None,
    every_s: float,
    stop: StopRequest,
    *,
    say: Callable[[str], None] = print,
    rounds: int | None = None,
) -> int:
    """Run rounds until `stop` is requested (or `rounds` have run); `land_once` lands what is new,
    a report per landing. Exit status: 0, or 1 when the last round's landing or build failed."""
    from py4j.protocol import Py4JJavaError

    from cdc_lake.dbt import DbtError

    number, more, failed = 0, True, False
    build_due = True  # the first round builds the landings of earlier runs
    while more and not stop.requested:
        number += 1
        this = Round(number, datetime.now().astimezone())
        started = time.monotonic()
        try:
            this.landed = land_once()
        except (LandingError, Py4JJavaError) as exc:  # a broker down, a read that failed: next round retries
            this.land_error = _one_line(exc)[:500]
        this.land_s = time.monotonic() - started
        build_due = build_due or this.total > 0
        if build_once is not None and build_due and not stop.requested:
            build_started = time.monotonic()
            try:
                build_once()
                this.built = True
                build_due = False
            except DbtError as exc:  # a failing data test: reported, and the next round builds again
                this.build_error = _one_line(exc)[:500]
            this.build_s = time.monotonic() - build_started
        failed = bool(this.land_error or this.build_error)
        more = not stop.requested and (rounds is None or number < rounds)
        wait_s = max(0.0, started + every_s - time.monotonic())
        say(this.line(datetime.fromtimestamp(time.time() + wait_s).astimezone() if more else None))
        if more:
            stop.wait(wait_s)
    if more and stop.requested and number:
        say(f"stopped after round {number}")
    return 1 if failed else 0


def follow_kafka(
    bootstrap: str,
    topics: Sequence[str],
    format_id: str,
    every_s: float,
    *,
    build: bool = True,
    select: Sequence[str] = (),
    say: Callable[[str], None] = print,
    warn: Callable[[str], None] = print,
) -> int:
    """`cdc-lake land --kafka ... --follow`: land `topics` every `every_s` seconds and build."""
    from cdc_lake.kafka import land_kafka
    from cdc_lake.land import check_format_id

    check_format_id(format_id)

    def lander(spark: "SparkSession", settings: "Settings") -> Callable[[], list[LandingReport]]:
        return lambda: [
            land_kafka(bootstrap, topics, format_id, spark=spark, settings=settings, say=lambda _m: None, warn=warn)
        ]

    return _follow_rounds(f"{', '.join(topics)} on {bootstrap}", lander, every_s, build, select, say)


def follow_incoming(
    root: str,
    every_s: float,
    *,
    build: bool = True,
    select: Sequence[str] = (),
    say: Callable[[str], None] = print,
    warn: Callable[[str], None] = print,
) -> int:
    """`cdc-lake land --incoming DIR --follow`: land the new and changed inputs of DIR every
    `every_s` seconds and build."""
    from cdc_lake.incoming import IncomingFolder, land_incoming

    folder = IncomingFolder(root)
    folder.check()  # a LandingError before Spark starts

    def lander(spark: "SparkSession", settings: "Settings") -> Callable[[], list[LandingReport]]:
        return lambda: land_incoming(folder, spark=spark, settings=settings, say=lambda _m: None, warn=warn)

    return _follow_rounds(str(folder.root), lander, every_s, build, select, say)


def _follow_rounds(
    source: str,
    lander: Callable[["SparkSession", "Settings"], Callable[[], Sequence[LandingReport]]],
    every_s: float,
    build: bool,
    select: Sequence[str],
    say: Callable[[str], None],
) -> int:
    """Start the one Spark session of a follower and run its rounds: `lander(spark, settings)`
    gives the landing step; the build step is `dbt build` in this process (none with --no-build)."""
    from cdc_lake.dbt import run_dbt
    from cdc_lake.settings import load_settings
    from cdc_lake.spark import get_spark

    settings = load_settings()
    say(f"following {source} every {every_s:g} s "
        f"({'landing and building' if build else 'landing only'}); Ctrl-C or SIGTERM stops after the step in progress")
    land_once = lander(get_spark(settings), settings)

    def build_once() -> None:
        run_dbt([*BUILD_ARGS, *(("--select", *select) if select else ())])

    with stop_on_signals(say) as stop:
        return follow(land_once, build_once if build else None, every_s, stop, say=say)


def parse_every(text: str) -> float:
    """`30s`, `5m`, `1h` or plain seconds, as seconds (at least 1)."""
    units = {"s": 1, "m": 60, "h": 3600}
    value, unit = (text[:-1], text[-1]) if text and text[-1] in units else (text, "s")
    try:
        seconds = float(value) * units[unit]
    except ValueError:
        raise ValueError(f"--every {text!r}: give seconds or a number with s, m or h, e.g. 30s, 5m, 1h") from None
    if seconds < 1:
        raise ValueError(f"--every {text!r}: give at least 1 second")
    return seconds


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
