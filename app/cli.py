"""The `opspec` command: `serve` runs the HTTP API, `check` validates descriptor and graph files for CI,
`verify` compares a kernel's outputs with the spec's.

A thin layer over the readers and the report writers (as httpx's _main.py is over httpx), with exit
codes CI can trust: 0 every descriptor is valid, 1 some descriptor breaks a rule, 2 some input could
not be read or is not a descriptor at all.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path

from pydantic import ValidationError

from app.core.config import Settings, get_settings
from app.formats.readers import read_source, walk
from app.formats.source import Source, load
from app.report import WRITERS, text
from app.report.model import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, RunReport

__all__ = ["EXIT_INVALID", "EXIT_MALFORMED", "EXIT_VALID", "build_parser", "main"]

FORMATS = tuple(WRITERS)  # text first: the default
PROGRESS_MIN_FILES = 200  # fewer files finish before a bar would tell anyone anything

CHECK_HELP = """\
Each file holds one descriptor, a list of them, or {"ops": [...]}, or is a graph: oneDNN Graph
JSON, OpenVINO IR (.xml, with the .bin beside it) or ONNX (.onnx). A directory is searched
recursively for *.json, *.onnx and IR *.xml (hidden folders and node_modules skipped); - reads
standard input.

A graph's nodes are each checked by opspec's rules, or typed and checked by the format's own
engine (ONNX shape inference; OpenVINO, when installed), or not checked: the summary counts the three
apart, and a node not checked is never counted valid.

exit codes:
  0  every descriptor is valid (warnings allowed, unless --strict)
  1  some descriptor breaks a rule (or, with --strict, has a warning; with
     --require-checked, some graph node was not checked)
  2  some input could not be read, is not JSON, or is not a descriptor, or the report
     could not be written (the worst case wins)

formats:
  text    file:line:column: severity rule: message, then a summary line
  json    one document: every file and descriptor, verdicts, outputs, findings, summary
  junit   JUnit XML, a testcase per descriptor (GitLab, Jenkins)
  sarif   SARIF 2.1.0 for GitHub code scanning
  github  GitHub Actions annotations (::error file=...,line=...,col=...::...)
"""


def version() -> str:
    try:
        return metadata.version("opspec")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def _paths(names: Iterable[str]) -> list[tuple[str, Path | None]]:
    """Each input as (name to report, path), directories expanded; stdin is ("-", None)."""
    found: list[tuple[str, Path | None]] = []
    for name in names:
        path = Path(name)
        if name == "-":
            found.append((name, None))
        elif path.is_dir():
            found.extend((str(file), file) for file in walk(path))
        else:
            found.append((name, path))
    return found


# Graph files only graph readers read (ONNX, OpenVINO IR) are bounded by max_graph_bytes, as on the
# graph route; every other file, like any request body, by max_body_bytes.
GRAPH_SUFFIXES = (".onnx", ".xml")


def _sources(paths: list[tuple[str, Path | None]], settings: Settings) -> Iterator[Source]:
    max_bytes = settings.max_body_bytes
    for name, path in paths:
        if path is None:
            data = sys.stdin.buffer.read(max_bytes + 1)
            if len(data) > max_bytes:
                yield Source(name, b"", None, f"more than {max_bytes:,} bytes (max_body_bytes)")
            else:
                yield Source(name, data)
        elif path.suffix.lower() in GRAPH_SUFFIXES:
            yield load(name, path, settings.max_graph_bytes, "max_graph_bytes")
        else:
            yield load(name, path, max_bytes)


def _progress(items: Iterator, total: int) -> Iterator:
    """A bar on stderr for a long run at a terminal; CI logs and pipes get nothing."""
    if total < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    return iter(tqdm(items, total=total, unit="file", file=sys.stderr, leave=False))


PROGRESS_MIN_NODES = 10_000  # a graph this large takes long enough for a bar of its own


def _node_bar(total: int):
    """A bar over one large graph's nodes, on stderr at a terminal (CI logs and pipes get nothing)."""
    if total < PROGRESS_MIN_NODES or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="node", file=sys.stderr, leave=False)

    def update(done: int) -> None:
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def run_check(names: Iterable[str], *, strict: bool = False, require_checked: bool = False) -> RunReport:
    from app.formats.graph import PROGRESS

    report = RunReport(version=version(), strict=strict, require_checked=require_checked)
    paths = _paths(names)
    token = PROGRESS.set(_node_bar if len(paths) < PROGRESS_MIN_FILES else None)
    try:
        for source in _progress(_sources(paths, get_settings()), len(paths)):
            report.add(read_source(source))
    finally:
        PROGRESS.reset(token)
    if report.files and all(file.read for file in report.files):
        report.unit_noun = "nodes"  # graphs only: their units are nodes
    return report


def _check(args: argparse.Namespace) -> int:
    return _emit(run_check(args.files, strict=args.strict, require_checked=args.require_checked), args)


