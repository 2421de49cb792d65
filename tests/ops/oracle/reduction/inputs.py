import numpy as np

rng = np.random.default_rng(20261125)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = []
KINDS = ["ReduceL1", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum"]


def red(name, kind, x, axes, keep, out_shape):
    CASES.append(
        {
            "name": name,
            "kind": kind,
            "attrs": {"axes": ("s64[]", axes), "keep_dims": ("bool", int(keep))},
            "inputs": [("f32", x)],
            "outputs": [("f32", out_shape)],
        }
    )


for kind in KINDS:
    red(f"{kind} [4,8,5] axes [1] keep_dims", kind, normal(4, 8, 5), [1], True, [4, 1, 5])
    red(f"{kind} [4,8,5] axes [0,2]", kind, normal(4, 8, 5), [0, 2], False, [8])
    red(f"{kind} [3,200] axes [-1]", kind, normal(3, 200), [-1], False, [3])
    red(f"{kind} [2,3,4] every axis", kind, normal(2, 3, 4), [0, 1, 2], False, [])
z = np.array(
    [
        [0.0, -0.0, 1.0],
        [-0.0, 0.0, 2.0],
        [np.nan, 1.0, -1.0],
        [-0.0, -0.0, 3.0],
        [1.0, np.nan, 2.0],
        [np.inf, -np.inf, 0.0],
    ],
    dtype=np.float32,
)
for kind in KINDS:
    red(f"{kind} signed zeros, NaN and infinities", kind, z, [1], False, [6])
CASES.append(
    {
        "name": "ReduceSum with the axes input",
        "kind": "ReduceSum",
        "inputs": [("f32", normal(2, 3)), ("s32", np.array([1], np.int32))],
        "outputs": [("f32", [2])],
    }
)
red("ReduceSum empty axes", "ReduceSum", normal(2, 3), [], False, [2, 3])
red("ReduceSum zero-size dim reduced", "ReduceSum", np.zeros((2, 0, 3), np.float32), [1], False, [2, 3])
red("ReduceSum axis out of range", "ReduceSum", normal(2, 3), [2], False, [2])
red("ReduceSum repeated axis", "ReduceSum", normal(2, 3), [1, -1], False, [2])
for kind in KINDS:
    red(f"{kind} empty reduction", kind, np.zeros((2, 0), np.float32), [1], False, [2])
red("ReduceL1 zero-size dim kept", "ReduceL1", np.zeros((2, 0, 4), np.float32), [2], False, [2, 0])
