"""Start-up of the `opspec` command, against `python -c pass` in the same run: `opspec --version`,
`opspec check --help` and `opspec check` of one small descriptor file, each a fresh process, taking
turns with the baseline (so a burst of load hits all alike). Prints the median wall time and CPU time
(user + system, of the child) of each and its excess over the baseline, against the goal of 0.3 s.
Then `opspec check` of one small ONNX model against `python -c "import onnx, numpy"`, taking turns in
the same rounds (issue 30: a user's first impression, and most of the cost of a small model): the
difference and the ratio of the medians, against the goal of at most 0.15 s over. Asserts nothing.

Byte code: pip compiles every module at install, so a user's `opspec` never compiles Python source at
start-up. This machine sets PYTHONDONTWRITEBYTECODE=1 (and uv installs without byte code), which made
every start-up compile ~970 modules (~1 s of CPU): the children here run with the variable unset and
their byte code cached under a temporary PYTHONPYCACHEPREFIX, warmed by one run of each command first.

    .venv/bin/python bench/bench_startup.py [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.formats.models' ONNX model

GOAL = 0.3
ONNX_GOAL = 0.15  # s over importing onnx and numpy
OPSPEC = str(Path(sys.executable).with_name("opspec"))


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        descriptor = Path(folder, "one.json")
        descriptor.write_text(
            json.dumps(
                {"kind": "ReduceMax", "attrs": {"axes": [1]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
            )
        )
        model = Path(folder, "one.onnx")
        model.write_bytes(one_onnx())
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "opspec --version": [OPSPEC, "--version"],
            "opspec check --help": [OPSPEC, "check", "--help"],
            "opspec check one.json": [OPSPEC, "check", str(descriptor)],
            "import onnx, numpy": [sys.executable, "-c", "import onnx, numpy"],
            "opspec check one.onnx": [OPSPEC, "check", str(model)],
        }
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder, "pycache"))
        for command in commands.values():  # warm the byte code cache
            timed(command, env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, command in commands.items():
                times[name].append(timed(command, env))
    base_wall = median([wall for wall, _ in times["python -c pass"]])
    base_cpu = median([cpu for _, cpu in times["python -c pass"]])
    print(f"median of {runs} runs each, taking turns; load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':24} {'wall s':>7} {'+ wall':>7} {'CPU s':>7} {'+ CPU':>7}  goal: + {GOAL} s")
    for name, pairs in times.items():
        wall, cpu = median([w for w, _ in pairs]), median([c for _, c in pairs])
        mark = "" if not name.startswith("opspec") else ("  within" if cpu - base_cpu <= GOAL else "  OVER")
        print(f"{name:24} {wall:7.3f} {wall - base_wall:+7.3f} {cpu:7.3f} {cpu - base_cpu:+7.3f}{mark}")
    onnx_wall, onnx_cpu = (median([t[i] for t in times["import onnx, numpy"]]) for i in (0, 1))
    check_wall, check_cpu = (median([t[i] for t in times["opspec check one.onnx"]]) for i in (0, 1))
    over = check_cpu - onnx_cpu
    print(
        f"opspec check one.onnx over python -c 'import onnx, numpy': +{over:.3f} s CPU "
        f"({check_cpu / onnx_cpu:.2f}x), +{check_wall - onnx_wall:.3f} s wall ({check_wall / onnx_wall:.2f}x); "
        f"goal at most +{ONNX_GOAL} s: {'met' if over <= ONNX_GOAL else 'MISSED'}"
    )


def one_onnx() -> bytes:
    """A small model as exported: ReduceMax then Max on [N, 3] (no value_info)."""
    from tests.formats.models import reduce_then_max

    return reduce_then_max().SerializeToString()


if __name__ == "__main__":
    main()
