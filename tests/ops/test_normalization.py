"""The normalization family: oneDNN's own answers (recorded), an independent f64 loop of each page's
formula, shapes with symbols, the rules by id, mutated benchdnn files, and every benchdnn node."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.ops import REGISTRY
from tests.ops.oracle.fixtures import (
    BENCHDNN,
    assert_benchdnn_nodes,
    assert_errors,
    assert_mutation_located,
    assert_recorded_agrees,
    assert_warns,
    check,
    recorded,
    rules,
    run,
    t,
)

KINDS = {"BatchNormInference", "BatchNormForwardTraining", "BatchNormTrainingBackward", "LayerNorm",
         "LayerNormBackward", "GroupNorm", "RMSNorm"}  # fmt: skip
F = "f32"


# --- oneDNN's answers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "descriptor", "inputs", "outputs"), recorded("normalization"),
                         ids=[c[0] for c in recorded("normalization")])  # fmt: skip
def test_agrees_with_onednn(name, descriptor, inputs, outputs) -> None:
    assert_recorded_agrees(name, descriptor, inputs, outputs)


def test_recorded_cases_cover_every_kind() -> None:
    assert {c[1]["kind"] for c in recorded("normalization")} == KINDS


# --- an independent loop of the pages' formulas, in f64 -----------------------------------------------


def loop_layer_norm(x, gamma, beta, eps):
    """The page's formula, element by element over the last dim."""
    out = np.empty_like(x, dtype=np.float64)
    mean = np.empty(x.shape[:-1])
    var = np.empty(x.shape[:-1])
    for index in np.ndindex(*x.shape[:-1]):
        row = [float(v) for v in x[index]]
        mu = sum(row) / len(row)
        sigma2 = sum((v - mu) ** 2 for v in row) / len(row)
        mean[index], var[index] = mu, sigma2
        for c, v in enumerate(row):
            g = 1.0 if gamma is None else float(gamma[c])
            b = 0.0 if beta is None else float(beta[c])
            out[(*index, c)] = g * (v - mu) / math.sqrt(sigma2 + eps) + b
    return out, mean, var


def loop_group_norm(x, groups, gamma, beta, eps):
    """NCX: each (n, group) over its channels and all spatial positions."""
    n, c = x.shape[:2]
    per = c // groups
    out = np.empty(x.shape)
    for b in range(n):
        for g in range(groups):
            block = x[b, g * per : (g + 1) * per]
            values = [float(v) for v in block.reshape(-1)]
            mu = sum(values) / len(values)
            sigma2 = sum((v - mu) ** 2 for v in values) / len(values)
            for ch in range(g * per, (g + 1) * per):
                out[b, ch] = float(gamma[ch]) * (x[b, ch].astype(np.float64) - mu) / math.sqrt(
                    sigma2 + eps
                ) + float(beta[ch])
    return out


def close(got, want, tolerance):
    assert np.all(np.abs(got.astype(np.float64) - want) <= tolerance.absolute + 1e-5 * np.abs(want)), (
        got,
        want,
    )


floats = st.floats(-4, 4, width=32, allow_subnormal=False)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 9), st.data())
def test_layer_norm_matches_a_loop(a, b, c, data) -> None:
    x = np.array(data.draw(st.lists(floats, min_size=a * b * c, max_size=a * b * c)), np.float32).reshape(
        a, b, c
    )
    gamma = np.array(data.draw(st.lists(floats, min_size=c, max_size=c)), np.float32)
    beta = np.array(data.draw(st.lists(floats, min_size=c, max_size=c)), np.float32)
    d = {"kind": "LayerNorm", "attrs": {"epsilon": 0.25},
         "inputs": [t([a, b, c], data=x.tolist()), t([c], data=gamma.tolist()), t([c], data=beta.tolist())]}  # fmt: skip
    _verdict, (dst, mean, var) = run(d)
    want, want_mean, want_var = loop_layer_norm(x, gamma, beta, 0.25)
    close(dst, want, REGISTRY["LayerNorm"].tolerance)
    close(mean, want_mean, REGISTRY["LayerNorm"].tolerance)
    close(var, want_var, REGISTRY["LayerNorm"].tolerance)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 2), st.sampled_from([(2, 1), (4, 2), (6, 3), (6, 6)]), st.integers(1, 4), st.data())
