"""The `opspec` command line: its parser, and the subcommands that fit in a few lines here (`serve` runs
the HTTP API, `merge` joins the reports of a check's shards); `check`, `verify` and `rule` run from their
own modules.

A thin layer over the readers and the report writers (as httpx's _main.py is over httpx), with exit
codes CI can trust: 0 every descriptor is valid, 1 some descriptor breaks a rule, 2 some input could
not be read or is not a descriptor at all.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

# Only the standard library and the report writers (standard library only) at import: a command imports
# what it needs when it runs, so `opspec --version` and `opspec --help` pay for no numpy, pydantic or
# op registry (they took ~1 s idle, 2 s under load, and a pre-commit hook paid it on every commit).
from app.cli import check, rule, verify
from app.cli.output import emit, quiet_stdout, version
from app.report import FORMATS as REPORT_FORMATS
from app.report import formats_help
from app.report.model import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID

__all__ = ["EXIT_INTERRUPTED", "EXIT_INVALID", "EXIT_MALFORMED", "EXIT_VALID", "build_parser", "main"]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
# Settings only `opspec serve` reads: a bad value of one of them does not stop check or verify.
SERVE_ONLY = frozenset(
    {
        "host",
        "port",
        "body_timeout",
        "header_timeout",
        "keepalive_timeout",
        "cors_origins",
        "busy_threads",
        "switch_interval",
        "access_log",
        "hot_routes",
        "opentelemetry",
        "inline_body_bytes",
        "inline_elements",
    }
)


class _Version(argparse.Action):
    """--version, with the version looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {version()}")  # on stdout, as argparse's own version action
        parser.exit()


def _report_options(command: argparse.ArgumentParser, unit: str, strict: bool = True) -> None:
    """The options every reporting command (check, verify, merge) shares; `unit` names what --verbose
    lists. `strict`: the command decides whether warnings fail (merge takes it from the shards)."""
    command.add_argument(
        "--format",
        choices=[row.name for row in REPORT_FORMATS],
        default=REPORT_FORMATS[0].name,
        help=f"report format (default: {REPORT_FORMATS[0].name})",
    )
    command.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE, not stdout")
    if strict:
        command.add_argument("--strict", action="store_true", help="warnings fail the run too (exit 1)")
    command.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=f"text: a line per {unit} with its outputs, and a graph's notes (how each node was translated)",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="text: the summary line only")


def _link_base(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--link-base",
        metavar="URL",
        default=os.environ.get("OPSPEC_LINK_BASE") or None,
        help="the web page's URL (e.g. http://opspec.internal/): the text report adds under each finding of "
        "a descriptor or graph node a link that opens it on the page (default from OPSPEC_LINK_BASE)",
    )


MERGE_HELP = """\
--strict and --require-checked are the shards' own (they must agree), as are the files and their order:
the report and the exit code are those of `opspec check` run once over every file with the shards'
options. Reports that are not every shard of one run (a shard missing or given twice, another file list,
version or option) are refused with exit 2, and nothing is written.

exit codes:
  0, 1  as `opspec check` over every file: 0 every descriptor valid, 1 some broken
  2     some file could not be read or is not a descriptor, or the reports cannot be merged

""" + formats_help()


def _report_files(names: Iterable[str]) -> list[Path]:
    """The reports named, a folder standing for its *.json files in name order."""
    found: list[Path] = []
    for name in names:
        path = Path(name)
        found += sorted(path.glob("*.json")) if path.is_dir() else [path]
    return found


