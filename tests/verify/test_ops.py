"""Per op: a conformant answer; every mismatch class produced on purpose and named right; `like`
claimed for each modelled implementation and not when one more element differs."""

from __future__ import annotations

import numpy as np
import pytest

from tests.verify.cases import like_names, run, with_answer

LOWEST_F32 = -3.4028234663852886e38
OPENVINO = "OpenVINO 2026.4 CPU"


def single(result) -> dict:
    [output] = result.outputs
    return output


# --- SegmentMax ----------------------------------------------------------------------------------

SEGMENTS = {
    "kind": "SegmentMax",
    "attrs": {"fill_mode": "LOWEST"},
    "inputs": [
        {"dtype": "f32", "shape": [6], "data": [1, "nan", 4, -2, "-inf", 7]},
        {"dtype": "s32", "shape": [6], "data": [0, 0, 2, 2, 3, 5]},
    ],
}
# Segment 0 holds NaN, 1 and 4 are empty (LOWEST), 3 holds only -inf.
SPEC_ANSWER = ["nan", LOWEST_F32, 4, "-inf", LOWEST_F32, 7]
# OpenVINO's CPU plugin as SPEC-NOTES records it: NaN skipped, the lowest value for only -inf.
OPENVINO_ANSWER = [1, LOWEST_F32, 4, LOWEST_F32, LOWEST_F32, 7]


def segments(answer: list, **changes) -> dict:
    return with_answer({**SEGMENTS, **changes}, "f32", [6], answer)


def test_segment_max_conformant() -> None:
    result = run(segments(SPEC_ANSWER))
    assert result.conformant
    assert single(result) | {"first": None} == {
        "index": 0,
        "conformant": True,
        "dtype": "f32",
        "shape": [6],
        "elements": 6,
        "mismatches": 0,
        "classes": {},
        "first": None,
        "like": [],
    }


def test_segment_max_as_openvino_records_it_is_named_and_matched() -> None:
    output = single(run(segments(OPENVINO_ANSWER)))
    assert output["classes"] == {"nan_dropped": 1, "value": 1}
    assert [(m["at"], m["expected"], m["got"], m["class"]) for m in output["first"]] == [
        ([0], "nan", 1.0, "nan_dropped"),
        ([3], "-inf", LOWEST_F32, "value"),
    ]
    assert output["first"][1]["detail"] == "segment 3 holds only -inf here, so its maximum is -inf"
    [like] = output["like"]
    assert like["message"] == (
        "matches OpenVINO 2026.4 CPU: NaN ignored in segment 0; the lowest value -3.4028234663852886e+38 for a "
        "segment of only NaN or -inf in segment 3"
    )
    assert like["evidence"].startswith("SPEC-NOTES, SegmentMax-16 (OpenVINO 2026.4 CPU)")


def test_segment_max_like_is_not_claimed_when_one_more_element_differs() -> None:
    output = single(run(segments([*OPENVINO_ANSWER[:5], 6])))
    assert output["classes"] == {"nan_dropped": 1, "value": 2}
    assert output["like"] == []


@pytest.mark.parametrize(
    ("fill", "words"),
    [
        (0, "zero"),
        ("-inf", "-inf"),
        (-1.5, "-1.5"),
    ],
)
def test_segment_max_empty_fill_says_which_value(fill, words) -> None:
    output = single(run(segments([*SPEC_ANSWER[:4], fill, 7])))
    assert output["classes"] == {"empty_fill": 1}
    [mismatch] = output["first"]
    assert mismatch["detail"] == (
        f"segment 4 is empty: filled with {words} where LOWEST's -3.4028234663852886e+38 is due"
    )


def test_segment_max_zero_mode_filled_with_lowest() -> None:
    output = single(run(segments(["nan", LOWEST_F32, 4, "-inf", 0, 7], attrs={"fill_mode": "ZERO"})))
    assert output["classes"] == {"empty_fill": 1}
    assert output["first"][0]["detail"] == (
        "segment 1 is empty: filled with f32's lowest (-3.4028234663852886e+38) where ZERO's 0.0 is due"
    )


