"""What the pooling, normalization and interpolate tests share: the oracle's recorded answers, running a
descriptor through the engine, tolerance checks, the benchdnn graphs' nodes of some kinds, and mutated
copies of a benchdnn file checked through `graphs.check` (rule, line and column)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from app.core import engine
from app.core.config import Settings
from app.core.mismatch import Tolerance, equal_bits
from app.formats import graphs
from app.ops import REGISTRY

HERE = Path(__file__).resolve().parent
BENCHDNN = HERE.parent.parent / "formats" / "files" / "benchdnn"
SETTINGS = Settings()


def recorded(family: str) -> list[tuple[str, dict, list[np.ndarray], list[np.ndarray]]]:
    """(name, descriptor, inputs, oneDNN's outputs) of each case recorded under tests/ops/oracle/<family>/."""
    cases = []
    for path in sorted((HERE / family).glob("*.npz")):
        z = np.load(path)
        descriptor = json.loads(str(z["descriptor"]))
        count = len(descriptor["inputs"])
        inputs = [z[f"in{i}"] for i in range(count)]
        outputs = [z[f"out{i}"] for i in range(len(descriptor["outputs"]))]
        cases.append((path.stem, descriptor, inputs, outputs))
    return cases


def with_data(descriptor: dict, arrays: list[np.ndarray]) -> dict:
    """The descriptor with each input's values as a flat list (f32 values are exact as JSON doubles)."""
    d = json.loads(json.dumps(descriptor))
    for tensor, array in zip(d["inputs"], arrays, strict=True):
        tensor["data"] = [v if v == v else "nan" for v in np.asarray(array).reshape(-1).tolist()]
    return d


def run(descriptor: dict) -> tuple[engine.Verdict, list[np.ndarray]]:
    spec = REGISTRY[descriptor["kind"]]
    return engine.run(spec, spec.descriptor.model_validate(descriptor), SETTINGS)


def check(descriptor: dict) -> engine.Verdict:
    spec = REGISTRY[descriptor["kind"]]
    verdict, _ = engine.check(spec, spec.descriptor.model_validate(descriptor), SETTINGS)
    return verdict


def rules(verdict: engine.Verdict, severity: str = "error") -> set[str]:
    return {d.rule for d in verdict.diagnostics if d.severity == severity}


def ulps_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between f32 values (monotone integer mapping of the bits)."""

    def ordered(x: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(x, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(a) - ordered(b))


def assert_agrees(got: np.ndarray, want: np.ndarray, tolerance: Tolerance | None, what: str) -> None:
    """Bit for bit (NaN = NaN) where the op is exact; else within the stated ulps or absolute difference,
    and NaN exactly where NaN is due."""
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype)
    if tolerance is None:
        same = equal_bits(got, want, True)
        assert same.all(), (
            f"{what}: {np.flatnonzero(~same)[:8]} differ: {got.ravel()[~same.ravel()][:8]} vs {want.ravel()[~same.ravel()][:8]}"
        )
        return
    nan = np.isnan(want)
    assert np.array_equal(nan, np.isnan(got)), f"{what}: NaN positions differ"
    close = (np.abs(got[~nan].astype(np.float64) - want[~nan]) <= tolerance.absolute) | (
        ulps_apart(got[~nan], want[~nan]) <= tolerance.ulps
    )
    assert close.all(), (
        f"{what}: {(~close).sum()} values beyond {tolerance}: {got[~nan][~close][:6]} vs {want[~nan][~close][:6]}"
    )


def benchdnn_nodes(kinds: set[str]) -> list[tuple[Path, dict, Any]]:
    """(file, the file's node, opspec's node result) for every node of these kinds in the benchdnn graphs."""
    found = []
    for path in sorted(BENCHDNN.rglob("*.json")):
        document = json.loads(path.read_text())
        ops = [op for op in document.get("graph", []) if op.get("kind") in kinds]
        if not ops:
            continue
        result = graphs.check(path.read_bytes(), SETTINGS)
        by_id = {node.id: node for node in result.nodes}
        found.extend((path, op, by_id[str(op["id"])]) for op in ops)
    return found


def check_file(document: dict):
    return graphs.check((json.dumps(document, indent=2) + "\n").encode(), SETTINGS)


def file_errors(result) -> list[tuple[str, str, tuple[int, int] | None]]:
    """(rule, path, (line, column)) of every error diagnostic of a checked file."""
    out = []
    for node in result.nodes:
        for d in node.diagnostics:
            if d.severity == "error":
                out.append((d.rule, d.path, result.position(d.path)))
    for d in result.diagnostics:
        if d.severity == "error":
            out.append((d.rule, d.path, result.position(d.path)))
    return out


def t(shape, dtype: str = "f32", data=None) -> dict:
    """A wire tensor."""
    tensor = {"dtype": dtype, "shape": shape}
    if data is not None:
        tensor["data"] = data
    return tensor


def assert_recorded_agrees(
    name: str, descriptor: dict, inputs: list, outputs: list, exact: bool = False
) -> None:
    """The kernel on the oracle's inputs gives oneDNN's outputs: bit for bit when `exact` or the op has no
    tolerance, else within the op's stated tolerance."""
    verdict, got = run(with_data(descriptor, inputs))
    assert verdict.valid, verdict.diagnostics
    tolerance = None if exact else REGISTRY[descriptor["kind"]].tolerance
    assert len(got) == len(outputs)
    for index, (g, w) in enumerate(zip(got, outputs, strict=True)):
        assert_agrees(g, w, tolerance, f"{name} output {index}")


def assert_errors(descriptor: dict, errors: set[str], message: str) -> None:
    """Invalid with exactly these error rules, one message containing `message`."""
    verdict = check(descriptor)
    assert not verdict.valid and rules(verdict) == errors, verdict.diagnostics
    assert any(message in d.message for d in verdict.diagnostics), [d.message for d in verdict.diagnostics]


def assert_warns(descriptor: dict, warning: str) -> None:
    verdict = check(descriptor)
    assert verdict.valid and warning in rules(verdict, "warning"), verdict.diagnostics


def assert_mutation_located(document: dict, change, rule: str) -> None:
    """A benchdnn file with its first node changed: `rule` among the errors, every error at a line and column."""
    copied = json.loads(json.dumps(document))
    change(copied["graph"][0])
    errors = file_errors(check_file(copied))
    assert rule in {e[0] for e in errors}, errors
    assert all(position is not None and position[0] > 1 for _, _, position in errors), errors


def assert_benchdnn_nodes(
    kinds: set[str], refused=lambda op: False, refused_rules: set[str] = frozenset()
) -> None:
    """Every benchdnn node of these kinds is checked as its kind; valid with the file's output shapes and
    dtypes, except those `refused` (oneDNN's add_op refuses them), which get exactly `refused_rules`."""
    nodes = benchdnn_nodes(kinds)
    assert {op["kind"] for _, op, _ in nodes} == kinds
    for path, op, node in nodes:
        assert node.checked_as == op["kind"], path
        if refused(op):
            assert {d.rule for d in node.diagnostics if d.severity == "error"} == refused_rules, (
                node.diagnostics
            )
            continue
        assert node.valid, (path, node.diagnostics)
        assert [o.shape for o in node.outputs] == [o["shape"] for o in op["outputs"]], path
        assert [o.dtype for o in node.outputs] == [o["dtype"] for o in op["outputs"]], path
