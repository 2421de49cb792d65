"""Rules and the diagnostics that cite them.

Every finding names a rule by a stable id (`ReduceMax.axes.range`, SONNX's `C2`), the place in the
request it concerns (`attrs.axes[1]`), a message for people, and where the rule comes from. A check
reports every finding it can, not just the first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

Severity = Literal["error", "warning", "info"]  # info: what a reader translated or assumed


@dataclass(frozen=True)
class Rule:
    id: str
    statement: str  # one line, in our own words
    spec: str  # where in the source specification (or SPEC-NOTES) the rule comes from
    severity: Severity = "error"
    status: str | None = None  # what the reference implementation returns for this fault, if it has one


class Diagnostic(BaseModel):
    severity: Severity
    rule: str = Field(description="Stable rule id, listed by GET /v1/ops/{kind}.")
    path: str = Field(description="Where in the request, e.g. `attrs.axes[1]` or `inputs[0].shape[2]`.")
    message: str
    spec: str = Field(description="The source specification and the part of it the rule comes from.")
    status: str | None = Field(
        None,
        description="The status code the reference implementation returns for this fault, where it has one "
        "(e.g. MLI_STATUS_BAD_FUNC_CFG from an embARC MLI debug build).",
    )


class Report:
    """Collects diagnostics against a fixed rule book; an unknown rule id is a bug, caught at once."""

    def __init__(self, rules: Mapping[str, Rule]):
        self.rules = rules
        self.diagnostics: list[Diagnostic] = []

    def _add(self, severity: Severity, rule_id: str, path: str, message: str) -> None:
        rule = self.rules[rule_id]
        self.diagnostics.append(
            Diagnostic(
                severity=severity,
                rule=rule_id,
                path=path,
                message=message,
                spec=rule.spec,
                status=rule.status,
            )
        )

    def error(self, rule_id: str, path: str, message: str) -> None:
        self._add("error", rule_id, path, message)

    def warn(self, rule_id: str, path: str, message: str) -> None:
        self._add("warning", rule_id, path, message)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)


class PathError(Exception):
    """A refusal tied to one place in the request: `path` points at it, `message` says why."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path
        self.message = message
