"""The binary family (app/ops/binary.py): shapes and rules against the pages and oneDNN 3.13, kernels
against oneDNN's own outputs (tests/ops/oracle/binary, recorded by record.py there) and against plain
per-element loops written from the pages' formulas and the computations the ops' notes state."""

from __future__ import annotations

import base64
import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import run
from app.ops import DESCRIPTOR, REGISTRY
from app.ops.binary import SUM_TOLERANCE

ORACLE = Path(__file__).parent / "oracle" / "binary"
NUMPY = {"f32": np.float32, "s32": np.int32, "boolean": np.bool_}
KINDS = ("Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "SquaredDifference", "GreaterEqual",
         "Select", "Pow", "PReLU", "PReLUBackward", "BiasAdd", "BiasAddBackward")  # fmt: skip


def evaluate(descriptor: dict) -> list[np.ndarray]:
    d = DESCRIPTOR.validate_python(descriptor)
    verdict, outputs = run(REGISTRY[d.kind], d, Settings())
    assert verdict.valid
    return outputs


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype == np.bool_ else a.view(f"u{a.itemsize}")


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: equal bits (-0 is not +0), or both NaN."""
    same = bits(got) == bits(want)
    if got.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(want)
    return same


def within(got: np.ndarray, want: np.ndarray, tolerance) -> np.ndarray:
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: such positions must match bit for bit
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return same_bits(got, want) | (diff <= tolerance.ulps * ulp) | (diff <= tolerance.absolute)


def decoded(tensor: dict) -> np.ndarray:
    raw = base64.b64decode(tensor["data"]["bytes"])
    return np.frombuffer(raw, NUMPY[tensor["dtype"]]).reshape(tensor["shape"])


# --- oneDNN's own outputs ------------------------------------------------------------------------------


def _oracle_cases() -> list:
    out = []
    for path in sorted(ORACLE.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            out.append(pytest.param(case, id=case["name"]))
    return out


@pytest.mark.parametrize("case", _oracle_cases())
def test_kernel_equals_onednn(case) -> None:
    """Bit for bit (dtype, shape, -0, NaN), except PReLUBackward's diff_slope, a sum: within its tolerance."""
    outputs = evaluate(case["descriptor"])
    assert len(outputs) == len(case["outputs"])
    for index, (got, expected) in enumerate(zip(outputs, case["outputs"], strict=True)):
        want = decoded(expected)
        assert got.dtype == want.dtype and got.shape == want.shape
        summed = case["descriptor"]["kind"] == "PReLUBackward" and index == 1
        ok = within(got, want, SUM_TOLERANCE) if summed else same_bits(got, want)
        assert ok.all(), [(g, w) for g, w in zip(got[~ok], want[~ok], strict=True)][:5]


def test_oracle_fixtures_cover_every_kind_onednn_runs_alone() -> None:
    recorded = {json.loads(p.read_text())["cases"][0]["descriptor"]["kind"] for p in ORACLE.glob("*.json")}
    # Pow and BiasAddBackward: oneDNN 3.13's CPU engine runs no partition of either alone.
    assert recorded == set(KINDS) - {"Pow", "BiasAddBackward"}


# --- plain loops from the formulas -------------------------------------------------------------------------


