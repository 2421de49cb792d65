"""Near-valid descriptors of the pooling, normalization and interpolate ops: whatever the attributes,
shapes (0 sizes, symbols, unknown dims and ranks) and dtypes, checking answers with diagnostics and never
raises, and evaluating a valid one gives the inferred shapes (or a documented refusal)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.core import engine
from app.core.engine import NotEvaluable
from app.core.payload import LimitExceeded
from app.core.shapes import is_static, numel
from app.ops import REGISTRY
from tests.ops.oracle.fixtures import SETTINGS, recorded

SMALL = st.integers(-2, 5)
DIMS = st.one_of(st.integers(0, 4), st.sampled_from(["N", "C", None]))
VALUES = {
    "s64": st.one_of(SMALL, st.sampled_from([2**40, -(2**40)])),
    "s64[]": st.lists(st.one_of(SMALL, st.just(2**40)), max_size=4),
    "f32": st.one_of(st.floats(-2, 2, allow_nan=False), st.just(0.0), st.lists(st.floats(0, 2), max_size=2)),
    "f32[]": st.lists(st.one_of(st.floats(0, 3), st.just(1e30), st.just(-1.0)), max_size=4),
    "bool": st.booleans(),
}


BASES = [c[1] for family in ("pooling", "normalization", "interpolate") for c in recorded(family)]


@st.composite
def descriptors(draw):
    """A recorded (valid) descriptor, mostly without its declared outputs, with a few things changed: an
    attribute's value, dims (to 0, 1, a symbol or unknown), a dtype, an input dropped or repeated."""
    d = json.loads(json.dumps(draw(st.sampled_from(BASES))))
    if draw(st.booleans()):
        d.pop("outputs")
    spec = REGISTRY[d["kind"]]
    for _ in range(draw(st.integers(0, 3))):
        change = draw(st.sampled_from(["attr", "dim", "dtype", "inputs", "rank"]))
        if change == "attr":
            a = draw(st.sampled_from(spec.extra.attrs))
            value = (
                draw(st.sampled_from([*a.values, "bogus"]))
                if a.values
                else draw(VALUES.get(a.type, st.none()))
            )
            if value is None and draw(st.booleans()):
                d["attrs"].pop(a.name, None)
            else:
                d["attrs"][a.name] = value  # a JSON null among them
        elif change == "dim" and d["inputs"]:
            tensor = draw(st.sampled_from(d["inputs"]))
            if tensor["shape"]:
                tensor["shape"][draw(st.integers(0, len(tensor["shape"]) - 1))] = draw(DIMS)
        elif change == "dtype" and d["inputs"]:
            draw(st.sampled_from(d["inputs"]))["dtype"] = draw(
                st.sampled_from(["f32", "bf16", "f16", "s32", "s8"])
            )
        elif change == "inputs" and d["inputs"]:
            if draw(st.booleans()):
                d["inputs"].pop()
            else:
                d["inputs"].append(json.loads(json.dumps(d["inputs"][-1])))
        elif change == "rank" and d["inputs"]:
            tensor = draw(st.sampled_from(d["inputs"]))
            tensor["shape"] = None if draw(st.booleans()) else (tensor["shape"] or [])[1:]
    return d


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(descriptors(), st.integers(0, 2**32 - 1))
def test_never_raises_and_evaluates_what_it_infers(descriptor, seed) -> None:
    spec = REGISTRY[descriptor["kind"]]
    try:
        parsed = spec.descriptor.model_validate(descriptor)
    except ValidationError:
        return  # a 422 at the door: not a descriptor of this op
    verdict, _ = engine.check(spec, parsed, SETTINGS)
    assert verdict.valid == (not any(d.severity == "error" for d in verdict.diagnostics))
    if not verdict.valid or not all(is_static(t.shape) for t in parsed.inputs):
        return
    if any(numel(t.shape) > 4096 for t in parsed.inputs):
        return
    rng = np.random.default_rng(seed)
    for tensor in descriptor["inputs"]:
        if tensor["dtype"] == "s32":  # a shape or sizes input: its values must be sizes
            tensor["data"] = [int(v) for v in rng.integers(1, 4, size=int(np.prod(tensor["shape"])))]
        else:
            tensor["data"] = rng.standard_normal(int(np.prod(tensor["shape"]))).tolist()
    try:
        verdict, outputs = engine.run(spec, spec.descriptor.model_validate(descriptor), SETTINGS)
    except (NotEvaluable, LimitExceeded, engine.Invalid):
        return
    for out, array in zip(verdict.outputs, outputs, strict=True):
        assert tuple(array.shape) == tuple(out.shape)


def test_a_null_attribute_is_its_default() -> None:
    from tests.ops.oracle.fixtures import check, run, t

    v = check(
        {"kind": "RMSNorm", "attrs": {"begin_norm_axis": None, "epsilon": None}, "inputs": [t([2, "N", 4])]}
    )
    assert v.valid and v.outputs[0].shape == (2, "N", 4)
    _, (dst,) = run(
        {"kind": "RMSNorm", "attrs": {"begin_norm_axis": None}, "inputs": [t([1, 2], data=[3, 4])]}
    )
    assert dst.shape == (1, 2)
    v = check({"kind": "MaxPool", "attrs": {"kernel": [2], "strides": [1], "pads_begin": [0], "pads_end": [0],
                                            "auto_pad": None, "rounding_type": None, "dilations": None},
               "inputs": [t([1, 3, 1])]})  # fmt: skip
    assert v.valid and not v.diagnostics and v.outputs[0].shape == (1, 2, 1)
