"""The convolution family: kernels against a plain loop of the page's formula and oneDNN's own outputs,
the backward ops as adjoints of the forward ones, the rules, and benchdnn's nodes."""

from __future__ import annotations

import base64
import copy
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.engine import check, run
from app.core.payload import LimitExceeded
from app.formats import graphs
from app.ops import REGISTRY
from tests.ops.benchdnn import FILES, nodes_of
from tests.ops.onednn_oracle import assert_within_tolerance, fixtures

KINDS = {
    "Convolution": 40,
    "ConvTranspose": 8,
    "ConvolutionBackwardData": 2,
    "ConvolutionBackwardWeights": 1,
    "ConvTransposeBackwardData": 1,
    "ConvTransposeBackwardWeights": 1,
}
NCX = {"data_format": "NCX"}


def attrs_for(r: int, **more) -> dict:
    base = {"strides": [1] * r, "pads_begin": [0] * r, "pads_end": [0] * r, "dilations": [1] * r, **NCX}
    return {**base, **more}


def tensor(array_or_shape, dtype: str = "f32") -> dict:
    if isinstance(array_or_shape, np.ndarray):
        a = np.ascontiguousarray(array_or_shape, np.float32)
        return {
            "dtype": dtype,
            "shape": list(a.shape),
            "data": {"encoding": "base64", "bytes": base64.b64encode(a.tobytes()).decode()},
        }
    return {"dtype": dtype, "shape": list(array_or_shape)}


def descriptor(kind: str, attrs: dict, *inputs, outputs=None):
    body = {"kind": kind, "attrs": attrs, "inputs": list(inputs)}
    if outputs is not None:
        body["outputs"] = outputs
    return REGISTRY[kind].descriptor.model_validate(body)


def evaluate(kind: str, attrs: dict, *inputs) -> np.ndarray:
    _, (out,) = run(REGISTRY[kind], descriptor(kind, attrs, *inputs), Settings())
    assert out.dtype == np.float32
    return out


def verdict(kind: str, attrs: dict, *inputs, outputs=None):
    return check(REGISTRY[kind], descriptor(kind, attrs, *inputs, outputs=outputs), Settings())[0]


def errors(v) -> set[str]:
    return {d.rule for d in v.diagnostics if d.severity == "error"}


def warnings_of(v) -> set[str]:
    return {d.rule for d in v.diagnostics if d.severity == "warning"}


# --- an independent oracle: the page's formula, one output element at a time, in f64 -----------------


def loop_conv(x, w, strides, pads_begin, dilations, groups, out_sp, bias=None):
    """dst(n, g*OCg + oc, o...) = bias + sum over ic, k of src(n, g*ICg + ic, o*S + k*D - PL) * w(g*OCg + oc, ic, k)."""
    n, _c = x.shape[:2]
    oc, icg = w.shape[:2]
    ocg = oc // groups
    kernel = w.shape[2:]
    out = np.zeros((n, oc, *out_sp))
    for b, o in itertools.product(range(n), range(oc)):
        g = o // ocg
        for pos in itertools.product(*(range(s) for s in out_sp)):
            acc = 0.0 if bias is None else float(bias[o])
            for ic in range(icg):
                for k in itertools.product(*(range(s) for s in kernel)):
                    where = [
                        p * s + t * d - pl
                        for p, s, t, d, pl in zip(pos, strides, k, dilations, pads_begin, strict=False)
                    ]
                    if all(0 <= i < size for i, size in zip(where, x.shape[2:], strict=False)):
                        acc += float(x[(b, g * icg + ic, *where)]) * float(w[(o, ic, *k)])
            out[(b, o, *pos)] = acc
    return out


