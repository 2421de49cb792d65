"""msgspec's first pass (app/ops/first_pass.py) against pydantic's: whatever the first pass takes, pydantic
takes too, to the same values and the same verdict; whatever pydantic refuses, the first pass leaves to
it. Generated descriptors reach past the subset on every side (other ops, fields, spellings, values)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.api.models import BatchRequest
from app.api.routes.check import _answer_each, _answer_plain, evaluate_answer, verdict, verdict_json
from app.core import engine
from app.core.config import Settings, get_settings
from app.core.diagnostics import PathError
from app.core.tensors import Tensor
from app.ops import BY_NAME, DESCRIPTOR, first_pass
from app.ops.max import MaxAttrs, MaxOp
from app.ops.reduce_max import ReduceMaxAttrs, ReduceMaxOp

dims = st.one_of(
    st.integers(-3, 5),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), 2**70, None, "?", "N", "W_2", "", "3", "a-b", "N" * 65]),
    st.sampled_from([True, 1.0, 2.5, [1]]),
)
shapes = st.one_of(st.none(), st.lists(dims, max_size=5), st.lists(st.just(1), min_size=17, max_size=18))
dtypes = st.sampled_from(["f32", "f16", "bf16", "s32", "F32", "float16", "int64", "flt", 3, None])


@st.composite
def tensors(draw: Any) -> dict:
    tensor: dict[str, Any] = {"dtype": draw(dtypes), "shape": draw(shapes)}
    if draw(st.integers(0, 9)) == 0:
        del tensor[draw(st.sampled_from(["dtype", "shape"]))]
    if draw(st.integers(0, 9)) == 0:
        extra = draw(st.sampled_from(["data", "strides", "stride", "quant", "bogus"]))
        tensor[extra] = draw(st.sampled_from([None, [1], [0.5], {"scale": 1}, *PAYLOADS]))
    return tensor


# base64 payloads, good and bad: the first pass takes an object of strings as pydantic's Any gives it.
PAYLOADS = [
    {"encoding": "base64", "bytes": "AACAPwAAAEA="},  # f32 [1, 2]
    {"encoding": "base64", "bytes": "AAA="},
    {"encoding": "base64", "bytes": "!!"},
    {"bytes": "AACAPwAAAEA=", "encoding": "base64"},
    {"encoding": "hex", "bytes": "00"},
    {"encoding": "base64", "bytes": "AACAPwAAAEA=", "x": "y"},
    {"encoding": "base64", "bytes": 1},
    {},
]


axes = st.lists(st.one_of(st.integers(-4, 4), st.sampled_from([2**63, -(2**63) - 1, True, 1.0])), max_size=4)


@st.composite
def descriptors(draw: Any) -> dict:
    kind = draw(st.sampled_from(["ReduceMax", "ReduceMax", "Max", "Max", "SegmentMax", "reducemax", 7]))
    descriptor: dict[str, Any] = {"kind": kind, "inputs": draw(st.lists(tensors(), max_size=3))}
    attrs = draw(
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {}, optional={"axes": axes, "keep_dims": st.sampled_from([True, False, 1, "yes"])}
            ),
            st.just({"axis": 1}),
            st.just(None),
        )
    )
    if attrs is not None or draw(st.booleans()):
        descriptor["attrs"] = attrs
    if draw(st.booleans()):
        descriptor["outputs"] = draw(st.one_of(st.none(), st.lists(tensors(), max_size=2)))
    if draw(st.integers(0, 19)) == 0:
        descriptor["extra"] = 1
    if draw(st.integers(0, 19)) == 0:
        del descriptor["inputs"]
    return descriptor


def _read(descriptor: Any) -> dict:
    """Everything the check reads from a descriptor, from either pass."""

    def tensor(t: Any) -> tuple:
        return (t.dtype, t.shape, t.data, t.strides, t.quant, t.rank, t.strides_fit)

    attrs = descriptor.attrs
    return {
        "kind": descriptor.kind,
        "attrs": (getattr(attrs, "axes", None), getattr(attrs, "keep_dims", None)),
        "inputs": [tensor(t) for t in descriptor.inputs],
        "outputs": None if descriptor.outputs is None else [tensor(t) for t in descriptor.outputs],
    }


@settings(max_examples=600)
@given(descriptors())
def test_the_first_pass_reads_what_pydantic_reads(body) -> None:
    text = json.dumps(body).encode()
    fast = first_pass.descriptor(text)
    try:
        slow = DESCRIPTOR.validate_json(text)
    except ValidationError:
        assert fast is None
        return
    if fast is None:
        assert not (type(slow) in (ReduceMaxOp, MaxOp) and _plain(body)), body  # only what is outside
        return
    assert _read(fast) == _read(slow)
    assert verdict_json(verdict(fast, get_settings())) == verdict_json(verdict(slow, get_settings()))
    assert _evaluated(fast) == _evaluated(slow)


def _evaluated(descriptor: Any) -> tuple:
    """What POST /v1/evaluate answers for a descriptor: its bytes, or its refusal."""
    try:
        result = engine.evaluate(BY_NAME[descriptor.kind], descriptor, get_settings())
    except (engine.Invalid, PathError) as exc:
        return type(exc).__name__, str(exc)
    return ("answer", evaluate_answer(result))


plain_tensors = st.fixed_dictionaries(
    {
        "dtype": st.sampled_from(["f32", "f16", "bf16", "s32", "F32", "int64", "flt"]),
        "shape": st.one_of(
            st.none(), st.lists(st.sampled_from([0, 1, 2, 3, -1, None, "?", "N", "M"]), max_size=4)
        ),
    },
    optional={"data": st.sampled_from([None, *PAYLOADS[:6]])},
)
plain_descriptors = st.one_of(
    st.fixed_dictionaries(
        {"kind": st.just("ReduceMax"), "inputs": st.lists(plain_tensors, min_size=1, max_size=2)},
        optional={
            "attrs": st.fixed_dictionaries(
                {}, optional={"axes": st.lists(st.integers(-4, 4), max_size=3), "keep_dims": st.booleans()}
            ),
            "outputs": st.one_of(st.none(), st.lists(plain_tensors, max_size=2)),
        },
    ),
    st.fixed_dictionaries(
        {"kind": st.just("Max"), "inputs": st.lists(plain_tensors, min_size=1, max_size=4)},
        optional={"attrs": st.just({}), "outputs": st.one_of(st.none(), st.lists(plain_tensors, max_size=2))},
    ),
)


@settings(max_examples=400)
@given(plain_descriptors)
def test_plain_descriptors_take_the_first_pass_to_the_same_verdict(body) -> None:
    test_the_first_pass_reads_what_pydantic_reads.hypothesis.inner_test(body)


def _plain(body: dict) -> bool:
    """Inside the first pass's subset: tensors of dtype, shape and an object of strings as data only,
    each dim an int, a str or null, each axis an int; Max with no attribute."""
    tensors = body["inputs"] + (body.get("outputs") or [])
    if not set().union(*(t.keys() for t in tensors)) <= {"dtype", "shape", "data"}:
        return False
    payloads = [t["data"] for t in tensors if t.get("data") is not None]
    if not all(isinstance(p, dict) and all(type(v) is str for v in p.values()) for p in payloads):
        return False
    if any(type(d) not in (int, str, type(None)) for t in tensors for d in t.get("shape") or []):
        return False
    attrs = body.get("attrs") or {}
    return not (body["kind"] == "Max" and attrs) and all(type(a) is int for a in attrs.get("axes", []))


@pytest.mark.parametrize("dim", ["N", "_n2", "?", "N\n", "N ", "2N", "", "é", "N" * 65])
def test_a_string_dim_is_taken_only_where_pydantic_takes_it(dim) -> None:
    # msgspec checks the string's length, PlainTensor the symbol: the same test as parse_dim's
    text = json.dumps({"kind": "Max", "inputs": [{"dtype": "f32", "shape": [dim, 2]}]}).encode()
    try:
        expected = DESCRIPTOR.validate_json(text)
    except ValidationError:
        assert first_pass.descriptor(text) is None
    else:
        assert first_pass.descriptor(text).inputs[0].shape == expected.inputs[0].shape


def test_a_repeated_kind_is_left_to_pydantic() -> None:
    text = b'{"kind": "Max", "kind": "ReduceMax", "inputs": [{"dtype": "f32", "shape": [2]}]}'
    assert first_pass.descriptor(text) is None
    assert DESCRIPTOR.validate_json(text).kind == "ReduceMax"  # pydantic reads the last


def test_the_plain_types_hold_the_models_fields_and_defaults() -> None:
    fields = (*first_pass.PlainTensor.__struct_fields__, "strides", "quant")
    assert sorted(fields) == sorted(Tensor.model_fields)
    for plain, model in (
        (first_pass.PlainReduceMaxAttrs, ReduceMaxAttrs),
        (first_pass.PlainMaxAttrs, MaxAttrs),
    ):
        built = plain()
        assert {name: getattr(built, name) for name in plain.__struct_fields__} == model().model_dump()
    for plain, model in ((first_pass.PlainReduceMax, ReduceMaxOp), (first_pass.PlainMax, MaxOp)):
        assert sorted((*plain.__struct_fields__, "kind")) == sorted(model.model_fields)
        assert (plain.kind,) == model.names


@given(st.lists(descriptors(), max_size=4))
def test_a_batch_answers_what_pydantic_answers(ops) -> None:
    body = json.dumps({"ops": ops}).encode()
    fast = _answer_plain(body, Settings())
    if fast is None:
        return
    assert [_read(d) for d in first_pass.batch(body) or []] == [
        _read(d) for d in BatchRequest.model_validate_json(body).ops
    ]
    assert fast.body == _answer_each(body, Settings()).body


def test_a_batch_over_the_limit_is_left_to_pydantic() -> None:
    op = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}
    body = json.dumps({"ops": [op] * 3, "other": 1}).encode()
    assert _answer_plain(body, Settings()) is not None  # other keys are ignored, as BatchRequest ignores them
    assert _answer_plain(body, Settings(max_batch=2)) is None


def test_base64_evaluations_answer_the_same() -> None:
    """Payloads the first pass takes are decoded by the same rules: the same answers, element for
    element, NaN and -0 included."""
    import base64

    import numpy as np

    def payload(values: list[float], dtype: str) -> dict:
        return {
            "encoding": "base64",
            "bytes": base64.b64encode(np.array(values, dtype=dtype).tobytes()).decode(),
        }

    a = payload([1.0, float("nan"), -0.0, -np.inf], "<f4")
    b = payload([2.0, 0.0, 0.0, 5.0], "<f4")
    bodies = [
        {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": [4], "data": a}, {"dtype": "F32", "shape": [4], "data": b}],
        },
        {
            "kind": "ReduceMax",
            "attrs": {"axes": [1]},
            "inputs": [{"dtype": "f32", "shape": [2, 2], "data": a}],
        },
        {"kind": "Max", "inputs": [{"dtype": "f16", "shape": [4], "data": a}]},  # 16 bytes for 4 f16: refused
    ]
    for body in bodies:
        text = json.dumps(body).encode()
        fast = first_pass.descriptor(text)
        assert fast is not None
        assert _evaluated(fast) == _evaluated(DESCRIPTOR.validate_json(text))
    assert _evaluated(first_pass.descriptor(json.dumps(bodies[0]).encode()))[0] == "answer"
