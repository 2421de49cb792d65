"""A hostile client: every request here once gave a 500, an answer far larger than its request, memory
without bound, a blocked event loop or a connection held for ever. Each case asserts the status, the
answer's size and, where memory was the fault, a bound on the peak measured with tracemalloc."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Request, Response
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.api.routes import check
from app.core.config import Settings
from app.ops import REGISTRY
from tests.conftest import free_port

JSON = {"content-type": "application/json"}
OPSPEC = Path(sys.executable).with_name("opspec")


def post(client, route: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(route, content=content, headers=headers or JSON)


def peak(call: Callable[[], Any]) -> tuple[Any, int]:
    """The call's result and the most memory Python held during it (every thread: the app's too)."""
    tracemalloc.start()
    try:
        result = call()
        _, most = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, most


def errors(answer: dict) -> list[tuple[str, str]]:
    return [(d["rule"], d["path"]) for d in answer["diagnostics"] if d["severity"] == "error"]


# --- numbers no implementation holds ---------------------------------------------------------------


def test_a_dim_product_of_thousands_of_digits_is_a_short_422(client) -> None:
    """Python refuses to print an int of more than 4,300 digits: three messages printed the product."""
    big = int("9" * 2200)
    body = f'{{"kind": "Max", "inputs": [{{"dtype": "f32", "shape": [{big}, {big}]}}]}}'.encode()
    for route in ("/v1/validate", "/v1/evaluate", "/v1/validate/batch"):
        payload = body if route != "/v1/validate/batch" else b'{"ops": [' + body + b"]}"
        answer = post(client, route, payload)
        assert answer.status_code == 422, answer.text
        assert len(answer.content) < 1000
        problem = answer.json()
        assert problem["errors"][0]["path"].endswith("inputs[0].shape")
        assert "an integer of 2,200 digits" in problem["detail"]
        assert "int64" in problem["detail"]


@pytest.mark.parametrize(
    ("field", "tensor"),
    [
        ("inputs[0].shape", {"dtype": "f32", "shape": [2**70]}),
        ("inputs[0].strides[0]", {"dtype": "f32", "shape": [2], "strides": [2**63]}),
    ],
)
def test_a_dim_or_stride_past_int64_names_the_field_and_the_value(client, field, tensor) -> None:
    answer = post(client, "/v1/validate", {"kind": "Max", "inputs": [tensor]})
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == field
    assert str(2**70 if "shape" in field else 2**63) in answer.text
    assert len(answer.content) < 1000


def test_the_largest_int64_dims_are_answered(client) -> None:
    answer = post(
        client, "/v1/validate", {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2**63 - 1, 0]}]}
    )
    assert answer.status_code == 200
    assert answer.json()["outputs"] == [{"dtype": "f32", "shape": [2**63 - 1, 0]}]


@pytest.mark.parametrize(
    ("dtype", "value", "range_text"),
    [
        ("f16", "1e300", "[-65504.0, 65504.0]"),
        ("bf16", "1e39", "[-3.3895313892515355e+38, 3.3895313892515355e+38]"),
        ("f32", "1e39", "[-3.4028234663852886e+38, 3.4028234663852886e+38]"),
        ("f32", "9" * 400, "[-3.4028234663852886e+38, 3.4028234663852886e+38]"),
        ("f64", "1e400", "[-1.7976931348623157e+308, 1.7976931348623157e+308]"),
    ],
)
def test_one_range_rule_for_every_float_dtype(client, dtype, value, range_text) -> None:
    body = f'{{"kind": "Max", "inputs": [{{"dtype": "{dtype}", "shape": [2], "data": [1, {value}]}}]}}'
    verdict = post(client, "/v1/validate", body.encode()).json()
    assert errors(verdict) == [("Max.inputs.data", "inputs[0].data[1]")]
    message = verdict["diagnostics"][0]["message"]
    assert range_text in message and "np." not in message and len(message) < 400


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_literals_are_refused_where_they_stand(client, literal) -> None:
    body = f'{{"kind": "Max", "inputs": [{{"dtype": "f32", "shape": [2, 2], "data": [[1, 2], [3, {literal}]]}}]}}'
    verdict = post(client, "/v1/validate", body.encode()).json()
    assert errors(verdict) == [("Max.inputs.data", "inputs[0].data[1][1]")]
    assert 'write "nan", "inf", "-inf" as strings' in verdict["diagnostics"][0]["message"]
    quant = f'{{"kind": "Argmax", "attrs": {{"axis": 0, "top_k": 1}}, "inputs": [{{"dtype": "sa8", "shape": [2], "quant": {{"scale": {literal}}}}}]}}'
    answer = post(client, "/v1/validate", quant.encode())
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == "inputs[0].quant.scale"


def test_a_scale_beyond_f64_is_refused(client) -> None:
    body = b'{"kind": "Argmax", "attrs": {"axis": 0, "top_k": 1}, "inputs": [{"dtype": "sa8", "shape": [2], "quant": {"scale": 1e400}}]}'
    answer = post(client, "/v1/validate", body)
    assert answer.status_code == 422
    assert "not a finite number" in answer.json()["errors"][0]["message"]


def test_an_integer_past_the_dtype_is_named_shortly(client) -> None:
    big = "9" * 3000
    body = f'{{"kind": "Max", "inputs": [{{"dtype": "s64", "shape": [1], "data": [{big}]}}]}}'.encode()
    answer = post(client, "/v1/validate", body)
    assert answer.status_code == 200
    assert "an integer of 3,000 digits" in answer.json()["diagnostics"][0]["message"]
    assert len(answer.content) < 1000


# --- independent rules, flat data -----------------------------------------------------------------


def test_a_wrong_declared_dtype_is_reported_even_when_the_axes_are_out_of_range(client) -> None:
    body = {
        "kind": "ReduceMax",
        "attrs": {"axes": [3]},
        "inputs": [{"dtype": "f32", "shape": [2, 3, 4]}],
        "outputs": [{"dtype": "f16", "shape": [2, 3]}],
    }
    verdict = post(client, "/v1/validate", body).json()
    assert errors(verdict) == [
        ("ReduceMax.axes.range", "attrs.axes[0]"),
        ("ReduceMax.outputs.dtype", "outputs[0].dtype"),
    ]


@pytest.mark.parametrize("shape", [[2, 3], [2, 1, 3], [1, 6, 1]])
def test_flat_row_major_data_equals_nested_data_at_any_rank(client, shape) -> None:
    flat = [1.5, -0.0, "nan", 4, "-inf", 6]
    nested: Any = flat
    for dim in reversed(shape[1:]):
        nested = [nested[i : i + dim] for i in range(0, len(nested), dim)]
    answers = [
        post(
            client,
            "/v1/evaluate",
            {"kind": "Max", "inputs": [{"dtype": "f32", "shape": shape, "data": data}]},
        )
        for data in (flat, nested)
    ]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()


def test_flat_data_of_the_wrong_count_says_both_forms(client) -> None:
    body = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2, 3], "data": [1, 2, 3, 4, 5]}]}
    verdict = post(client, "/v1/validate", body).json()
    assert "or a flat list of all 6" in verdict["diagnostics"][0]["message"]


# --- bounded answers and memory --------------------------------------------------------------------


def test_repeated_axes_make_one_summary_not_one_diagnostic_each(client, settings) -> None:
    count = 100_000
    body = json.dumps(
        {"kind": "ReduceMax", "attrs": {"axes": [0] * count}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
    )
    answer, most = peak(lambda: post(client, "/v1/validate", body.encode()))
    assert answer.status_code == 200
    diagnostics = answer.json()["diagnostics"]
    assert len(diagnostics) == settings.max_diagnostics + 1
    assert f"{count - 1 - settings.max_diagnostics:,} more like this" in diagnostics[-1]["message"]
    assert len(answer.content) < 64 << 10  # was 217 MB for a million repeats
    assert most < 20 * len(body), f"{most:,} bytes at peak for a {len(body):,}-byte body"


def test_max_with_many_mismatched_inputs_is_a_bounded_answer(client, settings) -> None:
    count = 20_000
    body = json.dumps(
        {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}] + [{"dtype": "f32", "shape": [3]}] * count}
    )
    answer, most = peak(lambda: post(client, "/v1/validate", body.encode()))
    assert answer.status_code == 200
    assert len(answer.json()["diagnostics"]) <= settings.max_diagnostics + 2
    assert len(answer.content) < 64 << 10
    assert most < 40 * len(body), f"{most:,} bytes at peak for a {len(body):,}-byte body"


@pytest.mark.parametrize(
    "where",
    ["dtype", "kind", "attr", "symbol", "data", "fill_mode"],
)
def test_a_huge_string_is_not_echoed(client, where) -> None:
    huge = "x" * (5 << 20)
    tensor: dict[str, Any] = {"dtype": "f32", "shape": [2]}
    body: dict[str, Any] = {"kind": "Max", "inputs": [tensor]}
    if where == "dtype":
        tensor["dtype"] = huge
    elif where == "kind":
        body["kind"] = huge
    elif where == "attr":
        body["attrs"] = {huge: 1}
    elif where == "symbol":
        tensor["shape"] = [huge]
    elif where == "data":
        tensor["data"] = [huge, 1]
    else:
        body = {
            "kind": "SegmentMax",
            "attrs": {"fill_mode": huge},
            "inputs": [tensor, {"dtype": "s32", "shape": [2]}],
        }
    payload = json.dumps(body).encode()
    for route in ("/v1/validate", "/v1/evaluate"):
        answer, most = peak(lambda route=route: post(client, route, payload))
        assert answer.status_code in (200, 422), answer.text[:300]
        assert len(answer.content) < 4096, (where, route, answer.text[:300])
        assert most < 8 * len(payload)


def test_a_million_bad_items_make_one_error(client) -> None:
    body = json.dumps(
        {"kind": "ReduceMax", "attrs": {"axes": ["a"] * 300_000}, "inputs": [{"dtype": "f32", "shape": [2]}]}
    )
    answer, most = peak(lambda: post(client, "/v1/validate", body.encode()))
    assert answer.status_code == 422
    assert [e["path"] for e in answer.json()["errors"]] == ["attrs.axes[0]"]
    assert len(answer.content) < 1000
    assert most < 20 * len(body)


def test_problem_bodies_list_at_most_max_diagnostics_errors(settings) -> None:
    app = create_app(Settings(max_diagnostics=3, access_log=False))
    with TestClient(app) as small:
        # Five errors in one tensor (a list fails fast at its first bad item, so not across tensors).
        body = {"kind": "Max", "inputs": [{"dtype": "x0", "shape": "s", "strides": "t", "a": 1, "b": 2}]}
        problem = post(small, "/v1/validate", body).json()
        assert [(e["path"], e["type"]) for e in problem["errors"]] == [
            ("inputs[0].dtype", "value_error"),
            ("inputs[0].shape", "list_type"),
            ("inputs[0].strides", "list_type"),
            ("body", "too_many_errors"),
        ]
        assert problem["errors"][-1]["message"] == (
            "2 more errors left out: at most 3 are listed (max_diagnostics)"
        )


@pytest.mark.parametrize(
    "body",
    [
        b'{"kind": "\xff\xfe"}',
        b'{"kind": "Max", "inputs": [{"dtype": "f32\xff", "shape": [2]}]}',
        b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": ["N\xc3"]}]}',
    ],
)
def test_a_string_of_bytes_that_are_not_utf8_is_a_422(client, body) -> None:
    """msgspec's first pass raised UnicodeDecodeError (not one of its own errors): a 500 from
    /v1/validate, /v1/evaluate and the batch, where pydantic's parse had always answered 422."""
    for route in ("/v1/validate", "/v1/evaluate", "/v1/validate/batch"):
        payload = body if route != "/v1/validate/batch" else b'{"ops": [' + body + b"]}"
        answer = post(client, route, payload)
        assert answer.status_code == 422, (route, answer.text)
        assert answer.json()["type"] == "/problems/malformed"


