"""Which graph format a file's first bytes are, without importing any format's library."""

from __future__ import annotations

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
