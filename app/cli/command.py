"""The `opspec` command: `serve` runs the HTTP API, `check` validates descriptor and graph files for CI,
`verify` compares a kernel's outputs with the spec's, `rule` explains a rule id from a report.

A thin layer over the readers and the report writers (as httpx's _main.py is over httpx), with exit
codes CI can trust: 0 every descriptor is valid, 1 some descriptor breaks a rule, 2 some input could
not be read or is not a descriptor at all.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

# Only the standard library and the report writers (standard library only) at import: a command imports
# what it needs when it runs, so `opspec --version` and `opspec --help` pay for no numpy, pydantic or
# op registry (they took ~1 s idle, 2 s under load, and a pre-commit hook paid it on every commit).
from app.report import FORMATS as REPORT_FORMATS
from app.report import WRITERS, formats_help, text
from app.report.model import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, FileReport, RunReport, Shard

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.formats.source import Source

__all__ = ["EXIT_INTERRUPTED", "EXIT_INVALID", "EXIT_MALFORMED", "EXIT_VALID", "build_parser", "main"]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
PROGRESS_MIN_FILES = 200  # fewer files finish before a bar would tell anyone anything
# Well-known JSON files of other tools that a folder walk passes over (never descriptors); `--exclude`
# and [tool.opspec] exclude add to these. A file named on the command line is always read.
DEFAULT_EXCLUDE = (
    "package.json",
    "package-lock.json",
    "tsconfig*.json",
    "jsconfig.json",
    "composer.json",
    "renovate.json",
    ".eslintrc.json",
)
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

CHECK_HELP = """\
Each file holds one descriptor, a list of them, or {"ops": [...]}, or is a graph: oneDNN Graph
JSON, OpenVINO IR (.xml, with the .bin beside it) or ONNX (.onnx). A directory is searched
recursively for *.json, *.onnx and IR *.xml (hidden folders and node_modules skipped, and the
JSON files of other tools: package.json, package-lock.json, tsconfig*.json, jsconfig.json,
composer.json, renovate.json, .eslintrc.json); - reads standard input. A folder without any such
file exits 2: a CI job pointed at the wrong folder must not pass.

--include, --exclude and --ignore may also be given in the [tool.opspec] table of the pyproject.toml
in the working directory (or the nearest above it), as lists: include = ["models/**/*.json"],
exclude = ["fixtures"], ignore = ["Max.broadcast"]. The command line adds to them. A glob matches a
file's path relative to the working directory or to the folder searched, its name, or (for exclude)
any folder on its way; files named on the command line are always read. --ignore takes a rule id or a
glob of them (Argmax.*): those findings are dropped, and a descriptor invalid only by them is valid.

A graph's nodes are each checked by opspec's rules, or typed and checked by the format's own
engine (ONNX shape inference; OpenVINO, when installed), or not checked: the summary counts the three
apart, and a node not checked is never counted valid.

exit codes:
  0  every descriptor is valid (warnings allowed, unless --strict)
  1  some descriptor breaks a rule (or, with --strict, has a warning; with
     --require-checked, some graph node was not checked)
  2  some input could not be read, is not JSON, or is not a descriptor, or the report
     could not be written (the worst case wins)

  130 interrupted (Ctrl-C)

""" + formats_help()


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("opspec")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


class _Version(argparse.Action):
    """--version, with the version looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {version()}")  # on stdout, as argparse's own version action
        parser.exit()


