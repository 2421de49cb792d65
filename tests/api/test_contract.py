"""The OpenAPI document is the contract: schemathesis sends what it allows and what it forbids, and
every check it has is on (no 5xx, documented statuses, content types and headers, answers matching
their schemas, schema-valid bodies accepted and schema-violating ones refused, 405 with Allow).

Bounded: OPSPEC_CONTRACT_EXAMPLES examples per operation (default 25); under CI the same ones every
run (derandomized), so the gate cannot pass or fail by luck."""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from app.core.config import Settings
from app.main import create_app

# A schema-valid descriptor may still break its op's rules or a size limit: evaluate answers those
# with the documented 422 or 413, not 2xx; validate answers rule breaches with 200 and limits with 413.
CONFIG = schemathesis.Config.from_str(
    """
[[operations]]
include-path = "/v1/evaluate"
checks.positive_data_acceptance.expected-statuses = ["200", "413", "422"]

[[operations]]
include-path-regex = "^/v1/validate"
checks.positive_data_acceptance.expected-statuses = ["200", "413"]
"""
)
schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(Settings(access_log=False)), config=CONFIG
)
schema.config.generation.update(modes=list(schemathesis.GenerationMode))

EXAMPLES = int(os.environ.get("OPSPEC_CONTRACT_EXAMPLES", "25"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=list(HealthCheck),
)
def test_the_api_keeps_its_contract(case) -> None:
    case.call_and_validate()
