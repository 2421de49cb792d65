"""Kernels against oneDNN's recorded answers (tests/ops/oracle/<family>/cases.json, see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.core.engine import check, evaluate
from app.core.mismatch import Tolerance
from app.ops import REGISTRY

ORACLE = Path(__file__).resolve().parent / "oracle"


def cases(family: str) -> list[dict]:
    return json.loads((ORACLE / family / "cases.json").read_text())["cases"]


def floats(data) -> np.ndarray:
    flat = np.ravel(np.array(data, dtype=object)).tolist() if isinstance(data, list) else [data]
    return np.array([float(v) for v in flat], dtype=np.float32)


def agree(ours: np.ndarray, theirs: np.ndarray, tolerance: Tolerance | None) -> np.ndarray:
    """Per element: the same bits (NaN equal to NaN) or, with a tolerance, within it."""
    same = (ours.view(np.uint32) == theirs.view(np.uint32)) | (np.isnan(ours) & np.isnan(theirs))
    if tolerance is not None:
        with np.errstate(all="ignore"):
            gap = np.abs(ours.astype(np.float64) - theirs)
            bound = np.maximum(
                tolerance.ulps * np.spacing(np.abs(theirs)).astype(np.float64), tolerance.absolute
            )
        same |= (gap <= bound) & np.isfinite(ours) & np.isfinite(theirs)
    return same


def check_case(case: dict) -> None:
    """oneDNN's outputs equal ours (bit for bit, or within the op's tolerance) except exactly where the
    fixture records a departure; a case oneDNN refused is one opspec warns or errs about."""
    spec = REGISTRY[case["descriptor"]["kind"]]
    descriptor = spec.descriptor.model_validate(case["descriptor"])
    onednn = case["onednn"]
    if "outputs" not in onednn:
        verdict, _ = check(spec, descriptor, Settings())
        assert verdict.diagnostics, f"oneDNN refused ({onednn}); opspec says nothing"
        return
    result = evaluate(spec, descriptor, Settings())
    departs = onednn.get("departs_at", [[] for _ in onednn["outputs"]])
    for ours, theirs, where in zip(result.outputs, onednn["outputs"], departs, strict=True):
        assert ours["shape"] == theirs["shape"]
        fine = agree(floats(ours["data"]), floats(theirs["data"]), spec.tolerance)
        assert np.flatnonzero(~fine).tolist() == where
