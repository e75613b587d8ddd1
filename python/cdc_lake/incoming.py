"""`cdc-lake land --incoming DIR`: land the inputs of a folder laid out by format.

DIR holds one folder per format id (`canal_json/`, `dts_avro/`, `auto/`, ...); each file or folder
directly inside one is an input of that format, as a PATH of `cdc-lake land --format ID PATH`
(a text file, a Kafka-shaped Parquet file or folder, a folder of one-message binary files). Names
Spark skips (`.x`, `_x`, `x._COPYING_`) are left out, so a producer writes under such a name and
renames the input when it is whole.

Each input is checked on its own: one that `land` would refuse (an unsupported file type, a folder
of the wrong kind) is reported and left out, and the others land (a landing per format). An input
already landed adds nothing (by content hash); a text file that grew lands its new lines.

A producer may also append whole lines to a text file in place. A text file changed in the last
`SETTLE_SECONDS` lands up to its last newline: a last line without one may be half written, and
waits for a later landing, which lands it once it ends with a newline, or whole once the file has
stayed unchanged that long (a file whose writer stopped without a final newline).

`IncomingFolder` remembers the inputs it has handed to a landing and what they looked like then
(each file's size, modification time and inode), and starts from what the landings log recorded
(`landings.input_signatures`): a run, and each `--follow` round, reads and hashes only the inputs
that are new or changed since they were landed, not the whole folder again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from cdc_lake.formats import AUTO, FORMAT_IDS
from cdc_lake.land import (
    LandingError,
    LandingReport,
    _Checked,
    _spark_skips,
    check_inputs,
    input_signature,
    land_checked,
    landed_signatures,
    refusal_line,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from cdc_lake.settings import Settings

Signature = str
"""What an input looked like (`land.input_signature`): per file, its size, modification time (ns)
and inode."""

SETTLE_SECONDS = 60.0
"""A text file changed more recently than this may still be written to: its last line lands only
once it ends with a newline, or once the file has stayed unchanged this long."""


def _changed_within(signature: Signature, seconds: float) -> bool:
    """Whether a file of the input was modified less than `seconds` ago."""
    newest_ns = max((mtime_ns for _, _, mtime_ns, _ in json.loads(signature)), default=0)
    return time.time_ns() - newest_ns < seconds * 1e9


@dataclass
class IncomingRound:
    """What one look at the folder found: the inputs to land, per format, and what it left out."""

    inputs: list[tuple[str, list[_Checked]]] = field(default_factory=list)
    """Per format id, its new or changed inputs, checked (`land_checked` lands them as they are)."""
    left_out: list[str] = field(default_factory=list)
    """Entries not landed, each with why (said once per entry and state)."""
    unchanged: int = 0
    """Entries handed to an earlier landing of this process, or left out, and not changed since."""
    signatures: dict[str, Signature] = field(default_factory=dict)

    @property
    def groups(self) -> list[tuple[str, list[str]]]:
        """(format id, paths) per format, as `land_each` takes them."""
        return [(format_id, [str(item.path) for item in checked]) for format_id, checked in self.inputs]


class IncomingFolder:
    """The inputs of DIR/<format id>/ (see the module docstring), checked, per format."""

    def __init__(self, root: str | Path):
        self.root = Path(root).absolute()
        self.seen: dict[str, Signature] = {}
        """Per input (and per entry left out): its signature when it was last handed over."""
        self.has_landings_log = False
        """Whether `seen` starts from the landings log yet (`remember_landed`)."""

    def check(self) -> None:
        """Raise LandingError when DIR is not a folder."""
        if not self.root.is_dir():
            raise LandingError(
                f"{self.root}: no such folder; --incoming names a folder with a folder per format id "
                f"inside (canal_json/, debezium_json/, ..., {AUTO}/)"
            )

    def look(self) -> IncomingRound:
        """The inputs that are new or changed since the last `landed()` round, checked one by one.
        Raises LandingError when DIR is not a folder."""
        self.check()
        found = IncomingRound()
        for format_dir in sorted(self.root.iterdir()):
            if _spark_skips(format_dir.name):
                continue
            if format_dir.name not in FORMAT_IDS + (AUTO,) or not format_dir.is_dir():
                self._leave_out(
                    found, format_dir,
                    f"not a folder named for a format id ({', '.join(sorted(FORMAT_IDS))} or {AUTO})",
                )
                continue
            checked: list[_Checked] = []
            for entry in sorted(format_dir.iterdir()):
                if _spark_skips(entry.name):
                    continue
                try:
                    signature = input_signature(entry)
                except OSError:  # removed or renamed while listed: the next look sees what is there
                    continue
                if self.seen.get(str(entry)) == signature:
                    found.unchanged += 1
                    continue
                try:
                    (entry_checked,) = check_inputs([str(entry)], format_dir.name)
                except LandingError as exc:
                    self._leave_out(found, entry, str(exc).split(": ", 1)[-1], signature)
                    continue
                if entry_checked.is_plain_text_file and _changed_within(signature, SETTLE_SECONDS):
                    # not remembered: looked at again until it settles, so that a last line
                    # left waiting lands
                    checked.append(replace(entry_checked, up_to_last_newline=True))
                    continue
                checked.append(entry_checked)
                found.signatures[str(entry)] = signature
            if checked:
                found.inputs.append((format_dir.name, checked))
        return found

    def _leave_out(self, found: IncomingRound, entry: Path, why: str, signature: Signature = "") -> None:
        """Report `entry` once for each state it is found in."""
        if self.seen.get(str(entry)) == signature:
            return
        self.seen[str(entry)] = signature
        found.left_out.append(f"{entry}: left out: {why}")

    def remember_landed(self, signatures: Mapping[str, Signature]) -> None:
        """Inputs landed before (per path, the signature its landing recorded): a look passes over
        those that still look that way without reading them."""
        root = f"{self.root}/"
        self.seen.update({path: s for path, s in signatures.items() if path.startswith(root)})
        self.has_landings_log = True

    def landed(self, found: IncomingRound) -> None:
        """The inputs of `found` were handed to a landing that ended (landed, skipped as landed
        before, or refused alone): later looks skip them while they stay as they were."""
        self.seen.update(found.signatures)


def land_incoming(
    folder: IncomingFolder,
    *,
    spark: "SparkSession | None" = None,
    settings: "Settings | None" = None,
    say: Callable[[str], None] = print,
    warn: Callable[[str], None] = print,
) -> list[LandingReport]:
    """Land what `folder.look()` finds (a landing per format, in one Spark session); the entries
    it leaves out and the inputs a landing refuses go to `warn`. No report when nothing is new.
    The first call reads what the landings log says was landed from the folder (starting Spark
    if no session is given), so that inputs landed before are not read again."""
    if not folder.has_landings_log:
        from cdc_lake.settings import load_settings
        from cdc_lake.spark import get_spark

        settings = settings or load_settings()
        spark = spark or get_spark(settings)
        folder.remember_landed(landed_signatures(spark, settings))
    found = folder.look()
    for line in found.left_out:
        warn(line)
    if not found.inputs:
        return []
    reports = land_checked(found.inputs, say=say, spark=spark, settings=settings)
    folder.landed(found)
    for report in reports:
        for path, reason in report.refused.items():
            warn(refusal_line(path, reason))
    return reports
