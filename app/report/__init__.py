"""Reports: the model every run fills (model.py) and one writer per output format.

Each writer is `write(report: RunReport, out: TextIO)`; whatever run built the report (check, verify,
a graph check), every format renders it. A new format is one module and one line below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from app.report import gcc, github, junit, sarif, text
from app.report import json as json_report
from app.report.model import RunReport

Writer = Callable[[RunReport, TextIO], None]

WRITERS: dict[str, Writer] = {
    "text": text.write,
    "json": json_report.write,
    "junit": junit.write,
    "sarif": sarif.write,
    "github": github.write,
    "gcc": gcc.write,
}
