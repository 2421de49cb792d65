"""`python -m app.reference`: write app/reference/examples.json from specs/ and the registry (run it after
a rule or a spec case changes; tests/reference/test_examples.py says when). `--check` exits 1 where the
file differs from what would be written."""

from __future__ import annotations

import sys

from app.reference import examples


def main(argv: list[str]) -> int:
    found, passing, crashes = examples.find()
    for crash in crashes:  # a bug in the checker, shown by a change the examples tried
        print(f"the checker raised: {crash}", file=sys.stderr)
    text = examples.dump(found, passing)
    if "--check" in argv:
        if examples.DATA.read_text(encoding="utf-8") != text:
            print("app/reference/examples.json is out of date: run .venv/bin/python -m app.reference")
            return 1
        return 0
    examples.DATA.write_text(text, encoding="utf-8")
    print(f"{examples.DATA}: {len(found)} rules with an example, {sum(map(len, passing.values()))} passing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
