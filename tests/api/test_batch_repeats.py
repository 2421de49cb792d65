"""The batch route's path for repeated descriptors (each distinct text parsed and checked once) answers
byte for byte what checking every descriptor answers, and counts every verdict in the metrics."""

from __future__ import annotations

import json

from app.api import metrics
from app.api.routes.check import _answer_each, _answer_repeats
from app.core.config import Settings
from app.ops import REGISTRY

EXAMPLES = [example for spec in REGISTRY.values() for example in spec.examples]
INVALID = {"kind": "ReduceMax", "attrs": {"axes": [7]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}


def test_repeats_answer_what_each_answers() -> None:
    ops = [*EXAMPLES, INVALID] * 3
    text = json.dumps({"ops": ops}).encode()
    spaced = text.replace(b'"kind": ', b'"kind" :  ')  # the same descriptors, other texts
    for body in (text, spaced):
        fast = _answer_repeats(body, Settings())
        assert fast is not None and fast.body == _answer_each(body, Settings()).body
    assert _answer_repeats(json.dumps({"ops": EXAMPLES}).encode(), Settings()) is None  # all distinct


def test_whatever_does_not_parse_goes_to_the_per_descriptor_path() -> None:
    bad = {**INVALID, "attrs": {"axis": 1}}
    for body in (
        json.dumps({"ops": [INVALID, bad]}).encode(),
        b'{"ops": [1, 2]}',
        b"[]",
        b'{"ops": [',
    ):
        assert _answer_repeats(body, Settings()) is None
    assert _answer_repeats(json.dumps({"ops": [INVALID] * 3}).encode(), Settings(max_batch=2)) is None


def test_every_repeat_is_counted() -> None:
    counter = metrics.VERDICTS.labels("ReduceMax", "false")
    before = counter._value.get()
    _answer_repeats(json.dumps({"ops": [INVALID] * 5}).encode(), Settings())
    assert counter._value.get() - before == 5


def test_verdicts_are_written_as_their_models_write_them() -> None:
    """Verdicts are written from plain data, not validated into Verdict and BatchResponse: same bytes."""
    from app.api.models import BatchResponse, Verdict
    from app.api.routes.check import verdict, verdict_answer, verdict_json
    from app.ops import DESCRIPTOR

    ops = [*EXAMPLES, INVALID, {**INVALID, "inputs": [{"dtype": "f32", "shape": None}]}]
    results = [verdict(DESCRIPTOR.validate_python(op), Settings()) for op in ops]
    models = [Verdict.model_validate(verdict_answer(result)) for result in results]
    assert any(model.diagnostics for model in models) and any(model.outputs is None for model in models)
    for result, model in zip(results, models, strict=True):
        assert verdict_json(result) == model.model_dump_json().encode()
    answer = _answer_each(json.dumps({"ops": ops}).encode(), Settings()).body
    assert answer == BatchResponse(results=models).model_dump_json().encode()


def test_a_long_batch_is_told_repeated_or_distinct_by_its_head() -> None:
    from app.api.routes.check import REPEATS_SAMPLE

    def reduce(dim: int) -> dict:
        return {"kind": "ReduceMax", "attrs": {"axes": [0]}, "inputs": [{"dtype": "f32", "shape": [dim]}]}

    count = 2 * REPEATS_SAMPLE
    distinct = json.dumps({"ops": [reduce(i + 1) for i in range(count)]}).encode()
    assert _answer_repeats(distinct, Settings()) is None  # the whole batch's one pass answers it
    repeated = json.dumps({"ops": [reduce(1 + i % 3) for i in range(count)]}).encode()
    fast = _answer_repeats(repeated, Settings())
    assert fast is not None and fast.body == _answer_each(repeated, Settings()).body
