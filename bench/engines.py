"""The engines the kernel benchmarks race against, in-process on the same NumPy arrays: onnxruntime
(one intra-op thread) and OpenVINO's CPU plugin (one inference thread, f32 kept as f32)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

ONNX_TYPES = {np.dtype(np.float32): 1, np.dtype(np.float16): 10, np.dtype(np.int64): 7}


def onnx_session(op: str, arrays: Sequence[np.ndarray], out_rank: int, **attrs) -> Callable[[], object]:
    """An onnxruntime session of one node `op` over inputs shaped as `arrays`; calling it runs the node."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    elem = ONNX_TYPES[arrays[0].dtype]
    names = [f"x{i}" for i in range(len(arrays))]
    inputs = [
        helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype], list(a.shape))
        for n, a in zip(names, arrays, strict=True)
    ]
    output = helper.make_tensor_value_info("y", elem, [None] * out_rank)
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], "bench", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feed = dict(zip(names, arrays, strict=True))
    del onnx
    return lambda: session.run(None, feed)


def openvino_segment_max(data: np.ndarray, ids: np.ndarray, count: np.ndarray) -> Callable[[], object]:
    """OpenVINO's SegmentMax-16 on the CPU plugin, compiled for these shapes; calling it infers."""
    import openvino as ov
    import openvino.opset16 as ops

    params = [
        ops.parameter(list(a.shape), ov.Type(a.dtype), name=n)
        for n, a in (("data", data), ("ids", ids), ("n", count))
    ]
    node = ops.segment_max(params[0], params[1], params[2], fill_mode="LOWEST")
    model = ov.Model([node], params, "bench")
    config = {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}
    compiled = ov.Core().compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    feed = [data, ids, count]
    return lambda: request.infer(feed)
