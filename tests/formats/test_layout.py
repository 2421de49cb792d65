"""The page's extras of POST /v1/graphs/validate: `?layout=true` (a layered drawing) and
`?descriptors=true` (each checked node's descriptor), and the text report's links built from them."""

from __future__ import annotations

import base64
import itertools
import json

from app.cli import main
from app.formats.layout import layout
from tests.web.graphs import onednn_text

URL = "/v1/graphs/validate"


def post(client, text: str, query: str = ""):
    response = client.post(URL + query, content=text, headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_extras_only_when_asked(client):
    plain = post(client, onednn_text(7))
    assert "layout" not in plain
    assert all("descriptor" not in node for node in plain["nodes"])


def test_every_edge_points_down_and_no_boxes_overlap(client):
    answer = post(client, onednn_text(40, error_at=19), "?layout=true&descriptors=true")
    boxes = {box["id"]: box for box in answer["layout"]["nodes"]}
    assert [box["id"] for box in answer["layout"]["nodes"]] == [node["id"] for node in answer["nodes"]]
    for value in answer["values"]:
        if value["producer"] is None:
            continue
        for consumer in value["consumers"]:
            assert boxes[consumer]["layer"] > boxes[value["producer"]]["layer"]
            assert boxes[consumer]["y"] > boxes[value["producer"]]["y"]
    by_layer: dict[int, list[dict]] = {}
    for box in boxes.values():
        by_layer.setdefault(box["layer"], []).append(box)
    for row in by_layer.values():
        row.sort(key=lambda b: b["x"])
        for left, right in itertools.pairwise(row):
            assert left["x"] + left["width"] <= right["x"]
    assert answer["layout"]["width"] >= max(b["x"] + b["width"] for b in boxes.values())


def test_each_descriptor_gets_the_nodes_verdict_from_validate(client):
    answer = post(client, onednn_text(40, error_at=19), "?descriptors=true")
    for node in answer["nodes"]:
        verdict = client.post("/v1/validate", json=node["descriptor"]).json()
        assert verdict["valid"] == node["valid"], node["name"]
        assert [d["rule"] for d in verdict["diagnostics"]] == [d["rule"] for d in node["diagnostics"]]


def test_a_cycle_and_a_lone_node_still_lay_out():
    nodes = [{"id": str(i), "kind": "ReLU", "name": f"n{i}"} for i in range(4)]
    values = [
        {"producer": "0", "consumers": ["1"]},
        {"producer": "1", "consumers": ["2"]},
        {"producer": "2", "consumers": ["1"]},  # 1 -> 2 -> 1
    ]
    drawn = layout(nodes, values)
    assert [box.id for box in drawn.nodes] == ["0", "1", "2", "3"]
    assert drawn.nodes[1].layer > drawn.nodes[0].layer
    assert layout([], []).nodes == []


def test_link_base_adds_a_page_link_under_each_finding(tmp_path, capsys):
    path = tmp_path / "forty.json"
    path.write_text(onednn_text(40, error_at=19))
    assert main(["check", "--link-base", "http://opspec.example/", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    links = [line.strip() for line in lines if line.startswith("    http://opspec.example/#d=")]
    assert len(links) == 1
    encoded = links[0].split("#d=", 1)[1]
    descriptor = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    assert descriptor["kind"] == "ReduceMax" and descriptor["attrs"]["axes"] == [5]
    # Without it, the report is as before.
    assert main(["check", str(path)]) == 1
    assert "#d=" not in capsys.readouterr().out


def test_a_node_an_engine_typed_has_room_for_its_tag_beside_the_kind() -> None:
    """The page draws the engine's tag (ONNX, OpenVINO) at the top right, on the kind's line."""
    from app.formats.layout import _width

    assert _width("Gather", "gather") == 112  # the least a box is
    assert _width("Gather", "gather", "ONNX") == 56 + 7.2 * len("Gather ONNX")
    assert _width("GlobalAveragePool", "p", "OpenVINO") == 56 + 7.2 * len("GlobalAveragePool OpenVINO")