def project_options(start: Path | None = None) -> dict[str, list[str]]:
    """include, exclude and ignore from [tool.opspec] of the nearest pyproject.toml (the working
    directory's, else its parents'); empty lists where there is none. A malformed table is a
    ValueError naming the file."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            break
    else:
        return {"include": [], "exclude": [], "ignore": []}
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read [tool.opspec]: {exc}") from None
    if "opspec" not in source:  # no table of ours: not worth tomllib's import (~40 ms)
        return {"include": [], "exclude": [], "ignore": []}
    import tomllib

    try:
        table = tomllib.loads(source).get("tool", {}).get("opspec", {})
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: cannot read [tool.opspec]: {exc}") from None
    options = {}
    for key in ("include", "exclude", "ignore"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"{path}: [tool.opspec] {key} must be a list of strings, got {value!r}")
        options[key] = value
    return options


def _names(relative: PurePosixPath, folders: bool) -> list[str]:
    """What a glob is tried on for one relative path: the path, its name, and (folders) each folder on
    its way, as a path from the top and by its own name."""
    names = [relative.as_posix(), relative.name]
    if folders:
        parts = relative.parts[:-1]
        # "/".join, not a PurePosixPath per folder: a walk of a few hundred files spent ~0.1 s on those
        names += ["/".join(parts[: i + 1]) for i in range(len(parts))]
        names += list(parts)
    return names


def _matches(patterns: Iterable[str], relatives: list[PurePosixPath], folders: bool) -> bool:
    """Does a glob match one of a file's relative paths, its name, or (folders) a folder on its way?"""
    names = [name for relative in relatives for name in _names(relative, folders)]
    return any(fnmatchcase(name, pattern) for pattern in patterns for name in names)


def _relatives(file: Path, root: Path, cwd: Path | None = None) -> list[PurePosixPath]:
    relatives = [PurePosixPath(file.relative_to(root).as_posix())]
    cwd, resolved = cwd or Path.cwd().resolve(), file.resolve()
    if resolved.is_relative_to(cwd):  # else outside the working directory
        relatives.append(PurePosixPath(resolved.relative_to(cwd).as_posix()))
    return relatives


def _paths(
    names: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = ()
) -> list[tuple[str, Path | None]]:
    """Each input as (name to report, path), directories expanded and their files selected by the
    globs; stdin is ("-", None)."""
    from app.formats.readers import walk

    include, exclude = list(include), [*DEFAULT_EXCLUDE, *exclude]
    cwd = Path.cwd().resolve()  # once: resolving it per file was a syscall each
    found: list[tuple[str, Path | None]] = []
    for name in names:
        path = Path(name)
        if name == "-":
            found.append((name, None))
        elif path.is_dir():
            for file in walk(path):
                relatives = _relatives(file, path, cwd)
                if include and not _matches(include, relatives, folders=False):
                    continue
                if not _matches(exclude, relatives, folders=True):
                    found.append((str(file), file))
        else:
            found.append((name, path))
    return found


# Graph files only graph readers read (ONNX, OpenVINO IR: readers.graph_only_suffixes) are bounded by
# max_graph_bytes, as on the graph route; every other file, like any request body, by max_body_bytes:
# where the user set them (a file on the user's own disk is otherwise bounded by the machine:
# config.for_local_files).


def _source(name: str, path: Path | None, settings: Settings) -> Source:
    import stat

    from app.core.config import for_local_files
    from app.formats.readers import graph_only_suffixes
    from app.formats.source import Source, load, read_stream

    try:
        regular = path is not None and stat.S_ISREG(path.stat().st_mode)
    except OSError:
        regular = True  # load() says why it cannot be read
    if not regular:
        # A stream (standard input, a pipe, a device) has no size before it is read, and may not end:
        # bounded as the service bounds a graph.
        if path is None:
            return read_stream(name, sys.stdin.buffer, settings.max_graph_bytes, "max_graph_bytes")
        try:
            with path.open("rb") as stream:
                return read_stream(name, stream, settings.max_graph_bytes, "max_graph_bytes", path)
        except OSError as exc:
            return Source(name, b"", path, exc.strerror or str(exc))
    local = for_local_files(settings)
    if path.suffix.lower() in graph_only_suffixes():
        return load(name, path, local.max_graph_bytes, "max_graph_bytes")
    return load(name, path, local.max_body_bytes)


def _sources(paths: list[tuple[str, Path | None]], settings: Settings) -> Iterator[Source]:
    for name, path in paths:
        yield _source(name, path, settings)


