"""Argmax: the kernel against a literal transcription of MLI's heap procedure, and the MLI statuses."""

from __future__ import annotations

import base64
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import evaluate
from app.core.payload import LimitExceeded
from app.ops import REGISTRY, argmax

SPEC = REGISTRY["Argmax"]
RAW = {"sa8": np.int8, "fx16": np.int16}


def heap_procedure(values: list[int], k: int) -> list[int]:
    """SPEC-NOTES' five steps, word for word: the positions (in slice order) the kernel returns."""
    d = list(range(k))

    def sift(i: int, n: int) -> None:
        while i < n // 2:
            s = i
            if 2 * i + 1 < n and values[d[2 * i + 1]] < values[d[s]]:
                s = 2 * i + 1
            if 2 * i + 2 < n and values[d[2 * i + 2]] < values[d[s]]:
                s = 2 * i + 2
            if s == i:
                return
            d[i], d[s] = d[s], d[i]
            i = s

    for i in range(k // 2 - 1, -1, -1):
        sift(i, k)
    for p in range(k, len(values)):
        if values[d[0]] > values[p]:
            continue
        d[0] = p
        sift(0, k)
    for i in range(k // 2 - 1, -1, -1):
        sift(i, k)
    for i in range(k - 1, 0, -1):
        d[0], d[i] = d[i], d[0]
        sift(0, i)
    return d


def oracle(memory: list[int], shape: list[int], strides: list[int], axis: int, k: int) -> list[list[int]]:
    """Plain loops: each slice's (offset, value) list in row-major order, then the heap procedure."""
    rows = []
    for s in range(shape[axis] if axis >= 0 else 1):
        offsets = [
            sum(i * st for i, st in zip(index, strides, strict=True))
            for index in itertools.product(*(range(n) for n in shape))
            if axis < 0 or index[axis] == s
        ]
        chosen = heap_procedure([memory[o] for o in offsets], k)
        rows.append([offsets[c] for c in chosen])
    return rows


@st.composite
def argmax_cases(draw):
    dtype = draw(st.sampled_from(sorted(RAW)))
    shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    rank = len(shape)
    pads = draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank))
    strides = [1] * rank
    for axis in range(rank - 2, -1, -1):  # padding after each dim's rows: mem_stride >= shape * inner
        strides[axis] = shape[axis + 1] * strides[axis + 1] + pads[axis + 1] * strides[axis + 1]
    size = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + pads[0]
    axis = draw(st.integers(-2, rank - 1))
    slice_size = math.prod(shape) // (shape[axis] if axis >= 0 else 1)
    k = draw(st.integers(1, slice_size))
    info = np.iinfo(RAW[dtype])
    low = draw(st.sampled_from([0, -3, int(info.min)]))
    high = draw(st.sampled_from([0, 1, 3, int(info.max) - 1]))
    low, high = min(low, high), max(low, high)
    memory = [int(info.max)] * size  # padding holds the largest value: it must never be picked
    for index in itertools.product(*(range(n) for n in shape)):
        memory[sum(i * s for i, s in zip(index, strides, strict=True))] = draw(st.integers(low, high))
    return dtype, shape, strides, memory, axis, k


def descriptor(dtype, shape, axis, k, **tensor) -> argmax.ArgmaxOp:
    return argmax.ArgmaxOp(
        kind="Argmax", attrs={"axis": axis, "top_k": k}, inputs=[{"dtype": dtype, "shape": shape, **tensor}]
    )


@settings(max_examples=300, deadline=None)
@given(argmax_cases())
def test_evaluation_matches_the_heap_procedure(case) -> None:
    dtype, shape, strides, memory, axis, k = case
    d = descriptor(dtype, shape, axis, k, strides=strides, data=memory)
    result = evaluate(SPEC, d, Settings())
    out = result.outputs[0]
    assert out["dtype"] == "sa32"
    assert out["shape"] == [shape[axis] if axis >= 0 else 1, k]
    assert out["data"] == oracle(memory, shape, strides, axis, k)


rows_with_ties = st.integers(1, 40).flatmap(
    lambda length: st.tuples(
        st.integers(1, length),
        st.lists(st.lists(st.integers(-3, 3), min_size=length, max_size=length), min_size=1, max_size=60),
    )
)


