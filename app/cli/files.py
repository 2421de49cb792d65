"""Which files a check reads: folders walked for the formats' extensions (app/formats/readers.py), the
globs of --include and --exclude and of [tool.opspec] in pyproject.toml, and each file read within its
limit."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.formats.source import Source

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


def find(
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


def source(name: str, path: Path | None, settings: Settings) -> Source:
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


def sources(paths: list[tuple[str, Path | None]], settings: Settings) -> Iterator[Source]:
    for name, path in paths:
        yield source(name, path, settings)
