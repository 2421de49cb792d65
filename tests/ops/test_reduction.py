"""The reduction family: the shared axes rule under every kind's ids, each kernel against a plain loop
in its stated order (bit for bit) and against oneDNN's recorded answers, the dtype table."""

from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import evaluate
from app.core.payload import encode
from app.ops import REGISTRY, reduction
from tests.conftest import same_values
from tests.ops.maximum_oracle import NARROW, every_pattern, oracle_reduce, same_bits
from tests.ops.onednn_fixtures import cases, check_case

KINDS = ["ReduceL1", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum"]
NEW = [kind for kind in KINDS if kind != "ReduceMax"]
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def post(client, kind, attrs, inputs, outputs=None) -> dict:
    body = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if outputs is not None:
        body["outputs"] = outputs
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def found(verdict, severity="error") -> list[tuple[str, str]]:
    return [(d["rule"], d["path"]) for d in verdict["diagnostics"] if d["severity"] == severity]


# --- one axes rule, seven kinds ------------------------------------------------------------------------

F32 = {"dtype": "f32", "shape": [2, 3, 4]}


@pytest.mark.parametrize("kind", KINDS)
def test_range_and_repeats_are_named_by_the_kinds_own_rules(client, kind) -> None:
    verdict = post(client, kind, {"axes": [5, 0, -3, -9]}, [F32])
    assert found(verdict) == [
        (f"{kind}.axes.range", "attrs.axes[0]"),
        (f"{kind}.axes.unique", "attrs.axes[2]"),
        (f"{kind}.axes.range", "attrs.axes[3]"),
    ]
    assert verdict["diagnostics"][0]["message"] == "axis 5 is out of range [-3, 2] for src of rank 3"


@pytest.mark.parametrize("kind", KINDS)
def test_keep_dims_and_negative_axes(client, kind) -> None:
    assert post(client, kind, {"axes": [-1, 0], "keep_dims": True}, [F32])["outputs"] == [
        {"dtype": "f32", "shape": [1, 3, 1]}
    ]
    assert post(client, kind, {"axes": [1]}, [{"dtype": "bf16", "shape": ["N", 3, 4]}])["outputs"] == [
        {"dtype": "bf16", "shape": ["N", 4]}
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_the_axes_input_and_its_oneDNN_warnings(client, kind) -> None:
    axes = {"dtype": "s32", "shape": [1], "data": [2]}
    verdict = post(client, kind, {}, [F32, axes])
    assert verdict["valid"] and verdict["outputs"] == [{"dtype": "f32", "shape": [2, 3]}]
    assert found(verdict, "warning") == [(f"{kind}.onednn.two_inputs", "inputs[1]")]
    both = post(client, kind, {"axes": [1]}, [F32, axes])
    assert (f"{kind}.axes.exclusive", "attrs.axes") in found(both)
    flat = post(client, kind, {}, [F32, {"dtype": "s32", "shape": [1, 1]}])
    assert found(flat) == [(f"{kind}.axes.rank", "inputs[1].shape")]
    unknown = post(client, kind, {"keep_dims": True}, [F32, {"dtype": "s32", "shape": [2]}])
    assert unknown["outputs"] == [{"dtype": "f32", "shape": [-1, -1, -1]}]
    empty = post(client, kind, {}, [F32])
    assert found(empty, "warning") == [(f"{kind}.onednn.empty_axes", "attrs.axes")]
    assert empty["outputs"] == [{"dtype": "f32", "shape": [2, 3, 4]}]


@pytest.mark.parametrize("kind", KINDS)
def test_an_axes_input_of_a_float_dtype_is_its_dtype_error_never_a_crash(client, kind) -> None:
    """Its values are not axes (int() of its NaN raised: a 500, found by app/reference's examples): the
    axes are unknown, so the output is of unknown dims."""
    axes = {"dtype": "f32", "shape": [2], "data": ["nan", 1]}
    verdict = post(client, kind, {"keep_dims": True}, [F32, axes])
    assert (f"{kind}.axes.dtype", "inputs[1].dtype") in found(verdict)
    assert verdict["outputs"] is None or verdict["outputs"] == [{"dtype": "f32", "shape": [-1, -1, -1]}]


@pytest.mark.parametrize("kind", KINDS)
def test_zero_size_dims_warn(client, kind) -> None:
    verdict = post(client, kind, {"axes": [1]}, [{"dtype": "f32", "shape": [0, 0, 2]}])
    assert found(verdict, "warning") == [
        (f"{kind}.reduce.empty", "inputs[0].shape[1]"),
        (f"{kind}.onednn.zero_size", "inputs[0].shape[0]"),
    ]


def test_every_member_lists_the_shared_rules_and_its_page(client) -> None:
    for kind in NEW:
        detail = client.get(f"/v1/ops/{kind}").json()
        rules = {r["id"]: r for r in detail["rules"]}
        for suffix in ("exclusive", "rank", "range", "unique"):
            assert rules[f"{kind}.axes.{suffix}"]["spec"].startswith(f"oneDNN Graph {kind}")
        assert rules[f"{kind}.onednn.two_inputs"]["severity"] == "warning"
        assert set(detail["attributes"]["properties"]) == {"axes", "keep_dims"}
        assert [p["name"] for p in detail["inputs"]] == ["src", "axes"]
        assert detail["dtypes"] == [{"src": t, "axes": "s32", "dst": t} for t in ("f32", "bf16", "f16")]


@pytest.mark.parametrize("kind", NEW)
def test_dtypes_outside_the_table(client, kind) -> None:
    assert found(post(client, kind, {"axes": [0]}, [{"dtype": "s8", "shape": [2]}])) == [
        (f"{kind}.src.dtype", "inputs[0].dtype")
    ]
    wrong = post(
        client, kind, {"axes": [0]}, [{"dtype": "f16", "shape": [2]}], [{"dtype": "f32", "shape": []}]
    )
    assert found(wrong) == [(f"{kind}.outputs.dtype", "outputs[0].dtype")]
    axes = post(
        client, kind, {}, [{"dtype": "f32", "shape": [2]}, {"dtype": "s64", "shape": [1], "data": [0]}]
    )
    assert (f"{kind}.axes.dtype", "inputs[1].dtype") in found(axes)


# --- kernels against a plain loop in the stated order ----------------------------------------------------


def f32(x: float) -> float:
    return float(np.float32(x))


def smaller(a: float, b: float) -> float:
    """The minimum of two: NaN absorbs, -0 below +0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def loop(kind: str, values: list[float]) -> float:
    """The reduced elements one at a time in src's row-major order, every step rounded to f32."""
    if kind == "ReduceMin":
        out = math.inf
        for v in values:
            out = smaller(out, v)
        return out
    acc = 1.0 if kind == "ReduceProd" else 0.0
    with np.errstate(all="ignore"):
        for v in values:
            term = abs(v) if kind == "ReduceL1" else f32(v * v) if kind == "ReduceL2" else v
            acc = f32(acc * term) if kind == "ReduceProd" else f32(acc + term)
        if kind == "ReduceMean":
            return f32(acc / len(values)) if values else math.nan
        if kind == "ReduceL2":
            return f32(math.sqrt(acc)) if acc >= 0 or math.isnan(acc) else math.nan
    return acc


def oracle(kind: str, src: np.ndarray, axes: list[int], keep: bool) -> np.ndarray:
    rank = src.ndim
    reduced = sorted({a % rank for a in axes})
    if not reduced:
        return src.copy()
    kept = [a for a in range(rank) if a not in reduced]
    out = np.empty([src.shape[a] for a in kept], dtype=np.float64)
    for index in itertools.product(*(range(src.shape[a]) for a in kept)):
        values = []
        for inner in itertools.product(*(range(src.shape[a]) for a in reduced)):
            at = [0] * rank
            for a, i in zip(kept, index, strict=True):
                at[a] = i
            for a, i in zip(reduced, inner, strict=True):
                at[a] = i
            values.append(float(src[tuple(at)]))
        out[index] = loop(kind, values)
    if keep:
        out = out.reshape([1 if a in reduced else n for a, n in enumerate(src.shape)])
    with np.errstate(all="ignore"):
        return out.astype(np.float32).astype(src.dtype)


element = st.one_of(
    st.floats(min_value=-4, max_value=4, width=16),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 65504.0]),
)


