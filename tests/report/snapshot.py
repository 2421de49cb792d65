"""Rendering a report in each format and comparing it with its snapshot file, for every run's writer tests.

After a deliberate change: OPSPEC_UPDATE_SNAPSHOTS=1 pytest <the tests>, then read the diff.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from app.report import FORMATS, WRITERS
from app.report.model import RunReport

SUFFIX = {row.name: row.suffix for row in FORMATS}


def render(report: RunReport, name: str) -> str:
    out = io.StringIO()
    WRITERS[name](report, out)
    return out.getvalue()


def assert_matches(report: RunReport, name: str, directory: Path) -> None:
    snapshot = directory / f"{name}.{SUFFIX[name]}"
    got = render(report, name)
    if os.environ.get("OPSPEC_UPDATE_SNAPSHOTS"):
        directory.mkdir(exist_ok=True)
        snapshot.write_text(got, encoding="utf-8")
    assert got == snapshot.read_text(encoding="utf-8")
