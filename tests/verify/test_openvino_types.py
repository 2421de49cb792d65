"""OpenVINO 2026.4's CPU SegmentMax as SPEC-NOTES measures it, modelled exactly for verify's `like`: f16
and f64 computed in f32; s16, s64, u16, u32 and u64 in s32, values converted (a u32 of 4,000,000,000
becomes negative and loses its segment's maximum); LOWEST fills that follow (f32's lowest for f64, -inf
for f16, s32's lowest for s64, 0 for s16 and u16, 2^31 for u32, 2^64 - 2^31 for u64). The message names
every departure it explains."""

from __future__ import annotations

import pytest

from tests.verify.cases import like_names, run, with_answer

OPENVINO = "OpenVINO 2026.4 CPU"
LOWEST_F32 = -3.4028234663852886e38


def _case(dtype: str, data: list, ids: list, answer: list, fill: str = "LOWEST") -> dict:
    count = len(answer)
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": fill},
        "inputs": [
            {"dtype": dtype, "shape": [len(data)], "data": data},
            {"dtype": "s32", "shape": [len(ids)], "data": ids},
            {"dtype": "s32", "shape": [], "data": count},
        ],
    }
    return with_answer(descriptor, dtype, [count], answer)


@pytest.mark.parametrize(
    ("dtype", "fill"),
    [
        ("f64", LOWEST_F32),
        ("f16", "-inf"),
        ("s64", -(2**31)),
        ("s16", 0),
        ("u32", 2**31),
        ("u64", 2**64 - 2**31),
    ],
)
def test_lowest_fills_in_the_compute_type_are_like_openvino(dtype, fill) -> None:
    result = run(_case(dtype, [5, 7], [0, 0], [7, fill]))  # segment 1 is empty
    assert like_names(result) == [OPENVINO]
    [like] = result.outputs[0]["like"]
    assert "empty segments filled with" in like["message"] and "segment 1" in like["message"]


def test_a_u32_past_s32_loses_its_segments_maximum_as_openvino_computes_it() -> None:
    """4,000,000,000 becomes -294,967,296 in s32, so 5 is the maximum OpenVINO gives."""
    result = run(_case("u32", [4_000_000_000, 5, 9], [0, 0, 1], [5, 9]))
    assert result.outputs[0]["mismatches"] == 1
    assert like_names(result) == [OPENVINO]
    [like] = result.outputs[0]["like"]
    assert like["message"] == (
        "matches OpenVINO 2026.4 CPU: values computed in s32 (converted from u32, and back) in segment 0"
    )


def test_an_s64_past_s32_is_converted_too() -> None:
    big = 2**40 + 3  # s32 keeps its low 32 bits: 3
    result = run(_case("s64", [big, 4], [0, 0], [4]))
    assert like_names(result) == [OPENVINO]
    assert (
        "values computed in s32 (converted from s64, and back) in segment 0"
        in result.outputs[0]["like"][0]["message"]
    )


def test_own_types_are_not_converted() -> None:
    """f32, s32, u8 are computed in their own type: the spec's answer only, nothing to be like."""
    result = run(_case("u8", [200, 5], [0, 0], [200, 0]))
    assert result.conformant and like_names(result) == []
