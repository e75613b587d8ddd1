"""Every setting of the embedded Spark session, in one place.

`cdc-lake land`, `cdc-lake serve` and dbt's `local` target (profiles/profiles.yml, which reads the
same environment variables with the same defaults) must open the same warehouse and metastore,
so the names and defaults below are mirrored there; python/tests/test_settings.py checks it.
Relative paths are resolved against the working directory, which is the project root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


FUNCTIONS_JAR = Path(__file__).resolve().parent / "jvm" / "cdc-lake-functions.jar"
"""The jar of the project's JVM functions that scripts/build_jvm.sh builds with Maven (pom.xml;
profiles.yml names it relative to the project root: python/cdc_lake/jvm/cdc-lake-functions.jar)."""

JVM_DEPS_DIR = Path(__file__).resolve().parent / "jvm" / "deps" / "lib"
"""Where scripts/fetch_jvm_deps.sh copies the JVM libraries that python/cdc_lake/jvm/deps/pom.xml
pins (profiles.yml names each one relative to the project root)."""

CLASS_ARCHIVE = Path(__file__).resolve().parents[2] / "build" / "cds" / "driver.jsa"
"""The class-data-sharing archive of the Spark driver JVMs (Java's CDS), which
scripts/jvm_class_archive.sh records (`scripts/setup.sh --class-archive`, the scheduled build and
the test suite run it): the JDK's and Spark's classes, which a driver then maps instead of loading
and verifying them, about 5 s less per JVM started (`cdc-lake land` of a small input 8.7 s against
13.3 s, benchmarks/RESULTS.md). Every driver names it (CDC_LAKE_CLASS_ARCHIVE, `none` for none); a
JVM ignores an archive that is missing or was recorded with another JDK or class path, silently."""

CLASS_ARCHIVE_JVM_OPTIONS = "-XX:SharedArchiveFile={archive} -Xlog:cds=off -Xlog:cds+dynamic=off"
"""The driver JVM options that map the class archive (`-Xlog:...=off`: a missing or stale archive
is ignored without a warning)."""

DEFAULT_JVM_OPTIONS = (
    "-XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 "
    "-XX:Tier4CompileThreshold=60000 -XX:Tier4BackEdgeThreshold=400000 -XX:+UseParallelGC"
)
"""The driver JVM's options unless CDC_LAKE_JVM_OPTIONS gives others.

The parallel collector, not the JDK's default G1: a build is a batch job with no pauses to keep
short, and G1 keeps more memory for itself. The full-build queries of int_cdc__events and
int_cdc__changes at 10,000,000 messages, one process each, in turns: a peak of 4.55 GiB against
5.09 GiB with G1; 366.0, 366.2, 376.8 s against 375.7, 378.7 s. A `dbt build` with nothing new on
that lake (the fixed cost of every model and test): 47.1, 50.3 s against 53.8, 66.0 s with G1
(benchmarks/RESULTS.md, 2026-12-06).

The JIT's C2 compiler waits for ten times the calls and loop turns (four times the tier-4 compile
threshold) before it compiles a method. Spark generates and loads new classes for every query, and
on 2 cores C2 compiling code that runs a few hundred times took CPU from the queries: a 1% increment
of the 1,000,000-message benchmark built in 58.5, 61.8 s against 67.6, 68.6 s with the JVM's default
thresholds (both with G1, then the collector), its landing 12.3, 12.6 s against 14.1, 13.6 s, while
the full build's hot loops still get C2 (150.6, 158.1 s against 159.5, 168.8 s; C1 alone,
SHORT_RUN_JVM_OPTIONS, 201.0 s; benchmarks/RESULTS.md)."""

SHORT_RUN_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseParallelGC"
"""Driver JVM options for short runs over small data (the demo, the test suite): compile with C1
only, in a code cache large enough for Spark's generated classes, and collect with the parallel
collector. Spark generates new classes for every query, so a short run spends much of its CPU in
C2 compiling code that runs a few times: on the shipped sample data these options cut the JVM's
CPU time of a landing by about half and of a first build by about a third (docs/testing.md). Long
builds over millions of rows want C2 (DEFAULT_JVM_OPTIONS, CDC_LAKE_JVM_OPTIONS unset)."""


CODEGEN_CACHE_ENTRIES = "2000"
"""How many generated classes Spark keeps compiled (spark.sql.codegen.cache.maxEntries, a static
setting). Spark's default, 100, holds a fraction of the about 730 that one build of the project
generates, so every build compiled them all again; 2000 is about three builds' worth, and a
process that builds more than once (tests, `follow`, `serve`) reuses them: a second build of the
sample data compiled 8-18 classes instead of 722-725, 71/64 s instead of 94/76 s
(benchmarks/RESULTS.md). An entry the cache drops can be unloaded by the JVM, so the setting
bounds the memory the classes take."""


PARQUET_DICTIONARY = "false"
"""Whether Parquet files get dictionary pages (parquet.enable.dictionary, a Hadoop setting). Most of
what the project writes is distinct per row (change and message ids, keys, row images, message
text): there parquet-mr builds a dictionary for each column chunk only to give it up when it
outgrows its page. Without dictionaries a full build of 1,000,000 messages took about 5% less time
(int_cdc__changes and int_cdc__history_versions, which read back what the build wrote, about 10%
less), for files about 17% larger (benchmarks/RESULTS.md)."""


PYTHON_CALL_SITES = "false"
"""Whether pyspark records the Python line of every DataFrame and function call for Spark's error
messages (spark.python.sql.dataFrameDebugging.enabled). The calls are cdc-lake's own, and the
recording costs a few round trips to the JVM each: a landing makes about 130 such calls, and a
small landing once the session is up took 1.02 s without it against 1.24 s with it (medians of
54 landings each, in turns in one session; benchmarks/RESULTS.md). Spark's errors still name the
failing expression and the query."""


HUGE_METHOD_LIMIT = "8000"
"""The largest generated method (bytes of bytecode) that Spark's whole-stage code generation keeps
(spark.sql.codegen.hugeMethodLimit); a stage whose code has a larger one runs without it. HotSpot
never compiles a method over 8000 bytes (its HugeMethodLimit), and Spark's default (65535) let the
union of the formats' parsing in int_cdc__events run such a method in the bytecode interpreter:
at N = 10,000,000 that model took 158 s instead of 329 s with 8000, the whole build 676 s instead
of 835 s (benchmarks/RESULTS.md). Small builds, whose expressions are interpreted anyway
(cdc_small_build_settings), do not use it."""


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


@dataclass(frozen=True)
class Settings:
    """Where the lake lives and how the embedded Spark session is tuned."""

    warehouse_dir: Path
    metastore_dir: Path
    raw_schema: str
    schema: str
    driver_memory: str
    shuffle_partitions: str
    functions_jar: Path
    jvm_options: str = DEFAULT_JVM_OPTIONS
    class_archive: Path | None = None
    spark_master: str = "local[*]"
    catalog_url: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def raw_table(self) -> str:
        """The fully qualified raw landing table."""
        return f"{self.raw_schema}.raw_messages"

    @property
    def landed_files_table(self) -> str:
        """Which input files were already landed (by content hash), for idempotent re-landing."""
        return f"{self.raw_schema}.landed_files"

    @property
    def driver_java_options(self) -> str:
        """The driver JVM's options: the class archive's (when there is one to name), then
        CDC_LAKE_JVM_OPTIONS (default DEFAULT_JVM_OPTIONS), whose own -XX:SharedArchiveFile or
        -Xshare wins (the JVM takes the last)."""
        archive = CLASS_ARCHIVE_JVM_OPTIONS.format(archive=self.class_archive) if self.class_archive else ""
        return f"{archive} {self.jvm_options}".strip()

    @property
    def uses_derby(self) -> bool:
        """Whether the metastore is the embedded Derby database (one process at a time), not a
        shared catalog (CDC_LAKE_CATALOG_URL, `cdc-lake catalog start`)."""
        return not self.catalog_url

    @property
    def metastore_url(self) -> str:
        """The metastore's JDBC URL: the shared catalog's, or the embedded Derby database's."""
        return self.catalog_url or f"jdbc:derby:;databaseName={self.metastore_dir};create=true"

    def spark_conf(self) -> dict[str, str]:
        """Spark configuration shared by every embedded session of the project."""
        conf = {
            # local[*] (embedded), or a cluster's master URL, e.g. spark://host:7077 (CDC_LAKE_SPARK_MASTER)
            "spark.master": self.spark_master,
            "spark.sql.warehouse.dir": str(self.warehouse_dir),
            "spark.hadoop.javax.jdo.option.ConnectionURL": self.metastore_url,
            "spark.hadoop.javax.jdo.option.ConnectionDriverName": metastore_driver(self.metastore_url),
            # a new metastore database gets its tables from DataNucleus (`cdc-lake catalog start`
            # makes them before any other process), with no Hive schema-version row to check
            "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
            "spark.hadoop.hive.metastore.schema.verification": "false",
            "spark.driver.memory": self.driver_memory,
            "spark.sql.shuffle.partitions": self.shuffle_partitions,
            "spark.sql.adaptive.enabled": "true",
            "spark.sql.adaptive.coalescePartitions.enabled": "true",
            "spark.sql.session.timeZone": "UTC",
            "spark.sql.sources.partitionOverwriteMode": "dynamic",
            "spark.sql.legacy.createHiveTableByDefault": "false",
            # a later build in the same process reuses the classes an earlier one generated
            "spark.sql.codegen.cache.maxEntries": CODEGEN_CACHE_ENTRIES,
            # no generated method larger than the JIT compiles (HUGE_METHOD_LIMIT)
            "spark.sql.codegen.hugeMethodLimit": HUGE_METHOD_LIMIT,
            # Parquet without dictionary pages (PARQUET_DICTIONARY)
            "spark.hadoop.parquet.enable.dictionary": PARQUET_DICTIONARY,
            # no Python call site recorded per DataFrame call (PYTHON_CALL_SITES)
            "spark.python.sql.dataFrameDebugging.enabled": PYTHON_CALL_SITES,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            # the project's JVM functions (python/cdc_lake/jvm/, built by scripts/setup.sh) and the
            # libraries of python/cdc_lake/jvm/deps/pom.xml (fetched by scripts/setup.sh)
            "spark.jars": ",".join([str(self.functions_jar), *runtime_jars()]),
            # the metastore's JDBC driver must be on the driver's own class path: DataNucleus finds
            # it through java.sql.DriverManager, which does not see spark.jars
            "spark.driver.extraClassPath": str(JVM_DEPS_DIR / "postgresql.jar"),
            # the driver JVM's options: the class archive's, then CDC_LAKE_JVM_OPTIONS (default
            # DEFAULT_JVM_OPTIONS)
            "spark.driver.extraJavaOptions": self.driver_java_options,
        }
        conf.update(self.extra)
        return conf


