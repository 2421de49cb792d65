"""Every fast path against the reference path: generated and mutated bodies sent through msgspec's first
pass (app/ops/first_pass.py), the lifted data lists (app/core/jsonlists.py), the small request checked on
the event loop, and the batch's repeated-text and first-pass paths, get the status and the answer that
pydantic alone gives (every fast path off, the ops' quick verdicts too, every body in the thread pool). A fast path that drifts (a
500 where pydantic says 422, another verdict, another message) fails here. The bytes that are not
UTF-8 inside a JSON string got a 500 from the first pass while pydantic answered 422."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.api.main import create_app
from app.api.routes import check
from app.core import engine, jsonlists
from app.core.config import Settings
from app.ops import REGISTRY, first_pass

ROUTES = ("/v1/validate", "/v1/evaluate", "/v1/validate/batch")
HEADERS = {"content-type": "application/json", "x-request-id": "differential"}

# Fast: small bodies on the loop through the first pass. Lifted: every body in the pool, every data list
# lifted. Reference: every body in the pool, every fast path off.
_INLINE = TestClient(create_app(Settings(access_log=False)), raise_server_exceptions=False)
_POOL = TestClient(create_app(Settings(access_log=False, inline_body_bytes=0)), raise_server_exceptions=False)


@contextmanager
def _reference() -> Iterator[None]:
    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(first_pass, "descriptor", lambda text: None))
        stack.enter_context(mock.patch.object(first_pass, "batch", lambda body: None))
        stack.enter_context(mock.patch.object(jsonlists, "lift", lambda body: None))
        stack.enter_context(mock.patch.object(check, "_answer_repeats", lambda body, settings: None))
        full_check = engine.check  # the ops' quick verdicts off: every verdict by the full check
        stack.enter_context(
            mock.patch.object(engine, "verdict", lambda spec, d, s: full_check(spec, d, s)[0])
        )
        yield


@contextmanager
def _lift_every_list() -> Iterator[None]:
    with mock.patch.object(jsonlists, "MIN_LIFT_BYTES", 0):
        yield


def _answer(client: TestClient, route: str, body: bytes) -> tuple[int, Any]:
    answer = client.post(route, content=body, headers=HEADERS)
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, answer.text


def _same_everywhere(body: bytes) -> None:
    for route in ROUTES:
        payload = body if route != "/v1/validate/batch" else b'{"ops": [' + body + b", " + body + b"]}"
        with _reference():
            want = _answer(_POOL, route, payload)
        assert want[0] < 500, (route, payload[:300], want)
        assert _answer(_INLINE, route, payload) == want, (route, payload[:300])
        with _lift_every_list():
            assert _answer(_POOL, route, payload) == want, (route, payload[:300])


# --- generated descriptors --------------------------------------------------------------------------

_DTYPES = ["f32", "f16", "bf16", "s32", "s64", "u8", "boolean", "F32", "int64", "float", "flt"]
_VALUES = st.one_of(
    st.integers(-300, 300),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["nan", "inf", "-inf", "NaN", 1e39, 2**63, -0.0, True, None, "x"]),
)


@st.composite
def _data(draw: Any, shape: list[int]) -> Any:
    count = 1
    for dim in shape:
        count *= dim
    flat = draw(st.lists(_VALUES, min_size=max(count - 1, 0), max_size=count + 1))
    if len(shape) >= 2 and len(flat) == count and draw(st.booleans()):  # nested rows, as often given
        rows = shape[0]
        width = count // rows if rows else 0
        return [flat[i * width : (i + 1) * width] for i in range(rows)]
    return flat


@st.composite
def _tensor(draw: Any) -> dict:
    shape = draw(st.lists(st.integers(0, 3), max_size=3))
    tensor: dict[str, Any] = {"dtype": draw(st.sampled_from(_DTYPES)), "shape": shape}
    if draw(st.booleans()):
        tensor["data"] = draw(_data(shape))
    return tensor


@st.composite
def _descriptor(draw: Any) -> dict:
    kind = draw(st.sampled_from(["Max", "ReduceMax", "SegmentMax", "Argmax", "Abs", "ReLU"]))
    body: dict[str, Any] = {"kind": kind, "inputs": draw(st.lists(_tensor(), min_size=1, max_size=3))}
    if kind == "ReduceMax" and draw(st.booleans()):
        body["attrs"] = {
            "axes": draw(st.lists(st.integers(-3, 3), max_size=2)),
            "keep_dims": draw(st.booleans()),
        }
    if draw(st.integers(0, 4)) == 0:
        body["outputs"] = [draw(_tensor())]
    return body


_EXAMPLES = [example for spec in REGISTRY.values() for example in spec.examples]
_BODIES = st.one_of(_descriptor(), st.sampled_from(_EXAMPLES))


# --- mutations of their text ------------------------------------------------------------------------

_INSERTS = [b"[", b"]", b",", b'"', b"\xff\xfe", b"\xc3", b"1e999", b"NaN", b"{", b"}", b" ", b"-", b"\\"]


@st.composite
def _mutated(draw: Any) -> bytes:
    text = json.dumps(draw(_BODIES)).encode()
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["insert", "delete", "string"]))
        if how == "insert":
            text = text[:at] + draw(st.sampled_from(_INSERTS)) + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + 1 :]
        else:  # the inside of the next string: bytes that are not UTF-8
            quote = text.find(b'"', at)
            if quote >= 0:
                text = text[: quote + 1] + b"\xff\xfe" + text[quote + 1 :]
    return text


_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_BODIES)
def test_generated_descriptors_answer_the_same_on_every_path(body) -> None:
    _same_everywhere(json.dumps(body).encode())


@_SETTINGS
@given(_mutated())
@example(b'{"kind": "\xff\xfe"}')
@example(b'{"kind": "Max", "inputs": [{"dtype": "f32\xff", "shape": [2]}]}')
@example(b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2], "data": [1, "\xff"]}]}')
@example(b'{"kind": "ReduceMax", "attrs": {"\xc3": 1}, "inputs": [{"dtype": "f32", "shape": [2]}]}')
def test_mutated_bodies_answer_the_same_on_every_path(body) -> None:
    _same_everywhere(body)
