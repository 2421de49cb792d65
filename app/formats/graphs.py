"""Graph files of any format in the table (app/formats/readers.py): pick the reader (asked for, or by
content), read, walk.

The HTTP route and `opspec check` both come through here, so a file gets the same answer from either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core import collector
from app.core.config import Settings, for_local_files, get_settings
from app.core.diagnostics import Diagnostic
from app.core.payload import LimitExceeded
from app.formats import readers
from app.formats.errors import Malformed
from app.formats.graph import RULES, Graph, GraphResult, walk
from app.formats.readers import SNIFF_BYTES, Reader
from app.formats.source import Source, unreadable
from app.report.model import FileReport, Finding, RelatedPlace, RuleInfo, Unit, UnitVerdict


def detect(data: bytes) -> Reader | None:
    """The graph format whose sniff claims the content; JSON no sniff claims, the JSON graph format's (its
    parser says where the text goes wrong); else None."""
    head = data[:SNIFF_BYTES]
    candidates = readers.graph_readers()
    found = next((reader for reader in candidates if reader.sniff is not None and reader.sniff(head)), None)
    if found is None and head.lstrip()[:1] in (b"{", b"["):
        return next((reader for reader in candidates if ".json" in reader.suffixes), None)
    return found


def _unknown() -> Malformed:
    titles = [reader.title for reader in readers.graph_readers()]
    expected = f"{', '.join(titles[:-1])} or {titles[-1]}" if len(titles) > 1 else titles[0]
    return Malformed(
        f"not a graph file this reader knows: expected {expected}; name the format with "
        f"?format={'|'.join(readers.graph_formats())}"
    )


def reader_of(data: bytes, format: str | None) -> Reader:
    """The row of the format named, else the one the content shows; Malformed for neither."""
    reader = readers.graph_reader(format) if format else detect(data)
    if reader is None:
        raise _unknown()
    return reader


def refuse_oversize(size: int, settings: Settings) -> None:
    """A graph file and its weights together within max_graph_bytes, checked before they are read."""
    if size > settings.max_graph_bytes:
        raise LimitExceeded(
            "file",
            "max_graph_bytes",
            f"the graph file is {size:,} bytes, above the limit of {settings.max_graph_bytes:,} (max_graph_bytes)",
        )


def parse(
    data: bytes, settings: Settings, format: str | Reader | None = None, weights: bytes | None = None
) -> Graph:
    """The file read into a graph by its format's reader: the row given, or the format named, or the one
    the content shows."""
    refuse_oversize(len(data) + len(weights or b""), settings)
    reader = format if isinstance(format, Reader) else reader_of(data, format)
    return reader.parse(data, settings, weights)


def check(
    data: bytes, settings: Settings, format: str | Reader | None = None, weights: bytes | None = None
) -> GraphResult:
    # Reading and walking allocate a few objects per node that all live until the answer is written.
    with collector.paused():
        return walk(parse(data, settings, format, weights), settings)


# --- `opspec check`: a graph file as a FileReport, one unit per node ------------------------------

GRAPH_RULE = RuleInfo(
    "opspec.graph", "The file is a readable graph of its format, within the size limits.", ""
)


def _rule(rule_id: str, spec: str) -> RuleInfo:
    rule = RULES.get(rule_id)
    return RuleInfo(rule_id, rule.statement if rule else rule_id, spec)


def _message(message: str, path: str, line: int | None) -> str:
    """Where the file has no positions (ONNX is binary), the message itself names the node and field,
    as the writers print a position only as line and column."""
    return message if line is not None or not path else f"{path}: {message}"


def to_report(name: str, result: GraphResult) -> FileReport:
    """One unit per op node (structure aside), checked or not: a node nobody checked is a unit of verdict
    not_checked, so every face counts it and none counts it valid."""
    report = FileReport(name, result.format, read=True)
    for finding in result.diagnostics:
        line, column = result.position(finding.path) or (None, None)
        report.findings.append(
            Finding(
                finding.severity,
                finding.rule,
                _message(finding.message, finding.path, line),
                finding.path,
                finding.spec,
                line,
                column,
                _related(result, finding),
            )
        )
        report.rules.setdefault(finding.rule, _rule(finding.rule, finding.spec))
    shared: dict[int, list[dict[str, Any]]] = {}
    for index, node in enumerate(result.nodes):
        if node.structural:
            continue  # a graph input, output or constant: not an op
        if node.checked_by is None:
            verdict: UnitVerdict = "not_checked"
        else:
            verdict = "valid" if node.valid else "invalid"
        unit = Unit(
            index, node.path, node.checked_as or node.kind, verdict, line=node.line, column=node.column,
            checked_by=node.checked_by, descriptor=node.descriptor,
        )  # fmt: skip
        # (nodes answered alike share their outputs' list: so do their units, which writers only read)
        outputs = shared.get(id(node.outputs))
        if outputs is None:
            outputs = shared[id(node.outputs)] = [{"dtype": o.dtype, "shape": o.shape} for o in node.outputs]
        unit.outputs = outputs
        unit.detail = {"id": node.id, "name": node.name, "native_kind": node.kind, "typed_by": node.typed_by}
        for d in node.diagnostics:
            line, column = result.position(d.path) or (node.line, node.column)
            message = _message(d.message, d.path, line)
            unit.findings.append(Finding(d.severity, d.rule, message, d.path, d.spec, line, column))
            report.rules.setdefault(d.rule, _rule(d.rule, d.spec))
        report.units.append(unit)
    return report


def _related(result: GraphResult, finding: Diagnostic) -> tuple[RelatedPlace, ...]:
    places = []
    for other in finding.related or ():
        line, column = result.position(other.path) or (None, None)
        places.append(RelatedPlace(_message(other.message, other.path, line), other.path, line, column))
    return tuple(places)


def weights_beside(reader: Reader, path: str | Path, size: int, settings: Settings) -> bytes | None:
    """The weights of a format that takes them: the file beside it with their extension (an IR's .bin
    beside its .xml), if there is one (both within max_graph_bytes)."""
    if reader.weights is None:
        return None
    beside = Path(path).with_suffix(reader.weights)
    if not beside.is_file():
        return None
    refuse_oversize(size + beside.stat().st_size, settings)
    return beside.read_bytes()


def check_file(path: str | Path, settings: Settings, format: str | None = None) -> GraphResult:
    """A graph file from disk, as `opspec check` reads it: an IR with the .bin beside it."""
    path = Path(path)
    refuse_oversize(path.stat().st_size, settings)
    data = path.read_bytes()
    reader = reader_of(data, format)
    return check(data, settings, reader, weights_beside(reader, path, len(data), settings))


def read(reader: Reader, source: Source) -> FileReport:
    """A graph file of the reader's format as `opspec check` reports it (the table's `Reader.read`)."""
    if source.error is not None:
        return unreadable(FileReport(source.name, reader.format), source.error)
    # The file table's readers read what `opspec check` was given: the user's own files, bounded by
    # the machine, not by what the service takes from a client (its size was bounded as it was read).
    settings = for_local_files(get_settings())
    try:
        weights = None
        if source.path is not None:
            weights = weights_beside(reader, source.path, len(source.data), settings)
        result = check(source.data, settings, reader, weights)
        with collector.paused():  # (its units live as long as the nodes: the collector finds nothing)
            return to_report(source.name, result)
    except (Malformed, LimitExceeded) as exc:
        where = (exc.line, exc.column) if isinstance(exc, Malformed) else (None, None)
        report = FileReport(source.name, reader.format)
        report.findings.append(Finding("error", GRAPH_RULE.id, exc.message, exc.path, "", *where))
        report.rules[GRAPH_RULE.id] = GRAPH_RULE
        return report