VERIFY_HELP = """\
Each FILE holds a descriptor (a list of them, or {"ops": [...]}) whose inputs carry data and whose
outputs carry the implementation's answer as data. Or give --descriptor with --inputs and --outputs:
.npz files (numpy.savez; read with allow_pickle off) whose arrays bind to ports by name (src, data,
segment_ids, X1, X2, in, dst, output, Y, out ...) or else in order.

exit codes:
  0  every output is conformant: the spec's answer, bit for bit (NaN payloads aside)
  1  some element differs (or a descriptor breaks a rule; with --strict, a warning)
  2  some input could not be read or compared (no data, a limit crossed; the worst case wins)
"""


def run_verify(args: argparse.Namespace) -> RunReport:
    from app.formats import verify_cases

    report = RunReport(version=version(), strict=args.strict, command="verify", unit_noun="cases")
    if args.descriptor is not None:
        report.add(verify_cases.read_npz(args.descriptor, args.inputs, args.outputs))
    for source in _sources(_paths(args.files), get_settings()):
        report.add(verify_cases.read(source))
    return report


def _emit(report: RunReport, args: argparse.Namespace) -> int:
    writer = WRITERS[args.format]
    if args.format == "text":
        writer = functools.partial(
            text.write, verbose=args.verbose, link_base=getattr(args, "link_base", None)
        )
    if args.output is None:
        writer(report, sys.stdout)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as out:
                writer(report, out)
        except OSError as exc:
            print(
                f"opspec {report.command}: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr
            )
            return EXIT_MALFORMED
    if args.format != "text":  # the log still says how the run went
        print(text.summary_line(report.summary(), report.unit_noun), file=sys.stderr)
    return report.exit_code()


def _verify(args: argparse.Namespace) -> int:
    if args.descriptor is None and not args.files:
        args.parser.error("give case files, or --descriptor with --inputs and --outputs")
    if args.descriptor is not None and (args.inputs is None or args.outputs is None):
        args.parser.error("--descriptor needs --inputs and --outputs (.npz files)")
    return _emit(run_verify(args), args)


def _report_options(command: argparse.ArgumentParser, unit: str) -> None:
    """The options every reporting command (check, verify) shares; `unit` names what --verbose lists."""
    command.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
    command.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE, not stdout")
    command.add_argument("--strict", action="store_true", help="warnings fail the run too (exit 1)")
    command.add_argument(
        "-v", "--verbose", action="store_true", help=f"text: a line per {unit} with its outputs"
    )


def _serve(args: argparse.Namespace) -> int:
    from app.api import server

    settings = get_settings()  # main() has checked the OPSPEC_* variables
    # On SIGTERM uvicorn stops accepting, lets in-flight requests finish, then exits; with workers the
    # supervisor passes the signal to each worker and waits for them.
    host = args.host or settings.host
    server.run(settings, host, args.port if args.port is not None else settings.port, workers=args.workers)
    return 0


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
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP API (and the shape calculator page)")
    serve.add_argument("--host", help="address to bind (default from OPSPEC_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default from OPSPEC_PORT, else 8000)")
    serve.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="worker processes sharing the port (default 1; about one per core the service may use)",
    )
    serve.set_defaults(run=_serve)
    check = commands.add_parser(
        "check",
        help="validate descriptor and graph files; exit 0 all valid, 1 some invalid, 2 some unreadable",
        description="Validate descriptor and graph files and report every finding with its line and column.",
        epilog=CHECK_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("files", nargs="+", help="files, directories, or - for standard input")
    _report_options(check, "descriptor")
    check.add_argument(
        "--require-checked",
        action="store_true",
        help="a graph node nothing checked (a kind neither opspec nor the format's engine checks) fails the run",
    )
    check.add_argument(
        "--link-base",
        metavar="URL",
        default=os.environ.get("OPSPEC_LINK_BASE") or None,
        help="the web page's URL (e.g. http://opspec.internal/): the text report adds under each finding of "
        "a descriptor or graph node a link that opens it on the page (default from OPSPEC_LINK_BASE)",
    )
    check.add_argument("--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS)
    check.set_defaults(run=_check)
    verify = commands.add_parser(
        "verify",
        help="compare an implementation's outputs with the spec's; exit 0 conformant, 1 not, 2 unreadable",
        description="Verify outputs element by element: mismatches by cause, and the known implementation "
        "they match.",
        epilog=VERIFY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("files", nargs="*", help="case files, directories, or - for standard input")
    verify.add_argument("--descriptor", metavar="D.json", help="a descriptor whose tensors are in .npz files")
    verify.add_argument("--inputs", metavar="IN.npz", help="the inputs' arrays (with --descriptor)")
    verify.add_argument(
        "--outputs", metavar="OUT.npz", help="the implementation's outputs (with --descriptor)"
    )
    _report_options(verify, "case")
    verify.set_defaults(run=_verify, parser=verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        get_settings()
    except ValidationError as exc:  # a bad OPSPEC_* variable: one line per fault, never a traceback
        for error in exc.errors():
            name = "OPSPEC_" + "_".join(str(part) for part in error["loc"]).upper()
            print(
                f"opspec {args.command}: {name}={error.get('input')!r} is not valid: {error['msg']}",
                file=sys.stderr,
            )
        return EXIT_MALFORMED
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
