"""benchdnn's graph inputs, read through app.formats: every node of the quantization and layout families is
checked (none in not_checked), every file is valid for them (oneDNN accepts all 283), and the shapes
inferred are the shapes the files write. Mutated copies get an error at the node, by rule, with its line
and column in `opspec check`."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from app.cli import EXIT_INVALID, main
from app.core.config import Settings
from app.formats import graphs
from app.ops import layout, quantization

BENCHDNN = Path(__file__).parent.parent / "formats" / "files" / "benchdnn"
KINDS = {spec.kind for spec in (*quantization.OPS, *layout.OPS)}
# The nodes of these kinds benchdnn's 283 files hold.
COUNTS = {"Dequantize": 164, "TypeCast": 116, "Quantize": 68, "GenIndex": 19, "DynamicDequantize": 16,
          "StaticReshape": 14, "StaticTranspose": 14, "Reorder": 11, "Dropout": 6, "Concat": 5, "End": 2,
          "DynamicQuantize": 2}  # fmt: skip
# The warnings they get, each a documented departure of the graph from its page (see docs/ops).
WARNINGS = {"Dropout.onednn.dtypes": 6, "DynamicDequantize.onednn.dtypes": 3, "Dequantize.scales.extra": 1}


def test_every_node_is_checked_valid_and_inferred_as_the_file_writes() -> None:
    settings = Settings()
    seen: Counter[str] = Counter()
    warned: Counter[str] = Counter()
    for path in sorted(BENCHDNN.rglob("*.json")):
        document = json.loads(path.read_text())
        declared = {op["id"]: op["outputs"] for op in document["graph"]}
        result = graphs.check(path.read_bytes(), settings)
        assert not KINDS & set(result.not_checked), (path, result.not_checked)
        for node in result.nodes:
            if node.kind not in KINDS:
                continue
            seen[node.kind] += 1
            assert node.checked_as == node.kind and node.valid, (path, node.path, node.diagnostics)
            warned.update(d.rule for d in node.diagnostics)
            written = [[-1 if d in (-1, -(2**63)) else d for d in t["shape"]] for t in declared[int(node.id)]]
            assert [t.shape for t in node.outputs] == written, (path, node.path)
    assert dict(seen) == COUNTS
    assert dict(warned) == WARNINGS


def read(name: str) -> dict:
    return json.loads((BENCHDNN / name).read_text())


def _more_inputs(op: dict) -> None:
    op["inputs"].append({**op["inputs"][0], "id": 999})


MUTATIONS = [
    ("op/f32/concat.json", lambda op: op["inputs"][1]["shape"].__setitem__(0, 7), "Concat.inputs.dim",
     "graph[0].inputs[1].shape[0]"),
    ("op/f32/genindex.json", lambda op: op["attrs"]["axis"].__setitem__("value", 9), "GenIndex.axis.range",
     "graph[0].attrs.axis.value"),
    ("op/f16/typecast.json", lambda op: op["inputs"][0].__setitem__("dtype", "s8"), "TypeCast.src.dtype",
     "graph[0].inputs[0].dtype"),
    ("op/f32/static_reshape.json", lambda op: op["attrs"].pop("special_zero"), "StaticReshape.attrs.required",
     "graph[0].attrs"),
    ("op/f32/dequantize_f8_e5m2.json", _more_inputs, "Dequantize.inputs.count", "graph[0].inputs"),
    ("op/f32/dynamicdq.json", lambda op: op["inputs"].pop(), "DynamicDequantize.inputs.count", "graph[0].inputs"),
    ("op/f32/static_transpose.json", lambda op: op["outputs"][0]["shape"].__setitem__(0, 99),
     "StaticTranspose.outputs.dim", "graph[0].outputs[0].shape[0]"),
    ("op/f32/quantize_f8_e5m2.json", lambda op: op["attrs"]["scales"]["value"].append(0.5), "Quantize.scales.count",
     "graph[0].attrs.scales.value"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "mutate", "rule", "where"), MUTATIONS, ids=[m[2] for m in MUTATIONS])
def test_a_mutated_copy_is_an_error_at_the_node_with_its_line(
    tmp_path, capsys, name, mutate, rule, where
) -> None:
    document = copy.deepcopy(read(name))
    (op,) = [op for op in document["graph"] if op["kind"] in KINDS]
    mutate(op)
    data = (json.dumps(document, indent=2) + "\n").encode()
    result = graphs.check(data, Settings())
    errors = [d for node in result.nodes for d in node.diagnostics if d.severity == "error"]
    assert [(d.rule, d.path) for d in errors][:1] == [(rule, where)], errors
    line, column = result.position(where)
    file = tmp_path / "mutated.json"
    file.write_bytes(data)
    assert main(["check", str(file)]) == EXIT_INVALID
    assert f"{file}:{line}:{column}: error {rule}: " in capsys.readouterr().out


def test_wildcard_in_a_graph_is_checked_and_passes_its_declared_outputs_on() -> None:
    def lt(tid: int, dtype: str, shape: list[int]) -> dict:
        stride = [5, 1] if shape == [4, 5] else [4, 1] if shape == [5, 4] else [1]  # dense
        return {"id": tid, "dtype": dtype, "shape": shape, "stride": stride, "layout_type": "strided",
                "property_type": "undef"}  # fmt: skip

    graph = [
        {"id": 0, "name": "w", "kind": "Wildcard", "attrs": {}, "inputs": [lt(1, "s8", [3])],
         "outputs": [lt(2, "f32", [4, 5]), lt(3, "undef", [7])]},
        {"id": 1, "name": "t", "kind": "StaticTranspose", "attrs": {"order": {"type": "s64[]", "value": [1, 0]}},
         "inputs": [lt(2, "f32", [4, 5])], "outputs": [lt(4, "f32", [5, 4])]},
        {"id": 2, "name": "e", "kind": "End", "attrs": {}, "inputs": [lt(4, "f32", [5, 4])], "outputs": []},
    ]  # fmt: skip
    data = json.dumps(
        {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": graph}
    ).encode()
    result = graphs.check(data, Settings())
    assert result.valid and result.not_checked == {}
    wildcard, transpose, end = result.nodes
    assert wildcard.checked_as == "Wildcard" and [d.rule for d in wildcard.diagnostics] == [
        "Wildcard.unchecked"
    ]
    assert [(o.dtype, o.shape) for o in wildcard.outputs] == [("f32", [4, 5]), ("undef", [7])]
    assert [(o.dtype, o.shape) for o in transpose.outputs] == [("f32", [5, 4])]
    assert end.checked_as == "End" and end.outputs == []
