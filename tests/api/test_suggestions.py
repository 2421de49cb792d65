""" "Did you mean": an unknown kind, alias, attribute or dtype gets the closest known names, case and
separators first, in the message and as `suggestions` (the page shows them as buttons), on the API and
in `opspec check` alike, for whatever ops the registry holds."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.core.suggest import close_names
from app.ops import BY_NAME, REGISTRY

TENSOR = {"dtype": "f32", "shape": [2, 3]}


def problem(client, body: dict) -> dict:
    answer = client.post("/v1/validate", json=body)
    assert answer.status_code == 422, answer.text
    return answer.json()["errors"][0]


@pytest.mark.parametrize(
    ("kind", "suggested"),
    [
        ("ArgMax", ["Argmax"]),
        ("reducemax", ["ReduceMax"]),
        ("Reduce_Max", ["ReduceMax"]),
        ("segmentmax-16", ["SegmentMax-16"]),
        ("mli_krn_argmax_fx61", ["mli_krn_argmax_fx16", "mli_krn_argmax_sa8"]),
        ("Nope", []),
    ],
)
def test_an_unknown_kind_or_alias_suggests_the_closest(client, kind, suggested) -> None:
    error = problem(client, {"kind": kind, "inputs": [TENSOR]})
    assert error["path"] == "kind"
    assert error["suggestions"][: len(suggested) or None] == suggested
    if suggested:
        assert f"unknown kind '{kind}'; did you mean '{suggested[0]}'" in error["message"]
    else:
        assert "did you mean" not in error["message"]


def test_an_unknown_attribute_suggests_the_op_s_own(client) -> None:
    error = problem(client, {"kind": "ReduceMax", "attrs": {"keepdims": True}, "inputs": [TENSOR]})
    assert error["suggestions"] == ["keep_dims"]
    assert "did you mean 'keep_dims'?" in error["message"]
    error = problem(client, {"kind": "SegmentMax", "attrs": {"fillmode": "ZERO"}, "inputs": [TENSOR]})
    assert error["suggestions"][0] == "fill_mode"


@pytest.mark.parametrize(("dtype", "suggested"), [("flaot32", "f32"), ("FP61", "f16"), ("Int46", "s64")])
def test_an_unknown_dtype_suggests_a_canonical_name(client, dtype, suggested) -> None:
    error = problem(client, {"kind": "Max", "inputs": [{**TENSOR, "dtype": dtype}]})
    assert error["path"] == "inputs[0].dtype"
    assert suggested in error["suggestions"]
    assert f"unknown dtype '{dtype}'; did you mean" in error["message"]


def test_a_huge_unknown_name_gets_no_suggestion_and_a_short_answer(client) -> None:
    error = problem(client, {"kind": "Max", "inputs": [{**TENSOR, "dtype": "f32" * 100_000}]})
    assert error["suggestions"] == []
    error = problem(client, {"kind": "Max" * 100_000, "inputs": [TENSOR]})
    assert error["suggestions"] == []


def test_every_registered_kind_is_suggested_for_its_lower_case_spelling() -> None:
    """Whatever ops the registry holds (7 today, ~90 with the oneDNN op set)."""
    names = list(BY_NAME)
    for spec in REGISTRY.values():
        for name in (spec.kind, *spec.aliases):
            assert close_names(name.lower(), names)[0] == name, name
            assert close_names(name.upper(), names)[0] == name, name


def test_check_says_it_too(tmp_path, capsys) -> None:
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({"kind": "ReduceMax", "attrs": {"keepdims": True}, "inputs": [TENSOR]}))
    assert main(["check", str(path)]) == 2  # not a descriptor of ReduceMax
    assert "did you mean 'keep_dims'?" in capsys.readouterr().out


def test_the_op_list_gives_each_op_s_family(client) -> None:
    """The page groups ~90 ops by family; ReduceMax is a member of the reduction family, the other
    seed ops have none ("")."""
    ops = {op["kind"]: op for op in client.get("/v1/ops").json()}
    assert {kind: ops[kind]["family"] for kind in ("ReduceMax", "SegmentMax", "Max", "Argmax")} == {
        "ReduceMax": "reduction",
        "SegmentMax": "",
        "Max": "",
        "Argmax": "",
    }
    assert all(op["family"] == REGISTRY[kind].family for kind, op in ops.items())
    assert ops["Abs"]["family"] == "eltwise"
    assert client.get("/v1/ops/Abs").json()["family"] == "eltwise"
