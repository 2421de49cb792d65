"""What a family of ops shares, written once: attributes declared as data, dtype tables as rows, and
the op built from them.

The oneDNN Graph pages all say the same four things about an op: its attributes (value type,
supported values, default, required or optional), its input and output ports (required or optional),
a note on shapes, and a "Supported data types" table. A family module (app/ops/eltwise.py, ...)
writes its shape rule and its kernel once; each member is a call of `build` with its page's rows, or of
the family's own `build` (`build_backward`, `build_static`, ...), which passes the family's shared parts
on to this one:

    OP = build(
        "Abs", family="eltwise", page="Abs", summary="|src|, elementwise.",
        inputs=(In("src", "The tensor."),), outputs=(Out("dst", "src's shape and dtype."),),
        table=rows("src dst", "f32 f32", "bf16 bf16", "f16 f16"),
        accepts=constraints("src:T dst:T", T="f32 bf16 f16"),
        shape=same_as_input(0), kernel=lambda d, arrays, out: [np.abs(arrays[0])],
    )

`build` adds the rules every such op has (required attributes, supported values, the dtype table and
what oneDNN accepts beyond it), checks them before the family's shape rule runs, and gives each output
the dtype the table says.

Two dtype sets per op, as SPEC-NOTES asks: `table` is the page's table (beyond it is a warning, or an
error when oneDNN refuses it too); `accepts` is what oneDNN 3.13's op schema accepts (its type
constraints, from src/graph/interface/op_def.hpp). A combination in neither is an error; in the
library's but not the page's, a warning (`<Op>.onednn.dtypes`): a graph oneDNN runs is never invalid.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import Field, StrictBool, StrictStr, create_model, field_validator

from app.core.diagnostics import Rule
from app.core.dtypes import DTYPES, describe
from app.core.engine import Context, NotEvaluable
from app.core.mismatch import Tolerance
from app.core.numbers import Bound, Float, Int64, Numbers, int64s_as_given, show
from app.core.registry import Attrs, Descriptor, OpSpec, OutputType, Port, StepCount
from app.core.shapes import Shape

ONEDNN = "oneDNN Graph"
ONEDNN_VERSION = "oneDNN 3.13"

AttrType = Literal["s64", "s64[]", "f32", "f32|inf", "f32[]", "bool", "string"]

# The pydantic type of each oneDNN attribute value type. f32 takes any finite JSON number (ints too:
# a file writes 0 for 0.0); s64 a strict int64; bool JSON's true/false (the oneDNN reader turns a
# file's 0/1 into them).
_PYTHON_TYPES: dict[str, Any] = {
    "s64": Int64,
    "s64[]": list[Int64],
    "f32": Numbers,
    "f32|inf": Bound,  # an f32 that may be infinite (Clamp's bounds: oneDNN runs max = inf as no bound)
    "f32[]": list[Float],
    "bool": StrictBool,
    "string": StrictStr,
}


@dataclass(frozen=True)
class Attr:
    """One row of a page's "Operation attributes" table."""

    name: str
    type: AttrType
    description: str
    default: Any = None  # None: no default (absent means absent)
    required: bool = False
    values: tuple[Any, ...] = ()  # the supported values, when the page lists them


@dataclass(frozen=True)
class In:
    """An input port, in the page's index order."""

    name: str
    description: str
    optional: bool = False
    variadic: bool = False


@dataclass(frozen=True)
class Out:
    name: str
    description: str
    optional: bool = False
    variadic: bool = False


Row = tuple[str, ...]


def rows(ports: str, *lines: str) -> tuple[tuple[str, ...], tuple[Row, ...]]:
    """A page's dtype table as data: the ports' names, then one line per table row; a cell may list
    several dtypes with commas (`bf16,f16`), as the pages do. Expanded into one row per combination."""
    names = tuple(ports.split())
    out: list[Row] = []
    for line in lines:
        cells = line.split()
        assert len(cells) == len(names), f"row {line!r} has {len(cells)} cells for {names}"
        for combination in itertools.product(*(cell.split(",") for cell in cells)):
            assert all(c in DTYPES or c == "-" for c in combination), f"unknown dtype in {line!r}"
            if combination not in out:
                out.append(combination)
    return names, tuple(out)


