"""Where a rule's page is in the docs site, from its id alone: every op's rules (and its verify rules) on
the op's page, the readers' and the graph walker's on one page, each rule at the anchor of its id.

One scheme for the site's generated pages (app/reference), SARIF's helpUri, `opspec rule` and
GET /v1/rules/{id}: it holds because every rule id names its op first (`Max.C1`, not `C1`), and the
rules that belong to no op start with one of NON_OP.
"""

from __future__ import annotations

from urllib.parse import quote

NON_OP = ("graph", "onnx", "openvino", "opspec")  # the first part of a reader's or the walker's rule id
FILES_PAGE = "reference/files-and-graphs.md"
RULES_PAGE = "reference/rules.md"


def rule_page(rule_id: str) -> str:
    """The docs source page (relative to docs/) that holds the rule."""
    head = rule_id.split(".", 1)[0]
    return FILES_PAGE if head in NON_OP else f"reference/ops/{head}.md"


def html(page: str) -> str:
    """A docs source page's file in the built site (the site is built with use_directory_urls off, so
    every page is a file and the site reads from disk too)."""
    return page.removesuffix(".md") + ".html"


def page_url(base: str, page: str) -> str:
    """A docs source page's address under the docs site at `base` (OPSPEC_DOCS_URL)."""
    return f"{base.rstrip('/')}/{html(page)}"


def rule_url(base: str, rule_id: str) -> str:
    """The rule's page under the docs site at `base`, at its anchor."""
    return f"{page_url(base, rule_page(rule_id))}#{quote(rule_id, safe='._-')}"
