"""ONNX models as exported (no value_info): ONNX's own shape inference types every value, so every
node of a kind opspec checks is checked whatever precedes it; subgraphs are walked and counted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from app.core.config import Settings
from app.formats import graphs
from app.formats.answer import to_json
from tests.formats import models

CACHE = Path(os.environ.get("OPSPEC_WHEEL_CACHE", Path.home() / ".cache" / "opspec-test-wheels"))


def check(data: bytes, **limits):
    return graphs.check(data, Settings(**limits))


def test_magika_like_every_max_and_reduce_max_is_checked_without_value_info() -> None:
    data = models.magika_like()
    assert not onnx.load_from_string(data).graph.value_info  # as exported
    result = check(data)
    assert result.valid
    by_kind = {}
    for node in result.nodes:
        by_kind.setdefault(node.kind, []).append(node)
    assert [n.checked_as for n in by_kind["Max"] + by_kind["ReduceMax"]] == ["Max", "Max", "ReduceMax"]
    assert [o.shape for o in by_kind["ReduceMax"][0].outputs] == [["batch"]]
    assert {n.checked_by for n in by_kind["Gemm"]} == {"onnx"}  # no oneDNN op is exactly Gemm
    assert {n.checked_by for n in by_kind["Conv"] + by_kind["Reshape"]} == {"opspec"}  # oneDNN ops
    assert result.coverage.not_checked == {}


def test_if_branches_are_walked_checked_and_counted() -> None:
    result = check(models.if_model())
    reduces = [n for n in result.nodes if n.kind == "ReduceMax"]
    assert [(n.id, n.path) for n in reduces] == [
        ("0", "node[outer_reduce]"),
        ("2.else_branch.1", "node[if].attribute.else_branch.node[else_reduce]"),
        ("2.then_branch.1", "node[if].attribute.then_branch.node[then_reduce]"),
    ]
    assert all(n.checked_as == "ReduceMax" and n.valid for n in reduces)
    # the branches read the outer x: its type flows in
    assert [(t.dtype, t.shape) for t in reduces[1].inputs] == [("f32", [2, 3])]
    # ... and so are their Relu nodes (oneDNN's ReLU), the If and the Greater typed by ONNX
    assert result.coverage.nodes == 7 and result.coverage.checked == 5
    assert result.coverage.by_engine == {"onnx": 2}


def test_an_error_inside_a_branch_is_said_at_its_node() -> None:
    result = check(models.if_model(else_axis=5))
    bad = [n for n in result.nodes if not n.valid]
    assert [n.path for n in bad] == ["node[if].attribute.else_branch.node[else_reduce]"]
    assert "ReduceMax.axes.range" in {d.rule for d in bad[0].diagnostics}
    assert not result.valid


def test_loop_body_values_are_scoped_and_outer_values_visible() -> None:
    result = check(models.loop_model())
    body_max = next(n for n in result.nodes if n.name == "body_max")
    assert body_max.id == "0.body.1" and body_max.checked_as == "Max"
    assert [t.dtype for t in body_max.inputs] == ["f32", "f32"]
    assert not result.diagnostics  # no value read from nowhere, none written twice


def test_negative_dim_value_is_an_unknown_dim_with_an_info() -> None:
    result = check(models.paddle_like())
    assert result.valid
    infos = {(d.severity, d.rule, d.path) for d in result.diagnostics}
    assert ("info", "graph.unknown_dim", "graph.input[0].shape[0]") in infos
    reduce = next(n for n in result.nodes if n.kind == "ReduceMax")
    assert reduce.outputs[0].shape == ["dyn__0", 1, "dyn__1", "dyn__2"]  # unknown input dims: fresh names


def test_inference_error_is_at_the_node_it_names_even_unnamed() -> None:
    nodes = [
        helper.make_node("Mod", ["x", "y"], ["a"]),  # [2, 3] % [4, 3]: ONNX refuses it (no oneDNN op)
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, None)],
    )  # fmt: skip
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    result = check(data)
    add = result.nodes[0]
    assert add.path == "node[#0]" and add.checked_by == "onnx" and not add.valid
    [d] = add.diagnostics
    assert (d.severity, d.rule, d.path) == ("error", "onnx.shape_inference", "node[#0]")
    assert "Incompatible dimensions" in d.message
    assert all(d.severity == "info" for d in result.nodes[1].diagnostics)  # no echo downstream
    assert not result.valid


def test_a_disagreement_between_onnx_and_opspec_is_said(monkeypatch) -> None:
    from app.formats import onnx as reader

    real = reader.infer

    def skewed(model, *names):
        types, errors, failed = real(model, *names)
        info = types["top"]
        info.type.tensor_type.shape.dim[0].dim_value = 7  # ONNX "infers" [7] where opspec has [batch]
        return types, errors, failed

    monkeypatch.setattr(reader, "infer", skewed)
    data = models.magika_like()
    model = onnx.load_from_string(data)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 3
    result = check(model.SerializeToString())
    reduce = next(n for n in result.nodes if n.kind == "ReduceMax")
    [d] = [d for d in reduce.diagnostics if d.rule == "onnx.shape_inference"]
    assert d.severity == "warning"
    assert d.message == "output 0: opspec infers 3 in dim 0 ([3]), the engine 7 ([7])"


def test_large_weights_are_not_given_to_inference_as_data() -> None:
    w = np.zeros((300, 300), np.float32)  # 90,000 elements: a typed input for inference
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
            helper.make_node("Max", ["y", "y"], ["z"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 300])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(w, "w")],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    result = check(data)
    assert [(o.dtype, o.shape) for o in result.nodes[1].outputs] == [("f32", ["N", 300])]
    assert result.nodes[1].checked_as == "Max"


def test_kv_cache_step_has_past_plus_one_on_its_present_edges() -> None:
    result = check(models.kv_cache_step())
    assert result.valid and result.coverage.not_checked == {}
    values = {v["name"]: v for v in result.values()}
    for name in ("present_key", "present_value"):
        assert values[name]["shape"] == ["B", "past + 1", 16] and values[name]["typed_by"] == "opspec"
    assert values["scores"]["shape"] == ["B", 1, "past + 1"]
    assert values["out"]["shape"] == ["B", 1, 16]
    said = [(d.severity, d.rule, d.path, d.message) for n in result.nodes for d in n.diagnostics]
    assert not [d for d in said if d[0] != "info"]
    # ONNX's own inference names the present length unk__N: opspec's expression wins, and says so once.
    [(_, _, path, message)] = [d for d in said if d[1] == "graph.engine_dim" and "concat_key" in d[2]]
    assert path == "node[concat_key].output[0]"
    assert message.startswith("output 0: ONNX's shape inference names dim 1 unk__")
    assert message.endswith(
        "opspec infers past + 1, which flows on ("
        + message.split("names dim 1 ")[1].split(";")[0]
        + " reads as past + 1 across the graph)"
    )


def test_a_dim_param_that_is_an_expression_is_read_as_one() -> None:
    """Exporters write present lengths as "past_sequence_length + 1": read as that expression, it agrees
    with opspec's, and a dim_param that is no expression ("batch size") is an unknown dim."""
    model = onnx.load_from_string(models.kv_cache_step())
    for output in model.graph.output:
        if output.name.startswith("present"):
            output.CopyFrom(
                helper.make_tensor_value_info(output.name, TensorProto.FLOAT, ["B", "1 + past", 16])
            )
    model.graph.input[0].CopyFrom(
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch size", 1, 16])
    )
    result = check(model.SerializeToString())
    assert result.valid
    values = {v["name"]: v for v in result.values()}
    assert values["present_key"]["shape"] == ["B", "past + 1", 16]
    assert values["x"]["shape"] == ["B", 1, 16]  # unknown, named dyn__0, then taken as the B it meets


