"""The reduction and softmax families over benchdnn's committed graph inputs: every node of these kinds
is checked, every file is valid, every inferred shape is the file's; mutated copies are errors at the
node, named by rule, with a line and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_INVALID, main
from app.core.config import Settings
from app.core.numbers import INT64_MIN
from app.formats import graphs

BENCHDNN = Path(__file__).resolve().parent.parent / "formats" / "files" / "benchdnn"
KINDS = {
    "ReduceL1": 2, "ReduceL2": 2, "ReduceMax": 2, "ReduceMean": 2, "ReduceMin": 2, "ReduceProd": 2,
    "ReduceSum": 24, "SoftMax": 43, "SoftMaxBackward": 2, "LogSoftmax": 1, "LogSoftmaxBackward": 1,
}  # fmt: skip


def _files() -> list[Path]:
    return [
        path
        for path in sorted(BENCHDNN.rglob("*.json"))
        if any(op["kind"] in KINDS for op in json.loads(path.read_text()).get("graph", []))
    ]


def _file_shape(tensor: dict) -> list[int]:
    return [-1 if dim in (-1, INT64_MIN) else dim for dim in tensor["shape"]]


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(BENCHDNN)))
def test_every_node_is_checked_valid_and_inferred_as_the_file_says(path: Path) -> None:
    document = json.loads(path.read_text())
    result = graphs.check(path.read_bytes(), Settings())
    ops = {str(op["id"]): op for op in document["graph"]}
    assert not set(result.not_checked) & set(KINDS)
    mine = [node for node in result.nodes if node.kind in KINDS]
    assert mine
    for node in mine:
        assert node.checked_as == node.kind
        assert node.valid, node.diagnostics
        assert [d for d in node.diagnostics if d.severity == "error"] == []
        declared = [_file_shape(t) for t in ops[node.id]["outputs"]]
        inferred = [t.shape for t in node.outputs]
        assert len(inferred) == len(declared)
        for got, want in zip(inferred, declared, strict=True):
            if got is None or want == [-1]:  # rank unknown in the file (a dim of INT64_MIN only)
                continue
            assert len(got) == len(want)
            assert all(w == -1 or g == w for g, w in zip(got, want, strict=True)), (got, want)


def test_every_benchdnn_node_of_these_kinds_is_counted() -> None:
    counts = dict.fromkeys(KINDS, 0)
    for path in _files():
        for op in json.loads(path.read_text())["graph"]:
            if op["kind"] in counts:
                counts[op["kind"]] += 1
    assert counts == KINDS


# --- mutated copies ----------------------------------------------------------------------------------


def _load(name: str) -> dict:
    return json.loads((BENCHDNN / "op" / "f32" / name).read_text())


def _errors(document: dict) -> list[tuple[str, str, tuple[int, int] | None]]:
    data = (json.dumps(document, indent=2) + "\n").encode()
    result = graphs.check(data, Settings())
    assert not result.valid
    return [
        (d.rule, d.path, result.position(d.path))
        for node in result.nodes
        for d in node.diagnostics
        if d.severity == "error"
    ]


def _mutate(name: str, change) -> list[tuple[str, str, tuple[int, int] | None]]:
    document = _load(name)
    change(document["graph"][0])
    return _errors(document)


MUTATIONS = [
    ("reducesum.json", "axis out of range", lambda op: op["attrs"]["axes"].update(value=[4]),
     "ReduceSum.axes.range", "graph[0].attrs.axes.value[0]"),
    ("reducesum.json", "dtype outside the table", lambda op: op["inputs"][0].update(dtype="s8"),
     "ReduceSum.src.dtype", "graph[0].inputs[0].dtype"),
    ("reducesum.json", "wrong declared dim", lambda op: op["outputs"][0]["shape"].__setitem__(1, 128),
     "ReduceSum.outputs.dim", "graph[0].outputs[0].shape[1]"),
    ("reducesum.json", "an input dim changed", lambda op: op["inputs"][0]["shape"].__setitem__(2, 7),
     "ReduceSum.outputs.dim", "graph[0].outputs[0].shape[2]"),
    ("reducemin.json", "a repeated axis", lambda op: op["attrs"]["axes"].update(value=[1, -3]),
     "ReduceMin.axes.unique", "graph[0].attrs.axes.value[1]"),
    ("reducel2.json", "wrong declared dtype", lambda op: op["outputs"][0].update(dtype="f16"),
     "ReduceL2.outputs.dtype", "graph[0].outputs[0].dtype"),
    ("softmax.json", "axis out of range", lambda op: op["attrs"]["axis"].update(value=4),
     "SoftMax.axis.range", "graph[0].attrs.axis.value"),
    ("softmax.json", "mode outside its values", lambda op: op["attrs"]["mode"].update(value="zero"),
     "SoftMax.attrs.value", "graph[0].attrs.mode.value"),
    ("softmax.json", "src and dst of two 16-bit types", lambda op: (op["inputs"][0].update(dtype="bf16"),
                                                                     op["outputs"][0].update(dtype="f16")),
     "SoftMax.outputs.dtype", "graph[0].outputs[0].dtype"),
    ("logsoftmax.json", "wrong declared rank", lambda op: op["outputs"][0]["shape"].pop(),
     "LogSoftmax.outputs.rank", "graph[0].outputs[0].shape"),
    ("softmax_bwd.json", "dst of another shape", lambda op: op["inputs"][1]["shape"].__setitem__(1, 3),
     "SoftMaxBackward.shapes", "graph[0].inputs[1].shape"),
    ("logsoftmax_bwd.json", "axis below -r", lambda op: op["attrs"]["axis"].update(value=-5),
     "LogSoftmaxBackward.axis.range", "graph[0].attrs.axis.value"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "what", "change", "rule", "path"), MUTATIONS, ids=[m[1] for m in MUTATIONS])
def test_a_mutated_copy_is_an_error_at_the_node(name, what, change, rule, path) -> None:
    errors = _mutate(name, change)
    assert (rule, path) in [(r, p) for r, p, _ in errors], errors
    position = next(at for r, p, at in errors if (r, p) == (rule, path))
    assert position is not None and position[0] > 1


def test_a_removed_input_and_an_extra_input_are_arity_errors() -> None:
    """(No op of these families has a required attribute to remove: every attribute has a default.)"""
    too_few = _mutate("softmax_bwd.json", lambda op: op["inputs"].pop())
    assert ("SoftMaxBackward.inputs.count", "graph[0].inputs") in [(r, p) for r, p, _ in too_few]
    extra = {
        "id": 99,
        "dtype": "s32",
        "shape": [1],
        "stride": [1],
        "layout_type": "strided",
        "property_type": "undef",
    }
    too_many = _mutate("logsoftmax.json", lambda op: op["inputs"].append(extra))
    assert ("LogSoftmax.inputs.count", "graph[0].inputs") in [(r, p) for r, p, _ in too_many]
    three = _mutate("reducemean.json", lambda op: op["inputs"].extend([extra, extra]))
    assert ("ReduceMean.inputs.count", "graph[0].inputs") in [(r, p) for r, p, _ in three]


def test_opspec_check_prints_the_line_and_column(tmp_path, capsys) -> None:
    """benchdnn's softmax.json with axis 4 (rank 4): `opspec check` names the rule at the value's line."""
    text = (BENCHDNN / "op" / "f32" / "softmax.json").read_text()
    document = json.loads(text)
    document["graph"][0]["attrs"]["axis"]["value"] = 4
    path = tmp_path / "softmax.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    assert main(["check", str(path)]) == EXIT_INVALID
    lines = path.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if '"value": 4' in line) + 1
    column = lines[row - 1].index('"value"') + 10  # the value after `"value": `
    out = capsys.readouterr().out
    assert f"{path}:{row}:{column}: error SoftMax.axis.range: SoftMax: axis 4 is out of range [-4, 3]" in out
