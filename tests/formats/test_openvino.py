"""OpenVINO IR written by the openvino package's own serializer (ov.save_model), read back and checked.

OpenVINO validates a model as it is built, so the mistakes below are made the way they reach a file in
practice: a hand edit of the XML, or weights that no longer match it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from app.core.config import Settings
from app.core.payload import LimitExceeded
from app.formats import graphs
from app.formats.errors import Malformed

ov = pytest.importorskip("openvino")
from openvino import opset1, opset16  # noqa: E402


@pytest.fixture(scope="module")
def ir(tmp_path_factory) -> tuple[bytes, bytes]:
    """x[1..10, 4] -> SegmentMax-16 (ids [0,0,1,1,2]) -> ReLU -> ReduceMax-1 (axes [1], keep_dims) ->
    Result; and y[?, 4] -> ReduceMax-1 (axes [0]) -> Result."""
    x = opset16.parameter(ov.PartialShape([ov.Dimension(1, 10), 4]), np.float32, name="x")
    ids = opset16.constant(np.array([0, 0, 1, 1, 2], dtype=np.int64), name="segment_ids")
    segments = opset16.segment_max(x, ids, fill_mode="ZERO", name="segments")
    relu = opset16.relu(segments, name="relu")
    axes = opset16.constant(np.array([1], dtype=np.int64), name="axes")
    reduced = opset1.reduce_max(relu, axes, keep_dims=True, name="reduce")
    y = opset16.parameter(ov.PartialShape([-1, 4]), np.float32, name="y")
    rows = opset1.reduce_max(y, opset16.constant(np.int64(1), name="axis"), keep_dims=False, name="rows")
    path = tmp_path_factory.mktemp("ir") / "net.xml"
    ov.save_model(ov.Model([reduced, rows], [x, y], "g"), path, compress_to_fp16=False)
    return path.read_bytes(), path.with_suffix(".bin").read_bytes()


def check(xml: bytes, weights: bytes | None, **limits):
    return graphs.check(xml, Settings(**limits), None, weights)


def by_name(result):
    return {n.name: n for n in result.nodes}


def const_offset(xml: bytes, name: str) -> int:
    layer = next(e for e in ET.fromstring(xml).iter("layer") if e.get("name") == name)
    return int(layer.find("data").get("offset"))


def patch(weights: bytes, offset: int, values) -> bytes:
    raw = np.asarray(values, dtype="<i8").tobytes()
    return weights[:offset] + raw + weights[offset + len(raw) :]


def test_valid_ir_is_checked_along_the_graph(ir) -> None:
    xml, weights = ir
    result = check(xml, weights)
    assert result.format == "openvino" and result.valid
    nodes = by_name(result)
    assert nodes["segments"].checked_as == "SegmentMax"
    assert [(o.dtype, o.shape) for o in nodes["segments"].outputs] == [("f32", [3, 4])]
    assert [(o.dtype, o.shape) for o in nodes["reduce"].outputs] == [("f32", [3, 1])]
    assert [(o.dtype, o.shape) for o in nodes["rows"].outputs] == [
        ("f32", ["dyn__1"])
    ]  # unknown dim flows, named
    assert result.not_checked == {}  # Parameter, Const and Result are structure, not ops
    assert nodes["relu"].checked_as == "ReLU"  # OpenVINO's Relu is oneDNN's ReLU
    assert [(d.rule, d.path, d.message) for d in nodes["segments"].diagnostics] == [
        ("graph.unknown_dim", "layer[5].input.port[0]",
         "Parameter x: dim 0 is 1..10 in the file; opspec takes such a dim as unknown"),
    ]  # fmt: skip
    assert [d.message for d in nodes["rows"].diagnostics] == [
        "ReduceMax-1's constant axes input (port 1) [1] is checked as the axes attribute"
    ]
    assert (nodes["segments"].line, nodes["segments"].column) == (51, 3)


def test_without_weights_values_are_unknown_but_shapes_still_flow(ir) -> None:
    xml, _ = ir
    result = check(xml, None)
    nodes = by_name(result)
    assert [o.shape for o in nodes["segments"].outputs] == [[-1, 4]]  # ids unknown: segment count unknown
    assert nodes["reduce"].checked_as == "ReduceMax"
    assert "values unknown" in nodes["reduce"].diagnostics[0].message


def test_declared_output_that_disagrees(ir) -> None:
    xml, weights = ir
    text = xml.decode()
    port = text.index('<port id="2" precision="FP32">', text.index('name="segments"'))
    edited = text[:port] + text[port:].replace("<dim>3</dim>", "<dim>5</dim>", 1)
    result = check(edited.encode(), weights)
    # one fault, one finding: OpenVINO's inference says the same of the port, and is not repeated
    (d,) = [d for d in by_name(result)["segments"].diagnostics if d.severity != "info"]
    assert (d.rule, d.path) == ("SegmentMax.outputs.dim", "layer[5].output.port[2].dim[0]")
    assert result.position(d.path)[0] == text[:port].count("\n") + 2


def test_unsorted_segment_ids_in_the_weights(ir) -> None:
    xml, weights = ir
    result = check(xml, patch(weights, const_offset(xml, "segment_ids"), [0, 2, 1, 1, 2]))
    (d,) = [d for d in by_name(result)["segments"].diagnostics if d.severity == "error"]
    assert (d.rule, d.path) == ("SegmentMax.segment_ids.sorted", "layer[5].input.port[1].data[2]")


def test_stale_empty_segment_value_warns(ir) -> None:
    xml, weights = ir
    result = check(xml.replace(b'fill_mode="zero"', b'empty_segment_value="zero"'), weights)
    assert result.valid
    (d,) = [d for d in by_name(result)["segments"].diagnostics if d.severity == "warning"]
    assert (d.rule, d.path) == ("SegmentMax.fill_mode.stale_name", "layer[5].data.empty_segment_value")


def test_reduce_axis_out_of_range_in_the_weights(ir) -> None:
    xml, weights = ir
    result = check(xml, patch(weights, const_offset(xml, "axes"), [2]))
    (d,) = [d for d in by_name(result)["reduce"].diagnostics if d.severity == "error"]
    assert (d.rule, d.path) == ("ReduceMax.axes.range", "layer[8].input.port[1].data[0]")


def test_weights_too_short_are_a_graph_finding(ir) -> None:
    xml, weights = ir
    result = check(xml, weights[:8])
    # the 8-byte axis constant still fits; the 40-byte segment ids do not (OpenVINO refuses the IR for it too,
    # which is not said again)
    (d,) = [d for d in result.diagnostics if d.severity == "error"]
    assert (d.rule, d.path) == ("graph.constant", "layer[4].data.offset")
    assert d.message == "the Const's 40 bytes at offset 8 lie outside the 8-byte weights"


@pytest.mark.parametrize(
    ("xml", "message", "where"),
    [
        (b'<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY a "aaaa">]>\n<net version="11"/>',
         "DTDs (<!DOCTYPE>) are refused: an IR file has none, and they can expand without bound", (2, 15)),
        (b'<net version="11"><layers>\n<layer id="0" type="Parameter"></net>', "not XML: mismatched tag", (2, 34)),
        (b'<net version="9"><layers/></net>', "IR version '9' is not one this reader knows (10, 11)", (1, 1)),
        (b'<model/>', "an IR file's root element is <net>, not <model>", (1, 1)),
    ],
)  # fmt: skip
def test_malformed_says_where(xml: bytes, message: str, where) -> None:
    with pytest.raises(Malformed) as caught:
        graphs.check(xml, Settings(), "openvino")
    assert caught.value.message == message
    assert (caught.value.line, caught.value.column) == where


def test_limits(ir) -> None:
    xml, weights = ir
    with pytest.raises(LimitExceeded) as caught:
        check(xml, weights, max_graph_nodes=3)
    assert caught.value.limit == "max_graph_nodes"
    with pytest.raises(LimitExceeded) as caught:
        check(b'<net version="11">' + b"<a>" * 80 + b"</a>" * 80 + b"</net>", None)
    assert caught.value.limit == "max_graph_depth"


def test_ir_v10_reads_the_same(ir) -> None:
    xml, weights = ir
    v10 = check(xml.replace(b'<net name="g" version="11">', b'<net name="g" version="10">'), weights)
    assert [(n.checked_as, n.outputs) for n in v10.nodes] == [
        (n.checked_as, n.outputs) for n in check(xml, weights).nodes
    ]


def test_an_ir_without_its_weights_says_so() -> None:
    x = opset16.parameter([2, 4], np.float32, name="x")
    axes = opset16.constant(np.array([1], dtype=np.int64), name="axes")
    model = ov.Model([opset1.reduce_max(x, axes, keep_dims=False, name="r")], [x], "g")
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        ov.save_model(model, f"{folder}/net.xml")
        xml = Path(folder, "net.xml").read_bytes()
    result = check(xml, None)
    [warning] = [d for d in result.diagnostics if d.rule == "graph.weights"]
    assert warning.severity == "warning" and warning.path == "net"
    assert "values of its 1 Const layers are unknown" in warning.message
    assert result.position("net") == (2, 1)
    assert result.valid  # a warning: the shapes that need the weights are unknown, nothing is wrong
    # with the weights: no warning
    assert not [d for d in check(xml, b"\x01" + b"\x00" * 7).diagnostics if d.rule == "graph.weights"]


def test_openvino_types_the_layers_opspec_does_not_check(tmp_path) -> None:
    x = opset16.parameter([1, 3, 8, 8], np.float32, name="x")
    w = opset16.constant(np.ones((4, 3, 3, 3), np.float32), name="w")
    # Tile has no oneDNN twin in the translation table: OpenVINO types it (named "conv" as before)
    conv = opset1.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv0")
    tile = opset16.tile(conv, opset16.constant(np.array([1, 1, 1, 1], np.int64)), name="conv")
    relu = opset16.relu(tile, name="relu")
    ov.save_model(ov.Model([relu], [x], "g"), tmp_path / "net.xml", compress_to_fp16=False)
    xml, weights = (tmp_path / "net.xml").read_bytes(), (tmp_path / "net.bin").read_bytes()
    result = check(xml, weights)
    nodes = by_name(result)
    assert (nodes["conv"].checked_by, nodes["conv"].typed_by) == ("openvino", "openvino")
    assert [(o.dtype, o.shape) for o in nodes["conv"].outputs] == [("f32", [1, 4, 8, 8])]
    assert nodes["relu"].checked_by == "opspec"
    assert nodes["conv0"].checked_by == "opspec"  # Convolution is a oneDNN op
    assert result.coverage.by_engine == {"openvino": 1} and result.coverage.not_checked == {}


# --- the graph between the layers: edges, ports and the weights -------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[str, bytes]:
    """x[2, 4] + c (a Const of 8 f32 values, 32 bytes at offset 0) -> ReLU -> Result, as OpenVINO writes it:
    layers 0 x, 1 c, 2 add, 3 relu, 4 the Result; edges 0..3 in that order."""
    x = opset16.parameter([2, 4], np.float32, name="x")
    c = opset16.constant(np.arange(8, dtype=np.float32).reshape(2, 4), name="c")
    relu = opset16.relu(opset16.add(x, c, name="add"), name="relu")
    path = tmp_path_factory.mktemp("small") / "net.xml"
    ov.save_model(ov.Model([relu], [x], "g"), path, compress_to_fp16=False)
    return path.read_text(), path.with_suffix(".bin").read_bytes()


RELU_EDGE = '<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />'


def _dim(xml: str, layer: str, new: str) -> str:
    """The XML with the first <dim>4</dim> after layer `layer` written as `new`."""
    at = xml.index("<dim>4</dim>", xml.index(f'name="{layer}"'))
    return xml[:at] + f"<dim>{new}</dim>" + xml[at + len("<dim>4</dim>") :]


@pytest.mark.parametrize(
    ("change", "rule", "path", "message", "related"),
    [
        (lambda x: x.replace(RELU_EDGE, RELU_EDGE.replace('to-port="0"', 'to-port="5"')), "graph.edge", "edges[2]",
         "edge 2 goes to layer 3 port 5, but layer 3 has no input port 5", []),
        (lambda x: x.replace(RELU_EDGE, RELU_EDGE.replace('from-port="2"', 'from-port="7"')), "graph.edge", "edges[2]",
         "edge 2 comes from layer 2 port 7, but layer 2 has no output port 7", []),
        (lambda x: x.replace(RELU_EDGE, RELU_EDGE.replace('from-layer="2"', 'from-layer="9"')), "graph.edge",
         "edges[2]", "edge 2 comes from layer 9 port 2, but there is no layer 9", []),
        (lambda x: x.replace(RELU_EDGE, ""), "graph.edge", "layer[3].input.port[0]",
         "input port 0 of layer 3 (relu) has no <edge>; an input port has one edge", []),
        (lambda x: x.replace(RELU_EDGE, RELU_EDGE + RELU_EDGE.replace('from-layer="2" from-port="2"',
                                                                      'from-layer="0" from-port="0"')),
         "graph.edge", "edges[3]", "edge 3 goes to layer 3 port 0, which edge 2 feeds already; an input port has one "
         "edge", [("edges[2]", "edge 2 feeds it")]),
        (lambda x: _dim(x, "relu", "5"), "graph.edge.shape", "layer[3].input.port[0]",
         "value '2:2' is declared f32 [2, 5] by layer[3] (relu) (input 0), but f32 [2, 4] by layer[2] (add), which "
         "produces it; every declaration of a value must agree", [("layer[2].output.port[2]", "layer[2] (add) declares "
                                                                  "f32 [2, 4]")]),
        (lambda x: _dim(x, "c", "5"), "graph.edge.shape", "layer[1].output.port[0]",
         "output port 0 declares [2, 5], but the layer's shape is [2, 4]", [("layer[1].data.shape", "shape [2, 4]")]),
        (lambda x: x.replace('offset="0" size="32"', 'offset="8" size="32"'), "graph.constant", "layer[1].data.offset",
         "the Const's 32 bytes at offset 8 lie outside the 32-byte weights", []),
        (lambda x: x.replace('size="32"', 'size="16"'), "graph.constant", "layer[1].data.size",
         "the Const's 16 bytes cannot hold 8 f32 values of shape [2, 4]: they need 32", []),
    ],
)  # fmt: skip
def test_each_fault_of_the_graph_is_one_finding_at_its_line(
    small, change, rule, path, message, related
) -> None:
    """OpenVINO refuses every IR here but the two whose port dims it ignores (it infers them again: an
    IR's port dims and precisions are a declaration only); its refusal is not said again."""
    xml, weights = small
    result = check(change(xml).encode(), weights)
    [finding] = [
        *result.diagnostics,
        *(d for n in result.nodes for d in n.diagnostics if d.severity != "info"),
    ]
    assert (finding.rule, finding.path, finding.message) == (rule, path, message)
    assert [(r.path, r.message) for r in finding.related or []] == related
    assert result.position(path) is not None
    assert all(result.position(r.path) != result.position(path) for r in finding.related or [])


def test_a_const_may_hold_more_bytes_than_it_needs(small) -> None:
    """OpenVINO reads the first 32 of a 40-byte Const; the last 8 are not its fault."""
    xml, weights = small
    result = check(xml.replace('size="32"', 'size="40"').encode(), weights + bytes(8))
    assert result.valid and result.diagnostics == []
