"""SegmentMax: evaluation against a plain-loop oracle, hypothesis over layouts, and every rule both ways."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.dtypes import DTYPES, NUMERIC
from app.core.engine import evaluate
from app.core.payload import encode
from app.ops import REGISTRY, segment_max
from tests.conftest import same_values
from tests.ops.maximum_oracle import oracle_max, same_bits

SPEC = REGISTRY["SegmentMax"]
TYPES = sorted(NUMERIC, key=list(DTYPES).index)


def larger(a, b):
    """The oracle's maximum of two: NaN absorbs, +0 beats -0."""
    if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
        return math.nan
    if a == b == 0 and isinstance(a, float):
        return a if math.copysign(1, a) > 0 else b
    return a if a > b else b


def oracle(data: np.ndarray, ids: list[int], count: int | None, mode: str) -> np.ndarray:
    """One segment at a time, one element at a time, in Python numbers."""
    dt = next(d for d in DTYPES.values() if d.numpy == data.dtype and d.category != "raw")
    count = (max(ids) + 1 if ids else 0) if count is None else count
    fill = dt.lowest if mode == "LOWEST" else 0
    inner = data.shape[1:]
    out = np.empty((count, *inner), dtype=data.dtype)
    for segment in range(count):
        rows = [row for row, i in enumerate(ids) if i == segment]
        for index in np.ndindex(*inner):
            best = None
            for row in rows:
                value = data[(row, *index)].item()
                value = float(value) if dt.is_float else int(value)
                best = value if best is None else larger(best, value)
            out[(segment, *index)] = fill if best is None else best
    return out


def same_array(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal dtype, shape and values, with NaN equal to NaN and -0.0 unequal to 0.0."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind in "iu":
        return bool(np.array_equal(got, want))
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(g)
    return bool((nan == np.isnan(w)).all() and (g[~nan] == w[~nan]).all() and
                (np.signbit(g[~nan]) == np.signbit(w[~nan])).all())  # fmt: skip


def values_of(dtype: str):
    dt = DTYPES[dtype]
    if dt.is_float:
        special = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, float(dt.lowest), float(dt.highest)]
        return st.one_of(st.floats(-1e4, 1e4, width=16), st.sampled_from(special))
    return st.one_of(
        st.integers(int(dt.lowest), int(dt.highest)), st.sampled_from([dt.lowest, dt.highest, 0])
    )


@st.composite
def layouts(draw):
    """dtype, data, sorted ids (few or many segments, gaps, one segment, none), num_segments, mode."""
    dtype = draw(st.sampled_from(TYPES))
    rows = draw(st.integers(0, 12))
    inner = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    highest = draw(st.sampled_from([0, 1, 2, 6, 40]))  # 0: one segment; 40: mostly empty segments
    ids = sorted(draw(st.lists(st.integers(0, highest), min_size=rows, max_size=rows)))
    implied = ids[-1] + 1 if ids else 0
    count = draw(st.one_of(st.none(), st.integers(0, implied + 3), st.just(implied)))
    mode = draw(st.sampled_from(["ZERO", "LOWEST"]))
    size = rows * math.prod(inner)
    flat = draw(st.lists(values_of(dtype), min_size=size, max_size=size))
    numpy_type = DTYPES[dtype].numpy
    data = np.array(flat, dtype=np.float64 if DTYPES[dtype].is_float else object).astype(numpy_type)
    return dtype, data.reshape((rows, *inner)), ids, count, mode


def descriptor(dtype, shape, count, mode, index_type="s64"):
    inputs = [{"dtype": dtype, "shape": list(shape)}, {"dtype": index_type, "shape": [shape[0]]}]
    if count is not None:
        inputs.append({"dtype": "s32", "shape": []})
    return segment_max.SegmentMaxOp(kind="SegmentMax", attrs={"fill_mode": mode}, inputs=inputs)


def run(dtype, data, ids, count, mode, index_type="s64") -> np.ndarray:
    index = np.array(ids, dtype=DTYPES[index_type].numpy)
    arrays = [data, index] + ([] if count is None else [np.array(count, dtype=np.int32)])
    return segment_max.evaluate(descriptor(dtype, data.shape, count, mode, index_type), arrays)[0]


