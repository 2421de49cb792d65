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
            theirs = [
                (v.dtype, list(v.shape) if v.shape is not None else None)
                for v in layers[node.id].engine_outputs
            ]
            ours = [(o.dtype, [-1 if d is None else d for d in o.shape] if o.shape is not None else None)
                    for o in node.outputs]  # fmt: skip
            theirs = [
                (dtype, [-1 if d is None else d for d in shape] if shape is not None else None)
                for dtype, shape in theirs
            ]
            if ours != theirs:
                differ.append((name, node.path, node.checked_as, ours, theirs))
    assert differ == []
    assert dict(total) == {
        "checked": figure("layers checked by opspec's rules"),
        "openvino": figure("layers typed by OpenVINO's inference"),
        "not checked": figure("layers not checked"),
    }
