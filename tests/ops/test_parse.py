"""app.ops.parse, which reads a raw descriptor by the model of its kind alone, against the union of every
op's model (DESCRIPTOR) that it stands in for: the same descriptor, or the same errors. And the reason it
exists: a fresh process builds no op model it does not use."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from app.ops import BY_NAME, DESCRIPTOR, REGISTRY, DescriptorErrors, OpDescriptor, parse

SPECS = Path(__file__).resolve().parents[2] / "specs"


def _spec_descriptors() -> list[Any]:
    found = []
    for path in sorted(SPECS.glob("*.json")):
        found += [case["descriptor"] for case in json.loads(path.read_text())["cases"]]
    return found


def _damaged(kind: str) -> list[Any]:
    """Descriptors of `kind` broken in the ways a user breaks them."""
    tensor = {"dtype": "f32", "shape": [2, 3]}
    return [
        {"kind": kind},
        {"kind": kind, "inputs": "x"},
        {"kind": kind, "inputs": [tensor], "attrs": {"no_such_attribute": 1}},
        {"kind": kind, "inputs": [{"dtype": "f33", "shape": [2]}], "attrs": []},
        {"kind": kind, "inputs": [{"dtype": "f32", "shape": [2, "a b"]}], "extra": True},
        {"kind": kind, "inputs": [tensor, {"shape": [1]}], "outputs": [{"dtype": 5}]},
    ]


ODD = [
    {"inputs": []},
    {"kind": "NoSuchOp", "inputs": []},
    {"kind": 5, "inputs": []},
    {"kind": None},
    {"kind": ["Abs"]},
    [],
    "Abs",
    None,
]


def _plain(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # ctx may hold the exception a validator raised: a new object each time, equal by its words
    return [{**e, "ctx": {k: str(v) for k, v in e["ctx"].items()}} if "ctx" in e else e for e in errors]


def _same_as_the_union(raw: Any) -> None:
    try:
        expected = DESCRIPTOR.validate_python(raw)
    except ValidationError as exc:
        with pytest.raises(DescriptorErrors) as got:
            parse(raw)
        assert _plain(got.value.errors()) == _plain(exc.errors())
    else:
        descriptor = parse(raw)
        assert type(descriptor) is type(expected)  # the one class of the op, built once
        assert descriptor == expected


@pytest.mark.parametrize("raw", _spec_descriptors(), ids=lambda raw: str(raw.get("kind")))
def test_every_spec_case_reads_as_the_union_reads_it(raw) -> None:
    _same_as_the_union(raw)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_kind_and_alias_damaged_gives_the_unions_errors(name) -> None:
    for raw in _damaged(name) + [dict(example, kind=name) for example in BY_NAME[name].examples]:
        _same_as_the_union(raw)


@pytest.mark.parametrize("raw", ODD, ids=repr)
def test_an_unknown_missing_or_odd_kind_is_the_unions_own_error(raw) -> None:
    _same_as_the_union(raw)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["f32", "s8", "N", "?", ""]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["dtype", "shape", "data"]), inner)
    ),
    max_leaves=6,
)


@given(
    kind=st.sampled_from(sorted(BY_NAME)),
    inputs=st.lists(st.fixed_dictionaries({"dtype": _VALUES, "shape": _VALUES}), max_size=3) | _VALUES,
    attrs=st.dictionaries(st.sampled_from(["axes", "axis", "keep_dims", "epsilon", "mode", "x"]), _VALUES),
)
def test_any_descriptor_reads_as_the_union_reads_it(kind, inputs, attrs) -> None:
    _same_as_the_union({"kind": kind, "inputs": inputs, "attrs": attrs})


def test_every_model_builds_with_its_specs_names_and_is_the_one_the_union_holds() -> None:
    members = set(get_args(get_args(OpDescriptor)[0]))
    for spec in REGISTRY.values():
        assert spec.descriptor.names == spec.names
        assert spec.descriptor in members


def test_a_model_is_built_once_when_threads_ask_at_once() -> None:
    calls = []
    model = REGISTRY["Abs"].descriptor

    def slow_builder() -> type:
        calls.append(1)
        time.sleep(0.05)  # long enough for every thread to ask while the first builds
        return model

    spec = dataclasses.replace(REGISTRY["Abs"], model=slow_builder)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: spec.descriptor, range(8)))
    assert len(calls) == 1
    assert all(built is model for built in got)


def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_fresh_process_builds_only_the_models_it_uses(tmp_path) -> None:
    # The reason parse exists: building every op's model was most of `opspec check`'s start-up.
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"kind": "Abs", "inputs": [{"dtype": "f32", "shape": [2]}]}))
    code = (
        "import app.ops, app.cli.check;"
        f"report = app.cli.check.run_check([{str(path)!r}]);"
        "assert report.files[0].units[0].verdict == 'valid';"
        "built = sorted(s.kind for s in app.ops.REGISTRY.values() if '_descriptor' in s.__dict__);"
        "print(built, 'DESCRIPTOR' in vars(app.ops))"
    )
    assert _fresh(code) == "['Abs'] False"
