"""The real onnxruntime Max on ±0: its answers are named signed_zero, located, and nothing else."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

from tests.verify.cases import run, with_answer

ONNX_TYPES = {"f32": (TensorProto.FLOAT, np.float32), "f64": (TensorProto.DOUBLE, np.float64),
              "f16": (TensorProto.FLOAT16, np.float16)}  # fmt: skip


def onnxruntime_max(dtype: str, arrays: list[np.ndarray]) -> np.ndarray:
    element, _ = ONNX_TYPES[dtype]
    names = [f"X{i + 1}" for i in range(len(arrays))]
    graph = helper.make_graph(
        [helper.make_node("Max", names, ["Y"])],
        "max",
        [
            helper.make_tensor_value_info(n, element, list(a.shape))
            for n, a in zip(names, arrays, strict=True)
        ],
        [helper.make_tensor_value_info("Y", element, list(np.broadcast_shapes(*(a.shape for a in arrays))))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # what every onnxruntime since 1.10 reads
    onnx.checker.check_model(model)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, dict(zip(names, arrays, strict=True)))[0]


def wire(array: np.ndarray) -> list:
    return array.astype(np.float64).tolist()


@pytest.mark.parametrize("dtype", list(ONNX_TYPES))
@pytest.mark.parametrize("order", ["-0 first", "+0 first"])
def test_onnxruntime_signed_zeros_are_named_and_located(dtype, order) -> None:
    _, numpy_type = ONNX_TYPES[dtype]
    a = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, -0.0, 0.0, 2.0], dtype=numpy_type)
    b = np.array([0.0, -0.0, -0.0, 0.0, 0.5, 0.0, -0.0, 3.0], dtype=numpy_type)
    arrays = [a, b] if order == "-0 first" else [b, a]
    answer = onnxruntime_max(dtype, arrays)
    descriptor = {"kind": "Max", "inputs": [{"dtype": dtype, "shape": [8], "data": wire(x)} for x in arrays]}
    output = run(with_answer(descriptor, dtype, [8], wire(answer))).outputs[0]
    # The profile: +0 wherever either operand is +0, so only the four mixed pairs can differ.
    negative = np.signbit(answer)[[0, 1, 5, 6]]
    assert negative.any(), "onnxruntime answered Max(-0, +0) = +0 in every mixed pair here"
    assert output["classes"] == {"signed_zero": int(negative.sum())}
    assert [m["at"] for m in output["first"]] == [
        [i] for i, n in zip([0, 1, 5, 6], negative, strict=True) if n
    ]
    assert all(m["expected"] == 0.0 and m["got"] == -0.0 for m in output["first"])
