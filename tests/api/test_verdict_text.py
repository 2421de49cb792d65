"""verdict_text, the hand-written verdict JSON of the validate routes, against what it shortcuts:
pydantic_core.to_json of the verdict's plain data (verdict_answer), character for character, for
drawn verdicts (any dims, symbols with quotes, backslashes, control and non-ASCII characters, unknown
dtypes and ranks) and for the verdict of every spec case."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic_core
from hypothesis import given
from hypothesis import strategies as st

from app.api.routes import check
from app.core import engine
from app.core.config import Settings
from app.core.diagnostics import Diagnostic
from app.core.dtypes import DTYPES
from app.core.registry import OutputType

SPECS = Path(__file__).resolve().parents[2] / "specs"

_TEXT = st.one_of(
    st.sampled_from(["N", "W", "batch_1", 'q"uote', "back\\slash", "t\tab", "é", "\u2028"]),
    st.text(max_size=6),
)
_DIM = st.one_of(st.integers(0, 2**63 - 1), st.just(None), _TEXT, st.integers(-5, -1), st.booleans())
_OUTPUT = st.builds(
    OutputType,
    st.one_of(st.sampled_from(list(DTYPES)), st.none(), _TEXT),
    st.one_of(st.none(), st.lists(_DIM, max_size=5).map(tuple)),
)
_DIAGNOSTIC = st.builds(
    Diagnostic,
    severity=st.sampled_from(["error", "warning"]),
    rule=_TEXT,
    path=_TEXT,
    message=_TEXT,
    spec=_TEXT,
)
_VERDICT = st.builds(
    engine.Verdict,
    kind=st.one_of(st.sampled_from(["ReduceMax", "Max", "MatMul"]), _TEXT),
    valid=st.booleans(),
    outputs=st.one_of(st.none(), st.lists(_OUTPUT, max_size=3)),
    diagnostics=st.one_of(st.just([]), st.lists(_DIAGNOSTIC, max_size=2)),
)


def _reference(verdict: engine.Verdict) -> str:
    return pydantic_core.to_json(check.verdict_answer(verdict)).decode()


@given(_VERDICT)
def test_drawn_verdicts_are_written_as_to_json_writes_them(verdict) -> None:
    assert check.verdict_text(verdict) == _reference(verdict)


def test_every_spec_case_verdict_is_written_as_to_json_writes_it() -> None:
    settings = Settings()
    count = 0
    for path in sorted(SPECS.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            try:
                descriptor = check.parse_descriptor(json.dumps(case["descriptor"]).encode())
            except Exception:  # a case about a refused request: no verdict to write
                continue
            verdict = check.verdict(descriptor, settings)
            assert check.verdict_text(verdict) == _reference(verdict), case["name"]
            count += 1
    assert count > 400


def test_the_learned_plain_strings_are_bounded(monkeypatch) -> None:
    monkeypatch.setattr(check, "_PLAIN", set())
    monkeypatch.setattr(check, "_PLAIN_LIMIT", 3)
    for index in range(10):
        verdict = engine.Verdict("K", True, [OutputType("f32", (f"S{index}",))], [])
        assert check.verdict_text(verdict) == _reference(verdict)
    assert len(check._PLAIN) == 3