def loop_conv_transpose(x, w, strides, pads_begin, dilations, groups, out_sp, bias=None):
    """Each src element spreads its kernel: dst(n, g*OCg + oc, i*S + k*D - PL) += src(n, g*ICg + ic, i) * w(g*ICg + ic, oc, k)."""
    n, c = x.shape[:2]
    ocg = w.shape[1]
    icg = c // groups
    kernel = w.shape[2:]
    out = np.zeros((n, ocg * groups, *out_sp))
    for b, ic in itertools.product(range(n), range(c)):
        g = ic // icg
        for pos in itertools.product(*(range(s) for s in x.shape[2:])):
            for oc in range(ocg):
                for k in itertools.product(*(range(s) for s in kernel)):
                    where = [
                        p * s + t * d - pl
                        for p, s, t, d, pl in zip(pos, strides, k, dilations, pads_begin, strict=False)
                    ]
                    if all(0 <= i < size for i, size in zip(where, out_sp, strict=False)):
                        out[(b, g * ocg + oc, *where)] += float(x[(b, ic, *pos)]) * float(w[(ic, oc, *k)])
    if bias is not None:
        out += np.asarray(bias, np.float64).reshape(-1, *([1] * len(out_sp)))
    return out


def close(got: np.ndarray, want: np.ndarray) -> bool:
    return np.allclose(got, want, rtol=1e-5, atol=1e-4)


@st.composite
def geometries(draw):
    r = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2]))
    icg, ocg = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    dilations = [draw(st.integers(1, 2)) for _ in range(r)]
    pads_begin = [draw(st.integers(0, 2)) for _ in range(r)]
    pads_end = [draw(st.integers(0, 2)) for _ in range(r)]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=False)]
    top = 6 if r < 3 else 5
    sizes = [
        draw(st.integers(max(1, sp - pb - pe), max(top, sp - pb - pe)))
        for sp, pb, pe in zip(spans, pads_begin, pads_end, strict=False)
    ]
    return dict(r=r, groups=groups, icg=icg, ocg=ocg, kernel=kernel, strides=strides, dilations=dilations,
                pads_begin=pads_begin, pads_end=pads_end, sizes=sizes, n=draw(st.integers(1, 2)))  # fmt: skip


def _geometry_attrs(geo, **more):
    return attrs_for(
        geo["r"], strides=geo["strides"], dilations=geo["dilations"], pads_begin=geo["pads_begin"],
        pads_end=geo["pads_end"], groups=geo["groups"], **more,
    )  # fmt: skip


def _forward_sizes(geo):
    return [
        (s + pb + pe - ((k - 1) * d + 1)) // st_ + 1
        for s, pb, pe, k, d, st_ in zip(geo["sizes"], geo["pads_begin"], geo["pads_end"], geo["kernel"], geo["dilations"], geo["strides"], strict=False)
    ]  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(geometries(), st.randoms(use_true_random=False))
def test_convolution_against_the_loop_and_its_backward_ops_as_adjoints(geo, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32))
    g, c, oc = geo["groups"], geo["icg"] * geo["groups"], geo["ocg"] * geo["groups"]
    x = rng.standard_normal((geo["n"], c, *geo["sizes"])).astype(np.float32)
    w = rng.standard_normal((oc, geo["icg"], *geo["kernel"])).astype(np.float32)
    bias = rng.standard_normal(oc).astype(np.float32)
    out_sp = _forward_sizes(geo)
    a = _geometry_attrs(geo, weights_format="OIX")
    y = evaluate("Convolution", a, tensor(x), tensor(w), tensor(bias))
    assert y.shape == (geo["n"], oc, *out_sp)
    assert close(y, loop_conv(x, w, geo["strides"], geo["pads_begin"], geo["dilations"], g, out_sp, bias))
    # <conv(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_weights(x, dy)>
    dy = rng.standard_normal(y.shape).astype(np.float32)
    y0 = evaluate("Convolution", a, tensor(x), tensor(w))
    dx = evaluate("ConvolutionBackwardData", {**a, "dst_shape": list(x.shape)}, tensor(dy), tensor(w))
    dw = evaluate("ConvolutionBackwardWeights", {**a, "weights_shape": list(w.shape)}, tensor(x), tensor(dy))
    forward = float(np.sum(y0.astype(np.float64) * dy))
    assert np.isclose(forward, float(np.sum(x.astype(np.float64) * dx)), rtol=1e-4, atol=1e-3)
    assert np.isclose(forward, float(np.sum(w.astype(np.float64) * dw)), rtol=1e-4, atol=1e-3)


