"""Run dbt in this process, so it shares the embedded Spark session (tests and the demo)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


class DbtError(RuntimeError):
    """dbt reported a failure; the message lists the failing nodes."""


def run_dbt(args: Sequence[str], *, project_dir: Path = PROJECT_DIR, quiet: bool = True) -> object:
    """Invoke `dbt ARGS` in-process with the project's profiles; raise DbtError on failure."""
    from dbt.cli.main import dbtRunner

    home = Path(os.environ.get("CDC_LAKE_DBT_STATE", project_dir))
    full_args = [
        *args,
        "--project-dir",
        str(project_dir),
        "--profiles-dir",
        str(project_dir / "profiles"),
        "--target-path",
        str(home / "target"),
        "--log-path",
        str(home / "logs"),
    ]
    if quiet:
        full_args = ["--quiet", *full_args]
    result = dbtRunner().invoke(full_args)
    if not result.success:
        failures = []
        for node_result in getattr(result.result, "results", None) or []:
            status = str(getattr(node_result, "status", ""))
            if status.lower() in ("error", "fail"):
                failures.append(f"{node_result.node.name}: {node_result.message}")
        detail = "; ".join(failures) or str(result.exception)
        raise DbtError(f"dbt {' '.join(args)} failed: {detail}")
    return result.result
