"""The `cdc-lake` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from cdc_lake.formats import AUTO, FORMAT_IDS


def _land_groups(args: argparse.Namespace) -> list[tuple[str, list[str]]] | str:
    """(format id, PATHs) per `--format`, or what is wrong with them. One `--format` takes every
    PATH, before or after it; with several, each takes the PATHs that follow it."""
    groups: list[tuple[str, list[str]]] = args.format
    if len(groups) == 1:
        return [(groups[0][0], [*args.paths, *groups[0][1]])]
    if args.kafka:
        return "--kafka lands its topics as one --format; give it once"
    if args.paths:
        return f"with several --format, put each PATH after the --format of its format ({args.paths[0]} comes first)"
    empty = [format_id for format_id, paths in groups if not paths]
    if empty:
        return f"--format {empty[0]} names no PATH after it"
    return groups


def _cmd_land(args: argparse.Namespace) -> int:
    from cdc_lake.land import LandingError, land_each, refusal_line
    from cdc_lake.metastore import derby_lock_hint, exception_mentions_derby_lock, metastore_held
    from cdc_lake.settings import load_settings

    if args.incoming is not None:
        if args.format or args.paths or args.kafka or args.topic:
            print(
                "cdc-lake land: --incoming DIR takes each input's format from its folder: give no --format, "
                "PATH or --kafka with it",
                file=sys.stderr,
            )
            return 2
        groups, format_id = [], ""
    elif not args.format:
        print(
            "cdc-lake land: give --format FORMAT PATH..., --format FORMAT --kafka BOOTSTRAP --topic TOPIC, "
            "or --incoming DIR",
            file=sys.stderr,
        )
        return 2
    else:
        groups = _land_groups(args)
        if isinstance(groups, str):
            print(f"cdc-lake land: {groups}", file=sys.stderr)
            return 2
        format_id = groups[0][0]  # the one format of --kafka
        paths = [path for _, group_paths in groups for path in group_paths]
        if bool(args.kafka) == bool(paths) or bool(args.topic) != bool(args.kafka):
            print(
                "cdc-lake land: give PATH... or --kafka BOOTSTRAP --topic TOPIC [--topic ...], not both",
                file=sys.stderr,
            )
            return 2
    if args.follow and not (args.kafka or args.incoming is not None):
        print("cdc-lake land: --follow follows Kafka topics or a folder: give --kafka or --incoming", file=sys.stderr)
        return 2
    if (args.every or args.no_build or args.select) and not args.follow:
        print("cdc-lake land: --every, --no-build and --select are options of --follow", file=sys.stderr)
        return 2
    settings = load_settings()
    metastore_dir = settings.metastore_dir
    if settings.uses_derby and metastore_held(metastore_dir):
        print(f"cdc-lake land: {derby_lock_hint(metastore_dir)}", file=sys.stderr)
        return 3
    try:
        if args.follow:
            return _follow(args, format_id)
        if args.kafka:
            from cdc_lake.kafka import land_kafka

            reports = [land_kafka(args.kafka, args.topic, format_id)]
        elif args.incoming is not None:
            return _land_incoming(args.incoming)
        else:
            reports = land_each(groups)
    except LandingError as exc:
        print(f"cdc-lake land: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        if exception_mentions_derby_lock(exc):
            print(f"cdc-lake land: {derby_lock_hint(metastore_dir)}", file=sys.stderr)
            return 3
        raise
    refused = [(path, reason) for report in reports for path, reason in report.refused.items()]
    for path, reason in refused:
        print(f"cdc-lake land: {refusal_line(path, reason)}", file=sys.stderr)
    return 4 if refused else 0


def _land_incoming(root: str) -> int:
    """`land --incoming DIR`: exit 4 when an input was left out or refused (the others landed)."""
    from cdc_lake.incoming import IncomingFolder, land_incoming

    warnings: list[str] = []

    def warn(line: str) -> None:
        warnings.append(line)
        print(f"cdc-lake land: {line}", file=sys.stderr)

    reports = land_incoming(IncomingFolder(root), warn=warn)
    if not reports and not warnings:
        print(f"{root}: nothing to land (no input in a folder named for a format id)")
    return 4 if warnings else 0


def _follow(args: argparse.Namespace, format_id: str) -> int:
    from cdc_lake.follow import follow_incoming, follow_kafka, parse_every

    try:
        every_s = parse_every(args.every or "5m")
    except ValueError as exc:
        print(f"cdc-lake land: {exc}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        print(line, flush=True)

    def warn(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        if args.incoming is not None:
            return follow_incoming(args.incoming, every_s, build=not args.no_build, select=args.select, say=say, warn=warn)
        return follow_kafka(
            args.kafka, args.topic, format_id, every_s, build=not args.no_build, select=args.select, say=say, warn=warn
        )
    except KeyboardInterrupt as exc:  # a second SIGINT/SIGTERM
        print(f"cdc-lake land: {exc or 'interrupted'}; stopped at once (the next land removes an uncommitted landing)",
              file=sys.stderr)
        return 130


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _cmd_requeue(args: argparse.Namespace) -> int:
    from cdc_lake.land import LandingError
    from cdc_lake.metastore import derby_lock_hint, metastore_held
    from cdc_lake.requeue import requeue
    from cdc_lake.settings import load_settings

    settings = load_settings()
    metastore_dir = settings.metastore_dir
    if settings.uses_derby and metastore_held(metastore_dir):
        print(f"cdc-lake requeue: {derby_lock_hint(metastore_dir)}", file=sys.stderr)
        return 3
    try:
        requeue(
            reason_like=args.reason_like,
            source_format=args.source_format,
            as_format=args.as_format,
            dry_run=args.dry_run,
        )
    except LandingError as exc:
        print(f"cdc-lake requeue: {_one_line(exc)}", file=sys.stderr)
        return 2
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from cdc_lake.serve import serve

    return serve(args.port, host=args.host, password_file=args.password_file)


def _cmd_catalog(args: argparse.Namespace) -> int:
    from cdc_lake import catalog

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        shared = catalog.load_catalog()
        if args.action == "start":
            catalog.start(shared, say=say)
            print(f"export CDC_LAKE_CATALOG_URL='{shared.url}'")
        elif args.action == "stop":
            catalog.stop(shared, say=say)
        else:
            running = catalog.is_running(shared)
            say(f"catalog: {'running' if running else 'not running'} on 127.0.0.1:{shared.port} ({shared.data_dir})")
            return 0 if running else 1
    except catalog.CatalogError as exc:
        print(f"cdc-lake catalog: {_one_line(exc)}", file=sys.stderr)
        return 2
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from cdc_lake.demo import run_demo

    return run_demo(reset=not args.keep)


class _FormatGroup(argparse.Action):
    """`--format FORMAT [PATH ...]`, repeatable: appends (FORMAT, [PATH, ...]) to the option's list."""

    CHOICES = FORMAT_IDS + (AUTO,)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        format_id, *paths = [str(v) for v in values or ()]
        if format_id not in self.CHOICES:
            choices = ", ".join(repr(c) for c in self.CHOICES)
            raise argparse.ArgumentError(self, f"invalid choice: {format_id!r} (choose from {choices})")
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), (format_id, paths)])


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit 2), like every other cdc-lake error."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cdc-lake",
        description="Land raw CDC messages and build SCD2 history with dbt + Spark SQL. "
        "Run it in the project root.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    land_parser = sub.add_parser("land", help="append messages from files/folders to the landing table")
    land_parser.add_argument(
        "--format",
        action=_FormatGroup,
        nargs="+",
        metavar=("FORMAT", "PATH"),
        help=f"message format: {', '.join(FORMAT_IDS + (AUTO,))}. Repeat it to land files of several "
        "formats in one command (`--format canal_json a.jsonl --format debezium_json b.jsonl`: a "
        "landing per format, one Spark start); each then takes the PATHs after it",
    )
    land_parser.add_argument("paths", nargs="*", metavar="PATH", help="JSON-lines file, Kafka-shaped Parquet file/folder, or folder of binary messages")
    land_parser.add_argument(
        "--kafka", metavar="BOOTSTRAP", help="read from this Kafka broker (host:port) instead of PATHs: "
        "each --topic from the offsets already landed to its current end"
    )
    land_parser.add_argument("--topic", action="append", default=[], metavar="TOPIC", help="a topic to land (with --kafka; repeatable)")
    land_parser.add_argument(
        "--incoming", metavar="DIR", help="instead of --format and PATHs: every file or folder in DIR/<format id>/ "
        "(canal_json/, dts_avro/, auto/, ...) as a PATH of that format; an input already landed adds nothing"
    )
    land_parser.add_argument(
        "--follow", action="store_true", help="with --kafka or --incoming: land what is new, then dbt build, every "
        "--every until Ctrl-C or SIGTERM (which stop it after the step in progress), one line per round"
    )
    land_parser.add_argument("--every", metavar="INTERVAL", help="with --follow: time between rounds, e.g. 30s, 5m (default), 1h")
    land_parser.add_argument("--no-build", action="store_true", help="with --follow: land only (builds run elsewhere)")
    land_parser.add_argument(
        "--select", action="append", default=[], metavar="SELECTOR",
        help="with --follow: what each round builds (dbt --select; repeatable), e.g. +cdc_current; default everything",
    )
    land_parser.set_defaults(func=_cmd_land)

    requeue_parser = sub.add_parser(
        "requeue",
        help="land quarantined messages again (after a fix), as a new landing; then run dbt build",
        description="Land the messages listed in cdc_quarantine again, from their raw text or bytes, "
        "as a new landing, and mark the originals as requeued (cdc_quarantine leaves them out). "
        "Run it after fixing the cause (a seed key, a format id, a decoder), then run dbt build.",
    )
    requeue_parser.add_argument(
        "--reason-like",
        metavar="PATTERN",
        help="only messages whose quarantine reason matches this SQL LIKE pattern, e.g. 'key column(s)%%'",
    )
    requeue_parser.add_argument(
        "--format",
        dest="source_format",
        metavar="FORMAT",
        help="only messages quarantined under this source format (a format id, or unknown)",
    )
    requeue_parser.add_argument(
        "--as-format",
        choices=FORMAT_IDS + (AUTO,),
        metavar="FORMAT",
        help="land them as this format (default: the format each was landed as)",
    )
    requeue_parser.add_argument(
        "--dry-run", action="store_true", help="print how many messages match and land nothing"
    )
    requeue_parser.set_defaults(func=_cmd_requeue)

    serve_parser = sub.add_parser(
        "serve",
        help="run a Spark Thrift Server on 127.0.0.1 over the lake (for dbt's thrift target) until Ctrl-C",
        description="Run a Spark Thrift Server over the lake until Ctrl-C or SIGTERM. Without a password any "
        "local user can connect; with one (--password-file, CDC_LAKE_SERVE_PASSWORD_FILE or "
        "CDC_LAKE_SERVE_PASSWORD) every connection must give it.",
    )
    serve_parser.add_argument("--port", type=int, default=10000, help="port to listen on (default 10000)")
    serve_parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1); any other than loopback needs a password",
    )
    serve_parser.add_argument(
        "--password-file",
        type=Path,
        metavar="FILE",
        help="require the password on the first line of FILE (keep it chmod 600); "
        "else CDC_LAKE_SERVE_PASSWORD_FILE or CDC_LAKE_SERVE_PASSWORD, if set",
    )
    serve_parser.set_defaults(func=_cmd_serve)

    catalog_parser = sub.add_parser(
        "catalog",
        help="start/stop a shared catalog (a Hive metastore on PostgreSQL) so that land, dbt and serve run at once",
        description="The embedded Derby metastore admits one process at a time. `start` runs a PostgreSQL "
        "server on 127.0.0.1 for the metastore (creating it in CDC_LAKE_CATALOG_DIR the first time) and "
        "prints the line to run, export CDC_LAKE_CATALOG_URL=...; every cdc-lake command and dbt's local "
        "target with that variable set use it. A new catalog starts empty: land again into it.",
    )
    catalog_parser.add_argument("action", choices=("start", "stop", "status"))
    catalog_parser.set_defaults(func=_cmd_catalog)

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
