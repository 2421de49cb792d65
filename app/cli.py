"""The `opspec` command: `serve` runs the HTTP API, `check` validates descriptor files for CI.

A thin layer over the library (as httpx's _main.py is over httpx), with exit codes CI can trust:
0 every descriptor is valid, 1 some descriptor breaks a rule, 2 a file is not a descriptor at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.core import engine
from app.core.config import get_settings
from app.core.payload import LimitExceeded
from app.core.shapes import format_shape
from app.ops import BY_NAME, DESCRIPTOR
from app.parsing import describe_errors

EXIT_VALID, EXIT_INVALID, EXIT_MALFORMED = 0, 1, 2


def _descriptors(document: Any) -> list[Any]:
    """A file holds one descriptor, a list of them, or a batch body {"ops": [...]}."""
    if isinstance(document, dict) and "ops" in document and "kind" not in document:
        return list(document["ops"]) if isinstance(document["ops"], list) else [document["ops"]]
    return document if isinstance(document, list) else [document]


def check_document(name: str, document: Any, out: Any, *, as_json: bool) -> int:
    settings = get_settings()
    worst = EXIT_VALID
    results = []
    for index, raw in enumerate(_descriptors(document)):
        where = f"{name}[{index}]"
        try:
            descriptor = DESCRIPTOR.validate_python(raw)
            verdict, _ = engine.check(BY_NAME[descriptor.kind], descriptor, settings)
        except ValidationError as exc:
            worst = EXIT_MALFORMED
            errors = describe_errors(exc.errors())
            results.append({"where": where, "malformed": errors})
            if not as_json:
                for error in errors:
                    print(f"{where}: malformed: {error['path']}: {error['message']}", file=out)
            continue
        except LimitExceeded as exc:
            worst = EXIT_MALFORMED
            results.append({"where": where, "malformed": [{"path": exc.path, "message": exc.message}]})
            if not as_json:
                print(f"{where}: refused: {exc.message}", file=out)
            continue
        if not verdict.valid:
            worst = max(worst, EXIT_INVALID)
        outputs = [
            {
                "dtype": o.dtype,
                "shape": None if o.shape is None else [-1 if d is None else d for d in o.shape],
            }
            for o in verdict.outputs or []
        ]
        results.append(
            {
                "where": where,
                "kind": verdict.kind,
                "valid": verdict.valid,
                "outputs": outputs if verdict.outputs is not None else None,
                "diagnostics": [d.model_dump() for d in verdict.diagnostics],
            }
        )
        if not as_json:
            shapes = (
                ", ".join(f"{o.dtype}{format_shape(o.shape)}" for o in verdict.outputs or []) or "unknown"
            )
            print(f"{where}: {verdict.kind}: {'valid' if verdict.valid else 'INVALID'} -> {shapes}", file=out)
            for d in verdict.diagnostics:
                print(f"  {d.severity} {d.rule} at {d.path}: {d.message}", file=out)
    if as_json:
        json.dump(results, out, indent=2)
        out.write("\n")
    return worst


def _check(args: argparse.Namespace) -> int:
    worst = EXIT_VALID
    for name in args.files:
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text()
            document = json.loads(text)
        except (OSError, json.JSONDecodeError, RecursionError) as exc:
            print(f"{name}: cannot read a JSON descriptor: {exc}", file=sys.stderr)
            worst = EXIT_MALFORMED
            continue
        worst = max(worst, check_document(name, document, sys.stdout, as_json=args.json))
    return worst


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = get_settings()
    # On SIGTERM uvicorn stops accepting, lets in-flight requests finish, then exits; with workers the
    # supervisor passes the signal to each worker and waits for them.
    uvicorn.run(
        "app.main:app",
        host=args.host or settings.host,
        port=args.port if args.port is not None else settings.port,
        workers=args.workers,
        log_level="info",
    )
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="opspec", description="Check tensor-op descriptors against their specs."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP API (and the shape calculator page)")
    serve.add_argument("--host", help="address to bind (default from OPSPEC_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default from OPSPEC_PORT, else 8000)")
    serve.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="worker processes sharing the port (default 1; about one per core the service may use)",
    )
    serve.set_defaults(run=_serve)
    check = commands.add_parser(
        "check",
        help="validate descriptor files; exit 0 all valid, 1 some invalid, 2 some not a descriptor",
    )
    check.add_argument(
        "files", nargs="+", help="JSON files: a descriptor, a list, or {'ops': [...]}; - for stdin"
    )
    check.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    check.set_defaults(run=_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
