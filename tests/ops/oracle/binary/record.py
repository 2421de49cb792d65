"""Records what oneDNN 3.13 computes for the binary family, as fixtures the tests replay without it.

Run once where the oneDNN oracle is set up (not in CI):

    python3 tests/ops/oracle/binary/record.py /path/to/onednn-oracle/oracle.py

The oracle fills each input with seeded random values; to ask about chosen ones (-0, NaN, infinities,
s32 beyond 2^24) this script runs a copy of it whose input filling first looks for a file
`lt<id>.bin` of raw bytes in $FIXED_INPUTS. Each fixture is the descriptor with every input as the
oracle fed it (base64 little-endian) and the outputs oneDNN wrote, from the oracle's --dump-dir.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
NUMPY = {"f32": np.float32, "s32": np.int32, "boolean": np.bool_}
PATCH_AT = "                    raw = random_bytes(dt, sz, rng)\n"
PATCH = (
    PATCH_AT
    + '                    fixed = os.environ.get("FIXED_INPUTS")\n'
    + '                    fp = fixed and os.path.join(fixed, "lt%d.bin" % lt.id)\n'
    + "                    if fp and os.path.exists(fp):\n"
    + '                        raw = open(fp, "rb").read()\n'
)


def _strides(shape: list[int]) -> list[int]:
    out, size = [], 1
    for dim in reversed(shape):
        out.append(size)
        size *= max(dim, 1)
    return out[::-1]


def _wire(array: np.ndarray, dtype: str) -> dict:
    data = np.ascontiguousarray(array.astype(NUMPY[dtype]))
    return {"dtype": dtype, "shape": list(array.shape), "data": {"encoding": "base64", "bytes": base64.b64encode(data.tobytes()).decode()}}  # fmt: skip


def run(oracle: str, cases: list[dict]) -> list[dict]:
    """cases: {kind, attrs (ours), file_attrs (oneDNN's typed), inputs [(dtype, array or shape)], outputs
    [(dtype, shape)]} -> fixtures."""
    work = Path(tempfile.mkdtemp())
    patched = work / "oracle.py"
    text = Path(oracle).read_text()
    assert PATCH_AT in text, "the oracle's input filling is not where this script expects it"
    patched.write_text(text.replace(PATCH_AT, PATCH))
    fixed, dump = work / "fixed", work / "dump"
    fixed.mkdir()
    dump.mkdir()
    graph, lt = [], 0
    for index, case in enumerate(cases):
        ports = []
        for dtype, value in case["inputs"]:
            lt += 1
            shape = list(value.shape) if isinstance(value, np.ndarray) else list(value)
            if isinstance(value, np.ndarray):
                value.astype(NUMPY[dtype]).tofile(fixed / f"lt{lt}.bin")
            ports.append({"id": lt, "dtype": dtype, "shape": shape, "stride": _strides(shape), "layout_type": "strided", "property_type": "undef"})  # fmt: skip
        outs = []
        for dtype, shape in case["outputs"]:
            lt += 1
            outs.append({"id": lt, "dtype": dtype, "shape": shape, "stride": _strides(shape), "layout_type": "strided", "property_type": "undef"})  # fmt: skip
        graph.append({"id": index, "name": f"op{index}", "kind": case["kind"], "attrs": case["file_attrs"], "inputs": ports, "outputs": outs})  # fmt: skip
    path = work / "graph.json"
    path.write_text(
        json.dumps({"version": "3.13.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": graph})
    )
    answer = work / "answer.json"
    command = [
        sys.executable,
        str(patched),
        str(path),
        "--execute",
        "--dump-dir",
        str(dump),
        "-o",
        str(answer),
    ]
    subprocess.run(command, check=True, env=dict(os.environ, FIXED_INPUTS=str(fixed)))
    ops = {op["id"]: op for op in json.loads(answer.read_text())["ops"]}
    fixtures = []
    for index, (case, node) in enumerate(zip(cases, graph, strict=True)):
        assert ops[index].get("execute") == "success", (case["kind"], ops[index])
        arrays = {}
        for file in glob.glob(str(dump / f"op{index}_*_lt*.npy")):
            arrays[int(file.rsplit("_lt", 1)[1][:-4])] = np.load(file)
        inputs = [_wire(arrays[t["id"]], t["dtype"]) for t in node["inputs"]]
        outputs = [_wire(arrays[t["id"]], t["dtype"]) for t in node["outputs"]]
        descriptor = {"kind": case["kind"], "attrs": case["attrs"], "inputs": inputs}
        fixtures.append({"name": case["name"], "descriptor": descriptor, "outputs": outputs})
    return fixtures


def _typed(attrs: dict) -> dict:
    kinds = {bool: "bool", str: "string", float: "f32"}
    return {name: {"type": kinds[type(value)], "value": int(value) if isinstance(value, bool) else value} for name, value in attrs.items()}  # fmt: skip


def case(name: str, kind: str, attrs: dict, inputs: list, outputs: list) -> dict:
    return {"name": name, "kind": kind, "attrs": attrs, "file_attrs": _typed(attrs), "inputs": inputs, "outputs": outputs}  # fmt: skip


def cases() -> list[dict]:
    rng = np.random.default_rng(2026)
    nan, inf = np.float32("nan"), np.float32("inf")
    normal = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    specials_0 = np.array([-0.0, 0.0, nan, 1.0, nan, -inf, 3.0, -0.0, inf, -inf, 0.0, 2.0], np.float32)
    specials_1 = np.array([0.0, -0.0, 1.0, nan, nan, 2.0, inf, -0.0, inf, -inf, 0.0, -2.0], np.float32)
    zeros_nan = np.array([-0.0, 0.0, nan, 1.0, -1.0], np.float32)
    numpy = {"auto_broadcast": "numpy"}
    out: list[dict] = []
    for kind in (
        "Add",
        "Subtract",
        "Multiply",
        "Divide",
        "Maximum",
        "Minimum",
        "SquaredDifference",
        "GreaterEqual",
    ):
        dst = "boolean" if kind == "GreaterEqual" else "f32"
        out += [
            case(
                f"{kind} f32 [2,3,4,5] with [3,1,5]",
                kind,
                numpy,
                [("f32", normal(2, 3, 4, 5)), ("f32", normal(3, 1, 5))],
                [(dst, [2, 3, 4, 5])],
            ),
            case(
                f"{kind} f32 scalar with [7]",
                kind,
                numpy,
                [("f32", normal()), ("f32", normal(7))],
                [(dst, [7])],
            ),
            case(
                f"{kind} f32 none [4,6]",
                kind,
                {"auto_broadcast": "none"},
                [("f32", normal(4, 6)), ("f32", normal(4, 6))],
                [(dst, [4, 6])],
            ),
            case(
                f"{kind} f32 -0, NaN, infinities",
                kind,
                numpy,
                [("f32", specials_0), ("f32", specials_1)],
                [(dst, [12])],
            ),
            case(
                f"{kind} f32 ties and NaN broadcast [5,1] with [5,7]",
                kind,
                numpy,
                [("f32", rng.choice(zeros_nan, (5, 1))), ("f32", rng.choice(zeros_nan, (5, 7)))],
                [(dst, [5, 7])],
            ),
        ]
    big = np.array([16777217, 2147483647, -2147483648, 16777216, 5, 2147483600, -2147483600, 7], np.int32)
    other = np.array([0, 1, -1, 16777217, -7, 100, -100, -8], np.int32)
    for kind in ("Add", "Subtract", "GreaterEqual"):
        dst = "boolean" if kind == "GreaterEqual" else "s32"
        out += [
            case(
                f"{kind} s32 beyond 2^24 and the range",
                kind,
                numpy,
                [("s32", big), ("s32", other)],
                [(dst, [8])],
            ),
            case(
                f"{kind} s32 [3,4] with [4]",
                kind,
                numpy,
                [
                    ("s32", rng.integers(-50, 50, (3, 4)).astype(np.int32)),
                    ("s32", rng.integers(-50, 50, 4).astype(np.int32)),
                ],
                [(dst, [3, 4])],
            ),
        ]
    out += [
        case(
            "Select [3,1,5] cond, [2,3,4,5] and [1]",
            "Select",
            numpy,
            [
                ("boolean", rng.integers(0, 2, (3, 1, 5)).astype(bool)),
                ("f32", normal(2, 3, 4, 5)),
                ("f32", normal(1)),
            ],
            [("f32", [2, 3, 4, 5])],
        ),
        case(
            "Select NaN and -0 kept",
            "Select",
            numpy,
            [
                ("boolean", np.array([1, 0, 1, 0], bool)),
                ("f32", np.array([nan, -0.0, -0.0, 1], np.float32)),
                ("f32", np.array([2, nan, 0.0, 0.0], np.float32)),
            ],
            [("f32", [4])],
        ),
        case(
            "BiasAdd NCX [2,3,4,5] bias [3]",
            "BiasAdd",
            {"data_format": "NCX"},
            [("f32", normal(2, 3, 4, 5)), ("f32", normal(3))],
            [("f32", [2, 3, 4, 5])],
        ),
        case(
            "BiasAdd NXC [2,3,4,5] bias [5]",
            "BiasAdd",
            {"data_format": "NXC"},
            [("f32", normal(2, 3, 4, 5)), ("f32", normal(5))],
            [("f32", [2, 3, 4, 5])],
        ),
    ]
    prelu_src = np.array([[2.0, -0.0, -0.0, 3.0, 3.0, inf, -inf, nan, 2.0, -3.0, 0.0, -1.0]], np.float32)
    prelu_slope = np.array([[nan, -2.0, 2.0, 0.5, inf, 0.0, 0.0, 0.0, -0.0, 1e38, -2.0, -0.0]], np.float32)
    prelu_dd = np.array([[1.0, 1.0, -1.0, -5.0, 1.0, -2.0, 1.0, 1.0, -3.0, 1e10, 2.0, 8.0]], np.float32)
    for fmt, pcb, slope in (
        ("NCX", True, (3,)),
        ("NXC", True, (5,)),
        ("NCX", False, (5,)),
        ("NXC", True, (4, 1)),
    ):
        out.append(case(f"PReLU {fmt} per_channel_broadcast {pcb} slope {list(slope)}", "PReLU", {"data_format": fmt, "per_channel_broadcast": pcb},
                        [("f32", normal(2, 3, 4, 5)), ("f32", normal(*slope))], [("f32", [2, 3, 4, 5])]))  # fmt: skip
    out.append(case("PReLU -0, NaN, infinities", "PReLU", {"data_format": "NXC", "per_channel_broadcast": False},
                    [("f32", prelu_src), ("f32", prelu_slope)], [("f32", [1, 12])]))  # fmt: skip
    for fmt, slope in (
        ("NCX", (3,)),
        ("NXC", (5,)),
        ("NXC", (1,)),
        ("NCX", (1, 1, 1, 1)),
        ("NCX", (3, 4, 5)),
        ("NXC", (4, 1)),
    ):
        out.append(case(f"PReLUBackward {fmt} slope {list(slope)}", "PReLUBackward", {"data_format": fmt},
                        [("f32", normal(2, 3, 4, 5)), ("f32", normal(*slope)), ("f32", normal(2, 3, 4, 5))],
                        [("f32", [2, 3, 4, 5]), ("f32", list(slope))]))  # fmt: skip
    out.append(case("PReLUBackward -0, NaN, infinities", "PReLUBackward", {"data_format": "NXC"},
                    [("f32", prelu_src), ("f32", prelu_slope), ("f32", prelu_dd)], [("f32", [1, 12]), ("f32", [1, 12])]))  # fmt: skip
    return out


def main() -> None:
    fixtures = run(sys.argv[1], cases())
    by_kind: dict[str, list[dict]] = {}
    for fixture in fixtures:
        by_kind.setdefault(fixture["descriptor"]["kind"], []).append(fixture)
    for kind, items in by_kind.items():
        document = {
            "recorded_with": "oneDNN 3.13 (PyPI onednn), CPU engine, through the onednn oracle",
            "cases": items,
        }
        (HERE / f"{kind}.json").write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