def metastore_driver(url: str) -> str:
    """The JDBC driver class of a metastore URL: PostgreSQL's for a shared catalog, else Derby's."""
    return "org.postgresql.Driver" if url.startswith("jdbc:postgresql:") else "org.apache.derby.jdbc.EmbeddedDriver"


def runtime_jars() -> list[str]:
    """The jars scripts/fetch_jvm_deps.sh fetched, each by name, or an error that says how to fetch them.

    Not a glob: spark-submit expands one for the driver's class path, but a SparkContext hands
    `spark.jars` to a cluster's executors as written, and they fail on `*.jar`."""
    jars = sorted(str(jar) for jar in JVM_DEPS_DIR.glob("*.jar"))
    if not jars:
        raise RuntimeError(
            f"the JVM libraries of cdc-lake are missing from {JVM_DEPS_DIR}: run scripts/setup.sh "
            "(it fetches them with Maven from python/cdc_lake/jvm/deps/pom.xml)"
        )
    return jars


def class_archive() -> Path | None:
    """The class archive the drivers name (CDC_LAKE_CLASS_ARCHIVE, default CLASS_ARCHIVE), or None
    for `none`. Named whether or not it exists yet: the JVM ignores a missing one."""
    value = _env("CDC_LAKE_CLASS_ARCHIVE", str(CLASS_ARCHIVE))
    return None if value.lower() == "none" else Path(value).absolute()


