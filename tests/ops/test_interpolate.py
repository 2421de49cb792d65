"""Interpolate and InterpolateBackward: oneDNN's own answers (recorded), a loop of the page's coordinate
formulas, the backward op as the forward's adjoint (hypothesis), shapes with symbols, rules by id,
mutated benchdnn files, and every benchdnn node."""

from __future__ import annotations

import copy
import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ops.oracle.fixtures import (
    BENCHDNN,
    assert_benchdnn_nodes,
    assert_errors,
    assert_mutation_located,
    assert_recorded_agrees,
    assert_warns,
    check,
    recorded,
    run,
    t,
)

KINDS = {"Interpolate", "InterpolateBackward"}
F = "f32"


@pytest.mark.parametrize(("name", "descriptor", "inputs", "outputs"), recorded("interpolate"),
                         ids=[c[0] for c in recorded("interpolate")])  # fmt: skip
def test_agrees_with_onednn(name, descriptor, inputs, outputs) -> None:
    assert_recorded_agrees(name, descriptor, inputs, outputs, exact=descriptor["attrs"]["mode"] == "nearest")


def test_recorded_cases_cover_every_kind() -> None:
    assert {c[1]["kind"] for c in recorded("interpolate")} == KINDS


# --- the page's formulas, one position at a time ------------------------------------------------------


def source_coordinate(o, n_in, n_out, mode):
    if mode == "align_corners":
        return 0.0 if n_out == 1 else o * (n_in - 1) / (n_out - 1)
    return (o + 0.5) / (n_out / n_in) - 0.5


def loop_interpolate(x, out_sizes, mode, transform):
    """NCX; nearest takes floor(x + 0.5); linear mixes the 2^d corners with products of weights (f64)."""
    n, c = x.shape[:2]
    out = np.empty((n, c, *out_sizes))
    for o in itertools.product(*(range(s) for s in out_sizes)):
        coords = [min(max(source_coordinate(oi, ni, no, transform), 0.0), ni - 1)
                  for oi, ni, no in zip(o, x.shape[2:], out_sizes, strict=True)]  # fmt: skip
        if mode == "nearest":
            index = tuple(
                min(max(math.floor(cd + 0.5), 0), ni - 1) for cd, ni in zip(coords, x.shape[2:], strict=True)
            )
            out[(slice(None), slice(None), *o)] = x[(slice(None), slice(None), *index)]
            continue
        total = 0.0
        for corner in itertools.product((0, 1), repeat=len(coords)):
            weight, index = 1.0, []
            for cd, ni, side in zip(coords, x.shape[2:], corner, strict=True):
                low = math.floor(cd)
                weight *= (cd - low) if side else (1 - (cd - low))
                index.append(min(low + side, ni - 1))
            total = total + weight * x[(slice(None), slice(None), *index)].astype(np.float64)
        out[(slice(None), slice(None), *o)] = total
    return out


values = st.floats(-8, 8, width=32, allow_subnormal=False)


@st.composite
def resizes(draw):
    dims = draw(st.integers(1, 2))
    sizes_in = [draw(st.integers(1, 5)) for _ in range(dims)]
    sizes_out = [draw(st.integers(1, 7)) for _ in range(dims)]
    mode = draw(st.sampled_from(["nearest", "linear"]))
    transform = draw(st.sampled_from(["half_pixel", "align_corners"]))
    return sizes_in, sizes_out, mode, transform


@settings(max_examples=40, deadline=None)
@given(resizes(), st.data())
def test_interpolate_matches_a_loop_and_backward_is_its_adjoint(resize, data) -> None:
    sizes_in, sizes_out, mode, transform = resize
    shape, out_shape = [1, 2, *sizes_in], [1, 2, *sizes_out]
    x = np.array(
        data.draw(st.lists(values, min_size=math.prod(shape), max_size=math.prod(shape))), np.float32
    )
    y = np.array(
        data.draw(st.lists(values, min_size=math.prod(out_shape), max_size=math.prod(out_shape))), np.float32
    )
    attrs = {
        "mode": mode,
        "coordinate_transformation_mode": transform,
        "sizes": sizes_out,
        "data_format": "NCX",
    }
    _, (dst,) = run({"kind": "Interpolate", "attrs": attrs, "inputs": [t(shape, data=x.tolist())]})
    want = loop_interpolate(x.reshape(shape), sizes_out, mode, transform)
    if mode == "nearest":
        assert dst.tobytes() == want.astype(np.float32).tobytes()
    else:
        assert np.allclose(dst, want, rtol=1e-5, atol=1e-5)
    _, (back,) = run({"kind": "InterpolateBackward", "attrs": attrs,
                      "inputs": [t(shape, data=x.tolist()), t(out_shape, data=y.tolist())]})  # fmt: skip
    # <A x, y> = <x, A^T y>
    assert math.isclose(float(np.dot(dst.reshape(-1).astype(np.float64), y)),
                        float(np.dot(x.astype(np.float64), back.reshape(-1))), rel_tol=1e-4, abs_tol=1e-3)  # fmt: skip