def _bar(total: int):
    """A bar of files on stderr for a long run at a terminal (CI logs and pipes get nothing: None),
    counted by the caller: with --jobs files come back a chunk at a time."""
    if total < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="file", file=sys.stderr, leave=False)


def _progress(items: Iterator, total: int) -> Iterator:
    """The items, counted on a bar (_bar) as each is taken."""
    bar = _bar(total)
    if bar is None:
        return items

    def counted() -> Iterator:
        try:
            for item in items:
                yield item
                bar.update()
        finally:
            bar.close()

    return counted()


PROGRESS_MIN_NODES = 10_000  # a graph this large takes long enough for a bar of its own
PROGRESS_MIN_BYTES = 8 << 20  # ...and a file this large: a second or more, most of it before the walk


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


class _FileBar:
    """One large file's bar at a terminal: said as soon as the file is read, since parsing it is half the
    time of a 63 MB graph and the walker has no node to count before that; then its nodes as the graph
    is walked (the walker's PROGRESS hook)."""

    def __init__(self, name: str) -> None:
        from tqdm import tqdm

        # The file's own name: a long path would leave the bar no room.
        name = os.path.basename(name) or name
        self.bar = tqdm(desc=name, unit="node", file=sys.stderr, leave=False, bar_format="{desc}: reading")

    def nodes(self, total: int):
        """The walker's hook: from here the bar counts the graph's nodes."""
        self.bar.bar_format = None  # tqdm's own: count of total, rate, time left
        self.bar.reset(total=total)

        def update(done: int) -> None:
            self.bar.update(done - self.bar.n)

        return update

    def close(self) -> None:
        self.bar.close()  # leave=False: the line is cleared for the report


@contextlib.contextmanager
def _file_progress(source: Source, few: bool) -> Iterator[None]:
    """While one file is checked in a run of few files at a terminal: a bar of its own when it is large
    (_FileBar), else one over its nodes when its graph is (_node_bar); nothing in CI logs and pipes."""
    from app.formats.graph import PROGRESS

    bar = (
        _FileBar(source.name)
        if few and len(source.data) >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
        else None
    )
    token = PROGRESS.set(bar.nodes if bar is not None else _node_bar if few else None)
    try:
        yield
    finally:
        PROGRESS.reset(token)
        if bar is not None:
            bar.close()


def ignore_rules(file: FileReport, patterns: Iterable[str]) -> FileReport:
    """The file with the findings of the ignored rules (ids or globs) dropped from its units; a unit
    that was invalid only by them becomes valid. A file's own findings (unreadable, not JSON) and a
    malformed unit stay as they are: what could not be read cannot be waved through."""
    patterns = list(patterns)
    if not patterns:
        return file
    for unit in file.units:
        unit.findings = [f for f in unit.findings if not any(fnmatchcase(f.rule, p) for p in patterns)]
        if unit.verdict == "invalid" and not any(f.severity == "error" for f in unit.findings):
            unit.verdict = "valid"
    return file


def renamed_rules(patterns: Iterable[str], origin: str) -> list[str]:
    """The patterns, each followed by the ids now of the former rule ids it matches (Max's bare C1 is
    Max.C1), with one warning on stderr per such pattern naming the new ids: a config written before
    the rename keeps working, and says what to write instead."""
    patterns = list(patterns)
    if not patterns:
        return patterns
    from app.ops import RENAMED

    out = []
    for pattern in patterns:
        out.append(pattern)
        formers = [former for former in RENAMED if fnmatchcase(former, pattern)]
        if formers:
            now = [RENAMED[former] for former in formers]
            out += now
            # the same pattern under each op the ids now name: 'C1' -> 'Max.C1', 'R?' -> 'Max.R?'
            write = " ".join(dict.fromkeys(f"{rule.split('.')[0]}.{pattern}" for rule in now))
            print(
                f"opspec check: {origin} {pattern!r} names the former rule id{'s' * (len(now) > 1)} "
                f"{', '.join(formers)}, now {', '.join(now)} (a rule id names its op first); it still works "
                f"but is deprecated: write {write}",
                file=sys.stderr,
            )
    return out


