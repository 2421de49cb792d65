"""POST /v1/evaluate runs a small evaluation on the event loop and anything else in the thread pool:
both paths answer the same bytes, statuses and headers."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.api.routes import check
from app.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
_DOCS_BODIES = [
    body
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for body in re.findall(r"curl -s localhost:8000/v1/evaluate .*-d '(.*)'", page.read_text())
]


def _b64(array: np.ndarray) -> dict:
    return {"encoding": "base64", "bytes": base64.b64encode(array.tobytes()).decode()}


def _max(*arrays: np.ndarray) -> dict:
    return {
        "kind": "Max",
        "inputs": [{"dtype": "f32", "shape": list(a.shape), "data": _b64(a)} for a in arrays],
    }


_RNG = np.random.default_rng(0)
BENCH = _max(*_RNG.standard_normal((2, 1000)).astype(np.float32))  # bench/bench_small.py's request
BROADCAST = _max(
    np.arange(64, dtype=np.float32).reshape(64, 1), -np.arange(64, dtype=np.float32).reshape(1, 64)
)
NO_DATA = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}
BODIES = [pytest.param(json.loads(body), id=f"docs {i}") for i, body in enumerate(_DOCS_BODIES)] + [
    pytest.param(BENCH, id="bench_small"),
    pytest.param(BROADCAST, id="broadcast"),
    pytest.param(NO_DATA, id="no data"),
    pytest.param({"kind": "Max", "inputs": [{"dtype": "f32", "shape": "s"}]}, id="not a descriptor"),
]


def _answers(body: dict, monkeypatch, **limits) -> dict[str, tuple]:
    """The answer of each path (status, headers, bytes), and the functions each sent to the pool."""
    answers = {}
    for path, inline_elements in (("loop", 10**9), ("pool", 0)):
        sent: list[str] = []
        real = check.off_loop

        async def spy(request, function, *args, sent=sent, real=real):
            sent.append(function.__name__)
            return await real(request, function, *args)

        monkeypatch.setattr(check, "off_loop", spy)
        with TestClient(create_app(Settings(inline_elements=inline_elements, **limits))) as client:
            answer = client.post("/v1/evaluate", json=body, headers={"x-request-id": "same"})
        monkeypatch.undo()
        answers[path] = (answer.status_code, dict(answer.headers), answer.content, sent)
    return answers


@pytest.mark.parametrize("body", BODIES)
def test_both_paths_answer_the_same_bytes(body, monkeypatch) -> None:
    answers = _answers(body, monkeypatch)
    loop, pool = answers["loop"], answers["pool"]
    assert loop[:3] == pool[:3]
    assert loop[3] == []
    assert pool[3] == (["_evaluation"] if loop[0] == 200 else [])  # a refusal comes from the check


def test_a_limit_is_the_same_413_on_both_paths(monkeypatch) -> None:
    answers = _answers(BROADCAST, monkeypatch, max_total_bytes=1000)
    assert answers["loop"][0] == 413
    assert answers["loop"][:3] == answers["pool"][:3]
    assert (answers["loop"][3], answers["pool"][3]) == ([], ["_evaluation"])


def test_the_default_bound_keeps_small_runs_on_the_loop_and_sends_broadcasts_to_the_pool(monkeypatch) -> None:
    sent: list[str] = []
    real = check.off_loop

    async def spy(request, function, *args):
        sent.append(function.__name__)
        return await real(request, function, *args)

    monkeypatch.setattr(check, "off_loop", spy)
    with TestClient(create_app(Settings())) as client:
        assert client.post("/v1/evaluate", json=BENCH).status_code == 200
        assert sent == []  # 3,000 elements in all: within inline_elements
        answer = client.post("/v1/evaluate", json=BROADCAST)  # a ~1 KB body, a 4,096-element output
        assert answer.status_code == 200
        assert answer.json()["outputs"][0]["shape"] == [64, 64]
        assert sent == ["_evaluation"]
        large = _max(*np.zeros((2, 4096), np.float32))  # over inline_body_bytes: parsed in the pool too
        assert client.post("/v1/evaluate", json=large).status_code == 200
        assert sent == ["_evaluation", "_evaluate"]
