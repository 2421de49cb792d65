"""What a command writes: its report in the format asked for (to standard output or a file, coloured at a
terminal), and the version the report carries."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Any

from app.core import collector
from app.report import WRITERS, text
from app.report.model import EXIT_MALFORMED, RunReport


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("opspec")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def colour(stream: Any) -> bool:
    """Colour for a terminal: NO_COLOR (any value but empty) turns it off, FORCE_COLOR (any value but
    empty or 0) on; otherwise only where the stream is a terminal that is not dumb."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def emit(report: RunReport, args: argparse.Namespace) -> int:
    # Writing a report builds an object or more per unit and finding, all alive until it is written:
    # the collector's passes over them found nothing and took 0.7 s of a 2,000-file `--jobs 2` run.
    with collector.paused():
        return _emit(report, args)


def _emit(report: RunReport, args: argparse.Namespace) -> int:
    writer = WRITERS[args.format]
    if args.format == "text":
        coloured = args.output is None and colour(sys.stdout)
        writer = functools.partial(
            text.write,
            verbose=args.verbose,
            quiet=args.quiet,
            colour=coloured,
            link_base=getattr(args, "link_base", None),
        )
    if args.output is None:
        try:
            writer(report, sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:  # `opspec check . | head -2`: the reader has all it wanted
            quiet_stdout()
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                writer(report, out)
        except OSError as exc:
            print(
                f"opspec {args.command}: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr
            )
            return EXIT_MALFORMED
    if args.format != "text":  # the log still says how the run went
        print(text.summary_line(report.summary(), report.unit_noun, report.shard), file=sys.stderr)
    return report.exit_code()


def quiet_stdout() -> None:
    """Standard output's reader went away: point it at /dev/null, so the flush at exit neither fails
    nor prints a traceback (Python's documented recipe for SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
