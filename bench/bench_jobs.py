"""`opspec check --jobs 2` against `--jobs 1` (issue 30): on a zoo of 2,000 small graph files in the
three formats (bench/zoo.py, seed 0; goal: at least 1.6x faster) and on the 283 oneDNN benchdnn graph
files (goal: not slower). For each, the wall time of `opspec check FOLDER --format json -o FILE` as a
fresh process, taking turns, the median of each, their ratio against the goal, and whether the two
reports are byte-identical. Then where the time goes: the start-up every run pays before it checks a
file (the imports, timed as a process of its own), and the check alone, in this process, with one and
two workers. Prints figures; asserts nothing.

Byte code as a user's install has it (pip compiles every module; this machine sets
PYTHONDONTWRITEBYTECODE=1 and uv installs none): the children run with the variable unset and their
byte code cached under a temporary PYTHONPYCACHEPREFIX, warmed by a run of each command first, as
bench_startup.py does.

    .venv/bin/python bench/bench_jobs.py [--runs 5] [--only zoo|benchdnn]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_startup import median, timed
from bench.timing import verdict
from bench.zoo import write_zoo

ROOT = Path(__file__).resolve().parent.parent
BENCHDNN = ROOT / "tests" / "formats" / "files" / "benchdnn"
ZOO_FILES = 2000
GOALS = {"zoo": 1.6, "benchdnn": 1.0}  # --jobs 2 at least this many times as fast as --jobs 1
OPSPEC = str(Path(sys.executable).with_name("opspec"))
# The imports a check needs, after the set-up `opspec` does before any of them (one OpenBLAS thread): so
# the start-up's CPU is the command's own, not OpenBLAS's spinning pool, which the command never starts.
IMPORTS = {
    "benchdnn": "import app.cli.command; app.cli.command.limit_blas_threads(); import app.formats.graphs, app.formats.onednn; "
    "app.core.config.get_settings()",
    "zoo": "import app.cli.command; app.cli.command.limit_blas_threads(); import app.formats.graphs, app.formats.onednn, "
    "app.formats.onnx, app.formats.openvino; app.core.config.get_settings()",
}


def cpu_now() -> tuple[float, float]:
    """CPU seconds (user + system) so far of this process, and of its reaped children (the workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def in_process(folder: Path, runs: int) -> dict[int, tuple[float, float, float]]:
    """The check alone (walk, read, check, merge; no start-up, no writing) with one and two workers,
    taking turns: median wall, and median CPU of this process and of its workers."""
    from app.cli.check import run_check

    run_check([str(folder)])  # imports and lazy set-up out of the way
    times: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
    for _ in range(runs):
        for jobs in times:
            (own, children), start = cpu_now(), time.perf_counter()
            run_check([str(folder)], jobs=jobs)
            wall, (own_after, children_after) = time.perf_counter() - start, cpu_now()
            times[jobs].append((wall, own_after - own, children_after - children))
    return {jobs: tuple(median([t[i] for t in rows]) for i in range(3)) for jobs, rows in times.items()}


def race(name: str, folder: Path, runs: int, scratch: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    outputs = {jobs: str(scratch / f"{name}-jobs{jobs}.json") for jobs in (1, 2)}
    commands: dict[object, list[str]] = {
        jobs: [OPSPEC, "check", str(folder), "--format", "json", "-o", outputs[jobs], "--jobs", str(jobs)]
        for jobs in (1, 2)
    }
    commands["imports"] = [sys.executable, "-c", IMPORTS[name]]
    commands["python"] = [sys.executable, "-c", "pass"]
    for command in commands.values():  # warm the byte code cache
        timed(command, env)
    identical = Path(outputs[1]).read_bytes() == Path(outputs[2]).read_bytes()
    times: dict[object, list[tuple[float, float]]] = {key: [] for key in commands}
    load_before = os.getloadavg()[0]
    for _ in range(runs):
        for key, command in commands.items():
            times[key].append(timed(command, env))
    load_after = os.getloadavg()[0]
    wall = {key: median([w for w, _ in pairs]) for key, pairs in times.items()}
    cpu = {key: median([c for _, c in pairs]) for key, pairs in times.items()}
    ratio, goal = wall[1] / wall[2], GOALS[name]
    shown = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else f"{name} of {ZOO_FILES:,} files"
    print(
        f"== {name}: opspec check {shown} --format json -o FILE: median of {runs} fresh processes each, "
        f"taking turns; load average {load_before:.1f} before, {load_after:.1f} after ({os.cpu_count()} cores)"
    )
    print(f"{'':28} {'wall s':>7} {'CPU s':>7}")
    print(f"{'--jobs 1':28} {wall[1]:7.3f} {cpu[1]:7.3f}")
    print(f"{'--jobs 2':28} {wall[2]:7.3f} {cpu[2]:7.3f}")
    print(f"{'python -c pass':28} {wall['python']:7.3f} {cpu['python']:7.3f}")
    print(
        f"{'imports (start-up)':28} {wall['imports']:7.3f} {cpu['imports']:7.3f}  python -c '{IMPORTS[name]}'"
    )
    print(
        f"speed-up {ratio:.2f}x  goal: --jobs 2 at least {goal}x as fast as --jobs 1: {verdict(ratio, goal, at_least=True)}"
    )
    print(f"reports byte-identical: {'yes' if identical else 'NO'}")
    check = in_process(folder, runs)
    for jobs, (wall_s, own, workers) in check.items():
        print(
            f"the check alone, in one process, --jobs {jobs} (no start-up, no report written): wall {wall_s:.3f} s, "
            f"CPU {own:.3f} s in the parent + {workers:.3f} s in the helpers"
        )
    # Wall time measures the other work on a loaded machine as much as ours (two busy processes get less
    # of the two cores than one does): the same run on an idle machine, from CPU times, takes the
    # start-up and the report as they are and the check's CPU over the two cores, at best split evenly,
    # and never faster than this process's own share.
    rest = cpu[1] - check[1][1]
    idle_two = rest + max(check[2][1], (check[2][1] + check[2][2]) / 2)
    print(
        f"on an idle 2-core machine, from CPU times: --jobs 1 {cpu[1]:.3f} s, --jobs 2 about {idle_two:.3f} s, "
        f"{cpu[1] / idle_two:.2f}x ({verdict(cpu[1] / idle_two, goal, at_least=True)}); start-up is "
        f"{cpu['imports'] / cpu[1]:.0%} of a --jobs 1 run's CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=tuple(GOALS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.only in (None, "zoo"):
            zoo = Path(scratch, "zoo")
            write_zoo(zoo, ZOO_FILES, seed=0)
            race("zoo", zoo, args.runs, Path(scratch))
        if args.only in (None, "benchdnn"):
            race("benchdnn", BENCHDNN, args.runs, Path(scratch))


if __name__ == "__main__":
    main()