def constraints(ports: str, **types: str) -> tuple[tuple[str, ...], frozenset[Row]]:
    """oneDNN's op schema as data: `src_0:T1 src_1:T2 dst:T1` with each type variable's dtypes
    (`T1="f32 bf16 f16"`); ports that share a variable share a dtype. Expanded into the rows it admits."""
    names, variables = [], []
    for item in ports.split():
        name, variable = item.split(":")
        names.append(name)
        variables.append(variable)
    order = list(dict.fromkeys(variables))
    choices = [types[v].split() for v in order]
    admitted = set()
    for picked in itertools.product(*choices):
        by_variable = dict(zip(order, picked, strict=True))
        admitted.add(tuple(by_variable[v] for v in variables))
    return tuple(names), frozenset(admitted)


# --- shape rules' helpers ---------------------------------------------------------------------------

ShapeRule = Callable[[Any, Context], "Sequence[Shape | None] | None"]
# (descriptor, decoded inputs, the outputs' NumPy dtypes) -> one array per output
Kernel = Callable[[Any, Sequence[np.ndarray], Sequence[np.dtype]], Sequence[np.ndarray]]


def same_as_input(index: int = 0, outputs: int = 1) -> ShapeRule:
    """Each output has input `index`'s shape (an elementwise op)."""

    def rule(d: Any, ctx: Context) -> list[Shape | None]:
        return [d.inputs[index].shape] * outputs

    return rule


def attr_path(name: str) -> str:
    return f"attrs.{name}"


# --- the op ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """What `build` knows of an op beyond its OpSpec: its attributes, its tables, its parts."""

    name: str
    attrs: tuple[Attr, ...]
    port_names: tuple[str, ...]  # the table's columns
    table: tuple[Row, ...]
    accepts: frozenset[Row]
    n_inputs: int  # ports of the table that are inputs (the rest are outputs)


def _attrs_model(kind: str, attrs: Sequence[Attr]) -> type[Attrs]:
    fields: dict[str, Any] = {}
    validators: dict[str, Any] = {}
    for attr in attrs:
        extra: dict[str, Any] = {}
        if attr.values:
            extra["enum"] = list(attr.values)
        if attr.required:
            extra["x-required"] = True  # a verdict's rule, not a 422: see `<kind>.attrs.required`
        default = None if attr.required else attr.default
        description = attr.description + (" Required." if attr.required else "")
        if default is not None:
            description += f" Default: {show(default)}."
        fields[attr.name] = (
            _PYTHON_TYPES[attr.type] | None,
            Field(default, description=description, json_schema_extra=extra or None),
        )
        if attr.type == "s64[]":
            validators[f"_{attr.name}"] = field_validator(attr.name, mode="wrap")(_int64s)
    model = create_model(f"{kind}Attrs", __base__=Attrs, __validators__=validators, **fields)  # type: ignore[call-overload]
    return model


def _int64s(values: Any, items: Any) -> Any:
    return values if values is None else int64s_as_given(values, items)


def _descriptor_model(kind: str, names: tuple[str, ...], attrs: type[Attrs]) -> type[Descriptor]:
    return create_model(  # type: ignore[call-overload]
        f"{kind}Op",
        __base__=Descriptor,
        kind=(Literal[names], ...),  # type: ignore[valid-type]
        attrs=(attrs, Field(default_factory=attrs)),
    )


