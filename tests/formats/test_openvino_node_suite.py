"""ONNX's node tests as OpenVINO IR (converted by OpenVINO's own `convert_model` + `save_model`): no
error on an IR OpenVINO reads, and on every layer opspec checks as a oneDNN op, the output shapes and
dtypes opspec infers are exactly OpenVINO's own. The figures are docs/conformance.md's."""

from __future__ import annotations

from collections import Counter

import pytest

from app.core.config import Settings
from app.formats import graphs
from app.formats.graph import GraphResult
from tests.formats.test_onnx_node_suite import errors, figure

pytest.importorskip("openvino")


@pytest.fixture(scope="module")
def checked() -> dict[str, GraphResult]:
    from tests.formats.onnx_node_tests import openvino_irs

    settings = Settings()
    return {
        name: graphs.check(xml, settings, "openvino", weights)
        for name, (xml, weights) in openvino_irs().items()
    }


def test_no_ir_openvino_reads_gets_an_error(checked: dict[str, GraphResult]) -> None:
    assert {name: errors(result) for name, result in checked.items() if errors(result)} == {}
    assert len(checked) == figure("IRs OpenVINO converts")


def test_no_ir_openvino_reads_gets_a_warning(checked: dict[str, GraphResult]) -> None:
    """`opspec check --strict` passes them all: an unknown size meeting a known one in a graph (opspec's own
    -1 where a dim depends on data it does not have: ReduceMax with axes given at run time, in
    test_reduce_log_sum_exp_empty_set) is a note, as an engine's made-up name is, not a warning."""
    found = {
        name: [
            (d.rule, d.message) for node in result.nodes for d in node.diagnostics if d.severity == "warning"
        ]
        + [(d.rule, d.message) for d in result.diagnostics if d.severity == "warning"]
        for name, result in checked.items()
    }
    assert {name: warned for name, warned in found.items() if warned} == {}
    notes = [
        d.rule
        for node in checked["test_reduce_log_sum_exp_empty_set"].nodes
        for d in node.diagnostics
        if d.rule.endswith(".broadcast.unified")
    ]
    assert notes == ["Subtract.broadcast.unified"] * 3 + ["Add.broadcast.unified"] * 3


def same_type(ours: tuple, theirs: tuple) -> bool:
    """opspec's output type is OpenVINO's: the same dtype and rank, every dim OpenVINO knows the same, and
    where it knows none, opspec's unknown (-1) or an expression over the graph's symbols (a string)."""
    (dtype, shape), (their_dtype, their_shape) = ours, theirs
    if dtype != their_dtype or (shape is None) != (their_shape is None):
        return False
    if shape is None:
        return True
    return len(shape) == len(their_shape) and all(
        d == t if t is not None else d == -1 or isinstance(d, str)
        for d, t in zip(shape, their_shape, strict=True)
    )


def test_every_layer_opspec_checks_infers_what_openvino_infers(checked: dict[str, GraphResult]) -> None:
    differ = []
    total = Counter()
    for name, result in checked.items():
        assert result.graph is not None and result.graph.engine == "openvino", name
        total["checked"] += result.coverage.checked
        total["openvino"] += result.coverage.by_engine.get("openvino", 0)
        total["not checked"] += result.coverage.unchecked
        layers = {node.id: node for node in result.graph.nodes}
        for node in result.nodes:
            if node.checked_by != "opspec":
                continue
            theirs = [(v.dtype, v.shape) for v in layers[node.id].engine_outputs]
            ours = [(o.dtype, o.shape) for o in node.outputs]
            if len(ours) != len(theirs) or not all(map(same_type, ours, theirs)):
                differ.append((name, node.path, node.checked_as, ours, theirs))
    assert differ == []
    assert dict(total) == {
        "checked": figure("layers checked by opspec's rules"),
        "openvino": figure("layers typed by OpenVINO's inference"),
        "not checked": figure("layers not checked"),
    }
