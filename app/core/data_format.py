"""oneDNN Graph's `data_format` attribute, written once: which dim of a data tensor is the channel and
which are spatial. NCX: [N, C, X...]; NXC (oneDNN's default): [N, X..., C]."""

from __future__ import annotations

from app.core.family import Attr

DATA_FORMAT = Attr(
    "data_format",
    "string",
    "Controls how to interpret the shape of src and dst: NCX is [N, C, spatial...], NXC [N, spatial..., C].",
    default="NXC",
    values=("NCX", "NXC"),
)


def channel_axis(data_format: str, rank: int) -> int:
    return 1 if data_format == "NCX" else rank - 1


def spatial_axes(data_format: str, rank: int) -> list[int]:
    """The spatial dims' axes in order (rank - 2 of them)."""
    return list(range(2, rank)) if data_format == "NCX" else list(range(1, rank - 1))
