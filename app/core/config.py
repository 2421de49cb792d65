"""All settings in one place, read from OPSPEC_* environment variables (pydantic-settings)."""

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OPSPEC_")

    host: str = Field("127.0.0.1", description="Address `opspec serve` binds to.")
    port: int = Field(8000, ge=0, le=65535, description="Port `opspec serve` listens on.")
    max_body_bytes: int = Field(32 << 20, ge=1, description="Largest request body; larger gets 413.")
    max_elements: int = Field(1 << 24, ge=1, description="Most elements in one tensor's payload or output.")
    max_total_bytes: int = Field(
        256 << 20,
        ge=1,
        description="Most bytes one evaluation may hold in decoded inputs and outputs together.",
    )
    max_rank: int = Field(16, ge=1, description="Highest rank a tensor may declare.")
    max_kernel_steps: int = Field(
        10_000_000,
        ge=1,
        description="Most sequential steps one evaluation may take (Argmax's tie order is a heap walked one "
        "step at a time); a request over it is refused before it runs.",
    )
    max_batch: int = Field(1024, ge=1, description="Most descriptors in one batch request.")
    max_graph_bytes: int = Field(
        64 << 20, ge=1, description="Largest graph file (oneDNN JSON, OpenVINO IR with weights, ONNX) read."
    )
    max_graph_nodes: int = Field(100_000, ge=1, description="Most nodes one graph file may hold.")
    max_graph_depth: int = Field(
        64, ge=1, description="Deepest nesting of JSON or XML a graph file may have."
    )


@lru_cache
def get_settings() -> Settings:
    return Settings()
