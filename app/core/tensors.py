"""The tensor descriptor of the wire format: dtype, shape, and optionally data, strides and quant."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from app.core.config import get_settings
from app.core.dtypes import canonical_dtype
from app.core.shapes import Shape, parse_dim

DTypeName = Annotated[
    str,
    BeforeValidator(canonical_dtype),
    Field(
        description="Element type: f32 f16 bf16 f64 s8 u8 s16 u16 s32 u32 s64 u64 boolean sa8 fx16 sa32, "
        "or an OpenVINO / ONNX / NumPy spelling (F32, int64, float16); answered canonically.",
        examples=["f32"],
    ),
]


class Quant(BaseModel):
    """MLI's element parameters: sa8 uses scale, zero_point, scale_frac_bits, dim; fx16 uses frac_bits."""

    model_config = ConfigDict(extra="forbid")

    scale: int | float | list[int | float] | None = None
    zero_point: int | list[int] | None = None
    scale_frac_bits: int | list[int] | None = None
    dim: int | None = Field(None, description="Quantization axis; -1 or absent means per-tensor.")
    frac_bits: int | None = None


class Tensor(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    dtype: DTypeName
    shape: list[int | str | None] | None = Field(
        description="Dims outermost first: integer >= 0; -1, null or '?' for unknown; a symbol such as 'N'. "
        "null for unknown rank.",
        examples=[[2, "N", 4]],
    )
    data: Any = Field(
        None,
        description="Values: nested lists in row-major order (a bare number for rank 0), with 'nan', 'inf', "
        "'-inf' as strings; or {'encoding': 'base64', 'bytes': ...} of little-endian raw values. With "
        "strides, the flat memory buffer.",
    )
    strides: list[int] | None = Field(
        None,
        validation_alias=AliasChoices("strides", "stride", "mem_stride"),
        description="Strides in elements, outermost first (aliases: stride, mem_stride).",
    )
    quant: Quant | None = None

    @field_validator("shape", mode="after")
    @classmethod
    def _dims(cls, shape: list | None) -> Shape | None:
        if shape is None:
            return None
        limit = get_settings().max_rank
        if len(shape) > limit:
            raise ValueError(f"rank {len(shape)} is above the limit of {limit} (max_rank)")
        return tuple(parse_dim(d) for d in shape)

    @model_validator(mode="after")
    def _strides_match_rank(self) -> Tensor:
        if self.strides is not None and self.shape is not None and len(self.strides) != len(self.shape):
            raise ValueError(
                f"strides has {len(self.strides)} entries but shape has rank {len(self.shape)}; "
                "give one stride per dim"
            )
        return self

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)


class TensorType(BaseModel):
    """An inferred or declared output: dtype and shape, with unknown dims written as -1."""

    dtype: str
    shape: list[int | str] | None
