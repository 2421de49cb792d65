"""oneDNN's benchdnn graph inputs (tests/formats/files/benchdnn), read through app.formats as
`opspec check` reads them: each node of a kind with its verdict, its inferred outputs and the shapes
the file writes."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from app.core.config import Settings
from app.core.numbers import INT64_MIN
from app.formats import graphs

FILES = Path(__file__).resolve().parent.parent / "formats" / "files" / "benchdnn"


@dataclass(frozen=True)
class BenchNode:
    file: str  # relative to FILES
    index: int  # place in the file's graph list
    kind: str
    checked_as: str | None
    verdict: str
    findings: tuple[tuple[str, str, str], ...]  # (severity, rule, message)
    inferred: tuple[tuple[str, tuple], ...]  # (dtype, shape) per output, as opspec answers
    declared: tuple[tuple[str, tuple], ...]  # (dtype, shape) per output, as the file writes (-1 unknown)
    placeholder_input: bool  # an input the file writes as [INT64_MIN]


def _wire(shape: list[int]) -> tuple:
    return tuple(-1 if d == INT64_MIN else d for d in shape)


@functools.cache
def _all() -> tuple[BenchNode, ...]:
    out = []
    for path in sorted(FILES.rglob("*.json")):
        data = path.read_bytes()
        ops = json.loads(data)["graph"]
        result = graphs.check(data, Settings())
        for index, node in enumerate(result.nodes):
            op = ops[index]
            out.append(
                BenchNode(
                    str(path.relative_to(FILES)),
                    index,
                    node.kind,
                    node.checked_as,
                    "valid" if node.valid else "invalid",
                    tuple((d.severity, d.rule, d.message) for d in node.diagnostics),
                    tuple((t.dtype, tuple(t.shape) if t.shape is not None else None) for t in node.outputs),
                    tuple((t["dtype"], _wire(t["shape"])) for t in op["outputs"]),
                    any(t["shape"] == [INT64_MIN] for t in op["inputs"]),
                )
            )
    return tuple(out)


def nodes_of(kind: str) -> list[BenchNode]:
    return [node for node in _all() if node.kind == kind]
