"""The tensor descriptor of the wire format: dtype, shape, and optionally data, strides and quant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    field_validator,
)

from app.core.config import get_settings
from app.core.dtypes import DTYPE_PATTERN, canonical_dtype
from app.core.numbers import INT64_MAX, Int64, Int64s, Integer, Numbers, int64s_as_given
from app.core.shapes import EXPR_CHARS, SYMBOL_CHARS, Shape, parse_dim

DTypeName = Annotated[
    str,
    BeforeValidator(canonical_dtype),
    WithJsonSchema({"type": "string", "pattern": DTYPE_PATTERN}),
    Field(
        description="Element type: f32 f16 bf16 f64 s8 u8 s16 u16 s32 u32 s64 u64 boolean sa8 fx16 sa32, "
        "or an OpenVINO / ONNX / NumPy spelling (F32, int64, float16); answered canonically.",
        examples=["f32"],
    ),
]


# What parse_dim accepts, as the schema states it: an int64 >= -1, "?", a symbol or an expression over
# symbols (app/core/dims.py; its grammar is checked there), or null.
WireDim = Annotated[
    Integer | str | None,
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": -1, "maximum": INT64_MAX},
                {"type": "string", "pattern": f"^(?:\\?|[A-Za-z_][A-Za-z0-9_]{{0,{SYMBOL_CHARS - 1}}})$"},
                {"type": "string", "pattern": "^[A-Za-z0-9_ +*/%(),-]+$", "maxLength": EXPR_CHARS},
                {"type": "null"},
            ]
        }
    ),
]


_AS_GIVEN = frozenset({int, str, type(None)})  # the types of dim WireDim returns unchanged (not bool)


def check_rank(shape: list) -> None:
    """The rank limit, before any item of the shape is looked at."""
    limit = get_settings().max_rank
    if len(shape) > limit:
        raise ValueError(f"rank {len(shape):,} is above the limit of {limit} (max_rank)")


def dims(shape: list | None) -> Shape | None:
    """A shape's dims by parse_dim, each item already an int, a str or None (what WireDim gives)."""
    if shape is None:
        return None
    parsed = []
    for axis, dim in enumerate(shape):
        try:
            parsed.append(parse_dim(dim))
        except ValueError as exc:
            raise ValueError(f"shape[{axis}]: {exc}") from None
    return tuple(parsed)


class Quant(BaseModel):
    """MLI's element parameters: sa8 uses scale, zero_point, scale_frac_bits, dim; fx16 uses frac_bits."""

    model_config = ConfigDict(extra="forbid")

    scale: Numbers | None = None
    zero_point: Int64s | None = None
    scale_frac_bits: Int64s | None = None
    dim: Int64 | None = Field(None, description="Quantization axis; -1 or absent means per-tensor.")
    frac_bits: Int64 | None = None


class RankAndStrides:
    """What a tensor answers from its shape and strides: Tensor's, and the first pass's tensors
    (app/ops/first_pass.py), which hold the same fields."""

    __slots__ = ()

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)  # type: ignore[attr-defined]

    @property
    def strides_fit(self) -> bool:
        """One stride per dim (or no strides, or a rank not known). A mismatch is a rule the engine
        reports, `<kind>.strides.rank`, so the schema (a list of integers) says what is answered."""
        strides, shape = self.strides, self.shape  # type: ignore[attr-defined]
        return strides is None or shape is None or len(strides) == len(shape)


class Tensor(BaseModel, RankAndStrides):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    dtype: DTypeName
    # fail_fast on every list: a list of a million bad items is one error, not a million (the errors of
    # one request are built in full before any can be dropped).
    shape: list[WireDim] | None = Field(
        fail_fast=True,
        # max_rank as it is when the schema is made (the app's OpenAPI document): the schema says it.
        json_schema_extra=lambda schema: schema.update(maxItems=get_settings().max_rank),
        description="Dims outermost first: integer >= 0; -1, null or '?' for unknown; a symbol such as 'N', or "
        "an integer expression over symbols ('S + T', '(H - 1) // 2 + 1', 'min(S, 512)'). null for unknown rank.",
        examples=[[2, "N", 4]],
    )
    data: Any = Field(
        None,
        description="Values: nested lists in row-major order (a bare number for rank 0), with 'nan', 'inf', "
        "'-inf' as strings; or {'encoding': 'base64', 'bytes': ...} of little-endian raw values. With "
        "strides, the flat memory buffer.",
    )
    strides: list[Int64] | None = Field(
        None,
        fail_fast=True,
        validation_alias=AliasChoices("strides", "stride", "mem_stride"),
        description="Strides in elements, outermost first (aliases: stride, mem_stride).",
    )
    quant: Quant | None = None

    _strides = field_validator("strides", mode="wrap")(int64s_as_given)

    @field_validator("shape", mode="wrap")
    @classmethod
    def _shape(cls, shape: Any, items: ValidatorFunctionWrapHandler) -> Shape | None:
        """The rank limit before any item is looked at, then each item by WireDim (`items`), then
        each dim by parse_dim. WireDim hands an int, a str or None back as it is, so a list of only
        those skips it (its union tried the int branch first and raised for every symbol)."""
        if isinstance(shape, list):
            check_rank(shape)
            if all(type(dim) in _AS_GIVEN for dim in shape):
                return dims(shape)
        return dims(items(shape))


