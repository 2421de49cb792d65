"""`opspec check` on graph files beside descriptor files: oneDNN JSON, OpenVINO IR with its .bin, ONNX."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from app.cli import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main
from tests.api.test_graphs import IR, onnx_model

FILES = Path(__file__).parents[1] / "formats" / "files"


def folder(tmp_path: Path, axis: int = 1) -> Path:
    shutil.copy(FILES / "reducemax.json", tmp_path / "reducemax.json")
    (tmp_path / "net.xml").write_bytes(IR)
    (tmp_path / "net.bin").write_bytes(np.array([axis], dtype="<i8").tobytes())
    (tmp_path / "model.onnx").write_bytes(onnx_model())
    (tmp_path / "op.json").write_text(json.dumps({"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}))
    return tmp_path


def test_a_folder_of_every_format_is_valid(tmp_path, capsys) -> None:
    assert main(["check", str(folder(tmp_path))]) == EXIT_VALID
    assert capsys.readouterr().out.splitlines()[-1] == (
        "4 files, 5 descriptors: 5 valid, 0 invalid; 0 errors, 0 warnings, 2 notes"
    )


def test_ir_is_read_with_the_bin_beside_it_and_findings_carry_lines(tmp_path, capsys) -> None:
    path = folder(tmp_path, axis=2) / "net.xml"
    assert main(["check", str(path)]) == EXIT_INVALID
    out = capsys.readouterr().out
    assert f"{path}:15:4: error ReduceMax.axes.range: axis 2 is out of range [-2, 1] for src of rank 2" in out


def test_onednn_finding_has_its_line_and_onnx_names_the_node(tmp_path, capsys) -> None:
    data = (FILES / "reducemax.json").read_bytes().replace(b"            1\n", b"            7\n", 1)
    (tmp_path / "bad.json").write_bytes(data)
    assert main(["check", str(tmp_path / "bad.json")]) == EXIT_INVALID
    assert ":14:13: error ReduceMax.axes.range: axis 7 is out of range" in capsys.readouterr().out
    (tmp_path / "m.onnx").write_bytes(onnx_model())
    main(["check", str(tmp_path / "m.onnx")])
    # a graph's notes are counted in the summary, and said with -v: a CI log shows what is wrong
    assert capsys.readouterr().out == "1 file, 2 nodes: 2 valid, 0 invalid; 0 errors, 0 warnings, 1 note\n"
    main(["check", "-v", str(tmp_path / "m.onnx")])
    assert "m.onnx: info graph.translated: node[reduce]: ONNX ReduceMax" in capsys.readouterr().out


def test_malformed_graph_exits_2(tmp_path, capsys) -> None:
    (tmp_path / "net.xml").write_bytes(b'<net version="11"><layers>\n<layer id="0" type="X"></net>')
    assert main(["check", str(tmp_path / "net.xml")]) == EXIT_MALFORMED
    assert "net.xml:2:26: error opspec.graph: not XML: mismatched tag" in capsys.readouterr().out


def test_a_folder_passes_over_xml_that_is_not_an_ir(tmp_path, capsys) -> None:
    folder(tmp_path)
    (tmp_path / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion></project>\n")
    assert main(["check", str(tmp_path)]) == EXIT_VALID
    assert "pom.xml" not in capsys.readouterr().out


def test_graph_files_are_bounded_by_max_graph_bytes(tmp_path, monkeypatch, capsys) -> None:
    """An ONNX model over max_body_bytes is read when it is within max_graph_bytes, as on the graph route;
    a descriptor file of the same size is not."""
    from app.core.config import get_settings

    path = folder(tmp_path) / "model.onnx"
    size = path.stat().st_size
    monkeypatch.setenv("OPSPEC_MAX_BODY_BYTES", str(size - 1))
    monkeypatch.setenv("OPSPEC_MAX_GRAPH_BYTES", str(size))
    get_settings.cache_clear()
    try:
        assert main(["check", str(path)]) == EXIT_VALID
        monkeypatch.setenv("OPSPEC_MAX_GRAPH_BYTES", str(size - 1))
        get_settings.cache_clear()
        assert main(["check", str(path)]) == EXIT_MALFORMED
        assert "(max_graph_bytes)" in capsys.readouterr().out
    finally:
        get_settings.cache_clear()


def test_an_ir_whose_bin_alone_passes_max_graph_bytes_is_refused_as_any_too_large_ir(
    tmp_path, monkeypatch, capsys
) -> None:
    """The IR and its .bin count together, as on the graph route; a .bin over the limit by itself was
    passed over without a word, and the IR read without its weights."""
    from app.core.config import get_settings

    path = folder(tmp_path) / "net.xml"
    (tmp_path / "net.bin").write_bytes(np.array([1], dtype="<i8").tobytes() + bytes(4096))
    monkeypatch.setenv("OPSPEC_MAX_GRAPH_BYTES", str(path.stat().st_size + 8))
    get_settings.cache_clear()
    try:
        assert main(["check", str(path)]) == EXIT_MALFORMED
    finally:
        get_settings.cache_clear()
    assert "above the limit of" in capsys.readouterr().out


BENCHDNN = FILES / "benchdnn"
SNAPSHOTS = Path(__file__).parents[1] / "report" / "snapshots"


def custom(tmp_path: Path, kinds: list[str]) -> Path:
    """reducemax.json with ops of kinds nothing checks (a vendor's own) after its ReduceMax."""
    document = json.loads((FILES / "reducemax.json").read_bytes())
    [op] = document["graph"]
    for index, kind in enumerate(kinds, 1):
        out = {**op["outputs"][0], "id": 100 + index}
        document["graph"].append(
            {"id": index, "name": f"custom_{index}", "kind": kind, "attrs": {},
             "inputs": [op["outputs"][0]], "outputs": [out]}
        )  # fmt: skip
    path = tmp_path / f"custom_{len(kinds)}.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_unchecked_nodes_are_counted_apart_and_never_valid(tmp_path, capsys) -> None:
    """Nodes of kinds nothing checks are `not checked`, never `valid`: the summary line's format."""
    files = [custom(tmp_path, ["VendorGelu", "VendorPack", "VendorGelu"]), FILES / "reducemax.json"]
    assert main(["check", *map(str, files)]) == EXIT_VALID
    got = capsys.readouterr().out.splitlines()[-1] + "\n"
    snapshot = SNAPSHOTS / "summary_graphs.txt"
    if os.environ.get("OPSPEC_UPDATE_SNAPSHOTS"):
        snapshot.write_text(got, encoding="utf-8")
    assert got == snapshot.read_text(encoding="utf-8")


def test_require_checked_fails_a_run_with_an_unchecked_node(tmp_path, capsys) -> None:
    unchecked = custom(tmp_path, ["VendorGelu"])
    assert main(["check", str(unchecked)]) == EXIT_VALID
    assert main(["check", "--require-checked", str(unchecked)]) == EXIT_INVALID
    checked = FILES / "reducemax.json"
    assert main(["check", "--require-checked", str(checked)]) == EXIT_VALID
    # an unreadable file still wins
    (tmp_path / "bad.onnx").write_bytes(b"\x08")
    assert main(["check", "--require-checked", str(unchecked), str(tmp_path / "bad.onnx")]) == EXIT_MALFORMED
    capsys.readouterr()


def test_json_report_says_coverage_per_file_and_in_total(tmp_path, capsys) -> None:
    unchecked = custom(tmp_path, ["VendorGelu", "MatMul"])
    main(["check", "--format", "json", str(unchecked), str(FILES / "reducemax.json")])
    document = json.loads(capsys.readouterr().out)
    first, second = document["files"]
    assert first["coverage"]["not_checked"] >= 1 and "VendorGelu" in first["coverage"]["not_checked_kinds"]
    assert second["coverage"] == {"checked": 1, "by_engine": {}, "not_checked": 0, "not_checked_kinds": {}}
    summary = document["summary"]
    assert summary["not_checked"] == first["coverage"]["not_checked"]
    assert summary["valid"] + summary["invalid"] == summary["checked"]


def test_a_large_graph_shows_its_progress_at_a_terminal_only(monkeypatch, capsys) -> None:
    import sys

    import app.cli.check

    monkeypatch.setattr(app.cli.check, "PROGRESS_MIN_NODES", 1)  # every graph is "large" here
    assert main(["check", str(FILES / "reducemax.json")]) == EXIT_VALID
    assert "node" not in capsys.readouterr().err  # not a terminal: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["check", str(FILES / "reducemax.json")]) == EXIT_VALID
    assert "node/s" in capsys.readouterr().err