# --- the event loop --------------------------------------------------------------------------------


def test_large_bodies_are_checked_in_the_thread_pool(client, monkeypatch, settings) -> None:
    calls: list[str] = []
    real = check.off_loop

    async def spy(request, function, *args):
        calls.append(function.__name__)
        return await real(request, function, *args)

    monkeypatch.setattr(check, "off_loop", spy)
    small = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}
    large = {"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}] * (settings.inline_body_bytes // 20)}
    assert post(client, "/v1/validate", small).status_code == 200
    assert calls == []  # a small body without data stays on the loop: the hop would cost more
    for route, body in (
        ("/v1/validate", large),
        ("/v1/evaluate", large),
        ("/v1/validate/batch", {"ops": [small]}),
    ):
        assert post(client, route, body).status_code in (200, 422)
    assert calls == ["_validate", "_evaluate", "_validate_batch"]


# --- transport: media types, CORS, ids, problems ---------------------------------------------------


@pytest.mark.parametrize("route", ["/v1/validate", "/v1/evaluate", "/v1/validate/batch"])
@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None],
)
def test_a_body_that_is_not_json_is_415(client, route, content_type) -> None:
    headers = {} if content_type is None else {"content-type": content_type}
    answer = client.post(route, content=b'{"kind": "Max", "inputs": []}', headers=headers)
    assert answer.status_code == 415
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["type"] == "/problems/unsupported-media-type"
    assert len(answer.content) < 1000


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/problem+json", "APPLICATION/JSON"],
)
def test_json_and_plus_json_are_read(client, content_type) -> None:
    body = b'{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}'
    assert (
        client.post("/v1/validate", content=body, headers={"content-type": content_type}).status_code == 200
    )