def test_nearest_exact_example() -> None:
    d = {"kind": "Interpolate", "attrs": {"mode": "nearest", "sizes": [4], "data_format": "NCX"},
         "inputs": [t([1, 1, 2], data=[-0.0, "nan"])]}  # fmt: skip
    _, (dst,) = run(d)
    got = dst.reshape(-1)
    assert [math.copysign(1, v) for v in got[:2]] == [-1, -1] and np.isnan(got[2:]).all()


def test_linear_exact_example() -> None:
    d = {"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4], "data_format": "NCX"},
         "inputs": [t([1, 1, 2], data=[0, 8])]}  # fmt: skip
    _, (dst,) = run(d)
    # x = (o + 0.5) / 2 - 0.5: -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1)
    assert dst.dtype == np.float32 and dst.tolist() == [[[0.0, 2.0, 6.0, 8.0]]]


# --- shapes and rules ---------------------------------------------------------------------------------


def test_symbols_flow_and_unknowns_stay_unknown() -> None:
    v = check(
        {
            "kind": "Interpolate",
            "attrs": {"mode": "linear", "scales": [2.0, 1.0]},
            "inputs": [t(["N", 3, "W", "C"])],
        }
    )
    assert v.valid and v.outputs[0].shape == ("N", 6, "W", "C")
    v = check({"kind": "Interpolate", "attrs": {"mode": "nearest", "scales": [0.809524], "data_format": "NCX"},
               "inputs": [t(["N", "C", 21])]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", "C", 17)
    v = check({"kind": "Interpolate", "attrs": {"mode": "nearest", "data_format": "NCX"},
               "inputs": [t(["N", "C", 21, 5]), t([2], "s32")]})  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", "C", None, None)


@pytest.mark.parametrize(
    ("descriptor", "errors", "message"),
    [
        ({"kind": "Interpolate", "attrs": {"mode": "linear"}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.sizes.missing"}, "Interpolate needs sizes or scales; neither is given"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4]}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.sizes.rank"}, "sizes has 1 entries; src has 2 spatial dims, one entry each"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4, 0]}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.sizes.range"}, "sizes[1] is 0; sizes must be positive"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "scales": [0.1, 1.0]}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.scales.range"}, "scales[0] is 0.1: spatial dim 0 of size 4 would become 0"),
        ({"kind": "Interpolate", "attrs": {"mode": "cubic", "sizes": [4, 4]}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.attrs.value"}, "mode is 'cubic'; Interpolate supports 'nearest', 'linear'"),
        ({"kind": "Interpolate", "attrs": {"sizes": [4, 4]}, "inputs": [t([1, 4, 4, 3])]},
         {"Interpolate.attrs.required"}, "Interpolate needs the attribute mode"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4]}, "inputs": [t([4, 3])]},
         {"Interpolate.src.rank"}, "needs rank >= 3"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear"}, "inputs": [t([1, 4, 4, 3]), t([2, 1], "s32")]},
         {"Interpolate.sizes.rank"}, "the sizes input must be 1-D"),
        ({"kind": "InterpolateBackward", "attrs": {"mode": "linear", "sizes": [6, 6]},
          "inputs": [t([1, 4, 4, 3]), t([1, 6, 5, 3])]}, {"InterpolateBackward.diff_dst.shape"},
         "diff_dst has shape [1, 6, 5, 3]; Interpolate gives [1, 6, 6, 3] for src [1, 4, 4, 3]"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4, 4]}, "inputs": [t([1, 4, 4, 3], "s8")]},
         {"Interpolate.src.dtype"}, "src has dtype s8"),
    ],
)  # fmt: skip
def test_errors_name_the_rule_and_the_values(descriptor, errors, message) -> None:
    assert_errors(descriptor, errors, message)