@pytest.mark.parametrize(
    ("dtype", "spec_fill", "openvino_fill", "words"),
    [
        ("f16", -65504.0, "-inf", "-inf (f32's lowest -3.4028234663852886e+38 cast to f16)"),
        ("s16", -32768, 0, "zero (s32's lowest -2147483648 cast to s16)"),
        ("u32", 0, 2147483648, "2147483648 (s32's lowest -2147483648 cast to u32)"),
        ("u64", 0, 18446744071562067968, "18446744071562067968 (s32's lowest -2147483648 cast to u64)"),
    ],
)
def test_segment_max_lowest_in_the_wrong_type(dtype, spec_fill, openvino_fill, words) -> None:
    """OpenVINO's CPU plugin takes LOWEST in f32 or i32 for these types (SPEC-NOTES)."""
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "LOWEST"},
        "inputs": [
            {"dtype": dtype, "shape": [2], "data": [1, 2]},
            {"dtype": "s32", "shape": [2], "data": [0, 2]},
        ],
    }
    assert run(with_answer(descriptor, dtype, [3], [1, spec_fill, 2])).conformant
    output = single(run(with_answer(descriptor, dtype, [3], [1, openvino_fill, 2])))
    assert output["classes"] == {"empty_fill": 1}
    assert output["first"][0]["detail"].startswith(f"segment 1 is empty: filled with {words} where LOWEST's")
    assert like_names(run(with_answer(descriptor, dtype, [3], [1, openvino_fill, 2]))) == [OPENVINO]
    assert like_names(run(with_answer(descriptor, dtype, [3], [2, openvino_fill, 2]))) == []


@pytest.mark.parametrize(
    ("answer", "classes"),
    [
        ([3, 4], {"segment_boundary": 1}),  # segment 0 took row 2, the next segment's first
        ([2, 2], {"segment_boundary": 1}),  # segment 1 took segment 0's maximum
        ([9, 4], {"value": 1}),
        (["nan", 4], {"nan_invented": 1}),
    ],
)
def test_segment_max_boundary_and_value(answer, classes) -> None:
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "ZERO"},
        "inputs": [
            {"dtype": "f32", "shape": [4], "data": [1, 2, 3, 4]},
            {"dtype": "s64", "shape": [4], "data": [0, 0, 1, 1]},
        ],
    }
    assert single(run(with_answer(descriptor, "f32", [2], answer)))["classes"] == classes


@pytest.mark.parametrize(
    ("data", "ids", "count", "answer", "spec_answer"),
    [
        ([0.0], [1], 1, [1.0], [0.0]),  # the only row's id is past num_segments
        ([], [], 2, [0.0, 5.0], [0.0, 0.0]),  # no rows at all
    ],
)
def test_segment_max_with_no_rows_in_the_output(data, ids, count, answer, spec_answer) -> None:
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "ZERO"},
        "inputs": [
            {"dtype": "f32", "shape": [len(data)], "data": data},
            {"dtype": "s32", "shape": [len(ids)], "data": ids},
            {"dtype": "s32", "shape": [], "data": count},
        ],
    }
    assert run(with_answer(descriptor, "f32", [count], spec_answer)).conformant
    output = single(run(with_answer(descriptor, "f32", [count], answer)))
    assert output["classes"] == {"empty_fill": 1}
    assert output["like"] == []


def test_segment_max_signed_zero_in_rows_of_several_elements() -> None:
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "ZERO"},
        "inputs": [
            {"dtype": "f32", "shape": [2, 2], "data": [[-0.0, 1], [0.0, 2]]},
            {"dtype": "s32", "shape": [2], "data": [0, 0]},
        ],
    }
    output = single(run(with_answer(descriptor, "f32", [1, 2], [[-0.0, 2]])))
    assert output["classes"] == {"signed_zero": 1}
    assert output["first"][0]["at"] == [0, 0]


# --- Argmax --------------------------------------------------------------------------------------

TIES = {
    "kind": "Argmax",
    "attrs": {"axis": -1, "top_k": 3},
    "inputs": [{"dtype": "sa8", "shape": [4], "data": [5, 5, 3, 5], "quant": {"scale": 1, "zero_point": 0}}],
}


def ties(answer: list[int]) -> dict:
    return single(run(with_answer(TIES, "sa32", [1, 3], [answer])))


def test_argmax_conformant_in_mli_heap_order() -> None:
    assert ties([1, 0, 3])["conformant"]


@pytest.mark.parametrize(
    ("answer", "order", "implementation"),
    [
        ([0, 1, 3], "first-occurrence", "lowest-index-first ties (a stable sort by value)"),
        ([3, 1, 0], "last-occurrence", "highest-index-first ties"),
        ([1, 3, 0], "other", None),
    ],
)
def test_argmax_tie_order_names_the_order(answer, order, implementation) -> None:
    output = ties(answer)
    assert set(output["classes"]) == {"tie_order"}
    assert output["first"][0]["detail"] == (
        f"slice 0: offset {output['first'][0]['got']} holds the same value 5; the slice's ties are given in {order} order, "
        "where MLI's heap order is due"
    )
    assert [like["implementation"] for like in output["like"]] == ([implementation] if implementation else [])


