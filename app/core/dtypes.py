"""Element types: canonical names, the spellings other toolchains use, and the NumPy type behind each.

MLI's `sa8`, `fx16` and `sa32` are raw two's-complement memory (int8 / int16 / int32); what the
bits mean (scale, zero point, fractional bits) lives in the tensor's `quant`, not in the dtype.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import ml_dtypes
import numpy as np

from app.core.numbers import clip
from app.core.suggest import UnknownName

Category = Literal["float", "signed", "unsigned", "bool", "raw"]


@dataclass(frozen=True)
class DType:
    name: str
    numpy: np.dtype
    category: Category
    # Read several times per payload and per output; a field set once, not a property asked per call.
    itemsize: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "itemsize", self.numpy.itemsize)  # frozen: set once, here

    @property
    def is_float(self) -> bool:
        return self.category == "float"

    @property
    def is_integer(self) -> bool:
        return self.category in ("signed", "unsigned", "raw")

    @property
    def lowest(self) -> int | float:
        """The lowest finite value (not -inf): what an empty LOWEST segment is filled with."""
        if self.category == "bool":
            return False
        if self.is_float:
            return self.numpy.type(ml_dtypes.finfo(self.numpy).min)
        return int(ml_dtypes.iinfo(self.numpy).min)

    @property
    def highest(self) -> int | float:
        if self.category == "bool":
            return True
        if self.is_float:
            return self.numpy.type(ml_dtypes.finfo(self.numpy).max)
        return int(ml_dtypes.iinfo(self.numpy).max)


def _dtype(name: str, numpy_type: type | np.dtype, category: Category) -> DType:
    return DType(name, np.dtype(numpy_type), category)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        _dtype("f32", np.float32, "float"),
        _dtype("f16", np.float16, "float"),
        _dtype("bf16", ml_dtypes.bfloat16, "float"),
        _dtype("f64", np.float64, "float"),
        _dtype("s8", np.int8, "signed"),
        _dtype("u8", np.uint8, "unsigned"),
        _dtype("s16", np.int16, "signed"),
        _dtype("u16", np.uint16, "unsigned"),
        _dtype("s32", np.int32, "signed"),
        _dtype("u32", np.uint32, "unsigned"),
        _dtype("s64", np.int64, "signed"),
        _dtype("u64", np.uint64, "unsigned"),
        _dtype("boolean", np.bool_, "bool"),
        # oneDNN Graph's narrow types: 8-bit floats and 4-bit integers (one element per byte in NumPy
        # and on the wire; oneDNN packs s4 / u4 two to a byte in memory).
        _dtype("f8_e4m3", ml_dtypes.float8_e4m3fn, "float"),
        _dtype("f8_e5m2", ml_dtypes.float8_e5m2, "float"),
        _dtype("s4", ml_dtypes.int4, "signed"),
        _dtype("u4", ml_dtypes.uint4, "unsigned"),
        _dtype("sa8", np.int8, "raw"),
        _dtype("fx16", np.int16, "raw"),
        _dtype("sa32", np.int32, "raw"),
    )
}

# Other toolchains' spellings, matched case-insensitively. OpenVINO: f32/i64/FP16/boolean; ONNX:
# float/int64/bfloat16/bool; NumPy: float32/int64/bool_; oneDNN already uses the canonical names.
_ALIASES: dict[str, str] = {
    "fp32": "f32", "float": "f32", "float32": "f32",
    "fp16": "f16", "half": "f16", "float16": "f16",
    "bfloat16": "bf16",
    "fp64": "f64", "double": "f64", "float64": "f64",
    "i8": "s8", "int8": "s8",
    "uint8": "u8",
    "i16": "s16", "int16": "s16",
    "uint16": "u16",
    "i32": "s32", "int32": "s32",
    "uint32": "u32",
    "i64": "s64", "int64": "s64",
    "uint64": "u64",
    "bool": "boolean", "bool_": "boolean",
}  # fmt: skip
_LOOKUP: dict[str, str] = {name.lower(): name for name in DTYPES} | _ALIASES


def _any_case(name: str) -> str:
    return "".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in name)


# Every accepted spelling, in any case, as a JSON-schema pattern: the schema says what is accepted.
DTYPE_PATTERN = "^(?:" + "|".join(_any_case(name) for name in sorted(_LOOKUP)) + ")$"

# Named groups, as JAX names its dtype classes, so an op's dtype table reads as data.
FLOATS = frozenset({"f32", "f16", "bf16", "f64"})
SIGNED = frozenset({"s8", "s16", "s32", "s64"})
UNSIGNED = frozenset({"u8", "u16", "u32", "u64"})
F8 = frozenset({"f8_e4m3", "f8_e5m2"})  # oneDNN Graph's 8-bit floats
INT4 = frozenset({"s4", "u4"})  # and 4-bit integers
NUMERIC = FLOATS | SIGNED | UNSIGNED
INDEX = frozenset({"s32", "s64"})


def canonical_dtype(name: str) -> str:
    """The canonical name for any accepted spelling; ValueError names the accepted ones."""
    found = _LOOKUP.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        raise UnknownName(
            f"unknown dtype {clip(repr(name))}",
            f"expected one of {', '.join(DTYPES)} "
            "(OpenVINO, ONNX and NumPy spellings such as F32, int64, float16 are accepted too)",
            name,
            _LOOKUP,  # a near spelling suggests its canonical name: flaot32 -> f32
        )
    return found


def dtype(name: str) -> DType:
    return DTYPES[canonical_dtype(name)]


def describe(names: frozenset[str] | set[str]) -> str:
    """A stable, readable listing of a dtype group for messages: in DTYPES order."""
    return ", ".join(n for n in DTYPES if n in names)
