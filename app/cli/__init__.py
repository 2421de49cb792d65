"""The `opspec` command: `serve` runs the HTTP API, `check` validates descriptor and graph files for CI,
`verify` compares a kernel's outputs with the spec's, `merge` joins the reports of a check's shards,
`rule` explains a rule id from a report."""

from app.cli.command import (
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_MALFORMED,
    EXIT_VALID,
    PROGRESS_MIN_BYTES,
    PROGRESS_MIN_NODES,
    limit_blas_threads,
    main,
    run_check,
    run_verify,
)

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_MALFORMED",
    "EXIT_VALID",
    "PROGRESS_MIN_BYTES",
    "PROGRESS_MIN_NODES",
    "limit_blas_threads",
    "main",
    "run_check",
    "run_verify",
]
