"""The table of file formats: one row per format, read by everything that varies by format.

A row says which files are the format's (their extensions and, where formats share one, a test of the
first bytes), which module reads them (imported when a file of the format first comes: onnx takes a
while to import, and a run that never meets an ONNX file should not pay for it), whether the format
takes weights beside it, and for a graph format the media types the graph route takes it as and how its
refusals name it. From it come: which reader reads a file (`reader_for`), a graph's format when none is
named (`detect`), the parse dispatch (`Reader.parse`), a folder walk's extensions, the format names of
`?format=` and of the graph answer, the graph route's body types, and what `opspec check` imports before
its worker processes fork.

A new graph format is one module with a `parse(data, settings) -> Graph` (`parse(data, settings,
weights)` where it takes weights) and one row above the descriptor row, which comes last because it
takes any JSON the rows above did not claim. A sniff imports nothing: it runs on every file of its
extensions, and on every file of none.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from app.formats.source import Source, unreadable
from app.report.model import FileReport

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.formats.graph import Graph

SNIFF_BYTES = 4096  # how much of a file a sniff sees


def onnx_model(head: bytes) -> bool:
    """An ONNX model's first field is ir_version (field 1, varint: byte 0x08); JSON and XML never start
    with that byte."""
    return head[:1] == b"\x08"


def openvino_ir(head: bytes) -> bool:
    text = head.lstrip()[:SNIFF_BYTES]
    return text.startswith(b"<") and b"<net" in text


def onednn_json(head: bytes) -> bool:
    """A JSON object with a `"graph"` key near its start (benchdnn and the dumps write it after version,
    engine_kind and fpmath_mode)."""
    text = head.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()[:SNIFF_BYTES]
    return text.startswith(b"{") and b'"graph"' in text


@dataclass(frozen=True, slots=True)
class Reader:
    format: str  # the name `?format=`, the answers and the reports give it
    suffixes: tuple[str, ...]  # lower case, with the dot
    module: str  # a graph format's module has `parse`; another format's, `read(source) -> FileReport`
    sniff: Callable[[bytes], bool] | None = None  # does this content belong to the format? None: all
    graph: bool = True  # read into a graph and walked (app/formats/graphs.py)
    weights: str | None = None  # the extension of the weights file beside it, which its parse takes
    media_types: tuple[str, ...] = ()  # what POST /v1/graphs/validate takes it as
    title: str = ""  # how a refusal names it: "an ONNX model (protobuf)"

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    def read(self, source: Source) -> FileReport:
        """The file's report, as `opspec check` gives it."""
        if self.graph:
            from app.formats import graphs

            return graphs.read(self, source)
        return self.load().read(source)

    def parse(self, data: bytes, settings: Settings, weights: bytes | None = None) -> Graph:
        module = self.load()
        return module.parse(data, settings, weights) if self.weights else module.parse(data, settings)


READERS: list[Reader] = [
    Reader(
        "onednn", (".json",), "app.formats.onednn", onednn_json,
        media_types=("application/json",), title="oneDNN Graph JSON (an object with `graph`)",
    ),
    Reader(
        "openvino", (".xml",), "app.formats.openvino", openvino_ir, weights=".bin",
        media_types=("application/xml", "text/xml"), title="OpenVINO IR XML (<net>)",
    ),
    Reader(
        "onnx", (".onnx",), "app.formats.onnx", onnx_model,
        media_types=("application/octet-stream",), title="an ONNX model (protobuf)",
    ),
    Reader("descriptor-json", (".json",), "app.formats.descriptors", graph=False),
]  # fmt: skip


def graph_readers() -> list[Reader]:
    return [reader for reader in READERS if reader.graph]


def graph_formats() -> tuple[str, ...]:
    """The graph formats' names, in the table's order: `?format=`'s values and the answer's."""
    return tuple(reader.format for reader in graph_readers())


def graph_reader(format: str) -> Reader | None:
    return next((reader for reader in graph_readers() if reader.format == format), None)


def suffixes() -> frozenset[str]:
    return frozenset(suffix for reader in READERS for suffix in reader.suffixes)


def graph_only_suffixes() -> frozenset[str]:
    """Extensions only graph formats have (.onnx, .xml): such files are bounded as graphs are."""
    others = {suffix for reader in READERS if not reader.graph for suffix in reader.suffixes}
    return frozenset(s for reader in graph_readers() for s in reader.suffixes if s not in others)


def claimed_only() -> frozenset[str]:
    """Extensions every reader of which must recognise the content (.xml: only an OpenVINO IR is read),
    so a folder's other files of them (a pom.xml) are passed over rather than reported as unreadable."""
    return frozenset(
        suffix for suffix in suffixes() if all(r.sniff is not None for r in READERS if suffix in r.suffixes)
    )


def reader_for(name: str, head: bytes) -> Reader:
    """The first row whose extension and sniff both match; for a file of another extension (or stdin),
    the first row whose sniff claims the content, else the last row."""
    suffix = os.path.splitext(name)[1].lower() if name != "-" else ""
    for reader in READERS:
        if suffix in reader.suffixes and (reader.sniff is None or reader.sniff(head)):
            return reader
    for reader in READERS:
        if reader.sniff is not None and reader.sniff(head):
            return reader
    return READERS[-1]


def read_source(source: Source) -> FileReport:
    if source.error is not None:
        return unreadable(FileReport(source.name, ""), source.error)
    return reader_for(source.name, source.data[:SNIFF_BYTES]).read(source)


def walk(root: Path) -> Iterator[Path]:
    """Files under `root` that some reader reads, in a stable order; hidden folders (.git, .venv) are
    skipped, as are folders named node_modules."""
    known, sniffed = suffixes(), claimed_only()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != "node_modules")
        for name in sorted(files):
            suffix = os.path.splitext(name)[1].lower()
            if suffix in sniffed and not _claimed(Path(folder, name), suffix):
                continue
            if suffix in known:
                yield Path(folder, name)


def _claimed(path: Path, suffix: str) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(SNIFF_BYTES)
    except OSError:
        return True  # unreadable: reported as such when it is read
    return any(r.sniff is not None and r.sniff(head) for r in READERS if suffix in r.suffixes)
