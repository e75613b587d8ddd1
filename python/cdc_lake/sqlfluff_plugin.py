"""sqlfluff plugin: the `dbt_offline` templater, sqlfluff's dbt templater without a database.

sqlfluff's dbt templater compiles every model with dbt (real `ref`, `source`, `var`, macros and
`adapter.dispatch`), but before compiling it fills dbt's relation cache by listing every schema
through the profile's connection. For this project that means starting an embedded Spark session
(and taking the Derby metastore lock) or reaching a Thrift server or a workspace. Linting needs
none of that: this templater marks every schema of the project as listed and empty instead, so
`adapter.get_relation` (and `is_incremental()`) answer "no relation" without a query and a lint
run opens no connection, starts no JVM and touches no network.

Registered through the `sqlfluff` entry point in pyproject.toml; `.sqlfluff` selects it with
`templater = dbt_offline`; its settings (project_dir, profiles_dir, profile, target) are those of
the dbt templater, in the section `[sqlfluff:templater:dbt_offline]`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlfluff.core.plugin import hookimpl
from sqlfluff_templater_dbt.templater import DbtTemplater


class OfflineDbtTemplater(DbtTemplater):
    """The dbt templater with an empty, pre-filled relation cache instead of a live connection."""

    name = "dbt_offline"

    @contextmanager
    def connection(self) -> Iterator[None]:
        from dbt.adapters.factory import get_adapter
        from dbt.context.providers import generate_runtime_macro_context

        adapter = self.adapters.get(self.project_dir)
        if adapter is None:
            adapter = get_adapter(self.dbt_config)
            self.adapters[self.project_dir] = adapter
            # Registers a connection object only; dbt-spark opens it on the first query.
            adapter.acquire_connection("master")
            adapter.set_macro_resolver(self.dbt_manifest)
            adapter.set_macro_context_generator(generate_runtime_macro_context)
            schemas = adapter._get_cache_schemas(self.dbt_manifest.nodes.values())
            adapter.cache.update_schemas(
                (relation.database, relation.schema) for relation in schemas if relation.schema
            )
        yield


@hookimpl
def get_templaters() -> list[type[DbtTemplater]]:
    """The templaters this plugin adds to sqlfluff."""
    return [OfflineDbtTemplater]
