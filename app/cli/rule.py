"""`opspec rule`: a rule id explained from the rule book (app/reference/): what it says, where it comes
from, an example that breaks it and the fix."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.report.model import EXIT_MALFORMED, EXIT_VALID

RULE_HELP = """\
RULE_ID is an id from a finding (ReduceMax.axes.range, Max.C1, graph.edge). Prints what the rule says,
its severity, where in the spec it comes from, its op, a descriptor that breaks it with what opspec
answers, the change that fixes it, and the rule's page in the docs (OPSPEC_DOCS_URL).

exit codes:
  0  the rule was found (a former id, such as Max's bare C1, is read as the id it became)
  2  no rule has that id: the closest ids are named
"""


def run(args: argparse.Namespace) -> int:
    import json

    from app import reference
    from app.core.config import get_settings

    docs_url = get_settings().docs_url
    if args.list:
        if args.format == "json":
            entries = [reference.describe(entry, docs_url) for entry in reference.book().values()]
            print(json.dumps(entries, indent=2, ensure_ascii=False))
        else:
            print("\n".join(reference.book()))
        return EXIT_VALID
    if args.id is None:
        args.parser.error("give a rule id, or --list")
    entry, former = reference.lookup(args.id)
    if entry is None:
        hint = suggest_hint(reference.closest(args.id))
        print(
            f"opspec rule: no rule has the id {args.id!r}; {hint}(opspec rule --list lists every id)",
            file=sys.stderr,
        )
        return EXIT_MALFORMED
    if former is not None:
        print(
            f"opspec rule: {former} is the former id of {entry.id} (a rule id names its op first)",
            file=sys.stderr,
        )
    answer = reference.describe(entry, docs_url)
    if args.format == "json":
        print(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        print(rule_text(answer))
    return EXIT_VALID


def suggest_hint(suggestions: list[str]) -> str:
    from app.core.suggest import did_you_mean

    hint = did_you_mean(suggestions)
    return f"{hint} " if hint else ""


NO_EXAMPLE = {
    True: "No example: no case in specs/, and no single change of a valid one, breaks this rule.",
    False: "No example here: the rule is about a whole file, not a descriptor.",
}


def rule_text(rule: dict[str, Any]) -> str:
    """A rule as `opspec rule` prints it: the rule, then its example and the fix."""
    import json

    lines = [f"{rule['id']} ({rule['severity']})", f"  {rule['statement']}"]
    if rule["op"]:
        lines.append(f"  op:    {rule['op']}")
    lines.append(f"  spec:  {rule['spec'] or '(opspec itself)'}")
    if rule["status"]:
        lines.append(f"  status from the reference implementation: {rule['status']}")
    if rule["former_id"]:
        lines.append(f"  formerly: {rule['former_id']} (still read by --ignore, with a warning)")
    lines.append(f"  docs:  {rule['url']}")
    example = rule["example"]
    if example is None:
        lines += ["", NO_EXAMPLE[rule["op"] is not None]]
        return "\n".join(lines)
    lines += [
        "",
        f"Example ({example['source']}):",
        f"  {json.dumps(example['descriptor'], ensure_ascii=False)}",
    ]
    lines += [f"  {f['severity']} {f['rule']} at {f['path']}: {f['message']}" for f in example["findings"]]
    lines += ["", f"Fix: {example['fix']}", f"  {json.dumps(example['fixed'], ensure_ascii=False)}"]
    return "\n".join(lines)
