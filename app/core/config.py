"""All settings in one place, read from OPSPEC_* environment variables.

A pydantic model that reads its fields from the environment itself, as pydantic-settings' BaseSettings
did (names in any case, list fields as JSON, arguments over the environment): importing
pydantic-settings cost every `opspec` command a third of its start-up (~0.3 s of CPU here) for this.
"""

import json
import os
import sys
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ENV_PREFIX = "OPSPEC_"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, given: Any) -> Any:
        """OPSPEC_<NAME> for each field not given as an argument; a list field's value is JSON (left as
        text when it is not, so the field's own error names it)."""
        if not isinstance(given, dict):
            return given
        found = {
            key.upper(): value for key, value in os.environ.items() if key.upper().startswith(ENV_PREFIX)
        }
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            text = found.get(ENV_PREFIX + name.upper())
            if text is None:
                continue
            if getattr(field.annotation, "__origin__", None) is list:
                try:
                    values[name] = json.loads(text)
                except ValueError:
                    values[name] = text
            else:
                values[name] = text
        return {**values, **given}

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
    max_batch: int = Field(100_000, ge=1, description="Most descriptors in one batch request.")
    inline_body_bytes: int = Field(
        16 << 10,
        ge=0,
        description="Bodies up to this size are parsed and checked on the event loop (the thread-pool hop "
        "costs more than they do); larger ones, validations that carry data and evaluations over "
        "inline_elements are handled in the thread pool.",
    )
    inline_elements: int = Field(
        4096,
        ge=0,
        description="An evaluation whose body is within inline_body_bytes runs on the event loop when its "
        "inputs and outputs hold at most this many elements in all (the thread-pool hop costs more than "
        "it does); a larger one, or one whose output size is not known, runs in the thread pool. Counted "
        "in elements, not body bytes: broadcasting makes large outputs from small bodies.",
    )
    body_timeout: float = Field(
        30.0, gt=0, description="Seconds a request body may take to arrive; a slower one gets 408."
    )
    header_timeout: float = Field(
        10.0,
        gt=0,
        description="Seconds `opspec serve` waits for a request's headers (from the connection's start or "
        "the previous answer) before it closes the connection.",
    )
    keepalive_timeout: int = Field(
        5, ge=1, description="Seconds `opspec serve` keeps an idle connection open for another request."
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins whose pages may call the API from a browser (CORS), as a JSON list: "
        "OPSPEC_CORS_ORIGINS='[\"https://example.org\"]'. Empty (the default) allows none.",
    )
    busy_threads: int = Field(
        1,
        ge=1,
        description="Large requests (bodies over inline_body_bytes, payloads, evaluations, batches) worked "
        "on at once, each in a thread; the rest wait their turn. They hold the GIL most of the time, so "
        "more threads only queue beside the event loop and slow every other answer.",
    )
    switch_interval: float = Field(
        0.001,
        gt=0,
        description="`opspec serve` sets Python's thread switch interval (seconds; Python's default is "
        "0.005): shorter keeps the event loop answering while large bodies are worked on in threads.",
    )
    access_log: bool = Field(True, description="One JSON line per request on stderr.")
    opentelemetry: bool = Field(
        False,
        description="FastAPI's own OpenTelemetry traces, metrics and logs, sent to the providers a process "
        "configures (as `opentelemetry-instrument opspec serve` does). Off, FastAPI does not look for "
        "providers on every request (about 3 us each); the Prometheus metrics at /metrics are on either way.",
    )
    hot_routes: bool = Field(
        True,
        description="Answer POST /v1/validate and /v1/evaluate without FastAPI's routing (app/api/hot.py): "
        "the same answers for less time per request. Off, FastAPI's routes answer them.",
    )
    max_diagnostics: int = Field(
        100,
        ge=1,
        description="Most diagnostics listed for one descriptor (and errors in one problem body); past it, "
        "one summary per rule says how many more there are.",
    )
    max_graph_bytes: int = Field(
        64 << 20, ge=1, description="Largest graph file (oneDNN JSON, OpenVINO IR with weights, ONNX) read."
    )
    max_graph_nodes: int = Field(100_000, ge=1, description="Most nodes one graph file may hold.")
    max_graph_depth: int = Field(
        64, ge=1, description="Deepest nesting of JSON or XML a graph file may have."
    )
    graph_path: Literal["plain", "reference"] = Field(
        "plain",
        description="How graph files are read and their nodes checked: `plain` reads them into plain structs "
        "(msgspec) and checks each node's descriptor as such, parsing one with pydantic only to explain "
        "a fault in it; `reference` is the path before it (a pydantic model per node), kept as the reference "
        "the plain path is held to (tests/formats/test_graph_paths.py). Both give the same answers.",
    )
    docs_url: str = Field(
        "https://opspec.github.io/opspec/",
        pattern=r"^https?://\S+$",
        description="The docs site that rule links point into: SARIF's helpUri, `opspec rule`, GET /v1/rules "
        "and the page's rule ids. The project's site by default (pyproject.toml's Documentation URL); "
        "set it to where you serve `make docs`' site/ for a copy that matches your version.",
    )


@lru_cache
def get_settings() -> Settings:
    return Settings()


# What the service bounds because a client sends it, and a file on the user's own disk is bounded by the
# machine instead: the file's size is known before it is read, and what checking it holds grows with that
# size (its bytes, its nodes), so a larger file asks for more memory in proportion, never by surprise.
# What stays bounded for files too: what a few bytes can make huge or deep, which no size limit catches
# (a graph's nesting, max_graph_depth: recursion; an evaluation's elements, bytes and steps, which a
# declared shape or a broadcast sets, not the file; XML entities and ONNX external data are refused by
# the readers), and what a report holds (max_diagnostics).
FILE_SIZE_LIMITS = ("max_body_bytes", "max_graph_bytes", "max_graph_nodes")
NO_LIMIT = sys.maxsize


def for_local_files(settings: Settings) -> Settings:
    """The settings a file on the user's own disk is checked under (`opspec check`, `check_graph` of a
    path): FILE_SIZE_LIMITS lifted, except those the user set (OPSPEC_MAX_GRAPH_BYTES bounds local
    files too when it is given)."""
    lifted = {name: NO_LIMIT for name in FILE_SIZE_LIMITS if name not in settings.model_fields_set}
    return settings.model_copy(update=lifted) if lifted else settings
