"""oneDNN Graph's `data_format` attribute, written once: which dim of a data tensor is the channel and
which are spatial. NCX: [N, C, X...]; NXC (oneDNN's default): [N, X..., C]."""

from __future__ import annotations

from typing import Any

from app.core.family import Attr, attr

DATA_FORMAT = Attr(
    "data_format",
    "string",
    "Controls how to interpret the shape of src and dst: NCX is [N, C, spatial...], NXC [N, spatial..., C].",
    default="NXC",
    values=("NCX", "NXC"),
)


def channel_axis(data_format: str, rank: int) -> int:
    """The channel dim: 1 under NCX, the last under NXC. A 1-D tensor has only dim 0, which oneDNN 3.13
    takes as the channel under NCX too (measured with PReLU: a [3] slope scales a [3] src element by
    element)."""
    return 1 if data_format == "NCX" and rank > 1 else rank - 1


def channel_of(d: Any, rank: int) -> int:
    """The channel dim of a descriptor's data tensor of `rank`, by its data_format attribute."""
    return channel_axis(attr(d, "data_format"), rank)


def spatial_axes(data_format: str, rank: int) -> list[int]:
    """The spatial dims' axes in order (rank - 2 of them)."""
    return list(range(2, rank)) if data_format == "NCX" else list(range(1, rank - 1))
