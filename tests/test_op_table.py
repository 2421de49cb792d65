"""The README's op families are the registry's: scripts/op_table.py writes them, and this test fails,
saying to run the script, when an op is added or renamed without it."""

from __future__ import annotations

import pytest

from app.ops import REGISTRY
from tests.scripts import script

OP_TABLE = script("op_table")


def test_the_readme_table_is_the_registry() -> None:
    text = OP_TABLE.README.read_text()
    assert OP_TABLE.with_table(text) == text, (
        "README.md's op families differ from the registry; run .venv/bin/python scripts/op_table.py"
    )
    assert OP_TABLE.main(["--check"]) == 0


def test_every_op_is_named_once_in_its_family_s_line() -> None:
    lines = OP_TABLE.table().splitlines()
    families = list(dict.fromkeys(spec.family or OP_TABLE.SEED for spec in REGISTRY.values()))
    assert [line.split("**")[1] for line in lines] == families
    kinds = [kind for line in lines for kind in line.split(": ", 1)[1].strip("`").split("`, `")]
    grouped = [
        kind
        for family in families
        for kind, spec in REGISTRY.items()
        if (spec.family or OP_TABLE.SEED) == family
    ]
    assert kinds == grouped  # each family's ops together, in registry order, families as they first come
    assert len(kinds) == len(REGISTRY)


def test_a_stale_table_is_replaced_and_missing_markers_are_named(capsys) -> None:
    stale = f"intro\n{OP_TABLE.START}\n| old |\n{OP_TABLE.END}\nrest\n"
    assert (
        OP_TABLE.with_table(stale) == f"intro\n{OP_TABLE.START}\n{OP_TABLE.table()}\n{OP_TABLE.END}\nrest\n"
    )
    with pytest.raises(SystemExit, match="markers"):
        OP_TABLE.with_table("no markers here")


def test_check_fails_on_a_stale_readme_and_says_what_to_run(tmp_path, monkeypatch, capsys) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"{OP_TABLE.START}\n| old |\n{OP_TABLE.END}\n")
    monkeypatch.setattr(OP_TABLE, "README", readme)
    assert OP_TABLE.main(["--check"]) == 1
    assert "run .venv/bin/python scripts/op_table.py" in capsys.readouterr().out
    assert OP_TABLE.main([]) == 0 and OP_TABLE.main(["--check"]) == 0
