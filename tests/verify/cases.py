"""Verify cases as data: a descriptor with input data, plus a given answer, and the call that verifies it."""

from __future__ import annotations

import copy
from typing import Any

from app.core.config import Settings
from app.core.verify import Verification, verify
from app.ops import BY_NAME, DESCRIPTOR


def run(document: dict[str, Any], settings: Settings | None = None) -> Verification:
    descriptor = DESCRIPTOR.validate_python(document)
    return verify(BY_NAME[descriptor.kind], descriptor, settings or Settings())


def with_answer(descriptor: dict[str, Any], dtype: str, shape: list[int], *outputs: Any) -> dict[str, Any]:
    out = copy.deepcopy(descriptor)
    out["outputs"] = [{"dtype": dtype, "shape": shape, "data": data} for data in outputs]
    return out


def like_names(result: Verification, index: int = 0) -> list[str]:
    return [like["implementation"] for like in result.outputs[index]["like"]]
