"""The direction of use (docs/design.md, "Where things live, and what may use what"): every import in
app/, at the top of a module or inside a function, goes from a room to one its row lists, every room
listed is used, and each room uses only rooms above it, so every arrow points down."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
ROW = re.compile(r"^\| `app/(\w+)(?:/|\.py)` \| .* \| ([^|]*) \|$")


def table() -> dict[str, set[str]]:
    """Each room of the design's table, in its order, with the rooms its last column lets it use."""
    rows = {}
    for line in (ROOT / "docs" / "design.md").read_text(encoding="utf-8").splitlines():
        found = ROW.match(line)
        if found:
            rows[found[1]] = set(re.findall(r"`(\w+)`", found[2]))
    return rows


def room(module: str) -> str | None:
    """The room of a module `app.<room>...`; None outside app (and for the package itself)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "app" and len(parts) > 1 else None


def imports() -> dict[str, set[str]]:
    """The rooms each room's modules import, itself aside. app/__init__.py, the package's door (it loads
    app.library's names on first use), is no room."""
    used: dict[str, set[str]] = {}
    for path in sorted(APP.rglob("*.py")):
        relative = path.relative_to(APP)
        if relative == Path("__init__.py"):
            continue
        home = relative.parts[0].removesuffix(".py")
        targets = used.setdefault(home, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from app import reference` imports the room reference
                modules = [f"app.{a.name}" for a in node.names] if node.module == "app" else [node.module]
            else:
                continue
            targets |= {r for r in map(room, modules) if r is not None and r != home}
    return used


def test_each_room_uses_what_its_row_says() -> None:
    rows, used = table(), imports()
    assert set(used) == set(rows), "a room of app/ without a row in docs/design.md, or a row without a room"
    for name, targets in used.items():
        assert targets == rows[name], (
            f"{name}: imports {sorted(targets)}, the table says {sorted(rows[name])}"
        )


def test_every_arrow_points_down() -> None:
    order = list(table())
    for name, targets in table().items():
        below = [t for t in targets if order.index(t) >= order.index(name)]
        assert not below, f"{name} uses {below}, not above it in the table"
