"""Run one-op graphs on given inputs through the oneDNN oracle (a copy whose inputs can be fed).

    python3 run.py CASES.py OUT.json

CASES.py defines CASES = [{"name", "kind", "attrs": {name: (type, value)}, "inputs": [np arrays with
a "dtype" name], "outputs": [(dtype, shape)]}]. OUT.json: per case the oracle's statuses, inputs and
outputs (flat lists, NaN/inf as strings)."""

import json
import os
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def wire(a):
    out = []
    for v in np.asarray(a, dtype=np.float64).reshape(-1).tolist():
        out.append("nan" if v != v else "inf" if v == float("inf") else "-inf" if v == float("-inf") else v)
    return out


def tensor(lt, dtype, shape):
    """A dense logical tensor as benchdnn's files write one."""
    strides = [int(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    return {
        "id": lt,
        "dtype": dtype,
        "shape": shape,
        "stride": strides,
        "layout_type": "strided",
        "property_type": "undef",
    }


def main():
    cases = runpy.run_path(sys.argv[1])["CASES"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        graph, lt = [], 0
        feed = os.path.join(tmp, "feed")
        dump = os.path.join(tmp, "dump")
        os.makedirs(feed)
        os.makedirs(dump)
        for op_id, case in enumerate(cases):
            ins, outs = [], []
            for k, (dtype, arr) in enumerate(case["inputs"]):
                arr = np.ascontiguousarray(arr)
                ins.append(tensor(lt, dtype, list(arr.shape)))
                lt += 1
                raw = arr.view(np.uint16).tobytes() if dtype == "bf16" else arr.tobytes()
                Path(feed, f"op{op_id}_in{k}.bin").write_bytes(raw)
            for dtype, shape in case["outputs"]:
                outs.append(tensor(lt, dtype, shape))
                lt += 1
            attrs = {name: {"type": t, "value": v} for name, (t, v) in case.get("attrs", {}).items()}
            graph.append(
                {
                    "id": op_id,
                    "name": case["name"],
                    "kind": case["kind"],
                    "attrs": attrs,
                    "inputs": ins,
                    "outputs": outs,
                }
            )
        path = os.path.join(tmp, "graph.json")
        Path(path).write_text(
            json.dumps({"version": "3.13.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": graph})
        )
        env = dict(os.environ, ORACLE_FEED=feed)
        answer_path = os.path.join(tmp, "answer.json")
        subprocess.run(
            [
                sys.executable,
                os.path.join(HERE, "oracle.py"),
                path,
                "--execute",
                "--dump-dir",
                dump,
                "-o",
                answer_path,
            ],
            env=env,
            check=True,
        )
        answer = json.loads(Path(answer_path).read_text())
        ops = {op.get("id"): op for op in answer.get("ops", [])}
        for op_id, case in enumerate(cases):
            op = ops.get(op_id, {})
            outputs = []
            for k in range(len(case["outputs"])):
                files = [f for f in os.listdir(dump) if f.startswith(f"op{op_id}_out{k}_")]
                if files:
                    arr = np.load(os.path.join(dump, files[0]))
                    outputs.append({"shape": list(arr.shape), "data": wire(arr)})
                else:
                    outputs.append(None)
            results.append(
                {
                    "name": case["name"],
                    "kind": case["kind"],
                    "attrs": {name: v for name, (t, v) in case.get("attrs", {}).items()},
                    "inputs": [
                        {"dtype": d, "shape": list(np.shape(a)), "data": wire(a)} for d, a in case["inputs"]
                    ],
                    "output_dtypes": [d for d, _ in case["outputs"]],
                    "oracle": {key: op.get(key) for key in ("add_op", "compile", "execute", "shape", "why")},
                    "outputs": outputs,
                }
            )
    Path(sys.argv[2]).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