def test_engine_made_dims_meet_as_notes_and_one_name_flows() -> None:
    """Unnamed input dims (fresh dyn__N names) meeting a user's name and each other in broadcasting and
    MatMul: notes, never warnings; one name from there on, said once per pair."""
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"], name="add"),
        helper.make_node("Add", ["s", "b"], ["t"], name="again"),  # the same pair: said already
        helper.make_node("MatMul", ["t", "w"], ["y"], name="mm"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [None, 4]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", 4]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, None]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    result = check(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    assert result.valid
    said = [
        (n.name, d.severity, d.rule)
        for n in result.nodes
        for d in n.diagnostics
        if d.rule != "graph.translated"
    ]
    assert [s for s in said if s[2] != "graph.engine_dim"] == [("add", "info", "Add.broadcast.unified")]
    assert all(severity == "info" for _, severity, _ in said)
    values = {v["name"]: v["shape"] for v in result.values()}
    assert values["a"] == ["N", 4] and values["s"] == ["N", 4] and values["y"] == ["N", "dyn__1"]


@pytest.mark.parametrize(
    ("name", "member"),
    [("magika", None), ("silero-vad", None)],
)
def test_real_models_from_their_wheels(name: str, member) -> None:
    data = models.wheel_model(name, CACHE)
    result = check(data)
    assert result.valid
    assert result.coverage.not_checked == {}  # ONNX's inference checks what opspec does not
    if name == "magika":
        checked = [n.kind for n in result.nodes if n.checked_by == "opspec"]
        assert checked.count("Max") >= 3 and "ReduceMax" in checked
    else:  # its nodes sit in If / Loop bodies
        assert any("attribute." in n.path for n in result.nodes)


def _model(nodes, inputs, outputs, value_info=(), opsets=(("", 17),)):
    graph = helper.make_graph(nodes, "g", inputs, outputs, value_info=list(value_info))
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets]
    ).SerializeToString()


