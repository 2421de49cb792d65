"""The graph check's shortcuts give exactly the answer of the long way: shared answers, moved
diagnostics, one translation per attribute set, the names test, the collector paused and restored."""

from __future__ import annotations

import copy
import gc
import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from app.core import collector
from app.core.config import Settings
from app.core.diagnostics import Diagnostic, Related
from app.core.payload import LimitExceeded
from app.formats import graphs, onednn
from app.formats.errors import Malformed
from app.formats.graph import RULES, Memo, _moved, diagnostic, walk
from app.formats.jsonpos import Lines


def chain_model(layers: int, names=None) -> bytes:
    """x[N, 8, 16] -> (ReduceMax over axis 2, keepdims, then Max with b[1, 1, 16]) repeated."""
    nodes, current = [], "x"
    for index in range(layers):
        reduced, widened = f"r{index}", f"m{index}"
        name = names[index] if names else f"reduce{index}"
        nodes.append(helper.make_node("ReduceMax", [current, "axes"], [reduced], name=name, keepdims=1))
        nodes.append(helper.make_node("Max", [reduced, "b"], [widened], name=f"max{index}"))
        current = widened
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 16])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axes"),
            numpy_helper.from_array(np.zeros((1, 1, 16), dtype=np.float32), "b"),
        ],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return onnx.shape_inference.infer_shapes(proto).SerializeToString()


def answers(result):
    return [
        (n.id, n.name, n.kind, n.checked_as, n.valid, n.path,
         [(t.dtype, t.shape) for t in n.inputs], [(t.dtype, t.shape) for t in n.outputs],
         [d.model_dump() for d in n.diagnostics])
        for n in result.nodes
    ]  # fmt: skip


def test_shared_answers_equal_answers_made_one_by_one(monkeypatch) -> None:
    data = chain_model(6)
    shared = graphs.check(data, Settings())
    assert len(shared.nodes) == 12 and shared.valid
    reduce_5 = shared.nodes[10]
    assert [(d.rule, d.path) for d in reduce_5.diagnostics] == [("graph.translated", "node[reduce5]")]
    assert reduce_5.outputs[0].shape == ["N", 8, 1]
    # The long way: no answer shared between nodes, every node translated and checked afresh.
    made = Memo.__init__

    def unshared(self) -> None:
        made(self)
        self.same, self.nodes = _Forgetful(), _Forgetful()

    monkeypatch.setattr(Memo, "__init__", unshared)
    alone = graphs.check(data, Settings())
    assert answers(shared) == answers(alone)


class _Forgetful(dict):
    def __setitem__(self, key, value) -> None:
        pass


def test_moved_diagnostic_is_model_copy_at_another_path() -> None:
    template = diagnostic("graph.translated", "node[a]", "how it was translated")
    moved = _moved(template, "node[b]")
    assert moved == template.model_copy(update={"path": "node[b]"})
    assert moved.model_dump_json() == template.model_dump_json().replace("node[a]", "node[b]")
    assert template.path == "node[a]" and moved.model_fields_set == template.model_fields_set


@pytest.mark.parametrize("severity", [None, "warning"])
def test_a_graph_finding_is_made_as_model_construct_makes_it(severity) -> None:
    made = diagnostic("graph.edge", "graph[2].inputs[0]", "declared two ways", severity)
    rule = RULES["graph.edge"]
    expected = Diagnostic.model_construct(
        severity=severity or rule.severity, rule="graph.edge", path="graph[2].inputs[0]",
        message="declared two ways", spec=rule.spec, status=None,
    )  # fmt: skip
    assert made == expected and made.model_fields_set == expected.model_fields_set
    assert made.model_dump_json() == expected.model_dump_json()
    made.related = expected.related = [Related(path="graph[0].outputs[0]", message="there")]
    assert made.model_dump_json() == expected.model_dump_json()


def test_each_attribute_set_gets_its_own_translation() -> None:
    nodes = [
        helper.make_node("ReduceMax", ["x", "axes"], [f"r{k}"], name=f"reduce{k}", keepdims=k % 2 == 0)
        for k in range(4)
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8, 16])],
        [helper.make_tensor_value_info(f"r{k}", TensorProto.FLOAT, None) for k in range(4)],
        [numpy_helper.from_array(np.array([2], dtype=np.int64), "axes")],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    result = graphs.check(data, Settings())
    reduces = result.nodes
    assert [n.outputs[0].shape for n in reduces] == [["N", 8, 1], ["N", 8], ["N", 8, 1], ["N", 8]]
    assert ["keep_dims=False" in n.diagnostics[0].message for n in reduces] == [False, True, False, True]


def test_non_ascii_names_take_the_long_way_and_keep_their_text() -> None:
    result = graphs.check(chain_model(2, names=["réduire", "reduce1"]), Settings())
    assert [n.path for n in result.nodes][:2] == ["node[réduire]", "node[max0]"]
    assert result.nodes[0].diagnostics[0].path == "node[réduire]"


