"""Records oneDNN's own answers on seeded inputs as test fixtures (run by hand where the oracle is set up;
CI reads the fixtures only).

    python3 tests/ops/oracle/record.py FAMILY   # writes tests/ops/oracle/FAMILY/<case>.npz

Each case is a one-op graph in benchdnn's JSON layout; the oracle (oneDNN 3.13 through its C API) runs it
on seeded random inputs (standard normal for f32) and dumps every input and output; a case's .npz holds
them as in0, in1, ..., out0, out1, ... beside the descriptor (JSON text under `descriptor`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ORACLE = os.environ.get("ONEDNN_ORACLE", "/work/shared/tools/onednn-oracle/oracle.py")

ATTR_TYPES = {bool: "bool", int: "s64", float: "f32", str: "string"}


def attr_type(value) -> str:
    if isinstance(value, list):
        return "f32[]" if any(isinstance(v, float) for v in value) else "s64[]"
    return ATTR_TYPES[type(value)]


def graph(kind: str, attrs: dict, inputs: list, outputs: list) -> dict:
    """A one-op graph: inputs and outputs as (dtype, shape)."""
    tensors = []

    def lt(index, dtype, shape):
        strides = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
        return {"id": index, "dtype": dtype, "shape": shape, "stride": strides,
                "layout_type": "strided", "property_type": "undef"}  # fmt: skip

    for dtype, shape in inputs + outputs:
        tensors.append(lt(len(tensors), dtype, shape))
    return {
        "version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict",
        "input_ports": list(range(len(inputs))),
        "output_ports": list(range(len(inputs), len(tensors))),
        "graph": [{
            "id": 0, "name": kind, "kind": kind,
            "attrs": {k: {"type": attr_type(v), "value": v} for k, v in attrs.items()},
            "inputs": tensors[: len(inputs)], "outputs": tensors[len(inputs) :],
        }],
    }  # fmt: skip


def descriptor(kind: str, attrs: dict, inputs: list, outputs: list) -> dict:
    return {
        "kind": kind,
        "attrs": attrs,
        "inputs": [{"dtype": d, "shape": s} for d, s in inputs],
        "outputs": [{"dtype": d, "shape": s} for d, s in outputs],
    }


def record(family: str, name: str, kind: str, attrs: dict, inputs: list, outputs: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.json"
        path.write_text(json.dumps(graph(kind, attrs, inputs, outputs)))
        dump = Path(tmp) / "dump"
        dump.mkdir()
        answer = subprocess.run(
            [sys.executable, ORACLE, str(path), "--execute", "--dump-dir", str(dump)],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        op = json.loads(answer)["ops"][0]
        arrays = {}
        for f in sorted(dump.iterdir()):
            _, role, _ = f.stem.split("_", 2)
            arrays[role] = np.load(f)
        if not any(k.startswith("out") for k in arrays):
            print(f"{name}: not executed: {json.dumps(op)[:600]}")
            return
        out = HERE / family
        out.mkdir(exist_ok=True)
        np.savez_compressed(out / f"{name}.npz", descriptor=json.dumps(descriptor(kind, attrs, inputs, outputs)),
                            **arrays)  # fmt: skip
        print(f"{name}: {sorted(arrays)}")


def cases(family: str) -> list:
    module = __import__(f"tests.ops.oracle.{family}_cases", fromlist=["CASES"])
    return module.CASES


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent.parent))
    family = sys.argv[1]
    wanted = set(sys.argv[2:])
    for case in cases(family):
        if not wanted or case[0] in wanted:
            record(family, *case)
