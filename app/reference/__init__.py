"""The rule reference: every rule id opspec reports, with its statement, severity, source and op, an
example that breaks it and the fix, read by `opspec rule`, GET /v1/rules and the docs site's pages.

The rules come from the tables that define them, never from a list kept here: each op's rules in the
registry (and the verify rules each op's mismatch classes make), the graph walker's (`graph.RULES`), and
the readers' own (`opspec.read`, `opspec.json`, ...). A rule's page is app.report.links' `rule_page`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from app.core.diagnostics import Severity
from app.report.links import rule_page, rule_url

Group = Literal["op", "verify", "file", "graph"]


@dataclass(frozen=True)
class Entry:
    id: str
    statement: str
    severity: Severity
    spec: str  # where in the source specification (or SPEC-NOTES) it comes from
    group: Group  # an op's rule, an op's verify rule, a reader's, the graph walker's
    op: str | None = None  # the op kind it belongs to
    status: str | None = None  # what the reference implementation returns for the fault
    former: str | None = None  # the id it had before it named its op

    @property
    def page(self) -> str:
        return rule_page(self.id)

    def url(self, base: str) -> str:
        return rule_url(base, self.id)


def _file_rules() -> list[Entry]:
    from app.formats import descriptors, graphs, source, verify_cases
    from app.formats.graph import RULES

    infos = (
        source.READ_RULE,
        descriptors.JSON_RULE,
        descriptors.DESCRIPTOR_RULE,
        descriptors.LIMIT_RULE,
        graphs.GRAPH_RULE,
        verify_cases.CASE_RULE,
        verify_cases.NPZ_RULE,
    )
    entries = [Entry(info.id, info.statement, "error", info.spec, "file") for info in infos]
    entries += [Entry(r.id, r.statement, r.severity, r.spec, "graph") for r in RULES.values()]
    return entries


def _op_rules() -> list[Entry]:
    from app.formats.verify_cases import like_rule, mismatch_rule
    from app.ops import REGISTRY

    entries = []
    for kind, spec in REGISTRY.items():
        entries += [
            Entry(r.id, r.statement, r.severity, r.spec, "op", kind, r.status, r.former)
            for r in spec.all_rules
        ]
        for cls in spec.all_mismatch_classes:
            info = mismatch_rule(spec, cls.id)
            entries.append(Entry(info.id, info.statement, "error", info.spec, "verify", kind))
        if spec.implementations:
            info = like_rule(spec)
            entries.append(Entry(info.id, info.statement, "info", info.spec, "verify", kind))
    return entries


@cache
def book() -> dict[str, Entry]:
    """Every rule by id: the ops' in registry order, then the readers' and the graph walker's. An id
    twice is a bug (tests/reference/test_book.py): a finding's id must lead to one rule."""
    entries = _op_rules() + _file_rules()
    found: dict[str, Entry] = {}
    for entry in entries:
        assert entry.id not in found, f"rule id {entry.id} is defined twice"
        found[entry.id] = entry
    return found


def lookup(given: str) -> tuple[Entry | None, str | None]:
    """The rule an id names, and the former id it was given by (else None)."""
    from app.ops import RENAMED

    rules = book()
    if given in rules:
        return rules[given], None
    now = RENAMED.get(given)
    return (rules[now], given) if now else (None, None)


def closest(given: str) -> list[str]:
    """The known rule ids closest to an unknown one (`app.core.suggest`'s "did you mean")."""
    from app.core.suggest import close_names

    return close_names(given, list(book()))


def example(rule_id: str) -> Any:
    """The rule's example (a descriptor that breaks it and the fix), or None where none is known."""
    from app.reference.examples import load

    return load()[0].get(rule_id)


def describe(entry: Entry, docs_url: str) -> dict[str, Any]:
    """A rule as GET /v1/rules/{id} answers it, and as `opspec rule --format json` prints it."""
    from app.reference.examples import outcome

    found = example(entry.id)
    answer: dict[str, Any] = {
        "id": entry.id,
        "op": entry.op,
        "severity": entry.severity,
        "statement": entry.statement,
        "spec": entry.spec,
        "status": entry.status,
        "former_id": entry.former,
        "url": entry.url(docs_url),
        "example": None,
    }
    if found is not None:
        broken = outcome(found.descriptor)
        answer["example"] = {
            "descriptor": found.descriptor,
            "findings": [
                {"rule": rule, "severity": severity, "path": path, "message": message}
                for (rule, severity), path, message in zip(
                    broken.findings, broken.paths, broken.messages, strict=True
                )
            ],
            "fix": found.fix.text(),
            "fixed": found.fixed(),
            "source": found.source,
        }
    return answer
