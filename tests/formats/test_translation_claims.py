"""Each translation is a claim that an ONNX node is exactly a oneDNN op, tested both ways from
specs/translations/onnx.json: taken where the row's preconditions hold, with output shapes equal to
ONNX's own inference and values equal to onnx.reference's (bit for bit where the op claims exactness);
refused where one fails, with the note saying which. Every row of the table has both kinds of case (the
same node on f64, which no oneDNN op takes, is refused for every row)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from app import library
from app.core.config import Settings
from app.formats import graphs, translations
from app.formats.graph import GraphResult, NodeResult
from app.ops import BY_NAME
from tests.formats.onnx_node_tests import fed

SPEC = Path(__file__).parents[2] / "specs" / "translations" / "onnx.json"
CASES: list[dict[str, Any]] = json.loads(SPEC.read_text())["cases"]
ELEM = {name: getattr(onnx.TensorProto, name.upper()) for name in ("float", "double", "float16", "int8", "uint8",
                                                                   "int32", "int64", "bool")}  # fmt: skip


def case_id(case: dict[str, Any]) -> str:
    shapes = "x".join(str(i[2]) for i in case["inputs"])
    return f"{case['op']}-{case['opset']}-{'taken' if 'taken' in case else 'refused'}-{shapes}-{case.get('attrs', '')}"


def model(case: dict[str, Any]) -> onnx.ModelProto:
    inputs, inits = [], []
    for entry in case["inputs"]:
        name, elem, shape = entry[:3]
        if len(entry) > 3:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(ELEM[elem])
            inits.append(numpy_helper.from_array(np.array(entry[3], dtype).reshape(shape), name))
        else:
            inputs.append(helper.make_tensor_value_info(name, ELEM[elem], shape))
    outputs = [f"y{k}" for k in range(case.get("outputs", 1))]
    node = helper.make_node(
        case["op"], [i[0] for i in case["inputs"]], outputs, name="n", **case.get("attrs", {})
    )
    graph = helper.make_graph(
        [node], "g", inputs, [helper.make_tensor_value_info(y, 0, None) for y in outputs], inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", case["opset"])])


def check(case: dict[str, Any]) -> tuple[GraphResult, NodeResult]:
    result = graphs.check(model(case).SerializeToString(), Settings())
    return result, next(n for n in result.nodes if n.name == "n")


def draw(elem: str, shape: list[int], rng: np.random.Generator, positive: bool) -> np.ndarray:
    dtype = onnx.helper.tensor_dtype_to_np_dtype(ELEM[elem])
    if elem == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if np.issubdtype(dtype, np.integer):
        return np.asarray(rng.integers(1 if positive else -5, 6, shape), dtype)
    values = rng.standard_normal(shape) * 2
    return np.asarray(np.abs(values) + 0.25 if positive else values, dtype)


@pytest.mark.parametrize("case", [c for c in CASES if "taken" in c], ids=case_id)
def test_taken_where_exact_with_onnxs_shapes_and_values(case: dict[str, Any]) -> None:
    result, node = check(case)
    assert (node.checked_by, node.checked_as) == ("opspec", case["taken"]), node.diagnostics
    assert result.valid, [d for d in node.diagnostics if d.severity == "error"]
    # the shapes: opspec's inferred outputs are ONNX's own inference
    theirs = result.graph.nodes[-1].engine_outputs if result.graph else None
    assert theirs is not None
    for ours, onnx_type in zip(node.outputs, theirs, strict=True):
        assert onnx_type is not None and ours.dtype == onnx_type.dtype
        if onnx_type.shape is not None:  # (with a runtime axes input, ONNX leaves the rank unknown)
            assert ours.shape == [-1 if d is None else d for d in onnx_type.shape]
    # the values: opspec's kernel on seeded inputs against onnx.reference
    rng = np.random.default_rng(0)
    feeds = {
        entry[0]: draw(entry[1], entry[2], rng, case.get("positive", False))
        for entry in case["inputs"]
        if len(entry) == 3
    }
    want = ReferenceEvaluator(model(case)).run(None, feeds)
    descriptor = fed(node, lambda index: feeds[case["inputs"][index][0]])
    got = library.evaluate(descriptor)["outputs"]
    exact = BY_NAME[case["taken"]].tolerance is None
    for output, expected in zip(got, want[: len(got)], strict=True):
        array = np.asarray(output["data"])
        assert array.dtype == expected.dtype and array.shape == expected.shape
        if exact:
            assert array.tobytes() == expected.tobytes(), (array, expected)
        else:
            np.testing.assert_allclose(
                array.astype(np.float64), expected.astype(np.float64), rtol=1e-5, atol=1e-6
            )


@pytest.mark.parametrize("case", [c for c in CASES if "refused" in c], ids=case_id)
def test_refused_where_not_with_the_reason(case: dict[str, Any]) -> None:
    result, node = check(case)
    assert node.checked_as is None and node.checked_by == "onnx"
    [note] = [d for d in node.diagnostics if d.rule == "graph.untranslatable"]
    assert case["refused"] in note.message
    assert result.valid


def as_f64(case: dict[str, Any]) -> dict[str, Any]:
    inputs = [
        [entry[0], "double" if entry[1] in ("float", "float16") else entry[1], *entry[2:]]
        for entry in case["inputs"]
    ]
    return {**case, "inputs": inputs}


FLOAT_CASES = [c for c in CASES if all(entry[1] in ("float", "float16") for entry in c["inputs"][:1])]


@pytest.mark.parametrize(
    "case", [c for c in FLOAT_CASES if "taken" in c and c["taken"] != "Max"], ids=case_id
)
def test_every_taken_node_on_f64_is_refused(case: dict[str, Any]) -> None:
    """No oneDNN Graph op takes f64: the same node on doubles is not the op (opspec's Max, ONNX's own, is)."""
    _, node = check(as_f64(case))
    assert node.checked_as is None and node.checked_by == "onnx"
    [note] = [d for d in node.diagnostics if d.rule == "graph.untranslatable"]
    assert "f64" in note.message and "is defined for" in note.message


def test_every_onnx_row_has_a_taken_case_and_a_refused_one() -> None:
    taken: set[int] = set()
    refused: set[int] = set()
    for case in CASES:
        row = translations.lookup("onnx", case["op"], case["opset"])
        if row is not None:
            (taken if "taken" in case else refused).add(id(row))
    rows = [row for row in translations.ROWS if row.format == "onnx" and translations.fits(row)]
    assert [(r.native, r.since) for r in rows if id(r) not in taken] == []
    # a row with no precondition of its own is refused on f64 (the test above), else by its own case
    guarded = [r for r in rows if r.exact is not None or r.adapt]
    assert [(r.native, r.since) for r in guarded if id(r) not in refused] == []


SPECIAL = np.array(
    [
        np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        3e38,
        -3e38,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        100.0,
        -100.0,
    ],
    np.float32,
)
ELEMENTWISE = [
    c for c in CASES
    if "taken" in c and BY_NAME[c["taken"]].family in ("eltwise", "binary") and c["inputs"][0][1] == "float"
]  # fmt: skip


@pytest.mark.parametrize("case", ELEMENTWISE, ids=case_id)
def test_values_differ_on_nan_inf_and_signed_zero_exactly_where_the_row_says(case: dict[str, Any]) -> None:
    """On NaN, the infinities, signed zeros and subnormals (the first input; any other a plain 0.75):
    the same answer as onnx.reference, unless the row says where the two specs' values differ, and then
    they do differ, so the statement in the note and the docs table is true."""
    free = [entry for entry in case["inputs"] if len(entry) == 3]
    inputs = [
        [*entry[:2], [len(SPECIAL)] if entry is free[0] else [1], *entry[3:]] for entry in case["inputs"]
    ]
    special = {**case, "inputs": inputs}
    _, node = check(special)
    assert node.checked_by == "opspec"
    feeds = {entry[0]: SPECIAL if entry is inputs[case["inputs"].index(free[0])] else np.float32([0.75])
             for entry in inputs if len(entry) == 3}  # fmt: skip
    with np.errstate(all="ignore"):  # onnx.reference's NumPy on infinities
        want = ReferenceEvaluator(model(special)).run(None, feeds)[0]
    descriptor = fed(node, lambda index: feeds[inputs[index][0]])
    got = np.asarray(library.evaluate(descriptor)["outputs"][0]["data"])
    exact = BY_NAME[case["taken"]].tolerance is None
    same = [
        (np.isnan(a) and np.isnan(b))
        or a.tobytes() == b.tobytes()
        or (
            not exact
            and np.isfinite(a)
            and np.signbit(a) == np.signbit(b)
            and np.isclose(a, b, rtol=1e-5, atol=1e-6)
        )
        for a, b in zip(got, want, strict=True)
    ]
    row = translations.lookup("onnx", case["op"], case["opset"])
    assert row is not None
    if row.differs:
        assert not all(same), f"{case['op']}: the row says values differ ({row.differs}), but none do"
    else:
        assert all(same), [
            (float(x), float(a), float(b))
            for x, a, b, ok in zip(SPECIAL, got, want, same, strict=True)
            if not ok
        ]
