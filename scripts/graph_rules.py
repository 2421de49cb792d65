"""Writes the tables of docs/graph-rules.md: every graph rule from app/formats/graph.py RULES, and what
oneDNN did with each kind of mutation in tests/formats/oracle/onednn_mutations.json, with where and why
opspec differs, between the markers `<!-- graph-rules -->` / `<!-- mutations -->` and their `<!-- /... -->`.

    .venv/bin/python scripts/graph_rules.py           # rewrite docs/graph-rules.md
    .venv/bin/python scripts/graph_rules.py --check   # exit 1 when it is out of date

tests/test_graph_rules_doc.py runs the check, so the page cannot fall behind the rules or the record.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "graph-rules.md"
RECORD = ROOT / "tests" / "formats" / "oracle" / "onednn_mutations.json"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_table() -> str:
    sys.path.insert(0, str(ROOT))
    from app.formats.graph import RULES

    lines = ["| rule | severity | what it says | from |", "| --- | --- | --- | --- |"]
    for rule in RULES.values():
        lines.append(f"| `{rule.id}` | {rule.severity} | {_cell(rule.statement)} | {_cell(rule.spec)} |")
    return "\n".join(lines)


def _verdict(answer: dict) -> str:
    if answer["verdict"] == "accepts":
        return "accepts"
    status = (
        re.sub(r":.*", "", answer["status"])
        if answer["status"].startswith("unrepresentable")
        else answer["status"]
    )
    return f"refuses at {answer['stage']} ({status})"


def mutations_table() -> str:
    record = json.loads(RECORD.read_text())
    kinds: dict[str, list[dict]] = {}
    for mutation in record:
        kinds.setdefault(mutation["kind"], []).append(mutation)
    lines = [
        "| change | mutations | oneDNN 3.13 | opspec | where opspec differs, why |",
        "| --- | --- | --- | --- | --- |",
    ]
    for kind, found in kinds.items():
        said = Counter(_verdict(m["onednn"]) for m in found)
        onednn = "; ".join(f"{verdict}: {count}" for verdict, count in sorted(said.items()))
        refused = [m for m in found if m["opspec"]["refuses"]]
        rules = sorted({m["opspec"]["rule"] for m in refused if m["opspec"]["rule"]})
        ours = (
            (f"refuses: {len(refused)}" + (f" (`{'`, `'.join(rules)}`)" if rules else "")) if refused else ""
        )
        if len(refused) < len(found):
            ours += ("; " if ours else "") + f"accepts: {len(found) - len(refused)}"
        reasons = sorted({m["differs"] for m in found if "differs" in m})
        differs = f"{sum('differs' in m for m in found)}: " + " / ".join(reasons) if reasons else ""
        lines.append(f"| `{kind}` | {len(found)} | {onednn} | {ours} | {_cell(differs)} |")
    total = len(record)
    refused = sum(m["onednn"]["verdict"] == "refuses" for m in record)
    differs = sum("differs" in m for m in record)
    files = len({m["file"] for m in record})
    lines.append("")
    lines.append(
        f"{total:,} mutations of {files} of benchdnn's multi-op graphs: oneDNN refuses {refused:,}, accepts "
        f"{total - refused:,}; opspec judges {total - differs:,} as oneDNN does and differs on {differs:,}, each "
        "for the reason in the table."
    )
    return "\n".join(lines)


def render(text: str) -> str:
    for name, table in (("graph-rules", rules_table()), ("mutations", mutations_table())):
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = f"{before}{start}\n{table}\n{end}{after}"
    return text


def main(argv: list[str]) -> int:
    current = DOC.read_text()
    wanted = render(current)
    if "--check" in argv:
        return 0 if current == wanted else 1
    DOC.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
