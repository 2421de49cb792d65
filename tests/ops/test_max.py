"""Max (ONNX under SONNX): the kernel against a plain-loop oracle, the profile's two properties, and
every rule passing and failing through the HTTP API."""

from __future__ import annotations

import base64
import itertools
import math
from unittest import mock

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli import EXIT_INVALID, main
from app.core.config import Settings
from app.core.dtypes import DTYPES, NUMERIC
from app.ops import max as max_op
from app.ops.max import maximum
from tests.ops.maximum_oracle import NARROW, every_pattern, oracle_max, same_bits
from tests.test_library import assert_lane_is_the_full_way

FLOAT_TYPES = ("f32", "f16", "bf16", "f64")
INT_TYPES = tuple(sorted(NUMERIC - set(FLOAT_TYPES)))
SPECIAL = (0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0)


# --- the oracle: one output element at a time, from the profile's definitions ----------------


def profile_max(values: list) -> float | int:
    """The profile's maximum of a list: NaN if any value is NaN; else the largest, -0 ranking below +0."""
    if any(isinstance(v, float) and math.isnan(v) for v in values):
        return math.nan
    return max(values, key=lambda v: (v, math.copysign(1.0, v) > 0))


def source_index(out_index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """The profile's f(a, B, C): the element of an input that output element `out_index` reads."""
    aligned = out_index[len(out_index) - len(shape) :]
    return tuple(0 if size == 1 else i for i, size in zip(aligned, shape, strict=True))


def oracle(arrays: list[np.ndarray]) -> np.ndarray:
    rank = max(a.ndim for a in arrays)
    padded = [(1,) * (rank - a.ndim) + a.shape for a in arrays]
    out_shape = tuple(max(column) for column in zip(*padded, strict=True)) if rank else ()
    out = np.empty(out_shape, dtype=arrays[0].dtype)
    for index in itertools.product(*(range(n) for n in out_shape)):
        out[index] = profile_max([a[source_index(index, a.shape)].item() for a in arrays])
    return out


# --- strategies -------------------------------------------------------------------------------


def element(dtype: str) -> st.SearchStrategy:
    info = DTYPES[dtype]
    if info.is_float:
        return st.one_of(st.floats(allow_nan=False, width=16), st.sampled_from(SPECIAL))
    low, high = int(info.lowest), int(info.highest)
    return st.one_of(st.integers(low, high), st.sampled_from([low, high, 0, 1, -1 if low else 1]))


@st.composite
def operands(draw, dtypes=tuple(sorted(NUMERIC))):
    """1 to 5 arrays of one dtype whose shapes broadcast under the strict rule."""
    dtype = draw(st.sampled_from(dtypes))
    out_shape = draw(st.lists(st.integers(0, 3), max_size=3))
    arrays = []
    # A dim of 0 admits only 0s (a 1 or a missing dim there breaks the strict rule).
    keep = out_shape.index(0) if 0 in out_shape else len(out_shape)
    for _ in range(draw(st.integers(1, 5))):
        drop = draw(st.integers(0, keep))
        shape = [1 if n and draw(st.booleans()) else n for n in out_shape[drop:]]
        count = math.prod(shape)
        values = draw(st.lists(element(dtype), min_size=count, max_size=count))
        arrays.append(np.array(values, dtype=np.float64 if DTYPES[dtype].is_float else object))
        arrays[-1] = arrays[-1].astype(DTYPES[dtype].numpy).reshape(shape)
    return dtype, arrays


@settings(max_examples=200, deadline=None)
@given(operands())
def test_kernel_matches_the_oracle_bit_for_bit(case) -> None:
    _, arrays = case
    assert same_bits(maximum(arrays), oracle(arrays))


@settings(max_examples=200, deadline=None)
@given(operands(FLOAT_TYPES))
def test_the_profiles_two_properties(case) -> None:
    """y >= every broadcast input (with -0 < +0), and y is one of them (bit for bit); NaN where any input is."""
    _, arrays = case
    y = maximum(arrays).astype(np.float64)
    z = [np.broadcast_to(a, y.shape).astype(np.float64) for a in arrays]
    any_nan = np.logical_or.reduce([np.isnan(zn) for zn in z])
    assert np.array_equal(np.isnan(y), any_nan)
    clean = ~any_nan
    negative_zero = (y == 0) & np.signbit(y)  # in the profile's order -0 < +0, so no input may be +0
    for zn in z:
        assert (y[clean] >= zn[clean]).all()
        assert not (negative_zero & (zn == 0) & ~np.signbit(zn)).any()
    bits = y.view(np.uint64)
    hit = np.logical_or.reduce([bits == zn.view(np.uint64) for zn in z])
    assert hit[clean].all()


@settings(max_examples=100, deadline=None)
@given(operands(INT_TYPES))
def test_integers_are_exact_to_the_extremes(case) -> None:
    _, arrays = case
    got = maximum(arrays)
    assert got.dtype == arrays[0].dtype
    assert np.array_equal(got, oracle(arrays))


@pytest.mark.parametrize("zeros", [3, 400])
def test_signed_zero_fix_in_sparse_and_dense_results(zeros) -> None:
    """A few zero results are fixed where they are; many take one more pass: both give +0 over -0."""
    rng = np.random.default_rng(zeros)
    rows = -np.abs(rng.standard_normal((40, 1))).astype(np.float32) - 1
    grid = -np.abs(rng.standard_normal((40, 50))).astype(np.float32) - 1
    flat = grid.reshape(-1)
    spots = rng.choice(flat.size, zeros, replace=False)
    flat[spots] = -0.0
    positive = np.zeros((40, 50), dtype=np.float32) - 2
    positive.reshape(-1)[spots[::2]] = 0.0
    for arrays in ([grid, rows, positive], [positive, grid, rows], [rows, positive, grid]):
        got = maximum(arrays)
        assert same_bits(got, oracle(arrays))
        assert np.signbit(got.reshape(-1)[spots[1::2]]).all()
        assert not np.signbit(got.reshape(-1)[spots[::2]]).any()


def test_narrow_floats_stay_exact() -> None:
    f16 = np.array([65504, 6e-08, -0.0], dtype=np.float16)
    bf16 = np.array([1.0078125, 1, -0.0], dtype=ml_dtypes.bfloat16)
    assert same_bits(maximum([f16, f16[::-1]]), np.array([65504, 6e-08, 65504], dtype=np.float16))
    assert same_bits(maximum([bf16, -bf16]), np.array([1.0078125, 1, 0.0], dtype=ml_dtypes.bfloat16))


def test_inputs_of_one_shape_are_folded_first_and_stay_exact() -> None:
    """maximum folds same-shape inputs at their own size before broadcasting (a thousand scalars beside a
    large tensor cost one pass over it): the +0 / -0 and NaN rules hold inside a group too."""
    grid = np.full((2, 3), -0.0, dtype=np.float32)
    zeros = [np.array(-0.0, dtype=np.float32)] * 50 + [np.array(0.0, dtype=np.float32)]
    got = maximum([grid, *zeros, np.array(-1.0, dtype=np.float32)])
    assert same_bits(got, np.zeros((2, 3), dtype=np.float32))
    rows = [np.array([[-0.0, 1, -5]], dtype=np.float32), np.array([[0.0, math.nan, -6]], dtype=np.float32)]
    got = maximum([grid, *rows, np.array(-0.0, dtype=np.float32)])
    assert same_bits(got, np.array([[0.0, math.nan, -0.0]] * 2, dtype=np.float32))


def test_one_input_is_copied() -> None:
    x = np.array([-0.0, math.nan], dtype=np.float32)
    y = maximum([x])
    assert same_bits(y, x) and y is not x


# --- rules through the API --------------------------------------------------------------------


def post(client, inputs, outputs=None, path="/v1/validate"):
    body = {"kind": "Max", "inputs": inputs}
    if outputs is not None:
        body["outputs"] = outputs
    return client.post(path, json=body)


def diagnostics(client, inputs, outputs=None) -> list[tuple[str, str, str]]:
    response = post(client, inputs, outputs)
    assert response.status_code == 200, response.text
    return [(d["rule"], d["path"], d["message"]) for d in response.json()["diagnostics"]]


def shapes(*shape_list) -> list[dict]:
    return [{"dtype": "f32", "shape": shape} for shape in shape_list]


def test_brief_message_for_a_clash(client) -> None:
    assert diagnostics(client, shapes([2, 4], [3])) == [
        (
            "Max.RJ",
            "inputs[1].shape[0]",
            "input 1 has size 3 in dim 1, where the largest size is 4; each input must have 4 or 1 there",
        )
    ]


def test_every_dim_has_its_letter(client) -> None:
    """A clash in each of 16 dims is reported 16 times, under RI, RJ, ... RX, at that input's axes."""
    found = diagnostics(client, shapes([2] * 16, [3] * 16))
    assert [(rule, path) for rule, path, _ in found] == [
        (f"Max.R{letter}", f"inputs[0].shape[{dim}]") for dim, letter in enumerate("IJKLMNOPQRSTUVWX")
    ]


def test_letters_past_the_default_rank_limit() -> None:
    assert [max_op.restriction_id(d) for d in (0, 3, 16, 17, 18, 40)] == [
        "Max.RI",
        "Max.RL",
        "Max.RY",
        "Max.RZ",
        "Max.C2",
        "Max.C2",
    ]


def test_zero_beside_one_says_why_numpy_differs(client) -> None:
    [(rule, path, message)] = diagnostics(client, shapes([0], [1]))
    assert (rule, path) == ("Max.RI", "inputs[0].shape[0]")
    assert message.startswith("input 0 has size 0 in dim 0, where the largest size is 1")
    assert "NumPy would give 0" in message


def test_paths_index_each_inputs_own_shape(client) -> None:
    """Output dim 1 is axis 0 of the shorter input: the path says so."""
    found = diagnostics(client, shapes([5, 4, 3], [2, 3], [1, 4, 1]))
    assert [(rule, path) for rule, path, _ in found] == [("Max.RJ", "inputs[1].shape[0]")]


def test_clash_beside_an_unknown_rank_is_c2_counted_from_the_right(client) -> None:
    [(rule, path, message)] = diagnostics(client, shapes([2, 3], None, [4, 3]))
    assert (rule, path) == ("Max.C2", "inputs[0].shape[0]")
    assert "dim -2 (counted from the right" in message


@pytest.mark.parametrize(
    ("given", "shape", "warned"),
    [
        ((["N"], [1]), ["N"], None),
        ((["N"], ["N"]), ["N"], None),
        ((["N", 2], [3, 1]), [3, 2], "N (input 0) in dim 0 is taken to be 3 or 1"),
        (
            (["N"], ["M"]),
            ["N"],
            "N (input 0) and M (input 1) in dim 0 are taken to be equal (or one of them 1)",
        ),
        (([-1], ["M"]), [-1], "in dim 0, the unknown size of input 0 and M (input 1) must be equal or 1"),
        (([-1], [5]), [5], "the unknown size of input 0 in dim 0 is taken to be 5 or 1"),
        ((["N"], [0]), [0], "N (input 0) in dim 0 is taken to be 0"),
        (([-1], [-1]), [-1], None),
        ((None, ["N"]), None, None),
    ],
)
def test_symbolic_dims(client, given, shape, warned) -> None:
    response = post(client, shapes(*given))
    verdict = response.json()
    assert verdict["valid"] is True
    assert verdict["outputs"] == [{"dtype": "f32", "shape": shape}]
    found = [(d["rule"], d["severity"], d["message"]) for d in verdict["diagnostics"]]
    if warned is None:
        assert found == []
    else:
        [(rule, severity, message)] = found
        assert (rule, severity) == ("Max.broadcast.assumption", "warning")
        assert message.startswith(warned)


def test_assumption_points_at_the_symbol(client) -> None:
    verdict = post(client, shapes([2, 3], [1, "K"])).json()
    assert [d["path"] for d in verdict["diagnostics"]] == ["inputs[1].shape[1]"]


def test_one_dtype_for_all_inputs(client) -> None:
    inputs = [{"dtype": dt, "shape": [2]} for dt in ("s16", "s16", "u16", "s16", "f16")]
    found = diagnostics(client, inputs)
    assert found == [
        (
            "Max.C1",
            "inputs[2].dtype",
            "input 2 has dtype u16, but input 0 has s16; all inputs of Max share one dtype T",
        ),
        (
            "Max.C1",
            "inputs[4].dtype",
            "input 4 has dtype f16, but input 0 has s16; all inputs of Max share one dtype T",
        ),
    ]
    same = [{"dtype": "int16", "shape": [2]}, {"dtype": "s16", "shape": [1]}]
    assert post(client, same).json()["outputs"] == [{"dtype": "s16", "shape": [2]}]


def test_a_type_off_the_list_is_c1_once(client) -> None:
    found = diagnostics(client, [{"dtype": "sa8", "shape": [2]}, {"dtype": "s8", "shape": [2]}])
    assert [(rule, path) for rule, path, _ in found] == [("Max.C1", "inputs[0].dtype")]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_common_dtype_of_every_mix(count) -> None:
    """_common_dtype answers inputs of one listed dtype at once; every mix (off the list too) is still
    reported input by input against the first listed one, and has no T."""
    from app.core.config import get_settings
    from app.core.engine import Context
    from app.ops import BY_NAME

    for dtypes in itertools.product(["f32", "s64", "u8", "sa8"], repeat=count):  # sa8: off T's list
        descriptor = max_op.MaxOp(kind="Max", inputs=[{"dtype": dt, "shape": [2]} for dt in dtypes])
        ctx = Context(BY_NAME["Max"], descriptor, get_settings())
        listed = [(index, dt) for index, dt in enumerate(dtypes) if dt in max_op.T]
        mixed = [f"inputs[{index}].dtype" for index, dt in listed if dt != listed[0][1]]
        one = bool(listed) and not mixed and len(listed) == count
        assert max_op._common_dtype(descriptor, ctx) == (dtypes[0] if one else None), dtypes
        assert [(d.rule, d.path) for d in ctx.report.diagnostics] == [("Max.C1", path) for path in mixed], (
            dtypes
        )


def test_errors_in_dtype_and_shape_come_together(client) -> None:
    found = diagnostics(client, [{"dtype": "f32", "shape": [2]}, {"dtype": "f64", "shape": [3]}])
    assert {(rule, path) for rule, path, _ in found} == {
        ("Max.C1", "inputs[1].dtype"),
        ("Max.RI", "inputs[0].shape[0]"),
    }


def test_many_inputs(client) -> None:
    inputs = [{"dtype": "u8", "shape": [1, 2], "data": [[i % 256, 255 - i % 256]]} for i in range(300)]
    response = post(client, inputs, path="/v1/evaluate")
    assert response.status_code == 200, response.text
    assert response.json()["outputs"][0]["data"] == [[255, 255]]


# --- every endpoint ---------------------------------------------------------------------------


def test_listed_with_its_rules_and_types(client) -> None:
    assert "Max" in {op["kind"] for op in client.get("/v1/ops").json()}
    detail = client.get("/v1/ops/Max").json()
    assert detail["attributes"]["properties"] == {}
    assert detail["inputs"][0]["variadic"] is True
    assert len(detail["dtypes"]) == 12
    rules = {rule["id"]: rule for rule in detail["rules"]}
    assert {"Max.C1", "Max.C2", "Max.RI", "Max.RX", "Max.broadcast.assumption"} <= set(rules)
    assert rules["Max.broadcast.assumption"]["severity"] == "warning"
    assert rules["Max.RJ"]["spec"].endswith("restriction RJ of the broadcasting rule")


def test_batch(client) -> None:
    good = {"kind": "Max", "inputs": shapes([2], [1])}
    bad = {"kind": "Max", "inputs": shapes([2], [3])}
    results = client.post("/v1/validate/batch", json={"ops": [good, bad]}).json()["results"]
    assert [r["valid"] for r in results] == [True, False]


def test_evaluate_base64_round_trip_of_64_bit_extremes(client) -> None:
    low = np.array([np.iinfo(np.int64).min, 7], dtype="<i8")
    high = np.array([-1, np.iinfo(np.int64).min], dtype="<i8")
    inputs = [
        {
            "dtype": "s64",
            "shape": [2],
            "data": {"encoding": "base64", "bytes": base64.b64encode(a.tobytes()).decode()},
        }
        for a in (low, high)
    ]
    response = post(client, inputs, path="/v1/evaluate")
    assert response.status_code == 200, response.text
    raw = base64.b64decode(response.json()["outputs"][0]["data"]["bytes"])
    assert np.frombuffer(raw, dtype="<i8").tolist() == [-1, 7]


def test_evaluate_refuses_an_invalid_or_dataless_descriptor(client) -> None:
    invalid = post(
        client,
        [{"dtype": "f32", "shape": [2], "data": [1, 2]}, {"dtype": "f32", "shape": [3], "data": [1, 2, 3]}],
        path="/v1/evaluate",
    )
    assert invalid.status_code == 422
    assert [d["rule"] for d in invalid.json()["diagnostics"]] == ["Max.RI"]
    dataless = post(client, shapes([2]), path="/v1/evaluate")
    assert dataless.status_code == 422


def test_cli_check(tmp_path, capsys) -> None:
    path = tmp_path / "max.json"
    path.write_text(
        '{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2, 4]}, {"dtype": "f32", "shape": [3]}]}'
    )
    assert main(["check", str(path)]) == EXIT_INVALID
    assert f"{path}:1:90: error Max.RJ: " in capsys.readouterr().out  # at inputs[1].shape[0]


# --- the kernel against a plain oracle, bit for bit: every 16-bit pattern, NaNs of either sign, -0 beside +0


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_max_bits16_on_every_pattern(dtype) -> None:
    rng = np.random.default_rng(1)
    values = every_pattern(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1, -1], dtype=dtype)
    others = [rng.permutation(values), np.resize(specials, values.shape)]
    for pair in ([values, others[0]], [others[1], values], [values, others[0], others[1]]):
        assert same_bits(maximum(pair), oracle_max(pair))


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_max_bits16_broadcast_all_negative_and_negative_nan(dtype) -> None:
    rng = np.random.default_rng(2)
    column = -np.abs(rng.standard_normal((6, 1))).astype(dtype)
    row = np.array([-0.0, -1, -np.inf, -3, 0.0, -np.nan, np.nan], dtype=dtype)
    full = -np.abs(rng.standard_normal((6, 7))).astype(dtype)
    full[0, 0] = -0.0
    for arrays in ([column, row], [column, row, full], [full, column], [np.array(-0.0, dtype), full]):
        assert same_bits(maximum(arrays), oracle_max(arrays))


