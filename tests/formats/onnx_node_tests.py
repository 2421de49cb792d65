"""ONNX's own backend node tests, built by the installed onnx's generators (no network), as a suite nobody
here wrote: every model is valid (onnxruntime runs it) and carries its inputs and expected outputs.

onnx 1.23's wheel no longer ships the files under onnx/backend/test/data/node, so they are built in
memory by `onnx.backend.test.case.node.collect_testcases()`, with numpy seeded first (as
`backend-test-tools generate-data` does) so every run builds the same inputs. `write()` puts them on
disk the way those tools write them, for the tests that run `opspec check` as a CI job would, and
`openvino_irs()` converts them to IR with OpenVINO's own converter (cached, since that takes ~30 s).

    python -m tests.formats.onnx_node_tests DIR     # the models as node/<name>/model.onnx
"""

from __future__ import annotations

import functools
import hashlib
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx

CACHE = Path(__file__).parents[2] / ".cache" / "onnx-node-tests"


@dataclass(frozen=True)
class NodeTest:
    name: str
    model: onnx.ModelProto
    inputs: list[Any]  # the first data set's, in the graph's input order
    outputs: list[Any]  # expected, in the graph's output order
    rtol: float
    atol: float

    @functools.cached_property
    def data(self) -> bytes:
        return self.model.SerializeToString()

    @functools.cached_property
    def accepted(self) -> bool:
        """ONNX itself accepts the model: its checker (full_check: strict shape inference too)."""
        try:
            onnx.checker.check_model(self.model, full_check=True)
        except Exception:
            return False
        return True


@functools.cache
def node_tests() -> tuple[NodeTest, ...]:
    from onnx.backend.test.case import node as cases

    state = np.random.get_state()
    np.random.seed(0)
    with warnings.catch_warnings():  # the generators' own arithmetic (a log of 0, an int overflow)
        warnings.simplefilter("ignore")
        collected = cases.collect_testcases()
    np.random.set_state(state)
    tests = []
    for case in collected:
        inputs, outputs = case.data_sets[0] if case.data_sets else ([], [])
        tests.append(NodeTest(case.name, case.model, list(inputs), list(outputs), case.rtol, case.atol))
    return tuple(tests)


def write(folder: Path) -> list[Path]:
    """Every model as `<folder>/<name>/model.onnx`; the paths, in name order."""
    paths = []
    for test in node_tests():
        path = folder / test.name / "model.onnx"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(test.data)
        paths.append(path)
    return sorted(paths)


def openvino_irs() -> dict[str, tuple[bytes, bytes]]:
    """Each model OpenVINO converts, as its IR (xml, bin), by test name; converted once per onnx and
    OpenVINO version into .cache/ (OpenVINO refuses the ones it has no conversion rule for)."""
    import openvino as ov

    key = hashlib.sha256(f"{onnx.__version__} {ov.__version__}".encode()).hexdigest()[:12]
    folder = CACHE / f"ir-{key}"
    done = folder / "done"
    if not done.exists():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"converting ONNX's node tests to OpenVINO IR into {folder} (once, ~30 s)", file=sys.stderr)
        for test in node_tests():
            source = folder / f"{test.name}.onnx"
            source.write_bytes(test.data)
            try:
                model = ov.convert_model(str(source))
            except Exception:  # no conversion rule for the op (training ops, some sequences)
                continue
            finally:
                source.unlink()
            ov.save_model(model, str(folder / f"{test.name}.xml"), compress_to_fp16=False)
        done.write_text("")
    irs = {}
    for xml in sorted(folder.glob("*.xml")):
        weights = xml.with_suffix(".bin")
        irs[xml.stem] = (xml.read_bytes(), weights.read_bytes() if weights.exists() else b"")
    return irs


def fed(node: Any, data: Any) -> dict[str, Any]:
    """A checked node's descriptor (a NodeResult's) with data on every input that carries none of its own:
    `data(k)` gives native input k's array, reshaped here to the descriptor's shape (an N-D Scale that the
    translation flattened) and cast to its dtype."""
    from app.core.dtypes import DTYPES

    descriptor = dict(node.descriptor or {})
    native = node.native_inputs or list(range(len(descriptor["inputs"])))
    tensors = []
    for tensor, index in zip(descriptor["inputs"], native, strict=True):
        if "data" not in tensor:
            array = np.asarray(data(index), DTYPES[tensor["dtype"]].numpy)
            shape = tensor["shape"]
            array = array.reshape(shape) if shape is not None and -1 not in shape else array
            tensor = {**tensor, "data": array, "shape": list(array.shape)}
        tensors.append(tensor)
    return {**descriptor, "inputs": tensors}


if __name__ == "__main__":
    written = write(Path(sys.argv[1]) / "node")
    print(f"{len(written)} models written under {sys.argv[1]}/node")