@settings(max_examples=200, deadline=None)
@given(rows_with_ties)
def test_both_replays_match_the_procedure(case) -> None:
    """The per-row loop and the across-rows replay are chosen by size; each must be exact on its own."""
    k, values = case
    rows = np.array(values, dtype=np.int8)
    want = np.array([heap_procedure(row, k) for row in values])
    assert np.array_equal(argmax._heap_each(rows, k), want)
    assert np.array_equal(argmax._heap_rows(rows, k), want)
    assert np.array_equal(argmax.top_k_columns(rows, k), want)


@pytest.mark.parametrize(("dtype", "axis"), [("sa8", 0), ("sa8", -1), ("fx16", 0), ("fx16", 1)])
def test_large_slices_match_the_procedure(dtype, axis) -> None:
    """Sizes that take the vectorised paths (many rows, long rows, the tie-free shortcut)."""
    rng = np.random.default_rng(5)
    info = np.iinfo(RAW[dtype])
    values = rng.integers(info.min, info.max + 1, size=(120, 300), dtype=RAW[dtype])
    for k in (1, 5, 70):
        got = argmax.evaluate(descriptor(dtype, [120, 300], axis, k), [values])[0]
        rows = values if axis in (0, -1) else values.T
        rows = rows.reshape(1, -1) if axis < 0 else rows
        want = [heap_procedure(row, k) for row in rows.tolist()]
        if axis == 1:
            want = [[c * 300 + s for c in row] for s, row in enumerate(want)]
        elif axis == 0:
            want = [[s * 300 + c for c in row] for s, row in enumerate(want)]
        assert got.dtype == np.int32
        assert got.tolist() == want


def test_strided_base64_buffer_may_run_past_the_last_element(client) -> None:
    """Row padding after the last row is ordinary memory: a base64 buffer longer than the extent is fine."""
    memory = np.array([1, 5, 2, 100, 3, 3, 0, 100], dtype=np.int8)
    body = {
        "kind": "Argmax",
        "attrs": {"axis": -1, "top_k": 3},
        "inputs": [
            {
                "dtype": "sa8",
                "shape": [2, 3],
                "strides": [4, 1],
                "data": {"encoding": "base64", "bytes": base64.b64encode(memory.tobytes()).decode()},
            }
        ],
    }
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 200, response.text
    got = np.frombuffer(base64.b64decode(response.json()["outputs"][0]["data"]["bytes"]), dtype="<i4")
    assert got.tolist() == [1, 4, 5]


def test_evaluation_counts_the_strided_buffer_not_numel() -> None:
    d = descriptor("sa8", [2, 2], -1, 1, strides=[100, 1], data=[0] * 102)
    with pytest.raises(LimitExceeded) as refused:
        evaluate(SPEC, d, Settings(max_total_bytes=100))
    assert refused.value.limit == "max_total_bytes"
    assert evaluate(SPEC, d, Settings(max_total_bytes=110)).outputs[0]["data"] == [[101]]