class TensorType(BaseModel):
    """An inferred or declared output: dtype and shape, with unknown dims written as -1."""

    # null where the inputs leave the dtype open and no output declares it (TypeCast's f32 -> bf16 or f16)
    dtype: str | None = Field(
        description="The dtype; null where the inputs leave it open (declare the output to choose it)."
    )
    shape: list[int | str] | None


def stride_overlap(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, int] | None:
    """Where strides make two elements of a tensor share an address, as oneDNN's memory descriptor check
    (memory_desc_strides_check, plain layouts) finds it: dims ordered by stride (ties: the smaller dim,
    then the earlier), each dim's stride at least the extent of the dims inside it; a dim of size 1 and a
    zero stride (a broadcast) are passed over, and a tensor with a dim of 0 has no elements to overlap.
    So a permutation or padded rows are fine. Returns (the dim whose stride falls short, the dim inside
    it whose extent it falls into), or None. Every dim and stride known and >= 0."""
    if 0 in shape:
        return None
    order = sorted(range(len(shape)), key=lambda d: (strides[d], shape[d], d))
    least, inner = 1, -1
    for dim in order:
        if strides[dim] == 0 or shape[dim] == 1:
            continue
        if strides[dim] < least:
            return dim, inner
        least, inner = strides[dim] * shape[dim], dim
    return None


# --- MLI tensor checks (op-independent: every MLI kernel validates its tensors this way) -------------

INT16_RANGE = (-(1 << 15), (1 << 15) - 1)


@dataclass(frozen=True)
class TensorProblem:
    """One fault in a tensor's layout or element parameters; ops map `kind` to their rule ids."""

    field: str  # the offending field, relative to the tensor: "strides[1]", "quant.scale"
    kind: str
    message: str


def mli_stride_problems(shape: Shape | None, strides: list[int] | None) -> list[TensorProblem]:
    """MLI's mem_stride rules: each stride > 0 ("positive"), the innermost 1 ("inner"), and no dim's rows
    overlapping the next dim's extent ("overlap"). Dims not known as integers are skipped."""
    if strides is None or shape is None or len(strides) != len(shape):
        return []  # a mismatch is reported as <kind>.strides.rank
    problems = [
        TensorProblem(f"strides[{axis}]", "positive", f"stride {stride} of dim {axis} must be > 0")
        for axis, stride in enumerate(strides)
        if stride <= 0
    ]
    if strides and strides[-1] != 1:
        problems.append(
            TensorProblem(
                f"strides[{len(strides) - 1}]",
                "inner",
                f"the innermost stride is {strides[-1]}; it must be 1 (elements of the last dim adjacent)",
            )
        )
    for axis in range(len(strides) - 1):
        inner, dim = strides[axis + 1], shape[axis + 1]
        if isinstance(dim, int) and inner > 0 and strides[axis] > 0 and strides[axis] < dim * inner:
            problems.append(
                TensorProblem(
                    f"strides[{axis}]",
                    "overlap",
                    f"stride {strides[axis]} of dim {axis} is below {dim * inner} (= shape[{axis + 1}] {dim} "
                    f"* stride {inner}), so rows of dim {axis} would overlap",
                )
            )
    return problems


def mli_quant_problems(tensor: Tensor, asymmetric: bool) -> list[TensorProblem]:
    """MLI's element parameters. Asymmetric (sa8, sa32): per-axis when dim >= 0 ("per_axis"); per tensor
    each parameter is one number ("not_scalar"), scale > 0 ("scale"), zero_point fits int16
    ("zero_point"). Parameters of the other format are meaningless there ("ignored")."""
    quant = tensor.quant
    if quant is None:
        return []
    own = ("scale", "zero_point", "scale_frac_bits", "dim") if asymmetric else ("frac_bits",)
    problems = [
        TensorProblem(
            f"quant.{name}", "ignored", f"quant.{name} does not apply to {tensor.dtype}; it is ignored"
        )
        for name in sorted(quant.model_fields_set - set(own))
        if getattr(quant, name) is not None
    ]
    if not asymmetric:
        return problems
    if quant.dim is not None and quant.dim >= 0:
        problems.append(
            TensorProblem("quant.dim", "per_axis", f"quant.dim is {quant.dim}: per-axis quantization")
        )
        return problems
    for name in ("scale", "zero_point", "scale_frac_bits"):
        if isinstance(getattr(quant, name), list):
            problems.append(
                TensorProblem(
                    f"quant.{name}",
                    "not_scalar",
                    f"quant.{name} is a list, but per-tensor quantization has one",
                )
            )
    if isinstance(quant.scale, int | float) and not quant.scale > 0:
        problems.append(
            TensorProblem("quant.scale", "scale", f"quant.scale is {quant.scale}; it must be > 0")
        )
    low, high = INT16_RANGE
    if isinstance(quant.zero_point, int) and not low <= quant.zero_point <= high:
        problems.append(
            TensorProblem(
                "quant.zero_point",
                "zero_point",
                f"quant.zero_point {quant.zero_point} is outside the int16 range [{low}, {high}]",
            )
        )
    return problems