def test_group_norm_matches_a_loop(n, cg, hw, data) -> None:
    c, groups = cg
    size = n * c * hw
    x = np.array(data.draw(st.lists(floats, min_size=size, max_size=size)), np.float32).reshape(n, c, hw)
    gamma = np.array(data.draw(st.lists(floats, min_size=c, max_size=c)), np.float32)
    beta = np.array(data.draw(st.lists(floats, min_size=c, max_size=c)), np.float32)
    d = {"kind": "GroupNorm", "attrs": {"groups": groups, "epsilon": 0.25, "data_format": "NCX", "keep_stats": False},
         "inputs": [t([n, c, hw], data=x.tolist()), t([c], data=gamma.tolist()), t([c], data=beta.tolist())]}  # fmt: skip
    _, (dst,) = run(d)
    close(dst, loop_group_norm(x, groups, gamma, beta, 0.25), REGISTRY["GroupNorm"].tolerance)


def test_batch_norm_inference_exact_example() -> None:
    """One channel per value: gamma * (x - mean) / sqrt(var + eps) + beta with values that round exactly."""
    d = {"kind": "BatchNormInference", "attrs": {"epsilon": 0.75, "data_format": "NCX"},
         "inputs": [t([1, 2, 2], data=[1, 3, -2, 6]), t([2], data=[2, 1]), t([2], data=[0.5, -1]),
                    t([2], data=[1, 2]), t([2], data=[3.25, 0.25])]}  # fmt: skip
    verdict, (dst,) = run(d)
    assert verdict.valid
    # channel 0: sqrt(4) = 2, scale 1: [0.5, 2.5]; channel 1: sqrt(1) = 1: [-5, 3]
    assert dst.dtype == np.float32 and dst.tolist() == [[[0.5, 2.5], [-5.0, 3.0]]]


def test_batch_norm_backward_diff_src_alone_treats_statistics_as_constants() -> None:
    d = {"kind": "BatchNormTrainingBackward", "attrs": {"epsilon": 0.75, "data_format": "NCX"},
         "inputs": [t([1, 1, 2], data=[1, 3]), t([1, 1, 2], data=[2, -4]), t([1], data=[2]), t([1], data=[0.25])],
         "outputs": [t([1, 1, 2])]}  # fmt: skip
    _, (diff_src,) = run(d)
    assert diff_src.tolist() == [[[2.0, -4.0]]]


def test_rms_norm_follows_its_stated_f32_order() -> None:
    """mean(x^2) = 25, + epsilon 1 = 26; dst = x * (1 / sqrt(26)) * gamma, each step rounded to f32."""
    d = {
        "kind": "RMSNorm",
        "attrs": {"epsilon": 1.0},
        "inputs": [t([1, 2], data=[1, 7]), t([2], data=[2, -1])],
    }
    _, (dst,) = run(d)
    inv = np.float32(1) / np.sqrt(np.float32(26))
    want = np.array([[np.float32(1) * inv * np.float32(2), np.float32(7) * inv * np.float32(-1)]], np.float32)
    assert dst.dtype == np.float32 and dst.tobytes() == want.tobytes()


def test_nan_propagates_through_its_row_only() -> None:
    d = {"kind": "LayerNorm", "attrs": {"keep_stats": False, "use_affine": False, "epsilon": 1.0},
         "inputs": [t([2, 2], data=[1, "nan", 1, 3])]}  # fmt: skip
    _, (dst,) = run(d)
    # row 1: mean 2, variance 1, + epsilon 1: (x - 2) / sqrt(2)
    inv = np.float32(1) / np.sqrt(np.float32(2))
    assert np.isnan(dst[0]).all()
    assert dst[1].tobytes() == np.array([-inv, inv], np.float32).tobytes()


def test_a_zero_row_normalizes_to_plus_zero() -> None:
    d = {"kind": "LayerNorm", "attrs": {"keep_stats": False, "use_affine": False},
         "inputs": [t([1, 3], data=[-0.0, 0.0, -0.0])]}  # fmt: skip
    _, (dst,) = run(d)
    # x - mean: -0 - 0 = -0 and 0 - 0 = +0; times a positive inverse: the signs stay
    assert [math.copysign(1, v) for v in dst[0].tolist()] == [-1.0, 1.0, -1.0]


# --- shapes -------------------------------------------------------------------------------------------