@settings(max_examples=40, deadline=None)
@given(geometries(), st.randoms(use_true_random=False))
def test_conv_transpose_against_the_loop_and_its_backward_ops_as_adjoints(geo, rnd):
    rng = np.random.default_rng(rnd.randint(0, 2**32))
    g, c, ocg = geo["groups"], geo["icg"] * geo["groups"], geo["ocg"]
    # ConvTranspose's src is the small side: take the forward sizes as its spatial dims
    small = _forward_sizes(geo)
    extra = [min(s - 1, 1) for s in geo["strides"]]  # output_padding below the stride
    out_sp = [
        st_ * (s - 1) + (k - 1) * d + 1 - pb - pe + op
        for s, st_, k, d, pb, pe, op in zip(small, geo["strides"], geo["kernel"], geo["dilations"], geo["pads_begin"], geo["pads_end"], extra, strict=False)
    ]  # fmt: skip
    if min(out_sp) < 1:
        return
    x = rng.standard_normal((geo["n"], c, *small)).astype(np.float32)
    w = rng.standard_normal((c, ocg, *geo["kernel"])).astype(np.float32)
    bias = rng.standard_normal(ocg * g).astype(np.float32)
    a = _geometry_attrs(geo, weights_format="IOX")
    y = evaluate("ConvTranspose", {**a, "output_padding": extra}, tensor(x), tensor(w), tensor(bias))
    assert y.shape == (geo["n"], ocg * g, *out_sp)
    assert close(
        y, loop_conv_transpose(x, w, geo["strides"], geo["pads_begin"], geo["dilations"], g, out_sp, bias)
    )
    y0 = evaluate("ConvTranspose", {**a, "output_padding": extra}, tensor(x), tensor(w))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx = evaluate("ConvTransposeBackwardData", a, tensor(dy), tensor(w))
    dw = evaluate(
        "ConvTransposeBackwardWeights", {**a, "weights_shape": list(w.shape)}, tensor(x), tensor(dy)
    )
    forward = float(np.sum(y0.astype(np.float64) * dy))
    assert np.isclose(forward, float(np.sum(x.astype(np.float64) * dx)), rtol=1e-4, atol=1e-3)
    assert np.isclose(forward, float(np.sum(w.astype(np.float64) * dw)), rtol=1e-4, atol=1e-3)


def test_layouts_are_the_same_convolution():
    """NXC data and XIO weights are the same numbers as NCX / OIX, moved."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    a = attrs_for(2, groups=2, strides=[2, 1], pads_begin=[1, 0], pads_end=[0, 1])
    ncx = evaluate("Convolution", {**a, "weights_format": "OIX"}, tensor(x), tensor(w))
    nxc = evaluate(
        "Convolution",
        {**a, "data_format": "NXC", "weights_format": "XIO"},
        tensor(np.moveaxis(x, 1, -1)),
        tensor(np.transpose(w, (2, 3, 1, 0))),
    )
    assert np.array_equal(np.moveaxis(nxc, -1, 1), ncx)


def test_signed_zero_and_nan():
    x = np.array([[[-0.0, np.nan, 1.0]]], np.float32)
    w = np.array([[[1.0]]], np.float32)
    y = evaluate("Convolution", attrs_for(1, weights_format="OIX"), tensor(x), tensor(w))
    assert np.isnan(y[0, 0, 1]) and y[0, 0, 2] == 1.0
    assert y[0, 0, 0] == 0  # a 1x1 window on -0: -0 * 1 added to +0 (the accumulator starts at +0)


# --- oneDNN's own outputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", fixtures("convolution"), ids=lambda p: p.stem)
def test_against_onednn(path: Path):
    """oneDNN 3.13's outputs on its own seeded inputs, within the tolerance the op states."""
    assert_within_tolerance(path)


def test_work_is_bounded():
    """A 3-D convolution of 758 M multiply-adds (sizes within max_elements) is refused before it runs."""
    x, w = np.zeros((1, 16, 40, 40, 40), np.float32), np.zeros((32, 16, 3, 3, 3), np.float32)
    d = descriptor("Convolution", attrs_for(3, weights_format="OIX"), tensor(x), tensor(w))
    with pytest.raises(LimitExceeded) as info:
        run(REGISTRY["Convolution"], d, Settings())
    assert info.value.limit == "max_kernel_steps" and "multiply-adds" in info.value.message


# --- rules ------------------------------------------------------------------------------------------

CONV = ("Convolution", attrs_for(2, weights_format="OIX"))