def f32(x: float) -> float:
    """x rounded to the nearest f32 (overflow to +-inf), as a Python float."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _sub(a: float, b: float) -> float:
    return f32(a - b)


def _div(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)
    return f32(a / b)


SCALAR = {
    "Add": lambda a, b: f32(a + b),
    "Subtract": _sub,
    "Multiply": lambda a, b: f32(a * b),
    "Divide": _div,
    "Maximum": lambda a, b: a if a > b else b,
    "Minimum": lambda a, b: a if a < b else b,
    "SquaredDifference": lambda a, b: f32(_sub(a, b) * _sub(a, b)),
    "GreaterEqual": lambda a, b: a >= b,
}

floats = st.one_of(
    st.floats(width=32, allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0]),
)


@st.composite
def broadcast_pairs(draw):
    """Two shapes that broadcast (NumPy's rule, 0 beside 1 included) and their f32 values."""
    rank = draw(st.integers(0, 3))
    out = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    shapes = []
    for _ in range(2):
        lead = draw(st.integers(0, rank))
        shapes.append([d if draw(st.booleans()) else 1 for d in out[lead:]])
    values = [np.array(draw(st.lists(floats, min_size=math.prod(s), max_size=math.prod(s))), np.float32).reshape(s) for s in shapes]  # fmt: skip
    return values


@pytest.mark.parametrize("kind", list(SCALAR))
@settings(max_examples=40, deadline=None)
@given(pair=broadcast_pairs())
def test_binary_equals_a_loop_over_the_formula(kind, pair) -> None:
    a, b = pair
    wire = [{"dtype": "f32", "shape": list(x.shape), "data": {"encoding": "base64", "bytes": base64.b64encode(x.tobytes()).decode()}} for x in (a, b)]  # fmt: skip
    (got,) = evaluate({"kind": kind, "inputs": wire})
    A, B = np.broadcast_arrays(a, b)
    want = [SCALAR[kind](float(x), float(y)) for x, y in zip(A.ravel(), B.ravel(), strict=True)]
    want = np.array(want, np.bool_ if kind == "GreaterEqual" else np.float32).reshape(A.shape)
    assert got.shape == want.shape
    assert same_bits(got, want).all(), (a, b, got, want)


def test_maximum_and_minimum_take_src_1_on_ties_and_nan() -> None:
    a = [-0.0, 0.0, "nan", 1.0, "nan"]
    b = [0.0, -0.0, 1.0, "nan", "nan"]
    inputs = [{"dtype": "f32", "shape": [5], "data": a}, {"dtype": "f32", "shape": [5], "data": b}]
    (high,) = evaluate({"kind": "Maximum", "inputs": inputs})
    (low,) = evaluate({"kind": "Minimum", "inputs": inputs})
    for got in (high, low):
        assert bits(got[:2]).tolist() == bits(np.array([0.0, -0.0], np.float32)).tolist()
        assert got[2] == 1.0 and np.isnan(got[3]) and np.isnan(got[4])


def test_s32_is_computed_in_f32_and_saturated() -> None:
    big = [{"dtype": "s32", "shape": [3], "data": [16777217, 2147483647, -2147483648]},
           {"dtype": "s32", "shape": [3], "data": [0, 1, -1]}]  # fmt: skip
    (total,) = evaluate({"kind": "Add", "inputs": big})
    assert total.dtype == np.int32 and total.tolist() == [16777216, 2147483520, -2147483648]
    (ge,) = evaluate({"kind": "GreaterEqual", "inputs": [
        {"dtype": "s32", "shape": [1], "data": [16777216]}, {"dtype": "s32", "shape": [1], "data": [16777217]}]})  # fmt: skip
    assert ge.dtype == np.bool_ and ge.tolist() == [True]


def test_mixed_dtypes_round_once_to_dst() -> None:
    # bf16 1 + 2^-8 is exact in bf16; f32 1 + 2^-20 rounds to nearest: f32 dst keeps both.
    (out,) = evaluate({"kind": "Add", "inputs": [{"dtype": "f32", "shape": [1], "data": [2**-20]},
                                                {"dtype": "bf16", "shape": [1], "data": [1 + 2**-7]}]})  # fmt: skip
    assert out.dtype == np.float32 and out[0] == np.float32(1 + 2**-7 + 2**-20)
    (out,) = evaluate({"kind": "Multiply", "inputs": [{"dtype": "bf16", "shape": [1], "data": [1 + 2**-7]},
                                                     {"dtype": "bf16", "shape": [1], "data": [1 + 2**-7]}],
                       "outputs": [{"dtype": "f32", "shape": [1]}]})  # fmt: skip
    assert out.dtype == np.float32 and out[0] == np.float32((1 + 2**-7) ** 2)  # exact in f32, not in bf16


def _prelu_loop(src: float, slope: float) -> float:
    pos = 0.0 if src < 0.0 else src
    neg = 0.0 if src > 0.0 else src
    return f32(pos + f32(slope * neg))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(floats, floats), min_size=1, max_size=12))
def test_prelu_equals_its_stated_computation(pairs) -> None:
    src = [p[0] for p in pairs]
    slope = [p[1] for p in pairs]

    def enc(v):
        return {"encoding": "base64", "bytes": base64.b64encode(np.array(v, np.float32).tobytes()).decode()}

    (got,) = evaluate({"kind": "PReLU", "attrs": {"per_channel_broadcast": False},
                       "inputs": [{"dtype": "f32", "shape": [1, len(src)], "data": enc(src)},
                                  {"dtype": "f32", "shape": [len(src)], "data": enc(slope)}]})  # fmt: skip
    s32 = np.array(src, np.float32)
    p32 = np.array(slope, np.float32)
    want = np.array([_prelu_loop(float(s), float(p)) for s, p in zip(s32, p32, strict=True)], np.float32)
    assert same_bits(got.ravel(), want).all(), (src, slope, got, want)


