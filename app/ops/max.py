"""Max from ONNX, as the SONNX safety-related profile constrains it (seed 004), with SPEC-NOTES.

Y = Max(X1, ..., XN): 1 to 2147483647 inputs of one dtype T, broadcast together under the strict
rule (each output dim is the largest size there; every input has that size or 1), elementwise
maximum with NaN absorbing and +0 above -0. Rule ids name the op, then the profile's own constraint:
Max.C1 (arity and type), Max.C2 (broadcasting) and Max.RI, Max.RJ, ... (the per-dim restriction, one
letter per output dim from the left). They were the bare C1, C2, RI ... until every rule id named its op
first (another op's spec may have a C1 too); `former` keeps the old id, which --ignore still reads.

The module keeps the op's exact kernel (`maximum`, which folds inputs of one shape first and works on the
bits of 16-bit floats), the fast path of a plain Max for app.library's evaluate (quick_evaluate), and
NumPy's departure from the kernel; the msgspec first pass (app/ops/first_pass.py) mirrors its model.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import Field

from app.core.arena import new_array
from app.core.diagnostics import Rule
from app.core.dtypes import DTYPES, NUMERIC
from app.core.engine import Context, assumption_rules
from app.core.kernels import INF_BITS, NARROW_FLOATS, has_negative_zero, select_where_all_negative
from app.core.mismatch import Implementation, Modelled, differing_positions
from app.core.payload import buffer_nbytes
from app.core.registry import (
    PLAIN_KEYS,
    PLAIN_TENSOR_KEYS,
    VARIADIC_MAX,
    Attrs,
    Descriptor,
    OpSpec,
    OutputType,
    Port,
)
from app.core.shapes import broadcast_shapes

if TYPE_CHECKING:
    from app.core.config import Settings

KIND = "Max"
SPEC = "ONNX Max under the SONNX profile"
T = NUMERIC  # bfloat16, double, float, float16, int8..int64, uint8..uint64: the seed's list
# The profile names the per-dim restrictions after the index letters I, J, K, L, ... of the output
# dims; past Z there is no letter, and C2 itself stands for the restriction.
C1, C2 = f"{KIND}.C1", f"{KIND}.C2"
DIM_LETTERS = "IJKLMNOPQRSTUVWXYZ"


class MaxAttrs(Attrs):
    """Max has no attributes: any name given is an unknown-attribute error."""


class MaxOp(Descriptor):
    kind: Literal["Max"]
    attrs: MaxAttrs = Field(default_factory=MaxAttrs)


def restriction_id(dim: int) -> str:
    """The rule id for the size restriction in output dim `dim` (from the left): Max.RI, Max.RJ, ...,
    after the profile's RI, RJ, ..."""
    return f"{KIND}.R{DIM_LETTERS[dim]}" if 0 <= dim < len(DIM_LETTERS) else C2


RULES = (
    Rule(C1, f"There are 1 to {VARIADIC_MAX} inputs, all of one dtype T from the profile's list; Y is T.",
         f"{SPEC}, constraint C1 and the type list (SPEC-NOTES: one type for every input)", former="C1"),
    Rule(C2, "Inputs broadcast together: ranks aligned on the right, each output dim the largest size "
         "there; also cited for a dim without a letter or counted from the right.", f"{SPEC}, constraint C2",
         former="C2"),
    *(
        Rule(restriction_id(dim), f"In output dim {dim} ({letter}) each input's size is the largest size "
             "there, or 1.", f"{SPEC}, restriction R{letter} of the broadcasting rule", former=f"R{letter}")
        for dim, letter in enumerate(DIM_LETTERS)
    ),
    *assumption_rules(f"{KIND}.broadcast", "A symbolic or unknown dim is broadcast against other sizes",
                      f"{SPEC}, constraint C2"),
)  # fmt: skip


def _common_dtype(d: MaxOp, ctx: Context) -> str | None:
    """T, the one dtype every input shares; each input that breaks ranks with the first is reported.

    Inputs whose dtype is outside T's list were reported by the engine already (Max.C1), so they are
    left out here rather than reported twice."""
    inputs = d.inputs
    dtype = inputs[0].dtype if inputs else None
    if dtype in T and all(tensor.dtype == dtype for tensor in inputs):
        return dtype  # the common case: nothing to list or report
    listed = [(index, tensor.dtype) for index, tensor in enumerate(d.inputs) if tensor.dtype in T]
    if not listed:
        return None
    first, dtype = listed[0]
    mixed = [(index, other) for index, other in listed if other != dtype]
    for index, other in mixed:
        ctx.error(
            C1,
            f"inputs[{index}].dtype",
            f"input {index} has dtype {other}, but input {first} has {dtype}; all inputs of Max share one "
            "dtype T",
        )
    if mixed or len(listed) < len(d.inputs):
        return None
    return dtype