def test_max_same_shape_folds_once_and_keeps_positive_zero() -> None:
    a = np.array([[-0.0, 0.0, np.nan, -1]], np.float32).repeat(3, 0)
    b = np.array([[0.0, -0.0, 2, -0.0]], np.float32).repeat(3, 0)
    out = maximum([a, b])
    assert out is not a and out is not b
    assert same_bits(out, oracle_max([a, b]))


def test_max_in_blocks_of_rows_matches_the_oracle(monkeypatch) -> None:
    monkeypatch.setattr(max_op, "_BLOCK", 4000)  # many blocks of 2 f32 rows (4 of f16) on a small array
    rng = np.random.default_rng(5)
    a = -np.abs(rng.standard_normal((30, 500))).astype(np.float32)
    a[rng.random(a.shape) < 0.3] = -0.0
    column = np.where(rng.random((30, 1)) < 0.5, 0.0, -0.0).astype(np.float32)
    row = np.where(rng.random(500) < 0.5, np.nan, -0.0).astype(np.float32)
    for arrays in ([a, column], [a, row], [a, column, row], [a, a.copy()], [a.reshape(-1), a.reshape(-1)]):
        for dtype in [np.float32, *NARROW]:
            narrowed = [x.astype(dtype) for x in arrays]
            assert same_bits(maximum(narrowed), oracle_max(narrowed))
    negative_nan = np.full(500, -np.nan, np.float16)  # the 16-bit floats' put-back, block by block
    assert same_bits(
        maximum([a.astype(np.float16), negative_nan]), oracle_max([a.astype(np.float16), negative_nan])
    )
    for dtype in NARROW:  # NaNs with the sign set in one block of one input only: looked for per block
        grid, other, side = a.astype(dtype), (-a[::-1]).astype(dtype), column.astype(dtype)
        grid[7, 3:9] = np.array(-np.nan, dtype)
        grid.view(np.uint16)[8, 0] = np.array(-np.inf, dtype).view(np.uint16) + np.uint16(1)
        for arrays in ([grid, other], [other, grid, side], [side, grid]):
            assert same_bits(maximum(arrays), oracle_max(arrays))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_zero_check_skipped_only_where_no_two_inputs_hold_zeros(dtype, monkeypatch) -> None:
    """A -0 result is looked at only when two inputs may hold zeros (small inputs are counted, large
    ones assumed to), and a block's -0 is found by its bits being the least integer: every case exact."""
    monkeypatch.setattr(max_op, "_BLOCK", 1024)  # blocks of 4 f32 rows, so some hold a -0 and some none
    checked, fill = [], max_op._fill_max
    monkeypatch.setattr(
        max_op, "_fill_max", lambda out, arrays: checked.append(out.shape) or fill(out, arrays)
    )
    rng = np.random.default_rng(6)
    big = -np.abs(rng.standard_normal((64, 64))).astype(dtype)
    big[rng.random(big.shape) < 0.05] = -0.0
    big[:8] = -np.abs(big[:8]) - 1  # two blocks without a zero at all
    big[40, 3] = 0.0
    big[41, 5] = np.nan
    big[42, 7] = -np.nan
    free = (rng.random(64) + 0.5).astype(dtype) * -1  # no zero: beside big, nothing to check
    plus = free.copy()
    plus[[3, 7, 9]] = 0.0
    minus = free.copy()
    minus[[3, 11]] = -0.0
    cases = [
        ([big, free], False),
        ([free, big, free[:, None]], False),
        ([big, plus], True),  # +0 in the row meets big's -0s
        ([big, minus], True),  # glanced at: it holds zeros, so it counts
        ([big, big[::-1].copy()], True),  # two large inputs: checked without looking
        ([big[:, ::2], free[::2]], False),  # a strided view
        ([big.T, plus[:, None]], True),
        ([np.array(0.0, dtype), big], True),
        ([big[:0], free], False),  # an empty result
        ([np.array(-0.0, dtype), np.array(0.0, dtype)], True),  # tiny: a single element, one block
        ([np.array([-0.0], dtype), np.array([-0.0], dtype)], True),
    ]
    for arrays, looked in cases:
        checked.clear()
        assert same_bits(maximum(arrays), oracle_max(arrays)), [a.shape for a in arrays]
        assert bool(checked) == looked, [a.shape for a in arrays]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, *NARROW], ids=str)
