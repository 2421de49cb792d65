"""Per-op fuzzing with near-valid descriptors: the right kinds and attribute names, mostly the right dtypes,
small shapes (0-size dims, symbols, unknown dims and ranks), data that mostly fits and extreme values.

Unlike test_fuzz.py's random near-descriptors, these get past parsing into each op's shape rules and
kernels. Every route must answer 200, 413 or 422 (never a 500), a 200 evaluation must have the shapes
validation inferred, a batch must agree with single validation, and the CLI must never raise.

OPSPEC_FUZZ_EXAMPLES raises the example count for a longer local hunt (the suite keeps it modest).
"""

from __future__ import annotations

import base64
import json
import math
import os

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.dtypes import DTYPES, INDEX, NUMERIC, canonical_dtype
from app.formats.readers import read_source
from app.formats.source import Source
from app.ops import REGISTRY
from app.report.model import RunReport

EXAMPLES = int(os.environ.get("OPSPEC_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ALL_DTYPES = list(DTYPES)
HUGE = [2**31, 2**32, 2**40, 2**62, 2**63 - 1, 2**63, 2**64, 2**100]
SYMBOLS = ["N", "M", "?", None, -1]


# --- building blocks ----------------------------------------------------------------------------


def odds(one_in: int) -> st.SearchStrategy[bool]:
    """True one time in `one_in`. Not st.integers(0, n) == 0: hypothesis draws the bounds of a range far
    more often than their share, which would make every "rarely" common."""
    return st.sampled_from([False] * (one_in - 1) + [True])


def rarely(draw, one_in: int) -> bool:
    return draw(odds(one_in))


def mostly(good, bad, one_in: int = 8):
    """Draw from `good`, and one time in `one_in` from `bad`."""
    return odds(one_in).flatmap(lambda wrong: bad if wrong else good)


def dtypes(preferred) -> st.SearchStrategy[str]:
    return mostly(
        st.sampled_from(sorted(preferred)), st.sampled_from([*ALL_DTYPES, "F32", "int64", "float16"])
    )


sizes = mostly(st.integers(0, 4), st.sampled_from([0, 1, 2**24, 2**40, 2**63]), one_in=16)


def static_shapes(min_rank: int = 0, max_rank: int = 4, dims=sizes) -> st.SearchStrategy[list]:
    return st.lists(dims, min_size=min_rank, max_size=max_rank)


def loose(shape: list) -> st.SearchStrategy[list | None]:
    """The shape, or with some dims unknown or symbolic, or of unknown rank."""
    symbolic = st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)).flatmap(
        lambda hide: st.tuples(
            *(st.sampled_from(SYMBOLS) if h else st.just(d) for h, d in zip(hide, shape, strict=True))
        )
    )
    return st.one_of(st.just(shape), symbolic.map(list), st.none())


def element(dtype: str) -> st.SearchStrategy:
    dt = DTYPES.get(dtype)
    if dt is None or dt.category == "bool":
        return st.booleans()
    if dt.is_float:
        extreme = st.sampled_from(["nan", "inf", "-inf", -0.0, 0.0, 65504.0, 3.4e38, -3.4e38, 1e308, 5e-324])
        return mostly(st.one_of(st.integers(-5, 5), st.floats(-1e3, 1e3, width=16)), extreme, one_in=5)
    info = ml_dtypes.iinfo(dt.numpy)  # numpy's iinfo refuses ml_dtypes' int4 and uint4 (s4, u4)
    low, high = int(info.min), int(info.max)
    edge = st.sampled_from([low, high, low + 1, high - 1, 0])
    outside = st.sampled_from([low - 1, high + 1, 2**64, -(2**70), 1.5, "nan", True])
    return mostly(
        st.one_of(st.integers(max(low, -5), min(high, 5)), edge, st.integers(low, high)), outside, 30
    )


def nest(flat: list, shape: list[int]):
    """Row-major values as nested lists (a bare value for rank 0; empty lists where a dim is 0)."""
    array = np.empty(len(flat), dtype=object)
    array[:] = flat
    return array.reshape(shape).tolist()


def dense_strides(shape: list[int]) -> list[int]:
    return [math.prod(shape[axis + 1 :]) for axis in range(len(shape))]


