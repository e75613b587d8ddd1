"""Record the JVM class archive (Java's CDS) that every Spark driver of the project maps.

`python -m cdc_lake.class_archive` (run by scripts/build_class_archive.sh) runs the sample run of
`cdc-lake demo` in a scratch warehouse, in a JVM started with -XX:ArchiveClassesAtExit, and moves
the archive to settings.CLASS_ARCHIVE once the JVM has exited and written it whole: a JVM that
maps a truncated archive crashes, while one that finds no archive, or one of another JDK or
pyspark, runs without it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from cdc_lake.settings import CLASS_ARCHIVE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def record(archive: Path = CLASS_ARCHIVE) -> None:
    """Run the demo in a scratch warehouse with the recording JVM, then install its archive."""
    with tempfile.TemporaryDirectory(prefix="cdc-lake-classes-") as scratch_dir:
        scratch = Path(scratch_dir)
        recorded = scratch / "classes.jsa"
        os.environ.update(
            CDC_LAKE_JVM_OPTIONS=f"-XX:ArchiveClassesAtExit={recorded}",
            CDC_LAKE_WAREHOUSE=str(scratch / "warehouse"),
            CDC_LAKE_METASTORE=str(scratch / "metastore_db"),
            CDC_LAKE_DBT_STATE=str(scratch),
            CDC_LAKE_SPARK_CONF="",
        )
        from cdc_lake.demo import run_demo
        from cdc_lake.spark import get_spark

        if run_demo() != 0:
            raise RuntimeError("the sample run failed (see its output above)")
        _stop_jvm(get_spark())
        if not recorded.is_file() or recorded.stat().st_size == 0:
            raise RuntimeError(f"the JVM exited without writing {recorded}")
        # the scratch folder may be on another file system (a tmpfs /tmp): copy the archive next
        # to its place first, then rename it there, which replaces the old one at once
        staged = archive.with_name(archive.name + ".tmp")
        staged.unlink(missing_ok=True)
        shutil.move(recorded, staged)
        os.replace(staged, archive)


def _stop_jvm(spark: "SparkSession") -> None:
    """Stop Spark and wait for its JVM to exit: it writes the archive while it exits."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    process = getattr(gateway, "proc", None)
    spark.stop()
    if process is None:
        raise RuntimeError("the Spark JVM was not started by this process; cannot wait for its archive")
    gateway.shutdown()
    if process.stdin is not None:
        process.stdin.close()  # the JVM exits when its stdin closes
    process.wait(timeout=600)


if __name__ == "__main__":
    try:
        record()
    except Exception as exc:  # reported by scripts/build_class_archive.sh, which goes on without it
        print(f"class archive: {exc}", file=sys.stderr)
        sys.exit(1)
