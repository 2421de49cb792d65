"""The pooling family: oneDNN's own answers (recorded), a brute-force loop of the pages' formulas over
random windows (hypothesis), shapes with symbols, the rules by id, mutated benchdnn files, and every
benchdnn node."""

from __future__ import annotations

import copy
import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from app import library
from app.core import engine
from app.ops import pooling
from tests.ops.oracle.fixtures import (
    BENCHDNN,
    assert_benchdnn_nodes,
    assert_errors,
    assert_mutation_located,
    assert_recorded_agrees,
    assert_warns,
    check,
    recorded,
    rules,
    run,
    t,
)

KINDS = {"AvgPool", "MaxPool", "AvgPoolBackward", "MaxPoolBackward"}
F = "f32"


@pytest.mark.parametrize(("name", "descriptor", "inputs", "outputs"), recorded("pooling"),
                         ids=[c[0] for c in recorded("pooling")])  # fmt: skip
def test_agrees_with_onednn(name, descriptor, inputs, outputs) -> None:
    assert_recorded_agrees(name, descriptor, inputs, outputs)


def test_recorded_cases_cover_every_kind() -> None:
    assert {c[1]["kind"] for c in recorded("pooling")} == KINDS


# --- a brute-force loop of the pages' formulas --------------------------------------------------------


def loop_pool(x, kernel, strides, dilations, begin, out_sizes, mode, exclude_pad=False):
    """dst(n, c, o) over the taps o * S + k * D - PL inside src (NCX), as the pages write it."""
    n, c = x.shape[:2]
    out = np.empty((n, c, *out_sizes))
    where = {}  # output index -> src index of the first maximum
    for b, ch in itertools.product(range(n), range(c)):
        for o in itertools.product(*(range(s) for s in out_sizes)):
            taken = []
            for k in itertools.product(*(range(s) for s in kernel)):
                idx = tuple(
                    oi * s + ki * d - p
                    for oi, ki, s, d, p in zip(o, k, strides, dilations, begin, strict=True)
                )
                if all(0 <= i < size for i, size in zip(idx, x.shape[2:], strict=True)):
                    taken.append((float(x[(b, ch, *idx)]), idx))
            if not taken:  # a window of padding only
                out[(b, ch, *o)] = -np.inf if mode == "max" else (np.nan if exclude_pad else 0.0)
                continue
            if mode == "max":
                best = max(v for v, _ in taken)
                out[(b, ch, *o)] = best
                where[(b, ch, *o)] = next(i for v, i in taken if v == best)  # the first in row-major order
            else:
                denominator = len(taken) if exclude_pad else math.prod(kernel)
                out[(b, ch, *o)] = sum(v for v, _ in taken) / denominator
    return out, where


@st.composite
def windows(draw):
    dims = draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(dims)]
    strides = [draw(st.integers(1, 3)) for _ in range(dims)]
    dilations = [draw(st.integers(1, 2)) for _ in range(dims)]
    begin = [draw(st.integers(0, k - 1)) for k in kernel]
    end = [draw(st.integers(0, k - 1)) for k in kernel]
    sizes = [draw(st.integers((k - 1) * d + 1, 6)) for k, d in zip(kernel, dilations, strict=True)]
    ceil = draw(st.booleans())
    return kernel, strides, dilations, begin, end, sizes, ceil


values = st.floats(-8, 8, width=32, allow_subnormal=False)


@settings(max_examples=40, deadline=None)
@given(windows(), st.booleans(), st.data())
def test_max_and_avg_pool_match_a_loop(window, exclude_pad, data) -> None:
    kernel, strides, dilations, begin, end, sizes, ceil = window
    shape = [1, 2, *sizes]
    x = np.array(
        data.draw(st.lists(values, min_size=math.prod(shape), max_size=math.prod(shape))), np.float32
    )
    x = x.reshape(shape)
    attrs = {"kernel": kernel, "strides": strides, "pads_begin": begin, "pads_end": end, "data_format": "NCX",
             "rounding_type": "ceil" if ceil else "floor", "auto_pad": "None"}  # fmt: skip
    verdict, (dst,) = run({"kind": "MaxPool", "attrs": {**attrs, "dilations": dilations},
                           "inputs": [t(shape, data=x.reshape(-1).tolist())]})  # fmt: skip
    want, _ = loop_pool(x, kernel, strides, dilations, begin, dst.shape[2:], "max")
    assert dst.tobytes() == want.astype(np.float32).tobytes()
    assert np.isinf(want).any() == ("MaxPool.window.empty" in rules(verdict, "warning"))
    verdict, (avg,) = run({"kind": "AvgPool", "attrs": {**attrs, "exclude_pad": exclude_pad},
                           "inputs": [t(shape, data=x.reshape(-1).tolist())]})  # fmt: skip
    want, _ = loop_pool(x, kernel, strides, [1] * len(kernel), begin, avg.shape[2:], "avg", exclude_pad)
    assert np.allclose(avg, want, rtol=1e-6, atol=1e-6, equal_nan=True)