def check_file(item: tuple[str, Path] | Source, ignore: tuple[str, ...] = ()) -> FileReport:
    """One file's report, read from disk or (stdin, read by the parent) from its Source: what a worker
    of --jobs does per file, and the plain run too."""
    from app.core.config import get_settings
    from app.formats.readers import read_source

    source = _source(*item, get_settings()) if isinstance(item, tuple) else item
    return ignore_rules(read_source(source), ignore)


def _weight(path: Path | None) -> int:
    """How much checking a file is likely to take, for scheduling: its size in bytes (standard input,
    read only where it is checked: none)."""
    if path is None:
        return 0
    try:
        return path.stat().st_size
    except OSError:
        return 0  # reported as unreadable when its turn comes


def _preload(items: list[tuple[str, Path] | Source]) -> None:
    """Import the readers of the formats in the run before workers fork, so each does not import them
    again (onnx takes a while): those of the rows that read a file of the run, by its extension and, for
    standard input (read already), its content."""
    from app.formats import graphs  # noqa: F401  (its import brings numpy, pydantic and the op registry)
    from app.formats.readers import READERS, SNIFF_BYTES, reader_for

    suffixes = {item[1].suffix.lower() for item in items if isinstance(item, tuple)}
    for reader in READERS:
        if suffixes.intersection(reader.suffixes):
            reader.load()
    for item in items:
        if not isinstance(item, tuple) and item.error is None:
            reader_for(item.name, item.data[:SNIFF_BYTES]).load()


def _check_in_workers(
    paths: list[tuple[str, Path | None]], weights: list[int], ignore: tuple[str, ...], workers: int
) -> Iterator[FileReport]:
    """The files' reports from `workers` processes, in the order of `paths`; standard input is read here
    (a worker's stdin is not the user's)."""
    from app.cli import pool
    from app.core.config import get_settings

    settings = get_settings()
    items = [(name, path) if path is not None else _source(name, None, settings) for name, path in paths]
    _preload(items)
    bars: list = []  # made when the first chunk comes back: after the fork, so no tqdm thread is forked

    def done(count: int) -> None:
        if not bars:
            bars.append(_bar(len(items)))
        if bars[0] is not None:
            bars[0].update(count)

    try:
        yield from pool.ordered_map(
            functools.partial(check_file, ignore=ignore),
            items,
            weights,
            workers,
            done=done,
        )
    finally:
        if bars and bars[0] is not None:
            bars[0].close()


def run_check(
    names: Iterable[str],
    *,
    strict: bool = False,
    require_checked: bool = False,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    ignore: Iterable[str] = (),
    jobs: int = 1,
    shard: tuple[int, int] | None = None,
) -> RunReport:
    """Check the files and folders `names` into one report, in their order. `jobs` worker processes
    (0: one per core) check them; `shard` (K, N) keeps only the files of shard K of N."""
    from app.cli import pool
    from app.core.config import get_settings

    settings = get_settings()
    report = RunReport(
        version=version(), strict=strict, require_checked=require_checked, docs_url=settings.docs_url
    )
    paths = _paths(names, include, exclude)
    if shard is not None:
        index, count = shard
        kept = [i for i, (n, p) in enumerate(paths) if pool.in_shard(pool.shard_key(p, n), index, count)]
        report.shard = Shard(index, count, len(paths), tuple(kept))
        paths = [paths[i] for i in kept]
    ignore = tuple(ignore)
    workers = min(pool.workers_for(jobs), len(paths))
    weights = [_weight(path) + pool.FILE_OVERHEAD_BYTES for _, path in paths] if workers > 1 else []
    if workers > 1 and pool.worth_helpers(weights):
        for file in _check_in_workers(paths, weights, ignore, workers):
            report.add(file)
    else:
        few = len(paths) < PROGRESS_MIN_FILES  # else a bar of files (_progress)
        for source in _progress(_sources(paths, settings), len(paths)):
            with _file_progress(source, few):
                report.add(check_file(source, ignore))
    report.name_units()
    return report