def test_symbols_flow_and_unknowns_stay_unknown() -> None:
    v = check({"kind": "LayerNorm", "attrs": {"use_affine": False}, "inputs": [t(["N", -1, 8])]})
    assert v.valid and [o.shape for o in v.outputs] == [("N", None, 8), ("N", None), ("N", None)]
    v = check({"kind": "GroupNorm", "attrs": {"groups": 4, "use_affine": False, "data_format": "NCX"},
               "inputs": [t(["N", 8, -1, 5])]})  # fmt: skip
    assert v.valid and [o.shape for o in v.outputs] == [("N", 8, None, 5), ("N", 4), ("N", 4)]
    v = check({"kind": "BatchNormForwardTraining", "attrs": {"epsilon": 0.1, "momentum": 0.9},
               "inputs": [t(["N", 4, 4, "C"]), t(["C"]), t(["C"])]})  # fmt: skip
    assert v.valid and [o.shape for o in v.outputs] == [("N", 4, 4, "C")] + [("C",)] * 4


def test_groups_against_unknown_channels_warns_and_guesses_nothing() -> None:
    v = check({"kind": "GroupNorm", "attrs": {"groups": 3, "use_affine": False, "keep_stats": False},
               "inputs": [t(["N", 4, "C"])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", 4, "C")
    assert rules(v, "warning") == {"GroupNorm.groups.unchecked"}


@pytest.mark.parametrize(
    ("descriptor", "errors", "message"),
    [
        ({"kind": "BatchNormInference", "attrs": {"epsilon": 0.0},
          "inputs": [t([2, 3]), t([3]), t([3]), t([3]), t([3])]}, {"BatchNormInference.epsilon.range"},
         "epsilon is 0.0; BatchNormInference needs one positive value"),
        ({"kind": "BatchNormInference", "attrs": {"epsilon": 1.0, "data_format": "NCX"},
          "inputs": [t([2, 3, 5]), t([3]), t([5]), t([3]), t([3])]}, {"BatchNormInference.channels"},
         "beta has 5 elements; BatchNormInference needs src's channel count: 3"),
        ({"kind": "BatchNormInference", "attrs": {"epsilon": 1.0}, "inputs": [t([3]), t([3]), t([3]), t([3]), t([3])]},
         {"BatchNormInference.src.rank"}, "needs rank >= 2"),
        ({"kind": "BatchNormForwardTraining", "attrs": {"epsilon": 1.0, "momentum": -1.0},
          "inputs": [t([2, 3]), t([3]), t([3]), t([3])]},
         {"BatchNormForwardTraining.momentum.range", "BatchNormForwardTraining.inputs.count"}, "gamma and beta both"),
        ({"kind": "LayerNorm", "attrs": {"begin_norm_axis": 3}, "inputs": [t([2, 3, 4]), t([4]), t([4])]},
         {"LayerNorm.begin_norm_axis.range"}, "begin_norm_axis 3 is out of range [-3, 2] for src of rank 3"),
        ({"kind": "LayerNorm", "attrs": {}, "inputs": [t([2, 3, 4])]}, {"LayerNorm.use_affine.inputs"},
         "use_affine is true, so LayerNorm needs gamma and beta"),
        ({"kind": "LayerNorm", "attrs": {}, "inputs": [t([2, 3, 4]), t([3]), t([4])]}, {"LayerNorm.gamma.shape"},
         "gamma has 3 elements; LayerNorm needs the normalized dims' element count: 4"),
        ({"kind": "LayerNormBackward", "attrs": {"use_affine": False},
          "inputs": [t([2, 3, 4]), t([2, 3, 4]), t([2, 4]), t([2, 3])]}, {"LayerNormBackward.stats.shape"},
         "mean has shape [2, 4]; LayerNormBackward needs src's dims before begin_norm_axis [2, 3]"),
        ({"kind": "GroupNorm", "attrs": {"groups": 4, "use_affine": False, "data_format": "NCX"},
          "inputs": [t([2, 6, 5])]}, {"GroupNorm.groups.divides"}, "groups 4 does not divide src's 6 channels"),
        ({"kind": "GroupNorm", "attrs": {"groups": 8, "use_affine": False}, "inputs": [t([2, 5, 6])]},
         {"GroupNorm.groups.range"}, "groups is 8; GroupNorm needs groups in [1, 6]"),
        ({"kind": "GroupNorm", "attrs": {"use_affine": False}, "inputs": [t([2, 5, 6])]},
         {"GroupNorm.attrs.required"}, "GroupNorm needs the attribute groups"),
        ({"kind": "RMSNorm", "attrs": {}, "inputs": [t([2, 3, 4]), t([3])]}, {"RMSNorm.gamma.shape"},
         "gamma has shape [3], which does not broadcast to src's shape [2, 3, 4]"),
        ({"kind": "RMSNorm", "attrs": {}, "inputs": [t([2, 4], "f16"), t([4], "bf16")]}, {"RMSNorm.dtypes"},
         "src f16, gamma bf16 is not a combination RMSNorm supports"),
    ],
)  # fmt: skip
def test_errors_name_the_rule_and_the_values(descriptor, errors, message) -> None:
    assert_errors(descriptor, errors, message)


@pytest.mark.parametrize(
    ("descriptor", "warning"),
    [
        ({"kind": "LayerNorm", "attrs": {"begin_norm_axis": 1, "use_affine": False}, "inputs": [t([2, 3, 4])]},
         "LayerNorm.onednn.begin_norm_axis"),
        ({"kind": "LayerNorm", "attrs": {"use_affine": False}, "inputs": [t([2, 4]), t([4]), t([4])]},
         "LayerNorm.use_affine.ignored"),
        ({"kind": "BatchNormForwardTraining", "attrs": {"epsilon": 1.0}, "inputs": [t([2, 3]), t([3]), t([3])]},
         "BatchNormForwardTraining.momentum.default"),
        ({"kind": "BatchNormTrainingBackward", "attrs": {"epsilon": 1.0},
          "inputs": [t([2, 3]), t([2, 3]), t([3]), t([3])]}, "BatchNormTrainingBackward.onednn.no_gamma"),
        ({"kind": "RMSNorm", "attrs": {}, "inputs": [t([2, 4], "f32"), t([4], "f16")]}, "RMSNorm.onednn.dtypes"),
    ],
)  # fmt: skip
def test_warnings_keep_the_descriptor_valid(descriptor, warning) -> None:
    assert_warns(descriptor, warning)


def test_optional_outputs_follow_the_attributes() -> None:
    v = check({"kind": "LayerNorm", "attrs": {"keep_stats": False, "use_affine": False}, "inputs": [t([2, 4])],
               "outputs": [t([2, 4]), t([2]), t([2])]})  # fmt: skip
    assert rules(v) == {"LayerNorm.outputs.count"}
    v = check({"kind": "BatchNormTrainingBackward", "attrs": {"epsilon": 1.0},
               "inputs": [t([2, 3, 4, 4]), t([2, 3, 4, 4]), t([4]), t([4]), t([4])], "outputs": [t([2, 3, 4, 4])]})  # fmt: skip
    assert (
        v.valid and len(v.outputs) == 1 and "BatchNormTrainingBackward.gamma.ignored" in rules(v, "warning")
    )


# --- benchdnn -----------------------------------------------------------------------------------------


def test_every_benchdnn_node_is_checked_valid_with_the_files_shapes() -> None:
    assert_benchdnn_nodes(KINDS)


DOCUMENT = json.loads((BENCHDNN / "op" / "f32" / "bnorm.json").read_text())
MUTATIONS = [
    ("input dim", lambda op: op["inputs"][1]["shape"].__setitem__(0, 191), "BatchNormInference.channels"),
    ("attribute out of range", lambda op: op["attrs"]["epsilon"].__setitem__("value", -1.0),
     "BatchNormInference.epsilon.range"),
    ("dtype outside the table", lambda op: op["inputs"][0].__setitem__("dtype", "s8"), "BatchNormInference.src.dtype"),
    ("required attribute removed", lambda op: op["attrs"].pop("epsilon"), "BatchNormInference.attrs.required"),
    ("an input too few", lambda op: op["inputs"].pop(), "BatchNormInference.inputs.count"),
    ("an input too many", lambda op: op["inputs"].append(copy.deepcopy(op["inputs"][1])),
     "BatchNormInference.inputs.count"),
    ("wrong declared output", lambda op: op["outputs"][0]["shape"].__setitem__(3, 70), "BatchNormInference.outputs.dim"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "change", "rule"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_benchdnn_file_gets_the_rule_at_a_line(what, change, rule) -> None:
    assert_mutation_located(DOCUMENT, change, rule)


@pytest.mark.parametrize("epsilon", [[1.0, 2.0], -0.0])
def test_epsilon_is_one_positive_number(epsilon) -> None:
    assert_errors({"kind": "LayerNorm", "attrs": {"epsilon": epsilon, "use_affine": False}, "inputs": [t([2, 4])]},
                  {"LayerNorm.epsilon.range"}, "LayerNorm needs one positive value")  # fmt: skip