@pytest.mark.parametrize(
    ("descriptor", "warning"),
    [
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4, 4], "scales": [1.0, 1.0]},
          "inputs": [t([1, 4, 4, 3])]}, "Interpolate.onednn.sizes_and_scales"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear"}, "inputs": [t([1, 4, 4, 3]), t([2], "s32", [2, 2])]},
         "Interpolate.onednn.sizes_input"),
        ({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4, 4],
                                           "coordinate_transformation_mode": "align_corners"},
          "inputs": [t([1, 4, 4, 3])]}, "Interpolate.onednn.align_corners"),
    ],
)  # fmt: skip
def test_warnings_keep_the_descriptor_valid(descriptor, warning) -> None:
    assert_warns(descriptor, warning)


def test_sizes_win_over_scales_and_the_input_gives_values() -> None:
    v = check({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [5, 6], "scales": [2.0, 2.0]},
               "inputs": [t([1, 4, 4, 3])]})  # fmt: skip
    assert v.outputs[0].shape == (1, 5, 6, 3)
    v = check(
        {
            "kind": "Interpolate",
            "attrs": {"mode": "linear"},
            "inputs": [t([1, 4, 4, 3]), t([2], "s32", [2, 7])],
        }
    )
    assert v.outputs[0].shape == (1, 2, 7, 3)


# --- benchdnn -----------------------------------------------------------------------------------------


def test_every_benchdnn_node_is_checked_valid_with_the_files_shapes() -> None:
    assert_benchdnn_nodes(KINDS)


DOCUMENT = json.loads((BENCHDNN / "op" / "f32" / "interpolate.json").read_text())
MUTATIONS = [
    ("input dim", lambda op: op["inputs"][0]["shape"].pop(), "Interpolate.sizes.rank"),
    ("attribute out of range", lambda op: op["attrs"]["sizes"]["value"].__setitem__(0, -6), "Interpolate.sizes.range"),
    ("dtype outside the table", lambda op: op["inputs"][0].__setitem__("dtype", "u8"), "Interpolate.src.dtype"),
    ("required attribute removed", lambda op: op["attrs"].pop("mode"), "Interpolate.attrs.required"),
    ("an input too many", lambda op: op["inputs"].extend(copy.deepcopy(op["inputs"]) * 2), "Interpolate.inputs.count"),
    ("an input too few", lambda op: op["inputs"].clear(), "Interpolate.inputs.count"),
    ("wrong declared output", lambda op: op["outputs"][0]["shape"].__setitem__(3, 13), "Interpolate.outputs.dim"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "change", "rule"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_benchdnn_file_gets_the_rule_at_a_line(what, change, rule) -> None:
    assert_mutation_located(DOCUMENT, change, rule)


@pytest.mark.parametrize("scale", [1e30, -1.0, 0.0])
def test_scales_beyond_any_size_are_errors_not_crashes(scale) -> None:
    assert_errors({"kind": "Interpolate", "attrs": {"mode": "nearest", "scales": [scale], "data_format": "NCX"},
                   "inputs": [t([1, 1, 4])]}, {"Interpolate.scales.range"}, "scales[0] is")  # fmt: skip


@pytest.mark.parametrize("scales", ["[false]", '["2"]', "[1e400]"])
def test_scales_are_finite_numbers(client, scales) -> None:
    body = '{"kind": "Interpolate", "attrs": {"mode": "nearest", "scales": ' + scales + '}, "inputs": []}'
    response = client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422 and "attrs.scales" in response.text


def test_an_empty_spatial_dim_cannot_grow() -> None:
    assert_errors({"kind": "Interpolate", "attrs": {"mode": "linear", "sizes": [4], "data_format": "NCX"},
                   "inputs": [t([1, 2, 0])]}, {"Interpolate.src.empty"},
                  "src's spatial dim 0 has size 0: there is nothing to interpolate into 4 positions")  # fmt: skip