def test_a_custom_domain_node_is_never_counted_checked_or_valid() -> None:
    """ONNX has no schema for com.example:Mystery: the types the file declares for its outputs flow on, but
    nothing checked the node, whatever the file declares."""
    nodes = [
        helper.make_node("Mystery", ["x"], ["y"], name="m1", domain="com.example"),
        helper.make_node("Mystery", ["y"], ["z"], name="m2", domain="com.example"),
        helper.make_node("Relu", ["z"], ["w"], name="relu"),
    ]
    declared = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("y", "z")]
    data = _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 3])],
        declared,
        (("", 17), ("com.example", 1)),
    )
    result = graphs.check(data, Settings())
    by_name = {n.name: n for n in result.nodes}
    assert [(by_name[n].checked_by, by_name[n].typed_by) for n in ("m1", "m2")] == [(None, "declared")] * 2
    assert by_name["relu"].checked_as == "ReLU"  # what flows from the declared types is still checked
    assert result.coverage.as_dict() == {
        "nodes": 3, "checked": 1, "by_engine": {}, "not_checked": 2, "not_checked_kinds": {"com.example.Mystery": 2},
    }  # fmt: skip
    answer = json.loads(to_json(result))
    assert [n["valid"] for n in answer["nodes"] if n["name"] in ("m1", "m2")] == [None, None]


def test_one_wrong_value_info_is_one_error_at_the_node_that_makes_the_value() -> None:
    """value_info declares y [5, 7] where Relu makes [2, 3]: one error at the Relu (ONNX's inference says
    the same and is not repeated), and Abs, which reads y, is checked against [2, 3] and not blamed."""
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
        helper.make_node("Abs", ["y"], ["z"], name="abs"),
    ]
    data = _model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 7])],
    )
    result = graphs.check(data, Settings())
    found = [
        (n.name, d.rule, d.path, d.message)
        for n in result.nodes
        for d in n.diagnostics
        if d.severity != "info"
    ]
    assert found == [
        ("relu", "ReLU.outputs.dim", "node[relu].output[0].shape",
         "dst has shape [2, 3], but [5, 7] is declared (dims 0 and 1 differ)"),
    ]  # fmt: skip
    assert not result.diagnostics
    [abs_node] = [n for n in result.nodes if n.name == "abs"]
    assert abs_node.valid and [(o.dtype, o.shape) for o in abs_node.outputs] == [("f32", [2, 3])]


@pytest.mark.parametrize("name", sorted(models.OPEN_DIMS))
def test_open_dims_of_real_models_flow_without_warnings(name: str) -> None:
    """Issue 31's models: their engine-made dims (ONNX's unk__N, unnamed input dims as dyn__N) meet in
    broadcasting, concat and MatMul as notes, never as .assumption warnings, and flow as expressions."""
    result = check(models.wheel_model(name, CACHE))
    found = [(d.severity, d.rule) for n in result.nodes for d in n.diagnostics] + [
        (d.severity, d.rule) for d in result.diagnostics
    ]
    assert not [f for f in found if f[0] == "warning"], found
    assert all(severity == "info" for severity, rule in found if rule.endswith((".assumption", ".unified")))
    assert result.coverage.not_checked == {}
    assert result.valid  # (melspectrogram's Clip(max=inf) is Clamp with no upper bound, as oneDNN runs it)
    if name == "ppocr-det":
        shapes = {v["name"]: v["shape"] for v in result.values()}
        assert shapes["x"] == ["dyn__0", 3, "dyn__1", "dyn__2"]  # the input's unnamed dims, named
        assert "(dyn__1 - 1) // 4 + 1" in {d for shape in shapes.values() if shape for d in shape}