@settings(max_examples=300, deadline=None)
@given(layouts(), st.sampled_from(["s32", "s64"]))
def test_evaluation_matches_the_oracle_bit_for_bit(case, index_type) -> None:
    dtype, data, ids, count, mode = case
    assert same_array(run(dtype, data, ids, count, mode, index_type), oracle(data, ids, count, mode))


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_evaluation_through_the_engine_matches_the_oracle(case) -> None:
    """The same through wire payloads: decoding, inference, the size checks and encoding."""
    dtype, data, ids, count, mode = case
    wide = data.astype(np.float64) if DTYPES[dtype].is_float else data
    wire = (
        encode(wide, "f64", as_base64=False)  # non-finite values as strings
        if DTYPES[dtype].is_float
        else data.tolist()
    )
    inputs = [
        {"dtype": dtype, "shape": list(data.shape), "data": wire},
        {"dtype": "s32", "shape": [len(ids)], "data": ids},
    ]
    if count is not None:
        inputs.append({"dtype": "s64", "shape": [], "data": count})
    d = segment_max.SegmentMaxOp(kind="SegmentMax", attrs={"fill_mode": mode}, inputs=inputs)
    result = evaluate(SPEC, d, Settings()).outputs[0]
    want = oracle(data, ids, count, mode)
    assert result["shape"] == list(want.shape)
    assert same_values(result["data"], encode(want, dtype, as_base64=False))


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "s16", "u64"])
@pytest.mark.parametrize(("rows", "segments", "count"), [(4000, 10, 12), (4000, 10, None), (300, 200, 150)])
def test_dense_and_sparse_paths_agree_with_the_oracle(dtype, rows, segments, count) -> None:
    """Many rows per segment (found by binary search) and few (found by a pass over the ids), with
    padding and truncation, on a payload with zeros of both signs, NaN and empty segments."""
    rng = np.random.default_rng(rows + segments)
    ids = np.sort(rng.choice(np.arange(segments)[::2], rows)).tolist()
    values = rng.integers(-3, 3, (rows, 2)).astype(np.float64)
    if DTYPES[dtype].is_float:
        values[rng.random(values.shape) < 0.3] = -0.0
        values[rng.random(values.shape) < 0.001] = math.nan
    else:
        values = np.abs(values)
    data = values.astype(DTYPES[dtype].numpy)
    assert same_array(run(dtype, data, ids, count, "LOWEST"), oracle(data, ids, count, "LOWEST"))


# --- rules, through the API ---------------------------------------------------------------------


def post(client, attrs, inputs, outputs=None, kind="SegmentMax"):
    body = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if outputs is not None:
        body["outputs"] = outputs
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def findings(verdict, severity="error") -> list[tuple[str, str, str]]:
    return [(d["rule"], d["path"], d["message"]) for d in verdict["diagnostics"] if d["severity"] == severity]


def test_every_error_is_reported_with_its_place_and_values(client) -> None:
    verdict = post(
        client,
        {},
        [
            {"dtype": "f32", "shape": [6, 2]},
            {"dtype": "s32", "shape": [5], "data": [0, 3, -1, 2, -4]},
            {"dtype": "s64", "shape": [1], "data": [3]},
        ],
    )
    assert findings(verdict) == [
        ("SegmentMax.fill_mode.required", "attrs.fill_mode",
         "fill_mode is required: ZERO or LOWEST, what an empty segment holds"),
        ("SegmentMax.segment_ids.length", "inputs[1].shape[0]",
         "segment_ids has length 5, but data [6, 2] has 6 rows; there must be one id per row"),
        ("SegmentMax.num_segments.rank", "inputs[2].shape",
         "num_segments must be a scalar, shape []; it has shape [1]"),
        ("SegmentMax.segment_ids.negative", "inputs[1].data[2]",
         "segment id -1 at position 2 is negative (2 ids are negative in all); ids must be >= 0"),
        ("SegmentMax.segment_ids.sorted", "inputs[1].data[2]",
         "segment_ids must be sorted in non-decreasing order; id -1 at position 2 is below id 3 at position 1"),
    ]  # fmt: skip
    assert verdict["outputs"] == [{"dtype": "f32", "shape": [-1, 2]}]


def test_the_stale_attribute_name_is_read_with_a_warning(client) -> None:
    inputs = [{"dtype": "f32", "shape": [2], "data": [1, 2]}, {"dtype": "s32", "shape": [2], "data": [1, 1]}]
    verdict = post(client, {"empty_segment_value": "zero"}, inputs)
    assert verdict["valid"] is True
    assert [(d["rule"], d["path"]) for d in verdict["diagnostics"]] == [
        ("SegmentMax.fill_mode.stale_name", "attrs.empty_segment_value")
    ]
    evaluated = client.post(
        "/v1/evaluate",
        json={"kind": "SegmentMax", "attrs": {"empty_segment_value": "zero"}, "inputs": inputs},
    )
    assert evaluated.status_code == 200
    assert same_values(evaluated.json()["outputs"][0]["data"], [0.0, 2.0])