@st.composite
def payload(draw, dtype: str, shape: list, *, ids: bool = False) -> dict:
    """data (and maybe strides) for a tensor of `shape`: mostly right, sometimes not."""
    extra: dict = {}
    if not all(isinstance(d, int) and d >= 0 for d in shape) or math.prod(shape) > 64:
        # No payload can fit; send a small one anyway, sometimes.
        if rarely(draw, 4):
            extra["data"] = draw(st.lists(element(dtype), max_size=3))
        return extra
    count = math.prod(shape)
    strided = rarely(draw, 6)
    if strided:
        strides = dense_strides(shape)
        how = draw(st.sampled_from(["dense", "padded", "zero", "negative", "huge", "short"]))
        if how == "padded" and shape:
            strides = [s * draw(st.integers(1, 3)) for s in strides[:-1]] + [
                strides[-1] + draw(st.integers(0, 1))
            ]
            strides = [max(s, 1) for s in strides]
        elif how in ("zero", "negative", "huge") and shape:
            axis = draw(st.integers(0, len(shape) - 1))
            strides[axis] = {
                "zero": 0,
                "negative": -draw(st.integers(1, 3)),
                "huge": draw(st.sampled_from(HUGE)),
            }[how]
        elif how == "short":
            strides = strides[:-1]
        extra[draw(st.sampled_from(["strides", "strides", "stride", "mem_stride"]))] = strides
        if count == 0 or any(s < 0 for s in strides) or len(strides) != len(shape):
            extent = 0 if count == 0 else count
        else:
            extent = 1 + sum((d - 1) * s for d, s in zip(shape, strides, strict=True))
        count = min(extent, 256) + draw(st.sampled_from([0, 0, 0, 1, 2, -1]))
        count = max(count, 0)
    elif rarely(draw, 11):
        count = max(0, count + draw(st.sampled_from([-1, 1])))
    itemsize = DTYPES[dtype].itemsize if dtype in DTYPES else 4
    if rarely(draw, 7):
        raw = draw(
            st.binary(min_size=count * itemsize, max_size=count * itemsize + draw(st.sampled_from([0, 0, 1])))
        )
        extra["data"] = {"encoding": "base64", "bytes": base64.b64encode(raw).decode()}
        return extra
    flat = draw(segment_ids(count) if ids else st.lists(element(dtype), min_size=count, max_size=count))
    if strided or count != math.prod(shape) or max(shape, default=0) > 64 or rarely(draw, 21):
        extra["data"] = flat if count or shape else (flat[0] if flat else [])
    else:
        extra["data"] = nest(flat, shape)
    return extra


def segment_ids(count: int) -> st.SearchStrategy[list[int]]:
    """Mostly sorted small ids >= 0; sometimes unsorted, negative or at the int64 extremes."""
    sorted_ids = st.lists(st.integers(0, 5), min_size=count, max_size=count).map(sorted)
    wild = st.lists(
        st.one_of(st.integers(-3, 6), st.sampled_from([2**31 - 1, -(2**31), 2**40, 2**63 - 1, -(2**63)])),
        min_size=count,
        max_size=count,
    )
    return mostly(sorted_ids, st.one_of(wild, wild.map(sorted)), one_in=4)


@st.composite
def tensors(draw, dtype_choice, shape: list, *, data: bool, ids: bool = False) -> dict:
    dtype = draw(dtype_choice)
    declared = draw(loose(shape)) if rarely(draw, 4) else shape
    tensor = {"dtype": dtype, "shape": declared}
    if data and declared is not None:
        tensor |= draw(payload(canonical_dtype(dtype), declared, ids=ids))
    return tensor


def with_data() -> st.SearchStrategy[bool]:
    return odds(6).map(lambda missing: not missing)  # data on the inputs, mostly


@st.composite
def declared_outputs(draw, dtype: str, shape: list | None) -> list | None:
    """A guess at the outputs, right or wrong; None (not declared) most often."""
    if not rarely(draw, 4):
        return None
    guess = shape if shape is None or draw(st.booleans()) else draw(static_shapes(0, 3))
    return [{"dtype": draw(st.sampled_from([dtype, dtype, "s32", "sa32", "f32"])), "shape": guess}]


# --- one strategy per op ------------------------------------------------------------------------