@st.composite
def reductions(draw):
    kind = draw(st.sampled_from(NEW))
    dtype = draw(st.sampled_from(sorted(NUMPY)))
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    rank = len(shape)
    axes = draw(st.lists(st.integers(-rank, rank - 1), unique_by=lambda a: a % rank, max_size=rank))
    count = math.prod(shape)
    values = np.array(draw(st.lists(element, min_size=count, max_size=count)), dtype=np.float64)
    return kind, values.astype(NUMPY[dtype]).reshape(shape), dtype, axes, draw(st.booleans())


def wire(values: np.ndarray) -> list:
    return encode(values.astype(np.float64), "f64", as_base64=False)


@settings(max_examples=300, deadline=None)
@given(reductions())
def test_kernels_equal_a_plain_loop_bit_for_bit(case) -> None:
    kind, src, dtype, axes, keep = case
    spec = REGISTRY[kind]
    descriptor = spec.descriptor.model_validate(
        {
            "kind": kind,
            "attrs": {"axes": axes, "keep_dims": keep},
            "inputs": [{"dtype": dtype, "shape": list(src.shape), "data": wire(src)}],
        }
    )
    result = evaluate(spec, descriptor, Settings()).outputs[0]
    expected = oracle(kind, src, axes, keep)
    assert result["shape"] == list(expected.shape)
    assert same_values(result["data"], encode(expected, dtype, as_base64=False))


