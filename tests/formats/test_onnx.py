"""ONNX models built with onnx.helper, as users build them, checked node by node."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from app.core.config import Settings
from app.core.payload import LimitExceeded
from app.formats import graphs
from app.formats.errors import Malformed


def model(nodes, inputs, outputs, initializers=(), opset=18, infer=True) -> bytes:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if infer:
        proto = onnx.shape_inference.infer_shapes(proto)  # what users run to get value_info
    return proto.SerializeToString()


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def check(data: bytes, **limits):
    return graphs.check(data, Settings(**limits))


def notes(result, name):
    node = next(n for n in result.nodes if n.name == name)
    return [(d.severity, d.rule, d.path, d.message) for d in node.diagnostics]


def pipeline(declared_y=("N", 3, 5)) -> bytes:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("ReduceMax", ["r", "axes"], ["m"], name="reduce", keepdims=1),
        helper.make_node("Max", ["m", "b"], ["y"], name="max"),
        helper.make_node("ArgMax", ["x"], ["am"], name="argmax", axis=1),
        helper.make_node("Softmax", ["y"], ["s"], name="softmax"),
    ]
    return model(
        nodes,
        [vi("x", ["N", 3, 4]), vi("b", [1, 5])],
        [vi("y", list(declared_y)), vi("am", None, TensorProto.INT64), vi("s", ["N", 3, 5])],
        [ints("axes", [2])],
    )


def test_valid_model_symbol_flows_and_coverage_is_counted() -> None:
    result = check(pipeline())
    assert result.format == "onnx" and result.valid
    by_name = {n.name: n for n in result.nodes}
    assert by_name["reduce"].checked_as == "ReduceMax"
    assert [(o.dtype, o.shape) for o in by_name["reduce"].outputs] == [("f32", ["N", 3, 1])]
    assert by_name["max"].checked_as == "Max"
    assert [(o.dtype, o.shape) for o in by_name["max"].outputs] == [("f32", ["N", 3, 5])]
    assert by_name["argmax"].checked_as is None  # ONNX ArgMax is not MLI's Argmax
    # ... but ONNX's own inference checks and types it, as it does every node opspec does not check
    assert (by_name["argmax"].checked_by, by_name["argmax"].typed_by) == ("onnx", "onnx")
    assert [(o.dtype, o.shape) for o in by_name["argmax"].outputs] == [("s64", ["N", 1, 4])]
    assert result.not_checked == {}
    assert result.coverage.as_dict() == {
        "nodes": 5, "checked": 4, "by_engine": {"onnx": 1}, "not_checked": 0, "not_checked_kinds": {}
    }  # fmt: skip
    assert notes(result, "reduce") == [
        ("info", "graph.translated", "node[reduce]",
         "ONNX ReduceMax (opset 18, keepdims=1, noop_with_empty_axes=0) with the constant axes input [2] is "
         "checked as ReduceMax with axes=[2], keep_dims=True"),
    ]  # fmt: skip


def test_declared_output_that_disagrees() -> None:
    result = check(pipeline(declared_y=("N", 1, 5)))
    assert not result.valid
    # one wrong declaration, one finding: ONNX's inference says the same of it, and is not repeated
    assert notes(result, "max") == [
        ("error", "Max.outputs.dim", "node[max].output[0].shape[1]",
         "Y has 3 in dim 1 (shape [N, 3, 5]), but 1 is declared"),
    ]  # fmt: skip


def reduce_model(opset, shape=(2, 3, 4), elem=TensorProto.FLOAT, axes=None, axes_input=None, **attrs):
    inputs, inits = ["x"], []
    if axes_input is not None:
        inputs.append("axes")
        inits.append(ints("axes", axes_input))
    if axes is not None:
        attrs["axes"] = axes
    node = helper.make_node("ReduceMax", inputs, ["y"], name="r", **attrs)
    return model([node], [vi("x", None if shape is None else list(shape), elem)], [vi("y", None, elem)], inits,
                 opset=opset, infer=False)  # fmt: skip


@pytest.mark.parametrize(
    ("data", "shape", "message"),
    [
        (reduce_model(13, axes=[-1]), [2, 3, 1],
         "ONNX ReduceMax (opset 13, keepdims=1) with the axes attribute [-1] is checked as ReduceMax with "
         "axes=[-1], keep_dims=True"),
        (reduce_model(18), [1, 1, 1],
         "ONNX ReduceMax (opset 18, keepdims=1, noop_with_empty_axes=0) with no axes: every axis, axes=[0, 1, 2] "
         "is checked as ReduceMax with axes=[0, 1, 2], keep_dims=True"),
        (reduce_model(18, keepdims=0, axes_input=[]), [],
         "ONNX ReduceMax (opset 18, keepdims=0, noop_with_empty_axes=0) with an empty constant axes input: every "
         "axis, axes=[0, 1, 2] is checked as ReduceMax with axes=[0, 1, 2], keep_dims=False"),
        (reduce_model(18, noop_with_empty_axes=1), [2, 3, 4],
         "ONNX ReduceMax (opset 18, keepdims=1, noop_with_empty_axes=1) with no axes and noop_with_empty_axes=1: "
         "the identity, axes=[] is checked as ReduceMax with axes=[], keep_dims=True"),
    ],
)  # fmt: skip
def test_reduce_max_translations(data: bytes, shape, message: str) -> None:
    result = check(data)
    (node,) = result.nodes
    assert node.checked_as == "ReduceMax" and node.valid
    assert node.outputs[0].shape == shape
    assert [(d.rule, d.message) for d in node.diagnostics] == [("graph.translated", message)]


def test_no_exact_translation_is_said() -> None:
    result = check(reduce_model(18, shape=None))
    (node,) = result.nodes
    assert node.checked_as is None and result.not_checked == {}
    assert (node.checked_by, node.typed_by) == ("onnx", "onnx")  # ONNX's own inference types it
    assert [(d.severity, d.rule) for d in node.diagnostics] == [("info", "graph.untranslatable")]
    assert "the input's rank is unknown" in node.diagnostics[0].message
    result = check(reduce_model(18, elem=TensorProto.INT32, axes_input=[0]))
    assert "defined for src bf16, f16, f32 only" in result.nodes[0].diagnostics[0].message


def test_reduce_max_axis_out_of_range_points_at_the_attribute_or_input() -> None:
    found = check(reduce_model(13, axes=[0, 3])).nodes[0].diagnostics
    (d,) = [d for d in found if d.severity == "error"]
    assert (d.rule, d.path) == ("ReduceMax.axes.range", "node[r].attribute.axes[1]")
    assert d.message == "axis 3 is out of range [-3, 2] for src of rank 3"
    # ONNX says so too, and one fault stays one error: its refusal is a note beside opspec's finding
    (theirs,) = [d for d in found if d.rule == "onnx.shape_inference"]
    assert (theirs.severity, theirs.path) == ("info", "node[r]")
    assert theirs.message.startswith("ONNX's shape inference refuses this node too: [ShapeInferenceError]")
    (d,) = [
        d
        for d in check(reduce_model(18, axes_input=[1, -2])).nodes[0].diagnostics
        if d.severity == "error" and d.rule != "onnx.shape_inference"
    ]
    assert (d.rule, d.path) == ("ReduceMax.axes.unique", "node[r].input[1][1]")


def test_max_broadcast_clash_and_mixed_dtypes() -> None:
    node = helper.make_node("Max", ["a", "b", "c"], ["y"], name="max")
    inputs = [vi("a", ["N", 3]), vi("b", [4]), vi("c", [1], TensorProto.DOUBLE)]
    result = check(model([node], inputs, [vi("y", None)], infer=False))
    found = [(d.rule, d.path) for d in result.nodes[0].diagnostics]
    assert found == [
        ("Max.C1", "node[max].input[2].dtype"),
        ("Max.RJ", "node[max].input[0].shape[1]"),
        ("onnx.shape_inference", "node[max]"),
    ]


def test_constant_node_gives_values() -> None:
    nodes = [
        helper.make_node("Constant", [], ["axes"], name="k", value=ints("v", [5])),
        helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="r"),
    ]
    result = check(model(nodes, [vi("x", [2, 3])], [vi("y", None)], infer=False))
    assert result.not_checked == {}
    (d,) = [d for d in result.nodes[1].diagnostics if d.severity == "error"]
    assert (d.rule, d.path) == ("ReduceMax.axes.range", "node[r].input[1][0]")
    assert [t.severity for t in result.nodes[1].diagnostics if t.rule == "onnx.shape_inference"] == ["info"]


def test_external_data_is_refused_without_touching_disk() -> None:
    tensor = ints("w", [1, 2])
    tensor.ClearField("raw_data")
    tensor.int64_data[:] = []
    tensor.data_location = TensorProto.EXTERNAL
    tensor.external_data.add(key="location", value="/etc/passwd")
    node = helper.make_node("Max", ["x", "w"], ["y"], name="m")
    data = model([node], [vi("x", [2])], [vi("y", [2])], [tensor], infer=False)
    with pytest.raises(Malformed) as caught:
        check(data)
    assert "external file '/etc/passwd'; external data is refused" in caught.value.message


def test_malformed_and_limits() -> None:
    with pytest.raises(Malformed, match="not an ONNX model"):
        graphs.check(b"\x08\x07\xff\xff\xff", Settings(), "onnx")
    with pytest.raises(LimitExceeded) as caught:
        check(pipeline(), max_graph_nodes=2)
    assert caught.value.limit == "max_graph_nodes"


# Models onnx 1.23's own inference crashed the process on (a segfault, found by
# tests/formats/test_graph_paths.py's changes): each checked in a child process, so that a crash fails
# the test instead of the run.
CRASHED = {
    "EyeLike reading a name nothing makes": (
        [helper.make_node("EyeLike", ["nowhere"], ["y"], k=1)], [vi("x", [4, 5], TensorProto.BOOL)], "", 22,
    ),
    "LabelEncoder leaving out its one input": (
        [helper.make_node("LabelEncoder", [""], ["y"], domain="ai.onnx.ml", keys_strings=["a"],
                          values_int64s=[0], default_int64=42)],
        [vi("x", [5], TensorProto.STRING)], "ai.onnx.ml", 4,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CRASHED))
def test_a_model_onnxs_inference_crashes_on_is_not_given_to_it(name: str, tmp_path) -> None:
    import subprocess
    import sys

    nodes, inputs, domain, version = CRASHED[name]
    graph = helper.make_graph(nodes, "g", inputs, [vi("y", None)])
    opsets = [helper.make_opsetid(domain, version)] + ([helper.make_opsetid("", 18)] if domain else [])
    path = tmp_path / "m.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=opsets).SerializeToString())
    code = (
        "import sys, json; from app.formats import graphs; from app.core.config import Settings; "
        "r = graphs.check(open(sys.argv[1], 'rb').read(), Settings()); "
        "print(json.dumps([(d.severity, d.rule, d.message) for d in r.diagnostics]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-500:]
    if domain:  # a left-out input its op requires: said, as no other rule names it
        assert "leaves out input 0, which its op requires" in done.stdout
    else:  # a name nothing makes: graph.edge says it, once
        assert '"graph.edge"' in done.stdout and "onnx.shape_inference" not in done.stdout


def test_an_attribute_of_another_type_than_onnx_gives_it_is_not_a_500() -> None:
    """AveragePool's kernel_shape as an INT (ONNX gives INTS), a Constant's value_float as a STRING:
    the pool is not checked as oneDNN's AvgPool (the note says why), the constant's value is unknown."""
    pool = helper.make_node("AveragePool", ["x"], ["p"], name="pool")
    pool.attribute.append(helper.make_attribute("kernel_shape", 3))
    constant = helper.make_node("Constant", [], ["c"], name="constant")
    constant.attribute.append(helper.make_attribute("value_float", b"NOTSET"))
    result = check(
        model([pool, constant], [vi("x", [1, 3, 8, 8])], [vi("p", None), vi("c", None)], infer=False)
    )
    [note] = [
        d
        for d in next(n for n in result.nodes if n.name == "pool").diagnostics
        if d.rule == "graph.untranslatable"
    ]
    assert "kernel_shape attribute 3 is not of the type the op reads" in note.message
    assert next(n for n in result.nodes if n.name == "constant").outputs[0].dtype == "?"