@st.composite
def reduce_max(draw) -> dict:
    shape = draw(static_shapes())
    rank = len(shape)
    data = draw(with_data())
    src = draw(tensors(dtypes(REGISTRY["ReduceMax"].inputs[0].dtypes), shape, data=data))
    axis = mostly(st.integers(-rank, max(rank - 1, 0)), st.sampled_from([rank, -rank - 1, *HUGE, -(2**63)]))
    axes = draw(st.lists(axis, max_size=rank + 1))
    attrs: dict = {}
    if not rarely(draw, 5):
        attrs["axes"] = axes
    if draw(st.booleans()):
        attrs["keep_dims"] = draw(st.booleans())
    inputs = [src]
    if rarely(draw, 5):  # axes as an input instead (or as well)
        axes_shape = draw(mostly(st.just([len(axes)]), static_shapes(0, 2, st.integers(0, 3))))
        axes_input = {"dtype": draw(dtypes({"s32"})), "shape": axes_shape}
        if data and axes_shape == [len(axes)] and not rarely(draw, 5):
            axes_input["data"] = [a if -(2**31) <= a < 2**31 else 0 for a in axes]
        inputs.append(axes_input)
        if draw(st.booleans()):
            attrs.pop("axes", None)
    body = {"kind": "ReduceMax", "attrs": attrs, "inputs": inputs}
    if (outputs := draw(declared_outputs(src["dtype"], shape))) is not None:
        body["outputs"] = outputs
    return body


@st.composite
def segment_max(draw) -> dict:
    rows = draw(sizes)
    inner = draw(static_shapes(0, 2))
    data = draw(with_data())
    shape = draw(mostly(st.just([rows, *inner]), st.just([])))
    inputs = [draw(tensors(dtypes(NUMERIC), shape, data=data))]
    ids_length = draw(mostly(st.just(rows), sizes))
    inputs.append(draw(tensors(dtypes(INDEX), [ids_length], data=data or draw(st.booleans()), ids=True)))
    if draw(st.booleans()):
        count = {
            "dtype": draw(dtypes(INDEX)),
            "shape": draw(mostly(st.just([]), st.sampled_from([[0], [1], None]))),
        }
        if not rarely(draw, 6):
            count["data"] = draw(
                mostly(
                    st.integers(0, 6),
                    st.sampled_from([-1, -(2**31), 2**31 - 1, 2**40, 2**63 - 1, 2**63, 2**24]),
                )
            )
        inputs.append(count)
    mode = st.sampled_from(["ZERO", "LOWEST", "zero", "lowest", "Lowest"])
    attrs = draw(
        mostly(
            st.fixed_dictionaries({"fill_mode": mode}),
            st.one_of(
                st.fixed_dictionaries({"empty_segment_value": mode}),
                st.fixed_dictionaries({"fill_mode": mode, "empty_segment_value": mode}),
                st.just({}),
                st.fixed_dictionaries({"fill_mode": st.sampled_from(["MIN", "", "nan"])}),
            ),
            4,
        )
    )
    kind = draw(st.sampled_from(["SegmentMax", "SegmentMax-16"]))
    body = {"kind": kind, "attrs": attrs, "inputs": inputs}
    if (outputs := draw(declared_outputs(inputs[0]["dtype"], shape))) is not None:
        body["outputs"] = outputs
    return body


@st.composite
def max_op(draw) -> dict:
    out = draw(static_shapes(0, 4))
    dtype = draw(dtypes(NUMERIC))
    data = draw(with_data())
    inputs = []
    for _ in range(draw(st.integers(1, 4))):
        drop = draw(st.integers(0, len(out)))
        shape = [1 if rarely(draw, 3) else d for d in out[drop:]]
        if rarely(draw, 13) and shape:  # break the strict rule
            shape[draw(st.integers(0, len(shape) - 1))] = draw(st.integers(0, 5))
        inputs.append(draw(tensors(mostly(st.just(dtype), dtypes(NUMERIC), 12), shape, data=data)))
    body = {"kind": "Max", "inputs": inputs}
    if rarely(draw, 16):
        body["attrs"] = draw(st.sampled_from([{}, {"axis": 0}]))
    if (outputs := draw(declared_outputs(dtype, out))) is not None:
        body["outputs"] = outputs
    return body


