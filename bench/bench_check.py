"""`opspec check DIR --format sarif` on 10,000 descriptor files (every op's examples, 30% made invalid),
against a baseline that only reads and json-parses the same files, both as fresh processes (so both pay
Python's start-up), timed in turns in one run. Prints files/s and the ratio; asserts nothing.
Goal (issue 9): the 10,000 files in under 5 s on the 2-core build machine.

    .venv/bin/python bench/bench_check.py [--files 10000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ops import REGISTRY
from bench.timing import race

BASELINE = """
import json, os, sys
for folder, _, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as f:
                json.loads(f.read())
"""


def broken(descriptor: dict, which: int) -> dict:
    """The same descriptor made invalid in one of three ways an edit goes wrong."""
    bad = copy.deepcopy(descriptor)
    if which == 0:
        bad["outputs"] = [{"dtype": bad["inputs"][0]["dtype"], "shape": [999]}]  # declared output wrong
    elif which == 1:
        bad["inputs"] = bad["inputs"][:1] * 5  # arity (Max takes them all: then its outputs are off)
        bad["outputs"] = [{"dtype": "f32", "shape": [7, 7, 7, 7]}]
    elif bad["kind"] == "ReduceMax":
        bad["attrs"]["axes"] = [9]  # out of range
    elif "axis" in bad.get("attrs", {}):
        bad["attrs"]["axis"] = 9
    else:
        bad["inputs"][-1]["dtype"] = "f64"  # a dtype the port does not take
    return bad


def make_tree(root: Path, count: int) -> None:
    examples = [example for spec in REGISTRY.values() for example in spec.examples]
    for index in range(count):
        descriptor = examples[index % len(examples)]
        if index % 10 < 3:
            descriptor = broken(descriptor, index % 3)
        folder = root / f"part{index % 20:02d}"
        folder.mkdir(exist_ok=True)
        (folder / f"op{index:05d}.json").write_text(json.dumps(descriptor, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    opspec = Path(sys.executable).with_name("opspec")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp, "descriptors")
        root.mkdir()
        make_tree(root, args.files)
        report = Path(temp, "report.sarif")
        # An installed opspec starts from compiled bytecode (pip writes it); with
        # PYTHONDONTWRITEBYTECODE set, every run here would compile the sources again.
        env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}

        def check() -> None:
            done = subprocess.run(
                [opspec, "check", str(root), "--format", "sarif", "-o", str(report)],
                capture_output=True,
                check=False,
                env=env,
            )
            assert done.returncode == 1, done.stderr.decode()

        check()  # warm-up: bytecode written, files in the page cache, for both contenders

        def baseline() -> None:
            subprocess.run([sys.executable, "-c", BASELINE, str(root)], check=True)

        ours, theirs = race(args.repeats, check, baseline)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        check()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        results = json.loads(report.read_text())["runs"][0]["results"]
    print(f"{args.files:,} files, {len(results):,} SARIF results; best of {args.repeats}")
    print(f"  opspec check --format sarif  {ours:6.2f} s  {args.files / ours:8,.0f} files/s")
    print(f"  (one more check run took {cpu:.2f} s of CPU: the figure least moved by other load)")
    print(f"  read + json.loads only       {theirs:6.2f} s  {args.files / theirs:8,.0f} files/s")
    print(
        f"  check / baseline: {ours / theirs:.1f}x; goal: {args.files:,} files in under 5 s: "
        f"{'met' if ours < 5 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
