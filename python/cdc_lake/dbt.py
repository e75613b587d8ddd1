"""Run dbt in this process, so it shares the embedded Spark session (tests and the demo)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parents[2]

# Parsed manifests by what the parse depends on (see _parse_key); filled by run_dbt(reuse_manifest=True).
_MANIFESTS: dict[tuple[Any, ...], Any] = {}
# Options of a dbt command that change what a parse produces, or where it reads and writes (a
# caller's folders are the parse's too).
_PARSE_OPTIONS = ("--vars", "--target", "-t", "--profile", "--project-dir", "--profiles-dir", "--target-path", "--log-path")


class DbtError(RuntimeError):
    """dbt reported a failure; the message lists the failing nodes."""


def run_dbt(
    args: Sequence[str], *, project_dir: Path = PROJECT_DIR, quiet: bool = True, reuse_manifest: bool = False
) -> object:
    """Invoke `dbt ARGS` in-process with the project's profiles; raise DbtError on failure.

    `reuse_manifest`: parse the project once per process for each environment (the CDC_LAKE_* and
    DBT_* variables: the target schema is part of the parse) and give later commands that manifest
    instead of parsing again. For a process that runs many commands on unchanged project files (the
    test suite); a long-lived process whose project files change must leave it off.
    """
    with _profile_settings_applied_once():
        return _invoke(args, project_dir=project_dir, quiet=quiet, reuse_manifest=reuse_manifest)


def _invoke(args: Sequence[str], *, project_dir: Path, quiet: bool, reuse_manifest: bool) -> object:
    from dbt.cli.main import dbtRunner

    paths = _path_args(project_dir, given=args)
    manifest = None
    if reuse_manifest:
        parse_options = _parse_options(args)
        key = _parse_key(project_dir, parse_options)
        if key not in _MANIFESTS:
            parsed = dbtRunner().invoke(["--quiet", "parse", *parse_options, *paths])
            if not parsed.success:
                raise DbtError(f"dbt parse failed: {parsed.exception}")
            _MANIFESTS[key] = parsed.result
        manifest = _MANIFESTS[key]
        _forget_ephemeral_injections(manifest)
    full_args = [*args, *paths]
    if quiet:
        full_args = ["--quiet", *full_args]
    result = dbtRunner(manifest=manifest).invoke(full_args)
    if not result.success:
        failures = []
        for node_result in getattr(result.result, "results", None) or []:
            status = str(getattr(node_result, "status", ""))
            if status.lower() in ("error", "fail"):
                failures.append(f"{node_result.node.name}: {node_result.message}")
        detail = "; ".join(failures) or str(result.exception)
        raise DbtError(f"dbt {' '.join(args)} failed: {detail}")
    return result.result


def _forget_ephemeral_injections(manifest: Any) -> None:
    """Let the next command inline ephemeral models as a freshly parsed manifest would.

    dbt marks a node whose ephemeral references it has inlined as CTEs (`extra_ctes_injected`) and
    inlines nothing into a node so marked. A reused manifest keeps the marks of the previous
    command, so without this a model compiled again (int_cdc__events, whose references depend on
    what was landed) would reference its staging models' CTEs without defining them.
    """
    for node in manifest.nodes.values():
        if getattr(node, "extra_ctes_injected", False):
            node.extra_ctes_injected = False
            node.extra_ctes = []


@contextmanager
def _profile_settings_applied_once() -> Iterator[None]:
    """While a dbt command runs here, give the Spark session the profile's settings on its first
    statement only.

    dbt-spark's `session` method builds the session for every statement: a builder with each of the
    profile's server_side_parameters, then getOrCreate(), which applies them all to the session
    that is running (py4j calls: about 7 ms a statement against 1 ms without them, and a build runs
    200-350 statements). They cannot change during a command, so the first statement applies them
    (dbt-spark adds spark.sql.ansi.enabled=false to them) and the others run with none.
    """
    try:
        from dbt.adapters.spark.session import Cursor
    except ImportError:  # no dbt-spark: nothing runs on a session here
        yield
        return
    execute = Cursor.execute
    applied: set[tuple[tuple[str, str], ...]] = set()

    def execute_with_settings_once(cursor: Cursor, sql: str, *parameters: Any) -> None:
        settings = getattr(cursor, "server_side_parameters", None)
        if not isinstance(settings, dict):  # another dbt-spark: leave its cursor as it is
            execute(cursor, sql, *parameters)
            return
        key = tuple(sorted(settings.items()))
        if key not in applied:
            execute(cursor, sql, *parameters)
            applied.add(key)
            return
        cursor.server_side_parameters = {}
        try:
            execute(cursor, sql, *parameters)
        finally:
            cursor.server_side_parameters = settings

    Cursor.execute = execute_with_settings_once  # type: ignore[method-assign]
    try:
        yield
    finally:
        Cursor.execute = execute  # type: ignore[method-assign]


def _path_args(project_dir: Path, given: Sequence[str] = ()) -> list[str]:
    """The project, profiles, target and log folders (target and logs under CDC_LAKE_DBT_STATE),
    less those `given` names: a folder the caller chose is dbt's, not overridden (dbt takes an
    option's last value)."""
    home = Path(os.environ.get("CDC_LAKE_DBT_STATE", project_dir))
    folders = {
        "--project-dir": project_dir,
        "--profiles-dir": project_dir / "profiles",
        "--target-path": home / "target",
        "--log-path": home / "logs",
    }
    named = {arg.partition("=")[0] for arg in given}
    return [word for option, folder in folders.items() if option not in named for word in (option, str(folder))]


def _parse_options(args: Sequence[str]) -> list[str]:
    """The options of `args` that a parse depends on, each with its value."""
    options: list[str] = []
    for position, arg in enumerate(args):
        name, equals, _value = arg.partition("=")
        if name in _PARSE_OPTIONS:
            options.extend([arg] if equals else list(args[position : position + 2]))
    return options


def _parse_key(project_dir: Path, parse_options: Sequence[str]) -> tuple[Any, ...]:
    # CDC_LAKE_TEST_FAIL_AT (a test hook, macros/materializations/cdc_build_state.sql) is read
    # while a build runs, not by the parse: tests that inject failures reuse one parse
    environment = sorted(
        (name, value)
        for name, value in os.environ.items()
        if name.startswith(("CDC_LAKE_", "DBT_")) and name != "CDC_LAKE_TEST_FAIL_AT"
    )
    return (str(project_dir), tuple(environment), tuple(parse_options))