def _merge(args: argparse.Namespace) -> int:
    from app.report import merge

    parts = []
    files = _report_files(args.reports)
    if not files:
        print(f"opspec merge: no *.json report in {', '.join(args.reports)}", file=sys.stderr)
        return EXIT_MALFORMED
    for path in files:
        try:
            parts.append((str(path), merge.read(path.read_bytes())))
        except OSError as exc:
            print(f"opspec merge: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_MALFORMED
        except merge.ReportError as exc:
            print(f"opspec merge: {path}: {exc}", file=sys.stderr)
            return EXIT_MALFORMED
    try:
        report = merge.merge(parts)
    except merge.MergeError as exc:
        print(f"opspec merge: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    return emit(report, args)


def _serve(args: argparse.Namespace) -> int:
    from app.api import server
    from app.core.config import get_settings

    settings = get_settings()  # main() has checked the OPSPEC_* variables
    # On SIGTERM uvicorn stops accepting, lets in-flight requests finish, then exits; with workers the
    # supervisor passes the signal to each worker and waits for them.
    host = args.host or settings.host
    server.run(settings, host, args.port if args.port is not None else settings.port, workers=args.workers)
    return 0


def _jobs(text: str) -> int:
    if text == "auto":
        return 0
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of processes, at least 1 (or 0 or auto: one per core), got {text!r}"
        )
    return value


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    try:
        k, n = int(index), int(count)
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(
            f"expected K/N, whole numbers with 1 <= K <= N (shard K of N, e.g. 2/4), got {text!r}"
        )
    return k, n


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="opspec", description="Check tensor-op descriptors against their specs."
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_command = commands.add_parser("serve", help="run the HTTP API (and the shape calculator page)")
    serve_command.add_argument("--host", help="address to bind (default from OPSPEC_HOST, else 127.0.0.1)")
    serve_command.add_argument("--port", type=int, help="port (default from OPSPEC_PORT, else 8000)")
    serve_command.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="worker processes sharing the port (default 1; about one per core the service may use)",
    )
    serve_command.set_defaults(run=_serve)
    check_command = commands.add_parser(
        "check",
        help="validate descriptor and graph files; exit 0 all valid, 1 some invalid, 2 some unreadable",
        description="Validate descriptor and graph files and report every finding with its line and column.",
        epilog=check.CHECK_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check_command.add_argument("files", nargs="+", help="files, directories, or - for standard input")
    _report_options(check_command, "descriptor")
    check_command.add_argument(
        "--require-checked",
        action="store_true",
        help="a graph node nothing checked (a kind neither opspec nor the format's engine checks) fails the run",
    )
    check_command.add_argument(
        "--include",
        metavar="GLOB",
        action="append",
        default=[],
        help="in folders, read only the files this glob matches (repeatable)",
    )
    check_command.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="in folders, pass over these (repeatable)",
    )
    check_command.add_argument(
        "--ignore",
        metavar="RULE",
        action="append",
        default=[],
        help="drop the findings of this rule id or glob of ids (repeatable)",
    )
    _link_base(check_command)
    check_command.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=_jobs,
        default=1,
        help="check the files in N worker processes (0 or auto: one per core); the report and exit code are "
        "those of one process (default 1)",
    )
    check_command.add_argument(
        "--shard",
        metavar="K/N",
        type=_shard,
        help="check only shard K of N (1 <= K <= N): a stable split of the files, by a hash of each one's "
        "path relative to the working directory, for N machines of a CI matrix",
    )
    check_command.add_argument(
        "--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS
    )
    check_command.set_defaults(run=check.run)
    verify_command = commands.add_parser(
        "verify",
        help="compare an implementation's outputs with the spec's; exit 0 conformant, 1 not, 2 unreadable",
        description="Verify outputs element by element: mismatches by cause, and the known implementation "
        "they match.",
        epilog=verify.VERIFY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify_command.add_argument("files", nargs="*", help="case files, directories, or - for standard input")
    verify_command.add_argument(
        "--descriptor", metavar="D.json", help="a descriptor whose tensors are in .npz files"
    )
    verify_command.add_argument("--inputs", metavar="IN.npz", help="the inputs' arrays (with --descriptor)")
    verify_command.add_argument(
        "--outputs", metavar="OUT.npz", help="the implementation's outputs (with --descriptor)"
    )
    _report_options(verify_command, "case")
    verify_command.set_defaults(run=verify.run, parser=verify_command)
    rule_command = commands.add_parser(
        "rule",
        help="explain a rule id: what it says, where it comes from, an example and its fix",
        description="Explain a rule id from a report: its statement, severity, spec reference and op, an "
        "example that breaks it and the fix.",
        epilog=rule.RULE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rule_command.add_argument(
        "id", nargs="?", metavar="RULE_ID", help="the rule id, e.g. ReduceMax.axes.range"
    )
    rule_command.add_argument("--list", action="store_true", help="list every rule id, one a line")
    rule_command.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    rule_command.set_defaults(run=rule.run, parser=rule_command)
    merge_command = commands.add_parser(
        "merge",
        help="join the JSON reports of a run's shards into the whole run's report, in any format",
        description="Join the JSON reports of `opspec check --shard K/N --format json` (every shard of one "
        "run) into the report one process checking every file writes, byte for byte, in any format.",
        epilog=MERGE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge_command.add_argument(
        "reports", nargs="+", help="the shards' JSON reports, or folders of them (*.json)"
    )
    _report_options(merge_command, "descriptor", strict=False)
    _link_base(merge_command)
    merge_command.set_defaults(run=_merge)
    return parser


def _settings_faults(command: str) -> list[str]:
    """A line per bad OPSPEC_* variable the command uses; one it does not use (OPSPEC_PORT for check)
    is left at its default for this run, so it cannot stop the command."""
    from pydantic import ValidationError

    from app.core.config import Settings, get_settings

    try:
        get_settings()
    except ValidationError as exc:
        errors = exc.errors()
        unused = {str(e["loc"][0]) for e in errors if e["loc"] and str(e["loc"][0]) in SERVE_ONLY}
        if command == "serve" or len(unused) < len(errors):
            return [
                f"opspec {command}: OPSPEC_{'_'.join(str(p) for p in e['loc']).upper()}={e.get('input')!r} "
                f"is not valid: {e['msg']}"
                for e in errors
            ]
        for key in [key for key in os.environ if key.upper() in {f"OPSPEC_{n.upper()}" for n in unused}]:
            del os.environ[key]  # this process only: check and verify start no server
        get_settings.cache_clear()
        Settings()  # the rest was valid: this cannot fail
    return []


def main(argv: list[str] | None = None) -> int:
    limit_blas_threads()
    try:
        args = build_parser().parse_args(argv)
        faults = [] if args.command == "merge" else _settings_faults(args.command)  # merge reads none
        for line in faults:  # a bad OPSPEC_* variable: one line per fault, never a traceback
            print(line, file=sys.stderr)
        return EXIT_MALFORMED if faults else args.run(args)
    except KeyboardInterrupt:
        print("opspec: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # standard output closed early (help or version piped to head)
        quiet_stdout()
        return EXIT_VALID


def run() -> NoReturn:
    """The console script and `python -m app.cli`: main's exit code, with the collector's last pass over
    the heap skipped. A check of a zoo leaves its report's objects (2,000 files' units, findings and
    answers) for the interpreter's final collection to walk as it exits, which took 0.4 s of a 4.6 s
    `--jobs 2` run; frozen, they are left to the process's end. In-process callers (tests, the library)
    call main and keep their collector as it was."""
    code = main()
    gc.freeze()
    sys.exit(code)


def limit_blas_threads() -> None:
    """One OpenBLAS thread per process unless the user chose otherwise, set before numpy is imported.

    OpenBLAS starts a thread per core when numpy loads, and they spin while they wait: ~0.15 s of CPU
    in every `opspec` process that imports numpy (bench/bench_startup.py), more than checking a small
    file, and burnt on the cores a `--jobs` run or a container's CPU quota wants for work. Only MatMul and
    Convolution call BLAS, on payloads within the evaluation limits, and the service already runs
    requests side by side (its thread pool, `--workers`), so threads per matrix product would only
    compete with them. The answers' bits are the same either way (OpenBLAS splits a product's rows
    among threads, not the sums)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
