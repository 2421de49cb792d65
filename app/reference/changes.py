"""One change to a descriptor at a request path (`inputs[1].dtype`, `attrs.axes`): made, undone and said.

The reference's examples are pairs of descriptors one change apart: a valid one and the same with a
change that breaks a rule, or a spec case that breaks a rule and the change that makes it pass. A change
is data (what, where, the value), so the fix a page or `opspec rule` shows is the exact edit to make.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

Op = Literal["set", "remove", "insert"]
_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def steps(path: str) -> list[str | int]:
    """`inputs[1].shape[0]` as ["inputs", 1, "shape", 0]."""
    out: list[str | int] = []
    for match in _STEP.finditer(path):
        name, index = match.groups()
        out.append(name if name is not None else int(index))
    return out


@dataclass(frozen=True)
class Change:
    op: Op  # set: a key (made if absent) or a list item; remove: a key or item; insert: a list item
    path: str
    value: Any = None

    def apply(self, descriptor: dict[str, Any]) -> dict[str, Any]:
        """A changed copy; the descriptor given is left as it is."""
        out = copy.deepcopy(descriptor)
        *head, last = steps(self.path)
        parent: Any = out
        for step in head:
            parent = parent[step]
        if self.op == "set":
            parent[last] = copy.deepcopy(self.value)
        elif self.op == "remove":
            del parent[last]
        else:
            parent.insert(last, copy.deepcopy(self.value))
        return out

    def undo(self, descriptor: dict[str, Any]) -> Change:
        """The change that takes `self.apply(descriptor)` back to `descriptor`."""
        *head, last = steps(self.path)
        parent: Any = descriptor
        for step in head:
            parent = parent[step]
        if self.op == "insert":
            return Change("remove", self.path)
        if isinstance(parent, dict) and last not in parent:
            return Change("remove", self.path)
        return Change("set" if self.op == "set" else _put(parent), self.path, parent[last])

    def text(self) -> str:
        """The change as a person would be told to make it."""
        if self.op == "remove":
            return f"remove {self.path}"
        value = json.dumps(self.value, ensure_ascii=False)
        return f"insert {value} at {self.path}" if self.op == "insert" else f"set {self.path} to {value}"

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "path": self.path, **({} if self.op == "remove" else {"value": self.value})}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Change:
        return cls(data["op"], data["path"], data.get("value"))


@dataclass(frozen=True)
class Edit:
    """Changes made one after another (a dtype combination sets several ports at once)."""

    changes: tuple[Change, ...]

    def apply(self, descriptor: dict[str, Any]) -> dict[str, Any]:
        for change in self.changes:
            descriptor = change.apply(descriptor)
        return descriptor

    def undo(self, descriptor: dict[str, Any]) -> Edit:
        """The edit that takes `self.apply(descriptor)` back to `descriptor`."""
        undone = []
        for change in self.changes:
            undone.append(change.undo(descriptor))
            descriptor = change.apply(descriptor)
        return Edit(tuple(reversed(undone)))

    @property
    def paths(self) -> list[str]:
        return [change.path for change in self.changes]

    def text(self) -> str:
        return " and ".join(change.text() for change in self.changes)

    def to_json(self) -> list[dict[str, Any]]:
        return [change.to_json() for change in self.changes]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Edit:
        return cls(tuple(Change.from_json(change) for change in data))


def one(op: Op, path: str, value: Any = None) -> Edit:
    return Edit((Change(op, path, value),))


def _put(parent: Any) -> Op:
    """Undoing a removal: a list's item goes back in its place, a key is set again."""
    return "insert" if isinstance(parent, list) else "set"
