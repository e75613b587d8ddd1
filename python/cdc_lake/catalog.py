"""`cdc-lake catalog start|stop|status`: one catalog for many processes.

The embedded default keeps the Hive metastore in Derby, which admits one process at a time. For
live operation (`serve` answering queries while `land` and `dbt build` run) the metastore lives in
a PostgreSQL server instead: this module runs Debian's PostgreSQL (`initdb`, `pg_ctl`) on
127.0.0.1 with its data in `CDC_LAKE_CATALOG_DIR` (default `.cdc_lake/catalog`), and every
process that has `CDC_LAKE_CATALOG_URL` set uses it (settings.py, profiles.yml). The server
trusts connections from loopback only, like `serve` without a password.

`start` creates the cluster and the metastore's database and tables the first time (one Spark
session, so that two processes never race to create them), starts the server, and prints the
`export` line that points the other commands at it. `stop` stops it; its data stays.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DATABASE = "cdc_lake_metastore"
USER = "cdc_lake"
DEFAULT_PORT = 5433  # not 5432: a system PostgreSQL may have that one
READY_SECONDS = 60.0


class CatalogError(Exception):
    """A catalog command that cannot go on; the message says what to do."""


@dataclass(frozen=True)
class Catalog:
    """A PostgreSQL server for the metastore: its data folder and port."""

    data_dir: Path
    port: int

    @property
    def url(self) -> str:
        """The metastore's JDBC URL, the value of CDC_LAKE_CATALOG_URL."""
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{DATABASE}?user={USER}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "catalog.log"  # inside: the server's user can write there


def load_catalog(environ: dict[str, str] | None = None) -> Catalog:
    """The catalog of CDC_LAKE_CATALOG_DIR and CDC_LAKE_CATALOG_PORT (README, "Configuration")."""
    env = os.environ if environ is None else environ
    data_dir = Path(env.get("CDC_LAKE_CATALOG_DIR", "").strip() or ".cdc_lake/catalog").absolute()
    port_text = env.get("CDC_LAKE_CATALOG_PORT", "").strip() or str(DEFAULT_PORT)
    if not port_text.isdigit():
        raise CatalogError(f"CDC_LAKE_CATALOG_PORT must be a port number, not {port_text!r}")
    return Catalog(data_dir=data_dir, port=int(port_text))


def postgres_bin() -> Path:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), or an error that says how to get them."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
    if versions:  # Debian's layout: the newest installed major version
        return versions[-1].parent
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    raise CatalogError(
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed: install Debian's "
        "`postgresql` package (apt-get install postgresql), or put its bin folder on PATH"
    )