@st.composite
def argmax(draw) -> dict:
    kind = draw(st.sampled_from(["Argmax", "mli_krn_argmax_sa8", "mli_krn_argmax_fx16"]))
    own = {"mli_krn_argmax_sa8": {"sa8"}, "mli_krn_argmax_fx16": {"fx16"}}.get(kind, {"sa8", "fx16"})
    shape = draw(mostly(static_shapes(1, 4, mostly(st.integers(1, 4), sizes)), static_shapes(0, 5)))
    rank = len(shape)
    data = draw(with_data())
    src = draw(tensors(dtypes(own), shape, data=data))
    if rarely(draw, 3):
        sa8 = {
            "scale": mostly(st.integers(1, 4), st.sampled_from([0, -1, 0.5, [1, 2], 2**40, "inf", "nan"])),
            "zero_point": mostly(st.integers(-3, 3), st.sampled_from([2**15, -(2**15) - 1, [0], 2**70])),
            "scale_frac_bits": mostly(st.integers(0, 8), st.sampled_from([[1, 2], -1, 2**40])),
            "dim": mostly(st.just(-1), st.sampled_from([0, 1, 3, -(2**40), 2**40])),
        }
        fx16 = {"frac_bits": mostly(st.integers(0, 15), st.sampled_from([-1, 2**40]))}
        names = draw(st.sets(st.sampled_from([*sa8, *fx16])))
        src["quant"] = {name: draw((sa8 | fx16)[name]) for name in names}
    axis = draw(mostly(st.integers(-1, max(rank - 1, 0)), st.sampled_from([rank, rank + 1, -(2**63), *HUGE])))
    rest = shape if axis < 0 or axis >= rank else shape[:axis] + shape[axis + 1 :]
    slice_size = math.prod(d for d in rest if isinstance(d, int))
    top_k = draw(
        mostly(st.integers(1, max(1, min(slice_size, 8))), st.sampled_from([0, -1, slice_size + 1, *HUGE]))
    )
    key = draw(st.sampled_from(["top_k", "top_k", "topk"]))
    attrs = {"axis": axis, key: top_k}
    if rarely(draw, 21):
        attrs.pop(draw(st.sampled_from(["axis", key])))
    body = {"kind": kind, "attrs": attrs, "inputs": [src]}
    if rarely(draw, 3):
        dim = 1 if axis < 0 or axis >= rank else shape[axis]
        out = {"dtype": draw(st.sampled_from(["sa32", "sa32", "s32"])), "shape": [dim, top_k]}
        if draw(st.booleans()):
            out["strides"] = draw(st.sampled_from([[top_k, 1], [top_k + 1, 1], [1, 1]]))
        body["outputs"] = [out]
    if rarely(draw, 31):
        body["inputs"].append(dict(src))
    return body


# --- the properties -----------------------------------------------------------------------------

STATUSES = (200, 413, 422)


def check_everywhere(client, body: dict) -> None:
    validated = client.post("/v1/validate", json=body)
    assert validated.status_code in STATUSES, (validated.status_code, validated.text)
    verdict = validated.json() if validated.status_code == 200 else None

    evaluated = client.post("/v1/evaluate", json=body)
    assert evaluated.status_code in STATUSES, (evaluated.status_code, evaluated.text)
    if evaluated.status_code == 200:
        assert verdict is not None and verdict["valid"], (verdict, evaluated.text)
        got = [(o["dtype"], o["shape"]) for o in evaluated.json()["outputs"]]
        assert got == [(o["dtype"], o["shape"]) for o in verdict["outputs"]], (got, verdict)
    if verdict is not None and not verdict["valid"]:
        assert evaluated.status_code == 422, evaluated.text

    batch = client.post("/v1/validate/batch", json={"ops": [body, body]})
    assert batch.status_code in STATUSES, (batch.status_code, batch.text)
    if verdict is not None:
        assert batch.status_code == 200, batch.text
        assert batch.json()["results"] == [verdict, verdict]

    run = RunReport()
    run.add(read_source(Source("fuzz.json", json.dumps(body).encode())))
    code = run.exit_code()
    if verdict is not None:
        assert code == (0 if verdict["valid"] else 1), (code, verdict, run)
    else:
        assert code == 2, run

    inferred_fit = verdict is not None and all(
        not isinstance(d, int) or d < 2**63 for o in verdict["outputs"] or [] for d in o["shape"] or []
    )  # ids up to 2**63 - 1 infer 2**63 segments, a dim the wire format (int64) cannot declare
    if inferred_fit and verdict["outputs"] is not None and "outputs" not in body:
        # Declaring exactly the inferred outputs never adds an error.
        declared = client.post("/v1/validate", json={**body, "outputs": verdict["outputs"]})
        assert declared.status_code == 200, declared.text
        assert declared.json()["valid"] == verdict["valid"], declared.text


@FUZZ
@given(reduce_max())
def test_reduce_max(client, body) -> None:
    check_everywhere(client, body)


@FUZZ
@given(segment_max())
def test_segment_max(client, body) -> None:
    check_everywhere(client, body)


@FUZZ
@given(max_op())
def test_max(client, body) -> None:
    check_everywhere(client, body)


@FUZZ
@given(argmax())
def test_argmax(client, body) -> None:
    check_everywhere(client, body)