@pytest.mark.parametrize(
    ("change", "inputs", "rule"),
    [
        ({"strides": [0, 2]}, None, "Convolution.strides.value"),
        ({"dilations": [1, 0]}, None, "Convolution.dilations.value"),
        ({"pads_begin": [-1, 0]}, None, "Convolution.pads.value"),
        ({"pads_end": []}, None, "Convolution.attrs.length"),
        ({"strides": [1]}, None, "Convolution.attrs.length"),
        ({"groups": 0}, None, "Convolution.groups.value"),
        ({"groups": 3}, None, "Convolution.groups"),
        ({}, [[1, 4, 5, 5], [6, 3, 3, 3]], "Convolution.channels"),
        ({"groups": 2}, [[1, 4, 5, 5], [5, 2, 3, 3]], "Convolution.groups"),
        ({}, [[1, 4, 5, 5], [6, 4, 3, 3], [5]], "Convolution.bias"),
        ({}, [[1, 4, 5, 5], [6, 4, 3, 3], [1, 6]], "Convolution.bias"),
        ({"auto_pad": "same"}, None, "Convolution.auto_pad"),
        ({"weights_format": "IOX"}, None, "Convolution.attrs.value"),
        ({"data_format": "ncx"}, None, "Convolution.attrs.value"),
        ({}, [[1, 4, 5, 5, 5, 5], [6, 4, 1, 1, 1, 1]], "Convolution.rank"),
        ({}, [[1, 4], [6, 4]], "Convolution.rank"),
        ({}, [[1, 4, 5, 5], [6, 4, 3]], "Convolution.rank"),
    ],
)
def test_convolution_errors_where_onednn_refuses_or_aborts(change, inputs, rule):
    kind, a = CONV
    shapes = inputs or [[1, 4, 5, 5], [6, 4, 3, 3]]
    v = verdict(kind, {**a, **change}, *map(tensor, shapes))
    assert not v.valid and rule in errors(v), v.diagnostics


def test_channel_mismatch_names_the_dims():
    v = verdict(
        "Convolution",
        attrs_for(2, weights_format="OIX", groups=2),
        tensor([1, 8, 5, 5]),
        tensor([6, 3, 3, 3]),
    )
    (d,) = v.diagnostics
    assert (d.rule, d.path) == ("Convolution.channels", "inputs[1].shape")
    assert (
        d.message == "src has 8 channels, 4 per group of 2, but weights [6, 3, 3, 3] (OIX) has 3 in its I dim"
    )


def test_auto_pad_spellings():
    base = attrs_for(2, weights_format="OIX", strides=[2, 2])
    shapes = (tensor([1, 4, 7, 8]), tensor([6, 4, 4, 3]))
    onednn = verdict("Convolution", {**base, "auto_pad": "SAME_LOWER"}, *shapes)
    page = verdict("Convolution", {**base, "auto_pad": "same_lower"}, *shapes)
    assert onednn.valid and not onednn.diagnostics
    assert page.valid and warnings_of(page) == {"Convolution.onednn.auto_pad"}
    assert onednn.outputs[0].shape == page.outputs[0].shape == (1, 6, 4, 4)  # oneDNN infers [1, 6, 4, 4]


def test_symbols_flow_as_expressions_and_unknown_sizes_warn():
    v = verdict("Convolution", attrs_for(2, weights_format="OIX", pads_begin=[1, 0], pads_end=[1, 0]),
                tensor(["N", 4, "H", 5]), tensor([6, 4, 3, 1]))  # fmt: skip
    assert v.valid and v.outputs[0].shape == ("N", 6, "H", 5)
    same = verdict("Convolution", attrs_for(2, weights_format="OIX", strides=[2, 2], auto_pad="SAME_UPPER"),
                   tensor([1, 4, "H", 8]), tensor([6, 4, 3, 3]))  # fmt: skip
    assert same.valid and same.outputs[0].shape == (1, 6, "(H - 1) // 2 + 1", 4) and not same.diagnostics
    issue = verdict("Convolution", attrs_for(2, weights_format="OIX", strides=[2, 2], pads_begin=[1, 1],
                    pads_end=[1, 1]), tensor(["N", 3, "H", "W"]), tensor([8, 3, 3, 3]))  # fmt: skip
    assert issue.outputs[0].shape == ("N", 8, "(H - 1) // 2 + 1", "(W - 1) // 2 + 1")
    unknown = verdict("Convolution", attrs_for(2, weights_format="OIX", strides=[2, 2], auto_pad="SAME_UPPER"),
                      tensor([1, 4, -1, 8]), tensor([6, 4, 3, 3]))  # fmt: skip
    assert unknown.valid and unknown.outputs[0].shape == (1, 6, None, 4)
    assert warnings_of(unknown) == {"Convolution.auto_pad.unknown"}


