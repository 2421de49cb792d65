"""Rules and the diagnostics that cite them.

Every finding names a rule by a stable id, its op first (`ReduceMax.axes.range`, SONNX's C2 as `Max.C2`), the place in the
request it concerns (`attrs.axes[1]`), a message for people, and where the rule comes from. A check
reports every finding it can, not just the first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from app.core.numbers import clip

MESSAGE_CHARS = 400  # a message quotes request values; each quote is cut already, this bounds the whole

Severity = Literal["error", "warning", "info"]  # info: what a reader translated or assumed
Message = (
    str | Callable[[], str]
)  # a callable is called only if the diagnostic is listed (torch._check's way)


@dataclass(frozen=True)
class Rule:
    id: str
    statement: str  # one line, in our own words
    spec: str  # where in the source specification (or SPEC-NOTES) the rule comes from
    severity: Severity = "error"
    status: str | None = None  # what the reference implementation returns for this fault, if it has one
    # The id the rule had before every id named its op first (Max's bare SONNX `C1`): --ignore and
    # [tool.opspec] still read it, with a warning naming the new id.
    former: str | None = None


class Related(BaseModel):
    """Another place a finding concerns: the other declaration of a value whose declarations disagree."""

    path: str = Field(description="Where, in the same terms as the diagnostic's path.")
    message: str = Field(description="What is there, e.g. `the producer declares f32 [16, 13]`.")


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
    related: list[Related] | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description="Other places the finding concerns (a value declared otherwise elsewhere); absent when none.",
    )


@dataclass
class _Dropped:
    severity: Severity
    path: str  # the first one left out
    count: int = 0


class Report:
    """Collects diagnostics against a fixed rule book; an unknown rule id is a bug, caught at once.

    At most `limit` are listed: past it, each rule gets one summary ("N more like this"), so an answer
    stays small whatever the request repeats (a million repeated axes are one line, not a million)."""

    def __init__(self, rules: Mapping[str, Rule], limit: int | None = None):
        self.rules = rules
        self.limit = limit
        self._listed: list[Diagnostic] = []
        self._dropped: dict[str, _Dropped] = {}

    def _add(self, severity: Severity, rule_id: str, path: str, message: Message) -> None:
        if self.limit is not None and len(self._listed) >= self.limit:
            dropped = self._dropped.get(rule_id)
            if dropped is None:
                dropped = self._dropped[rule_id] = _Dropped(severity, path)
            dropped.count += 1
            if severity == "error":
                dropped.severity = "error"
            return
        rule = self.rules[rule_id]
        self._listed.append(
            Diagnostic(
                severity=severity,
                rule=rule_id,
                path=path,
                message=clip(message if isinstance(message, str) else message(), MESSAGE_CHARS),
                spec=rule.spec,
                status=rule.status,
            )
        )

    @property
    def diagnostics(self) -> list[Diagnostic]:
        if not self._dropped:  # the common case: all listed
            return list(self._listed)
        summaries = [
            Diagnostic(
                severity=dropped.severity,
                rule=rule_id,
                path=dropped.path,
                message=f"{dropped.count:,} more like this, from {dropped.path} on, left out: at most "
                f"{self.limit:,} diagnostics are listed per descriptor (max_diagnostics)",
                spec=self.rules[rule_id].spec,
                status=self.rules[rule_id].status,
            )
            for rule_id, dropped in self._dropped.items()
        ]
        return self._listed + summaries

    def error(self, rule_id: str, path: str, message: Message) -> None:
        self._add("error", rule_id, path, message)

    def warn(self, rule_id: str, path: str, message: Message) -> None:
        self._add("warning", rule_id, path, message)

    def note(self, rule_id: str, path: str, message: Message) -> None:
        self._add("info", rule_id, path, message)

    @property
    def ok(self) -> bool:
        if not self._listed and not self._dropped:  # the common case: nothing to report
            return True
        return not any(d.severity == "error" for d in self._listed) and not any(
            d.severity == "error" for d in self._dropped.values()
        )


class PathError(Exception):
    """A refusal tied to one place in the request: `path` points at it, `message` says why."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path
        self.message = message
