"""`opspec serve` for real: the console script binds a port and answers over TCP, as `make serve` runs it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import httpx

from tests.conftest import free_port
from tests.inflight import VERDICT_OUTPUTS, validate_across_shutdown

OPSPEC = Path(sys.executable).with_name("opspec")


def test_serve_answers_over_tcp() -> None:
    port = free_port()
    env = {**os.environ, "OPSPEC_PORT": str(port)}  # the port from settings, as make serve's PORT does
    server = subprocess.Popen(
        [str(OPSPEC), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
                break
            except httpx.TransportError:
                assert server.poll() is None, "opspec serve exited before it answered"
                assert time.monotonic() < deadline, "opspec serve did not answer within 30 s"
                time.sleep(0.1)
        body = {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": ["N", 1]}, {"dtype": "f32", "shape": [3]}],
        }
        verdict = httpx.post(f"{base}/v1/validate", json=body).json()
        assert verdict["valid"] is True
        assert verdict["outputs"] == [{"dtype": "f32", "shape": ["N", 3]}]
        assert httpx.get(f"{base}/docs").status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_sigterm_lets_an_in_flight_request_finish_with_workers() -> None:
    port = free_port()
    server = subprocess.Popen(
        [str(OPSPEC), "serve", "--port", str(port), "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = ServerLog(server.stderr)
    try:
        log.wait_for("Application startup complete.", count=2)

        def stop() -> None:
            server.send_signal(signal.SIGTERM)
            log.wait_for("Shutting down", count=2)  # both workers have begun their shutdown

        status, verdict = validate_across_shutdown(port, stop)
        assert status == 200
        assert verdict["valid"] is True
        assert verdict["outputs"] == VERDICT_OUTPUTS
        assert server.wait(timeout=30) == 0
        assert log.count("Finished server process") == 2
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()


class ServerLog:
    """The server's log lines as they arrive, read on a thread so the test can wait for one."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._stream = stream
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def close(self) -> None:
        """After the server has exited: the rest of its log read, the pipe closed."""
        self._reader.join(timeout=10)
        self._stream.close()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()

    def count(self, text: str) -> int:
        with self._changed:
            return sum(text in line for line in self.lines)

    def wait_for(self, text: str, *, count: int = 1, timeout: float = 30) -> None:
        with self._changed:
            found = self._changed.wait_for(lambda: self.count(text) >= count, timeout=timeout)
        assert found, f"the server did not log {text!r} {count} time(s) within {timeout} s: {self.lines}"


def test_each_served_process_sets_the_switch_interval(monkeypatch) -> None:
    # uvicorn calls served_app in every worker process (factory=True): a fresh interpreter each, so the
    # interval must be set there, not once in the process that parses the command line.
    from app.api import server
    from app.api.main import app
    from app.core.config import get_settings

    monkeypatch.setenv("OPSPEC_SWITCH_INTERVAL", "0.002")
    get_settings.cache_clear()
    before = sys.getswitchinterval()
    try:
        assert server.served_app() is app
        assert sys.getswitchinterval() == 0.002
    finally:
        sys.setswitchinterval(before)
        get_settings.cache_clear()


def _stopped_status(command: list[str], cwd: Path | None = None) -> int:
    """Start a server, wait until it answers, send SIGTERM to its process group, return its status."""
    port = free_port()
    env = {**os.environ, "OPSPEC_PORT": str(port), "OPSPEC_ACCESS_LOG": "false"}
    server = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        os.killpg(server.pid, signal.SIGTERM)
        return server.wait(timeout=60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_sigterm_stops_one_worker_with_status_0_and_make_serve_as_the_docs_say() -> None:
    """uvicorn raised the signal again after its graceful shutdown, so `opspec serve` died of it (143)
    where the docs said 0; `make serve` reports the signal it was sent whatever its recipe does."""
    root = Path(__file__).resolve().parents[1]
    assert _stopped_status([str(OPSPEC), "serve"]) == 0
    assert _stopped_status(["make", "-s", "-o", ".venv/.installed", "serve"], cwd=root) == -signal.SIGTERM
    readme = " ".join((root / "docs" / "getting-started.md").read_text().split())
    assert "it finishes the requests in flight and `opspec serve` exits 0" in readme
    assert "`make serve` itself then exits 130 or 143" in readme


def test_the_access_log_comes_soon_after_each_answer_and_all_of_it_at_exit() -> None:
    """Lines are written in batches (app/api/middleware.py AccessLog): one shows up while the server
    idles, and the line of an answer given just before SIGTERM is written on the way out."""
    port = free_port()
    server = subprocess.Popen(
        [str(OPSPEC), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = ServerLog(server.stderr)
    try:
        log.wait_for("Application startup complete.")
        base = f"http://127.0.0.1:{port}"
        httpx.get(f"{base}/healthz", headers={"x-request-id": "first-line"})
        log.wait_for('"request_id": "first-line"', timeout=5)
        httpx.get(f"{base}/healthz", headers={"x-request-id": "last-line"})
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        log.close()
        assert log.count('"request_id": "last-line", "method": "GET", "route": "/healthz"') == 1
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
