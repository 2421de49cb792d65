"""The oneDNN oracle's recorded runs (tests/ops/oracle/<family>/*.json): a descriptor carrying the
library's seeded inputs, and the library's outputs, both base64 little-endian f32. Made with
shared/tools/onednn-oracle (oracle.py --execute --dump-dir) on oneDNN 3.13.2, once: its venv is not
in CI."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.core.engine import run
from app.ops import REGISTRY

ORACLE = Path(__file__).parent / "oracle"


def fixtures(family: str) -> list[Path]:
    return sorted((ORACLE / family).glob("*.json"))


def _array(t: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(t["data"]["bytes"]), "<f4").reshape(t["shape"])


def assert_within_tolerance(path: Path) -> None:
    """The kernel on the oracle's inputs: each output's shape and dtype, and every value within the
    op's stated tolerance of oneDNN's (ulps of the value, or the absolute bound near 0)."""
    doc = json.loads(path.read_text())
    spec = REGISTRY[doc["descriptor"]["kind"]]
    _, outputs = run(spec, spec.descriptor.model_validate(doc["descriptor"]), Settings())
    tol = spec.tolerance
    for got, want in zip(outputs, doc["oracle_outputs"], strict=True):
        w = _array(want)
        assert got.shape == w.shape and got.dtype == np.float32
        ulps = np.abs(got.astype(np.float64) - w) / np.spacing(np.abs(w)).astype(np.float64)
        assert np.all((ulps <= tol.ulps) | (np.abs(got - w) <= tol.absolute)), (ulps.max(), path.stem)
