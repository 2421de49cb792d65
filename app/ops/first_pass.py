"""msgspec's first pass over descriptor JSON, for what a compiler sends in bulk: ReduceMax and Max
descriptors whose tensors give a dtype, a shape and at most base64 data.

pydantic's pass costs twice the check it feeds: a model per descriptor, attribute set and tensor, with
Python validators per field. msgspec decodes this subset of the wire format in C into plain structs
that hold what those models hold (the same field names, values and defaults) and that the check reads
the same way. Each value goes through the same rules as in the models: canonical_dtype, the rank limit
(tensors.check_rank), parse_dim's dims (their ranges and lengths as msgspec constraints, checked in C;
a string's symbol by parse_dim's SYMBOL, an expression by app/core/dims.py into its canonical form)
and the int64 range of axes (a constraint); the tensors
answer rank and strides_fit by Tensor's own mixin (RankAndStrides). Whatever falls outside (another
op, another field, a value a rule refuses, a repeated kind, JSON msgspec cannot read) answers None,
and pydantic parses the text as before, with every error and its path. tests/ops/test_first_pass.py holds
the two to the same values, verdicts and evaluations.

A module of its own beside reduce_max.py and max.py, not in them: importing msgspec costs ~14 ms, which
every `opspec check` would pay with the registry; only the service's routes import this.
"""

from __future__ import annotations

import functools
from typing import Annotated, ClassVar, cast

import msgspec

from app.core import dims
from app.core.dtypes import canonical_dtype
from app.core.numbers import INT64_MAX, INT64_MIN
from app.core.registry import Descriptor
from app.core.shapes import EXPR_CHARS, SYMBOL, SYMBOL_CHARS
from app.core.tensors import RankAndStrides, check_rank

# A dim as parse_dim takes it: an int in [-1, INT64_MAX] (-1 unknown) or a string of at most EXPR_CHARS
# characters, checked by msgspec in C, the string then "?", a symbol or an expression (PlainTensor
# checks: msgspec's own pattern check took half of a batch descriptor's decoding), or null. Anything
# else, a dim parse_dim refuses included, leaves the descriptor to pydantic, which names it.
WireDim = (
    Annotated[int, msgspec.Meta(ge=-1, le=INT64_MAX)]
    | Annotated[str, msgspec.Meta(max_length=EXPR_CHARS)]
    | None
)


@functools.lru_cache(maxsize=4096)  # a model's few symbols (N, C, H, W) come back in every descriptor
def _unknown_or_symbol(text: str) -> bool:
    return text == "?" or (SYMBOL.match(text) is not None and len(text) <= SYMBOL_CHARS)


def _expression(text: str) -> int | str:
    """An expression's canonical form (dims.parse keeps the texts it read); ValueError sends the
    descriptor to pydantic, which names the fault."""
    if SYMBOL.match(text):  # a symbol too long for a symbol
        raise ValueError("not a dim")
    return dims.parse(text)


Int64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]


class PlainTensor(RankAndStrides, msgspec.Struct, forbid_unknown_fields=True):
    dtype: str
    shape: list[WireDim] | None  # required, as in Tensor (null: rank unknown); a tuple once built
    # An object of strings only (base64's {"encoding", "bytes"}): the dict pydantic's Any gives for it,
    # checked by the same payload rules. Numbers are left to pydantic's own JSON parser.
    data: dict[str, str] | None = None
    strides: ClassVar[None] = None  # the fields Tensor has and this pass never takes
    quant: ClassVar[None] = None

    def __post_init__(self) -> None:
        self.dtype = canonical_dtype(self.dtype)
        shape = self.shape
        if shape is not None:
            check_rank(shape)
            for dim in shape:
                if type(dim) is str and not _unknown_or_symbol(dim):
                    shape = [
                        _expression(d) if type(d) is str and not _unknown_or_symbol(d) else d for d in shape
                    ]
                    break  # in canonical form, as parse_dim gives them
            # the dims are parse_dim's already, but for the two spellings of unknown
            if -1 in shape or "?" in shape:
                self.shape = tuple([None if d == -1 or d == "?" else d for d in shape])  # type: ignore[assignment]
            else:
                self.shape = tuple(shape)  # type: ignore[assignment]


class PlainReduceMaxAttrs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    axes: list[Int64] = msgspec.field(default_factory=list)
    keep_dims: bool = False  # JSON's true and false only, as StrictBool


class PlainMaxAttrs(msgspec.Struct, forbid_unknown_fields=True):
    """Max has no attributes: any name given sends the descriptor to pydantic's error."""


# A tag, not a field: a repeated "kind" key is an error here (pydantic reads the last), so pydantic answers.
class PlainReduceMax(
    msgspec.Struct, tag_field="kind", tag="ReduceMax", forbid_unknown_fields=True, kw_only=True
):
    kind: ClassVar[str] = "ReduceMax"
    inputs: list[PlainTensor]
    attrs: PlainReduceMaxAttrs = msgspec.field(default_factory=PlainReduceMaxAttrs)
    outputs: list[PlainTensor] | None = None


class PlainMax(msgspec.Struct, tag_field="kind", tag="Max", forbid_unknown_fields=True, kw_only=True):
    kind: ClassVar[str] = "Max"
    inputs: list[PlainTensor]
    attrs: PlainMaxAttrs = msgspec.field(default_factory=PlainMaxAttrs)
    outputs: list[PlainTensor] | None = None


class _Batch(msgspec.Struct):  # BatchRequest's shape; other keys are ignored, as BatchRequest ignores them
    ops: list[PlainReduceMax | PlainMax]


_ONE = msgspec.json.Decoder(PlainReduceMax | PlainMax)
_MANY = msgspec.json.Decoder(_Batch)
# A rule's ValueError arrives as ValidationError. A string whose bytes are not UTF-8 raises
# UnicodeDecodeError, outside msgspec's own errors: pydantic answers it as the 422 it always was.
_REFUSED = (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError)


def descriptor(text: bytes) -> Descriptor | None:
    """The descriptor as the check reads it, or None: let pydantic parse the text."""
    try:
        return cast(Descriptor, _ONE.decode(text))  # read by the check as the Descriptor it stands for
    except _REFUSED:
        return None


def batch(body: bytes) -> list[Descriptor] | None:
    """The batch's descriptors as the check reads them, or None when any one is outside this pass."""
    try:
        return cast(list[Descriptor], _MANY.decode(body).ops)
    except _REFUSED:
        return None
