"""The `rounding` class: a difference within the op's stated Tolerance (ulps of the output dtype, or
absolute) conforms and is counted; beyond it, or on an exact op, it is `value`; NaN and signed-zero
differences keep their own classes whatever the tolerance."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from app.core.mismatch import Tolerance, ulp_distance, within_tolerance

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_ulp_distance_counts_representable_values(dtype) -> None:
    one = np.array([1.0], dtype=dtype)
    up = np.nextafter(one, np.array([2.0], dtype=dtype))
    assert ulp_distance(one, up).tolist() == [1]
    assert ulp_distance(up, one).tolist() == [1]
    tiny = np.array([ml_dtypes.finfo(dtype).smallest_subnormal], dtype=dtype)
    # across zero: -tiny, (-0 = +0), +tiny is two steps; -0 and +0 are one value
    assert ulp_distance(-tiny, tiny).tolist() == [2]
    assert ulp_distance(np.array([-0.0], dtype=dtype), np.array([0.0], dtype=dtype)).tolist() == [0]


def test_within_tolerance_by_ulps_or_absolute_never_for_nan_or_inf() -> None:
    want = np.array([1.0, 1.0, 1e-30, 1.0, np.inf, np.nan], dtype=np.float32)
    got = np.array([1.0, 1.0, 0.0, 1.0, np.inf, np.nan], dtype=np.float32)
    got[0] = np.nextafter(np.float32(1), np.float32(2))
    got[1] = np.float32(1) + 5 * np.finfo(np.float32).eps
    got[3] = np.float32(1) + np.float32(2**-10)
    tolerance = Tolerance(ulps=4, absolute=1e-20)
    assert within_tolerance(tolerance, want, got).tolist() == [True, False, True, False, False, False]
    assert within_tolerance(Tolerance(ulps=4), want, got).tolist() == [
        True,
        False,
        False,
        False,
        False,
        False,
    ]


def _verify(client, kind: str, src: list, given: list, attrs: dict | None = None, dtype: str = "f32") -> dict:
    body = {
        "kind": kind,
        "attrs": attrs or {},
        "inputs": [{"dtype": dtype, "shape": [len(src)], "data": src}],
        "outputs": [{"dtype": dtype, "shape": [len(given)], "data": given}],
    }
    response = client.post("/v1/verify", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _spec_answer(client, kind: str, src: list, dtype: str = "f32") -> list:
    body = {"kind": kind, "attrs": {}, "inputs": [{"dtype": dtype, "shape": [len(src)], "data": src}]}
    return client.post("/v1/evaluate", json=body).json()["outputs"][0]["data"]


def test_rounding_only_answers_conform_and_are_counted(client) -> None:
    src = [0.5, 1.0, 2.0, -3.0]
    want = np.array(_spec_answer(client, "Tanh", src), dtype=np.float32)
    given = want.copy()
    given[1] = np.nextafter(given[1], np.float32(0))
    given[3] = np.nextafter(np.nextafter(given[3], np.float32(0)), np.float32(0))
    answer = _verify(client, "Tanh", src, given.tolist())
    (output,) = answer["outputs"]
    assert answer["conformant"] and output["conformant"]
    assert output["mismatches"] == 2 and output["classes"] == {"rounding": 2}
    assert [(m["at"], m["class"]) for m in output["first"]] == [([1], "rounding"), ([3], "rounding")]


def test_beyond_the_tolerance_is_value_and_not_conformant(client) -> None:
    src = [1.0, 2.0]
    given = np.array(_spec_answer(client, "Tanh", src), dtype=np.float32)
    given[0] = given[0] * np.float32(1.0001)  # about 800 ulps
    given[1] = np.nextafter(given[1], np.float32(0))
    answer = _verify(client, "Tanh", src, given.tolist())
    assert not answer["conformant"]
    assert answer["outputs"][0]["classes"] == {"rounding": 1, "value": 1}


def test_an_exact_op_has_no_rounding(client) -> None:
    answer = _verify(client, "ReLU", [2.0], [float(np.nextafter(np.float32(2), np.float32(3)))])
    assert not answer["conformant"] and answer["outputs"][0]["classes"] == {"value": 1}


def test_nan_and_signed_zero_keep_their_classes_on_an_inexact_op(client) -> None:
    answer = _verify(client, "Tanh", [-0.0, "nan", 1.0], [0.0, 1.0, "nan"])
    assert answer["outputs"][0]["classes"] == {"nan_dropped": 1, "nan_invented": 1, "signed_zero": 1}
    assert not answer["conformant"]


def test_the_absolute_bound_covers_results_near_zero(client) -> None:
    # Log near 1 is near 0, where ulps are tiny: oneDNN's log is ~2^-18 off absolutely there.
    want = _spec_answer(client, "Log", [1.25])[0]
    answer = _verify(client, "Log", [1.25], [float(np.float32(want) + np.float32(3e-6))])
    assert answer["conformant"] and answer["outputs"][0]["classes"] == {"rounding": 1}


def test_ulps_are_counted_in_the_output_dtype(client) -> None:
    want = np.array(_spec_answer(client, "Exp", [1.0], "bf16"), dtype=BF16)
    two_up = np.nextafter(np.nextafter(want, np.array([9], BF16)), np.array([9], BF16))
    answer = _verify(client, "Exp", [1.0], [float(two_up[0])], dtype="bf16")
    assert answer["conformant"] and answer["outputs"][0]["classes"] == {"rounding": 1}


def test_get_op_lists_rounding_only_where_a_tolerance_is_stated(client) -> None:
    exp = client.get("/v1/ops/Exp").json()
    assert "rounding" in [c["id"] for c in exp["mismatch_classes"]]
    assert exp["tolerance"]["exact"] is False and exp["tolerance"]["ulps"] == 4
    relu = client.get("/v1/ops/ReLU").json()
    assert "rounding" not in [c["id"] for c in relu["mismatch_classes"]]
    assert relu["tolerance"] == {
        "exact": True,
        "ulps": 0,
        "absolute": 0.0,
        "why": "The spec defines each output value exactly (a selection, comparison or single rounding).",
    }
