"""oneDNN Graph JSON besides its ops: the graph's fields, each logical tensor's layout and property, op
ids and what the file's oneDNN version had; each fault one finding at its field, naming the value and
the rule. (What oneDNN itself does with each is recorded in test_onednn_mutations.py.)"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from app.core.config import Settings
from app.formats import graphs

BENCHDNN = Path(__file__).parent / "files" / "benchdnn"
RELU_FUSION = json.loads((BENCHDNN / "pattern/f32/binary_2d_post_ops_relu_fusion.json").read_text())
INT64_MIN = -(2**63)


def check(document: dict) -> graphs.GraphResult:
    return graphs.check(json.dumps(document, indent=2).encode(), Settings())


def one(document: dict):
    """The one finding of a document, and where it is."""
    result = check(document)
    [finding] = result.diagnostics
    assert all(not n.diagnostics for n in result.nodes)
    return finding, result.position(finding.path)


def changed(edits: dict) -> dict:
    document = copy.deepcopy(RELU_FUSION)
    for path, value in edits.items():
        target = document
        *head, last = path
        for step in head:
            target = target[step]
        target[last] = value
    return document


IN0 = ("graph", 0, "inputs", 0)  # tensor 0: a graph input, [16, 13] f32, read by Minimum
OUT = ("graph", 1, "outputs", 0)  # tensor 2214: the graph's output, written by ReLU


@pytest.mark.parametrize(
    ("edits", "rule", "path", "severity", "message"),
    [
        ({("engine_kind",): "tpu"}, "graph.field", "engine_kind", "error",
         "engine_kind 'tpu' is not a value of the format: one of 'cpu', 'gpu', 'any'"),
        ({("fpmath_mode",): "fast"}, "graph.field", "fpmath_mode", "error",
         "fpmath_mode 'fast' is not a value of the format: one of 'strict', 'bf16', 'f16', 'tf32', 'any'"),
        ({("fpmath_mode_apply_to_int",): True}, "graph.field", "fpmath_mode_apply_to_int", "error",
         "fpmath_mode_apply_to_int True is not a value of the format: one of 'true', 'false', '1', '0'"),
        ({("version",): "banana"}, "graph.field", "version", "warning",
         "version 'banana' is not a oneDNN release number (major.minor.patch, such as '3.13.0'), so what that "
         "release had cannot be told"),
        ({("version",): 3}, "graph.field", "version", "error", "version must be a string such as '3.13.0'; got 3"),
        ({("input_ports",): [0, 161]}, "graph.ports", "input_ports[1]", "warning",
         "input_ports names tensor 161, which graph[0] (BINARY_0) produces: not a graph input"),
        ({("output_ports",): [7]}, "graph.ports", "output_ports[0]", "warning",
         "output_ports names tensor 7, which no op of the graph reads or writes"),
        ({("graph", 1, "id"): 1}, "graph.op.id", "graph[1].id", "error",
         "op id 1 of graph[1] (ELTWISE_1) is graph[0] (BINARY_0)'s too: each op has its own id (the library's "
         "partitioning crashes on some graphs that repeat one, and benchdnn keeps one op per id)"),
        ({(*IN0, "layout_type"): "weird"}, "graph.layout.type", "graph[0].inputs[0].layout_type", "error",
         "tensor 0's layout_type 'weird' is not a value of the format: one of 'undef', 'any', 'strided', 'opaque'"),
        ({(*IN0, "property_type"): "nope"}, "graph.property", "graph[0].inputs[0].property_type", "error",
         "tensor 0's property_type 'nope' is not a value of the format: one of 'undef', 'variable', 'constant', "
         "'host_scalar'"),
        ({(*IN0, "property_type"): "host_scalar", ("version",): "3.13.0"}, "graph.property", "graph[0].inputs[0].property_type", "error",
         "tensor 0 is a host_scalar, so it has shape [] and dtype s32, f32 or s64; it is 'f32' [16, 13] (the "
         "library refuses to make it)"),
        ({(*IN0, "layout_type"): "any"}, "graph.layout.input", "graph[0].inputs[0].layout_type", "error",
         "tensor 0 is a graph input of layout_type any: an input is laid out by its strides, and compile has no "
         "layout to read it by (oneDNN fails on it)"),
        ({(*IN0, "stride"): [INT64_MIN]}, "graph.layout.input", "graph[0].inputs[0].stride", "error",
         "tensor 0 is a graph input whose strides are unknown ([-9223372036854775808]): an input is read by its "
         "strides (oneDNN aborts at compile without them)"),
        ({(*IN0, "stride"): [1]}, "graph.layout.strides", "graph[0].inputs[0].stride", "error",
         "tensor 0's stride [1] for shape [16, 13] has 1 entries for rank 2: one stride per dim (the library "
         "reads as many strides as the shape has dims)"),
        ({(*IN0, "stride"): [-13, 1]}, "graph.layout.strides", "graph[0].inputs[0].stride[0]", "error",
         "tensor 0's stride [-13, 1] for shape [16, 13] is negative in dim 0: a stride is >= 0 (oneDNN aborts "
         "at compile)"),
        ({(*IN0, "stride"): [1, 1]}, "graph.layout.strides", "graph[0].inputs[0].stride[0]", "error",
         "tensor 0's stride [1, 1] for shape [16, 13] lets elements share an address: dim 0 steps 1, within the "
         "13 elements that dim 1 spans (13 x stride 1); oneDNN refuses such strides (it aborts at compile)"),
        ({(*OUT, "stride"): [0, 1]}, "graph.layout.strides", "graph[1].outputs[0].stride[0]", "error",
         "tensor 2214's stride [0, 1] for shape [16, 13] is 0 in dim 0, so the op that writes it puts its 16 "
         "elements along that dim at one address; a zero stride is a broadcast read, for a graph input"),
    ],
)  # fmt: skip
def test_each_fault_is_one_finding_at_its_field(edits, rule, path, severity, message) -> None:
    finding, position = one(changed(edits))
    assert (finding.rule, finding.path, finding.severity, finding.message) == (rule, path, severity, message)
    assert position is not None


@pytest.mark.parametrize(
    "edits",
    [
        {(*IN0, "stride"): [0, 1]},  # a broadcast read of a graph input
        {(*IN0, "stride"): [1, 16]},  # dim 0 innermost
        {(*IN0, "stride"): [20, 1]},  # padded rows
        {(*OUT, "layout_type"): "any"},  # the library picks an output's layout
        {("fpmath_mode",): "BF16", ("fpmath_mode_apply_to_int",): "1", ("engine_kind",): "gpu"},
        {("graph", 1, "name"): "BINARY_0"},  # a name is a label: oneDNN's own files repeat them
    ],
)
def test_what_oneDNN_takes_is_taken_without_a_word(edits) -> None:
    result = check(changed(edits))
    assert result.valid and result.diagnostics == []


def test_a_value_declared_alike_on_both_sides_is_said_once() -> None:
    """Tensor 161's strides overlap in both declarations: one finding, at its producer's."""
    document = changed(
        {("graph", 0, "outputs", 0, "stride"): [1, 1], ("graph", 1, "inputs", 0, "stride"): [1, 1]}
    )
    finding, _ = one(document)
    assert (finding.rule, finding.path) == ("graph.layout.strides", "graph[0].outputs[0].stride[0]")


def test_a_repeated_op_id_points_at_the_first() -> None:
    finding, position = one(changed({("graph", 1, "id"): 1}))
    [related] = finding.related or []
    assert related.path == "graph[0].id" and related.message == "graph[0] (BINARY_0) has id 1"
    assert position == (64, 13)  # the second op's `"id": 1`


def test_features_newer_than_the_files_version_are_one_warning_each() -> None:
    """benchdnn's softmax.json says 3.0.0 and uses SoftMax's mode, which came in 3.8."""
    document = json.loads((BENCHDNN / "op/f32/softmax.json").read_text())
    finding, _ = one(document)
    assert (finding.rule, finding.path, finding.severity) == (
        "graph.version",
        "graph[0].attrs.mode",
        "warning",
    )
    assert finding.message == "SoftMax's attribute mode came in oneDNN 3.8, but the file says version 3.0.0"
    document["version"] = "3.8.0"
    assert check(document).diagnostics == []
    document["version"] = "0.6.0"  # the Graph API's preview releases: not compared
    assert check(document).diagnostics == []
    # a feature used many times is said once, with the count
    doubled = changed(
        {("version",): "3.1.0", (*IN0, "dtype"): "s4", ("graph", 0, "inputs", 1, "dtype"): "s4"}
    )
    said = [d for d in check(doubled).diagnostics if d.rule == "graph.version"]
    assert [(d.path, d.message) for d in said] == [
        ("graph[0].inputs[0].dtype", "dtype s4 came in oneDNN 3.7, but the file says version 3.1.0 (1 more use "
         "after this one)")
    ]  # fmt: skip
