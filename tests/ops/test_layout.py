"""The layout family: StaticReshape, StaticTranspose, Concat, GenIndex, Dropout, End, Wildcard.

Kernels against oneDNN's recorded outputs (tests/ops/oracle/layout.json) and NumPy written
independently, shape inference with unknown dims and symbols, and the rules."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.engine import NotEvaluable
from app.library import evaluate, validate
from tests.ops.test_quantization import against_onednn, fixtures


@pytest.mark.parametrize("case", fixtures("layout"))
def test_evaluation_equals_onednn_bit_for_bit(case) -> None:
    against_onednn(case)


def check(kind: str, attrs: dict, inputs: list, outputs=None) -> dict:
    descriptor = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if outputs is not None:
        descriptor["outputs"] = outputs
    return validate(descriptor)


def found(answer: dict) -> list[tuple[str, str, str]]:
    return [(d["severity"], d["rule"], d["path"]) for d in answer["diagnostics"]]


def f32(shape, data=None) -> dict:
    return {"dtype": "f32", "shape": shape, **({"data": data} if data is not None else {})}


def shapes(answer: dict) -> list:
    return None if answer["outputs"] is None else [o["shape"] for o in answer["outputs"]]


# --- StaticReshape ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "shape", "special", "want"),
    [
        ([4, 6], [0, 3, -1], True, [4, 3, 2]),
        ([4, 6], [0, 0, -1], True, [4, 6, 1]),
        ([4, 6], [-1], False, [24]),
        ([0, 6], [3, -1], False, [3, 0]),
        (["N", 6], [0, 2, -1], True, ["N", 2, 3]),
        (["N", 6], [-1, 6], False, ["N", 6]),
        (["N", 6], [6, -1], False, [6, "N"]),
        (["N", "M"], [-1], False, ["M * N"]),
        (["B", "S", 768], [-1, 768], False, ["B * S", 768]),
        (["B", "S", 768], [0, -1], True, ["B", "768 * S"]),
        (["N", 6], [-1, 2], False, ["3 * N", 2]),
        ([-1, 6], [0, 3, -1], True, [-1, 3, -1]),
        (None, [2, -1], False, [2, -1]),
    ],
)
def test_reshape_infers(src, shape, special, want) -> None:
    answer = check("StaticReshape", {"shape": shape, "special_zero": special}, [f32(src)])
    assert answer["valid"], answer["diagnostics"]
    assert shapes(answer) == [want]


def test_reshape_rules() -> None:
    attrs = {"shape": [-1, -1], "special_zero": False}
    assert found(check("StaticReshape", attrs, [f32([4, 6])])) == [
        ("error", "StaticReshape.shape.inferred", "attrs.shape[1]")
    ]
    answer = check("StaticReshape", {"shape": [5, -1], "special_zero": False}, [f32([4, 6])])
    assert answer["diagnostics"][0]["message"] == (
        "src [4, 6] holds 24 elements, which the other dims of shape [5, -1] (5 elements) do not divide; -1 has no "
        "integer size"
    )
    answer = check("StaticReshape", {"shape": [5, 5], "special_zero": False}, [f32([4, 6])])
    assert answer["diagnostics"][0]["message"] == (
        "src [4, 6] holds 24 elements, but shape [5, 5] holds 25; a reshape keeps the element count"
    )
    assert found(check("StaticReshape", {"shape": [0, -1], "special_zero": False}, [f32([4, 6])])) == [
        ("error", "StaticReshape.shape.volume", "attrs.shape")
    ]
    assert found(check("StaticReshape", {"shape": [-2, 12], "special_zero": True}, [f32([4, 6])])) == [
        ("error", "StaticReshape.shape.value", "attrs.shape[0]")
    ]
    assert found(check("StaticReshape", {"shape": [24, 0, 0], "special_zero": True}, [f32([4, 6])])) == [
        ("error", "StaticReshape.shape.special_zero", "attrs.shape[2]")
    ]
    assert found(check("StaticReshape", {"shape": [24]}, [f32([4, 6])])) == [
        ("error", "StaticReshape.attrs.required", "attrs")
    ]
    answer = check("StaticReshape", {"shape": [4, 6], "special_zero": False}, [f32([4, 6])], [f32([6, 4])])
    # one wrong declaration, one finding, however many dims it gets wrong
    assert found(answer) == [("error", "StaticReshape.outputs.dim", "outputs[0].shape")]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reshape_keeps_row_major_order(dims, data) -> None:
    values = np.arange(int(np.prod(dims)), dtype=np.float32).reshape(dims)
    flat = [v for v in values.reshape(-1).tolist()]
    split = data.draw(st.sampled_from([[-1], [1, -1], [-1, 1]]))
    got = evaluate({"kind": "StaticReshape", "attrs": {"shape": split, "special_zero": False},
                    "inputs": [f32(dims, values.tolist())]})["outputs"][0]["data"]  # fmt: skip
    assert got.reshape(-1).tolist() == flat  # the elements in the same order, whatever the dims


# --- StaticTranspose -------------------------------------------------------------------------------


def test_transpose_infers_and_moves_elements() -> None:
    answer = check("StaticTranspose", {"order": [2, 0, -2]}, [f32(["N", 5, 6])])
    assert answer["valid"] and shapes(answer) == [[6, "N", 5]]
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = evaluate({"kind": "StaticTranspose", "attrs": {"order": [1, 2, 0]},
                    "inputs": [f32([2, 3, 4], values.tolist())]})["outputs"][0]["data"]  # fmt: skip
    for i, j, k in itertools.product(range(2), range(3), range(4)):
        assert got[j, k, i] == values[i, j, k]  # dst dim m is src dim order[m]


def test_transpose_rules() -> None:
    src = [f32([4, 5, 6])]
    assert found(check("StaticTranspose", {"order": [0, 1]}, src)) == [
        ("error", "StaticTranspose.order.count", "attrs.order")
    ]
    assert found(check("StaticTranspose", {"order": []}, src)) == [
        ("error", "StaticTranspose.order.count", "attrs.order")
    ]
    answer = check("StaticTranspose", {"order": [0, 3, -3]}, src)
    assert found(answer) == [("error", "StaticTranspose.order.range", "attrs.order[1]"),
                             ("error", "StaticTranspose.order.unique", "attrs.order[2]")]  # fmt: skip
    assert answer["diagnostics"][0]["message"] == "order: axis 3 is out of range [-3, 2] for src of rank 3"
    assert (
        answer["diagnostics"][1]["message"]
        == "order[2] = -3 names dim 0 again (order[0]); order is a permutation"
    )
    assert check("StaticTranspose", {"order": []}, [f32([])])["valid"]  # rank 0: the empty permutation


# --- Concat ----------------------------------------------------------------------------------------


def test_concat_infers() -> None:
    answer = check("Concat", {"axis": -2}, [f32([2, 3, 4]), f32([2, "K", 4]), f32(["N", 2, -1])])
    assert answer["valid"] and shapes(answer) == [[2, "K + 5", 4]]
    [said] = answer["diagnostics"]  # N must be input 0's 2: said once, and 2 it is from there on
    assert (said["rule"], said["severity"], said["path"]) == (
        "Concat.inputs.dim.assumption",
        "warning",
        "inputs[2].shape[0]",
    )
    assert shapes(check("Concat", {"axis": 1}, [f32(["B", "S", 64]), f32(["B", "T", 64])])) == [
        ["B", "S + T", 64]
    ]
    assert shapes(check("Concat", {"axis": 1}, [f32([2, -1]), f32([2, 4])])) == [[2, -1]]
    assert shapes(check("Concat", {"axis": 1}, [f32([2, 3]), f32([2, 4])])) == [[2, 7]]
    assert shapes(check("Concat", {"axis": 0}, [f32([5])])) == [[5]]


def test_concat_rules() -> None:
    answer = check(
        "Concat", {"axis": 1}, [f32([2, 3, 4]), f32([2, 1, 5]), {"dtype": "bf16", "shape": [2, 1, 4]}]
    )
    assert found(answer) == [("error", "Concat.inputs.dtype", "inputs[2].dtype"),
                             ("error", "Concat.inputs.dim", "inputs[1].shape[2]")]  # fmt: skip
    assert answer["diagnostics"][1]["message"] == (
        "input 1 has 5 in dim 2, where another input has 4; only the axis dim (1) may differ"
    )
    assert found(check("Concat", {"axis": 1}, [f32([2, 3]), f32([2, 3, 1])])) == [
        ("error", "Concat.inputs.rank", "inputs[1].shape")
    ]
    assert found(check("Concat", {"axis": 2}, [f32([2, 3])])) == [
        ("error", "Concat.axis.range", "attrs.axis")
    ]
    assert found(check("Concat", {"axis": 0}, [])) == [("error", "Concat.inputs.count", "inputs")]
    many = check("Concat", {"axis": 0}, [f32([1])] * 65)
    assert many["valid"] and found(many) == [("warning", "Concat.onednn.inputs", "inputs")]


def test_concat_joins_in_order() -> None:
    got = evaluate({"kind": "Concat", "attrs": {"axis": 1},
                    "inputs": [f32([1, 2], [[1, 2]]), f32([1, 1], [[-0.0]]), f32([1, 2], [["nan", 4]])]})  # fmt: skip
    data = got["outputs"][0]["data"]
    assert data.shape == (1, 5) and np.signbit(data[0, 2]) and np.isnan(data[0, 3])
    assert data[0, [0, 1, 4]].tolist() == [1, 2, 4]


# --- GenIndex --------------------------------------------------------------------------------------


def test_genindex() -> None:
    answer = check("GenIndex", {"axis": -1}, [{"dtype": "bf16", "shape": ["N", 3]}])
    assert answer["valid"] and answer["outputs"] == [{"dtype": "s32", "shape": ["N", 3]}]
    got = evaluate({"kind": "GenIndex", "attrs": {"axis": 0}, "inputs": [f32([3, 2], [[0, 0]] * 3)]})
    assert got["outputs"][0]["data"].dtype == np.int32 and got["outputs"][0]["data"].tolist() == [
        [0, 0],
        [1, 1],
        [2, 2],
    ]
    assert found(check("GenIndex", {"axis": 2}, [f32([3, 2])])) == [
        ("error", "GenIndex.axis.range", "attrs.axis")
    ]
    assert found(check("GenIndex", {}, [f32([3, 2])])) == [("error", "GenIndex.attrs.required", "attrs")]


# --- Dropout, End, Wildcard -----------------------------------------------------------------------


def dropout_inputs(seed="s64", p=0.0) -> list:
    return [f32([2, 3], [[1, -2, 3], [4, 5, "nan"]]), {"dtype": seed, "shape": [1], "data": [7]},
            {"dtype": seed, "shape": [1], "data": [0]}, f32([1], [p])]  # fmt: skip


def test_dropout_outputs_and_dtypes() -> None:
    answer = check("Dropout", {}, dropout_inputs())
    assert answer["valid"] and answer["outputs"] == [{"dtype": "f32", "shape": [2, 3]}]
    assert found(answer) == [
        ("warning", "Dropout.onednn.dtypes", "inputs")
    ]  # s64 seed: oneDNN's, not the page's
    answer = check("Dropout", {}, dropout_inputs("u64"), [f32([2, 3]), {"dtype": "u8", "shape": [2, 3]}])
    assert answer["valid"] and [o["dtype"] for o in answer["outputs"]] == ["f32", "u8"]
    assert found(answer) == [("warning", "Dropout.onednn.seed_dtype", "inputs[1].dtype"),
                             ("warning", "Dropout.onednn.seed_dtype", "inputs[2].dtype")]  # fmt: skip
    assert found(check("Dropout", {}, dropout_inputs(p=1.5))) == [
        ("warning", "Dropout.onednn.dtypes", "inputs"),
        ("error", "Dropout.probability.range", "inputs[3].data"),
    ]
    assert found(check("Dropout", {}, dropout_inputs()[:3]))[0][1] == "Dropout.inputs.count"


def test_dropout_evaluates_only_where_the_prng_does_not_matter() -> None:
    descriptor = {"kind": "Dropout", "attrs": {}, "inputs": dropout_inputs(),
                  "outputs": [f32([2, 3]), {"dtype": "u8", "shape": [2, 3]}]}  # fmt: skip
    dst, mask = evaluate(descriptor)["outputs"]
    assert dst["data"].tolist()[0] == [1, -2, 3] and np.isnan(dst["data"][1, 2])
    assert mask["data"].dtype == np.uint8 and mask["data"].tolist() == [[1, 1, 1], [1, 1, 1]]
    with pytest.raises(NotEvaluable, match="PRNG"):
        evaluate({**descriptor, "inputs": dropout_inputs(p=0.5)})


def test_end_takes_one_input_and_gives_nothing() -> None:
    answer = check("End", {}, [{"dtype": "s8", "shape": [3]}])
    assert answer["valid"] and answer["outputs"] == []
    assert found(answer) == [("warning", "End.onednn.dtypes", "inputs")]
    assert found(check("End", {}, [f32([3])], [f32([3])])) == [("error", "End.outputs.count", "outputs")]
    assert found(check("End", {}, [f32([3]), f32([3])])) == [("error", "End.inputs.count", "inputs")]
    assert evaluate({"kind": "End", "inputs": [f32([1], [1.0])]})["outputs"] == []


def test_wildcard_takes_its_outputs_as_declared() -> None:
    outputs = [{"dtype": "u8", "shape": [7]}, {"dtype": "f32", "shape": ["N", -1]}]
    answer = check("Wildcard", {}, [{"dtype": "s8", "shape": [3]}, f32([2])], outputs)
    assert answer["valid"] and answer["outputs"] == outputs
    assert found(answer) == [("warning", "Wildcard.unchecked", "kind")]
    assert check("Wildcard", {}, [])["outputs"] == []
    with pytest.raises(NotEvaluable):
        evaluate({"kind": "Wildcard", "inputs": [f32([1], [1.0])]})
