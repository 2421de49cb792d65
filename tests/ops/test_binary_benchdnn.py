"""The binary family over benchdnn's 283 committed graph inputs, read through app.formats as `opspec
check` reads them: every node of the family is checked, valid, and its inferred shapes are the file's;
and mutated copies get an error at the node, named by rule, with its line and column."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from app.cli import EXIT_INVALID, main
from app.core.config import Settings
from app.core.numbers import INT64_MIN
from app.formats import graphs

BENCHDNN = Path(__file__).resolve().parents[1] / "formats" / "files" / "benchdnn"
FAMILY = {"Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Pow", "SquaredDifference",
          "GreaterEqual", "Select", "PReLU", "PReLUBackward", "BiasAdd", "BiasAddBackward"}  # fmt: skip


def dump(document) -> bytes:
    return (json.dumps(document, indent=2) + "\n").encode()


def check(data: bytes):
    return graphs.check(data, Settings())


def _files() -> list[Path]:
    return sorted(BENCHDNN.rglob("*.json"))


def test_every_node_of_the_family_is_checked_valid_and_inferred_as_the_file_says() -> None:
    kinds: Counter[str] = Counter()
    for path in _files():
        name = path.relative_to(BENCHDNN).as_posix()
        document = json.loads(path.read_text())
        declared = {op["id"]: op for op in document.get("graph", [])}
        result = check(path.read_bytes())
        for node in result.nodes:
            if node.kind not in FAMILY:
                continue
            kinds[node.kind] += 1
            assert node.checked_as == node.kind, (name, node.name)
            errors = [d for d in node.diagnostics if d.severity == "error"]
            assert node.valid, (name, node.name, errors)
            op = declared[int(node.id)]
            for got, want in zip(node.outputs, op["outputs"], strict=True):
                if want["shape"] == [INT64_MIN]:  # left for the library to infer: of unknown rank
                    continue
                assert got.shape == want["shape"], (name, node.name, got.shape, want["shape"])
                assert got.dtype == want["dtype"]
        assert "BiasAddBackward" not in result.not_checked
    assert kinds == {"Multiply": 173, "Add": 109, "Subtract": 33, "Divide": 29, "Select": 17, "GreaterEqual": 10,
                     "BiasAdd": 5, "Minimum": 3, "PReLUBackward": 2, "Maximum": 1, "PReLU": 1}  # fmt: skip


def test_biasaddbackprop_is_a_kind_onednn_does_not_know_and_stays_not_checked() -> None:
    result = check((BENCHDNN / "op" / "f32" / "biasadd_bwd.json").read_bytes())
    assert result.not_checked == {"BiasAddBackprop": 1}


def test_beyond_the_table_is_a_warning_not_an_error() -> None:
    """benchdnn's Multiply bf16 x bf16 -> f32 and Divide bf16 / f32 -> bf16: oneDNN's schema admits both."""
    warned: Counter[str] = Counter()
    for path in _files():
        for node in check(path.read_bytes()).nodes:
            for d in node.diagnostics:
                if d.rule.endswith(".onednn.dtypes") and node.kind in FAMILY:
                    warned[node.kind] += 1
                    assert d.severity == "warning" and node.valid
    assert warned == {"Multiply": 13, "Divide": 1}


# --- mutations: an error at the node, by rule, with a line and a column -----------------------------------


def _load(relative: str) -> dict:
    return json.loads((BENCHDNN / relative).read_text())


def _errors(document: dict) -> list[tuple[str, str, tuple[int, int] | None]]:
    result = check(dump(document))
    return [
        (d.rule, d.path, result.position(d.path))
        for node in result.nodes
        for d in node.diagnostics
        if d.severity == "error"
    ]


def _op(document: dict, kind: str) -> tuple[int, dict]:
    return next((i, op) for i, op in enumerate(document["graph"]) if op["kind"] == kind)


MUTATIONS = [
    # (file, kind, mutation, rule, path suffix)
    ("pattern/f32/binary_2d_post_ops_sum_fusion.json", "Maximum",
     lambda op: op["inputs"][1]["shape"].__setitem__(1, 7), "Maximum.broadcast", "inputs[1].shape[1]"),
    ("pattern/f32/reduction_post_ops_min_chain_fusion.json", "Minimum",
     lambda op: op["inputs"][1]["shape"].__setitem__(0, 1), "Minimum.auto_broadcast.none", "inputs[1].shape"),
    ("op/f32/biasadd.json", "BiasAdd",
     lambda op: op["inputs"][1]["shape"].__setitem__(0, 64), "BiasAdd.bias.size", "inputs[1].shape[0]"),
    ("op/f32/biasadd.json", "BiasAdd",
     lambda op: op["attrs"]["data_format"].__setitem__("value", "NHWC"), "BiasAdd.attrs.value", "attrs.data_format"),
    ("op/f32/prelu.json", "PReLU",
     lambda op: op["inputs"][1]["shape"].__setitem__(3, 5), "PReLU.slope.shape", "inputs[1].shape[3]"),
    ("op/f32/prelu_bwd.json", "PReLUBackward",
     lambda op: op["inputs"][1].__setitem__("dtype", "s8"), "PReLUBackward.slope.dtype", "inputs[1].dtype"),
    ("op/f32/prelu_bwd.json", "PReLUBackward",
     lambda op: op["inputs"].pop(), "PReLUBackward.inputs.count", "inputs"),
    ("op/f32/prelu_bwd.json", "PReLUBackward",
     lambda op: op["outputs"][1]["shape"].__setitem__(0, 3), "PReLUBackward.outputs.dim", "outputs[1].shape[0]"),
    ("pattern/f32/binary_2d_post_ops_sum_fusion.json", "Maximum",
     lambda op: op["inputs"].append(copy.deepcopy(op["inputs"][0])), "Maximum.inputs.count", "inputs"),
    ("pattern/f32/binary_2d_post_ops_sum_fusion.json", "Maximum",
     lambda op: op["outputs"][0].__setitem__("dtype", "bf16"), "Maximum.outputs.dtype", "outputs[0].dtype"),
    ("pattern/f32/binary_2d_post_ops_sum_fusion.json", "Maximum",
     lambda op: op["inputs"][0].__setitem__("dtype", "s32"), "Maximum.src_0.dtype", "inputs[0].dtype"),
]  # fmt: skip


@pytest.mark.parametrize(("relative", "kind", "mutate", "rule", "suffix"), MUTATIONS)
def test_a_mutated_copy_gets_an_error_at_the_node(relative, kind, mutate, rule, suffix) -> None:
    document = _load(relative)
    assert not _errors(document)
    index, op = _op(document, kind)
    mutate(op)
    found = _errors(document)
    matching = [(r, p, where) for r, p, where in found if r == rule]
    assert matching, found
    _, path, where = matching[0]
    native = f"graph[{index}].{suffix}"
    assert path.startswith(native) or native.startswith(path), (path, native)
    assert where is not None and where[0] > 1


def test_a_required_attribute_removed_is_named() -> None:
    """No benchdnn file holds a Pow (oneDNN runs it only fused): one built in the file's layout."""
    document = {"version": "3.13.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
        {"id": 0, "name": "pow", "kind": "Pow", "attrs": {"beta": {"type": "f32", "value": 2.0}},
         "inputs": [{"id": 1, "dtype": "f32", "shape": [2, 3], "stride": [3, 1], "layout_type": "strided",
                     "property_type": "undef"}],
         "outputs": [{"id": 2, "dtype": "f32", "shape": [2, 3], "stride": [3, 1], "layout_type": "strided",
                      "property_type": "undef"}]}]}  # fmt: skip
    assert not _errors(document)
    del document["graph"][0]["attrs"]["beta"]
    ((rule, path, where),) = _errors(document)
    assert (rule, path) == ("Pow.attrs.required", "graph[0].attrs")
    assert where == (10, 16)


def test_opspec_check_prints_the_line_and_column_of_a_mutated_bias(tmp_path, capsys) -> None:
    document = _load("op/f32/biasadd.json")
    _, op = _op(document, "BiasAdd")
    op["inputs"][1]["shape"][0] = 64
    path = tmp_path / "biasadd.json"
    path.write_bytes(dump(document))
    assert main(["check", str(path)]) == EXIT_INVALID
    (line,) = [text for text in capsys.readouterr().out.splitlines() if "BiasAdd.bias.size" in text]
    where = check(dump(document)).position("graph[0].inputs[1].shape[0]")
    assert line.startswith(
        f"{path}:{where[0]}:{where[1]}: error BiasAdd.bias.size: BiasAdd: bias has 64 elements"
    )
