"""Which reader reads a file: a plain table, by extension and, where formats share one, by content.

To add a format, write its module (a `read(source) -> FileReport`) and add a row above the
descriptor row, which comes last because it takes any JSON the rows above did not claim. A reader whose
library is slow to import (onnx) imports it inside its read function (app/formats/graphs.py), so a run
that never meets its files never imports it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.formats import descriptors, graphs, sniff
from app.formats.sniff import SNIFF_BYTES
from app.formats.source import Source, unreadable
from app.report.model import FileReport


@dataclass(frozen=True, slots=True)
class Reader:
    format: str
    suffixes: tuple[str, ...]  # lower case, with the dot
    read: Callable[[Source], FileReport]
    sniff: Callable[[bytes], bool] | None = None  # does this content belong to the format? None: all


READERS: list[Reader] = [
    # graphs imports each format's reader (and its library) only when a file of that format comes
    Reader("onnx", (".onnx",), graphs.read_onnx, sniff.onnx_model),
    Reader("openvino", (".xml",), graphs.read_openvino, sniff.openvino_ir),  # net.bin beside it is read too
    Reader("onednn", (".json",), graphs.read_onednn, sniff.onednn_json),
    Reader(descriptors.FORMAT, (".json",), descriptors.read),
]

SUFFIXES = frozenset(suffix for reader in READERS for suffix in reader.suffixes)
# Extensions every reader of which must recognise the content (.xml: only an OpenVINO IR is read), so a
# folder's other XML files (a pom.xml) are passed over rather than reported as unreadable.
CLAIMED_ONLY = frozenset(
    suffix for suffix in SUFFIXES if all(r.sniff is not None for r in READERS if suffix in r.suffixes)
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
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != "node_modules")
        for name in sorted(files):
            suffix = os.path.splitext(name)[1].lower()
            if suffix in CLAIMED_ONLY and not _claimed(Path(folder, name), suffix):
                continue
            if suffix in SUFFIXES:
                yield Path(folder, name)


def _claimed(path: Path, suffix: str) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(SNIFF_BYTES)
    except OSError:
        return True  # unreadable: reported as such when it is read
    return any(r.sniff is not None and r.sniff(head) for r in READERS if suffix in r.suffixes)
