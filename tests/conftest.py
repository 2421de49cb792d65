"""The app fixture, an exact comparator for payloads (-0.0 is not 0.0; NaN equals NaN), and a free port
for the tests that start a server."""

from __future__ import annotations

import math
import os
import socket
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import settings as hypothesis_settings

from app.api.main import create_app
from app.api.middleware import ACCESS_LOG
from app.core.config import Settings

# CI decides whether a submission lands, so there hypothesis replays the same examples every run (a
# gate that passes or fails by luck tells nobody anything); locally each run explores new ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _access_log_written_within_its_test() -> None:
    """The access log writes its lines in batches, up to 50 ms late: here, as each test ends, so they land
    in that test's captured output, not between the next tests' dots in a CI log or after pytest's
    closing line (which CI reads)."""
    yield
    ACCESS_LOG.flush()


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings()


@pytest.fixture(scope="session")
def client(settings: Settings) -> TestClient:
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def same_values(got: Any, want: Any) -> bool:
    """Wire payloads equal bit for bit: lists by element, floats by value and sign, NaN strings by name."""
    if isinstance(want, list) or isinstance(got, list):
        return (
            isinstance(got, list)
            and isinstance(want, list)
            and len(got) == len(want)
            and all(map(same_values, got, want))
        )
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, float) or isinstance(got, float):
        return float(got) == float(want) and math.copysign(1, got) == math.copysign(1, want)
    return got == want


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