def test_a_missing_fill_mode_blocks_evaluation(client) -> None:
    body = {
        "kind": "SegmentMax",
        "inputs": [{"dtype": "f32", "shape": [1], "data": [1]}, {"dtype": "s32", "shape": [1], "data": [0]}],
    }
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 422
    assert [d["rule"] for d in response.json()["diagnostics"]] == ["SegmentMax.fill_mode.required"]


@pytest.mark.parametrize(("value", "why"), [("MAX", "not one of ZERO, LOWEST"), (0, "'ZERO' or 'LOWEST'")])
def test_a_fill_mode_that_is_no_mode_is_a_422(client, value, why) -> None:
    body = {"kind": "SegmentMax", "attrs": {"fill_mode": value}, "inputs": []}
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["path"] == "attrs.fill_mode"
    assert why in error["message"]


@pytest.mark.parametrize(
    ("data", "ids", "count", "shape"),
    [
        (["N", 3], ["N"], None, [-1, 3]),  # a symbol against a symbol
        (["N", 3], [4], None, [-1, 3]),  # a symbol against a number
        ([None, 3], ["M"], 5, [5, 3]),  # unknown against a symbol
        ([4, "C"], [4], 2, [2, "C"]),
    ],
)
def test_first_dims_are_compared_soundly(client, data, ids, count, shape) -> None:
    inputs = [{"dtype": "f32", "shape": data}, {"dtype": "s32", "shape": ids}]
    if count is not None:
        inputs.append({"dtype": "s32", "shape": [], "data": count})
    verdict = post(client, {"fill_mode": "ZERO"}, inputs)
    assert verdict["valid"] is True, verdict["diagnostics"]
    assert verdict["outputs"] == [{"dtype": "f32", "shape": shape}]


def test_lowest_dtype_warning_only_for_the_types_openvino_gets_wrong(client) -> None:
    def warned(dtype: str) -> bool:
        inputs = [{"dtype": dtype, "shape": [1]}, {"dtype": "s32", "shape": [1]}]
        return any(
            d["rule"] == "SegmentMax.openvino.lowest_dtype"
            for d in post(client, {"fill_mode": "LOWEST"}, inputs)["diagnostics"]
        )

    # OpenVINO 2026.4's CPU plugin computes these in f32 or i32 (SPEC-NOTES, measured): f64 and s64 too.
    assert {t for t in TYPES if warned(t)} == {"f16", "f64", "s16", "s64", "u16", "u32", "u64"}
    message = next(
        d["message"]
        for d in post(
            client, {"fill_mode": "LOWEST"}, [{"dtype": "f16", "shape": [1]}, {"dtype": "s32", "shape": [1]}]
        )["diagnostics"]
    )
    assert "-65504" in message


def test_nan_and_minus_infinity_warnings_name_the_element(client) -> None:
    inputs = [
        {"dtype": "bf16", "shape": [3, 2], "data": [[1, 2], ["-inf", "nan"], ["-inf", 5]]},
        {"dtype": "s32", "shape": [3], "data": [0, 1, 1]},
    ]
    verdict = post(client, {"fill_mode": "ZERO"}, inputs)
    assert [(rule, path) for rule, path, _ in findings(verdict, "warning")] == [
        ("SegmentMax.openvino.nan", "inputs[0].data[1][1]"),
        ("SegmentMax.openvino.neg_inf", "inputs[0].data[1][0]"),
    ]


def test_dropped_rows_raise_no_value_warnings(client) -> None:
    """Rows whose ids reach past num_segments do not reach the output, so their NaN does not matter."""
    inputs = [
        {"dtype": "f32", "shape": [3], "data": [1, "nan", "-inf"]},
        {"dtype": "s32", "shape": [3], "data": [0, 1, 2]},
        {"dtype": "s32", "shape": [], "data": 1},
    ]
    verdict = post(client, {"fill_mode": "ZERO"}, inputs)
    assert verdict["valid"] is True and verdict["diagnostics"] == []


def test_op_detail_lists_rules_notes_and_the_dtype_table(client) -> None:
    detail = client.get("/v1/ops/SegmentMax-16").json()
    assert detail["kind"] == "SegmentMax" and detail["aliases"] == ["SegmentMax-16"]
    rules = {r["id"]: r for r in detail["rules"]}
    assert rules["SegmentMax.openvino.nan"]["severity"] == "warning"
    assert rules["SegmentMax.segment_ids.sorted"]["severity"] == "error"
    assert len(detail["dtypes"]) == 12 * 2 * 2
    # Not required by the schema: a missing fill_mode is answered with a verdict (fill_mode.required).
    assert "anyOf" not in detail["attributes"] and "required" not in detail["attributes"]
    assert "SegmentMax.fill_mode.required" in rules
    assert len(detail["notes"]) >= 5


