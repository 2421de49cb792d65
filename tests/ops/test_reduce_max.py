"""ReduceMax: evaluation against a plain-loop oracle, hypothesis properties, and rule checks."""

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
from app.core.payload import LimitExceeded, decode, encode
from app.core.tensors import Tensor
from app.ops import REGISTRY, reduce_max
from tests.conftest import same_values
from tests.test_library import assert_lane_is_the_full_way

SPEC = REGISTRY["ReduceMax"]
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def larger(a: float, b: float) -> float:
    """The oracle's maximum of two: NaN absorbs, +0 beats -0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return a if math.copysign(1, a) > 0 else b
    return a if a > b else b


def oracle(values: np.ndarray, axes: list[int], keep_dims: bool) -> np.ndarray:
    rank = values.ndim
    reduced = sorted({a % rank for a in axes}) if axes else []
    if not reduced:
        return values.copy()
    out_full = [1 if a in reduced else n for a, n in enumerate(values.shape)]
    out = np.empty(out_full, dtype=np.float64)
    for index in itertools.product(*(range(n) for n in out_full)):
        best = -math.inf
        ranges = [range(values.shape[a]) if a in reduced else [index[a]] for a in range(rank)]
        for source in itertools.product(*ranges):
            best = larger(best, float(values[source]))
        out[index] = best
    if not keep_dims:
        out = out.reshape([n for a, n in enumerate(out_full) if a not in reduced])
    return out.astype(values.dtype)


element = st.one_of(
    st.floats(allow_nan=False, width=16),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0]),
)


@st.composite
def reductions(draw):
    dtype = draw(st.sampled_from(sorted(NUMPY)))
    shape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    rank = len(shape)
    axes = draw(st.lists(st.integers(-rank, rank - 1), unique_by=lambda a: a % rank, max_size=rank))
    keep = draw(st.booleans())
    count = math.prod(shape)
    flat = draw(st.lists(element, min_size=count, max_size=count))
    values = np.array(flat, dtype=np.float64).astype(NUMPY[dtype]).reshape(shape)
    return dtype, values, axes, keep


def wire(values: np.ndarray) -> list:
    return encode(values.astype(np.float64), "f64", as_base64=False)  # non-finite values as strings


@settings(max_examples=150, deadline=None)
@given(reductions())
def test_evaluation_matches_the_oracle_bit_for_bit(case) -> None:
    dtype, values, axes, keep = case
    descriptor = reduce_max.ReduceMaxOp(
        kind="ReduceMax",
        attrs={"axes": axes, "keep_dims": keep},
        inputs=[{"dtype": dtype, "shape": list(values.shape), "data": wire(values)}],
    )
    result = evaluate(SPEC, descriptor, Settings())
    expected = oracle(values, axes, keep)
    assert result.outputs[0]["shape"] == list(expected.shape)
    expected_wire = Tensor(dtype=dtype, shape=list(expected.shape), data=wire(expected))
    decoded = decode(expected_wire, "expected", Settings())
    assert same_values(result.outputs[0]["data"], _encode(decoded, dtype))


def _encode(array: np.ndarray, dtype: str):
    from app.core.payload import encode

    return encode(array, dtype, as_base64=False)


@settings(max_examples=100, deadline=None)
@given(reductions())
def test_every_output_is_an_input_or_minus_infinity(case) -> None:
    """The maximum is one of the reduced values (or -inf when there are none), never above any."""
    dtype, values, axes, _ = case
    if not axes:
        return
    out = reduce_max.evaluate(
        reduce_max.ReduceMaxOp(
            kind="ReduceMax",
            attrs={"axes": axes, "keep_dims": True},
            inputs=[{"dtype": dtype, "shape": list(values.shape)}],
        ),
        [values],
    )[0].astype(np.float64)
    wide = values.astype(np.float64)
    axes = tuple(a % wide.ndim for a in axes)
    nan_slice = np.isnan(wide).any(axis=axes, keepdims=True)
    assert np.array_equal(np.isnan(out), nan_slice)
    clean = np.broadcast_to(~nan_slice, wide.shape)
    assert (np.broadcast_to(out, wide.shape)[clean] >= wide[clean]).all()
    hits = (np.broadcast_to(out, wide.shape) == wide) & clean
    empty = wide.size == 0 or any(wide.shape[a] == 0 for a in axes)
    assert empty or np.array_equal(hits.any(axis=axes, keepdims=True), ~nan_slice)


def post(client, attrs, inputs, outputs=None):
    body = {"kind": "ReduceMax", "attrs": attrs, "inputs": inputs}
    if outputs is not None:
        body["outputs"] = outputs
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def errors(verdict) -> list[tuple[str, str]]:
    return [(d["rule"], d["path"]) for d in verdict["diagnostics"] if d["severity"] == "error"]


def test_every_range_and_duplicate_error_is_reported(client) -> None:
    verdict = post(client, {"axes": [5, 0, -3, -9]}, [{"dtype": "f32", "shape": [2, 3, 4]}])
    assert errors(verdict) == [
        ("ReduceMax.axes.range", "attrs.axes[0]"),
        ("ReduceMax.axes.unique", "attrs.axes[2]"),
        ("ReduceMax.axes.range", "attrs.axes[3]"),
    ]
    messages = [d["message"] for d in verdict["diagnostics"]]
    assert messages[0] == "axis 5 is out of range [-3, 2] for src of rank 3"
    assert messages[2] == "axis -9 is out of range [-3, 2] for src of rank 3"


def test_errors_and_outputs_together(client) -> None:
    """A wrong src dtype is reported along with the axis problems, not instead of them."""
    verdict = post(client, {"axes": [3]}, [{"dtype": "s32", "shape": [2, 3]}])
    assert {rule for rule, _ in errors(verdict)} == {"ReduceMax.src.dtype", "ReduceMax.axes.range"}
    assert verdict["outputs"] is None


def test_aliased_dtype_names_are_answered_canonically(client) -> None:
    verdict = post(
        client, {"axes": [0]}, [{"dtype": "FP16", "shape": [4, 2]}], [{"dtype": "float16", "shape": [2]}]
    )
    assert verdict["valid"] is True
    assert verdict["outputs"] == [{"dtype": "f16", "shape": [2]}]


def test_axes_input_data_with_bad_values_is_reported(client) -> None:
    verdict = post(
        client, {}, [{"dtype": "f32", "shape": [2]}, {"dtype": "s32", "shape": [1], "data": [2**40]}]
    )
    assert ("ReduceMax.inputs.data", "inputs[1].data[0]") in errors(verdict)


def test_large_evaluation_equals_numpy(client) -> None:
    rng = np.random.default_rng(7)
    values = rng.standard_normal((64, 33, 5)).astype(np.float32)
    descriptor = reduce_max.ReduceMaxOp(
        kind="ReduceMax", attrs={"axes": [0, 2]}, inputs=[{"dtype": "f32", "shape": [64, 33, 5]}]
    )
    got = reduce_max.evaluate(descriptor, [values])[0]
    assert got.dtype == np.float32
    assert np.array_equal(got, values.max(axis=(0, 2)))


# --- the quick verdict against the full check -------------------------------------------------------

_QUICK_DIMS = st.one_of(
    st.integers(1, 6), st.integers(1, 6), st.integers(0, 6), st.sampled_from([None, "?", -1, "N", "W", 2**40])
)


@st.composite
def _plain_ish_reduce_max(draw) -> dict:
    """ReduceMax descriptors near the quick verdict's edge on every side: axes out of range, repeated or
    none; 0 dims; unknown ranks; other dtypes; declared outputs that agree, conflict or are partial;
    data, strides, a second input."""
    rank = draw(st.integers(0, 4))
    shape = draw(st.one_of(st.just(None), st.lists(_QUICK_DIMS, min_size=rank, max_size=rank)))
    src: dict = {
        "dtype": draw(st.sampled_from(["f32", "bf16", "f16", "s32", "F32", "float16"])),
        "shape": shape,
    }
    if draw(st.integers(0, 9)) == 0:
        src[draw(st.sampled_from(["strides", "data"]))] = [1]
    descriptor: dict = {"kind": "ReduceMax", "inputs": [src]}
    attrs: dict = {}
    if rank and shape is not None and draw(st.integers(0, 2)):  # mostly axes that are fine
        chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
        attrs["axes"] = [axis - rank if draw(st.booleans()) else axis for axis in chosen]
    elif draw(st.booleans()):
        attrs["axes"] = draw(st.lists(st.integers(-5, 4), max_size=4))
    if draw(st.booleans()):
        attrs["keep_dims"] = draw(st.booleans())
    if attrs or draw(st.booleans()):
        descriptor["attrs"] = attrs
    if draw(st.integers(0, 9)) == 0:
        descriptor["inputs"].append({"dtype": "s32", "shape": [1]})
    if draw(st.integers(0, 2)):
        out_rank = draw(st.integers(0, 4))
        out = {
            "dtype": draw(st.sampled_from([src["dtype"], src["dtype"], "f32", "bf16"])),
            "shape": draw(
                st.one_of(st.just(None), st.lists(_QUICK_DIMS, min_size=out_rank, max_size=out_rank))
            ),
        }
        if shape is not None and attrs.get("axes") and draw(st.booleans()):  # the shape it should have
            reduced = {axis % len(shape) for axis in attrs["axes"] if -len(shape) <= axis < len(shape)}
            keep = attrs.get("keep_dims", False)
            out["shape"] = [
                1 if keep and i in reduced else dim for i, dim in enumerate(shape) if keep or i not in reduced
            ]
            if out["shape"] and draw(st.booleans()):
                out["shape"][draw(st.integers(0, len(out["shape"]) - 1))] = draw(_QUICK_DIMS)
        if draw(st.integers(0, 9)) == 0:
            out["strides"] = [1]
        descriptor["outputs"] = draw(st.sampled_from([[out], [out, out], []]))
    return descriptor


@given(_plain_ish_reduce_max())
@settings(max_examples=400)
def test_quick_verdict_is_the_full_checks(descriptor) -> None:
    """Through pydantic's models and msgspec's first pass alike: where the quick verdict answers, it is
    the full check's verdict (valid, outputs, no diagnostics); where the full check finds anything, the
    quick verdict leaves it the answer."""
    import json

    from app.core import engine
    from app.ops import BY_NAME, DESCRIPTOR, first_pass

    spec = BY_NAME["ReduceMax"]
    text = json.dumps(descriptor).encode()
    parsed = []
    try:
        parsed.append(DESCRIPTOR.validate_json(text))
    except ValueError:
        return  # not a descriptor: no verdict either way
    fast = first_pass.descriptor(text)
    if fast is not None:
        parsed.append(fast)
    for d in parsed:
        try:
            full = engine.check(spec, d, Settings())[0]
        except LimitExceeded:  # data over a limit: a refusal (413), which the quick verdict never takes
            assert reduce_max.quick_verdict(d) is None
            continue
        quick = reduce_max.quick_verdict(d)
        if quick is not None:
            assert quick == full
            assert full.valid and full.diagnostics == []
        assert engine.verdict(spec, d, Settings()) == full


def test_the_quick_verdict_takes_the_common_case() -> None:
    from app.ops import first_pass

    text = b'{"kind": "ReduceMax", "attrs": {"axes": [1], "keep_dims": true}, "inputs": [{"dtype": "f32", "shape": [2, "N", 4]}], "outputs": [{"dtype": "f32", "shape": [2, 1, 4]}]}'
    verdict = reduce_max.quick_verdict(first_pass.descriptor(text))
    assert verdict is not None and verdict.valid and verdict.outputs[0].shape == (2, 1, 4)


# --- quick_evaluate (the library's lane) against the full way it shortcuts -------------------------


@st.composite
def near_plain_reduce_max(draw):
    """ReduceMax descriptors as dicts with array data: plain ones, and ones a step off plain (an alias,
    an empty or repeated or out-of-range axis, a dim of 0, an array of another dtype or shape, an
    extra key, a bool or None where an int or bool goes), with -0, +0 and NaNs of either sign."""
    from app.core.dtypes import DTYPES

    def off() -> bool:  # one step off plain, now and then
        return draw(st.integers(0, 11)) == 0

    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    if off():
        shape[draw(st.integers(0, len(shape) - 1))] = 0
    dtype = draw(st.sampled_from(["f32", "f16", "bf16"]))
    if off():
        dtype = draw(st.sampled_from(["float32", "s32", "f64"]))
    numpy_type = DTYPES["f32" if dtype == "float32" else dtype].numpy
    values = st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, -np.nan])
    count = math.prod(shape)
    data = np.array(draw(st.lists(values, min_size=count, max_size=count)), np.float64)
    data = data.astype(np.float32).astype(numpy_type).reshape(shape)
    if off():
        data = draw(st.sampled_from([data.astype(np.float64), data.reshape(-1), np.asfortranarray(data)]))
    tensor: dict = {"dtype": dtype, "shape": list(shape), "data": data}
    if off():
        tensor["shape"] = [True, *shape[1:]] if shape[0] == 1 else [*shape[:-1], shape[-1] + 1]
    if off():
        tensor["strides"] = None
    rank = len(shape)
    chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [axis - rank if draw(st.booleans()) else axis for axis in chosen]
    if off():
        axes = draw(st.sampled_from([[], [*axes, axes[0]], [*axes, rank], [-rank - 1], [True], [0.0]]))
    attrs: dict = {"axes": axes}
    if draw(st.booleans()):
        attrs["keep_dims"] = draw(st.booleans())
    if off():
        attrs["keep_dims"] = draw(st.sampled_from([None, 1, "yes"]))
    descriptor: dict = {"kind": "ReduceMax", "inputs": [tensor]}
    if not off():
        descriptor["attrs"] = attrs
    if off():
        descriptor["outputs"] = [{"dtype": dtype, "shape": [1]}]
    return descriptor


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@settings(max_examples=400, deadline=None)
@given(
    near_plain_reduce_max(), st.sampled_from([None, Settings(max_elements=12), Settings(max_total_bytes=40)])
)
def test_quick_evaluate_answers_as_the_full_way(descriptor, limits) -> None:
    """quick_evaluate (the library's lane) answers exactly as the full way it shortcuts
    (_evaluate_checked): the same answer, dtypes, shapes and bits (-0 is not +0; NaN's bits too), or it
    declines and the full way answers or raises as before."""
    assert_lane_is_the_full_way(reduce_max.quick_evaluate, descriptor, limits)
