"""examples.json is what app/reference/examples.py finds now, and every example in it is true: the
descriptor breaks its rule, and after the fix it is valid and no longer cites the rule."""

from __future__ import annotations

import pytest

from app import reference
from app.reference import examples
from app.reference.changes import Change, Edit, one

EXAMPLES, PASSING = examples.load()


def test_examples_json_is_what_the_specs_and_the_registry_give_now() -> None:
    found, passing, crashes = examples.find()
    assert crashes == []  # a descriptor the checker raised on: a bug (a 500 over HTTP)
    assert examples.DATA.read_text(encoding="utf-8") == examples.dump(found, passing), (
        "app/reference/examples.json is out of date: run .venv/bin/python -m app.reference"
    )


@pytest.mark.parametrize("rule", sorted(EXAMPLES))
def test_each_example_breaks_its_rule_and_its_fix_passes(rule: str) -> None:
    example = EXAMPLES[rule]
    broken = examples.outcome(example.descriptor)
    assert rule in [r for r, _ in broken.findings]
    fixed = examples.outcome(example.fixed())
    assert fixed.valid and rule not in [r for r, _ in fixed.findings], example.fix.text()
    assert rule in reference.book()


def test_every_op_has_a_passing_descriptor_and_each_passes() -> None:
    from app.ops import REGISTRY

    assert set(PASSING) == set(REGISTRY)
    missing = [kind for kind, found in PASSING.items() if not found]
    assert missing == ["ConvTransposeBackwardWeights"]  # no valid case in specs/ and no example of its own
    for found in PASSING.values():
        for passing in found:
            assert examples.outcome(passing.descriptor).valid, passing.source


def test_most_op_rules_have_an_example() -> None:
    ops = [e for e in reference.book().values() if e.group == "op"]
    covered = sum(1 for e in ops if e.id in EXAMPLES)
    assert covered / len(ops) > 0.75, covered


def test_a_change_is_undone_and_said() -> None:
    descriptor = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}, {"dtype": "f32", "shape": [3]}]}
    for edit, text in [
        (one("set", "inputs[1].shape[0]", 1), "set inputs[1].shape[0] to 1"),
        (one("remove", "inputs[1]"), "remove inputs[1]"),
        (
            one("insert", "inputs[0]", {"dtype": "f32", "shape": []}),
            'insert {"dtype": "f32", "shape": []} at inputs[0]',
        ),
        (one("set", "attrs", {"x": 1}), 'set attrs to {"x": 1}'),
        (Edit((Change("set", "inputs[0].dtype", "s8"), Change("set", "inputs[1].dtype", "s8"))), None),
    ]:
        changed = edit.apply(descriptor)
        assert changed != descriptor and edit.undo(descriptor).apply(changed) == descriptor
        assert text is None or edit.text() == text
        assert Edit.from_json(edit.to_json()) == edit
    assert descriptor["inputs"][1]["shape"] == [3]  # applying copies
