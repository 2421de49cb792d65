"""oneDNN Graph JSON files of any size for the graph view's tests, screenshots and bench_graph_page:
blocks of ReLU and Abs (or ReduceMax) side by side joined by an Add, so the drawing branches and joins."""

from __future__ import annotations

import json

SHAPE = [1, 64, 8, 8]


def _tensor(tid: int, shape: list[int]) -> dict:
    strides, size = [], 1
    for dim in reversed(shape):
        strides.insert(0, size)
        size *= dim
    return {
        "id": tid,
        "dtype": "f32",
        "shape": shape,
        "stride": strides,
        "layout_type": "strided",
        "property_type": "undef",
    }


def onednn_graph(nodes: int, *, error_at: int | None = None) -> dict:
    """`nodes` ops (blocks of three, then ReLUs); the block holding op `error_at` has a ReduceMax
    whose axis 5 is out of range for rank 4, so exactly that node is invalid."""
    ops: list[dict] = []
    current = 0
    tid = 1
    block = 0
    while len(ops) + 3 <= nodes:
        base = len(ops)
        broken = error_at is not None and base <= error_at < base + 3
        relu_out, side_out, add_out = tid, tid + 1, tid + 2
        tid += 3
        ops.append(
            {"id": base, "name": f"relu_{block}", "kind": "ReLU", "attrs": {},
             "inputs": [_tensor(current, SHAPE)], "outputs": [_tensor(relu_out, SHAPE)]}
        )  # fmt: skip
        if broken or block % 3 == 1:
            axes = [5] if broken else [1]
            ops.append(
                {"id": base + 1, "name": f"reduce_{block}", "kind": "ReduceMax",
                 "attrs": {"axes": {"type": "s64[]", "value": axes}, "keep_dims": {"type": "bool", "value": 1}},
                 "inputs": [_tensor(current, SHAPE)], "outputs": [_tensor(side_out, [1, 1, 8, 8])]}
            )  # fmt: skip
            side_shape = [1, 1, 8, 8]
        else:
            ops.append(
                {"id": base + 1, "name": f"abs_{block}", "kind": "Abs", "attrs": {},
                 "inputs": [_tensor(current, SHAPE)], "outputs": [_tensor(side_out, SHAPE)]}
            )  # fmt: skip
            side_shape = SHAPE
        ops.append(
            {"id": base + 2, "name": f"add_{block}", "kind": "Add",
             "attrs": {"auto_broadcast": {"type": "string", "value": "numpy"}},
             "inputs": [_tensor(relu_out, SHAPE), _tensor(side_out, side_shape)],
             "outputs": [_tensor(add_out, SHAPE)]}
        )  # fmt: skip
        current = add_out
        block += 1
    while len(ops) < nodes:
        ops.append(
            {"id": len(ops), "name": f"result_{len(ops)}", "kind": "ReLU", "attrs": {},
             "inputs": [_tensor(current, SHAPE)], "outputs": [_tensor(tid, SHAPE)]}
        )  # fmt: skip
        current, tid = tid, tid + 1
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}


def onednn_text(nodes: int, *, error_at: int | None = None) -> str:
    return json.dumps(onednn_graph(nodes, error_at=error_at), indent=1)
