"""Records oneDNN's own outputs for the quantization and layout families as test fixtures (run by hand).

    python3 tests/ops/oracle/record_json.py /path/to/oracle.py

It writes each op as a one-op graph in benchdnn's format, runs oneDNN 3.13 through the oracle
(`--execute --dump-dir`: seeded inputs, every input and output as .npy), and saves each op that ran
as a descriptor with its inputs' data and oneDNN's outputs under tests/ops/oracle/<family>.json.
The oracle's venv is not available in CI; the fixtures are what the tests read.
"""

from __future__ import annotations

import glob
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent


def _lt(counter: list[int], dtype: str, shape: list[int]) -> dict:
    counter[0] += 1
    strides, step = [], 1
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= dim
    return {"id": counter[0], "dtype": dtype, "shape": shape, "stride": strides, "layout_type": "strided",
            "property_type": "undef"}  # fmt: skip


def _attr(value):
    if isinstance(value, bool):
        return {"type": "bool", "value": int(value)}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, int):
        return {"type": "s64", "value": value}
    if all(isinstance(v, int) for v in value):
        return {"type": "s64[]", "value": value}
    return {"type": "f32[]", "value": value}


N = [4, 3, 6]
OPS = {
    "quantization": [
        ("Quantize", {"qtype": "per_tensor", "axis": 1, "scales": [0.1], "zps": [3]}, [("f32", N)], [("s8", N)]),
        ("Quantize", {"qtype": "per_tensor", "axis": 1, "scales": [0.03], "zps": [128]}, [("f32", N)], [("u8", N)]),
        ("Quantize", {"qtype": "per_channel", "axis": 1, "scales": [0.01, 0.25, 3.0]}, [("f32", N)], [("s8", N)]),
        ("Quantize", {"qtype": "per_channel", "axis": 2, "scales": [0.5, 0.1, 0.02, 1.0, 4.0, 0.3]}, [("f32", N)],
         [("u8", N)]),
        ("Dequantize", {"qtype": "per_tensor", "axis": 1, "scales": [0.37], "zps": [7]}, [("u8", N)], [("f32", N)]),
        ("Dequantize", {"qtype": "per_tensor", "axis": 1, "scales": [-0.5], "zps": [2]}, [("s8", N)], [("f32", N)]),
        ("Dequantize", {"qtype": "per_channel", "axis": 1, "scales": [-0.5, 0.25, 3.0]}, [("s8", N)], [("f32", N)]),
        ("DynamicQuantize", {"qtype": "per_tensor", "axis": 1}, [("f32", N), ("f32", [1]), ("s32", [1])], [("s8", N)]),
        ("DynamicQuantize", {"qtype": "per_channel", "axis": 1}, [("f32", N), ("f32", [3])], [("s8", N)]),
        ("DynamicDequantize", {"qtype": "per_tensor", "axis": 1}, [("s8", N), ("f32", [1]), ("s32", [1])], [("f32", N)]),
        ("DynamicDequantize", {"qtype": "per_channel", "axis": 1}, [("u8", N), ("f32", [3])], [("f32", N)]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 2, "group_shape": [1, 1, 3]},
         [("s8", N), ("f32", [4, 3, 2]), ("s8", [4, 3, 2])], [("f32", N)]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 1, "group_shape": [1, 3, 1]},
         [("u4", [2, 6, 4]), ("f32", [2, 2, 4]), ("u8", [2, 2, 4])], [("f32", [2, 6, 4])]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 1, "group_shape": [1, 2, 1]},
         [("s4", [2, 6, 4]), ("f32", [2, 3, 4]), ("s4", [2, 3, 4])], [("f32", [2, 6, 4])]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 1, "group_shape": [1, 3, 1]},
         [("u8", [2, 6, 4]), ("f32", [2, 2, 4]), ("s32", [2, 2, 4])], [("f32", [2, 6, 4])]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 1, "group_shape": [1, 3, 1]},
         [("u4", [2, 6, 4]), ("f32", [2, 2, 4])], [("f32", [2, 6, 4])]),
        ("DynamicDequantize", {"qtype": "per_group", "axis": 2, "group_shape": [1, 1, 6]},
         [("s8", N), ("f32", [4, 3, 1])], [("f32", N)]),
        ("TypeCast", {}, [("f32", [64])], [("bf16", [64])]),
        ("TypeCast", {}, [("f32", [64])], [("f16", [64])]),
        ("TypeCast", {}, [("bf16", [64])], [("f32", [64])]),
        ("TypeCast", {}, [("f16", [64])], [("f32", [64])]),
        ("Reorder", {}, [("f32", N)], [("f32", N)]),
    ],
    "layout": [
        ("StaticReshape", {"shape": [0, -1, 2], "special_zero": True}, [("f32", N)], [("f32", [4, 9, 2])]),
        ("StaticReshape", {"shape": [8, 9], "special_zero": False}, [("f32", N)], [("f32", [8, 9])]),
        ("StaticTranspose", {"order": [2, 0, -2]}, [("f32", N)], [("f32", [6, 4, 3])]),
        ("StaticTranspose", {"order": [1, 0]}, [("bf16", [5, 7])], [("bf16", [7, 5])]),
        ("Concat", {"axis": -2}, [("f32", [2, 3, 4]), ("f32", [2, 1, 4]), ("f32", [2, 2, 4])], [("f32", [2, 6, 4])]),
        ("Concat", {"axis": 0}, [("f32", [1, 5]), ("f32", [3, 5])], [("f32", [4, 5])]),
        ("GenIndex", {"axis": -1}, [("f32", N)], [("s32", N)]),
        ("GenIndex", {"axis": 0}, [("f32", N)], [("s32", N)]),
    ],
}  # fmt: skip