def test_max_beside_a_broadcast_row_over_longer_rows(dtype, monkeypatch) -> None:
    """k rows of the result taken as one (row inputs tiled, full ones reshaped): exact, also where
    it does not apply (a column, a strided tensor, rows that k does not divide)."""
    taken, longer_rows = [], max_op._longer_rows
    monkeypatch.setattr(
        max_op, "_longer_rows", lambda shape, arrays: taken.append(longer_rows(shape, arrays)) or taken[-1]
    )
    rng = np.random.default_rng(8)
    integer = np.issubdtype(dtype, np.integer)

    def values(shape):
        if integer:
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        x = rng.standard_normal(shape).astype(dtype)
        x[rng.random(shape) < 0.2] = -0.0
        x[rng.random(shape) < 0.1] = 0.0
        x[rng.random(shape) < 0.05] = np.array(-np.nan, dtype)
        x[rng.random(shape) < 0.05] = np.nan
        return x

    grid, row, cube = values((64, 32)), values(32), values((8, 16, 32))
    cases = [
        ([grid, row], True),
        ([row, grid, values((1, 32)), values(())], True),
        ([cube, values((1, 1, 32)), values((16, 32))], False),  # [16,32] is neither a row nor whole
        ([cube, row], True),
        ([grid, values((64, 1))], False),  # a column
        ([values((64, 64))[:, ::2], row], False),  # strided
        ([values((63, 32)), row], False),  # 63 rows: no power of two divides them
        ([values((12, 32)), row], False),  # 12 rows: an eighth is 1
    ]
    for arrays, applies in cases:
        taken.clear()
        got = maximum(arrays)
        want = np.maximum.reduce(np.broadcast_arrays(*arrays)) if integer else oracle_max(arrays)
        assert same_bits(got, want), [a.shape for a in arrays]
        assert (taken[-1] is not None) == applies, [a.shape for a in arrays]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint64])
