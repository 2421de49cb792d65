"""The plain graph path (`graph_path="plain"`: msgspec structs, each node's descriptor checked as a plain
object, pydantic only to explain a fault) against the reference path it replaces (`graph_path=
"reference"`: a pydantic model per node, json.loads for oneDNN Graph JSON): every answer the same, over
benchdnn's 283 graphs, ONNX's 1,884 generated node tests and their OpenVINO IRs, real models out of PyPI
wheels, the 1,033 oneDNN-judged mutations of benchdnn's graphs, and graphs mutated by hypothesis.

An answer is everything a face shows: the HTTP answer with each node's descriptor (verdicts, findings
with rule, path, message, severity and related places, inferred types with their symbols, coverage,
every value), the report `opspec check` writes (units, lines and columns), and for a file that is not
read, the refusal (its type, message, path and place).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.payload import LimitExceeded
from app.formats import answer, graphs
from app.formats.errors import Malformed
from app.report.json import file_dict
from tests.formats import models
from tests.formats.oracle.record_mutations import BENCHDNN, OUT, apply_edits

PLAIN = Settings(graph_path="plain")
REFERENCE = Settings(graph_path="reference")
CACHE = Path.home() / ".cache" / "opspec-test-wheels"


def answers(data: bytes, settings: Settings, format: str | None = None, weights: bytes | None = None) -> Any:
    """Everything a face shows of the check of one file, comparable with ==."""
    try:
        result = graphs.check(data, settings, format, weights)
    except Malformed as exc:
        return ("malformed", exc.message, exc.path, exc.line, exc.column)
    except LimitExceeded as exc:
        return ("limit", exc.message, exc.path)
    shown = json.loads(answer.to_json(result, descriptors=True))
    report = file_dict(graphs.to_report("graph", result))
    return shown, report


def same(data: bytes, format: str | None = None, weights: bytes | None = None) -> Any:
    """Both paths' answers for one file, asserted equal; the plain path's."""
    plain = answers(data, PLAIN, format, weights)
    assert plain == answers(data, REFERENCE, format, weights)
    return plain


BENCHDNN_FILES = sorted(BENCHDNN.rglob("*.json"))


def test_the_corpus_is_benchdnns_283_graphs() -> None:
    assert len(BENCHDNN_FILES) == 283


@pytest.mark.parametrize("path", BENCHDNN_FILES, ids=lambda p: str(p.relative_to(BENCHDNN)))
def test_benchdnn_graphs(path: Path) -> None:
    same(path.read_bytes())


MUTATIONS = json.loads(OUT.read_text())


def test_onednn_mutations() -> None:
    """Each of the oneDNN-judged mutations (tests/formats/test_onednn_mutations.py replays their verdicts)."""
    documents: dict[str, Any] = {}
    for mutation in MUTATIONS:
        name = mutation["file"]
        if name not in documents:
            documents[name] = json.loads((BENCHDNN / name).read_text())
        document = apply_edits(documents[name], mutation["edits"])
        same(json.dumps(document, indent=2).encode())


def test_onnx_node_tests() -> None:
    from tests.formats.onnx_node_tests import node_tests

    tests = node_tests()
    assert len(tests) == 1884
    for test in tests:
        same(test.data)


def test_openvino_irs_of_the_node_tests() -> None:
    pytest.importorskip("openvino")
    from tests.formats.onnx_node_tests import openvino_irs

    irs = openvino_irs()
    assert len(irs) > 1000
    for xml, weights in irs.values():
        same(xml, "openvino", weights)


@pytest.mark.parametrize("name", sorted({**models.WHEELS, **models.OPEN_DIMS}))
def test_real_models(name: str, tmp_path: Path) -> None:
    """Each model, and the IR OpenVINO converts from it (whose ReLU and GELU layers once shared one
    attribute dict that the plain path read as ReLU's for both)."""
    data = models.wheel_model(name, CACHE)
    same(data)
    ov = pytest.importorskip("openvino")
    source, target = tmp_path / "model.onnx", tmp_path / "model.xml"
    source.write_bytes(data)
    try:
        ov.save_model(ov.convert_model(str(source)), str(target))
    except Exception:  # a model OpenVINO cannot convert has no IR to compare
        return
    same(target.read_bytes(), "openvino", target.with_suffix(".bin").read_bytes())


@pytest.mark.parametrize(
    "build",
    [models.magika_like, models.if_model, models.loop_model, models.paddle_like, models.kv_cache_step],
)
def test_models_in_the_shapes_real_ones_have(build) -> None:
    same(build())


# --- graphs changed by hypothesis ------------------------------------------------------------------

# Values a change puts in a field: each kind a file gets wrong, and the right ones.
VALUES = st.one_of(
    st.integers(-3, 70),
    st.sampled_from([-1, -(2**63), 2**63, 2**70, 0, 1, 3.0, 2.5, True, False, None, "", "f32", "bf16", "s8",
                     "x", "N", "NXC", "OIX", "None", "SAME_UPPER", "floor", "strided", "any", "constant",
                     "inf", "-inf", 1e400]),
    st.lists(st.integers(-2, 9), max_size=6),
    st.lists(st.sampled_from([1, 2, 3.0, True, "a", None, -1, 2**63]), max_size=4),
    st.just({}),
    st.just({"type": "s64", "value": 1}),
)  # fmt: skip


def _places(document: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON document a change can go (dict values and list items)."""
    out = [path]
    if isinstance(document, dict):
        for key, value in document.items():
            out += _places(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            out += _places(value, (*path, index))
    return out


def _set(document: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(document)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


SMALL = [p for p in BENCHDNN_FILES if p.stat().st_size < 40_000]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_benchdnn_graphs_changed_by_hypothesis(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(SMALL))
    document = json.loads(path.read_text())
    for _ in range(data.draw(st.integers(1, 3))):
        places = _places(document)
        place = data.draw(st.sampled_from(places))
        action = data.draw(st.sampled_from(["set", "set", "set", "delete"]))
        if action == "delete" and place and isinstance(_get(document, place[:-1]), dict):
            document = copy.deepcopy(document)
            del _get(document, place[:-1])[place[-1]]
        else:
            document = _set(document, place, data.draw(VALUES))
    same(json.dumps(document).encode())


def _get(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


# Attribute values and dims a change puts in an ONNX model: right ones, wrong ones, ones of another type.
ONNX_INTS = st.one_of(st.integers(-3, 9), st.sampled_from([2**40, -(2**40), 0]))
ONNX_VALUES = st.one_of(
    ONNX_INTS.map(lambda v: ("i", v)),
    st.floats(-4, 4, allow_nan=False).map(lambda v: ("f", v)),
    st.lists(ONNX_INTS, max_size=5).map(lambda v: ("ints", v)),
    st.sampled_from([b"NOTSET", b"SAME_UPPER", b"VALID", b"", b"x"]).map(lambda v: ("s", v)),
)
ONNX_DIMS = st.one_of(st.integers(0, 9), st.sampled_from(["N", "N + 1", "batch size", "", -1]))


def _onnx_tests() -> list[Any]:
    from tests.formats.onnx_node_tests import node_tests

    return [t for t in node_tests() if len(t.data) < 20_000]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_onnx_node_tests_changed_by_hypothesis(data: st.DataObject) -> None:
    import onnx

    test = data.draw(st.sampled_from(_onnx_tests()), label="model")
    model = onnx.ModelProto()
    model.CopyFrom(test.model)
    graph = model.graph
    for _ in range(data.draw(st.integers(1, 3))):
        what = data.draw(st.sampled_from(["attribute", "attribute", "dim", "dtype", "input"]))
        if what == "attribute" and graph.node:
            node = data.draw(st.sampled_from(list(graph.node)))
            kind, value = data.draw(ONNX_VALUES)
            name = data.draw(st.sampled_from([a.name for a in node.attribute] + ["axis", "pads", "bogus"]))
            kept = [a for a in node.attribute if a.name != name]
            del node.attribute[:]
            node.attribute.extend(kept)
            node.attribute.append(onnx.helper.make_attribute(name, value, attr_type=_ONNX_TYPES[kind]))
        elif what == "dim" and graph.input:
            value = data.draw(st.sampled_from(list(graph.input)))
            shape = value.type.tensor_type.shape
            if shape.dim:
                dim = shape.dim[data.draw(st.integers(0, len(shape.dim) - 1))]
                new = data.draw(ONNX_DIMS)
                if isinstance(new, int):
                    dim.dim_value = new
                else:
                    dim.dim_param = new
        elif what == "dtype" and graph.input:
            value = data.draw(st.sampled_from(list(graph.input)))
            value.type.tensor_type.elem_type = data.draw(st.sampled_from([1, 2, 6, 7, 9, 10, 11, 16, 0]))
        elif what == "input" and graph.node:
            node = data.draw(st.sampled_from(list(graph.node)))
            if node.input:
                # ("" and "nowhere": onnx 1.23's inference crashed the process on some such nodes)
                node.input[data.draw(st.integers(0, len(node.input) - 1))] = data.draw(
                    st.sampled_from(["", "nowhere", *[i.name for i in graph.input]])
                )
    same(model.SerializeToString())


_ONNX_TYPES = {"i": 2, "f": 1, "ints": 7, "s": 3}  # AttributeProto's INT, FLOAT, INTS, STRING