def _check(args: argparse.Namespace) -> int:
    try:
        options = project_options()
    except ValueError as exc:
        print(f"opspec check: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    include, exclude = options["include"] + args.include, options["exclude"] + args.exclude
    from app.cli.pool import WorkerDied

    try:
        report = run_check(
            args.files,
            strict=args.strict,
            require_checked=args.require_checked,
            include=include,
            exclude=exclude,
            ignore=renamed_rules(options["ignore"], "[tool.opspec] ignore")
            + renamed_rules(args.ignore, "--ignore"),
            jobs=args.jobs,
            shard=args.shard,
        )
    except WorkerDied as exc:
        jobs = args.jobs or "auto"
        print(f"opspec check: a worker process of --jobs {jobs} died ({exc}); no report", file=sys.stderr)
        return EXIT_MALFORMED
    # A shard of a CI matrix wider than the file list may get no file: that is no wrong folder.
    if not report.files and (report.shard is None or not report.shard.files_in_all):
        folders = ", ".join(args.files)
        print(
            f"opspec check: no descriptor or graph files in {folders} (searched for *.json, *.onnx and "
            "OpenVINO IR *.xml; see --include and --exclude)",
            file=sys.stderr,
        )
        return EXIT_MALFORMED
    return _emit(report, args)


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
    from app.core.config import get_settings
    from app.formats import verify_cases

    report = RunReport(
        version=version(),
        strict=args.strict,
        command="verify",
        unit_noun="cases",
        docs_url=get_settings().docs_url,
    )
    if args.descriptor is not None:
        report.add(verify_cases.read_npz(args.descriptor, args.inputs, args.outputs))
    for source in _sources(_paths(args.files), get_settings()):
        report.add(verify_cases.read(source))
    return report


def colour(stream: Any) -> bool:
    """Colour for a terminal: NO_COLOR (any value but empty) turns it off, FORCE_COLOR (any value but
    empty or 0) on; otherwise only where the stream is a terminal that is not dumb."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


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
            _quiet_stdout()
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


def _verify(args: argparse.Namespace) -> int:
    if args.descriptor is None and not args.files:
        args.parser.error("give case files, or --descriptor with --inputs and --outputs")
    if args.descriptor is not None and (args.inputs is None or args.outputs is None):
        args.parser.error("--descriptor needs --inputs and --outputs (.npz files)")
    return _emit(run_verify(args), args)


RULE_HELP = """\
RULE_ID is an id from a finding (ReduceMax.axes.range, Max.C1, graph.edge). Prints what the rule says,
its severity, where in the spec it comes from, its op, a descriptor that breaks it with what opspec
answers, the change that fixes it, and the rule's page in the docs (OPSPEC_DOCS_URL).

exit codes:
  0  the rule was found (a former id, such as Max's bare C1, is read as the id it became)
  2  no rule has that id: the closest ids are named
"""


def _rule(args: argparse.Namespace) -> int:
    import json

    from app import reference
    from app.core.config import get_settings

    docs_url = get_settings().docs_url
    if args.list:
        if args.format == "json":
            entries = [reference.describe(entry, docs_url) for entry in reference.book().values()]
            print(json.dumps(entries, indent=2, ensure_ascii=False))
        else:
            print("\n".join(reference.book()))
        return EXIT_VALID
    if args.id is None:
        args.parser.error("give a rule id, or --list")
    entry, former = reference.lookup(args.id)
    if entry is None:
        hint = suggest_hint(reference.closest(args.id))
        print(
            f"opspec rule: no rule has the id {args.id!r}; {hint}(opspec rule --list lists every id)",
            file=sys.stderr,
        )
        return EXIT_MALFORMED
    if former is not None:
        print(
            f"opspec rule: {former} is the former id of {entry.id} (a rule id names its op first)",
            file=sys.stderr,
        )
    answer = reference.describe(entry, docs_url)
    if args.format == "json":
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        print(rule_text(answer))
    return EXIT_VALID


def suggest_hint(suggestions: list[str]) -> str:
    from app.core.suggest import did_you_mean

    hint = did_you_mean(suggestions)
    return f"{hint} " if hint else ""


NO_EXAMPLE = {
    True: "No example: no case in specs/, and no single change of a valid one, breaks this rule.",
    False: "No example here: the rule is about a whole file, not a descriptor.",
}


def rule_text(rule: dict[str, Any]) -> str:
    """A rule as `opspec rule` prints it: the rule, then its example and the fix."""
    import json

    lines = [f"{rule['id']} ({rule['severity']})", f"  {rule['statement']}"]
    if rule["op"]:
        lines.append(f"  op:    {rule['op']}")
    lines.append(f"  spec:  {rule['spec'] or '(opspec itself)'}")
    if rule["status"]:
        lines.append(f"  status from the reference implementation: {rule['status']}")
    if rule["former_id"]:
        lines.append(f"  formerly: {rule['former_id']} (still read by --ignore, with a warning)")
    lines.append(f"  docs:  {rule['url']}")
    example = rule["example"]
    if example is None:
        lines += ["", NO_EXAMPLE[rule["op"] is not None]]
        return "\n".join(lines)
    lines += [
        "",
        f"Example ({example['source']}):",
        f"  {json.dumps(example['descriptor'], ensure_ascii=False)}",
    ]
    lines += [f"  {f['severity']} {f['rule']} at {f['path']}: {f['message']}" for f in example["findings"]]
    lines += ["", f"Fix: {example['fix']}", f"  {json.dumps(example['fixed'], ensure_ascii=False)}"]
    return "\n".join(lines)


def _quiet_stdout() -> None:
    """Standard output's reader went away: point it at /dev/null, so the flush at exit neither fails
    nor prints a traceback (Python's documented recipe for SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


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
        "-v", "--verbose", action="store_true", help=f"text: a line per {unit} with its outputs"
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
    return _emit(report, args)


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
        "--include",
        metavar="GLOB",
        action="append",
        default=[],
        help="in folders, read only the files this glob matches (repeatable)",
    )
    check.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="in folders, pass over these (repeatable)",
    )
    check.add_argument(
        "--ignore",
        metavar="RULE",
        action="append",
        default=[],
        help="drop the findings of this rule id or glob of ids (repeatable)",
    )
    _link_base(check)
    check.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=_jobs,
        default=1,
        help="check the files in N worker processes (0 or auto: one per core); the report and exit code are "
        "those of one process (default 1)",
    )
    check.add_argument(
        "--shard",
        metavar="K/N",
        type=_shard,
        help="check only shard K of N (1 <= K <= N): a stable split of the files, by a hash of each one's "
        "path relative to the working directory, for N machines of a CI matrix",
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
    rule = commands.add_parser(
        "rule",
        help="explain a rule id: what it says, where it comes from, an example and its fix",
        description="Explain a rule id from a report: its statement, severity, spec reference and op, an "
        "example that breaks it and the fix.",
        epilog=RULE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rule.add_argument("id", nargs="?", metavar="RULE_ID", help="the rule id, e.g. ReduceMax.axes.range")
    rule.add_argument("--list", action="store_true", help="list every rule id, one a line")
    rule.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    rule.set_defaults(run=_rule, parser=rule)
    merge = commands.add_parser(
        "merge",
        help="join the JSON reports of a run's shards into the whole run's report, in any format",
        description="Join the JSON reports of `opspec check --shard K/N --format json` (every shard of one "
        "run) into the report one process checking every file writes, byte for byte, in any format.",
        epilog=MERGE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.add_argument("reports", nargs="+", help="the shards' JSON reports, or folders of them (*.json)")
    _report_options(merge, "descriptor", strict=False)
    _link_base(merge)
    merge.set_defaults(run=_merge)
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
        _quiet_stdout()
        return EXIT_VALID


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