def common_family_rules(kind: str, page: str, has_required: bool, has_values: bool) -> tuple[Rule, ...]:
    rules = [
        Rule(f"{kind}.dtypes", "The inputs' and outputs' dtypes are a combination the page's table lists, or "
             "one oneDNN accepts.", f"{page}, Supported data types"),
        Rule(f"{kind}.onednn.dtypes", f"A dtype combination beyond the page's table that {ONEDNN_VERSION}'s op "
             "schema accepts: valid, but not documented.", f"{page}, Supported data types; {ONEDNN_VERSION} "
             "op schema", "warning"),
    ]  # fmt: skip
    if has_required:
        rules.append(
            Rule(
                f"{kind}.attrs.required",
                "Every required attribute is given.",
                f"{page}, Operation attributes",
            )
        )
    if has_values:
        rules.append(
            Rule(
                f"{kind}.attrs.value",
                "Each attribute with listed supported values has one of them.",
                f"{page}, Operation attributes",
            )
        )
    return tuple(rules)


def build(
    kind: str,
    *,
    family: str,
    page: str,
    summary: str,
    inputs: Sequence[In],
    outputs: Sequence[Out],
    table: tuple[tuple[str, ...], tuple[Row, ...]],
    accepts: tuple[tuple[str, ...], frozenset[Row]] | None,
    shape: ShapeRule,
    kernel: Kernel,
    attrs: Sequence[Attr] = (),
    rules: Sequence[Rule] = (),
    notes: Sequence[str] = (),
    examples: Sequence[dict[str, Any]] = (),
    tolerance: Tolerance | None = None,
    aliases: Sequence[str] = (),
    source: str | None = None,
    kernel_steps: StepCount | None = None,
) -> OpSpec:
    """An OpSpec from a page's data, the family's shape rule and its kernel (see the module's doc).

    `page` names the spec page ("oneDNN Graph Abs"); rules cite it. `accepts` None: oneDNN accepts
    exactly the page's table."""
    page = page if page.startswith(ONEDNN) else f"{ONEDNN} {page}"
    names, table_rows = table
    accept_names, accepted = accepts if accepts is not None else (names, frozenset(table_rows))
    assert accept_names == names, f"{kind}: table columns {names} and constraints {accept_names} differ"
    n_in, n_out = len(inputs), len(outputs)
    assert len(names) == n_in + n_out, f"{kind}: table has {len(names)} columns for {n_in}+{n_out} ports"
    everything = set(table_rows) | accepted

    def dtypes_of(column: int) -> frozenset[str]:
        return frozenset(row[column] for row in everything if row[column] != "-")

    in_ports = tuple(
        Port(p.name, dtypes_of(i), p.description, optional=p.optional, variadic=p.variadic)
        for i, p in enumerate(inputs)
    )
    out_ports = tuple(
        Port(p.name, dtypes_of(n_in + i), p.description, optional=p.optional, variadic=p.variadic)
        for i, p in enumerate(outputs)
    )
    fam = Family(family, tuple(attrs), names, table_rows, accepted, n_in)
    kinds = (kind, *aliases)

    def model() -> type[Descriptor]:  # built when the op is first used (OpSpec.descriptor), not at import
        return _descriptor_model(kind, kinds, _attrs_model(kind, attrs))

    own_rules = tuple(rules) + common_family_rules(
        kind, page, any(a.required for a in attrs), any(a.values for a in attrs)
    )
    spec_holder: list[OpSpec] = []

    def infer(d: Any, ctx: Context) -> list[OutputType] | None:
        attrs_ok = _check_attrs(kind, fam, d, ctx)
        dtypes = _check_dtypes(kind, fam, spec_holder[0], d, ctx)
        if not attrs_ok:
            return None
        shapes = shape(d, ctx)
        if shapes is None or dtypes is None:
            return None
        # A shape rule may answer fewer outputs than the ports: the optional outputs a descriptor does not
        # have (LayerNorm's mean and variance without keep_stats, Dropout's mask undeclared) come last.
        return [OutputType(dt, sh) for dt, sh in zip(dtypes, shapes, strict=False)]  # type: ignore[arg-type]

    def output_dtypes(d: Any) -> list[str | None]:
        return output_dtype_choice(fam, d)[: present_outputs(outputs, d)]

    def evaluate(d: Any, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        out = output_dtype_choice(fam, d)
        numpy_types = [None if dt is None else DTYPES[dt].numpy for dt in out]
        results = kernel(d, arrays, numpy_types)  # type: ignore[arg-type]
        for index in range(len(results)):  # only the outputs the descriptor has (see infer)
            if out[index] is None:
                raise NotEvaluable(
                    f"outputs[{index}].dtype",
                    f"{kind}'s output {index} may be one of several dtypes for these inputs; declare it in "
                    "`outputs` to evaluate",
                )
        return [np.asarray(r).astype(t, copy=False) for r, t in zip(results, numpy_types, strict=False)]

    spec = OpSpec(
        kind=kind,
        model=model,
        names=kinds,
        source=source or page,
        summary=summary,
        inputs=in_ports,
        outputs=out_ports,
        rules=own_rules,
        infer=infer,
        output_dtypes=output_dtypes,
        evaluate=evaluate,
        dtype_table=tuple(dict(zip(names, row, strict=True)) for row in table_rows),
        dtype_source=f"{page}, Supported data types",
        notes=tuple(notes),
        examples=tuple(examples),
        family=family,
        tolerance=tolerance,
        extra=fam,
        kernel_steps=kernel_steps,
    )
    spec_holder.append(spec)
    return spec


def present_outputs(ports: Sequence[Out], d: Any) -> int:
    """How many outputs the op gives: its required ones, and the trailing optional ones declared (Dropout's
    mask). A family's shape rule and kernel answer for every port; the ones not present are dropped."""
    required = sum(1 for p in ports if not p.optional)
    declared = len(d.outputs) if d.outputs is not None else 0
    return max(required, min(declared, len(ports)))


def _check_attrs(kind: str, fam: Family, d: Any, ctx: Context) -> bool:
    ok = True
    for attr in fam.attrs:
        value = getattr(d.attrs, attr.name)
        if value is None:
            if attr.required:
                ctx.error(
                    f"{kind}.attrs.required",
                    "attrs",
                    f"{kind} needs the attribute {attr.name} ({attr.type}: {attr.description.rstrip('.')}); "
                    "it is not given",
                )
                ok = False
            continue
        if attr.values and value not in attr.values:
            ctx.error(
                f"{kind}.attrs.value",
                attr_path(attr.name),
                f"{attr.name} is {show(value)}; {kind} supports {', '.join(show(v) for v in attr.values)}",
            )
            ok = False
    return ok


def attr(d: Any, name: str, fam: Family | None = None) -> Any:
    """An attribute's value, its default when absent (a JSON null counts as absent)."""
    value = getattr(d.attrs, name)
    if value is None and fam is not None:
        for a in fam.attrs:
            if a.name == name:
                return a.default
    if value is None:  # the model's field default is the Attr's (None for a required one)
        return type(d.attrs).model_fields[name].default
    return value


def _input_dtypes(fam: Family, d: Any) -> tuple[str | None, ...]:
    given = [t.dtype for t in d.inputs]
    return tuple(given[i] if i < len(given) else None for i in range(fam.n_inputs))


def _candidates(rows_: Sequence[Row] | frozenset[Row], inputs: tuple[str | None, ...]) -> list[Row]:
    """The rows whose input columns hold these inputs' dtypes (an absent input, None, matches any)."""
    return [
        row
        for row in rows_
        if all(want == "-" or got is None or want == got for want, got in zip(row, inputs, strict=False))
    ]


@dataclass
class DTypeAnswer:
    outputs: list[str | None]  # each output's dtype; None where several are possible and none declared
    listed: bool  # the inputs (and declared outputs) are a combination of the page's table
    accepted: bool  # ... or of oneDNN's schema
    wrong: list[tuple[int, set[str]]]  # declared outputs that neither admits, with what would be


def resolve_dtypes(fam: Family, d: Any, inputs: tuple[str | None, ...] | None = None) -> DTypeAnswer:
    """Each output's dtype from the rows the inputs match: the page's table first, then oneDNN's schema.
    Where the rows allow several, a declared output among them decides. (`inputs`: the inputs' dtypes,
    where the caller has them.)"""
    inputs = _input_dtypes(fam, d) if inputs is None else inputs
    declared = tuple(t.dtype for t in d.outputs or ())
    key = (id(fam), inputs, declared)  # by id: hashing a Family hashes its whole table each time
    answer = _DTYPE_ANSWERS.get(key)
    if answer is None:
        if len(_DTYPE_ANSWERS) >= 4096:
            _DTYPE_ANSWERS.clear()
        answer = _DTYPE_ANSWERS[key] = _resolve_dtypes(fam, inputs, declared)
    return answer


# A graph repeats a few dtype combinations over thousands of nodes: each answered once. Families live as
# long as the registry, so their ids stay theirs. The answers are shared: read them, never change them.
_DTYPE_ANSWERS: dict[tuple[int, tuple[str | None, ...], tuple[str, ...]], DTypeAnswer] = {}


def _resolve_dtypes(fam: Family, inputs: tuple[str | None, ...], declared: tuple[str, ...]) -> DTypeAnswer:
    n = fam.n_inputs
    listed_rows = _candidates(fam.table, inputs)
    accepted_rows = _candidates(fam.accepts, inputs)
    answer = DTypeAnswer([], bool(listed_rows), bool(listed_rows or accepted_rows), [])
    for index in range(len(fam.port_names) - n):
        listed = {row[n + index] for row in listed_rows} - {"-"}
        accepted = {row[n + index] for row in accepted_rows} - {"-"}
        given = declared[index] if index < len(declared) else None
        options = listed or accepted
        if given is not None and given in listed:
            answer.outputs.append(given)
        elif given is not None and given in accepted:
            answer.outputs.append(given)
            answer.listed = False
        elif len(options) == 1:
            answer.outputs.append(next(iter(options)))  # a different declared dtype: the engine names it
        else:
            if given is not None and options:
                answer.wrong.append((index, listed | accepted))
            answer.outputs.append(None)
    return answer


def output_dtype_choice(fam: Family, d: Any) -> list[str | None]:
    return list(resolve_dtypes(fam, d).outputs)


def _check_dtypes(kind: str, fam: Family, spec: OpSpec, d: Any, ctx: Context) -> list[str | None] | None:
    """The inputs' (and declared outputs') dtypes against the page's table and oneDNN's schema; the
    outputs' dtypes. A dtype outside its port's set is named by the engine already."""
    inputs = _input_dtypes(fam, d)
    for index, dtype in enumerate(inputs):
        if dtype is not None and dtype not in spec.port(index).dtypes:
            return None
    answer = resolve_dtypes(fam, d, inputs)
    names = fam.port_names
    if not answer.accepted:
        shown = ", ".join(f"{name} {dt}" for name, dt in zip(names, inputs, strict=False) if dt is not None)
        ctx.error(
            f"{kind}.dtypes",
            "inputs",
            f"{shown} is not a combination {kind} supports; its table lists ({' '.join(names)}): "
            + _listing(fam.table),
        )
        return None
    for index, options in answer.wrong:
        ctx.error(
            f"{kind}.outputs.dtype",
            f"outputs[{index}].dtype",
            f"{names[fam.n_inputs + index]} is declared {d.outputs[index].dtype}; with these inputs "
            f"{kind} gives one of {describe(options)}",
        )
    if not answer.listed:
        shown = ", ".join(
            f"{name} {dt}"
            for name, dt in zip(names, inputs + tuple(answer.outputs), strict=False)
            if dt is not None
        )
        ctx.warn(
            f"{kind}.onednn.dtypes",
            "inputs",
            f"{shown} is beyond the page's table ({' '.join(names)}: {_listing(fam.table)}); "
            f"{ONEDNN_VERSION} accepts it",
        )
    return list(answer.outputs)


def _listing(table: Sequence[Row], most: int = 12) -> str:
    return "; ".join(" ".join(row) for row in table[:most]) + ("; ..." if len(table) > most else "")
