"""`opspec check`: every file's report (in this process or, with --jobs, in worker processes as well:
pool.py), the rules --ignore drops, progress bars at a terminal, and the run's report."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli import files
from app.cli.output import emit, version
from app.report import formats_help
from app.report.model import EXIT_MALFORMED, FileReport, RunReport, Shard

if TYPE_CHECKING:
    from app.formats.source import Source

PROGRESS_MIN_FILES = 200  # fewer files finish before a bar would tell anyone anything

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

    source = files.source(*item, get_settings()) if isinstance(item, tuple) else item
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
    items = [(name, path) if path is not None else files.source(name, None, settings) for name, path in paths]
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
    paths = files.find(names, include, exclude)
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
        for source in _progress(files.sources(paths, settings), len(paths)):
            with _file_progress(source, few):
                report.add(check_file(source, ignore))
    report.name_units()
    return report


def run(args: argparse.Namespace) -> int:
    try:
        options = files.project_options()
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
    return emit(report, args)
