"""The follower's rounds (`cdc-lake land --kafka ... --follow` or `--incoming DIR --follow`, cdc_lake/follow.py) with stand-in
steps: what a round builds, its progress line, failures that the next round retries, and SIGTERM or
SIGINT during a step (the step ends, nothing new starts) or twice (at once). The follower against a
real broker and dbt is in test_land_kafka.py."""

from __future__ import annotations

import os
import signal

import pytest

from cdc_lake.dbt import DbtError
from cdc_lake.follow import follow, parse_every, stop_on_signals
from cdc_lake.land import LandingError, LandingReport


def report(seq: int | None, **by_format: int) -> LandingReport:
    return LandingReport(landing_seq=seq, landed={"kafka://b/t": sum(by_format.values())}, by_format=by_format)


class Steps:
    """Landings that return the given results in turn, and builds that are counted."""

    def __init__(self, *landings: LandingReport | Exception, build_errors: tuple[int, ...] = ()):
        self.landings = list(landings)
        self.builds = 0
        self.build_errors = build_errors

    def land(self) -> list[LandingReport]:
        result = self.landings.pop(0)
        if isinstance(result, Exception):
            raise result
        return [result]

    def build(self) -> None:
        self.builds += 1
        if self.builds in self.build_errors:
            raise DbtError("dbt build failed: cdc_history_valid_range: Got 1 result, configured to fail if != 0")


def run(steps: Steps, rounds: int, *, build: bool = True) -> tuple[int, list[str]]:
    lines: list[str] = []
    with stop_on_signals(lines.append) as stop:
        status = follow(steps.land, steps.build if build else None, 0.0, stop, say=lines.append, rounds=rounds)
    return status, lines


def test_the_first_round_builds_then_only_rounds_that_landed():
    steps = Steps(report(None), report(4, canal_json=1200, dts_avro=34), report(None))
    status, lines = run(steps, 3)
    assert status == 0 and steps.builds == 2
    assert [line.split(": ", 1)[1].rsplit(";", 1)[0] for line in lines] == [
        "nothing new; built in 0 s",
        "landing 4: 1,234 message(s) (canal_json=1,200, dts_avro=34) in 0 s; built in 0 s",
        "nothing new; no build",
    ]
    assert [line.rsplit("; ", 1)[1].split(" at ")[0] for line in lines] == ["next round"] * 2 + ["stopped"]


def test_without_build_rounds_only_land():
    steps = Steps(report(1, canal_json=3), report(None))
    assert run(steps, 2, build=False)[0] == 0 and steps.builds == 0


def test_a_failed_landing_or_build_is_reported_and_the_next_round_tries_again():
    steps = Steps(
        LandingError("the Kafka broker at 127.0.0.1:9 did not answer within 30 s: check --kafka"),
        report(2, canal_json=5),
        report(3, canal_json=1),
        build_errors=(2,),
    )
    status, lines = run(steps, 3)
    assert status == 0 and steps.builds == 3  # the first round builds though its landing failed
    assert "not landed (the Kafka broker at 127.0.0.1:9 did not answer within 30 s: check --kafka);" in lines[0]
    assert "build failed after 0 s (dbt build failed: cdc_history_valid_range" in lines[1]
    assert "built in" in lines[2]
    assert run(Steps(report(1, canal_json=1), build_errors=(1,)), 1)[0] == 1  # the last round failed


