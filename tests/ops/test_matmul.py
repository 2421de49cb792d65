"""MatMul: the kernel against a plain-loop oracle (bit for bit, same order) and oneDNN's own outputs
(within the stated tolerance), the shape rule's errors, and benchdnn's MatMul nodes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import check, run
from app.core.payload import LimitExceeded
from app.ops import REGISTRY
from tests.ops.benchdnn import nodes_of
from tests.ops.onednn_oracle import assert_within_tolerance, fixtures

SPEC = REGISTRY["MatMul"]


def descriptor(attrs: dict, *inputs: dict, outputs: list | None = None):
    body = {"kind": "MatMul", "attrs": attrs, "inputs": list(inputs)}
    if outputs is not None:
        body["outputs"] = outputs
    return SPEC.descriptor.model_validate(body)


def tensor(shape: list, data=None, dtype: str = "f32") -> dict:
    out = {"dtype": dtype, "shape": shape}
    if data is not None:
        out["data"] = np.asarray(data, np.float32).tolist()
    return out


def verdict(d):
    return check(SPEC, d, Settings())[0]


def rules(v) -> list[tuple[str, str]]:
    return [(x.rule, x.severity) for x in v.diagnostics]


# --- evaluation -------------------------------------------------------------------------------------


def loop_matmul(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """2-D only, one element at a time: products rounded to f32, added k ascending in f32."""
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(a[i, 0] * b[0, j]) if k else np.float32(0)
            for t in range(1, k):
                acc = np.float32(acc + np.float32(a[i, t] * b[t, j]))
            if bias is not None:
                acc = np.float32(acc + bias[j])
            out[i, j] = acc
    return out


finite = st.floats(-1e3, 1e3, width=32)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 5), st.integers(1, 4), st.booleans(), st.booleans(), st.data())
def test_kernel_is_the_stated_order_bit_for_bit(m, k, n, ta, tb, data):
    a = np.array(data.draw(st.lists(finite, min_size=m * k, max_size=m * k)), np.float32).reshape(m, k)
    b = np.array(data.draw(st.lists(finite, min_size=k * n, max_size=k * n)), np.float32).reshape(k, n)
    bias = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), np.float32)
    d = descriptor(
        {"transpose_a": ta, "transpose_b": tb},
        tensor([k, m] if ta else [m, k], a.T if ta else a),
        tensor([n, k] if tb else [k, n], b.T if tb else b),
        tensor([n], bias),
    )
    _, (got,) = run(SPEC, d, Settings())
    want = loop_matmul(a, b, bias)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_signed_zero_and_nan():
    weights = {"dtype": "f32", "shape": [2, 2], "data": [[1.0, "nan"], [1.0, 1.0]]}
    d = descriptor({}, tensor([1, 2], [[-0.0, -0.0]]), weights)
    _, (got,) = run(SPEC, d, Settings())
    assert np.signbit(got[0, 0]) and got[0, 0] == 0  # -0 * 1 + -0 * 1 = -0
    assert np.isnan(got[0, 1])


@pytest.mark.parametrize("path", fixtures("matmul"), ids=lambda p: p.stem)
def test_against_onednn(path: Path):
    """oneDNN 3.13's outputs on its own seeded inputs, within the tolerance the op states."""
    assert_within_tolerance(path)


def test_work_is_bounded():
    big = 2048
    d = descriptor({}, tensor([big, big], np.zeros((big, big))), tensor([big, big], np.zeros((big, big))))
    with pytest.raises(LimitExceeded) as info:
        run(SPEC, d, Settings())
    assert info.value.limit == "max_kernel_steps"
    assert "multiply-adds" in info.value.message


# --- rules ------------------------------------------------------------------------------------------


