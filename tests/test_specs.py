"""Runs every case of specs/*.json through the HTTP API: the spec texts as executable checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import same_values

SPECS = Path(__file__).resolve().parent.parent / "specs"


def _cases() -> list:
    params = []
    for path in sorted(SPECS.glob("*.json")):
        document = json.loads(path.read_text())
        for case in document["cases"]:
            params.append(pytest.param(case, id=f"{path.stem}: {case['name']}"))
    return params


@pytest.mark.parametrize("case", _cases())
def test_case(client, case) -> None:
    expect = case["expect"]
    response = client.post("/v1/validate", json=case["descriptor"])
    if "status" in expect:
        assert response.status_code == expect["status"], response.text
        if "error_paths" in expect:
            assert sorted(e["path"] for e in response.json()["errors"]) == expect["error_paths"]
        return
    assert response.status_code == 200, response.text
    verdict = response.json()
    diagnostics = verdict["diagnostics"]
    assert verdict["valid"] is expect["valid"], diagnostics
    if "outputs" in expect:
        assert verdict["outputs"] == expect["outputs"]
    if "errors" in expect:
        assert sorted({d["rule"] for d in diagnostics if d["severity"] == "error"}) == expect["errors"], (
            diagnostics
        )
    if "warnings" in expect:
        assert sorted({d["rule"] for d in diagnostics if d["severity"] == "warning"}) == expect["warnings"]
    if "paths" in expect:
        assert sorted({d["path"] for d in diagnostics}) == expect["paths"]
    if "evaluate" in expect:
        evaluated = client.post("/v1/evaluate", json=case["descriptor"])
        assert evaluated.status_code == 200, evaluated.text
        outputs = evaluated.json()["outputs"]
        assert [(o["dtype"], o["shape"]) for o in outputs] == [
            (o["dtype"], o["shape"]) for o in expect["evaluate"]
        ]
        for got, want in zip(outputs, expect["evaluate"], strict=True):
            assert same_values(got["data"], want["data"]), (got["data"], want["data"])
    if "verify" in expect:
        check_verify(client, case["descriptor"], expect["verify"])


def check_verify(client, descriptor: dict, expect: dict) -> None:
    """expect.verify: the verdict of POST /v1/verify on the descriptor's given outputs, per output its
    classes, the (at, class) of its first mismatches when listed, and the implementations it is like."""
    response = client.post("/v1/verify", json=descriptor)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["conformant"] is expect["conformant"], answer
    assert len(answer["outputs"]) == len(expect["outputs"])
    for got, want in zip(answer["outputs"], expect["outputs"], strict=True):
        assert got["classes"] == want["classes"], got
        if "first" in want:
            assert [[m["at"], m["class"]] for m in got["first"]] == want["first"], got["first"]
        assert [like["implementation"] for like in got["like"]] == want["like"], got["like"]


def test_every_op_has_a_case_file() -> None:
    from app.ops import REGISTRY

    documents = [json.loads(p.read_text()) for p in SPECS.glob("*.json")]
    # A family's file (specs/<family>.json) covers the kinds its cases describe.
    covered = {d["op"] for d in documents} | {
        c["descriptor"].get("kind") for d in documents for c in d["cases"]
    }
    assert set(REGISTRY) <= covered