def _values(array: np.ndarray, dtype: str) -> list:
    if dtype in ("f32", "f16", "bf16"):
        flat = [("nan" if math.isnan(v) else "inf" if v == math.inf else "-inf" if v == -math.inf else v)
                for v in array.astype(np.float64).reshape(-1).tolist()]  # fmt: skip
    else:
        flat = array.astype(np.int64).reshape(-1).tolist()
    return flat


def record(oracle: str, family: str) -> None:
    counter = [100]
    graph, specs = [], []
    for index, (kind, attrs, ins, outs) in enumerate(OPS[family]):
        inputs = [_lt(counter, dt, shape) for dt, shape in ins]
        outputs = [_lt(counter, dt, shape) for dt, shape in outs]
        graph.append({"id": index, "name": f"{kind}_{index}", "kind": kind,
                      "attrs": {k: _attr(v) for k, v in attrs.items()}, "inputs": inputs, "outputs": outputs})  # fmt: skip
        specs.append((kind, attrs, ins, outs))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "graph.json"
        path.write_text(
            json.dumps({"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": graph})
        )
        dump = Path(tmp) / "dump"
        dump.mkdir()
        answer = Path(tmp) / "answer.json"
        subprocess.run([sys.executable, oracle, str(path), "--execute", "--dump-dir", str(dump), "-o", str(answer)],
                       check=True)  # fmt: skip
        ran = {op["id"]: op.get("execute") for op in json.loads(answer.read_text())["ops"]}
        cases = []
        for index, (kind, attrs, ins, outs) in enumerate(specs):
            if ran.get(index) != "success":
                print(f"{family}: op {index} {kind} did not run: {ran.get(index)}")
                continue

            def load(side: str, k: int, index: int = index) -> np.ndarray:
                return np.load(glob.glob(str(dump / f"op{index}_{side}{k}_lt*.npy"))[0])

            cases.append({
                "kind": kind, "attrs": attrs,
                "inputs": [{"dtype": dt, "shape": shape, "data": _values(load("in", k), dt)}
                           for k, (dt, shape) in enumerate(ins)],
                "outputs": [{"dtype": dt, "shape": shape, "data": _values(load("out", k), dt)}
                            for k, (dt, shape) in enumerate(outs)],
            })  # fmt: skip
    document = {
        "source": "oneDNN 3.13 (PyPI onednn) through shared/tools/onednn-oracle, seed 0, one-op partitions",
        "cases": cases,
    }
    (HERE / f"{family}.json").write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    for name in OPS:
        record(sys.argv[1], name)