def test_an_untyped_input_is_named_even_after_a_like_node_was_checked() -> None:
    """An absent optional input and a named one no node makes both flow as no value; only the
    second is untyped, so the first node's answer must not be given to the second."""
    nodes = [
        helper.make_node("ReduceMax", ["x", "nowhere"], ["r1"], name="untyped", keepdims=1),
        helper.make_node("ReduceMax", ["x", ""], ["r0"], name="absent", keepdims=1),
    ]  # nodes ready at once are walked last first: "absent" is answered before "untyped"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [None, None]) for n in ("r0", "r1")],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    result = graphs.check(data, Settings())
    untyped, absent = result.nodes
    assert absent.checked_as == "ReduceMax" and absent.outputs[0].shape == [1, 1]
    assert untyped.checked_as is None
    assert [(d.rule, d.message[:24]) for d in untyped.diagnostics] == [
        ("graph.untranslatable", "input 1 ('nowhere') has ")
    ]
    assert [d.rule for d in result.diagnostics] == ["graph.edge"]


def test_collector_is_paused_for_the_block_and_left_as_found() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block is still running
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collector_stays_paused_until_the_last_of_overlapping_blocks_ends() -> None:
    # Two requests in two threads: the first to end must not switch the collector back on.
    first, second = collector.paused(), collector.paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_check_restores_the_collector_even_when_the_file_is_refused() -> None:
    graphs.check(chain_model(1), Settings())
    assert gc.isenabled()
    with pytest.raises(Malformed):
        graphs.check(b"\x08\x07\xff\xff\xff", Settings(), "onnx")
    assert gc.isenabled()


def test_walk_twice_gives_the_same_answer() -> None:
    graph = graphs.parse(chain_model(3), Settings(), "onnx")
    assert answers(walk(graph, Settings())) == answers(walk(graph, Settings()))


# --- oneDNN JSON --------------------------------------------------------------------------------


def onednn_file() -> bytes:
    """benchdnn's reducemax.json op five times over: alike, with other attributes, with a negative dim."""
    op = json.loads((Path(__file__).parent / "files" / "reducemax.json").read_text())["graph"][0]
    ops = []
    for k in range(5):
        one = copy.deepcopy(op)
        one["id"], one["name"] = k, f"REDUCTION_{k}"
        one["inputs"][0]["id"], one["outputs"][0]["id"] = 2 * k, 2 * k + 1
        ops.append(one)
    ops[2]["attrs"]["keep_dims"]["value"] = 0
    ops[2]["outputs"][0]["shape"], ops[2]["outputs"][0]["stride"] = [1, 150, 150], [22500, 150, 1]
    ops[3]["inputs"][0]["shape"][2] = -5
    return (json.dumps({"version": "3.0.0", "graph": ops}, indent=2) + "\n").encode()


def test_onednn_shared_answers_equal_answers_made_one_by_one(monkeypatch) -> None:
    data = onednn_file()
    shared = graphs.check(data, Settings(), "onednn")
    assert [n.valid for n in shared.nodes] == [True, True, True, True, True]
    assert shared.nodes[2].outputs[0].shape == [1, 150, 150]
    assert shared.nodes[3].inputs[0].shape == [1, 128, "dyn__0", 150]  # an unknown input dim: a fresh name
    assert [(d.rule, d.path) for d in shared.diagnostics] == [("graph.dim", "graph[3].inputs[0].shape[2]")]
    starts = [(k + 1, 5) for k, line in enumerate(data.decode().splitlines()) if line == "    {"]
    assert [(n.line, n.column) for n in shared.nodes] == starts and len(starts) == 5
    made = Memo.__init__

    def unshared(self) -> None:
        made(self)
        self.same, self.nodes = _Forgetful(), _Forgetful()

    monkeypatch.setattr(Memo, "__init__", unshared)
    alone = graphs.check(data, Settings(), "onednn")
    assert answers(shared) == answers(alone)


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_onednn_nesting_limit_is_exact(depth: int) -> None:
    nested: list = [1, "x"]  # a list of scalars nests one level deep
    for _ in range(depth - 1):
        nested = [nested]
    onednn._depth(nested, depth)
    onednn._depth({"graph": nested}, depth + 1)
    with pytest.raises(LimitExceeded):
        onednn._depth([nested], depth)
    with pytest.raises(LimitExceeded):
        onednn._depth(0, 0)


@pytest.mark.parametrize("text", ["", "a", "a\n", "\n\nab\nc", "é\nü\n\n", "\U0001f600\nx\ny"])
def test_line_starts_count_characters(text: str) -> None:
    starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
    assert Lines(text).starts.tolist() == starts  # a NumPy array: 4 bytes a line, not a list of ints


def test_a_name_that_is_not_utf8_is_read_with_a_replacement_character() -> None:
    data = chain_model(1, names=["reduceZ"]).replace(b"reduceZ", b"reduce\xff")
    result = graphs.check(data, Settings())
    assert result.nodes[0].path == "node[reduce\ufffd]" and result.nodes[0].checked_as == "ReduceMax"
