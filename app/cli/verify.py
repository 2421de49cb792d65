"""`opspec verify`: each case's outputs against the spec's kernel, bit for bit (app/core/verify.py)."""

from __future__ import annotations

import argparse

from app.cli import files
from app.cli.output import emit, version
from app.report.model import RunReport

VERIFY_HELP = """\
Each FILE holds a descriptor (a list of them, or {"ops": [...]}) whose inputs carry data and whose
outputs carry the implementation's answer as data. Or give --descriptor with --inputs and --outputs:
.npz files (numpy.savez; read with allow_pickle off) whose arrays bind to ports by name (src, data,
segment_ids, X1, X2, in, dst, output, Y, out ...) or else in order.

exit codes:
  0  every output is conformant: the spec's answer, bit for bit (NaN payloads aside)
  1  some element differs (or a descriptor breaks a rule; with --strict, a warning)
  2  some input could not be read or compared (no data, a limit crossed; the worst case wins)
"""


def run_verify(args: argparse.Namespace) -> RunReport:
    from app.core.config import get_settings
    from app.formats import verify_cases

    report = RunReport(
        version=version(),
        strict=args.strict,
        command="verify",
        unit_noun="cases",
        docs_url=get_settings().docs_url,
    )
    if args.descriptor is not None:
        report.add(verify_cases.read_npz(args.descriptor, args.inputs, args.outputs))
    for source in files.sources(files.find(args.files), get_settings()):
        report.add(verify_cases.read(source))
    return report


def run(args: argparse.Namespace) -> int:
    if args.descriptor is None and not args.files:
        args.parser.error("give case files, or --descriptor with --inputs and --outputs")
    if args.descriptor is not None and (args.inputs is None or args.outputs is None):
        args.parser.error("--descriptor needs --inputs and --outputs (.npz files)")
    return emit(run_verify(args), args)