def test_sum_is_in_the_stated_order() -> None:
    """2^24 then eight 1s, one at a time in f32: each 1 is lost (2^24 + 1 ties to even), though the
    exact sum 2^24 + 8 is an f32 (an order that adds the 1s first would find it)."""
    src = np.concatenate([[np.float32(2**24)], np.ones(8, np.float32)])
    assert reduction.folded(reduction._sum)(src, (0,), False) == np.float32(2**24)
    assert np.float32(src.astype(np.float64).sum()) == 2**24 + 8


def test_the_order_is_row_major_whatever_order_the_axes_are_given_in() -> None:
    """[[1, 1], [2^24, 1]] row-major: 1 + 1 + 2^24 = 2^24 + 2, + 1 ties to 2^24 + 4; column-major
    would give 2^24 (each 1 lost against 2^24)."""
    src = np.array([[1, 1], [2**24, 1]], np.float32)
    for axes in ((0, 1), (1, 0)):
        assert reduction.folded(reduction._sum)(src, axes, False) == np.float32(2**24 + 4)


def test_min_is_exact_with_signed_zeros_and_nan() -> None:
    src = np.array([[0.0, -0.0], [-0.0, 0.0], [np.nan, -np.inf], [np.inf, 1.0]], dtype=np.float32)
    out = reduction._min(src, (1,), False)
    assert out.tolist()[2] != out.tolist()[2]  # NaN
    assert np.signbit(out[:2]).tolist() == [True, True]
    assert out[3] == 1.0 and out.dtype == np.float32
    assert reduction._min(np.zeros((2, 0), np.float32), (1,), True).tolist() == [[math.inf], [math.inf]]


# --- against oneDNN's recorded answers ---------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("reduction"), ids=lambda c: c["name"])
def test_against_onednn(case) -> None:
    check_case(case)


def test_onednn_departs_only_where_the_docs_say() -> None:
    """oneDNN's ReduceMax and ReduceMin skip NaN, answer -0 against +0 by order, and give the largest
    finite value, not an infinity, for an empty reduction (docs/ops/reduction.md)."""
    recorded = cases("reduction")
    departing = {c["name"]: c["onednn"]["departs_at"] for c in recorded if "departs_at" in c["onednn"]}
    assert departing == {
        "ReduceMax signed zeros, NaN and infinities": [[2, 4]],
        "ReduceMin signed zeros, NaN and infinities": [[1, 2, 4]],
        "ReduceMax empty reduction": [[0, 1]],
        "ReduceMin empty reduction": [[0, 1]],
    }
    empty = {c["name"]: c["onednn"]["outputs"][0]["data"] for c in recorded if "empty reduction" in c["name"]}
    assert empty["ReduceMin empty reduction"] == [3.4028234663852886e38] * 2
    assert empty["ReduceMean empty reduction"] == ["nan", "nan"]
    assert empty["ReduceProd empty reduction"] == [1.0, 1.0]