def infer(d: MaxOp, ctx: Context) -> list[OutputType] | None:
    dtype = _common_dtype(d, ctx)
    broadcast = broadcast_shapes([tensor.shape for tensor in d.inputs])
    for problem in broadcast.problems:
        ctx.error(
            restriction_id(problem.dim), f"inputs[{problem.input}].shape[{problem.axis}]", problem.message
        )
    for assumption in broadcast.assumptions:
        ctx.assume(f"{KIND}.broadcast", f"inputs[{assumption.input}].shape[{assumption.axis}]", assumption)
    if dtype is None or broadcast.problems:
        return None
    return [OutputType(dtype, broadcast.shape)]


def output_dtypes(d: MaxOp) -> list[str | None]:
    dtypes = {tensor.dtype for tensor in d.inputs}
    return [dtypes.pop() if len(dtypes) == 1 and dtypes <= T else None]


# --- the kernel --------------------------------------------------------------------------------


def maximum(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """Elementwise maximum of one or more arrays of one dtype, broadcast together (NumPy's rule; the
    caller has already checked the strict one). A new array; NaN absorbs and +0 beats -0.

    Inputs of one shape are folded at their own size first, so the passes over the broadcast result
    number the distinct shapes, not the inputs: a thousand scalars beside a large tensor cost one pass
    over it, not a thousand. Inputs all of one shape are folded once, straight into the result."""
    first = arrays[0]
    if first.nbytes <= _BLOCK and first.dtype not in NARROW_FLOATS:
        shape = first.shape
        for a in arrays:
            if a.shape != shape:
                break
        else:
            return _one_block(first, arrays)
    exact = _exact_max_bits16 if arrays[0].dtype in NARROW_FLOATS else _exact_max
    by_shape: dict[tuple[int, ...], list[np.ndarray]] = {}
    for a in arrays:
        by_shape.setdefault(a.shape, []).append(a)
    if len(by_shape) == 1:  # np.broadcast_shapes costs more than the whole maximum of 1,000 elements
        return exact(arrays[0].shape, arrays)
    shape = np.broadcast_shapes(*by_shape)
    groups = [group[0] if len(group) == 1 else exact(shape, group) for shape, group in by_shape.items()]
    longer = _longer_rows(shape, groups)
    if longer:
        return exact(*longer).reshape(shape)
    return exact(shape, groups)


def _one_block(first: np.ndarray, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """_exact_max where every input has the result's shape and the result fits one block (a small
    request's case): one fold and, for floats, the -0 test, as _exact_max would run them, without the
    grouping by shape, the count of zero holders (every input spans the result: they all count) and
    the blocks, whose Python steps cost more than the maximum of 1,000 elements."""
    out = np.empty(first.shape, first.dtype)
    if first.dtype.kind == "f" and len(arrays) > 1 and out.size:
        _fill_max(out, arrays)
    else:  # integers, one input or no element: nothing a fold leaves to fix
        _fold(np.maximum, out, arrays)
    return out


# Elements in a row of the result that NumPy's broadcast loop handles in one call (_longer_rows).
_LONG_ROW = 1 << 14


def _longer_rows(
    shape: tuple[int, ...], arrays: Sequence[np.ndarray]
) -> tuple[tuple[int, int], list[np.ndarray]] | None:
    """The same maximum over fewer, longer rows, or None where it would not be.

    NumPy's broadcast loop makes a call per row of the result: a [2048,2048] tensor beside a [2048] row
    takes 1.39 ms against 1.16 ms with rows four times longer. When every input spans the whole result
    (C-contiguous), is one row of it, or is one value, k rows of the result are taken as one: the row
    inputs tiled k times (k rows, a small copy), the others reshaped (no copy). k is a power of two
    that divides the rows, with k rows at most _LONG_ROW elements and an eighth of the result (tiled
    rows stay small beside it, as _zeros_may_meet counts them)."""
    row, rows = shape[-1] if shape else 0, math.prod(shape[:-1])
    most = min(_LONG_ROW // row, rows // _GLANCE) if len(shape) > 1 and row else 0
    if most < 2:
        return None
    k = math.gcd(rows, 1 << (most.bit_length() - 1))
    longer = (rows // k, k * row)
    reshaped, tiled = [], False
    for a in arrays:
        if a.size == 1:
            reshaped.append(a.reshape(()))
        elif a.size == row and a.shape[-1] == row:
            reshaped.append(np.tile(a.reshape(-1), k))
            tiled = True
        elif a.shape == shape and a.flags.c_contiguous:
            reshaped.append(a.reshape(longer))
        else:
            return None
    return (longer, reshaped) if tiled and k > 1 else None


# Bytes of the result per block when a maximum is computed block by block (a block of each input
# fits in L2): 64K f32, 128K of the 16-bit floats (1<<16 of these measured 3-7% slower).
_BLOCK = 1 << 18


def _in_blocks(shape: tuple[int, ...], arrays: Sequence[np.ndarray], fill: Callable) -> np.ndarray:
    """A new array of `shape` that fill(out, inputs) computes block by block of rows along the first
    axis (inputs sliced where they span it, whole where they broadcast along it).

    A maximum's fixes (the signed-zero check, the 16-bit floats' second fold and mask) then read each
    block of the result while it is still in cache, instead of passing over all of it from memory."""
    result = new_array(shape, arrays[0].dtype)
    if result.nbytes <= _BLOCK or not shape or not shape[0]:
        fill(result, arrays)
        return result
    if all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        # Blocks of the flat arrays: rows of a [4,1024,1024] result are 2 MB apiece for 16-bit floats,
        # too large a block for the cache (4.3 -> 2.6 ms for two f16 inputs of that shape).
        flat = result.reshape(-1)
        parts = [a.reshape(-1) for a in arrays]
        step = _BLOCK // result.itemsize
        for start in range(0, flat.size, step):
            block = slice(start, start + step)
            fill(flat[block], [a[block] for a in parts])
        return result
    step = max(1, _BLOCK // (result.nbytes // shape[0]))
    for start in range(0, shape[0], step):
        rows = slice(start, start + step)
        fill(result[rows], [a[rows] if a.ndim == len(shape) and a.shape[0] != 1 else a for a in arrays])
    return result


def _exact_max(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    if arrays[0].dtype.kind != "f" or not _zeros_may_meet(math.prod(shape), arrays):
        # nothing to fix after the fold: blocks would only add calls
        return _fold(np.maximum, new_array(shape, arrays[0].dtype), arrays)
    return _in_blocks(shape, arrays, _fill_max)


def _fill_max(out: np.ndarray, arrays: Sequence[np.ndarray]) -> None:
    _fold(np.maximum, out, arrays)
    _prefer_positive_zero(out, arrays)


# An input at most 1/_GLANCE the size of the result is looked at for zeros before the fold.
_GLANCE = 8


def _zeros_may_meet(size: int, arrays: Sequence[np.ndarray]) -> bool:
    """Can zeros of two inputs meet at one place of the result (`size` elements)?

    np.maximum returns one of its operands, so a -0 result can hide a +0 only where two inputs hold
    zeros: when at most one input holds any, the fold is exact as it stands. An input small beside
    the result is counted for zeros (a large tensor beside a broadcast row then costs no check at all);
    a large one is taken to hold some unlooked, as a pass over it costs more than the result's own
    check in cache."""
    holders = 0
    for a in arrays:
        holders += a.size * _GLANCE > size or np.count_nonzero(a) < a.size
        if holders > 1:
            return True
    return False


def _exact_max_bits16(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The maximum of f16 or bf16 arrays on their bits as int16, exactly, without widening them.

    NumPy's f16 loops convert every element in software, and bf16 has only ml_dtypes' slow ones; int16
    compares are SIMD at half f32's bytes. As signed integers, floats with the sign clear (+0 and +NaN
    included) sort as the floats do, and floats with it set sort in reverse (-0 lowest). So where the
    signed maximum is >= 0 it is the answer (+0 over -0 for free); where it is < 0 every input is
    negative and the signed minimum is. A NaN with the sign set sorts among the negatives, so where one
    occurs it is put back in the end."""
    if len(arrays) == 2 and all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        # the same steps with fewer calls; held to _max_bits16_in_blocks by tests/ops/test_max.py,
        # test_max_of_two_bits16_matches_the_general_path
        return _max_of_two_bits16(*arrays)
    return _max_bits16_in_blocks(shape, arrays)


def _max_bits16_in_blocks(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> np.ndarray:
    """_exact_max_bits16 for any inputs: broadcast, any count, block by block of the result."""
    floor = np.uint16(0x8000 | INF_BITS[arrays[0].dtype])

    def fill(out: np.ndarray, parts: Sequence[np.ndarray]) -> None:
        # Looked for in each block's parts, in cache (a pass over every input from memory before cost
        # more); an input broadcast along the first axis is whole in every block, which adds at most
        # one more pass the size of the result's, in cache too.
        negative_nan = any(a.size and np.maximum.reduce(a.view(np.uint16), axis=None) > floor for a in parts)
        signed = [a.view(np.int16) for a in parts]
        high = _fold(np.maximum, out.view(np.int16), signed)

        def differ() -> np.ndarray:
            if len(signed) == 2:  # the minimum is whichever the maximum is not: high ^ low is a ^ b
                return np.bitwise_xor(*signed)
            low = _fold(np.minimum, np.empty(out.shape, np.int16), signed)
            low ^= high
            return low

        select_where_all_negative(high, differ)
        if negative_nan:
            unsigned = _fold(np.maximum, np.empty(out.shape, np.uint16), [a.view(np.uint16) for a in parts])
            np.copyto(out.view(np.uint16), unsigned, where=unsigned > floor)

    return _in_blocks(shape, arrays, fill)


def _max_of_two_bits16(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """_exact_max_bits16 of two contiguous inputs of one shape, block by block of the flat arrays into
    scratch made once, from the unsigned maximum rather than the signed one.

    As unsigned integers, floats with the sign clear sort as the floats do and sort below every float
    with it set, so the unsigned maximum is the answer where its sign is clear (both inputs >= +0) and
    the other input, its XOR with a ^ b, where it is set (-0 gives way to +0, as it should). NaNs with
    the sign set are the largest unsigned values of all, so one reduction of that maximum, in cache,
    says whether a block holds one, where the general path reduces each input (0.5 of 2.5 ms for two
    f16 [4,1024,1024]); those are put back as there. With the general path's twenty calls a block,
    its Python steps were a fifth of the time: 2.8 ms against 2.1 ms here (onnxruntime 2.3 ms)."""
    shape, dtype = first.shape, first.dtype
    floor = np.uint16(0x8000 | INF_BITS[dtype])
    x, y = first.reshape(-1).view(np.uint16), second.reshape(-1).view(np.uint16)
    result = new_array(shape, dtype)
    out = result.reshape(-1).view(np.uint16)
    step = max(1, min(_BLOCK // 2, out.size))  # 16-bit elements in a block
    differ, negative = np.empty(step, np.uint16), np.empty(step, np.int16)
    for start in range(0, out.size, step):
        block = slice(start, start + step)
        a, b, high = x[block], y[block], out[block]
        np.maximum(a, b, out=high)
        negative_nan = np.maximum.reduce(high) > floor
        d, n = differ[: high.size], negative[: high.size]
        np.bitwise_xor(a, b, out=d)  # the other input's bits XOR the maximum's
        np.right_shift(high.view(np.int16), 15, out=n)  # all ones where the sign is set
        d &= n.view(np.uint16)
        high ^= d
        if negative_nan:
            unsigned = np.maximum(a, b)
            np.copyto(high, unsigned, where=unsigned > floor)
    return result


def _fold(ufunc: np.ufunc, out: np.ndarray, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """ufunc over all `arrays` in turn, broadcast into `out` without a temporary per step."""
    if len(arrays) == 1:
        np.copyto(out, arrays[0])
        return out
    ufunc(arrays[0], arrays[1], out=out)
    for a in arrays[2:]:
        ufunc(out, a, out=out)
    return out


# Above this share of zero results, one more pass over every input beats gathering at each zero.
_DENSE_ZEROS = 1 / 32


def _prefer_positive_zero(result: np.ndarray, wide: Sequence[np.ndarray]) -> None:
    """Make each zero of `result` +0 where some input holds +0 there, in place.

    np.maximum returns one of its operands on a tie, so a +0 result is always right; only a -0 result
    can hide a +0 it was compared with. Random data has none, and then the zeros are not even counted."""
    if not has_negative_zero(result):
        return
    zero = result == 0
    count = np.count_nonzero(zero)
    if count > _DENSE_ZEROS * result.size:
        _clear_sign_where_any_unsigned(result, wide)
    elif count:
        flat = result.reshape(-1)
        zeros = np.flatnonzero(zero)
        negative = zeros[np.signbit(flat[zeros])]
        coords = np.unravel_index(negative, result.shape)
        flat[negative[_positive_zero_at(coords, result.shape, wide)]] = 0.0


def _positive_zero_at(
    coords: tuple[np.ndarray, ...], shape: tuple[int, ...], wide: Sequence[np.ndarray]
) -> np.ndarray:
    """At the given positions of the broadcast shape: does any input hold +0?"""
    found = np.zeros(coords[0].shape, dtype=bool)
    for a in wide:
        values = np.broadcast_to(a, shape)[coords]
        found |= (values == 0) & ~np.signbit(values)
    return found


def _clear_sign_where_any_unsigned(result: np.ndarray, wide: Sequence[np.ndarray]) -> None:
    """Clear the sign bit of `result` wherever some input's sign bit is clear: one more pass, on the bits.

    Where some input is >= +0 (or a NaN without the sign), the maximum is >= +0 or NaN, so clearing its
    sign changes only a -0 into +0 (and the sign of a NaN, which no one reads). Where every input has the
    sign bit set, the result is kept."""
    bits = np.dtype(f"i{result.itemsize}")
    all_signed = _fold(np.bitwise_and, np.empty(result.shape, dtype=bits), [a.view(bits) for a in wide])
    all_signed |= np.iinfo(bits).max  # every bit but the sign: only the sign's verdict is applied
    result_bits = result.view(bits)
    result_bits &= all_signed


def evaluate(d: MaxOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [maximum(arrays)]


def _numpy_maximum(d: MaxOp, arrays: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> Modelled:
    """np.maximum folded over the inputs from the left: on a tie of -0 and +0 it keeps an operand by its
    position, not by its sign (NaN still absorbs)."""
    with np.errstate(invalid="ignore"):  # NaN is an answer here, not a fault (ml_dtypes' bf16 warns)
        out = functools.reduce(np.maximum, arrays[1:], arrays[0])
    out = np.array(np.broadcast_to(out, expected[0].shape))
    where = differing_positions(expected[0], out, DTYPES[d.inputs[0].dtype].is_float)
    return Modelled([out], f"-0 kept over +0 by operand order at {where}")


IMPLEMENTATIONS = (
    Implementation(
        "NumPy maximum (np.maximum folded over the inputs)",
        "SPEC-NOTES, Max: NumPy's maximum answers Max(-0, +0) by operand order. Recorded: "
        'specs/max.json, "verify: NumPy\'s maximum keeps -0 by operand order"',
        _numpy_maximum,
    ),
)


# --- the library's lane: a plain Max of arrays, evaluated without the full way ------------------------

# Max's dtypes (T) by their canonical names: an alias goes the full way, which answers with the canonical name.
_MAX_TYPES = {name: DTYPES[name] for name in NUMERIC}


def quick_evaluate(descriptor: Any, settings: Settings) -> list[tuple[str, np.ndarray]] | None:
    """The output of a plain Max of arrays, or None for anything else, which goes the full way. Held to
    the full way by tests/ops/test_max.py, test_quick_evaluate_answers_as_the_full_way.

    A 4M-element maximum with a broadcast row is ~0.6 ms of NumPy; the full way's Python beside it was
    ~0.07 ms with warm caches and, with cold ones, most of the 1.23x onnxruntime's time it took
    (bench_kernels_apart). Taken only where the full way would report nothing: the canonical dtype of
    T for every input, plain int dims and no 0 dim, arrays of that dtype and shape, the strict broadcast
    rule met, no attributes or declared outputs, and every limit met."""
    if type(descriptor) is not dict or descriptor.get("kind") != "Max" or descriptor.keys() not in PLAIN_KEYS:
        return None
    attrs, inputs = descriptor.get("attrs", {}), descriptor["inputs"]
    if type(attrs) is not dict or attrs or type(inputs) is not list or not inputs:
        return None
    first = inputs[0]
    dtype = first.get("dtype") if type(first) is dict else None
    dt = _MAX_TYPES.get(dtype) if type(dtype) is str else None
    if dt is None:
        return None
    arrays, shapes, total = [], [], 0
    for tensor in inputs:
        if type(tensor) is not dict or tensor.keys() != PLAIN_TENSOR_KEYS or tensor["dtype"] != dtype:
            return None
        shape, data = tensor["shape"], tensor["data"]
        if type(data) is not np.ndarray or data.dtype != dt.numpy or type(shape) is not list:
            return None
        if len(shape) > settings.max_rank or any(type(dim) is not int for dim in shape):
            return None
        if data.shape != tuple(shape) or 0 in data.shape or data.size > settings.max_elements:
            return None
        arrays.append(data)
        shapes.append(data.shape)
        total += buffer_nbytes(data)
    out_shape = _strict_broadcast(shapes)
    if out_shape is None:
        return None
    count = math.prod(out_shape)
    if count > settings.max_elements or total + count * dt.itemsize > settings.max_total_bytes:
        return None
    views = []
    for data in arrays:
        view = data.view()
        view.flags.writeable = False  # as the full way gives the kernel the caller's arrays
        views.append(view)
    result = maximum(views)
    return [(dtype, result)]


def _strict_broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """The shapes broadcast under Max's strict rule (ranks aligned on the right, each output dim the
    largest size there and every input's size that or 1), or None where the rule is broken."""
    rank = max(len(shape) for shape in shapes)
    out = [1] * rank
    for shape in shapes:
        for axis, size in enumerate(shape, rank - len(shape)):
            out[axis] = max(out[axis], size)
    for shape in shapes:
        for axis, size in enumerate(shape, rank - len(shape)):
            if size != 1 and size != out[axis]:
                return None
    return tuple(out)


OP = OpSpec(
    kind=KIND,
    model=MaxOp,
    source=SPEC,
    summary="Elementwise maximum of 1 or more broadcast inputs of one dtype; NaN absorbs, +0 beats -0.",
    inputs=(
        Port(
            "X",
            T,
            "X1 ... XN: the tensors to compare, all of one dtype, broadcast together.",
            variadic=True,
            dtype_rule=C1,
        ),
    ),
    outputs=(Port("Y", T, "The inputs' dtype; the broadcast shape."),),
    rules=RULES,
    infer=infer,
    output_dtypes=output_dtypes,
    evaluate=evaluate,
    quick_evaluate=quick_evaluate,
    implementations=IMPLEMENTATIONS,
    dtype_source=f"{SPEC}, the type list in the operator's heading",
    count_rule=C1,
    dtype_table=tuple({"X": dtype, "Y": dtype} for dtype in DTYPES if dtype in T),
    notes=(
        "NumPy's maximum answers Max(-0, +0) by operand order; the profile's maximum, and opspec, give +0 in "
        "either order.",
        "onnxruntime 1.32's CPU Max keeps the earlier or the later of -0 and +0 depending on the dtype, the "
        "shapes and the element's place in a vector loop (measured over shapes up to [2, 3]: f16 the earlier, "
        "f32 and f64 mostly the later, some mixed within one output), so POST /v1/verify names its answers "
        "signed_zero but models no onnxruntime answer; NumPy's np.maximum is modelled.",
        "NumPy broadcasts [0] with [1] to [0]; under the profile a dim is the largest size, 1, so [0] with "
        "[1] (or with a scalar) is an error.",
        "ONNX reports a broadcast clash as 'Incompatible dimensions' without the shapes, and its checker "
        "passes a mixed-dtype Max unless type checking is asked for; opspec names the input, the dim and "
        "the sizes, and reports a mixed dtype as Max.C1.",
    ),
    examples=(
        {
            "kind": "Max",
            "inputs": [{"dtype": "f32", "shape": ["N", 3, 1]}, {"dtype": "f32", "shape": [4]}],
            "outputs": [{"dtype": "f32", "shape": ["N", 3, 4]}],
        },
        {
            "kind": "Max",
            "inputs": [
                {"dtype": "f32", "shape": [2, 3], "data": [[1, "nan", -0.0], [4, "-inf", 0.0]]},
                {"dtype": "f32", "shape": [3], "data": [2, 0, 0.0]},
                {"dtype": "f32", "shape": [2, 1], "data": [[-1], [5]]},
            ],
        },
    ),
)
