"""ONNX's graph-level rules (onnx/checker.cc check_graph, check_value_info, check_tensor), each fault one
located finding, every fault of a model said (the checker stops at the first). Each faulty model is
refused by ONNX's own checker, or its data by ONNX's own reader (numpy_helper.to_array); the model
unchanged passes both."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from app.core.config import Settings
from app.formats import graphs


def base() -> onnx.ModelProto:
    """x[2, 3] + w (an initializer) -> y -> Relu -> z."""
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["x", "w"], ["y"], name="add"),
            helper.make_node("Relu", ["y"], ["z"], name="relu"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def findings(model: onnx.ModelProto) -> list:
    result = graphs.check(model.SerializeToString(), Settings())
    return [*result.diagnostics, *(d for n in result.nodes for d in n.diagnostics if d.severity != "info")]


def refused_by_onnx(model: onnx.ModelProto) -> bool:
    try:
        onnx.checker.check_model(model)
        for init in model.graph.initializer:
            numpy_helper.to_array(init)
        for node in model.graph.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.TENSOR:
                    numpy_helper.to_array(attr.t)
    except (onnx.checker.ValidationError, ValueError, TypeError):
        return True
    return False


def _swap(m: onnx.ModelProto) -> None:
    nodes = list(m.graph.node)
    del m.graph.node[:]
    m.graph.node.extend(reversed(nodes))


def _raw(m: onnx.ModelProto, raw: bytes) -> None:
    m.graph.initializer[0].raw_data = raw


def _floats(m: onnx.ModelProto, values: list[float]) -> None:
    init = m.graph.initializer[0]
    init.ClearField("raw_data")
    init.float_data.extend(values)


def _constant(m: onnx.ModelProto) -> None:
    """A Constant node whose value holds 4 bytes for its 2 floats, and a graph output of it."""
    value = TensorProto(name="v", data_type=TensorProto.FLOAT, dims=[2], raw_data=bytes(4))
    m.graph.node.append(helper.make_node("Constant", [], ["k"], name="c", value=value))
    m.graph.output.append(helper.make_tensor_value_info("k", TensorProto.FLOAT, [2]))


def _rewrite(m: onnx.ModelProto) -> None:
    """A node that writes `u`, the name of a graph input nothing reads."""
    m.graph.input.append(helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 3]))
    m.graph.node.append(helper.make_node("Identity", ["y"], ["u"], name="again"))


def _shadow(m: onnx.ModelProto) -> None:
    """An If whose then-branch writes `y`, a name of the graph around it."""
    branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="inner")], "then", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )  # fmt: skip
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["o"], name="other")], "else", [],
        [helper.make_tensor_value_info("o", TensorProto.FLOAT, [2, 3])],
    )  # fmt: skip
    m.graph.initializer.append(numpy_helper.from_array(np.array(True), "c"))
    m.graph.node.append(
        helper.make_node("If", ["c"], ["k"], name="if", then_branch=branch, else_branch=other)
    )


CASES: dict[str, tuple[Callable[[onnx.ModelProto], None], str, str, str, str]] = {
    # name: (change, severity, rule, path, the message's start)
    "input named twice": (
        lambda m: m.graph.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])),
        "error", "graph.input", "graph.input[1]", "graph input 'x' is named twice"),
    "initializer named twice": (
        lambda m: m.graph.initializer.append(numpy_helper.from_array(np.zeros((2, 3), np.float32), "w")),
        "error", "graph.input", "graph.initializer[1]", "initializer 'w' is named twice"),
    "initializer not an input up to IR 3": (
        lambda m: setattr(m, "ir_version", 3), "warning", "graph.input", "graph.initializer[0]",
        "initializer 'w' is no graph input: up to IR version 3"),
    "nodes out of order": (_swap, "error", "graph.order", "node[relu].input[0]",
                           "node[relu] reads 'y', which node 1 (later in the graph) makes"),
    "node writes a graph input's name": (_rewrite, "error", "graph.edge", "node[again].output[0]",
                                         "node[again] writes 'u', the name of graph.input[1]"),
    "output no node makes": (
        lambda m: m.graph.output.append(helper.make_tensor_value_info("q", TensorProto.FLOAT, [2, 3])),
        "error", "graph.output", "graph.output[1]", "graph output 'q' is no value of the graph"),
    "raw_data too short": (lambda m: _raw(m, bytes(20)), "error", "graph.constant", "graph.initializer[0]",
                           "initializer 'w' holds 20 bytes, but 6 FLOAT elements of dims [2, 3] are 24"),
    "float_data too long": (lambda m: _floats(m, [0.0] * 7), "error", "graph.constant", "graph.initializer[0]",
                            "initializer 'w' holds 7 float_data values, but 6 FLOAT elements"),
    "data in the wrong field": (
        lambda m: (m.graph.initializer[0].ClearField("raw_data"), m.graph.initializer[0].int64_data.extend([0] * 6)),
        "error", "graph.constant", "graph.initializer[0]", "initializer 'w' is FLOAT, whose data is float_data"),
    "two data fields": (lambda m: m.graph.initializer[0].float_data.extend([0.0] * 6), "error", "graph.constant",
                        "graph.initializer[0]", "initializer 'w' of dims [2, 3] holds its data in float_data and raw_data"),
    "data type UNDEFINED": (lambda m: setattr(m.graph.initializer[0], "data_type", 0), "error", "graph.constant",
                            "graph.initializer[0]", "initializer 'w' has data_type UNDEFINED"),
    "a Constant's value too short": (_constant, "error", "graph.constant", "node[c].attribute.value",
                                     "node[c]'s value holds 4 bytes, but 2 FLOAT elements of dims [2] are 8"),
    "input without a type": (lambda m: m.graph.input[0].ClearField("type"), "error", "graph.value_info",
                             "graph.input[0]", "'x' has no type"),
    "output without a shape": (lambda m: m.graph.output[0].type.tensor_type.ClearField("shape"), "warning",
                               "graph.value_info", "graph.output[0]", "'z' has no shape"),
    "graph without a name": (lambda m: setattr(m.graph, "name", ""), "warning", "graph.name", "graph",
                             "the graph has no name"),
    "subgraph writes an outer name": (_shadow, "error", "graph.edge",
                                      "node[if].attribute.then_branch.node[inner].output[0]",
                                      "node[if].attribute.then_branch.node[inner] writes 'y', a name of an enclosing"),
}  # fmt: skip


def test_the_model_unchanged_is_valid_to_both() -> None:
    assert not refused_by_onnx(base()) and findings(base()) == []


@pytest.mark.parametrize("name", CASES)
def test_each_fault_is_one_located_finding(name: str) -> None:
    change, severity, rule, path, message = CASES[name]
    model = base()
    change(model)
    assert refused_by_onnx(model)
    [finding] = findings(model)
    assert (finding.severity, finding.rule, finding.path) == (severity, rule, path)
    assert finding.message.startswith(message), finding.message


def test_every_fault_of_a_model_is_said_not_the_first_only() -> None:
    model = base()
    for name in ("input named twice", "nodes out of order", "output no node makes", "raw_data too short"):
        CASES[name][0](model)
    assert sorted((d.rule, d.path) for d in findings(model)) == [
        ("graph.constant", "graph.initializer[0]"),
        ("graph.input", "graph.input[1]"),
        ("graph.order", "node[relu].input[0]"),
        ("graph.output", "graph.output[1]"),
    ]


def test_a_cycle_is_the_cycle_rules_not_an_order_fault() -> None:
    """add reads z, which relu makes from add's y: one graph.cycle, no graph.order besides."""
    model = base()
    model.graph.node[0].input[0] = "z"
    model.graph.input.pop()
    assert [d.rule for d in findings(model) if d.severity == "error"] == ["graph.cycle"]