def test_argmax_not_top_k() -> None:
    output = ties([1, 0, 2])
    assert output["classes"] == {"not_top_k": 1}
    assert output["first"][0]["detail"] == "offset 2 holds 3, below the 3 largest values of slice 0"


STRIDED = {
    "kind": "Argmax",
    "attrs": {"axis": -1, "top_k": 1},
    "inputs": [
        {
            "dtype": "fx16",
            "shape": [2, 2],
            "strides": [4, 1],
            "data": [1, 9, 99, 99, 5, 7, 99, 99],
            "quant": {},
        }
    ],
}


@pytest.mark.parametrize(
    ("answer", "cls", "detail"),
    [
        (2, "padding_read", "offset 2 lies in in's stride padding, not on an element"),
        (7, "padding_read", "offset 7 lies in in's stride padding, not on an element"),
        (5, "not_top_k", "offset 5 holds 7, below the 1 largest values of slice 0"),
        (100, "value", "offset 100 is outside in's memory of 8 elements"),
        (-1, "value", "offset -1 is outside in's memory of 8 elements"),
    ],
)
def test_argmax_offsets_off_the_elements(answer, cls, detail) -> None:
    assert single(run(with_answer(STRIDED, "sa32", [1, 1], [[1]])))["conformant"]
    output = single(run(with_answer(STRIDED, "sa32", [1, 1], [[answer]])))
    assert output["classes"] == {cls: 1}
    assert output["first"][0]["detail"] == detail


AXIS_0 = {
    "kind": "Argmax",
    "attrs": {"axis": 0, "top_k": 1},
    "inputs": [{"dtype": "fx16", "shape": [2, 3], "strides": [4, 1], "data": [5, 9, 5, 99, -1, 7, 7, 99]}],
}


def test_argmax_positions_instead_of_offsets() -> None:
    assert single(run(with_answer(AXIS_0, "sa32", [2, 1], [[1], [6]])))["conformant"]
    output = single(run(with_answer(AXIS_0, "sa32", [2, 1], [[1], [2]])))
    assert output["classes"] == {"value": 1}
    assert output["first"][0]["detail"] == "offset 2 is an element of slice 0, not of slice 1"
    [like] = output["like"]
    assert like["message"] == (
        "matches slice positions instead of memory offsets (NumPy-style indices): positions within the "
        "slice, not memory offsets, in slice 1"
    )
    assert single(run(with_answer(AXIS_0, "sa32", [2, 1], [[0], [2]])))["like"] == []


def test_argmax_lowest_index_first_over_slices() -> None:
    output = single(run(with_answer(AXIS_0, "sa32", [2, 1], [[1], [5]])))
    assert output["classes"] == {"tie_order": 1}
    assert [like["message"] for like in output["like"]] == [
        "matches lowest-index-first ties (a stable sort by value): ties in lowest-index-first order in slice 1"
    ]


# --- Max -----------------------------------------------------------------------------------------

ZEROS = {
    "kind": "Max",
    "inputs": [
        {"dtype": "f32", "shape": [3], "data": [-0.0, 0.0, 1]},
        {"dtype": "f32", "shape": [3], "data": [0.0, -0.0, 2]},
    ],
}
NUMPY_MAX = "NumPy maximum (np.maximum folded over the inputs)"


def test_max_conformant_and_numpy_operand_order() -> None:
    assert run(with_answer(ZEROS, "f32", [3], [0.0, 0.0, 2])).conformant
    numpy_answer = np.maximum(np.array([-0.0, 0.0, 1], np.float32), np.array([0.0, -0.0, 2], np.float32))
    assert np.signbit(numpy_answer).tolist() == [False, True, False]  # NumPy keeps the later operand
    output = single(run(with_answer(ZEROS, "f32", [3], numpy_answer.tolist())))
    assert output["classes"] == {"signed_zero": 1}
    assert output["first"] == [{"at": [1], "expected": 0.0, "got": -0.0, "class": "signed_zero"}]
    assert [like["message"] for like in output["like"]] == [
        f"matches {NUMPY_MAX}: -0 kept over +0 by operand order at [1]"
    ]
    extra = single(run(with_answer(ZEROS, "f32", [3], [0.0, -0.0, 3])))
    assert extra["classes"] == {"signed_zero": 1, "value": 1}
    assert extra["like"] == []


@pytest.mark.parametrize(
    ("answer", "classes"),
    [([1, 1], {"nan_dropped": 1}), (["nan", "nan"], {"nan_invented": 1}), (["nan", 0.5], {"value": 1})],
)
def test_max_nan_classes(answer, classes) -> None:
    descriptor = {
        "kind": "Max",
        "inputs": [
            {"dtype": "bf16", "shape": [2], "data": ["nan", 1]},
            {"dtype": "bf16", "shape": [], "data": 1},
        ],
    }
    assert single(run(with_answer(descriptor, "bf16", [2], answer)))["classes"] == classes