def test_prelu_per_channel_slope_follows_data_format() -> None:
    src = np.arange(-6, 6, dtype=np.float32).reshape(2, 3, 2)
    for fmt, slope, axis in (("NCX", [1.0, 10.0, 100.0], 1), ("NXC", [1.0, 10.0], 2)):
        (got,) = evaluate({"kind": "PReLU", "attrs": {"data_format": fmt},
                           "inputs": [{"dtype": "f32", "shape": [2, 3, 2], "data": src.ravel().tolist()},
                                      {"dtype": "f32", "shape": [len(slope)], "data": slope}]})  # fmt: skip
        for index in np.ndindex(src.shape):
            x = src[index]
            want = x if x >= 0 else x * slope[index[axis]]
            assert got[index] == want


def test_prelu_backward_equals_a_loop() -> None:
    rng = np.random.default_rng(7)
    src, dd = (
        rng.standard_normal((2, 3, 4)).astype(np.float32),
        rng.standard_normal((2, 3, 4)).astype(np.float32),
    )
    slope = rng.standard_normal(3).astype(np.float32)
    diff_src, diff_slope = evaluate({"kind": "PReLUBackward", "attrs": {"data_format": "NCX"}, "inputs": [
        {"dtype": "f32", "shape": [2, 3, 4], "data": src.ravel().tolist()},
        {"dtype": "f32", "shape": [3], "data": slope.tolist()},
        {"dtype": "f32", "shape": [2, 3, 4], "data": dd.ravel().tolist()}]})  # fmt: skip
    sums = [0.0, 0.0, 0.0]
    for n, c, w in np.ndindex(2, 3, 4):
        s, g = float(src[n, c, w]), float(dd[n, c, w])
        assert diff_src[n, c, w] == np.float32(g if s > 0 else f32(slope[c] * g))
        if s <= 0:
            sums[c] += s * g
    assert within(diff_slope, np.array(sums, np.float32), SUM_TOLERANCE).all()


def test_bias_add_and_backward_equal_loops() -> None:
    rng = np.random.default_rng(3)
    src = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for fmt, axis in (("NCX", 1), ("NXC", 3)):
        bias = rng.standard_normal(src.shape[axis]).astype(np.float32)
        (dst,) = evaluate({"kind": "BiasAdd", "attrs": {"data_format": fmt}, "inputs": [
            {"dtype": "f32", "shape": list(src.shape), "data": src.ravel().tolist()},
            {"dtype": "f32", "shape": [len(bias)], "data": bias.tolist()}]})  # fmt: skip
        (diff_bias,) = evaluate({"kind": "BiasAddBackward", "attrs": {"data_format": fmt}, "inputs": [
            {"dtype": "f32", "shape": list(src.shape), "data": src.ravel().tolist()}]})  # fmt: skip
        sums = [0.0] * len(bias)
        for index in np.ndindex(src.shape):
            c = index[axis]
            assert dst[index] == np.float32(f32(float(src[index]) + float(bias[c])))
            sums[c] += float(src[index])
        exact = np.array(
            [math.fsum(src.take(c, axis).ravel().tolist()) for c in range(len(bias))], np.float32
        )
        assert within(diff_bias, exact, SUM_TOLERANCE).all()


@pytest.mark.parametrize("beta", [0.0, 1.0, 2.0, 0.5, -1.0, 1.5, -0.5, 3.0, 0.3])
def test_pow_is_ieee_pow_rounded_once(beta) -> None:
    values = [-0.0, 0.0, -2.0, 2.0, 0.5, "nan", "inf", "-inf", 1e-30, 3.0, 1e30]
    (got,) = evaluate({"kind": "Pow", "attrs": {"beta": beta}, "inputs": [{"dtype": "f32", "shape": [11], "data": values}]})  # fmt: skip
    for x, g in zip(np.array([float(v) for v in values], np.float32), got, strict=True):
        y = float(np.float32(beta))
        odd = y.is_integer() and y % 2 == 1
        if x == 0 and y < 0:  # IEEE pow: a pole, signed where y is an odd integer (Python raises)
            want = math.copysign(math.inf, float(x)) if odd else math.inf
        else:
            try:
                want = math.pow(float(x), y)
            except ValueError:  # a negative base with a non-integer exponent
                want = math.nan
            except OverflowError:
                want = math.copysign(math.inf, float(x)) if odd else math.inf
        want32 = np.float32(f32(want))
        assert same_bits(np.array([g]), np.array([want32])).all(), (x, beta, g, want32)


