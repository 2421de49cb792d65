"""The reader table: extension first, then content; descriptor JSON takes what no other row claims."""

from __future__ import annotations

from app.formats import readers
from app.formats.readers import Reader, reader_for
from app.report.model import FileReport


def test_descriptor_json_is_the_default_for_json_stdin_and_unknown_extensions() -> None:
    for name in ("ops.json", "OPS.JSON", "-", "notes.txt"):
        assert reader_for(name, b"{}").format == "descriptor-json"


def test_a_sniffing_row_claims_its_content_above_the_default(monkeypatch) -> None:
    graph = Reader(
        "graph-json",
        (".json",),
        lambda source: FileReport(source.name, "graph-json"),
        lambda head: b'"graph"' in head,
    )
    monkeypatch.setattr(readers, "READERS", [graph, *readers.READERS])
    assert reader_for("net.json", b'{"graph": []}').format == "graph-json"
    assert reader_for("-", b'{"graph": []}').format == "graph-json"
    assert reader_for("ops.json", b'{"kind": "Max"}').format == "descriptor-json"