def load_settings() -> Settings:
    """Read the settings from the environment (see README, "Configuration")."""
    warehouse = Path(_env("CDC_LAKE_WAREHOUSE", "warehouse")).absolute()
    metastore = Path(_env("CDC_LAKE_METASTORE", "metastore_db")).absolute()
    extra: dict[str, str] = {}
    for item in _env("CDC_LAKE_SPARK_CONF", "").split(","):
        if "=" in item:
            key, value = item.split("=", 1)
            extra[key.strip()] = value.strip()
    return Settings(
        warehouse_dir=warehouse,
        metastore_dir=metastore,
        raw_schema=_env("CDC_LAKE_RAW_SCHEMA", "cdc_raw"),
        schema=_env("CDC_LAKE_SCHEMA", "cdc_lake"),
        driver_memory=_env("CDC_LAKE_DRIVER_MEMORY", "4g"),
        shuffle_partitions=_env("CDC_LAKE_SHUFFLE_PARTITIONS", "8"),
        functions_jar=Path(_env("CDC_LAKE_FUNCTIONS_JAR", str(FUNCTIONS_JAR))).absolute(),
        jvm_options=_env("CDC_LAKE_JVM_OPTIONS", DEFAULT_JVM_OPTIONS),
        class_archive=class_archive(),
        spark_master=_env("CDC_LAKE_SPARK_MASTER", "local[*]"),
        catalog_url=_env("CDC_LAKE_CATALOG_URL", ""),
        extra=extra,
    )
