"""The `cdc-lake` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cdc_lake.formats import AUTO, FORMAT_IDS


def _cmd_land(args: argparse.Namespace) -> int:
    from cdc_lake.land import LandingError, land

    try:
        land(args.paths, args.format)
    except LandingError as exc:
        print(f"cdc-lake land: {exc}", file=sys.stderr)
        return 2
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from cdc_lake.demo import run_demo

    return run_demo(reset=not args.keep)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cdc-lake",
        description="Land raw CDC messages and build SCD2 history with dbt + Spark SQL. "
        "Run it in the project root.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    land_parser = sub.add_parser("land", help="append messages from files/folders to the landing table")
    land_parser.add_argument(
        "--format",
        required=True,
        choices=FORMAT_IDS + (AUTO,),
        metavar="FORMAT",
        help=f"message format: {', '.join(FORMAT_IDS + (AUTO,))}",
    )
    land_parser.add_argument("paths", nargs="+", metavar="PATH", help="JSON-lines file, Kafka-shaped Parquet file/folder, or folder of binary messages")
    land_parser.set_defaults(func=_cmd_land)

    demo_parser = sub.add_parser("demo", help="land the shipped sample data, run dbt build and print a summary")
    demo_parser.add_argument("--keep", action="store_true", help="keep the existing demo warehouse instead of starting fresh")
    demo_parser.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
