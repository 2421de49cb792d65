"""Writes the README's op families from the registry: a line per family naming its ops, between the
markers `<!-- op-table -->` and `<!-- /op-table -->` (each op's page is generated in the docs site).

    .venv/bin/python scripts/op_table.py           # rewrite README.md
    .venv/bin/python scripts/op_table.py --check   # exit 1 when README.md is out of date

tests/test_op_table.py runs the check, so the README cannot fall behind the registry.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START, END = "<!-- op-table -->", "<!-- /op-table -->"
SEED = "seed ops"  # the four ops opspec started with, each a module of its own


def table() -> str:
    """A line per family, in order of first appearance in the registry, its ops in registry order."""
    sys.path.insert(0, str(ROOT))
    from app.ops import REGISTRY

    groups: dict[str, list] = {}
    for spec in REGISTRY.values():
        groups.setdefault(spec.family or SEED, []).append(spec)
    return "\n".join(
        f"- **{family}** ({len(specs)}): " + ", ".join(f"`{spec.kind}`" for spec in specs)
        for family, specs in groups.items()
    )


def with_table(text: str) -> str:
    """The README's text with the lines between the markers replaced by the registry's."""
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise SystemExit(f"README.md has no {START} ... {END} markers")
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    text = README.read_text()
    wanted = with_table(text)
    if "--check" in argv:
        if wanted != text:
            print(
                "README.md's op families differ from the registry; run .venv/bin/python scripts/op_table.py"
            )
            return 1
        return 0
    README.write_text(wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