def test_cors_is_off_by_default_and_on_for_the_origins_given(client) -> None:
    origin = {"origin": "https://elsewhere.example", "access-control-request-method": "POST"}
    assert "access-control-allow-origin" not in client.options("/v1/validate", headers=origin).headers
    app = create_app(Settings(cors_origins=["https://elsewhere.example"], access_log=False))
    with TestClient(app) as allowed:
        answer = allowed.options(
            "/v1/validate", headers={**origin, "access-control-request-headers": "content-type"}
        )
        assert answer.headers["access-control-allow-origin"] == "https://elsewhere.example"
        assert "x-request-id" in answer.headers


def test_every_answer_has_a_request_id_and_problems_name_it(client) -> None:
    mine = client.get("/v1/ops/Nope", headers={"x-request-id": "trace-42"})
    assert mine.status_code == 404
    assert mine.headers["x-request-id"] == "trace-42"
    assert mine.json()["instance"] == "trace-42"
    insane = client.get("/healthz", headers={"x-request-id": "no spaces\tor tabs" * 20})
    assert len(insane.headers["x-request-id"]) == 32 and " " not in insane.headers["x-request-id"]
    page = client.get(mine.json()["type"])
    assert page.status_code == 200 and "Not found" in page.text


def test_405_says_what_is_allowed(client) -> None:
    answer = client.get("/v1/validate")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert answer.json()["type"] == "/problems/method-not-allowed"