# --- validation: shapes and rules ------------------------------------------------------------------------


def validate(
    client, kind: str, shapes: list, attrs: dict | None = None, dtypes: list | None = None, outputs=None
):
    dtypes = dtypes or ["f32"] * len(shapes)
    body = {"kind": kind, "attrs": attrs or {}, "inputs": [{"dtype": t, "shape": s} for t, s in zip(dtypes, shapes, strict=True)]}  # fmt: skip
    if outputs is not None:
        body["outputs"] = outputs
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def findings(verdict) -> list[tuple[str, str, str, str]]:
    return [(d["severity"], d["rule"], d["path"], d["message"]) for d in verdict["diagnostics"]]


@pytest.mark.parametrize(
    ("kind", "shapes", "attrs", "dtypes", "shape"),
    [
        ("Add", [[2, 3, 4], [3, 1]], {}, None, [2, 3, 4]),
        ("Multiply", [[0], [1]], {}, None, [0]),  # NumPy's rule, as oneDNN's: a 1 stretches to 0
        ("Subtract", [[2, 0], []], {}, None, [2, 0]),
        ("Divide", [[], []], {}, None, []),
        ("GreaterEqual", [["N", 3], [3]], {}, ["s32", "s32"], ["N", 3]),
        ("Maximum", [[4, 5], [4, 5]], {"auto_broadcast": "none"}, None, [4, 5]),
        ("Select", [[4, 5], [2, 3, 4, 5], [2, 3, 4, 5]], {}, ["boolean", "f32", "f32"], [2, 3, 4, 5]),
        ("Select", [[3, 1, 5], [2, 3, 4, 5], [1]], {}, ["boolean", "f32", "f32"], [2, 3, 4, 5]),
        ("PReLU", [[2, 3, 4], [3]], {"data_format": "NCX"}, None, [2, 3, 4]),
        ("PReLU", [[2, 3, 4], [4]], {"data_format": "NCX", "per_channel_broadcast": False}, None, [2, 3, 4]),
        ("PReLU", [[2, 3, 4], [2, 1, 4]], {}, None, [2, 3, 4]),
        ("BiasAdd", [[2, 3, 4], [3]], {"data_format": "NCX"}, None, [2, 3, 4]),
        ("BiasAdd", [[2, 3, 4], [4]], {}, None, [2, 3, 4]),
        ("BiasAddBackward", [[2, 3, 4, 5]], {"data_format": "NCX"}, None, [3]),
        ("Pow", [[2, 3]], {"beta": 2}, None, [2, 3]),
    ],
)  # fmt: skip
def test_valid_shapes_are_inferred(client, kind, shapes, attrs, dtypes, shape) -> None:
    verdict = validate(client, kind, shapes, attrs, dtypes)
    assert verdict["valid"], verdict["diagnostics"]
    assert verdict["outputs"][0]["shape"] == shape
    assert not [d for d in verdict["diagnostics"] if d["severity"] == "error"]


