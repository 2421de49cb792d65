"""oneDNN Graph JSON in benchdnn's layout: benchdnn's own reducemax.json, and a graph of several ops."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.payload import LimitExceeded
from app.formats import graphs
from app.formats.errors import Malformed

FILES = Path(__file__).parent / "files"
# A copy of the structure of benchdnn's tests/benchdnn/inputs/graph/op/f32/reducemax.json, byte for byte.
REDUCEMAX = (FILES / "reducemax.json").read_bytes()
GRAPH = json.loads((FILES / "onednn_graph.json").read_text())


def dump(document) -> bytes:
    return (json.dumps(document, indent=2) + "\n").encode()  # benchdnn's layout


def check(data: bytes, **limits):
    return graphs.check(data, Settings(**limits))


def test_benchdnn_reducemax_is_valid_and_inferred() -> None:
    result = check(REDUCEMAX)
    assert result.format == "onednn" and result.valid
    (node,) = result.nodes
    assert (node.id, node.name, node.kind, node.checked_as) == ("0", "REDUCTION_0", "ReduceMax", "ReduceMax")
    assert [(t.dtype, t.shape) for t in node.inputs] == [("f32", [1, 128, 150, 150])]
    assert [(t.dtype, t.shape) for t in node.outputs] == [("f32", [1, 1, 150, 150])]
    assert node.diagnostics == [] and result.not_checked == {}
    assert (node.line, node.column) == (6, 5)


def test_axis_out_of_range_points_at_the_value_with_its_line() -> None:
    data = REDUCEMAX.replace(b'"value": [\n            1\n', b'"value": [\n            4\n')
    result = check(data)
    (d,) = result.nodes[0].diagnostics
    assert (d.rule, d.path) == ("ReduceMax.axes.range", "graph[0].attrs.axes.value[0]")
    assert d.message == "axis 4 is out of range [-4, 3] for src of rank 4"
    assert result.position(d.path) == (14, 13)
    assert not result.valid


def test_graph_of_several_ops_propagates_unknown_dims() -> None:
    result = check(dump(GRAPH))
    assert result.valid, [d for n in result.nodes for d in n.diagnostics]
    shapes = {n.name: (n.checked_as, [o.shape for o in n.outputs]) for n in result.nodes}
    # The graph input's unknown dim is one size at run time: a fresh engine-made name, which flows.
    assert shapes == {
        "relu": ("ReLU", [["dyn__0", 16, 32]]),
        "reduce_last": ("ReduceMax", [["dyn__0", 16, 1]]),
        "reduce_squeeze": ("ReduceMax", [["dyn__0", 16]]),  # declared INT64_MIN: unknown, no conflict
        "add_bias": ("Add", [["dyn__0", 16]]),
        "reduce_all": ("ReduceMax", [[]]),
    }
    assert result.not_checked == {}
    assert [n.line for n in result.nodes] == [6, 48, 101, 152, 207]


def test_declared_output_that_disagrees_is_an_error_on_that_node() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][1]["outputs"][0]["shape"] = [-1, 16, 32]  # keep_dims gives [?, 16, 1]
    result = check(dump(graph))
    bad = [n for n in result.nodes if not n.valid]
    assert [n.name for n in bad] == ["reduce_last"]
    (d,) = bad[0].diagnostics
    assert (d.rule, d.path) == ("ReduceMax.outputs.dim", "graph[1].outputs[0].shape[2]")
    assert d.message == "dst has 1 in dim 2 (shape [dyn__0, 16, 1]), but 32 is declared"
    assert result.position(d.path) == (89, 13)


def test_unknown_attribute_and_bool_written_as_2() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][1]["attrs"]["keep_dims"]["value"] = 2
    graph["graph"][2]["attrs"]["auto_broadcast"] = {"type": "string", "value": "numpy"}
    result = check(dump(graph))
    found = {(d.rule, d.path) for n in result.nodes for d in n.diagnostics}
    assert ("graph.descriptor", "graph[1].attrs.keep_dims.value") in found
    assert ("ReduceMax.attrs.unknown", "graph[2].attrs.auto_broadcast.value") in found


def test_repeated_axis_after_wrapping() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][1]["attrs"]["axes"]["value"] = [2, -1]
    (d,) = check(dump(graph)).nodes[1].diagnostics
    assert (d.rule, d.path) == ("ReduceMax.axes.unique", "graph[1].attrs.axes.value[1]")


def test_cycle_is_named() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][1]["inputs"][0]["id"] = 5  # reduce_last now reads add_bias's output, three ops down
    result = check(dump(graph))
    # the rewired input also declares tensor 5 otherwise than its producer does: that edge is said too
    d, edge = result.diagnostics
    assert (edge.rule, edge.path) == ("graph.edge.shape", "graph[1].inputs[0]")
    assert d.rule == "graph.cycle"
    assert d.message == (
        "the graph has a cycle: graph[1] (reduce_last) -> graph[3] (add_bias) -> graph[2] (reduce_squeeze) -> "
        "graph[1] (reduce_last); a graph must be acyclic"
    )
    assert not result.valid


def test_negative_dim_is_reported_where_it_is() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][0]["inputs"][0]["shape"] = [-5, 16, 32]
    result = check(dump(graph))
    (d,) = result.diagnostics
    assert (d.rule, d.path) == ("graph.dim", "graph[0].inputs[0].shape[0]")


def test_unknown_dtype_is_reported_by_the_checked_node() -> None:
    graph = copy.deepcopy(GRAPH)
    graph["graph"][0]["inputs"][0]["dtype"] = "f4_e2m1"  # a oneDNN type opspec does not know
    (d,) = check(dump(graph)).nodes[0].diagnostics
    assert (d.rule, d.path) == ("graph.descriptor", "graph[0].inputs[0].dtype")


@pytest.mark.parametrize(
    ("data", "message", "where"),
    [
        (b'{"graph": [\n  {"id": 0,,}]}', "not JSON: Expecting property name enclosed in double quotes", (2, 12)),
        (b'{"graph": {}}', "`graph` must be a list of ops", (1, 11)),
        (b'{"graph": [{"id": "0", "kind": "ReLU"}]}', "op `id` must be an integer; got '0'", (1, 19)),
        (b'{"graph": [{"id": 0, "kind": "ReLU", "inputs": [{"id": 1, "shape": [2.5]}]}]}',
         "tensor `shape` must be a list of integers; got [2.5]", (1, 68)),
        (b'\xff{"graph": []}', "not UTF-8 text: byte 0xff at offset 0", (1, 1)),
        # columns count characters, as every position in a report does: "\u00e9" is one, in two bytes
        ('{"graph": [],\n "n\u00e9": "\xff"}'.encode("utf-8").replace(b"\xc3\xbf", b"\xff"),
         "not UTF-8 text: byte 0xff at offset 23", (2, 9)),
    ],
)  # fmt: skip
def test_malformed_says_where(data: bytes, message: str, where: tuple[int, int]) -> None:
    with pytest.raises(Malformed) as caught:
        graphs.check(data, Settings(), "onednn")
    assert caught.value.message == message
    assert (caught.value.line, caught.value.column) == where


def test_limits_are_named() -> None:
    with pytest.raises(LimitExceeded) as caught:
        check(dump(GRAPH), max_graph_nodes=3)
    assert caught.value.limit == "max_graph_nodes"
    with pytest.raises(LimitExceeded) as caught:
        check(b'{"graph": [], "x": ' + b"[" * 100 + b"]" * 100 + b"}")
    assert caught.value.limit == "max_graph_depth"
    with pytest.raises(LimitExceeded) as caught:
        check(REDUCEMAX, max_graph_bytes=100)
    assert caught.value.limit == "max_graph_bytes"


def test_graph_dump_keys_are_read_past() -> None:
    """ONEDNN_GRAPH_DUMP writes input_ports and output_ports beside graph."""
    dumped = {**GRAPH, "input_ports": [0, 4], "output_ports": [6]}
    assert check(dump(dumped)).valid


def test_values_too_long_to_quote_are_cut() -> None:
    with pytest.raises(Malformed) as caught:
        graphs.check(b'{"graph": [{"id": ' + b"9" * 5000 + b', "kind": "ReLU"}]}', Settings(), "onednn")
    assert caught.value.message.startswith("the JSON cannot be read: Exceeds the limit")
    with pytest.raises(Malformed) as caught:
        graphs.check(b'{"graph": [{"id": "' + b"x" * 5000 + b'", "kind": "ReLU"}]}', Settings(), "onednn")
    assert caught.value.message == "op `id` must be an integer; got '" + "x" * 56 + "..."
