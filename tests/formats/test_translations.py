"""The translations table: ONNX and OpenVINO ops checked as the oneDNN op they are, rows that light up
as the registry grows, and the docs table kept equal to the data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from app.core.config import Settings
from app.formats import graphs, translations
from app.ops import BY_NAME

DOCS = Path(__file__).parents[2] / "docs" / "translations.md"


def onnx_check(nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return graphs.check(model.SerializeToString(), Settings())


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def scalar(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.array(value, dtype), name)


def by_name(result):
    return {n.name: n for n in result.nodes}


def test_onnx_relu_abs_and_clip_are_checked_as_onednn_ops() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Abs", ["r"], ["a"], name="abs"),
        helper.make_node("Clip", ["a", "lo", "hi"], ["c"], name="clip"),
        helper.make_node("Clip", ["a", "lo"], ["d"], name="clip_min_only"),
        helper.make_node("ReduceMax", ["c"], ["m"], name="reduce", axes=[1]),
        helper.make_node("Max", ["m", "d"], ["y"], name="max"),
    ]
    result = onnx_check(nodes, [vi("x", ["N", 4])], [vi("y", None)], [scalar("lo", 0.0), scalar("hi", 6.0)])
    assert result.valid
    nodes = by_name(result)
    assert {k: n.checked_as for k, n in nodes.items()} == {
        "relu": "ReLU", "abs": "Abs", "clip": "Clamp", "clip_min_only": None, "reduce": "ReduceMax", "max": "Max",
    }  # fmt: skip
    [note] = nodes["clip"].diagnostics
    assert (note.rule, note.message) == (
        "graph.translated",
        "ONNX (opset 13) Clip is checked as oneDNN Clamp with min=0.0, max=6.0 (values differ: a NaN gives min "
        "in oneDNN, NaN in ONNX)",
    )
    # Clip with one bound is not Clamp: ONNX's inference types it, and the note says why
    assert nodes["clip_min_only"].checked_by == "onnx"
    [why] = nodes["clip_min_only"].diagnostics
    assert why.rule == "graph.untranslatable" and "oneDNN's Clamp needs both bounds" in why.message
    assert [(o.dtype, o.shape) for o in nodes["max"].outputs] == [("f32", ["N", 4])]


def test_onnx_clip_before_opset_11_reads_its_attributes() -> None:
    node = helper.make_node("Clip", ["x"], ["y"], name="clip", min=-1.0, max=1.0)
    result = onnx_check([node], [vi("x", [2, 3])], [vi("y", [2, 4])], opset=6)
    [clip] = result.nodes
    assert clip.checked_as == "Clamp"
    assert "with min=-1.0, max=1.0" in clip.diagnostics[0].message
    # the declared output disagrees: opspec's Clamp rule says where, in the file's terms
    errors = [d for d in clip.diagnostics if d.severity == "error" and d.rule.startswith("Clamp")]
    assert [(d.rule, d.path) for d in errors] == [("Clamp.outputs.dim", "node[clip].output[0].shape[1]")]


def test_an_integer_clip_is_not_clamp() -> None:
    node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip")
    inits = [scalar("lo", 0, np.int32), scalar("hi", 6, np.int32)]
    result = onnx_check([node], [vi("x", [2], TensorProto.INT32)], [vi("y", None, TensorProto.INT32)], inits)
    [clip] = result.nodes
    assert clip.checked_as is None and clip.checked_by == "onnx" and result.valid
    assert clip.diagnostics[0].message == (
        "ONNX (opset 13) Clip on src s32: oneDNN's Clamp is defined for src bf16, f16, f32 only"
    )


def test_openvino_maximum_and_clamp() -> None:
    ov = pytest.importorskip("openvino")
    from openvino import opset16

    x = opset16.parameter([2, 3], np.float32, name="x")
    y = opset16.maximum(x, opset16.clamp(x, 0.0, 6.0, name="clamp"), name="maximum")
    model = ov.Model([opset16.result(y, name="out")], [x], "g")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        ov.save_model(model, f"{folder}/m.xml")
        xml = Path(folder, "m.xml").read_bytes()
        weights = Path(folder, "m.bin").read_bytes() if Path(folder, "m.bin").exists() else b""
    result = graphs.check(xml, Settings(), "openvino", weights)
    nodes = by_name(result)
    assert nodes["maximum"].checked_as in ("Maximum", "Max")
    assert nodes["clamp"].checked_as == "Clamp"
    assert result.valid and result.coverage.not_checked == {}


def test_rows_light_up_when_their_op_is_in_the_registry(monkeypatch) -> None:
    sigmoid = BY_NAME["Sigmoid"]
    monkeypatch.delitem(translations.BY_NAME, "Sigmoid")
    assert translations.lookup("onnx", "Sigmoid", 13) is None  # no Sigmoid in the registry...
    monkeypatch.setitem(translations.BY_NAME, "Sigmoid", sigmoid)  # ...once there is one
    row = translations.lookup("onnx", "Sigmoid", 13)
    assert row is not None and row.target == "Sigmoid"
    # a row whose attributes the op does not have stays dark: never a false error
    monkeypatch.setitem(translations.BY_NAME, "Elu", BY_NAME["ReLU"])
    assert translations.lookup("onnx", "Elu", 13) is None


def test_every_row_that_applies_gives_exactly_its_ops_attributes() -> None:
    for row in translations.ROWS:
        if row.target in BY_NAME:
            assert translations.fits(row), row


def test_the_table_has_the_ops_the_issue_names() -> None:
    pairs = {(row.format, row.native, row.target) for row in translations.ROWS}
    for pair in [
        ("onnx", "Relu", "ReLU"), ("onnx", "Add", "Add"), ("onnx", "MatMul", "MatMul"),
        ("onnx", "Softmax", "SoftMax"), ("onnx", "Conv", "Convolution"), ("openvino", "Maximum", "Maximum"),
        ("openvino", "ReduceSum", "ReduceSum"), ("openvino", "Convolution", "Convolution"),
        ("openvino", "MatMul", "MatMul"),
    ]:  # fmt: skip
        assert pair in pairs, pair
    assert ("onnx", "ArgMax") in translations.NOT_THE_SAME


def test_softmax_axis_before_opset_13_is_exact_only_on_the_last_axis() -> None:
    last = translations._softmax_axis({"axis": 1}, [None], 11)
    assert "flattened" in last
    assert translations._softmax_axis({"axis": -1}, [None], 11) == ""
    # from opset 13 on, the row has no such condition: Softmax normalises over the one axis
    assert translations.lookup("onnx", "Softmax", 13).exact is None


def test_docs_table_is_the_data() -> None:
    assert DOCS.read_text(encoding="utf-8") == translations.HEADER + translations.markdown()