def test_k_mismatch_names_both_dims():
    v = verdict(descriptor({"transpose_b": True}, tensor([2, 3]), tensor([5, 4])))
    (diag,) = v.diagnostics
    assert diag.rule == "MatMul.k" and diag.path == "inputs[1].shape[1]"
    assert "src's K is 3 (dim 1 of src [2, 3])" in diag.message
    assert "weights' K is 4 (dim 1 of weights [5, 4], transpose_b)" in diag.message


def test_symbolic_k_is_not_a_conflict():
    v = verdict(descriptor({}, tensor(["B", 2, "K"]), tensor(["K", 4])))
    assert v.valid and v.outputs[0].shape == ("B", 2, 4)


def test_unknown_rank_gives_unknown_rank():
    v = verdict(descriptor({}, {"dtype": "f32", "shape": None}, tensor([3, 4])))
    assert v.valid and v.outputs[0].shape is None


def test_rank_zero_operand():
    v = verdict(descriptor({}, tensor([]), tensor([3, 4])))
    assert rules(v) == [("MatMul.rank", "error")]


def test_batch_assumption_is_stated():
    v = verdict(descriptor({}, tensor(["B", 2, 3]), tensor([4, 3, 5])))
    assert v.valid and rules(v) == [("MatMul.batch.assumption", "warning")]
    assert v.outputs[0].shape == (4, 2, 5)


@pytest.mark.parametrize(
    ("bias", "ok"),
    [
        ([4], True),
        ([1, 4], True),
        ([2, 4], True),
        ([2, 1], True),
        ([1], True),
        ([3], False),
        ([2], False),
        ([1, 1, 4], False),
    ],
)
def test_bias_shapes_as_onednn_measured(bias, ok):
    """oneDNN 3.13 compiles the first five and aborts the process on the last three (dst [2, 4])."""
    v = verdict(descriptor({}, tensor([2, 3]), tensor([3, 4]), tensor(bias)))
    assert v.valid is ok
    if not ok:
        assert {r for r, _ in rules(v)} == {"MatMul.bias"}


def test_mixed_precision_rows():
    f16_to_f32 = verdict(
        descriptor({}, tensor([2, 3], dtype="f16"), tensor([3, 4], dtype="f16"), outputs=[tensor([2, 4])])
    )
    assert f16_to_f32.valid and f16_to_f32.outputs[0].dtype == "f32"
    f32_to_bf16 = verdict(
        descriptor({}, tensor([2, 3]), tensor([3, 4]), outputs=[tensor([2, 4], dtype="bf16")])
    )
    assert not f32_to_bf16.valid and rules(f32_to_bf16) == [("MatMul.outputs.dtype", "error")]
    mixed = verdict(descriptor({}, tensor([2, 3]), tensor([3, 4], dtype="bf16")))
    assert rules(mixed) == [("MatMul.dtypes", "error")]


# --- benchdnn ---------------------------------------------------------------------------------------


def test_benchdnn_matmul_nodes_are_checked_valid_and_shaped_as_written():
    nodes = nodes_of("MatMul")
    assert len(nodes) == 206
    placeholders = [n for n in nodes if n.placeholder_input]
    # Two files write an input as [INT64_MIN], a shape left to oneDNN's whole-graph inference: the
    # reader takes it as of unknown rank, and the shape that flows from the producer fills it in.
    assert {n.file for n in placeholders} == {
        "complex_fusion/mha/codegemma-bf16-f32.json",
        "complex_fusion/mha/gemma2-bf16-f32.json",
    }
    for node in nodes:
        assert node.checked_as == "MatMul", node
        assert node.verdict == "valid", (node.file, node.findings)
        if not node.placeholder_input:
            assert node.inferred == node.declared, node.file


def test_a_batch_of_one_stretches_to_zero():
    """NumPy's rule, as the page's "broadcasted if 1" and oneDNN 3.13 (which infers [0, 2, 4])."""
    v = verdict(descriptor({}, tensor([0, 2, 3]), tensor([1, 3, 4])))
    assert v.valid and v.outputs[0].shape == (0, 2, 4)
