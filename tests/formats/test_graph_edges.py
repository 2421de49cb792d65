"""The graph between the nodes: every declaration of a value against the others, once, at the edge.
oneDNN's finalize refuses a graph whose logical tensor is declared two ways (seen with the oneDNN
oracle: shape, rank, dtype, layout_type, strides, property_type, an unknown dim against a known one),
so opspec says so at the consumer's declaration, naming both, and checks the consumer against what its
producer infers: the op that only read the value is not blamed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from app.core.config import Settings
from app.formats import graphs

BENCHDNN = Path(__file__).parent / "files" / "benchdnn"
RELU_FUSION = json.loads((BENCHDNN / "pattern/f32/binary_2d_post_ops_relu_fusion.json").read_text())


def check(document: dict) -> graphs.GraphResult:
    return graphs.check(json.dumps(document, indent=2).encode(), Settings())


@pytest.mark.parametrize(
    ("field", "value", "rule", "said"),
    [
        ("shape", [19, 13], "graph.edge.shape", "declared f32 [19, 13] by graph[1] (ELTWISE_1) (input 0), but f32 [16, 13]"),
        ("shape", [-1, 13], "graph.edge.shape", "declared f32 [?, 13] by graph[1] (ELTWISE_1) (input 0), but f32 [16, 13]"),
        ("dtype", "bf16", "graph.edge.dtype", "declared bf16 by graph[1] (ELTWISE_1) (input 0), but f32"),
        ("stride", [1, 16], "graph.edge.layout", "declared strided with strides [1, 16] by graph[1] (ELTWISE_1) (input 0), but strided with strides [13, 1]"),
        ("property_type", "constant", "graph.edge.property", "declared property_type constant by graph[1] (ELTWISE_1) (input 0), but property_type undef"),
    ],
)  # fmt: skip
def test_a_consumer_that_declares_a_value_otherwise_is_one_error_at_the_edge(
    field, value, rule, said
) -> None:
    document = copy.deepcopy(RELU_FUSION)
    document["graph"][1]["inputs"][0][field] = value
    result = check(document)
    assert not result.valid
    [finding] = [d for d in result.diagnostics if d.severity == "error"]
    assert (finding.rule, finding.path) == (rule, "graph[1].inputs[0]")
    assert f"value '161' is {said} by graph[0] (BINARY_0), which produces it" in finding.message
    [related] = finding.related or []
    assert related.path == "graph[0].outputs[0]"
    # the ReLU is checked against what Minimum infers: not blamed for the edge
    assert all(node.valid and not node.diagnostics for node in result.nodes)
    [value] = [v for v in result.values() if v["name"] == "161"]
    assert value["diagnostics"] == [finding]


def test_benchdnns_own_graph_that_declares_a_tensor_two_ways() -> None:
    """int8_maxpool_add_mul_fusion.json declares tensor 4257 [1, 64, 300, 300] where Add makes it and
    [1, 64, 1, 1] where Multiply reads it: oneDNN's finalize refuses the file."""
    data = (BENCHDNN / "pattern/int8/int8_maxpool_add_mul_fusion.json").read_bytes()
    result = graphs.check(data, Settings())
    [finding] = result.diagnostics
    assert (finding.rule, finding.path) == ("graph.edge.shape", "graph[4].inputs[1]")
    assert result.position(finding.path) == (333, 9)
    assert [(r.path, result.position(r.path)) for r in finding.related or []] == [
        ("graph[3].outputs[0]", (284, 9))
    ]


def test_the_text_report_and_sarif_show_both_places(tmp_path: Path) -> None:
    from app.report import sarif, text
    from app.report.model import RunReport

    path = tmp_path / "g.json"
    path.write_bytes((BENCHDNN / "pattern/int8/int8_maxpool_add_mul_fusion.json").read_bytes())
    report = RunReport([graphs.to_report(str(path), graphs.check_file(path, Settings()))])
    [result] = sarif.document(report)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 333, "startColumn": 9}
    [related] = result["relatedLocations"]
    assert related["physicalLocation"]["region"] == {"startLine": 284, "startColumn": 9}
    assert related["message"]["text"] == "graph[3] (BINARY_2) declares f32 [1, 64, 300, 300]"
    import io

    out = io.StringIO()
    text.write(report, out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(
        f"{path}:333:9: error graph.edge.shape: value '4257' is declared f32 [1, 64, 1, 1]"
    )
    assert lines[1] == f"{path}:284:9: note: graph[3] (BINARY_2) declares f32 [1, 64, 300, 300]"
