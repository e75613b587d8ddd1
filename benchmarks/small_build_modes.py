"""A fresh `dbt build` with Spark's expressions interpreted against compiled (cdc_small_build_settings).

For each input set (the shipped samples, `cdc-lake demo`'s 13 inputs; and the base files of each
--data folder written by benchmarks/generate.py) and each mode, a lake of its own: `cdc-lake land`
in one command, then a first `dbt build` in a process of its own (a scheduled build's cold start:
the JVM, dbt's parse, the classes Spark generates), with var cdc_interpreted_max_new_messages set
so that the hook picks the mode (0: compiled; a huge number: interpreted). Prints each build's wall
seconds, dbt's closing counts and the ratio of the two modes. The JVM options are the users'
default (the JVM's own) unless CDC_LAKE_JVM_OPTIONS says otherwise.

Usage: .venv/bin/python benchmarks/small_build_modes.py [--data DIR ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scratch_lake import lake_env

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MODES = {"compiled": 0, "interpreted": 10**12}


def sample_groups() -> list[str]:
    """`--format <id> <path>` for each shipped sample input."""
    sys.path.insert(0, str(ROOT / "python"))
    from cdc_lake.demo import sample_inputs

    return [arg for format_id, path in sample_inputs() for arg in ("--format", format_id, str(path))]


def generated_groups(data: Path) -> list[str]:
    """`--format <id> <file>` for each base file of a benchmarks/generate.py output folder."""
    return [arg for path in sorted((data / "base").glob("*.jsonl")) for arg in ("--format", path.stem, str(path))]


def build_once(groups: list[str], mode: str) -> tuple[float, str]:
    """Land `groups` into a new lake, then time a first `dbt build` in `mode`; the build's wall
    seconds and dbt's closing line."""
    root = Path(tempfile.mkdtemp(prefix="cdc-lake-build-modes-"))
    env = lake_env(root, "build_modes")
    env.pop("CDC_LAKE_SPARK_CONF", None)  # the hook decides
    try:
        subprocess.run([str(BIN / "cdc-lake"), "land", *groups], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.perf_counter()
        build = subprocess.run(
            [str(BIN / "dbt"), "build", "--exclude-resource-type", "unit_test", "--target-path",
             str(root / "target"), "--log-path", str(root / "logs"),
             "--vars", f"{{cdc_interpreted_max_new_messages: {MODES[mode]}}}"],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - started
        done = [line for line in build.stdout.splitlines() if "Done." in line]
        if build.returncode != 0:
            raise SystemExit(f"dbt build failed in {mode} mode:\n{build.stdout[-3000:]}")
        return seconds, done[-1].split("Done.", 1)[1].strip() if done else ""
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", default=[],
                        help="a benchmarks/generate.py output folder (its base files); repeatable")
    args = parser.parse_args()
    inputs = {"shipped samples": sample_groups()}
    inputs.update({f"{data.name} (generated)": generated_groups(data) for data in args.data})
    print(f"a first dbt build in a fresh process, {os.cpu_count()} CPUs, "
          f"JVM options {os.environ.get('CDC_LAKE_JVM_OPTIONS') or 'the JVM defaults'}")
    for name, groups in inputs.items():
        seconds = {}
        for mode in MODES:
            seconds[mode], done = build_once(groups, mode)
            print(f"  {name:<28} {mode:<12} {seconds[mode]:7.1f} s   {done}", flush=True)
        print(f"  {name:<28} interpreted / compiled: {seconds['interpreted'] / seconds['compiled']:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
