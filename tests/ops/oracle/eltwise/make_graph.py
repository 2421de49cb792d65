import json, sys, os
import numpy as np

def f(v): return {"type": "f32", "value": v}
def b(v): return {"type": "bool", "value": int(v)}
def s(v): return {"type": "string", "value": v}

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
]

def graph(n, dtype="f32"):
    ops, tid = [], 0
    for i, (kind, attrs) in enumerate(VARIANTS):
        nin = 2 if kind.endswith("Backward") else 1
        def lt():
            nonlocal tid
            t = {"id": tid, "dtype": dtype, "shape": [n], "stride": [1], "layout_type": "strided", "property_type": "undef"}
            tid += 1
            return t
        ins = [lt() for _ in range(nin)]
        ops.append({"id": i, "name": f"{kind}_{i}", "kind": kind, "attrs": attrs, "inputs": ins, "outputs": [lt()]})
    return {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}

if __name__ == "__main__":
    n = int(sys.argv[1]); out = sys.argv[2]
    json.dump(graph(n), open(out, "w"), indent=1)