def test_max_pool_backward_matches_a_loop() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    attrs = {
        "kernel": [3, 2],
        "strides": [2, 2],
        "pads_begin": [1, 0],
        "pads_end": [1, 1],
        "data_format": "NCX",
    }
    out_sizes = (3, 3)
    dy = rng.standard_normal((1, 2, *out_sizes)).astype(np.float32)
    _, where = loop_pool(x, [3, 2], [2, 2], [1, 1], [1, 0], out_sizes, "max")
    want = np.zeros_like(x)
    for index in np.ndindex(*dy.shape):
        want[(*index[:2], *where[tuple(index)])] += dy[index]
    _, (got,) = run({"kind": "MaxPoolBackward", "attrs": attrs,
                     "inputs": [t(list(x.shape), data=x.reshape(-1).tolist()),
                                t(list(dy.shape), data=dy.reshape(-1).tolist())]})  # fmt: skip
    assert got.tobytes() == want.tobytes()


def test_avg_pool_exact_example() -> None:
    """2x2 windows, stride 2, exclude_pad: a padded corner averages only its inside taps."""
    d = {"kind": "AvgPool", "attrs": {"kernel": [2, 2], "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1],
                                      "exclude_pad": True, "data_format": "NCX"},
         "inputs": [t([1, 1, 2, 2], data=[1, 2, 4, 8])]}  # fmt: skip
    verdict, (dst,) = run(d)
    assert verdict.valid and verdict.outputs[0].shape == (1, 1, 2, 2)
    assert dst.dtype == np.float32 and dst.tolist() == [[[[1.0, 2.0], [4.0, 8.0]]]]
    d["attrs"]["exclude_pad"] = False
    _, (dst,) = run(d)
    assert dst.tolist() == [[[[0.25, 0.5], [1.0, 2.0]]]]


def test_max_pool_keeps_nan_and_signed_zero() -> None:
    d = {"kind": "MaxPool", "attrs": {"kernel": [2], "strides": [2], "pads_begin": [0], "pads_end": [0],
                                      "data_format": "NCX"},
         "inputs": [t([1, 1, 6], data=[-0.0, -1.0, "nan", 3.0, -0.0, -0.0])]}  # fmt: skip
    _, (dst,) = run(d)
    assert (
        math.copysign(1, dst[0, 0, 0]) == -1
        and np.isnan(dst[0, 0, 1])
        and math.copysign(1, dst[0, 0, 2]) == -1
    )


# --- shapes and rules ---------------------------------------------------------------------------------

W = {"kernel": [3, 3], "strides": [2, 2], "pads_begin": [1, 1], "pads_end": [1, 1]}