def test_max_integers_have_only_value() -> None:
    descriptor = {"kind": "Max", "inputs": [{"dtype": "s8", "shape": [2], "data": [-128, 127]}]}
    output = single(run(with_answer(descriptor, "s8", [2], [-128, -1])))
    assert output["classes"] == {"value": 1}
    assert output["first"] == [{"at": [1], "expected": 127, "got": -1, "class": "value"}]


# --- ReduceMax -----------------------------------------------------------------------------------

REDUCE = {
    "kind": "ReduceMax",
    "attrs": {"axes": [1]},
    "inputs": [{"dtype": "f32", "shape": [3, 2], "data": [[0.0, -0.0], ["nan", 1], [-1, -2]]}],
}


def test_reduce_max_classes_and_numpy_max() -> None:
    assert run(with_answer(REDUCE, "f32", [3], [0.0, "nan", -1])).conformant
    numpy_answer = np.max(np.array([[0.0, -0.0], [np.nan, 1], [-1, -2]], np.float32), axis=1)
    assert np.signbit(numpy_answer[0])  # np.max keeps the later zero: the case this models
    output = single(run(with_answer(REDUCE, "f32", [3], [-0.0, "nan", -1])))
    assert output["classes"] == {"signed_zero": 1}
    assert [like["implementation"] for like in output["like"]] == ["NumPy max (np.max over the axes)"]
    output = single(run(with_answer(REDUCE, "f32", [3], [-0.0, 1, -2])))
    assert output["classes"] == {"signed_zero": 1, "nan_dropped": 1, "value": 1}
    assert output["like"] == []


# --- every modelled implementation: found when exact, not claimed with one more difference ------

# A unique maximum first: the tie orders agree with MLI's there and differ after it.
TIES_AFTER_MAX = {**TIES, "inputs": [{"dtype": "sa8", "shape": [4], "data": [9, 5, 5, 5]}]}
LIKE_CASES = {
    OPENVINO: (SEGMENTS, "f32", [6]),
    "lowest-index-first ties (a stable sort by value)": (TIES_AFTER_MAX, "sa32", [1, 3]),
    "highest-index-first ties": (TIES_AFTER_MAX, "sa32", [1, 3]),
    "slice positions instead of memory offsets (NumPy-style indices)": (AXIS_0, "sa32", [2, 1]),
    NUMPY_MAX: (ZEROS, "f32", [3]),
    "NumPy max (np.max over the axes)": (REDUCE, "f32", [3]),
}


def test_every_implementation_has_a_like_case() -> None:
    from app.ops import REGISTRY

    assert {i.name for spec in REGISTRY.values() for i in spec.implementations} == set(LIKE_CASES)


@pytest.mark.parametrize("name", list(LIKE_CASES))
def test_like_found_exactly_and_not_with_one_more_difference(name) -> None:
    from app.ops import BY_NAME, DESCRIPTOR

    document, dtype, shape = LIKE_CASES[name]
    descriptor = DESCRIPTOR.validate_python(document)
    spec = BY_NAME[descriptor.kind]
    implementation = next(i for i in spec.implementations if i.name == name)
    inputs = _inputs(descriptor)
    expected = spec.evaluate(descriptor, inputs)
    answer = implementation.run(descriptor, inputs, expected).outputs[0]
    result = run(with_answer(document, dtype, shape, _wire(answer, dtype)))
    assert like_names(result) == [name]
    same = np.flatnonzero(
        (answer == expected[0]).reshape(-1) & ~np.isnan(answer.astype(np.float64)).reshape(-1)
    )
    spoilt = answer.copy().reshape(-1)
    spoilt[same[-1]] += 1  # one element the model and the spec agree on
    result = run(with_answer(document, dtype, shape, _wire(spoilt.reshape(answer.shape), dtype)))
    assert result.outputs[0]["like"] == []
    assert (
        result.outputs[0]["mismatches"]
        == run(with_answer(document, dtype, shape, _wire(answer, dtype))).outputs[0]["mismatches"] + 1
    )


def _inputs(descriptor) -> list[np.ndarray]:
    from app.core.config import Settings
    from app.core.engine import check
    from app.ops import BY_NAME

    _, ctx = check(BY_NAME[descriptor.kind], descriptor, Settings())
    return [ctx.values(i) for i in range(len(descriptor.inputs))]


def _wire(array: np.ndarray, dtype: str):
    from app.core.payload import encode

    return encode(array, dtype, as_base64=False)