def test_conv_transpose_rules():
    a = attrs_for(2, weights_format="IOX", strides=[2, 2])
    ok = verdict("ConvTranspose", {**a, "output_padding": [1, 0]}, tensor([1, 4, 5, 5]), tensor([4, 6, 3, 3]))
    assert ok.valid and ok.outputs[0].shape == (1, 6, 12, 11)  # oneDNN infers [1, 6, 12, 11]
    big = verdict(
        "ConvTranspose", {**a, "output_padding": [2, 0]}, tensor([1, 4, 5, 5]), tensor([4, 6, 3, 3])
    )
    assert errors(big) == {"ConvTranspose.output_padding.range"}
    mismatch = verdict("ConvTranspose", a, tensor([1, 16, 5, 5]), tensor([8, 16, 3, 3]))
    assert errors(mismatch) == {"ConvTranspose.channels"}
    table_format = verdict(
        "ConvTranspose", {**a, "weights_format": "OIX"}, tensor([1, 4, 5, 5]), tensor([6, 4, 3, 3])
    )
    assert table_format.valid and warnings_of(table_format) == {"ConvTranspose.onednn.weights_format"}
    assert table_format.outputs[0].shape == (1, 6, 11, 11)
    default = verdict("ConvTranspose", {k: v for k, v in a.items() if k not in ("data_format", "weights_format")},
                      tensor([1, 5, 5, 4]), tensor([3, 3, 6, 4]))  # fmt: skip
    assert default.valid and default.outputs[0].shape == (1, 11, 11, 6)  # NXC, XOI: oneDNN's defaults


def test_backward_shapes_given_and_checked():
    a = attrs_for(2, weights_format="OIX")
    told = verdict(
        "ConvolutionBackwardData",
        {**a, "dst_shape": [1, 4, 5, 5]},
        tensor([1, 6, 3, 3]),
        tensor([6, 4, 3, 3]),
    )
    assert told.valid and told.outputs[0].shape == (1, 4, 5, 5)
    untold = verdict("ConvolutionBackwardData", a, tensor([1, 6, 3, 3]), tensor([6, 4, 3, 3]))
    assert errors(untold) == {"ConvolutionBackwardData.dst_shape.required"}
    wrong = verdict(
        "ConvolutionBackwardData",
        {**a, "dst_shape": [1, 4, 9, 9]},
        tensor([1, 6, 3, 3]),
        tensor([6, 4, 3, 3]),
    )
    assert errors(wrong) == {"ConvolutionBackwardData.shapes.agree"}
    as_input = {"dtype": "s32", "shape": [4], "data": [1, 4, 5, 5]}
    by_input = verdict("ConvolutionBackwardData", a, tensor([1, 6, 3, 3]), tensor([6, 4, 3, 3]), as_input)
    assert by_input.valid and by_input.outputs[0].shape == (1, 4, 5, 5)
    assert warnings_of(by_input) == {"ConvolutionBackwardData.onednn.shape_input"}
    bad_weights = verdict("ConvTransposeBackwardWeights", attrs_for(2, weights_format="IOX", strides=[2, 2],
                          weights_shape=[4, 6, 3, 3]), tensor([1, 4, 5, 5]), tensor([1, 6, 15, 15]))  # fmt: skip
    assert errors(bad_weights) == {"ConvTransposeBackwardWeights.shapes.agree"}


# --- benchdnn ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "count"), KINDS.items())
def test_benchdnn_nodes_are_checked_valid_and_shaped_as_written(kind, count):
    nodes = nodes_of(kind)
    assert len(nodes) == count
    for node in nodes:
        assert node.checked_as == kind
        assert node.verdict == "valid", (node.file, node.findings)
        assert node.inferred == node.declared, node.file


