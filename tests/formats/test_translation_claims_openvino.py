"""The OpenVINO IR rows of the translation table, tested both ways from specs/translations/openvino.json:
each case one layer built with OpenVINO's own opset API and saved as IR by OpenVINO; taken where the
row's preconditions hold, with output types equal to OpenVINO's own inference and values equal to its
CPU plugin's on seeded inputs (bit for bit where the op claims exactness); refused where one fails."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app import library
from app.core.config import Settings
from app.formats import graphs, translations
from app.ops import BY_NAME
from tests.formats.onnx_node_tests import fed

ov = pytest.importorskip("openvino")

SPEC = Path(__file__).parents[2] / "specs" / "translations" / "openvino.json"
CASES: list[dict[str, Any]] = json.loads(SPEC.read_text())["cases"]
NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "boolean": np.bool_}


def case_id(case: dict[str, Any]) -> str:
    shapes = "x".join(str(i[1]) for i in case["inputs"])
    return f"{case['op']}-{'taken' if 'taken' in case else 'refused'}-{shapes}-{case.get('args', '')}-{case.get('kwargs', '')}"


def build(case: dict[str, Any]) -> Any:
    module = __import__(f"openvino.{case.get('opset', 'opset16')}", fromlist=["_"])
    parameters, nodes = [], []
    for k, entry in enumerate(case["inputs"]):
        element, shape = entry[:2]
        if len(entry) > 2:
            nodes.append(module.constant(np.array(entry[2], NUMPY[element]).reshape(shape)))
        else:
            parameter = module.parameter(shape, NUMPY[element], name=f"in{k}")
            parameters.append(parameter)
            nodes.append(parameter)
    args = [nodes] if case.get("list") else nodes
    given = [float(a) if a in ("inf", "-inf") else a for a in case.get("args", [])]  # JSON has no infinity
    layer = getattr(module, case["op"])(*args, *given, **case.get("kwargs", {}), name="layer")
    model = ov.Model([module.result(layer.output(0), name="out")], parameters, "g")
    return model


def check(case: dict[str, Any]) -> tuple[graphs.GraphResult, Any, Any]:
    model = build(case)
    with tempfile.TemporaryDirectory() as folder:
        ov.save_model(model, f"{folder}/m.xml", compress_to_fp16=False)
        xml = Path(folder, "m.xml").read_bytes()
        weights = Path(folder, "m.bin").read_bytes() if Path(folder, "m.bin").exists() else b""
    result = graphs.check(xml, Settings(), "openvino", weights)
    [node] = [n for n in result.nodes if n.name == "layer"]
    return result, node, model


def draw(element: str, shape: list[int], rng: np.random.Generator, positive: bool) -> np.ndarray:
    if element == "boolean":
        return np.asarray(rng.random(shape) < 0.5)
    if element in ("i32", "i64"):
        return np.asarray(rng.integers(1 if positive else -5, 6, shape), NUMPY[element])
    values = rng.standard_normal(shape) * 2
    return np.asarray(np.abs(values) + 0.25 if positive else values, NUMPY[element])


@pytest.mark.parametrize("case", [c for c in CASES if "taken" in c], ids=case_id)
def test_taken_where_exact_with_openvinos_types_and_values(case: dict[str, Any]) -> None:
    result, node, model = check(case)
    assert (node.checked_by, node.checked_as) == ("opspec", case["taken"]), node.diagnostics
    assert result.valid
    [layer] = [n for n in result.graph.nodes if n.name == "layer"]
    theirs = layer.engine_outputs[0]
    assert (node.outputs[0].dtype, node.outputs[0].shape) == (
        theirs.dtype,
        [-1 if d is None else d for d in theirs.shape],
    )
    rng = np.random.default_rng(0)
    feeds = [draw(e[0], e[1], rng, case.get("positive", False)) for e in case["inputs"] if len(e) == 2]
    # f32 throughout: on a CPU with bf16 units the plugin would otherwise run MatMul and Convolution in bf16
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    want = compiled.infer_new_request(feeds)
    want = np.asarray(next(iter(want.values())))
    free = [k for k, e in enumerate(case["inputs"]) if len(e) == 2]
    got = np.asarray(
        library.evaluate(fed(node, lambda index: feeds[free.index(index)]))["outputs"][0]["data"]
    )
    assert got.dtype == want.dtype and got.shape == want.shape
    if BY_NAME[case["taken"]].tolerance is None and case["taken"] != "Divide":
        assert got.tobytes() == want.tobytes(), (got, want)
    else:  # the CPU plugin approximates exp, tanh, erf, and divides by a reciprocal: ONNX's backend tolerance
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in CASES if "refused" in c], ids=case_id)
def test_refused_where_not_with_the_reason(case: dict[str, Any]) -> None:
    result, node, _ = check(case)
    assert node.checked_as is None and node.checked_by == "openvino" and result.valid
    notes = [d.message for d in node.diagnostics if d.rule == "graph.untranslatable"]
    if case["refused"]:
        assert len(notes) == 1 and case["refused"] in notes[0], notes
    else:  # no row for this layer's version at all
        assert notes == []


def test_every_ir_row_has_a_taken_case() -> None:
    taken = set()
    for case in CASES:
        if "taken" in case:
            _, node, _ = check(case)
            taken.add(node.kind)
    rows = {row.native for row in translations.ROWS if row.format == "openvino" and translations.fits(row)}
    assert rows - taken == set()