def test_metrics_count_requests_and_verdicts(client) -> None:
    post(
        client,
        "/v1/validate",
        {"kind": "ReduceMax", "attrs": {"axes": [5]}, "inputs": [{"dtype": "f32", "shape": [2]}]},
    )
    text = client.get("/metrics").text
    assert 'opspec_requests_total{method="POST",route="/v1/validate",status="200"}' in text
    assert 'opspec_diagnostics_total{op="ReduceMax",rule="ReduceMax.axes.range",severity="error"}' in text
    assert client.get("/readyz").json() == {"status": "ready", "ops": len(REGISTRY)}


def test_the_docs_pages_load_nothing_from_elsewhere(client) -> None:
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        assert "http://" not in html and "https://" not in html, page
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/docs-assets/redoc.standalone.js").status_code == 200


# --- the server: slow clients and bad settings -----------------------------------------------------


def test_a_bad_setting_is_one_line_not_a_traceback() -> None:
    env = {**os.environ, "OPSPEC_PORT": "notanumber"}
    done = subprocess.run([str(OPSPEC), "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "opspec serve: OPSPEC_PORT='notanumber' is not valid: Input should be a valid integer, unable to parse "
        "string as an integer"
    ]


@contextlib.contextmanager
def _served(**settings: str) -> Iterator[int]:
    """`opspec serve` on a free port with the given OPSPEC_* settings, once it answers: its port."""
    port = free_port()
    env = {**os.environ, "OPSPEC_PORT": str(port), **{f"OPSPEC_{k.upper()}": v for k, v in settings.items()}}
    server = subprocess.Popen(
        [str(OPSPEC), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz")
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_slow_headers_and_a_trickled_body_are_cut_off() -> None:
    with _served(header_timeout="1", body_timeout="1") as port:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            slow.sendall(b"POST /v1/validate HTTP/1.1\r\nHost: x\r\n")  # and never the rest
            assert slow.recv(100) == b""  # closed by the server, well before the 10 s read timeout
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            slow.sendall(
                b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{"
            )
            answer = b""
            while chunk := slow.recv(4096):  # until the server closes: the rest of the body is unread
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 408 ")
            assert b"/problems/request-timeout" in answer


def test_the_header_timer_spares_a_busy_connection_and_closes_an_idle_one() -> None:
    """One timer per connection, moved by each answer: requests every 0.4 s for twice the header
    timeout are all answered on one connection; then, idle, it is closed after the timeout."""
    with (
        _served(header_timeout="1", access_log="false") as port,
        socket.create_connection(("127.0.0.1", port), timeout=10) as kept,
    ):
        for _ in range(6):
            kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while not answer.endswith(b'{"status":"ok"}'):  # headers and body may come apart
                chunk = kept.recv(4096)
                assert chunk, answer
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ")
            time.sleep(0.4)
        started = time.monotonic()
        assert kept.recv(100) == b""  # closed, idle
        assert time.monotonic() - started < 5  # by the header timer, not keep-alive's 5 s


def test_a_route_declares_the_media_types_it_reads() -> None:
    """The 415 rule is each route's own declaration: the content types of its requestBody (a route
    reading XML or multipart lists them in openapi_extra), else JSON."""
    app = create_app(Settings(access_log=False))
    content = {"application/xml": {"schema": {"type": "string"}}, "multipart/form-data": {"schema": {}}}

    @app.post("/v1/xml-reader", openapi_extra={"requestBody": {"content": content}})
    async def reader(request: Request) -> Response:
        return Response(str(len(await request.body())))

    with TestClient(app) as own:
        assert (
            own.post("/v1/xml-reader", content=b"<a/>", headers={"content-type": "application/xml"}).text
            == "4"
        )
        multipart = {"content-type": "multipart/form-data; boundary=x"}
        assert own.post("/v1/xml-reader", content=b"--x--", headers=multipart).status_code == 200
        refused = own.post("/v1/xml-reader", content=b"{}", headers=JSON)
        assert refused.status_code == 415
        assert refused.headers["accept-post"] == "application/xml, multipart/form-data"
