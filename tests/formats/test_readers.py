"""The reader table: extension first, then content; descriptor JSON takes what no other row claims."""

from __future__ import annotations

from app.formats import readers
from app.formats.readers import Reader, reader_for


def test_descriptor_json_is_the_default_for_json_stdin_and_unknown_extensions() -> None:
    for name in ("ops.json", "OPS.JSON", "-", "notes.txt"):
        assert reader_for(name, b"{}").format == "descriptor-json"


def test_a_sniffing_row_claims_its_content_above_the_default(monkeypatch) -> None:
    graph = Reader("graph-json", (".json",), "tests.formats.toy_format", lambda head: b'"graph"' in head)
    monkeypatch.setattr(readers, "READERS", [graph, *readers.READERS])
    assert reader_for("net.json", b'{"graph": []}').format == "graph-json"
    assert reader_for("-", b'{"graph": []}').format == "graph-json"
    assert reader_for("ops.json", b'{"kind": "Max"}').format == "descriptor-json"


def test_the_descriptor_row_names_the_format_its_reader_reports() -> None:
    from app.formats import descriptors

    assert readers.READERS[-1].format == descriptors.FORMAT


# A fourth graph format is one module and one row: the toy format (tests/formats/toy_format.py) added to
# the table before the faces are imported, in a process of its own, is read by the route (named and
# sniffed, as its media type), by `opspec check` (a folder walk finds its extension) and by check_graph.
TOY = """
import json, sys
from pathlib import Path

from app.formats import readers
from tests.formats import toy_format

readers.READERS.insert(-1, readers.Reader(
    "toy", (".toy",), "tests.formats.toy_format", toy_format.sniff,
    media_types=("text/plain",), title="a toy graph (TOYGRAPH)",
))

from fastapi.testclient import TestClient

from app.cli import main
from app.library import check_graph
from app.api.main import create_app

folder = Path(sys.argv[1])
data = (folder / "net.toy").read_bytes()
client = TestClient(create_app())
answers = {}
for query in ("?format=toy", "", "?format=tflite"):
    answer = client.post("/v1/graphs/validate" + query, content=data, headers={"content-type": "text/plain"})
    answers[query] = answer.json()
    answers[query]["status"] = answer.status_code
body = client.get("/openapi.json").json()["paths"]["/v1/graphs/validate"]["post"]
code = main(["check", "--format", "json", "--output", str(folder / "report.json"), str(folder)])
print(json.dumps({
    "route": {
        query: [a["status"], a.get("format"), [(n["kind"], n["valid"]) for n in a.get("nodes", [])],
                [d["rule"] for n in a.get("nodes", []) for d in n["diagnostics"]]]
        for query, a in answers.items()
    },
    "refusal": answers["?format=tflite"]["errors"][0]["message"],
    "media_types": list(body["requestBody"]["content"]),
    "formats": next(p for p in body["parameters"] if p["name"] == "format")["schema"]["anyOf"][0]["enum"],
    "cli": [code, [(f["path"], f["format"]) for f in json.loads((folder / "report.json").read_text())["files"]]],
    "check_graph": check_graph(folder / "net.toy")["format"],
}))
"""


def test_a_format_added_to_the_table_is_read_by_every_face(tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    from tests.formats.toy_format import MAGIC

    reduce = {
        "id": 0, "name": "r", "kind": "ReduceMax",
        "attrs": {"axes": {"type": "s64[]", "value": [5]}, "keep_dims": {"type": "bool", "value": 0}},
        "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "stride": [3, 1], "layout_type": "strided",
                    "property_type": "undef"}],
        "outputs": [{"id": 1, "dtype": "f32", "shape": [2], "stride": [1], "layout_type": "strided",
                     "property_type": "undef"}],
    }  # fmt: skip
    (tmp_path / "net.toy").write_bytes(MAGIC + json.dumps([reduce]).encode())
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-c", TOY, str(tmp_path)], cwd=root, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    invalid = [200, "toy", [["ReduceMax", False]], ["ReduceMax.axes.range"]]
    assert seen["route"] == {"?format=toy": invalid, "": invalid, "?format=tflite": [422, None, [], []]}
    assert seen["refusal"] == "Input should be 'onednn', 'openvino', 'onnx' or 'toy' (given: 'tflite')"
    assert seen["media_types"] == [
        "application/json", "application/xml", "text/xml", "application/octet-stream", "text/plain",
        "multipart/form-data",
    ]  # fmt: skip
    assert seen["formats"] == ["onednn", "openvino", "onnx", "toy"]
    assert seen["cli"] == [1, [[str(tmp_path / "net.toy"), "toy"]]]
    assert seen["check_graph"] == "toy"
