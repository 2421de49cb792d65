"""docs/graph-rules.md's tables are the graph rules and the oneDNN mutation record: scripts/graph_rules.py
writes them, and this test fails, saying to run it, when a rule or the record changes without it."""

from __future__ import annotations

from app.formats.graph import RULES
from tests.scripts import script

GRAPH_RULES = script("graph_rules")


def test_the_page_is_the_rules_and_the_record() -> None:
    assert GRAPH_RULES.main(["--check"]) == 0, (
        "docs/graph-rules.md differs from the rules or the record; run .venv/bin/python scripts/graph_rules.py"
    )


def test_every_rule_has_a_row_and_every_kind_of_change_one() -> None:
    rows = GRAPH_RULES.rules_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == list(RULES)
    table = GRAPH_RULES.mutations_table()
    assert "| `edge.shape` |" in table and "| `op.duplicate_id` |" in table


def test_a_stale_page_is_caught(tmp_path, monkeypatch) -> None:
    page = tmp_path / "graph-rules.md"
    page.write_text(
        "<!-- graph-rules -->\n| old |\n<!-- /graph-rules -->\n<!-- mutations -->\n<!-- /mutations -->\n"
    )
    monkeypatch.setattr(GRAPH_RULES, "DOC", page)
    assert GRAPH_RULES.main(["--check"]) == 1
    assert GRAPH_RULES.main([]) == 0 and GRAPH_RULES.main(["--check"]) == 0