def _as_server_user(command: Sequence[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its programs as the `postgres` user."""
    if os.geteuid() != 0:
        return list(command)
    return ["runuser", "-u", "postgres", "--", *command]


def _run(command: Sequence[str], what: str) -> str:
    result = subprocess.run(_as_server_user(command), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = " ".join((result.stderr or result.stdout).split())[-500:]
        raise CatalogError(f"{what} failed: {detail}")
    return result.stdout


def is_running(catalog: Catalog) -> bool:
    """Whether the catalog's server accepts connections."""
    result = subprocess.run(
        [str(postgres_bin() / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(catalog.port)],
        capture_output=True, check=False,
    )
    return result.returncode == 0


def _traversable_by_others(folder: Path) -> bool:
    """Whether every folder from / to `folder` lets other users through (the x bit for others)."""
    return all(part.stat().st_mode & 0o001 for part in (folder, *folder.parents))


def _initdb(catalog: Catalog) -> None:
    catalog.data_dir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0 and not _traversable_by_others(catalog.data_dir.parent):
        raise CatalogError(
            f"as root, the catalog's server runs as the `postgres` user, which cannot reach {catalog.data_dir}: "
            "set CDC_LAKE_CATALOG_DIR to a folder every user can reach (e.g. under /var/lib or /srv)"
        )
    if os.geteuid() == 0:
        shutil.chown(catalog.data_dir, "postgres", "postgres")
        catalog.data_dir.parent.chmod(0o755)
    _run(
        [str(postgres_bin() / "initdb"), "-D", str(catalog.data_dir), "-U", USER,
         "--auth=trust", "--encoding=UTF8", "--no-instructions"],
        "initdb (creating the catalog's PostgreSQL cluster)",
    )


def _start_server(catalog: Catalog) -> None:
    options = f"-c listen_addresses=127.0.0.1 -p {catalog.port} -k {catalog.data_dir}"
    _run(
        [str(postgres_bin() / "pg_ctl"), "start", "-D", str(catalog.data_dir), "-l", str(catalog.log_path),
         "-o", options, "-w", "-t", str(int(READY_SECONDS))],
        f"starting PostgreSQL (log: {catalog.log_path})",
    )


def _psql(catalog: Catalog, database: str, sql: str, what: str) -> str:
    return _run(
        [str(postgres_bin() / "psql"), "-h", "127.0.0.1", "-p", str(catalog.port), "-U", USER, "-d", database, "-tAc", sql],
        what,
    ).strip()


def _create_database(catalog: Catalog) -> None:
    """Create the metastore's database unless it exists."""
    if _psql(catalog, "postgres", f"select count(*) from pg_database where datname = '{DATABASE}'", "psql") == "0":
        _psql(catalog, "postgres", f"create database {DATABASE}", "creating the metastore database")


def _metastore_ready(catalog: Catalog) -> bool:
    """Whether the metastore's tables were all made: DataNucleus' id table comes last (the default
    database's id), after SchemaTool's tables."""
    return _psql(catalog, DATABASE, "select count(*) from pg_class where relname = 'SEQUENCE_TABLE'", "psql") == "1"


# What the Hive metastore client of Spark gives DataNucleus (HiveConf's defaults), so that the
# tables SchemaTool makes are the ones that client would make.
DATANUCLEUS_PROPERTIES = {
    "datanucleus.storeManagerType": "rdbms",
    "datanucleus.identifierFactory": "datanucleus1",
    "datanucleus.rdbms.useLegacyNativeValueStrategy": "true",
    "datanucleus.schema.autoCreateAll": "true",
}


def _create_metastore_tables(catalog: Catalog) -> None:
    """Every table of the metastore, made up front by DataNucleus' SchemaTool from the Hive
    metastore's mapping (package.jdo in pyspark's hive-metastore jar), then the default database
    by one Spark session.

    Up front, because DataNucleus otherwise creates a table the first time it needs one, with its
    foreign keys, from a second connection: on PostgreSQL that waits for the first connection's
    open transaction on the referenced table, which waits for it (a `create table` hung forever)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    metastore_jar = next(jars.glob("hive-metastore-*.jar"), None)
    if metastore_jar is None:
        raise CatalogError(f"pyspark has no hive-metastore jar in {jars}: reinstall with scripts/setup.sh")
    with tempfile.TemporaryDirectory(prefix="cdc-lake-catalog-") as work_dir:
        _run_schematool(catalog, metastore_jar, Path(work_dir))
    code = "from cdc_lake.spark import get_spark; get_spark().sql('show databases').collect()"
    env = {**os.environ, "CDC_LAKE_CATALOG_URL": catalog.url}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = " ".join(result.stderr.split())[-500:]
        raise CatalogError(f"creating the metastore's default database failed: {tail}")


def _run_schematool(catalog: Catalog, metastore_jar: Path, work: Path) -> None:
    from cdc_lake.settings import JVM_DEPS_DIR

    with zipfile.ZipFile(metastore_jar) as jar:
        (work / "package.jdo").write_bytes(jar.read("package.jdo"))
    properties = {
        **DATANUCLEUS_PROPERTIES,
        "javax.jdo.option.ConnectionURL": catalog.url,
        "javax.jdo.option.ConnectionDriverName": "org.postgresql.Driver",
    }
    (work / "datanucleus.properties").write_text("".join(f"{k}={v}\n" for k, v in properties.items()))
    command = [
        "java", "-cp", f"{metastore_jar.parent}/*:{JVM_DEPS_DIR / 'postgresql.jar'}", "org.datanucleus.store.schema.SchemaTool",
        "-create", "-api", "JDO", "-props", str(work / "datanucleus.properties"), str(work / "package.jdo"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0 or "completed successfully" not in result.stdout:
        tail = " ".join((result.stderr + result.stdout).split())[-500:]
        raise CatalogError(f"creating the metastore's tables (DataNucleus SchemaTool) failed: {tail}")


def start(catalog: Catalog, say=print) -> None:  # noqa: ANN001 - a print-like callable
    """Start the catalog (creating it the first time); idempotent."""
    if is_running(catalog):
        say(f"catalog: already running on 127.0.0.1:{catalog.port} ({catalog.data_dir})")
        return
    if not (catalog.data_dir / "PG_VERSION").exists():
        say(f"catalog: creating a PostgreSQL cluster in {catalog.data_dir}")
        _initdb(catalog)
    say(f"catalog: starting PostgreSQL on 127.0.0.1:{catalog.port}")
    _start_server(catalog)
    _create_database(catalog)
    if not _metastore_ready(catalog):
        say("catalog: creating the metastore's tables (about 20 s)")
        _create_metastore_tables(catalog)


def stop(catalog: Catalog, say=print) -> None:  # noqa: ANN001 - a print-like callable
    """Stop the catalog's server (its data stays); nothing to do when it is not running."""
    if not (catalog.data_dir / "postmaster.pid").exists():
        say(f"catalog: not running ({catalog.data_dir})")
        return
    _run([str(postgres_bin() / "pg_ctl"), "stop", "-D", str(catalog.data_dir), "-m", "fast", "-w"], "stopping PostgreSQL")
    say(f"catalog: stopped ({catalog.data_dir})")