def test_large_evaluation_equals_numpy() -> None:
    rng = np.random.default_rng(3)
    data = rng.standard_normal((5000, 7)).astype(np.float32)
    ids = np.sort(rng.integers(0, 300, 5000))
    got = run("f32", data, ids.tolist(), 320, "ZERO")
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    want = np.zeros((320, 7), np.float32)
    want[ids[starts]] = np.maximum.reduceat(data, starts, axis=0)
    assert same_array(got, want)


@pytest.mark.parametrize(
    ("ids", "count"),
    [([0, 1], 2**62), ([0, 2**63 - 1], None)],
)
def test_a_huge_first_dim_beside_a_zero_is_refused_not_a_crash(client, ids, count) -> None:
    """[2**62, 0] holds no elements, but NumPy cannot lay it out: 413 naming the limit, never a 500."""
    inputs = [
        {"dtype": "f32", "shape": [2, 0], "data": [[], []]},
        {"dtype": "s64", "shape": [2], "data": ids},
    ]
    if count is not None:
        inputs.append({"dtype": "s64", "shape": [], "data": count})
    body = {"kind": "SegmentMax", "attrs": {"fill_mode": "ZERO"}, "inputs": inputs}
    verdict = client.post("/v1/validate", json=body).json()
    assert verdict["valid"] is True
    assert verdict["outputs"][0]["shape"] == [count or 2**63, 0]
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 413
    assert "max_elements" in response.json()["detail"]


@st.composite
def ids_in_any_order(draw):
    """ids sorted or not, some negative or none, beside data from `layouts` (its own rows)."""
    dtype, data, ids, count, mode = draw(layouts())
    if ids and draw(st.booleans()):
        ids = draw(st.permutations(ids))
    if ids and draw(st.booleans()):
        ids = [i - draw(st.integers(0, 3)) for i in ids]
    return dtype, data, ids, count, mode


@settings(max_examples=300, deadline=None)
@given(ids_in_any_order(), st.sampled_from(["s32", "s64"]))
def test_value_shortcuts_answer_as_the_full_scans(case, index_type) -> None:
    """The one-minimum shortcuts (_all_non_negative, _may_hold_nan_or_minus_inf) against the scans
    they skip, forced to run: the same verdict, diagnostics and outputs through app.validate."""
    from unittest import mock

    import app

    dtype, data, ids, count, mode = case
    inputs = [
        {"dtype": dtype, "shape": list(data.shape), "data": data},
        {"dtype": index_type, "shape": [len(ids)], "data": np.array(ids, DTYPES[index_type].numpy)},
    ]
    if count is not None:
        inputs.append({"dtype": "s32", "shape": [], "data": np.array(count, np.int32)})
    body = {"kind": "SegmentMax", "attrs": {"fill_mode": mode}, "inputs": inputs}
    shortcut = app.validate(body)
    with (
        mock.patch.object(segment_max, "_all_non_negative", lambda ids: False),
        mock.patch.object(segment_max, "_may_hold_nan_or_minus_inf", lambda wide: True),
    ):
        assert app.validate(body) == shortcut


# --- the kernel against a plain oracle, bit for bit ---------------------------------------------------


@pytest.mark.parametrize("longest", [5, 64, 65])  # folded by place in the run; and reduceat past 64
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_segment_max_rows_folded_by_place_in_run(longest, dtype) -> None:
    rng = np.random.default_rng(4)
    lengths = rng.integers(0, longest + 1, 40)
    lengths[3] = longest
    ids = np.repeat(np.arange(40), lengths).astype(np.int64)
    x = rng.standard_normal((ids.size, 3, 2)).astype(dtype)
    if dtype == np.float32:
        rows = np.flatnonzero(ids == 3)
        x[rows] = -0.0
        x[rows[-1], 0, 0] = 0.0  # +0 in the last row of a run of -0s: the maximum there is +0
        x[rows[0], 1, 0] = -1.0
        x[5, 1, 1] = np.nan
    count = 42  # two trailing empty segments too
    got = segment_max.segment_max(x, ids, count, fill=-7)
    want = np.full((count, 3, 2), -7, dtype=dtype)
    for segment in range(count):
        rows = x[ids == segment]
        if len(rows):
            want[segment] = oracle_max(list(rows))
    assert same_bits(got, want)
