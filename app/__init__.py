"""opspec: `from app import validate, evaluate, check_graph` checks and runs descriptors, and checks graph
files, in-process (app/library.py).

The names load on first use, so `import app.core...` does not pull in the ops and pydantic models."""

from __future__ import annotations

from typing import Any

__all__ = [
    "GraphMalformed",
    "Invalid",
    "LimitExceeded",
    "Malformed",
    "NotEvaluable",
    "check_graph",
    "evaluate",
    "validate",
    "verify",
]

_HOMES = {
    "validate": "app.library",
    "evaluate": "app.library",
    "verify": "app.library",
    "check_graph": "app.library",
    "Malformed": "app.library",
    "Invalid": "app.core.engine",
    "NotEvaluable": "app.core.engine",
    "LimitExceeded": "app.core.payload",
    "GraphMalformed": "app.formats.errors",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'app' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES[name]), "Malformed" if name == "GraphMalformed" else name)
    globals()[name] = value
    return value