@pytest.mark.parametrize(
    ("kind", "shapes", "attrs", "dtypes", "expected"),
    [
        ("Add", [[2, 3], [4]], {}, None,
         ("Add.broadcast", "inputs[0].shape[1]", "Add: src_0 [2, 3] has 3 in dim 1 of the broadcast, where another "
          "input has 4; with auto_broadcast numpy each input has 4 or 1 there")),
        ("Add", [[3], [3, 1]], {"auto_broadcast": "none"}, None,
         ("Add.auto_broadcast.none", "inputs[1].shape", "Add: src_1 has shape [3, 1] and src_0 [3]; with "
          "auto_broadcast none the shapes must be equal (numpy broadcasts them)")),
        ("Add", [[2], [2]], {"auto_broadcast": "bidirectional"}, None,
         ("Add.attrs.value", "attrs.auto_broadcast", "auto_broadcast is 'bidirectional'; Add supports 'none', 'numpy'")),
        ("Select", [[3, 5], [2, 3, 4, 5], [2, 3, 4, 5]], {}, ["boolean", "f32", "f32"],
         ("Select.cond.broadcast", "inputs[0].shape[0]", "Select: cond [3, 5] has 3 in dim 0, against 4 of src_0 "
          "and src_1 broadcast [2, 3, 4, 5] (aligned on the right); cond's size must be 4 or 1")),
        ("Select", [[1, 2, 3, 4, 5], [2, 3, 4, 5], [5]], {}, ["boolean", "f32", "f32"],
         ("Select.cond.broadcast", "inputs[0].shape", "Select: cond [1, 2, 3, 4, 5] has rank 5, above the rank 4 of "
          "src_0 and src_1 broadcast [2, 3, 4, 5]; cond broadcasts one way to it")),
        ("Select", [[1, 5], [4, 5], [4, 5]], {"auto_broadcast": "none"}, ["boolean", "f32", "f32"],
         ("Select.auto_broadcast.none", "inputs[1].shape", "Select: src_0 has shape [4, 5] and cond [1, 5]; with "
          "auto_broadcast none the shapes must be equal (numpy broadcasts them)")),
        ("PReLU", [[2, 3, 4], [3]], {}, None,
         ("PReLU.slope.shape", "inputs[1].shape[0]", "PReLU: slope has 3 elements, but src [2, 3, 4] has 4 in its "
          "channel dim 2 (data_format NXC); slope is 1-D of src's channel count (per_channel_broadcast true), 1-D of "
          "src's last dim (false), or nD with each dim, from the right, src's or 1")),
        ("PReLU", [[2, 3, 4], [5, 2, 3, 4]], {}, None,
         ("PReLU.slope.shape", "inputs[1].shape", "PReLU: slope [5, 2, 3, 4] has rank 4, above src [2, 3, 4]'s 3; "
          "slope is 1-D of src's channel count (per_channel_broadcast true), 1-D of src's last dim (false), or nD "
          "with each dim, from the right, src's or 1")),
        ("PReLUBackward", [[2, 3, 4], [4], [2, 3, 4]], {"data_format": "NCX"}, None,
         ("PReLUBackward.slope.shape", "inputs[1].shape[0]", "PReLUBackward: slope has 4 elements, but src [2, 3, 4] "
          "has 3 channels (dim 1, data_format NCX); slope is 1-D of src's channel count or of 1, or nD equal to "
          "src's shape without its first dim (PyTorch and TensorFlow cases)")),
        ("PReLUBackward", [[2, 3, 4], [3], [2, 3, 5]], {"data_format": "NCX"}, None,
         ("PReLUBackward.diff_dst.shape", "inputs[2].shape", "PReLUBackward: diff_dst [2, 3, 5] and src [2, 3, 4] "
          "differ; they are the same shape (PReLU's dst and src)")),
        ("BiasAdd", [[4], [4]], {}, None,
         ("BiasAdd.src.rank", "inputs[0].shape", "BiasAdd: src [4] has rank 1; it needs rank 2 or more (a batch dim "
          "and a channel dim, as data_format NXC lays them out)")),
        ("BiasAdd", [[2, 4], [1, 4]], {}, None,
         ("BiasAdd.bias.rank", "inputs[1].shape", "BiasAdd: bias [1, 4] has rank 2; bias is 1-D")),
        ("BiasAddBackward", [[4]], {}, None,
         ("BiasAddBackward.diff_dst.rank", "inputs[0].shape", "BiasAddBackward: diff_dst [4] has rank 1; it needs "
          "rank 2 or more (a batch dim and a channel dim, as data_format NXC lays them out)")),
        ("Pow", [[2]], {}, None,
         ("Pow.attrs.required", "attrs", "Pow needs the attribute beta (f32: exponent, beta in the formula); it is not "
          "given")),
        ("Pow", [[2]], {"beta": [2, 3]}, None,
         ("Pow.beta.f32", "attrs.beta", "Pow: beta is a list of 2 values; beta is one f32 value, within "
          "+-3.40282e+38")),
        ("Pow", [[2]], {"beta": 1e39}, None,
         ("Pow.beta.f32", "attrs.beta", "Pow: beta is 1e+39, beyond f32's range; beta is one f32 value, within "
          "+-3.40282e+38")),
        ("Multiply", [[2], [2]], {}, ["s32", "s32"],
         ("Multiply.src_0.dtype", "inputs[0].dtype", "src_0 has dtype s32; Multiply accepts f32, f16, bf16 there")),
        ("GreaterEqual", [[2], [2]], {}, ["f32", "s32"],
         ("GreaterEqual.dtypes", "inputs", "src_0 f32, src_1 s32 is not a combination GreaterEqual supports; its "
          "table lists (src_0 src_1 dst): f32 f32 boolean; bf16 bf16 boolean; f16 f16 boolean; s32 s32 boolean")),
    ],
)  # fmt: skip
def test_errors_name_the_op_the_value_and_the_range(client, kind, shapes, attrs, dtypes, expected) -> None:
    verdict = validate(client, kind, shapes, attrs, dtypes)
    assert not verdict["valid"]
    assert ("error", *expected) in findings(verdict), findings(verdict)


