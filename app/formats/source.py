"""A file handed to a reader: its name as the user gave it, its bytes, and where it lives on disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from app.report.model import FileReport, Finding, RuleInfo

READ_RULE = RuleInfo(
    "opspec.read",
    "The file can be read, as UTF-8 text where the format is text.",
    "opspec check (docs: The opspec command)",
)


@dataclass(frozen=True, slots=True)
class Source:
    name: str  # as the user named it; "-" for stdin
    data: bytes
    path: Path | None = None  # None for stdin; a reader may open files beside it (OpenVINO's .bin)
    error: str | None = None  # why the bytes could not be read; data is then empty


def load(name: str, path: Path, max_bytes: int, limit: str = "max_body_bytes") -> Source:
    """Read a file whole, refusing one larger than `max_bytes` (the setting `limit`) before reading it."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return Source(name, b"", path, f"{size:,} bytes, above the limit of {max_bytes:,} ({limit})")
        return Source(name, path.read_bytes(), path)
    except OSError as exc:
        return Source(name, b"", path, exc.strerror or str(exc))


STREAM_CHUNK = 1 << 20


def read_stream(name: str, stream: BinaryIO, max_bytes: int, limit: str, path: Path | None = None) -> Source:
    """Read a stream (standard input, a pipe, a device), which has no size before it is read, up to
    `max_bytes` (the setting `limit`): one that goes on past it is refused as soon as it does, so an
    endless one (`yes |`, /dev/zero) costs at most the limit, not all the memory there is."""
    chunks, size = [], 0
    try:
        while size <= max_bytes:
            chunk = stream.read(min(STREAM_CHUNK, max_bytes + 1 - size))
            if not chunk:
                return Source(name, b"".join(chunks), path)
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return Source(name, b"", path, exc.strerror or str(exc))
    return Source(name, b"", path, f"more than {max_bytes:,} bytes ({limit})")


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> tuple[str, int, int]:
    """What a decode error says, and its line and column (1-based, in characters as every position in a
    report is): the text before the bad byte is valid UTF-8, so it decodes to the characters it holds."""
    start = data.rfind(b"\n", 0, exc.start) + 1
    column = len(data[start : exc.start].decode("utf-8", "replace")) + 1
    line = data.count(b"\n", 0, exc.start) + 1
    return f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}", line, column


def unreadable(report: FileReport, why: str) -> FileReport:
    report.rules[READ_RULE.id] = READ_RULE
    report.findings.append(
        Finding("error", READ_RULE.id, f"cannot read the file: {why}", spec=READ_RULE.spec)
    )
    return report