# --- ReduceMax's kernel (ReduceMin's too) against a plain oracle, bit for bit -----------------------


@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("slab_bytes", [1 << 19, 64, 200])  # whole; slabs of one and of a few rows
def test_reduce_max_bits16_every_axes_pattern(dtype, keep_dims, slab_bytes, monkeypatch) -> None:
    monkeypatch.setattr(reduction, "_SLAB_BYTES", slab_bytes)
    rng = np.random.default_rng(3)
    x = rng.permutation(every_pattern(dtype))[: 4 * 6 * 8].reshape(4, 6, 8)
    negative = -np.abs(rng.standard_normal((4, 6, 8))).astype(dtype)
    negative[1, 2, :] = -0.0
    negative[2, :, 3] = np.array(-np.nan, dtype)
    least_nan = np.array(-np.inf, dtype).view(np.uint16) + np.uint16(1)  # the NaN nearest -inf's bits
    mixed = rng.standard_normal((4, 6, 8)).astype(dtype)
    mixed.view(np.uint16)[0, 1, 2] = least_nan
    mixed.view(np.uint16)[3, 4, :] = least_nan
    for array in (x, negative, negative[:, ::2, 1:], mixed):  # a strided view too
        for count in (1, 2, 3):
            for axes in itertools.combinations(range(3), count):
                got = reduction.reduce_max(array, axes, keep_dims)
                assert same_bits(got, oracle_reduce(array, axes, keep_dims)), (axes, array.dtype)


def _rows_with_every_tie(dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random values with, along the last axis, rows of -0s, -0s beside one +0, all negatives, and
    NaNs of either sign among positives and among negatives."""
    x = rng.standard_normal(shape).astype(dtype)
    rows = x.reshape(-1, shape[-1])
    rows[0] = -0.0
    rows[1] = -0.0
    rows[1, -1] = 0.0
    rows[2] = -np.abs(rows[2])
    rows[3, 5] = np.array(-np.nan, dtype)
    rows[4] = -np.abs(rows[4])
    rows[4, 0] = np.array(-np.nan, dtype)
    rows[5, 1] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, *NARROW], ids=str)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("forced", [True, False])  # reduceat for every trailing case, 16-bit slabs; defaults
def test_reduce_max_trailing_axes_as_rows(dtype, keep_dims, forced, monkeypatch) -> None:
    """Trailing axes of a C-contiguous array are reduced as rows of the flat array (reduceat), any axes
    before them after that; the rest, and arrays that are not C-contiguous, as before; 16-bit floats
    in slabs along the first kept axis: all exact."""
    if forced:
        monkeypatch.setattr(reduction, "_SHORTEST_ROW", 1)
        monkeypatch.setattr(reduction, "_SLAB_BYTES", 100)
    rng = np.random.default_rng(7)
    x = _rows_with_every_tie(dtype, (3, 4, 40), rng)
    arrays = [
        x,
        x[:, ::2, 1:],  # strided: reduced as before
        x.transpose(2, 0, 1),  # not C-contiguous
        np.ascontiguousarray(x.transpose(0, 2, 1)),  # the tie rows now along the middle axis
        _rows_with_every_tie(dtype, (6, 17), rng),
        np.full((1, 16), -0.0, dtype),
        np.array([np.nan, -np.inf], dtype),
        np.zeros((0, 3, 20), dtype),  # a kept dim of 0
    ]
    for array in arrays:
        for count in range(1, array.ndim + 1):
            for axes in itertools.permutations(range(array.ndim), count):  # unsorted axes too
                got = reduction.reduce_max(array, axes, keep_dims)
                want = oracle_reduce(array, tuple(sorted(axes)), keep_dims)
                assert same_bits(got, want), (array.shape, array.strides, axes)
