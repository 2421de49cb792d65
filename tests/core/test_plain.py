"""Plain descriptors (app/core/plain.py) against pydantic's: whatever the plain pass takes, pydantic takes
too, to the same values and the same verdict; whatever pydantic refuses, the plain pass leaves to it.
Generated descriptors of every oneDNN op (attributes of each type, right and wrong) and of the seed ops
reach past the subset on every side."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import engine, plain
from app.core.config import get_settings
from app.core.family import Family
from app.ops import BY_NAME, REGISTRY, DescriptorErrors, parse

FAMILY = sorted(kind for kind, spec in REGISTRY.items() if isinstance(spec.extra, Family))
SEEDS = sorted(kind for kind, spec in REGISTRY.items() if not isinstance(spec.extra, Family))

# Attribute values of every type a oneDNN attribute has, and of the ways a file gets one wrong.
VALUES = st.one_of(
    st.integers(-3, 9),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**400, 0.0, 1.5, -0.0, 1e308, 3.0, True, False,
                     None, "", "inf", "-inf", "nan", "NCX", "NXC", "OIX", "None", "SAME_UPPER", "floor", "ZERO"]),
    st.lists(st.integers(-2, 4), max_size=4),
    st.lists(st.sampled_from([1, 2.5, True, "a", None, 2**63, float("inf")]), max_size=3),
    st.just({}),
)  # fmt: skip
DIMS = st.one_of(
    st.integers(-2, 9),
    st.sampled_from(
        [2**63 - 1, 2**63, None, "?", "N", "N + 1", "2 * N", "N - N", "a b", "N" * 65, 1.0, True]
    ),
)
SHAPES = st.one_of(st.none(), st.lists(DIMS, max_size=5), st.just([1] * 17))
DTYPES = st.sampled_from(["f32", "bf16", "f16", "s8", "u8", "s32", "boolean", "F32", "float16", "x", 3, None])


@st.composite
def tensors(draw: Any) -> dict[str, Any]:
    tensor: dict[str, Any] = {"dtype": draw(DTYPES), "shape": draw(SHAPES)}
    if draw(st.integers(0, 9)) == 0:
        del tensor[draw(st.sampled_from(["dtype", "shape"]))]
    if draw(st.integers(0, 9)) == 0:
        tensor[draw(st.sampled_from(["data", "strides", "stride", "quant", "bogus"]))] = draw(
            st.sampled_from([None, [1], [1.5, 2.5], {"encoding": "base64", "bytes": "AACAPw=="}, {"x": 1}])
        )
    return tensor


@st.composite
def descriptors(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(FAMILY + SEEDS))
    spec = BY_NAME[kind]
    names = (
        [a.name for a in spec.extra.attrs] if isinstance(spec.extra, Family) else ["axes", "keep_dims", "x"]
    )
    attrs = {}
    for name in draw(st.lists(st.sampled_from([*names, "bogus"]), max_size=4, unique=True)):
        attrs[name] = draw(VALUES)
    raw: dict[str, Any] = {"kind": kind, "attrs": attrs, "inputs": draw(st.lists(tensors(), max_size=4))}
    if draw(st.booleans()):
        raw["outputs"] = draw(st.one_of(st.none(), st.lists(tensors(), max_size=3)))
    if draw(st.integers(0, 19)) == 0:
        del raw[draw(st.sampled_from(["attrs", "inputs"]))]
    if draw(st.integers(0, 19)) == 0:
        raw["extra"] = 1
    return raw


@st.composite
def well_formed(draw: Any) -> dict[str, Any]:
    """A family member's descriptor with attributes of the right types (valid or not by the rules)."""
    kind = draw(st.sampled_from(FAMILY))
    spec = BY_NAME[kind]
    values = {
        "s64": st.integers(-2, 4), "s64[]": st.lists(st.integers(-1, 3), max_size=4),
        "f32": st.one_of(st.floats(-4, 4), st.integers(-3, 3)), "f32[]": st.lists(st.floats(0, 2), max_size=3),
        "f32|inf": st.sampled_from([0.0, 6, "inf", "-inf"]), "bool": st.booleans(),
    }  # fmt: skip
    attrs = {}
    for attr in spec.extra.attrs:
        if draw(st.booleans()):
            strategy = (
                values[attr.type] if attr.type in values else st.sampled_from(attr.values or ("NCX", "x"))
            )
            attrs[attr.name] = draw(strategy)
    shapes = st.lists(st.sampled_from([1, 2, 3, 4, "N"]), min_size=1, max_size=4)
    tensor = st.fixed_dictionaries({"dtype": st.sampled_from(["f32", "bf16", "s8", "u8"]), "shape": shapes})
    return {"kind": kind, "attrs": attrs, "inputs": draw(st.lists(tensor, min_size=1, max_size=4))}


def _read(descriptor: Any, spec: Any) -> dict[str, Any]:
    """Everything the check reads of a descriptor, from either pass."""

    def tensor(t: Any) -> tuple:
        return (t.dtype, t.shape, t.data, t.strides, t.quant, t.rank, t.strides_fit)

    attrs = descriptor.attrs
    names = type(attrs).model_fields
    return {
        "kind": descriptor.kind,
        "attrs": {name: (getattr(attrs, name), type(getattr(attrs, name))) for name in names},
        "set": set(attrs.model_fields_set),
        "defaults": {name: names[name].default for name in names},
        "inputs": [tensor(t) for t in descriptor.inputs],
        "outputs": None if descriptor.outputs is None else [tensor(t) for t in descriptor.outputs],
    }


def _verdict(descriptor: Any) -> Any:
    verdict, _ = engine.check(BY_NAME[descriptor.kind], descriptor, get_settings())
    return verdict.valid, verdict.outputs, [d.model_dump() for d in verdict.diagnostics], verdict.bindings


def check_both(raw: dict[str, Any]) -> Any:
    spec = BY_NAME[raw["kind"]] if isinstance(raw.get("kind"), str) else None
    fast = plain.descriptor(spec, raw) if spec is not None else None
    try:
        slow = parse(raw)
    except DescriptorErrors:
        assert fast is None, raw
        return None
    if fast is None:
        return None
    assert _read(fast, spec) == _read(slow, spec)
    assert _verdict(fast) == _verdict(slow)
    return fast


@settings(max_examples=1500, deadline=None)
@given(descriptors())
def test_the_plain_pass_reads_what_pydantic_reads(raw: dict[str, Any]) -> None:
    check_both(raw)


@settings(max_examples=1500, deadline=None)
@given(well_formed())
def test_well_formed_descriptors_are_taken_to_the_same_verdict(raw: dict[str, Any]) -> None:
    assert check_both(raw) is not None


@pytest.mark.parametrize("kind", FAMILY)
def test_every_family_members_attributes_hold_the_models_fields_and_defaults(kind: str) -> None:
    spec = BY_NAME[kind]
    model = spec.descriptor.model_fields["attrs"].annotation
    made = plain.attributes(spec, {})
    assert set(type(made).model_fields) == set(model.model_fields)
    assert {n: f.default for n, f in type(made).model_fields.items()} == {
        n: f.default for n, f in model.model_fields.items()
    }
    assert made.model_fields_set == set()
