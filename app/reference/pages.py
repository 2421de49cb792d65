"""The docs site's reference pages, as Markdown, from the registry and the rule book: a page per op
(attributes with defaults, ports, dtype table, every rule with its id, statement, severity, source and
the decision docs/ records for it, examples that pass and that break each rule, the verify rules), a
page of the readers' and the graph walker's rules, the rule index, and the op index.

docs/hooks.py hands them to MkDocs as it builds (nothing generated is kept in git, so no page can fall
behind the registry); tests/docs/test_site.py builds the site and holds the pages to the registry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from app import reference
from app.core.registry import OpSpec, Port
from app.reference.examples import Example, load, outcome
from app.report.links import FILES_PAGE, RULES_PAGE, rule_page

DOCS = Path(__file__).resolve().parents[2] / "docs"
INDEX_PAGE = "reference/index.md"
SEED = "seed ops"  # the four ops opspec started with, each a module of its own
PLACEHOLDERS = ("<Kind>", "<Op>")  # how docs/ops/<family>.md writes "any op of the family" in a rule id


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _link(page: str, to: str, anchor: str = "") -> str:
    """A relative link from one docs page to another, as MkDocs resolves it."""
    up = "../" * page.count("/")
    return f"{up}{to}" + (f"#{anchor}" if anchor else "")


# --- what docs/ decided, per rule ------------------------------------------------------------------


def _slug(heading: str) -> str:
    from markdown.extensions.toc import slugify

    return slugify(heading, "-")


@cache
def _spec_notes_sections() -> dict[str, str]:
    """docs/spec-notes.md's section anchor per op it has a section for (`## SegmentMax-16 (OpenVINO)`)."""
    sections = {}
    for line in (DOCS / "spec-notes.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            sections[re.split(r"[- (]", heading, maxsplit=1)[0]] = _slug(heading)
    return sections


@cache
def _family_tables(family: str) -> list[tuple[str, str, list[str]]]:
    """docs/ops/<family>.md's tables: (header, separator, rows)."""
    path = DOCS / "ops" / f"{family}.md"
    if not path.is_file():
        return []
    tables, lines = [], path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines) - 1:
        if lines[index].startswith("|") and re.match(r"^\|[\s\-|:]+\|$", lines[index + 1]):
            rows = []
            at = index + 2
            while at < len(lines) and lines[at].startswith("|"):
                rows.append(lines[at])
                at += 1
            tables.append((lines[index], lines[index + 1], rows))
            index = at
        else:
            index += 1
    return tables


def decision_rows(spec: OpSpec, rule_id: str) -> list[str]:
    """The rows of the family's decision tables (docs/ops/<family>.md) that name this rule, each table's
    header first."""
    suffix = rule_id[len(spec.kind) :]
    names = [f"`{spec.kind}{suffix}`", *(f"`{p}{suffix}`" for p in PLACEHOLDERS)]
    out: list[str] = []
    for header, separator, rows in _family_tables(spec.family):
        found = [row for row in rows if any(name in row for name in names)]
        if found:
            out += ["", header, separator, *found]
    return out


# --- an op's page ----------------------------------------------------------------------------------


def _attributes(spec: OpSpec) -> list[tuple[str, str, str, str, str, str]]:
    """(name, type, default, required, values, description) for each attribute."""
    family_attrs = getattr(spec.extra, "attrs", None)
    if family_attrs is not None:
        return [
            (
                a.name,
                a.type,
                "" if a.default is None else _json(a.default),
                "yes" if a.required else "",
                ", ".join(_json(v) for v in a.values),
                a.description,
            )
            for a in family_attrs
        ]
    schema = spec.descriptor.model_fields["attrs"].annotation.model_json_schema()  # type: ignore[union-attr]
    required = set(schema.get("required", []))
    rows = []
    for name, field in schema.get("properties", {}).items():
        options = field.get("anyOf", [field])
        types = [o.get("type") for o in options if o.get("type") not in (None, "null")]
        values = [v for o in options for v in o.get("enum", [])]
        default = "" if "default" not in field or field["default"] is None else _json(field["default"])
        needed = "yes" if name in required or "Required." in field.get("description", "") else ""
        described = field.get("description", "") + (" (deprecated)" if field.get("deprecated") else "")
        rows.append(
            (name, " or ".join(types), default, needed, ", ".join(_json(v) for v in values), described)
        )
    return rows


def _port_row(port: Port, direction: str) -> str:
    from app.core.dtypes import DTYPES

    dtypes = ", ".join(name for name in DTYPES if name in port.dtypes)
    how = ", ".join(w for w, on in (("optional", port.optional), ("variadic", port.variadic)) if on)
    return f"| {direction} | `{port.name}` | {dtypes} | {how} | {_cell(port.description)} |"


def _said(example: Example) -> list[str]:
    """What opspec answers for an example: one line per finding."""
    found = outcome(example.descriptor)
    return [
        f"- {severity} `{rule}` at `{path}`: {_cell(message)}"
        for (rule, severity), path, message in zip(found.findings, found.paths, found.messages, strict=True)
    ]


def _rule_section(spec: OpSpec | None, entry: reference.Entry, page: str) -> Iterator[str]:
    yield f"### `{entry.id}` {{ #{entry.id} }}"
    yield ""
    yield f"**{entry.severity}**: {entry.statement}"
    yield ""
    yield f"- Source: {entry.spec or 'opspec itself'}"
    if entry.status:
        yield f"- The reference implementation returns `{entry.status}` for it"
    if entry.former:
        yield f"- Formerly `{entry.former}` (`--ignore {entry.former}` still works, with a warning)"
    if spec is not None and "SPEC-NOTES" in entry.spec:
        section = _spec_notes_sections().get(spec.kind)
        if section:
            yield f"- Decision: [spec notes, {spec.kind}]({_link(page, 'spec-notes.md', section)})"
    rows = decision_rows(spec, entry.id) if spec is not None and spec.family else []
    if rows:
        link = _link(page, f"ops/{spec.family}.md")  # type: ignore[union-attr]
        yield f"- Decision, from [the {spec.family} family's notes]({link}):"  # type: ignore[union-attr]
        yield from rows
    yield ""
    example = reference.example(entry.id)
    if example is None:
        if entry.group == "op":
            yield "No example: no case in specs/, and no single change of a valid one, breaks this rule."
        yield ""
        return
    yield f"Breaks it ({example.source}):"
    yield ""
    yield "```json"
    yield _json(example.descriptor)
    yield "```"
    yield ""
    yield "opspec answers:"
    yield ""
    yield from _said(example)
    yield ""
    yield f"Fix: {example.fix.text()}"
    yield ""
    yield "```json"
    yield _json(example.fixed())
    yield "```"
    yield ""


def op_page(spec: OpSpec) -> str:
    page = f"reference/ops/{spec.kind}.md"
    book = reference.book()
    lines = [f"# {spec.kind}", "", spec.summary, ""]
    lines.append(f"- Source: {spec.source}")
    if spec.aliases:
        lines.append(f"- Also written: {', '.join(f'`{a}`' for a in spec.aliases)}")
    if spec.family:
        notes = DOCS / "ops" / f"{spec.family}.md"
        family = (
            f"[{spec.family}]({_link(page, f'ops/{spec.family}.md')})" if notes.is_file() else spec.family
        )
        lines.append(f"- Family: {family}")
    lines.append(f"- Over HTTP: `GET /v1/ops/{spec.kind}`; from a terminal: `opspec rule {spec.kind}.<rule>`")
    lines += ["", "## Attributes", ""]
    attributes = _attributes(spec)
    if attributes:
        lines += [
            "| name | type | default | required | values | description |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{n}` | {t} | {d} | {r} | {_cell(v)} | {_cell(text)} |" for n, t, d, r, v, text in attributes
        ]
    else:
        lines.append("None: any attribute given is an error.")
    lines += ["", "## Ports", "", "| | port | dtypes | | description |", "| --- | --- | --- | --- | --- |"]
    lines += [_port_row(p, "input") for p in spec.inputs] + [_port_row(p, "output") for p in spec.outputs]
    if spec.dtype_table:
        columns = list(dict.fromkeys(key for row in spec.dtype_table for key in row))
        lines += ["", "## Data types", "", "| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
        lines += [
            "| " + " | ".join(_cell(row.get(c, "")) for c in columns) + " |" for row in spec.dtype_table
        ]
    passing = load()[1].get(spec.kind, [])
    lines += ["", "## Examples that pass", ""]
    if not passing:
        lines.append("None recorded: no case in specs/ is a valid descriptor of this op.")
    for example in passing:
        lines += [f"{example.source}:", "", "```json", _json(example.descriptor), "```", ""]
    lines += ["## Rules", ""]
    for rule in spec.all_rules:
        lines += list(_rule_section(spec, book[rule.id], page))
    verify = [e for e in book.values() if e.op == spec.kind and e.group == "verify"]
    if verify:
        lines += [
            "## Verify",
            "",
            "What `POST /v1/verify` and `opspec verify` report when an output differs:",
            "",
        ]
        for entry in verify:
            lines += list(_rule_section(spec, entry, page))
    if spec.notes:
        lines += ["## Notes on real implementations", ""] + [f"- {note}" for note in spec.notes] + [""]
    return "\n".join(lines).rstrip() + "\n"


# --- the indexes -----------------------------------------------------------------------------------


def files_page() -> str:
    page = FILES_PAGE
    lines = [
        "# Rules of files and graphs",
        "",
        "The rules a reader or the graph walker reports: a file that cannot be read, is not JSON or not a",
        "descriptor, a graph whose edges or dims are broken, what ONNX's and OpenVINO's own inference say.",
        f"An op's own rules are on its page ([every rule]({_link(page, RULES_PAGE)})).",
        "",
    ]
    for entry in reference.book().values():
        if entry.op is None:
            lines += list(_rule_section(None, entry, page))
    return "\n".join(lines).rstrip() + "\n"


def rules_page() -> str:
    page = RULES_PAGE
    book = reference.book()
    lines = [
        "# Every rule",
        "",
        f"Each of the {len(book):,} rule ids a finding can carry, with its severity and what it says; the id",
        "leads to its page (with an example that breaks it and the fix). `opspec rule ID` prints the same in",
        "a terminal, `GET /v1/rules/{id}` answers it as JSON.",
        "",
        "| id | severity | op | statement |",
        "| --- | --- | --- | --- |",
    ]
    for entry in book.values():
        target = _link(page, entry.page, entry.id)
        lines.append(
            f"| [`{entry.id}`]({target}) | {entry.severity} | {entry.op or ''} | {_cell(entry.statement)} |"
        )
    return "\n".join(lines) + "\n"


def index_page() -> str:
    from app.ops import REGISTRY

    page = INDEX_PAGE
    groups: dict[str, list[OpSpec]] = {}
    for spec in REGISTRY.values():
        groups.setdefault(spec.family or SEED, []).append(spec)
    lines = [
        "# Reference",
        "",
        "Generated from the op registry as the site is built: a page per op (attributes, ports, dtypes, every",
        f"rule with an example that breaks it and the fix), [every rule id]({_link(page, RULES_PAGE)}), and",
        f"[the rules of files and graphs]({_link(page, FILES_PAGE)}).",
        "",
        "| family | kind (aliases) | source | summary |",
        "| --- | --- | --- | --- |",
    ]
    for family, specs in groups.items():
        for index, spec in enumerate(specs):
            aliases = f" ({', '.join(f'`{a}`' for a in spec.aliases)})" if spec.aliases else ""
            shown = f"**{family}**" if index == 0 else ""
            target = _link(page, rule_page(f"{spec.kind}.x"))
            lines.append(
                f"| {shown} | [`{spec.kind}`]({target}){aliases} | {_cell(spec.source)} | {_cell(spec.summary)} |"
            )
    return "\n".join(lines) + "\n"


SETTINGS_MARK = "<!-- settings -->"


def _default(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if name.endswith("_bytes") and value % (1 << 10) == 0:
        return f"{value >> 20} MiB" if value % (1 << 20) == 0 else f"{value >> 10} KiB"
    if isinstance(value, int | float):
        return f"{value:,}" if value >= 10_000 else str(value)
    return f"`{_json(value)}`"


def settings_table() -> str:
    """Every OPSPEC_* setting with its default and what it does, from the Settings model itself."""
    from app.core.config import ENV_PREFIX, Settings

    lines = ["| variable | default | what |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
        lines.append(
            f"| `{ENV_PREFIX}{name.upper()}` | {_default(name, default)} | {_cell(field.description or '')} |"
        )
    return "\n".join(lines)


REPORT_FORMATS_MARK = "<!-- report formats -->"


def report_formats_table() -> str:
    """Every report format and what it is for, from the writers' table (app/report/__init__.py)."""
    from app.report import FORMATS

    lines = ["| format | what it is for |", "| --- | --- |"]
    lines += [f"| `{row.name}` | {_cell(row.use)} |" for row in FORMATS]
    return "\n".join(lines)


# Marks in the hand-written pages that the site's build replaces with a table generated from the code.
TABLES = {SETTINGS_MARK: settings_table, REPORT_FORMATS_MARK: report_formats_table}


def pages() -> dict[str, str]:
    """Every generated page by its path under docs/."""
    from app.ops import REGISTRY

    out = {INDEX_PAGE: index_page(), RULES_PAGE: rules_page(), FILES_PAGE: files_page()}
    for spec in REGISTRY.values():
        out[rule_page(f"{spec.kind}.x")] = op_page(spec)
    return out
