"""Every op whose output dims are arithmetic in its inputs' dims, on symbols: a hypothesis-drawn
descriptor is checked twice, as drawn and with its sizes replaced by symbols (each size one name,
S7 for 7), and the symbolic answer, its symbols given their sizes back, must be exactly the concrete
answer, dim by dim. A symbolic answer of a descriptor that is valid has no error (the sizes drawn are
a value its symbols may take), and is unknown (-1) only where no expression exists.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core import dims, engine
from app.core.config import Settings
from app.ops import BY_NAME, parse

SETTINGS = Settings()
PROPERTY = settings(
    max_examples=int(__import__("os").environ.get("OPSPEC_SYMBOLIC_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
F32 = "f32"
size = st.integers(1, 12)
small = st.integers(1, 4)


def f32(shape: list) -> dict:
    return {"dtype": F32, "shape": shape}


# --- concrete descriptors, mostly valid ------------------------------------------------------------


@st.composite
def convolutions(draw) -> dict:
    kind = draw(st.sampled_from(["Convolution", "ConvTranspose", "ConvTransposeBackwardData"]))
    r = draw(st.integers(1, 2))
    groups = draw(st.integers(1, 2))
    small_c, big_c = groups * draw(small), groups * draw(small)
    n = draw(st.integers(1, 3))
    kernel = draw(st.lists(small, min_size=r, max_size=r))
    strides = draw(st.lists(st.integers(1, 3), min_size=r, max_size=r))
    attrs: dict[str, Any] = {
        "strides": strides,
        "dilations": draw(st.lists(st.integers(1, 2), min_size=r, max_size=r)),
        "pads_begin": draw(st.lists(st.integers(0, 2), min_size=r, max_size=r)),
        "pads_end": draw(st.lists(st.integers(0, 2), min_size=r, max_size=r)),
        "auto_pad": draw(st.sampled_from(["None", "SAME_UPPER", "SAME_LOWER", "VALID"])),
        "groups": groups,
        "data_format": "NCX",
    }
    spatial = draw(st.lists(size, min_size=r, max_size=r))
    if kind == "Convolution":
        attrs["weights_format"] = "OIX"
        inputs = [f32([n, big_c, *spatial]), f32([small_c, big_c // groups, *kernel])]
    elif kind == "ConvTranspose":
        attrs["weights_format"] = "IOX"
        attrs["output_padding"] = [draw(st.integers(0, s - 1)) for s in strides]
        inputs = [f32([n, small_c, *spatial]), f32([small_c, big_c // groups, *kernel])]
    else:
        attrs["weights_format"] = "IOX"
        inputs = [f32([n, big_c, *spatial]), f32([small_c, big_c // groups, *kernel])]
    return {"kind": kind, "attrs": attrs, "inputs": inputs}


@st.composite
def poolings(draw) -> dict:
    kind = draw(st.sampled_from(["AvgPool", "MaxPool"]))
    r = draw(st.integers(1, 2))
    attrs: dict[str, Any] = {
        "kernel": draw(st.lists(small, min_size=r, max_size=r)),
        "strides": draw(st.lists(st.integers(1, 3), min_size=r, max_size=r)),
        "pads_begin": draw(st.lists(st.integers(0, 1), min_size=r, max_size=r)),
        "pads_end": draw(st.lists(st.integers(0, 1), min_size=r, max_size=r)),
        "auto_pad": draw(st.sampled_from(["None", "SAME_UPPER", "SAME_LOWER", "VALID"])),
        "rounding_type": draw(st.sampled_from(["floor", "ceil"])),
        "data_format": draw(st.sampled_from(["NCX", "NXC"])),
    }
    if kind == "AvgPool":
        attrs["exclude_pad"] = draw(st.booleans())
    else:
        attrs["dilations"] = draw(st.lists(st.integers(1, 2), min_size=r, max_size=r))
    shape = [draw(small), draw(small), *draw(st.lists(size, min_size=r, max_size=r))]
    return {"kind": kind, "attrs": attrs, "inputs": [f32(shape)]}


SCALES = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 0.3, 1.7]  # the last two: no integer expression


@st.composite
def interpolations(draw) -> dict:
    r = draw(st.integers(1, 2))
    attrs: dict[str, Any] = {"mode": "nearest", "data_format": draw(st.sampled_from(["NCX", "NXC"]))}
    if draw(st.booleans()):
        attrs["scales"] = draw(st.lists(st.sampled_from(SCALES), min_size=r, max_size=r))
    else:
        attrs["sizes"] = draw(st.lists(size, min_size=r, max_size=r))
    shape = [draw(small), draw(small), *draw(st.lists(size, min_size=r, max_size=r))]
    return {"kind": "Interpolate", "attrs": attrs, "inputs": [f32(shape)]}


@st.composite
def concats(draw) -> dict:
    rank = draw(st.integers(1, 3))
    axis = draw(st.integers(-rank, rank - 1))
    base = draw(st.lists(size, min_size=rank, max_size=rank))
    inputs = []
    for _ in range(draw(st.integers(1, 3))):
        shape = list(base)
        shape[axis] = draw(st.integers(0, 6))
        inputs.append(f32(shape))
    return {"kind": "Concat", "attrs": {"axis": axis}, "inputs": inputs}


@st.composite
def reshapes(draw) -> dict:
    src = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    special = draw(st.booleans())
    out = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    target = list(out)
    if draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    if special and draw(st.booleans()):
        index = draw(st.integers(0, min(len(src), len(target)) - 1))
        if target[index] != -1:
            target[index] = 0
    return {
        "kind": "StaticReshape",
        "attrs": {"shape": target, "special_zero": special},
        "inputs": [f32(src)],
    }


def _broadcastable(draw, count: int) -> list[list[int]]:
    rank = draw(st.integers(0, 3))
    full = draw(st.lists(size, min_size=rank, max_size=rank))
    shapes = []
    for _ in range(count):
        keep = draw(st.integers(0, rank))
        shapes.append([1 if draw(st.booleans()) else d for d in full[rank - keep :]])
    return shapes


@st.composite
def broadcasts(draw) -> dict:
    kind = draw(st.sampled_from(["Add", "Multiply", "Max", "Select"]))
    if kind == "Max":
        return {"kind": "Max", "inputs": [f32(s) for s in _broadcastable(draw, draw(st.integers(1, 3)))]}
    if kind == "Select":
        cond, a, b = _broadcastable(draw, 3)
        return {"kind": kind, "inputs": [{"dtype": "boolean", "shape": cond}, f32(a), f32(b)]}
    return {"kind": kind, "inputs": [f32(s) for s in _broadcastable(draw, 2)]}


@st.composite
def matmuls(draw) -> dict:
    m, k, n = draw(size), draw(size), draw(size)
    batch = _broadcastable(draw, 2)
    ta, tb = draw(st.booleans()), draw(st.booleans())
    a = [*batch[0], *((k, m) if ta else (m, k))]
    b = [*batch[1], *((n, k) if tb else (k, n))]
    if draw(st.booleans()):
        a = [k] if draw(st.booleans()) else a
    return {"kind": "MatMul", "attrs": {"transpose_a": ta, "transpose_b": tb}, "inputs": [f32(a), f32(b)]}


@st.composite
def reductions(draw) -> dict:
    shape = draw(st.lists(size, min_size=1, max_size=3))
    axes = draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2, unique=True))
    attrs = {"axes": axes, "keep_dims": draw(st.booleans())}
    return {"kind": draw(st.sampled_from(["ReduceSum", "ReduceMax"])), "attrs": attrs, "inputs": [f32(shape)]}


@st.composite
def transposes(draw) -> dict:
    shape = draw(st.lists(size, min_size=1, max_size=4))
    order = draw(st.permutations(range(len(shape))))
    return {"kind": "StaticTranspose", "attrs": {"order": list(order)}, "inputs": [f32(shape)]}


DESCRIPTORS = st.one_of(
    convolutions(), poolings(), interpolations(), concats(), reshapes(), broadcasts(), matmuls(), reductions(),
    transposes(),
)  # fmt: skip


# --- the property ---------------------------------------------------------------------------------------


def _verdict(raw: dict) -> engine.Verdict:
    descriptor = parse(raw)
    return engine.check(BY_NAME[descriptor.kind], descriptor, SETTINGS)[0]


def _symbolic(raw: dict, named: set[int]) -> dict:
    """The descriptor with each input size in `named` written as its symbol (7 as S7)."""
    inputs = [
        {**tensor, "shape": [f"S{d}" if d in named else d for d in tensor["shape"]]}
        for tensor in raw["inputs"]
    ]
    return {**raw, "inputs": inputs}


def _no_expression(raw: dict, axis: int) -> bool:
    """Where an unknown dim is the answer: an Interpolate scale no integer expression follows."""
    scales = raw.get("attrs", {}).get("scales")
    return raw["kind"] == "Interpolate" and scales is not None and any(s in (0.3, 1.7) for s in scales)


@PROPERTY
@given(DESCRIPTORS, st.data())
def test_a_symbolic_answer_is_the_concrete_answer_at_every_size(raw, data) -> None:
    concrete = _verdict(raw)
    if not concrete.valid or concrete.outputs is None:
        return
    sizes = sorted(
        {d for tensor in raw["inputs"] for d in tensor["shape"] if d > 1}
    )  # 0 and 1 stay: see below
    if not sizes:
        return
    named = set(data.draw(st.lists(st.sampled_from(sizes), min_size=1, unique=True)))
    symbolic = _verdict(_symbolic(raw, named))
    env = {f"S{d}": d for d in named}
    assert symbolic.valid, [d.message for d in symbolic.diagnostics if d.severity == "error"]
    for name, dim in (symbolic.bindings or {}).items():
        # Two names taken equal (broadcasting's N and M, either of which may be 1): the answer holds where
        # they are, and says so; sizes that break it are not this property's case.
        if dims.evaluate(name, env) != dims.evaluate(dim, env):
            return
    assert symbolic.outputs is not None
    for index, (want, got) in enumerate(zip(concrete.outputs, symbolic.outputs, strict=True)):
        assert got.shape is not None and len(got.shape) == len(want.shape)
        for axis, (w, g) in enumerate(zip(want.shape, got.shape, strict=True)):
            if g is None:
                assert _no_expression(raw, axis), (index, axis, raw, got.shape)
                continue
            assert dims.evaluate(g, env) == w, (index, axis, g, env, raw)