def test_max_of_one_shape_in_one_block_matches_the_oracle(dtype, monkeypatch) -> None:
    """Inputs of the result's shape within one block take _one_block: element by element and bit for
    bit the maximum the blocked path gives, -0 beside +0 and NaNs of either sign included."""
    taken, one_block = [], max_op._one_block
    monkeypatch.setattr(max_op, "_one_block", lambda *args: taken.append(1) or one_block(*args))
    rng = np.random.default_rng(8)
    integer = np.dtype(dtype).kind in "iu"

    def values(shape: tuple[int, ...]) -> np.ndarray:
        if integer:
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        x = rng.standard_normal(shape).astype(dtype)
        for fraction, value in ((0.3, -0.0), (0.2, 0.0), (0.05, np.nan), (0.05, -np.nan)):
            x[rng.random(shape) < fraction] = value
        return x

    for shape, count in [((1000,), 2), ((8, 16), 3), ((), 2), ((0, 4), 2), ((5,), 1), ((30, 40), 8)]:
        arrays = [values(shape) for _ in range(count)]
        taken.clear()
        got = maximum(arrays)
        want = np.maximum.reduce(arrays) if integer else oracle_max(arrays)
        assert taken and got.shape == shape and got.dtype == np.dtype(dtype)
        assert same_bits(got, want), (shape, count)
        assert all(got is not a for a in arrays)
    taken.clear()
    maximum([values((2, 3)), values((3,))])  # another shape: the general path
    big = values((_BLOCK_VALUES // np.dtype(dtype).itemsize + 1,))
    maximum([big, big])  # past one block: the general path
    assert not taken


_BLOCK_VALUES = 1 << 18  # max_op._BLOCK, in bytes


# Bit patterns a 16-bit float's maximum turns on: zeros, infinities, the NaNs nearest them of either
# sign (f16 and bf16 differ in where their infinities lie), the largest and least finite values.
BITS16_SPECIAL = (0x0000, 0x8000, 0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7F80, 0xFF80, 0x7F81,
                  0xFF81, 0x7FC0, 0xFFC0, 0x7FFF, 0xFFFF, 0x7BFF, 0xFBFF, 0x0001, 0x8001)  # fmt: skip


@st.composite
def same_shape_pair16(draw):
    """Two 16-bit float arrays of one shape from bit patterns, and a block size (in bytes) that
    cuts them into several blocks."""
    dtype = draw(st.sampled_from(NARROW))
    shape = tuple(draw(st.lists(st.integers(0, 7), max_size=3)))
    count = math.prod(shape)
    bits = st.one_of(st.integers(0, 0xFFFF), st.sampled_from(BITS16_SPECIAL))
    pair = [
        np.array(draw(st.lists(bits, min_size=count, max_size=count)), np.uint16).view(dtype).reshape(shape)
        for _ in range(2)
    ]
    return pair, draw(st.sampled_from([4, 6, 32, 1 << 18]))


@settings(max_examples=300, deadline=None)
@given(same_shape_pair16())
def test_max_of_two_bits16_matches_the_general_path(case) -> None:
    """The two-input 16-bit path against the general one it shortcuts (_max_bits16_in_blocks), bit for
    bit, NaN payloads included, and against the oracle (any NaN for a NaN)."""
    (a, b), block = case
    with mock.patch.object(max_op, "_BLOCK", block):
        fast = max_op._max_of_two_bits16(a, b)
        general = max_op._max_bits16_in_blocks(a.shape, [a, b])
        chosen = maximum([a, b])
    assert fast.dtype == general.dtype == a.dtype and fast.shape == general.shape == a.shape
    assert np.array_equal(fast.view(np.uint16), general.view(np.uint16))
    assert np.array_equal(chosen.view(np.uint16), fast.view(np.uint16))
    assert same_bits(fast, oracle_max([a, b]))


@st.composite
def same_shape_floats(draw):
    """2 to 4 float arrays of one shape (C-contiguous) rich in -0, +0 and NaNs of either sign."""
    dtype = draw(st.sampled_from([np.dtype(np.float32), np.dtype(np.float64), *NARROW]))
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    count = math.prod(shape)
    values = st.sampled_from([0.0, -0.0, np.nan, -np.nan, 1.5, -1.5, np.inf, -np.inf])
    arrays = [
        np.array(draw(st.lists(values, min_size=count, max_size=count)), np.float64)
        .astype(dtype)
        .reshape(shape)
        for _ in range(draw(st.integers(2, 4)))
    ]
    return arrays, draw(st.sampled_from([16, 24, 64]))


@settings(max_examples=200, deadline=None)
@given(same_shape_floats())
def test_max_in_flat_blocks_matches_blocks_of_rows(case) -> None:
    """Inputs of the result's shape, C-contiguous, are cut into blocks of the flat arrays; the same
    inputs as strided views (not contiguous) take the blocks of rows they took before: equal bits."""
    arrays, block = case
    strided = [np.repeat(a, 2, axis=-1)[..., ::2] for a in arrays]  # the same values, not contiguous
    with mock.patch.object(max_op, "_BLOCK", block):
        flat = maximum(arrays)
        rows = maximum(strided)
    assert not strided[0].flags.c_contiguous or strided[0].size <= 1
    # A NaN's sign may differ between the two: where zeros are dense in a block, the +0 fix clears the
    # sign bit wherever some input's is clear, a NaN's too; which blocks are dense depends on the cut.
    assert same_bits(flat, rows)
    assert same_bits(flat, oracle_max(arrays))


# --- quick_evaluate (the library's lane) against the full way it shortcuts -------------------------


@st.composite
def near_plain_max(draw):
    """Max descriptors as dicts with array data: plain ones (1 to 4 inputs of one dtype, broadcast by
    the strict rule) and ones a step off plain (an alias, inputs of two dtypes, a size neither the
    largest nor 1, a dim of 0, an array of another dtype or shape, an attribute, a declared output, a
    bool where an int goes), with -0, +0 and NaNs of either sign where the dtype has them."""
    from app.core.dtypes import DTYPES

    def off() -> bool:
        return draw(st.integers(0, 13)) == 0

    out = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    dtype = draw(st.sampled_from(["f32", "f16", "bf16", "f64", "s8", "u16", "s64"]))
    numpy_type = DTYPES[dtype].numpy
    floats = st.sampled_from([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, -np.nan])
    ints = st.integers(-3, 3) if dtype[0] == "s" else st.integers(0, 5)
    inputs = []
    for _ in range(draw(st.integers(1, 4))):
        rank = draw(st.integers(0, len(out)))
        shape = [size if draw(st.booleans()) else 1 for size in out[len(out) - rank :]]
        if off() and shape:
            shape[-1] = draw(st.sampled_from([0, shape[-1] + 1]))
        count = math.prod(shape)
        if DTYPES[dtype].is_float:
            values = np.array(draw(st.lists(floats, min_size=count, max_size=count)), np.float64)
            data = values.astype(np.float32).astype(numpy_type).reshape(shape)
        else:
            data = np.array(draw(st.lists(ints, min_size=count, max_size=count)), numpy_type).reshape(shape)
        tensor: dict = {"dtype": dtype, "shape": list(shape), "data": data}
        if off():
            tensor["dtype"] = draw(st.sampled_from(["float32", "s32", "f32"]))
        if off():
            tensor["data"] = draw(st.sampled_from([data.astype(np.float64), data.reshape(-1)]))
        if off() and shape:
            tensor["shape"] = [True, *shape[1:]]
        inputs.append(tensor)
    descriptor: dict = {"kind": "Max", "inputs": inputs}
    if off():
        descriptor["kind"] = "max"
    if draw(st.booleans()):
        descriptor["attrs"] = {"axis": 1} if off() else {}
    if off():
        descriptor["outputs"] = [{"dtype": dtype, "shape": out}]
    return descriptor


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@settings(max_examples=400, deadline=None)
@given(near_plain_max(), st.sampled_from([None, Settings(max_elements=6), Settings(max_total_bytes=40)]))
def test_quick_evaluate_answers_as_the_full_way(descriptor, limits) -> None:
    """quick_evaluate (the library's lane) answers exactly as the full way it shortcuts (_evaluate_checked):
    the same answer, dtypes, shapes and bits (-0 is not +0; NaN's bits too), or it declines and the full
    way answers or raises as before."""
    assert_lane_is_the_full_way(max_op.quick_evaluate, descriptor, limits)


def test_quick_evaluate_takes_the_plain_cases() -> None:
    """Held to the full way above; here it is shown to answer (not decline) where it should."""
    settings = Settings()
    rows = np.arange(6, dtype=np.float32).reshape(2, 3)
    for inputs in ([rows], [rows, np.float32([-0.0, 0.0, 9.0])], [np.array(2.0, np.float32), rows]):
        tensors = [{"dtype": "f32", "shape": list(a.shape), "data": a} for a in inputs]
        assert max_op.quick_evaluate({"kind": "Max", "inputs": tensors}, settings) is not None