def test_symbols_flow_and_unknowns_stay_unknown() -> None:
    v = check({"kind": "MaxPool", "attrs": {**W, "data_format": "NCX"}, "inputs": [t(["N", "C", -1, 9])]})
    assert v.valid and v.outputs[0].shape == ("N", "C", None, 5)
    v = check({"kind": "MaxPool", "attrs": {**W, "kernel": [1, 1], "strides": [1, 1], "pads_begin": [0, 0],
                                            "pads_end": [0, 0]}, "inputs": [t(["N", "H", "W", 3])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", "H", "W", 3)
    v = check({"kind": "AvgPool", "attrs": {**W, "exclude_pad": True, "auto_pad": "SAME_UPPER"},
               "inputs": [t(["N", "H", 8, 3])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", "(H - 1) // 2 + 1", 4, 3)
    v = check({"kind": "AvgPool", "attrs": {**W, "exclude_pad": True, "auto_pad": "SAME_UPPER"},
               "inputs": [t(["N", -1, 8, 3])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", None, 4, 3)


@pytest.mark.parametrize(
    ("descriptor", "errors", "message"),
    [
        ({"kind": "AvgPool", "attrs": {**W, "pads_end": [-1, 1], "exclude_pad": True},
          "inputs": [t([1, 6, 6, 2])]}, {"AvgPool.pads.range"},
         "pads_end[0] is -1; AvgPool needs every pads_end entry non-negative"),
        ({"kind": "MaxPool", "attrs": {**W, "kernel": [3]}, "inputs": [t([1, 6, 6, 2])]}, {"MaxPool.window.rank"},
         "kernel has 1 entries [3]; MaxPool needs one per spatial dim: 2"),
        ({"kind": "MaxPool", "attrs": {**W, "strides": [0, 1]}, "inputs": [t([1, 6, 6, 2])]},
         {"MaxPool.strides.range"}, "strides[0] is 0; MaxPool needs every strides entry positive"),
        ({"kind": "MaxPool", "attrs": {**W, "dilations": [1, 0]}, "inputs": [t([1, 6, 6, 2])]},
         {"MaxPool.dilations.range"}, "dilations[1] is 0"),
        ({"kind": "MaxPool", "attrs": {**W, "kernel": [3, 9]}, "inputs": [t([1, 6, 6, 2])]},
         {"MaxPool.window.fits"}, "spatial dim 1: the kernel spans 9 (kernel 9, dilation 1) but the padded size is 8"),
        ({"kind": "MaxPool", "attrs": W, "inputs": [t([6, 2])]}, {"MaxPool.src.rank"}, "needs rank >= 3"),
        ({"kind": "AvgPool", "attrs": W, "inputs": [t([1, 6, 6, 2])]}, {"AvgPool.attrs.required"},
         "AvgPool needs the attribute exclude_pad"),
        ({"kind": "MaxPool", "attrs": {**W, "rounding_type": "round"}, "inputs": [t([1, 6, 6, 2])]},
         {"MaxPool.attrs.value"}, "rounding_type is 'round'; MaxPool supports 'floor', 'ceil'"),
        ({"kind": "MaxPoolBackward", "attrs": W, "inputs": [t([1, 6, 6, 2]), t([1, 3, 4, 2])]},
         {"MaxPoolBackward.diff_dst.shape"},
         "diff_dst has shape [1, 3, 4, 2]; for src [1, 6, 6, 2] this window gives [1, 3, 3, 2]"),
        ({"kind": "AvgPoolBackward", "attrs": {**W, "exclude_pad": False}, "inputs": [t([1, 3, 3, 2])]},
         {"AvgPoolBackward.src_shape.missing"}, "needs src_shape, as the input or the attribute"),
        ({"kind": "AvgPoolBackward", "attrs": {**W, "exclude_pad": False, "src_shape": [1, 6, 6]},
          "inputs": [t([1, 3, 3, 2])]}, {"AvgPoolBackward.src_shape.rank"}, "has rank 3; diff_dst [1, 3, 3, 2]"),
        ({"kind": "MaxPool", "attrs": W, "inputs": [t([1, 6, 6, 2], "s8")]}, {"MaxPool.src.dtype"}, "src has dtype s8"),
    ],
)  # fmt: skip
def test_errors_name_the_rule_and_the_values(descriptor, errors, message) -> None:
    assert_errors(descriptor, errors, message)


@pytest.mark.parametrize(
    ("descriptor", "warning"),
    [
        ({"kind": "MaxPool", "attrs": {**W, "auto_pad": "same_upper"}, "inputs": [t([1, 6, 6, 2])]},
         "MaxPool.onednn.auto_pad"),
        ({"kind": "AvgPool", "attrs": {**W, "exclude_pad": False, "rounding_type": "ceil"},
          "inputs": [t([1, 6, 6, 2])]}, "AvgPool.onednn.ceil_include_pad"),
        ({"kind": "AvgPoolBackward", "attrs": {**W, "exclude_pad": False},
          "inputs": [t([1, 3, 3, 2]), t([4], "s32", [1, 6, 6, 2])]}, "AvgPoolBackward.onednn.src_shape_input"),
    ],
)  # fmt: skip
def test_warnings_keep_the_descriptor_valid(descriptor, warning) -> None:
    assert_warns(descriptor, warning)


def test_avg_pool_backward_takes_src_shape_from_the_input_before_the_attribute() -> None:
    v = check({"kind": "AvgPoolBackward", "attrs": {**W, "exclude_pad": False, "src_shape": [1, 7, 7, 2]},
               "inputs": [t([1, 3, 3, 2]), t([4], "s32", [1, 6, 6, 2])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == (1, 6, 6, 2)


def test_kernel_steps_bound_a_huge_window() -> None:
    from app.core.engine import LimitExceeded

    d = {"kind": "MaxPool", "attrs": {"kernel": [4000, 4000], "strides": [1, 1], "pads_begin": [2000, 2000],
                                      "pads_end": [2000, 2000], "data_format": "NCX"},
         "inputs": [t([1, 1, 1, 1], data=[1.0])]}  # fmt: skip
    with pytest.raises(LimitExceeded):
        run(d)


# --- benchdnn -----------------------------------------------------------------------------------------


def test_every_benchdnn_node_is_checked_and_what_onednn_accepts_is_valid() -> None:
    # the one node oneDNN's add_op refuses: AvgPool with pads_end [-1, 1, 0]
    assert_benchdnn_nodes(KINDS, lambda op: min(op["attrs"]["pads_end"]["value"]) < 0, {"AvgPool.pads.range"})


DOCUMENT = json.loads((BENCHDNN / "op" / "f32" / "maxpool.json").read_text())
MUTATIONS = [
    ("input dim", lambda op: op["inputs"][0]["shape"].__setitem__(2, 1), "MaxPool.window.fits"),
    ("attribute out of range", lambda op: op["attrs"]["strides"]["value"].__setitem__(0, 0), "MaxPool.strides.range"),
    ("dtype outside the table", lambda op: op["inputs"][0].__setitem__("dtype", "s32"), "MaxPool.src.dtype"),
    ("required attribute removed", lambda op: op["attrs"].pop("kernel"), "MaxPool.attrs.required"),
    ("an input too many", lambda op: op["inputs"].append(copy.deepcopy(op["inputs"][0])), "MaxPool.inputs.count"),
    ("an input too few", lambda op: op["inputs"].clear(), "MaxPool.inputs.count"),
    ("wrong declared output", lambda op: op["outputs"][0]["shape"].__setitem__(2, 299), "MaxPool.outputs.dim"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "change", "rule"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_benchdnn_file_gets_the_rule_at_a_line(what, change, rule) -> None:
    assert_mutation_located(DOCUMENT, change, rule)


def test_an_empty_window_is_found_without_walking_a_huge_kernel() -> None:
    d = {"kind": "MaxPool", "attrs": {"kernel": [10**12], "strides": [1], "pads_begin": [10**12 + 5],
                                      "pads_end": [0], "data_format": "NCX"}, "inputs": [t([1, 1, 4])]}  # fmt: skip
    assert_warns(d, "MaxPool.window.empty")


@st.composite
def windows(draw):
    """A forward pooling descriptor of random kernel, strides, pads, dilations and rounding on a small src."""
    rank = draw(st.integers(1, 2))
    sizes = [draw(st.integers(1, 7)) for _ in range(rank)]
    each = lambda low, high: [draw(st.integers(low, high)) for _ in range(rank)]  # noqa: E731
    attrs = {"kernel": each(1, 4), "strides": each(1, 5), "pads_begin": each(0, 2), "pads_end": each(0, 2),
             "rounding_type": draw(st.sampled_from(["floor", "ceil"])), "data_format": "NCX"}  # fmt: skip
    if draw(st.booleans()):
        kind = "MaxPool"
        attrs["dilations"] = each(1, 3)
    else:
        kind = "AvgPool"
        attrs["exclude_pad"] = draw(st.booleans())
    return {"kind": kind, "attrs": attrs, "inputs": [{"dtype": "f32", "shape": [2, 3, *sizes]}]}


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from([c[1] for c in recorded("pooling")]), windows()), st.integers(0, 2**32 - 1))
def test_the_gathered_canvas_computes_what_the_padded_canvas_does(case, seed) -> None:
    """Taps' gather path (index arrays into src and one padding cell, taken where the padded canvas would be
    far larger than src and dst) against the padded canvas it stands in for, on every recorded pooling
    descriptor: the same outputs bit for bit."""
    descriptor = json.loads(json.dumps(case))
    descriptor.pop("outputs", None)
    rng = np.random.default_rng(seed)
    for tensor in descriptor["inputs"]:
        tensor["data"] = rng.standard_normal(tensor["shape"]).astype(np.float32).tolist()
        tensor["dtype"] = "f32"
    try:
        padded = library.evaluate(descriptor)
    except (engine.Invalid, engine.NotEvaluable):
        event("not valid")
        return
    event("compared")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pooling, "CANVAS_GROWTH", 0)
        patch.setattr(pooling, "CANVAS_SLACK", -1)
        gathered = library.evaluate(descriptor)
    for a, b in zip(padded["outputs"], gathered["outputs"], strict=True):
        assert a["data"].tobytes() == b["data"].tobytes()


def test_strides_of_2_40_with_ceil_rounding_take_memory_of_src_and_dst_only() -> None:
    """The window's reach is 2^40 positions past src: the padded canvas would be terabytes (a MemoryError,
    found by tests/ops/test_poolnorm_fuzz.py); each tap reads src through index arrays instead."""
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"strides": [2**40, 1], "kernel": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
             "rounding_type": "ceil", "data_format": "NCX"}  # fmt: skip
    average = library.evaluate(
        {
            "kind": "AvgPool",
            "attrs": {**attrs, "exclude_pad": True},
            "inputs": [{"dtype": "f32", "shape": [1, 1, 3, 3], "data": x}],
        }
    )["outputs"][0]["data"]
    # the first row of windows averages src; the second starts 2^40 rows down, all padding: 0 / 0
    assert average[0, 0, 0].tolist() == [2.0, 3.0] and np.isnan(average[0, 0, 1]).all()
    maximum = library.evaluate(
        {"kind": "MaxPool", "attrs": attrs, "inputs": [{"dtype": "f32", "shape": [1, 1, 3, 3], "data": x}]}
    )["outputs"][0]["data"]
    assert maximum[0, 0].tolist() == [[4.0, 5.0], [-np.inf, -np.inf]]