def test_a_failed_build_is_retried_though_nothing_new_landed():
    steps = Steps(report(1, canal_json=3), report(None), report(None), report(None), build_errors=(1, 2))
    status, lines = run(steps, 4)
    assert status == 0 and steps.builds == 3
    assert ["build failed" in line for line in lines] == [True, True, False, False]
    assert "nothing new; built in" in lines[2]
    assert "nothing new; no build" in lines[3]  # built since: nothing to do until something lands


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_landing_lets_it_commit_then_stops_without_building(signum):
    class SignalledLanding(Steps):
        def land(self) -> list[LandingReport]:
            os.kill(os.getpid(), signum)  # delivered while the landing runs: it goes on to the end
            return super().land()

    steps = SignalledLanding(report(7, debezium_json=10), report(8, debezium_json=1))
    status, lines = run(steps, 5)
    assert status == 0 and steps.builds == 0 and len(steps.landings) == 1  # one landing, whole; no build
    assert lines[0].startswith(f"{signal.Signals(signum).name}: stopping after the step in progress")
    assert lines[1].endswith("landing 7: 10 message(s) (debezium_json=10) in 0 s; no build; stopped")
    assert len(lines) == 2


def test_a_signal_during_a_build_lets_it_end_and_starts_no_round():
    class SignalledBuild(Steps):
        def build(self) -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            super().build()

    steps = SignalledBuild(report(1, canal_json=2), report(2, canal_json=2))
    status, lines = run(steps, 5)
    assert (status, steps.builds, len(steps.landings)) == (0, 1, 1)
    assert lines[-1].endswith("built in 0 s; stopped")


def test_a_signal_between_rounds_stops_the_wait():
    lines: list[str] = []
    with stop_on_signals(lines.append) as stop:
        steps = Steps(report(None), report(None))
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        previous = signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGTERM))
        try:
            status = follow(steps.land, None, 3600.0, stop, say=lines.append)
        finally:
            signal.signal(signal.SIGALRM, previous)
    assert status == 0 and len(steps.landings) == 1  # one round, then the hour's wait ended at once
    assert lines[-1] == "stopped after round 1"


def test_a_second_signal_stops_at_once():
    class SignalledTwice(Steps):
        def land(self) -> list[LandingReport]:
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            return super().land()

    with pytest.raises(KeyboardInterrupt, match="second SIGTERM"):
        run(SignalledTwice(report(1, canal_json=1)), 1)


def test_the_handlers_before_the_follower_are_restored():
    before = signal.getsignal(signal.SIGTERM)
    run(Steps(report(None)), 1, build=False)
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.parametrize(("text", "seconds"), [("90", 90.0), ("30s", 30.0), ("5m", 300.0), ("1.5h", 5400.0)])
def test_intervals(text, seconds):
    assert parse_every(text) == seconds


@pytest.mark.parametrize("text", ["", "5x", "m", "0.5s", "-1m"])
def test_intervals_that_are_refused_say_what_to_give(text):
    with pytest.raises(ValueError, match=r"--every .*: give "):
        parse_every(text)


def test_follow_options_need_a_source_and_follow(capsys):
    from cdc_lake.cli import main

    assert main(["land", "--format", "auto", "--follow", "some.jsonl"]) == 2
    assert main(["land", "--format", "auto", "--kafka", "h:1", "--topic", "t", "--every", "5m"]) == 2
    assert main(["land", "--incoming", "incoming", "--no-build"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "cdc-lake land: --follow follows Kafka topics or a folder: give --kafka or --incoming",
        "cdc-lake land: --every, --no-build and --select are options of --follow",
        "cdc-lake land: --every, --no-build and --select are options of --follow",
    ]


def test_a_follower_stopped_at_once_says_so_and_exits_130(monkeypatch, capsys, tmp_path):
    import cdc_lake.follow
    from cdc_lake.cli import main

    def stopped_at_once(*_args, **_kwargs) -> int:
        raise KeyboardInterrupt("second SIGTERM: stopping at once")

    monkeypatch.setenv("CDC_LAKE_METASTORE", str(tmp_path / "metastore_db"))
    monkeypatch.setattr(cdc_lake.follow, "follow_kafka", stopped_at_once)
    assert main(["land", "--format", "auto", "--kafka", "h:1", "--topic", "t", "--follow"]) == 130
    assert capsys.readouterr().err == (
        "cdc-lake land: second SIGTERM: stopping at once; stopped at once (the next land removes an "
        "uncommitted landing)\n"
    )
