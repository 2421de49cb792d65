import numpy as np

rng = np.random.default_rng(20261126)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


CASES = []


def sm(name, x, axis, mode, stats, kind="SoftMax"):
    outs = [("f32", list(x.shape))]
    if stats:
        outs.append(("f32", [1 if i == axis % x.ndim else n for i, n in enumerate(x.shape)]))
    attrs = {"axis": ("s64", axis)}
    if mode:
        attrs["mode"] = ("string", mode)
    CASES.append({"name": name, "kind": kind, "attrs": attrs, "inputs": [("f32", x)], "outputs": outs})


sm("SoftMax [2,5,3] axis 1 with stats", normal(2, 5, 3) * 3, 1, "none", True)
sm("SoftMax [4,40] axis -1", normal(4, 40) * 4, -1, None, False)
sm("SoftMax [3,6] axis 0 with stats", normal(3, 6), 0, "none", True)
neg = np.array(
    [
        [-np.inf] * 4,
        [-np.inf, 0.0, 1.0, -np.inf],
        [1.0, 2.0, 3.0, 4.0],
        [np.nan, 1.0, 2.0, 3.0],
        [np.inf, 1.0, 2.0, 3.0],
    ],
    np.float32,
)
sm("SoftMax -inf slices, inf_as_zero, with stats", neg, 1, "inf_as_zero", True)
sm("SoftMax -inf slices, none, with stats", neg, 1, "none", True)
sm("LogSoftmax [4,40] axis -1", normal(4, 40) * 4, -1, None, False, "LogSoftmax")
sm("LogSoftmax [2,5,3] axis 1", normal(2, 5, 3), 1, None, False, "LogSoftmax")
sm("LogSoftmax special values", neg, 1, None, False, "LogSoftmax")
for axis, shape in ((1, (2, 6, 3)), (-1, (3, 30))):
    dst = softmax(normal(*shape), axis)
    CASES.append(
        {
            "name": f"SoftMaxBackward {list(shape)} axis {axis}",
            "kind": "SoftMaxBackward",
            "attrs": {"axis": ("s64", axis)},
            "inputs": [("f32", normal(*shape)), ("f32", dst)],
            "outputs": [("f32", list(shape))],
        }
    )
    x = normal(*shape)
    logdst = x - x.max(axis=axis, keepdims=True)
    logdst = (logdst - np.log(np.exp(logdst).sum(axis=axis, keepdims=True))).astype(np.float32)
    CASES.append(
        {
            "name": f"LogSoftmaxBackward {list(shape)} axis {axis}",
            "kind": "LogSoftmaxBackward",
            "attrs": {"axis": ("s64", axis)},
            "inputs": [("f32", normal(*shape)), ("f32", logdst)],
            "outputs": [("f32", list(shape))],
        }
    )
CASES.append(
    {
        "name": "SoftMaxBackward dst of another shape",
        "kind": "SoftMaxBackward",
        "attrs": {"axis": ("s64", 1)},
        "inputs": [("f32", normal(2, 3)), ("f32", normal(2, 4))],
        "outputs": [("f32", [2, 3])],
    }
)
CASES.append(
    {
        "name": "LogSoftmaxBackward dst of another shape",
        "kind": "LogSoftmaxBackward",
        "attrs": {"axis": ("s64", 1)},
        "inputs": [("f32", normal(2, 3)), ("f32", normal(2, 4))],
        "outputs": [("f32", [2, 3])],
    }
)
sm("SoftMax axis out of range", normal(2, 3), 2, None, False)