def test_a_long_sequential_heap_is_refused_before_it_runs(client) -> None:
    """A rising ramp makes nearly every column a new heap entry: MLI's order is then a long walk that
    cannot be vectorised, so it is bounded by max_kernel_steps (the bound names the top_k)."""
    ramp = (np.arange(1 << 16) // 4 - (1 << 13)).astype(np.int16)
    d = descriptor("fx16", [ramp.size], -1, 64, data=ramp.tolist())
    with pytest.raises(LimitExceeded) as refused:
        evaluate(SPEC, d, Settings(max_kernel_steps=10_000))
    assert refused.value.limit == "max_kernel_steps"
    assert refused.value.path == "attrs.top_k"
    assert "top_k 64" in refused.value.message
    row = evaluate(SPEC, d, Settings()).outputs[0]["data"][0]
    assert row == heap_procedure(ramp.tolist(), 64)


STATUSES = {
    "Argmax.in.dtype": "MLI_STATUS_TYPE_MISMATCH",
    "Argmax.in.kernel": "MLI_STATUS_TYPE_MISMATCH",
    "Argmax.in.rank": "MLI_STATUS_BAD_TENSOR",
    "Argmax.in.dim": "MLI_STATUS_BAD_TENSOR",
    "Argmax.in.strides": "MLI_STATUS_BAD_TENSOR",
    "Argmax.in.inner_stride": "MLI_STATUS_INCOMPATEBLE_TENSORS",
    "Argmax.inputs.capacity": "MLI_STATUS_NOT_ENGH_MEM",
    "Argmax.quant.per_tensor": "MLI_STATUS_INCOMPATEBLE_TENSORS",
    "Argmax.quant.scalar": "MLI_STATUS_BAD_TENSOR",
    "Argmax.quant.scale": "MLI_STATUS_BAD_TENSOR",
    "Argmax.quant.zero_point": "MLI_STATUS_INCOMPATEBLE_TENSORS",
    "Argmax.axis.range": "MLI_STATUS_BAD_FUNC_CFG",
    "Argmax.outputs.dtype": "MLI_STATUS_NOT_ENGH_MEM",
    "Argmax.outputs.rank": "MLI_STATUS_NOT_ENGH_MEM",
    "Argmax.outputs.dim": "MLI_STATUS_NOT_ENGH_MEM",
    "Argmax.top_k.range": None,  # MLI's debug build never compares top_k with the slice
    "Argmax.out.strides": None,
    "Argmax.quant.ignored": None,
}


def test_the_rule_list_names_each_mli_status(client) -> None:
    rules = {r["id"]: r for r in client.get("/v1/ops/mli_krn_argmax_sa8").json()["rules"]}
    assert {rule: rules[rule]["status"] for rule in STATUSES} == STATUSES
    assert rules["Argmax.outputs.dim"]["spec"].startswith("embARC MLI Argmax")
    other = client.get("/v1/ops/ReduceMax").json()["rules"]
    assert all(r["status"] is None for r in other)


def test_diagnostics_carry_the_status_and_a_readable_message(client) -> None:
    body = {
        "kind": "mli_krn_argmax_fx16",
        "attrs": {"axis": 4, "topk": 2},
        "inputs": [{"dtype": "fx16", "shape": [2, 3, 4], "strides": [12, 4, 1]}],
    }
    verdict = client.post("/v1/validate", json=body).json()
    assert verdict["valid"] is False
    [diagnostic] = verdict["diagnostics"]
    assert diagnostic["rule"] == "Argmax.axis.range"
    assert diagnostic["status"] == "MLI_STATUS_BAD_FUNC_CFG"
    assert diagnostic["path"] == "attrs.axis"
    assert diagnostic["message"].startswith("axis 4 is out of range for in of rank 3")


def test_a_short_buffer_is_a_capacity_fault_with_its_status(client) -> None:
    body = {
        "kind": "Argmax",
        "attrs": {"axis": 0, "top_k": 1},
        "inputs": [{"dtype": "sa8", "shape": [2, 3], "strides": [4, 1], "data": [1, 2, 3, 0, 4, 5]}],
    }
    [diagnostic] = client.post("/v1/validate", json=body).json()["diagnostics"]
    assert (diagnostic["rule"], diagnostic["status"]) == ("Argmax.inputs.capacity", "MLI_STATUS_NOT_ENGH_MEM")
    assert "reaches element 6" in diagnostic["message"]


def test_other_ops_keep_their_payload_rule_for_a_short_buffer(client) -> None:
    body = {
        "kind": "ReduceMax",
        "attrs": {"axes": [0]},
        "inputs": [{"dtype": "f32", "shape": [2, 3], "strides": [4, 1], "data": [1, 2, 3, 0, 4, 5]}],
    }
    [diagnostic] = client.post("/v1/validate", json=body).json()["diagnostics"]
    assert (diagnostic["rule"], diagnostic["status"]) == ("ReduceMax.inputs.data", None)


def test_a_huge_stride_on_a_size_one_dim_is_never_stepped() -> None:
    """The largest int64 stride on a dim of size 1 adds nothing to an offset (it is never stepped)."""
    d = descriptor("sa8", [1, 3], 0, 2, strides=[2**63 - 1, 1], data=[4, 9, 7])
    assert evaluate(SPEC, d, Settings()).outputs[0]["data"] == [[1, 2]]
