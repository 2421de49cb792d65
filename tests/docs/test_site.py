"""The docs site builds with --strict (a broken link or anchor fails `make test`), needs nothing from the
network, and has a page for every op and every rule id: SARIF's helpUri, `opspec rule` and
GET /v1/rules point at files of the built site. The README stays a README (at most 15 KB) and every
relative link in it and in docs/ resolves."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from app import reference
from app.core.config import Settings
from app.ops import REGISTRY
from app.reference.pages import pages
from app.report.links import rule_url

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_at_most_15_kb() -> None:
    assert len((ROOT / "README.md").read_bytes()) <= 15 * 1024


def _hand_written() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("page", _hand_written(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """On GitHub as in the built site: a link to a file of the repository, or to a page the reference
    generates (anchors are the strict build's to check: `validation.links.anchors` is a warning)."""
    generated = {DOCS / path for path in pages()}
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.partition("#")[0]
        resolved = (page.parent / unquote(path)).resolve()
        assert resolved.exists() or resolved in generated, f"{page.name}: {target}"
        assert "shared" not in resolved.parts, f"{page.name}: {target} leaves the repository"


class _Assets(HTMLParser):
    """What a page loads (scripts, styles, images, frames), not what it links to."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(found["id"])
        if tag in ("script", "img", "iframe", "source", "audio", "video") and found.get("src"):
            self.loads.append(found["src"])
        if tag == "link" and found.get("href") and found.get("rel") != "canonical":
            self.loads.append(found["href"])


def _parsed(path: Path) -> _Assets:
    parser = _Assets()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_nothing_in_the_site_loads_from_the_network(site: Path) -> None:
    """No web fonts, no CDN: the site (and its search) works on a machine with no network."""
    remote = []
    for page in site.rglob("*.html"):
        remote += [f"{page.name}: {url}" for url in _parsed(page).loads if urlsplit(url).scheme]
    for sheet in site.rglob("*.css"):
        text = sheet.read_text(encoding="utf-8")
        remote += [f"{sheet.name}: {url}" for url in re.findall(r"url\(['\"]?(https?://[^)'\"]+)", text)]
        remote += [f"{sheet.name}: {url}" for url in re.findall(r"@import\s+['\"]?(https?://\S+)", text)]
    assert remote == []
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert {"reference/ops/ReduceMax.html", "reference/rules.html", "cli.html"} <= locations


def test_every_rule_s_help_uri_is_a_page_and_anchor_of_the_site(site: Path) -> None:
    base = Settings().docs_url
    ids: dict[Path, set[str]] = {}
    for entry in reference.book().values():
        url = rule_url(base, entry.id)
        assert url.startswith(base)
        path, _, anchor = url[len(base) :].partition("#")
        file = site / path
        assert file.is_file(), url
        if file not in ids:
            ids[file] = _parsed(file).ids
        assert unquote(anchor) in ids[file], url


def test_each_op_page_holds_its_registry_entry(site: Path) -> None:
    generated = pages()
    for kind, spec in REGISTRY.items():
        text = generated[f"reference/ops/{kind}.md"]
        assert text.startswith(f"# {kind}\n\n{spec.summary}\n")
        for rule in spec.all_rules:
            head = f"### `{rule.id}` {{ #{rule.id} }}\n\n**{rule.severity}**: {rule.statement}\n\n- Source: {rule.spec}"
            assert head in text, rule.id
            example = reference.example(rule.id)
            if example is not None:
                assert f"Fix: {example.fix.text()}" in text
        for port in (*spec.inputs, *spec.outputs):
            assert f"`{port.name}`" in text
        for name in spec.descriptor.model_fields["attrs"].annotation.model_fields:  # type: ignore[union-attr]
            assert f"| `{name}` |" in text, name
        assert (site / "reference" / "ops" / f"{kind}.html").is_file()


def test_family_attributes_show_their_defaults() -> None:
    text = pages()["reference/ops/Convolution.md"]
    assert '| `auto_pad` | string | "None" |' in text
    assert "| `strides` | s64[] |  | yes |" in text
    assert "| `keep_dims` | boolean | false |" in pages()["reference/ops/ReduceMax.md"]


def test_a_decision_recorded_for_a_rule_is_on_its_page() -> None:
    text = pages()["reference/ops/ReduceSum.md"]
    section = text.split("### `ReduceSum.axes.range`", 1)[1].split("### ", 1)[0]
    assert "[the reduction family's notes](../../ops/reduction.md)" in section
    assert "| an axis outside [-r, r-1] | not allowed |" in section
    max_page = pages()["reference/ops/Max.md"]
    assert "Decision: [spec notes, Max](../../spec-notes.md#max-onnx-under-the-sonnx-profile)" in max_page


def test_the_settings_page_lists_every_setting(site: Path) -> None:
    html = (site / "settings.html").read_text(encoding="utf-8")
    for name in Settings.model_fields:
        assert f"OPSPEC_{name.upper()}" in html
    assert "<!-- settings -->" not in html


def test_the_cli_page_lists_every_report_format(site: Path) -> None:
    from app.report import FORMATS

    html = (site / "cli.html").read_text(encoding="utf-8")
    for row in FORMATS:
        assert f"<td><code>{row.name}</code></td>" in html
    assert "<!-- report formats -->" not in html