def _mutated(path: str, change) -> tuple:
    document = json.loads((FILES / path).read_text())
    change(document["graph"])
    data = (json.dumps(document, indent=2) + "\n").encode()
    result = graphs.check(data, Settings())
    return result, [d for n in result.nodes for d in n.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(
    ("path", "change", "rule"),
    [
        (
            "op/f32/conv_3d.json",
            lambda g: g[0]["inputs"][1]["shape"].__setitem__(1, 4),
            "Convolution.channels",
        ),
        (
            "op/f32/conv_3d.json",
            lambda g: g[0]["attrs"]["strides"]["value"].__setitem__(0, 0),
            "Convolution.strides.value",
        ),
        (
            "op/f32/conv_3d.json",
            lambda g: g[0]["inputs"][0].__setitem__("dtype", "s8"),
            "Convolution.src.dtype",
        ),
        ("op/f32/conv_3d.json", lambda g: g[0]["attrs"].pop("strides"), "Convolution.attrs.required"),
        (
            "op/f32/conv_3d.json",
            lambda g: g[0]["inputs"].append(copy.deepcopy(g[0]["inputs"][2])),
            "Convolution.inputs.count",
        ),
        (
            "op/f32/conv_3d.json",
            lambda g: g[0]["outputs"][0]["shape"].__setitem__(2, 115),
            "Convolution.outputs.dim",
        ),
        (
            "op/f32/deconv.json",
            lambda g: g[0]["attrs"]["pads_end"]["value"].__setitem__(0, -1),
            "ConvTranspose.pads.value",
        ),
        (
            "op/f32/conv_bwd_d_2d.json",
            lambda g: g[0]["attrs"]["dst_shape"]["value"].__setitem__(2, 40),
            "ConvolutionBackwardData.shapes.agree",
        ),
        (
            "op/f32/deconv_bwd_w.json",
            lambda g: g[0]["inputs"].pop(),
            "ConvTransposeBackwardWeights.inputs.count",
        ),
    ],
)
def test_mutated_benchdnn_files_are_errors_at_the_node(path, change, rule):
    result, errs = _mutated(path, change)
    assert not result.valid
    assert rule in {d.rule for d in errs}, errs
    for d in errs:
        assert result.position(d.path) is not None  # a line and column for every finding


def test_work_over_the_limit_is_413(client):
    """Through POST /v1/evaluate: 20 M multiply-adds of a small 3-D convolution, refused as too large."""
    x, w = np.zeros((1, 8, 20, 20, 20), np.float32), np.zeros((16, 8, 3, 3, 3), np.float32)
    body = {
        "kind": "Convolution",
        "attrs": attrs_for(3, weights_format="OIX"),
        "inputs": [tensor(x), tensor(w)],
    }
    response = client.post("/v1/evaluate", json=body)
    assert response.status_code == 413, response.text
    assert "max_kernel_steps" in response.text


def test_output_padding_where_onednn_takes_it():
    """ConvTranspose: below the stride (oneDNN aborts otherwise); ConvolutionBackwardData: any (dst_shape
    decides; oneDNN compiles [1, 1] at stride 1); the transposed backward ops: oneDNN refuses the attribute."""
    a = attrs_for(2, output_padding=[1, 1])
    ct = verdict("ConvTranspose", {**a, "weights_format": "IOX"}, tensor([1, 4, 5, 5]), tensor([4, 6, 3, 3]))
    assert errors(ct) == {"ConvTranspose.output_padding.range"}
    cbd = verdict("ConvolutionBackwardData", {**a, "weights_format": "OIX", "dst_shape": [1, 4, 5, 5]},
                  tensor([1, 6, 3, 3]), tensor([6, 4, 3, 3]))  # fmt: skip
    assert cbd.valid and not cbd.diagnostics
    ctbd = verdict(
        "ConvTransposeBackwardData",
        {**a, "weights_format": "IOX"},
        tensor([1, 6, 7, 7]),
        tensor([4, 6, 3, 3]),
    )
    assert ctbd.valid and warnings_of(ctbd) == {"ConvTransposeBackwardData.onednn.output_padding"}
    plain = verdict(
        "ConvTransposeBackwardData",
        attrs_for(2, weights_format="IOX"),
        tensor([1, 6, 7, 7]),
        tensor([4, 6, 3, 3]),
    )
    assert plain.valid and not plain.diagnostics
