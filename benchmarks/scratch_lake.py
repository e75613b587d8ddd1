"""The environment of a scratch lake, shared by the benchmark scripts: a lake of its own (warehouse,
metastore, dbt's state) in a folder, under a schema of its own, with the project's profiles."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]


def lake_env(lake: Path, schema: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with the variables that put cdc-lake's
    tables, its metastore and dbt's state in `lake` (created by the first command), the models in
    schema `schema` and the landing tables in `<schema>_raw`."""
    env = dict(os.environ if base is None else base)
    env.update(
        CDC_LAKE_WAREHOUSE=str(lake / "warehouse"),
        CDC_LAKE_METASTORE=str(lake / "metastore_db"),
        CDC_LAKE_DBT_STATE=str(lake / "dbt"),
        CDC_LAKE_SCHEMA=schema,
        CDC_LAKE_RAW_SCHEMA=f"{schema}_raw",
        DBT_PROFILES_DIR=str(PROJECT_DIR / "profiles"),
    )
    return env
