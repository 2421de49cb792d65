"""opspec, as users import it: `from opspec import validate, evaluate, check_graph, verify`.

The distribution is opspec and the code lives in the package `app` (the layout the design card asks
for); `import app` is shadowed by any app.py in the working directory, so this name is the one to
write. The names load on first use, as they do from `app`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

_HOME = Path(__file__).resolve().parent.parent / "app"  # installed beside this package


def _load_app() -> Any:
    """The package `app` beside this one, whatever `app` the working directory holds: every module of
    opspec imports `app.<module>`, so it is put in sys.modules before anything looks for it."""
    loaded = sys.modules.get("app")
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve().parent != _HOME:
            raise ImportError(
                f"another module named 'app' ({getattr(loaded, '__file__', loaded)}) was imported before "
                "opspec; import opspec first"
            )
        return loaded
    spec = importlib.util.spec_from_file_location(
        "app", _HOME / "__init__.py", submodule_search_locations=[str(_HOME)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["app"] = module
    spec.loader.exec_module(module)
    return module


_app = _load_app()

__all__ = list(_app.__all__)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'opspec' has no attribute {name!r}")
    value = getattr(_app, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
