"""Examples for the rule reference: for each rule, a descriptor that breaks it and the one change that
makes it pass; for each op, descriptors that pass. Drawn from the conformance cases in specs/ and checked
by running the checker, never written by hand.

Two sources, both run through `app.library.validate` (the answer of POST /v1/validate):
- a case of specs/ that breaks a rule, with the one change (of those `variants` tries) after which it
  passes with nothing to report;
- a valid case (or an op's own example) with one change from `variants` that breaks a rule: the fix is
  undoing it.
"Passes" is valid with none of the example's rules cited (and with nothing at all to report where any
change gives that). Per rule the example with the fewest other findings wins (a spec case before a changed one, then the
shorter). The result is kept in examples.json beside this module, so the installed command and the
service (which have no specs/) answer with it; `python -m app.reference` writes it, and
tests/reference/test_examples.py holds it to what this module finds now.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from app.core.dtypes import DTYPES
from app.core.registry import OpSpec
from app.reference.changes import Change, Edit, one

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
DATA = Path(__file__).with_name("examples.json")
CASE_CHARS = 1500  # a case longer than this as compact JSON (payloads) makes a poor example
BASES = 2  # valid spec cases per op that changes start from, the shortest first
DATA_ELEMENTS = 64  # data is given to a tensor of at most this many elements (an example stays short)
UNKNOWN_ATTRIBUTE = "no_such_attribute"
ANY_RULE = "opspec.descriptor"  # a refusal without a rule of the op's: the CLI reports it under this id


@dataclass(frozen=True)
class Passing:
    descriptor: dict[str, Any]
    source: str


@dataclass(frozen=True)
class Base:
    """Where a changed example starts: one of its op's passing descriptors (`index` into them), with
    its outputs declared as inference gives them or not."""

    index: int
    declared: bool

    def start(self, passing: list[Passing]) -> dict[str, Any]:
        given = passing[self.index].descriptor
        return (declared(given) or given) if self.declared else given

    def source(self, passing: list[Passing]) -> str:
        return passing[self.index].source + (", its outputs declared" if self.declared else "")


@dataclass(frozen=True)
class Example:
    rule: str
    descriptor: dict[str, Any]  # breaks the rule
    fix: Edit  # after it, the descriptor passes
    source: str  # where it comes from: a spec case, or a valid one changed
    # A changed example's start and the change that broke it: kept in examples.json in place of the
    # descriptor and the fix, which they give back.
    base: Base | None = None
    change: Edit | None = None

    def fixed(self) -> dict[str, Any]:
        return self.fix.apply(self.descriptor)

    def to_json(self) -> dict[str, Any]:
        if self.base is None or self.change is None:
            return {"descriptor": self.descriptor, "fix": self.fix.to_json(), "source": self.source}
        return {"base": self.base.index, "declared": self.base.declared, "change": self.change.to_json()}

    @classmethod
    def changed(cls, rule: str, base: Base, change: Edit, passing: list[Passing]) -> Example:
        start = base.start(passing)
        source = f"{base.source(passing)}, changed"
        return cls(rule, change.apply(start), change.undo(start), source, base, change)

    @classmethod
    def from_json(cls, rule: str, data: dict[str, Any], passing: list[Passing]) -> Example:
        if "base" in data:
            return cls.changed(
                rule, Base(data["base"], data["declared"]), Edit.from_json(data["change"]), passing
            )
        return cls(rule, data["descriptor"], Edit.from_json(data["fix"]), data["source"])


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- what the checker says ------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    findings: tuple[tuple[str, str], ...]  # (rule, severity), in the answer's order
    valid: bool
    paths: tuple[str, ...] = ()  # where the findings are
    messages: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return self.valid and not self.findings


class Crash(Exception):
    """The checker raised where it must answer: a bug, named with the descriptor that shows it."""


def outcome(descriptor: dict[str, Any]) -> Outcome:
    """The rules POST /v1/validate cites for a descriptor (a 422's errors included) and its verdict."""
    from app.core.payload import LimitExceeded
    from app.library import Malformed, validate

    try:
        answer = validate(descriptor)
    except Malformed as exc:
        found = tuple((e.get("rule", ANY_RULE), "error") for e in exc.errors)
        return Outcome(
            found, False, tuple(e["path"] for e in exc.errors), tuple(e["message"] for e in exc.errors)
        )
    except LimitExceeded as exc:
        return Outcome((("opspec.limit", "error"),), False, (exc.path,), (exc.message,))
    except Exception as exc:
        raise Crash(f"{type(exc).__name__}: {exc} for {compact(descriptor)}") from exc
    diagnostics = answer["diagnostics"]
    found = tuple((d["rule"], d["severity"]) for d in diagnostics)
    paths, messages = tuple(d["path"] for d in diagnostics), tuple(d["message"] for d in diagnostics)
    return Outcome(found, answer["valid"], paths, messages)


def declared(descriptor: dict[str, Any]) -> dict[str, Any] | None:
    """The descriptor with its outputs declared as inference gives them (a start for the rules on
    declared outputs), or None where it declares them already or inference leaves one unknown."""
    from app.library import validate

    if "outputs" in descriptor:
        return None
    outputs = validate(descriptor)["outputs"]
    if not outputs or any(o["dtype"] is None or o["shape"] is None for o in outputs):
        return None
    return {**descriptor, "outputs": outputs}


# --- the changes tried ----------------------------------------------------------------------------


def _attribute_values(schema: dict[str, Any], current: Any) -> list[Any]:
    """Values to try for an attribute, by the JSON types its schema allows."""
    options = schema.get("anyOf", [schema])
    kinds = {option.get("type") for option in options}
    items = next((o.get("items", {}) for o in options if o.get("type") == "array"), {})
    values: list[Any] = []
    if "integer" in kinds:
        values += [-1, 0, 1, 2, 3, 99, -99]
    if "number" in kinds:
        values += [-1.0, 0.0, 0.5, 2.0]
    if "boolean" in kinds:
        values += [True, False]
    if "string" in kinds:
        values.append("bogus")
        for option in options:
            values += option.get("enum", [])
    if "array" in kinds:
        number = 0.5 if items.get("type") == "number" else 1
        values += [[], [0], [-1], [99], [0, 0], [number, number], [number] * 3, [-1, -1]]
        if isinstance(current, list) and current:
            values += [current[:-1], [*current, current[-1]], [99] * len(current), [-99] * len(current)]
            values += [[0] * len(current), [-1] * len(current), [2] * len(current)]
    unique: list[Any] = []
    for value in values:
        if value != current and not any(compact(value) == compact(u) for u in unique):
            unique.append(value)
    return unique


def _numel(shape: Any) -> int | None:
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        return None
    count = 1
    for dim in shape:
        count *= dim
    return count


def _dtype_rows(spec: OpSpec, descriptor: dict[str, Any]) -> Iterator[Edit]:
    """For an op built from a dtype table: each combination oneDNN's schema accepts beyond the table,
    set on every port at once (an output only where the descriptor declares it)."""
    family = spec.extra
    rows = getattr(family, "accepts", frozenset()) - set(getattr(family, "table", ()))
    inputs, outputs = descriptor.get("inputs") or [], descriptor.get("outputs") or []
    for row in sorted(rows):
        n_in = family.n_inputs
        changes = [
            Change("set", f"inputs[{i}].dtype", dtype)
            for i, dtype in enumerate(row[:n_in])
            if dtype != "-" and i < len(inputs)
        ]
        changes += [
            Change("set", f"outputs[{i}].dtype", dtype)
            for i, dtype in enumerate(row[n_in:])
            if dtype != "-" and i < len(outputs)
        ]
        if changes:
            yield Edit(tuple(changes))


def variants(spec: OpSpec, descriptor: dict[str, Any]) -> Iterator[Edit]:
    """Edits to try on a descriptor, in a fixed order: attributes, inputs, shapes, dtypes, data,
    strides, declared outputs, then whole dtype rows."""
    attrs = descriptor.get("attrs") if isinstance(descriptor.get("attrs"), dict) else None
    schema = spec.descriptor.model_fields["attrs"].annotation.model_json_schema()  # type: ignore[union-attr]

    def attribute(name: str, value: Any) -> Edit:
        return one("set", f"attrs.{name}", value) if attrs is not None else one("set", "attrs", {name: value})

    yield attribute(UNKNOWN_ATTRIBUTE, 1)
    for name, field in schema.get("properties", {}).items():
        current = attrs.get(name) if attrs is not None else None
        if attrs is not None and name in attrs:
            yield one("remove", f"attrs.{name}")
        for value in _attribute_values(field, current):
            yield attribute(name, value)
    inputs = descriptor.get("inputs")
    if not isinstance(inputs, list):
        return
    if inputs:
        yield one("insert", f"inputs[{len(inputs)}]", inputs[-1])
        yield one("remove", f"inputs[{len(inputs) - 1}]")
        if len(inputs) > 1:
            yield one("remove", "inputs[0]")
        yield one("set", "inputs", [])
    for index, tensor in enumerate(inputs):
        if isinstance(tensor, dict):
            yield from _tensor_variants(f"inputs[{index}]", tensor)
    outputs = descriptor.get("outputs")
    if isinstance(outputs, list):
        yield one("insert", f"outputs[{len(outputs)}]", outputs[-1] if outputs else {"dtype": "f32"})
        yield one("remove", "outputs")
        for index, tensor in enumerate(outputs):
            if not isinstance(tensor, dict):
                continue
            where = f"outputs[{index}]"
            for dtype in DTYPES:
                if dtype != tensor.get("dtype"):
                    yield one("set", f"{where}.dtype", dtype)
            shape = tensor.get("shape")
            if isinstance(shape, list):
                yield one("set", f"{where}.shape", [*shape, 1])
                yield one("set", f"{where}.shape", shape[1:])
                for axis, dim in enumerate(shape):
                    if isinstance(dim, int) and dim >= 0:
                        yield one("set", f"{where}.shape[{axis}]", dim + 1)
    yield from _dtype_rows(spec, descriptor)


def _tensor_variants(where: str, tensor: dict[str, Any]) -> Iterator[Edit]:
    shape = tensor.get("shape")
    if isinstance(shape, list):
        yield one("set", f"{where}.shape", shape[1:])
        yield one("set", f"{where}.shape", [2, *shape])
        yield one("set", f"{where}.shape", [*shape, 1])
        for axis, dim in enumerate(shape):
            options = [0, 1, 3, "N", -1] + ([dim + 1, dim * 2] if isinstance(dim, int) and dim > 0 else [])
            for value in dict.fromkeys(options):
                if value != dim:
                    yield one("set", f"{where}.shape[{axis}]", value)
    for dtype in DTYPES:
        if dtype != tensor.get("dtype"):
            yield one("set", f"{where}.dtype", dtype)
    numel = _numel(shape)
    if numel is not None and numel <= DATA_ELEMENTS:
        yield one("set", f"{where}.data", [0] * (numel + 1))
        if "data" not in tensor:
            yield one("set", f"{where}.data", [1] * numel)
        if "strides" not in tensor:
            yield one("set", f"{where}.strides", [1] * (len(shape) + 1))
    for key in ("data", "strides", "quant"):
        if key in tensor:
            yield one("remove", f"{where}.{key}")


# --- choosing -------------------------------------------------------------------------------------


def _at(path: str, places: list[str]) -> int:
    """How near a finding's path is to the places changed: 0 at one, 1 inside one, 2 elsewhere."""
    if path in places:
        return 0
    return 1 if any(path.startswith(place) for place in places) else 2


def _inferred(descriptor: dict[str, Any]) -> Iterator[Edit]:
    """Declared outputs set to what inference gives, where it gives them."""
    from app.library import validate

    declared, inferred = descriptor.get("outputs"), validate(descriptor)["outputs"]
    if not isinstance(declared, list) or not inferred:
        return
    for index, (given, found) in enumerate(zip(declared, inferred, strict=False)):
        for key in ("dtype", "shape"):
            if isinstance(given, dict) and found[key] is not None and given.get(key) != found[key]:
                yield one("set", f"outputs[{index}].{key}", found[key])


def _fix(spec: OpSpec, descriptor: dict[str, Any], broken: Outcome) -> Edit | None:
    """The edit, of those `variants` tries, after which the descriptor is valid and none of its rules
    is cited: one that leaves nothing to report first, then one at the path of a finding, then inside
    it, then a setting before a removal, then the shortest."""
    try:
        candidates = [*_inferred(descriptor), *variants(spec, descriptor)]
    except Exception:  # not a descriptor: no outputs to infer
        candidates = list(variants(spec, descriptor))
    cited = {rule for rule, _ in broken.findings}
    best: tuple[tuple[int, int, int, int], Edit] | None = None
    for edit in candidates:
        try:
            after = outcome(edit.apply(descriptor))
        except Crash:
            continue
        if not after.valid or cited & {rule for rule, _ in after.findings}:
            continue
        near = min((_at(path, edit.paths) for path in broken.paths), default=2)
        removes = sum(change.op == "remove" for change in edit.changes)
        score = (len(after.findings), near, removes, len(compact(edit.to_json())))
        if best is None or score < best[0]:
            best = (score, edit)
    return best[1] if best else None


def _cases() -> Iterator[tuple[str, dict[str, Any]]]:
    """(source, descriptor) for every case of specs/ short enough to show."""
    for path in sorted(SPECS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            descriptor = case.get("descriptor")
            if isinstance(descriptor, dict) and len(compact(descriptor)) <= CASE_CHARS:
                yield f"specs/{path.name}: {case['name']}", descriptor


def find() -> tuple[dict[str, Example], dict[str, list[Passing]], list[str]]:
    """Every rule's best example, each op's passing descriptors, and the crashes met on the way (bugs:
    each a descriptor the checker raised on), worked out now."""
    from app.ops import BY_NAME, REGISTRY

    best: dict[str, tuple[tuple[int, int, int, int], Example]] = {}
    crashes: list[str] = []

    def offer(make: Any, found: Outcome, places: list[str], origin: int, size: int, before: Outcome) -> None:
        """Each rule the outcome cites that the descriptor's fix (`before`) does not: its example is the
        one with the fewest other findings, then the one whose finding is where the change (or the fix)
        is, a spec case first, the shortest."""
        still = {rule for rule, _ in before.findings}
        for rule in dict.fromkeys(rule for rule, _ in found.findings if rule not in still):
            others = sum(1 for r, _ in found.findings if r != rule)
            where = min(
                _at(p, places) for (r, _), p in zip(found.findings, found.paths, strict=True) if r == rule
            )
            score = (others, where, origin, size)
            if rule not in best or score < best[rule][0]:
                best[rule] = (score, make(rule))

    def run(descriptor: dict[str, Any]) -> Outcome | None:
        try:
            return outcome(descriptor)
        except Crash as exc:
            crashes.append(str(exc))
            return None

    passing: dict[str, list[Passing]] = {}
    cases: dict[str, list[Passing]] = {kind: [] for kind in REGISTRY}
    for source, descriptor in _cases():
        kind = descriptor.get("kind")
        spec = BY_NAME.get(kind) if isinstance(kind, str) else None
        found = run(descriptor) if spec is not None else None
        if spec is None or found is None:
            continue
        if found.valid:
            cases[spec.kind].append(Passing(descriptor, source))
        if found.findings:
            fix = _fix(spec, descriptor, found)
            if fix is not None:
                size = len(compact(descriptor))
                make = lambda rule, d=descriptor, f=fix, s=source: Example(rule, d, f, s)  # noqa: E731
                offer(make, found, fix.paths, 0, size, outcome(fix.apply(descriptor)))
    for kind, spec in REGISTRY.items():
        own = [Passing(d, f"GET /v1/ops/{kind}, example {i + 1}") for i, d in enumerate(spec.examples)]
        # clean ones first (a warning of its own would stand beside every change's finding), then short
        shortest = sorted(
            cases[kind], key=lambda p: (not outcome(p.descriptor).clean, len(compact(p.descriptor)))
        )
        passing[kind] = [p for p in (*own, *shortest[:BASES]) if outcome(p.descriptor).valid]
        for index in range(len(passing[kind])):
            for base in (Base(index, False), Base(index, True)):
                start = base.start(passing[kind])
                before = outcome(start)
                if base.declared and "outputs" in start and "outputs" in passing[kind][index].descriptor:
                    continue  # declared already: the same start as the plain one
                for edit in variants(spec, start):
                    changed = edit.apply(start)
                    found = run(changed)
                    if found is not None and found.findings:
                        make = lambda rule, b=base, e=edit, p=passing[kind]: Example.changed(rule, b, e, p)  # noqa: E731
                        offer(make, found, edit.paths, 1, len(compact(changed)), before)
    examples = {rule: example for rule, (_, example) in sorted(best.items())}
    return examples, passing, crashes


# --- kept in examples.json ------------------------------------------------------------------------


def dump(examples: dict[str, Example], passing: dict[str, list[Passing]]) -> str:
    """examples.json's text: one line per rule and per op, so a change to one shows as one line."""
    ops = ",\n".join(
        f"  {json.dumps(kind)}: {compact([{'descriptor': p.descriptor, 'source': p.source} for p in found])}"
        for kind, found in passing.items()
    )
    rules = ",\n".join(f"  {json.dumps(rule)}: {compact(e.to_json())}" for rule, e in examples.items())
    return f'{{\n"ops": {{\n{ops}\n}},\n"rules": {{\n{rules}\n}}\n}}\n'


@cache
def load() -> tuple[dict[str, Example], dict[str, list[Passing]]]:
    """What examples.json holds: each rule's example, each op's passing descriptors."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    passing = {
        kind: [Passing(p["descriptor"], p["source"]) for p in found] for kind, found in data["ops"].items()
    }
    examples = {
        rule: Example.from_json(rule, e, passing.get(rule.split(".")[0], []))
        for rule, e in data["rules"].items()
    }
    return examples, passing
