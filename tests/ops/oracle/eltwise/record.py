"""How the fixtures beside this file were made (run by hand, not by the tests: the oracle's venv with
oneDNN 3.13 is not available in CI).

    python3 record.py graph 64 seeded-graph.json
    oracle.py seeded-graph.json --execute --dump-dir DUMP            # the oneDNN oracle
    python3 record.py record seeded-graph.json DUMP seeded > seeded.json

    python3 record.py graph 128 special-graph.json
    python3 record.py values VALUES                                  # the inputs, as .npy per op
    ORACLE_VALUES_DIR=VALUES oracle.py special-graph.json --execute --dump-dir DUMP2
    python3 record.py record special-graph.json DUMP2 special > special.json

The graph is one op per (kind, attributes) row below, each on a 1-D f32 tensor. `seeded`: the oracle
filled the inputs itself, standard normal from numpy.random.default_rng(op id) (its op_seed, seed 0).
`special`: a copy of the oracle that reads op<id>_in<k>.npy from ORACLE_VALUES_DIR when present (a
three-line change where it fills an input): +-0, NaN, +-inf, subnormals, f32's extremes, halves, the
bounds of the activations, a grid from -12 to 12 by 0.5 and normal values * 4; diff_dst 1 (-1 at -0)
on the special values, normal elsewhere. Each record is a verify descriptor: the inputs and oneDNN's
output as base64 f32.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np


def f(v: float) -> dict:
    return {"type": "f32", "value": v}


def b(v: bool) -> dict:
    return {"type": "bool", "value": int(v)}


def s(v: str) -> dict:
    return {"type": "string", "value": v}


VARIANTS = [
    ("Abs", {}), ("Clamp", {"min": f(-1.0), "max": f(1.5)}), ("Clamp", {"min": f(0.0), "max": f(6.0)}),
    ("Elu", {"alpha": f(0.5)}), ("Elu", {"alpha": f(1.0)}), ("Exp", {}),
    ("GELU", {"mode": s("gelu_erf")}), ("GELU", {"mode": s("gelu_tanh")}),
    ("HardSigmoid", {"alpha": f(0.2), "beta": f(0.5)}), ("HardSwish", {}),
    ("LeakyReLU", {"alpha": f(0.25)}), ("Log", {}), ("Mish", {}), ("Reciprocal", {}), ("ReLU", {}),
    ("Round", {}), ("Sigmoid", {}), ("SoftPlus", {"beta": f(1.0)}), ("SoftPlus", {"beta": f(-1.0)}),
    ("SoftPlus", {"beta": f(2.5)}), ("Sqrt", {}), ("Square", {}), ("Tanh", {}),
    ("AbsBackward", {}),
    ("ClampBackward", {"min": f(-1.0), "max": f(1.5), "use_dst": b(True)}),
    ("ClampBackward", {"min": f(-1.0), "max": f(1.5), "use_dst": b(False)}),
    ("EluBackward", {"alpha": f(0.5), "use_dst": b(True)}),
    ("EluBackward", {"alpha": f(0.5), "use_dst": b(False)}),
    ("GELUBackward", {"mode": s("gelu_erf")}), ("GELUBackward", {"mode": s("gelu_tanh")}),
    ("HardSigmoidBackward", {"alpha": f(0.2), "beta": f(0.5)}), ("HardSwishBackward", {}),
    ("MishBackward", {}),
    ("ReLUBackward", {"use_dst": b(True)}), ("ReLUBackward", {"use_dst": b(False)}),
    ("SigmoidBackward", {"use_dst": b(True)}), ("SigmoidBackward", {"use_dst": b(False)}),
    ("SoftPlusBackward", {"beta": f(1.0)}), ("SoftPlusBackward", {"beta": f(-1.0)}),
    ("SqrtBackward", {"use_dst": b(True)}), ("SqrtBackward", {"use_dst": b(False)}),
    ("TanhBackward", {"use_dst": b(True)}), ("TanhBackward", {"use_dst": b(False)}),
]  # fmt: skip


def graph(n: int) -> dict:
    ops, next_id = [], 0
    for i, (kind, attrs) in enumerate(VARIANTS):
        tensors = []
        for _ in range(3 if kind.endswith("Backward") else 2):
            tensors.append({"id": next_id, "dtype": "f32", "shape": [n], "stride": [1], "layout_type": "strided",
                            "property_type": "undef"})  # fmt: skip
            next_id += 1
        ops.append({"id": i, "name": f"{kind}_{i}", "kind": kind, "attrs": attrs, "inputs": tensors[:-1],
                    "outputs": tensors[-1:]})  # fmt: skip
    return {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}


def values(out: Path) -> None:
    top = np.finfo(np.float32)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1e-40, -1e-40, top.tiny, -top.tiny,
        top.max, -top.max, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 88.7, 88.73,
        89.0, -87.0, -88.8, -103.0, -104.0, 100.0, -100.0, 1e10, -1e10, 4194304.5, 8388609.0, 1e-8, -1e-8,
        0.49999997, -0.49999997, 15.0, -15.0, 20.0, -20.0, 9.0, -9.0, 1.25, -2.0, 0.1], dtype=np.float32)  # fmt: skip
    rng = np.random.default_rng(7)
    grid = np.arange(-12, 12.01, 0.5, dtype=np.float32)
    normal = (rng.standard_normal(128 - special.size - grid.size) * 4).astype(np.float32)
    src = np.concatenate([special, grid, normal]).astype(np.float32)
    diff_dst = rng.standard_normal(src.size).astype(np.float32)
    diff_dst[: special.size] = 1.0
    diff_dst[1] = -1.0
    out.mkdir(parents=True, exist_ok=True)
    for i, (kind, _) in enumerate(VARIANTS):
        np.save(out / f"op{i}_in0.npy", src)
        if kind.endswith("Backward"):
            np.save(out / f"op{i}_in1.npy", diff_dst)


def b64(array: np.ndarray) -> dict:
    data = np.ascontiguousarray(array, dtype="<f4").tobytes()
    return {"encoding": "base64", "bytes": base64.b64encode(data).decode()}


def record(graph_path: Path, dump: Path, name: str) -> dict:
    records = []
    for op in json.loads(graph_path.read_text())["graph"]:
        i = op["id"]
        outs = sorted(dump.glob(f"op{i}_out0_lt*.npy"))
        if not outs:
            continue  # not run alone by oneDNN (Reciprocal)
        ins = [np.load(next(dump.glob(f"op{i}_in{k}_lt*.npy"))) for k in range(len(op["inputs"]))]
        out = np.load(outs[0])
        attrs = {k: (bool(v["value"]) if v["type"] == "bool" else v["value"]) for k, v in op["attrs"].items()}
        shape = [int(out.size)]
        records.append({"kind": op["kind"], "attrs": attrs,
                        "inputs": [{"dtype": "f32", "shape": shape, "data": b64(a)} for a in ins],
                        "outputs": [{"dtype": "f32", "shape": shape, "data": b64(out)}]})  # fmt: skip
    return {"oracle": "oneDNN 3.13 (PyPI onednn), CPU without AVX-512", "set": name, "records": records}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "graph":
        Path(args[1]).write_text(json.dumps(graph(int(args[0])), indent=1))
    elif command == "values":
        values(Path(args[0]))
    else:
        json.dump(record(Path(args[0]), Path(args[1]), args[2]), sys.stdout, indent=1)