@pytest.mark.parametrize(
    ("kind", "shapes", "attrs", "dtypes", "outputs", "rule"),
    [
        ("Multiply", [[2], [2]], {}, ["bf16", "bf16"], [{"dtype": "f32", "shape": [2]}], "Multiply.onednn.dtypes"),
        ("Add", [[2], [2]], {}, ["s32", "f32"], [{"dtype": "f32", "shape": [2]}], "Add.onednn.dtypes"),
        ("Divide", [[2], [2]], {}, ["bf16", "f32"], [{"dtype": "bf16", "shape": [2]}], "Divide.onednn.dtypes"),
        ("PReLU", [[5], [5]], {}, None, None, "PReLU.onednn.rank"),
        ("PReLUBackward", [[2, 7, 5, 3, 2], [1, 1, 1, 1, 1], [2, 7, 5, 3, 2]], {"data_format": "NCX"}, None, None,
         "PReLUBackward.onednn.slope"),
        ("BiasAddBackward", [[2, 3]], {}, None, None, "BiasAddBackward.onednn.rank"),
        ("Add", [["N", 3], [4, 1]], {}, None, None, "Add.broadcast.assumption"),
    ],
)  # fmt: skip
def test_what_onednn_accepts_beyond_the_page_is_a_warning(
    client, kind, shapes, attrs, dtypes, outputs, rule
) -> None:
    verdict = validate(client, kind, shapes, attrs, dtypes, outputs)
    assert verdict["valid"], verdict["diagnostics"]
    assert [(d["severity"], d["rule"]) for d in verdict["diagnostics"]] == [("warning", rule)]


def test_unknown_attribute_is_refused(client) -> None:
    response = client.post("/v1/validate", json={"kind": "Add", "attrs": {"axis": 1},
                                                 "inputs": [{"dtype": "f32", "shape": [2]}] * 2})  # fmt: skip
    assert response.status_code == 422


@pytest.mark.parametrize("kind", KINDS)
def test_every_member_lists_its_page(client, kind) -> None:
    answer = client.get(f"/v1/ops/{kind}").json()
    assert answer["source"] == f"oneDNN Graph {kind}"
    assert answer["dtypes"], kind
    assert all(rule["spec"] for rule in answer["rules"])
    assert any(note.startswith("Computed as") for note in answer["notes"]), kind


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=4), min_size=2, max_size=3))
def test_numpy_broadcasting_is_numpys(shapes) -> None:
    """Valid exactly where NumPy broadcasts (0 beside 1 included), with NumPy's shape; Select's cond, one way."""
    from app.core.engine import check

    try:
        want = list(np.broadcast_shapes(*map(tuple, shapes[:2])))
    except ValueError:
        want = None
    d = DESCRIPTOR.validate_python(
        {"kind": "Add", "inputs": [{"dtype": "f32", "shape": s} for s in shapes[:2]]}
    )
    verdict, _ = check(REGISTRY["Add"], d, Settings())
    assert verdict.valid is (want is not None)
    if want is not None:
        assert list(verdict.outputs[0].shape) == want
    if len(shapes) == 3:
        cond = shapes[2]
        d = DESCRIPTOR.validate_python({"kind": "Select", "inputs": [{"dtype": "boolean", "shape": cond}] + [
            {"dtype": "f32", "shape": s} for s in shapes[:2]]})  # fmt: skip
        verdict, _ = check(REGISTRY["Select"], d, Settings())
        one_way = want is not None and len(cond) <= len(want) and all(
            c in (1, w) for c, w in zip(cond[::-1], want[::-1], strict=False))  # fmt: skip
        assert verdict.valid is one_way, (shapes, verdict.diagnostics)
