"""The hot routes (app/api/hot.py) against FastAPI's routes they shortcut: every spec case and a set of
bodies that are not descriptors get the same status, the same headers and the same bytes from an app
with hot_routes on as from one with it off, and the request metrics count them alike. The access log
line stays json.dumps's layout, key for key."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api import metrics
from app.api.jsontext import json_text
from app.api.main import create_app
from app.api.middleware import ACCESS_LOG, REQUEST_IDS, AccessLog
from app.core.config import Settings

SPECS = Path(__file__).resolve().parents[2] / "specs"
ROUTES = ("/v1/validate", "/v1/evaluate")
# Headers that carry no meaning for the comparison: the date of the answer.
_UNCOMPARED = frozenset({"date"})

_HOT = TestClient(create_app(Settings(access_log=False, hot_routes=True)), raise_server_exceptions=False)
_ROUTED = TestClient(create_app(Settings(access_log=False, hot_routes=False)), raise_server_exceptions=False)
_SMALL_HOT = TestClient(
    create_app(Settings(access_log=False, hot_routes=True, max_body_bytes=64)), raise_server_exceptions=False
)
_SMALL_ROUTED = TestClient(
    create_app(Settings(access_log=False, hot_routes=False, max_body_bytes=64)), raise_server_exceptions=False
)


def _spec_bodies() -> list[bytes]:
    bodies = []
    for path in sorted(SPECS.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            bodies.append(json.dumps(case["descriptor"]).encode())
    return bodies


SPEC_BODIES = _spec_bodies()
NOT_DESCRIPTORS = [
    b"",
    b"{",
    b"[]",
    b'{"kind": "NoSuchOp", "inputs": []}',
    b'{"kind": "ReduceMax", "attrs": {"axis": [0]}, "inputs": [{"dtype": "f32", "shape": [2]}]}',
    b'{"kind": "ReduceMax", "inputs": [{"dtype": "f32", "shape": [2], "data": "\xff"}]}',
    b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2], "data": [1, 2]}]}',
    b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [1000000000000], "data": [1]}]}',
]


def _exchange(client: TestClient, route: str, body: bytes, **headers: str) -> tuple:
    sent = {"content-type": "application/json", "x-request-id": "hot-differential", **headers}
    answer = client.post(route, content=body, headers=sent)
    kept = sorted((k, v) for k, v in answer.headers.items() if k not in _UNCOMPARED)
    return answer.status_code, kept, answer.content


def _same(route: str, body: bytes, **headers: str) -> None:
    want = _exchange(_ROUTED, route, body, **headers)
    assert want[0] < 500, (route, body[:200], want)
    assert _exchange(_HOT, route, body, **headers) == want, (route, body[:200])


@pytest.mark.parametrize("route", ROUTES)
def test_every_spec_case_is_answered_alike(route) -> None:
    for body in SPEC_BODIES:
        _same(route, body)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", NOT_DESCRIPTORS, ids=range(len(NOT_DESCRIPTORS)))
def test_bodies_that_are_no_descriptor_are_answered_alike(route, body) -> None:
    _same(route, body)


@given(index=st.integers(0, len(SPEC_BODIES) - 1), cut=st.integers(0, 400), junk=st.binary(max_size=8))
@settings(max_examples=150, deadline=None)
def test_damaged_spec_bodies_are_answered_alike(index, cut, junk) -> None:
    body = SPEC_BODIES[index]
    damaged = body[: cut % (len(body) + 1)] + junk + body[cut % (len(body) + 1) :]
    for route in ROUTES:
        _same(route, damaged)


def test_what_the_outer_layers_answer_is_answered_alike() -> None:
    """A body over the limit (413), a body that is not JSON (415), another method (405) and a request
    without an id of its own: the hot routes sit inside all of those layers."""
    big = SPEC_BODIES[0] + b" " * 100
    for route in ROUTES:
        assert _exchange(_SMALL_HOT, route, big) == _exchange(_SMALL_ROUTED, route, big)
        assert _exchange(_HOT, route, b"x", **{"content-type": "text/plain"}) == _exchange(
            _ROUTED, route, b"x", **{"content-type": "text/plain"}
        )
        hot, routed = (c.get(route, headers={"x-request-id": "g"}) for c in (_HOT, _ROUTED))
        assert (hot.status_code, hot.headers["allow"], hot.content) == (
            routed.status_code,
            routed.headers["allow"],
            routed.content,
        )
        fresh = _HOT.post(route, content=SPEC_BODIES[0], headers={"content-type": "application/json"})
        assert len(fresh.headers["x-request-id"]) == 32


def _requests_counted(route: str, status: int) -> float:
    metrics.fold()
    return metrics.REQUESTS.labels("POST", route, str(status))._value.get()


def test_the_metrics_count_a_hot_answer_as_a_routed_one() -> None:
    for client in (_HOT, _ROUTED):
        before = _requests_counted("/v1/validate", 200), _requests_counted("/v1/evaluate", 422)
        client.post("/v1/validate", content=SPEC_BODIES[0], headers={"content-type": "application/json"})
        client.post("/v1/evaluate", content=b"{", headers={"content-type": "application/json"})
        after = _requests_counted("/v1/validate", 200), _requests_counted("/v1/evaluate", 422)
        assert (after[0] - before[0], after[1] - before[1]) == (1, 1)


@pytest.mark.parametrize(
    "path", ["/v1/validate", "/v1/ops/Reduce\u00e9", '/v1/ops/"quoted"\\', "/v1/ops/tab%09here%0A", "/\u2028"]
)
def test_the_access_log_line_is_json_dumps_layout(monkeypatch, path) -> None:
    app = create_app(Settings(access_log=True))
    ACCESS_LOG.flush()  # lines of earlier tests' apps
    written = io.StringIO()
    monkeypatch.setattr("sys.stderr", written)
    with TestClient(app, raise_server_exceptions=False) as client:
        client.post(
            path, content=SPEC_BODIES[0], headers={"content-type": "application/json", "x-request-id": "r1"}
        )
    ACCESS_LOG.flush()
    (line,) = written.getvalue().splitlines()
    entry = json.loads(line)
    assert list(entry) == ["request_id", "method", "route", "path", "status", "duration_ms"]
    assert entry["request_id"] == "r1" and entry["method"] == "POST"
    assert line == json.dumps(entry)


@given(st.text(max_size=40))
def test_json_text_is_json_dumps(text) -> None:
    assert json_text(text) == json.dumps(text)


def test_request_ids_are_32_hex_digits_and_unique() -> None:
    ids = {REQUEST_IDS.next() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


def test_the_access_log_writes_its_lines_in_batches_soon_after(monkeypatch) -> None:
    log = AccessLog()
    written = io.StringIO()
    monkeypatch.setattr("sys.stderr", written)

    async def serve_three() -> tuple[str, str]:
        for index in range(3):
            log.write(f"line {index}\n")
        before = written.getvalue()
        await asyncio.sleep(log.FLUSH_SECONDS * 3)
        return before, written.getvalue()

    before, after = asyncio.run(serve_three())
    assert (before, after) == ("", "line 0\nline 1\nline 2\n")
    log.write("no loop\n")  # outside a loop: at once
    assert written.getvalue().endswith("line 2\nno loop\n")


def test_a_full_access_log_batch_is_written_at_once(monkeypatch) -> None:
    log = AccessLog()
    written = io.StringIO()
    monkeypatch.setattr("sys.stderr", written)

    async def fill() -> str:
        for index in range(log.FLUSH_LINES):
            log.write(f"{index}\n")
        return written.getvalue()

    assert asyncio.run(fill()).count("\n") == log.FLUSH_LINES
