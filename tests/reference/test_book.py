"""The rule book: every rule id a finding can carry, once, its op first, and each with its page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app import reference
from app.formats.graph import RULES as GRAPH_RULES
from app.ops import REGISTRY, RENAMED
from app.report.links import NON_OP, rule_page, rule_url

ROOT = Path(__file__).resolve().parents[2]


def test_rule_ids_are_unique_across_the_registry_and_the_graph_and_file_rules() -> None:
    ids = [r.id for spec in REGISTRY.values() for r in spec.all_rules]
    ids += list(GRAPH_RULES)
    ids += [e.id for e in reference.book().values() if e.group in ("file", "verify")]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert set(ids) == set(reference.book())


def test_every_op_rule_id_names_its_op_first_and_no_other_rule_starts_like_an_op() -> None:
    for entry in reference.book().values():
        head = entry.id.split(".", 1)[0]
        if entry.op is not None:
            assert head == entry.op and "." in entry.id, entry.id
        else:
            assert head in NON_OP, entry.id
    assert not set(NON_OP) & set(REGISTRY)


def test_every_rule_a_reader_defines_is_in_the_book() -> None:
    """The readers' own rules are module constants (RuleInfo("opspec.json", ...)): each is listed."""
    defined = set()
    for path in (ROOT / "app" / "formats").glob("*.py"):
        defined |= set(re.findall(r'RuleInfo\(\s*"([a-z.]+)"', path.read_text()))
    assert defined and defined <= set(reference.book())


def test_a_former_id_leads_to_the_rule_it_became() -> None:
    assert RENAMED["C1"] == "Max.C1" and RENAMED["RZ"] == "Max.RZ" and len(RENAMED) == 20
    entry, former = reference.lookup("RI")
    assert (entry.id, former, entry.former) == ("Max.RI", "RI", "RI")
    assert reference.lookup("Max.RI") == (entry, None)
    assert reference.lookup("ReduceMax.axes.rnage") == (None, None)
    assert reference.closest("ReduceMax.axes.rnage")[0] == "ReduceMax.axes.range"
    assert reference.closest("max.c1") == ["Max.C1"]


@pytest.mark.parametrize(
    ("rule", "page"),
    [
        ("ReduceMax.axes.range", "reference/ops/ReduceMax.md"),
        ("Max.C1", "reference/ops/Max.md"),
        ("Argmax.mismatch.tie_order", "reference/ops/Argmax.md"),
        ("graph.edge", "reference/files-and-graphs.md"),
        ("opspec.json", "reference/files-and-graphs.md"),
        ("onnx.shape_inference", "reference/files-and-graphs.md"),
    ],
)
def test_a_rule_s_page_and_url(rule: str, page: str) -> None:
    assert rule_page(rule) == page
    assert rule_url("https://x.example/docs/", rule) == f"https://x.example/docs/{page[:-3]}.html#{rule}"
    assert rule_url("https://x.example/docs", rule) == rule_url("https://x.example/docs/", rule)


def test_the_docs_url_default_is_the_projects_documentation_url() -> None:
    import tomllib

    from app.core.config import Settings

    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert Settings().docs_url == urls["Documentation"]
    assert urls["Documentation"].startswith("https://opspec.github.io/")  # the project's own pages


def test_describe_gives_the_rule_its_example_and_fix() -> None:
    rule = reference.describe(reference.book()["Max.RJ"], "https://d.example/")
    assert rule["url"] == "https://d.example/reference/ops/Max.html#Max.RJ"
    assert (rule["op"], rule["severity"], rule["former_id"]) == ("Max", "error", "RJ")
    example = rule["example"]
    assert [f["rule"] for f in example["findings"]] == ["Max.RJ"]
    assert example["fix"] == "set inputs[1].shape[0] to 1"
    assert example["fixed"]["inputs"][1]["shape"] == [1]
