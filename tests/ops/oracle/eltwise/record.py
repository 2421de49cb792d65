"""How the fixtures beside this file were made (run by hand, not by the tests: the oracle's venv with
oneDNN 3.13 is not available in CI).

    python3 record.py GRAPH.json DUMP_DIR NAME > NAME.json

The graph is one op per (kind, attributes) row, each on a 1-D f32 tensor. `seeded`: the oneDNN oracle
(`oracle.py GRAPH --execute --dump-dir DUMP_DIR`) filled the inputs itself, standard normal from
numpy.random.default_rng(op id) (its op_seed with seed 0). `special`: the same oracle with each input
read from a file instead: ±0, NaN, ±inf, subnormals, f32's extremes, halves, the bounds of the
activations, a grid from -12 to 12 by 0.5 and normal values * 4; diff_dst 1 (-1 at -0) on the special
values, normal elsewhere. Each record is a verify descriptor: inputs and oneDNN's output as base64 f32.
"""

import base64
import glob
import json
import sys

import numpy as np


def b64(array: np.ndarray) -> dict:
    data = np.ascontiguousarray(array, dtype="<f4").tobytes()
    return {"encoding": "base64", "bytes": base64.b64encode(data).decode()}


def main() -> None:
    graph_path, dump, name = sys.argv[1:4]
    graph = json.load(open(graph_path))
    records = []
    for op in graph["graph"]:
        i = op["id"]
        outs = glob.glob(f"{dump}/op{i}_out0_lt*.npy")
        if not outs:
            continue  # not run alone by oneDNN (Reciprocal)
        ins = [np.load(glob.glob(f"{dump}/op{i}_in{k}_lt*.npy")[0]) for k in range(len(op["inputs"]))]
        out = np.load(outs[0])
        attrs = {k: (bool(v["value"]) if v["type"] == "bool" else v["value"]) for k, v in op["attrs"].items()}
        shape = [int(out.size)]
        records.append(
            {
                "kind": op["kind"],
                "attrs": attrs,
                "inputs": [{"dtype": "f32", "shape": shape, "data": b64(a)} for a in ins],
                "outputs": [{"dtype": "f32", "shape": shape, "data": b64(out)}],
            }
        )
    json.dump({"oracle": "oneDNN 3.13 (PyPI onednn), CPU without AVX-512", "set": name, "records": records},
              sys.stdout, indent=1)


if __name__ == "__main__":
    main()
