"""oneDNN Graph's elementwise unary ops and their gradients: dst = f(src), diff_src = diff_dst * f'(.).

One shape rule (dst has src's shape; a gradient's two inputs share it), one dtype table (f32, bf16,
f16, every port alike, on every page and in oneDNN's schema), one kernel shape: f computed in float64
from the decoded inputs and rounded once to the output dtype. Each member is a row: its page, its
attributes, its formula, and how exact its value is (`EXACT`, or a Tolerance that says why not).

Decisions the pages leave open (docs/ops/eltwise.md has the table, with what oneDNN 3.13 does):
- min and max are IEEE minNum/maxNum, as C's fminf/fmaxf: a NaN operand is ignored. So Clamp maps NaN
  to min and HardSigmoid NaN to 1, as oneDNN does; the branch formulas send NaN to their "otherwise".
- A gradient is diff_dst times the derivative with IEEE signs: where the derivative is 0, diff_src is
  a zero with diff_dst's sign (oneDNN's -0 for a negative diff_dst); where f is NaN, so is f'.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.core import family
from app.core.diagnostics import Rule
from app.core.engine import Context
from app.core.family import ONEDNN_VERSION, Attr, In, Out, constraints, rows
from app.core.mismatch import Tolerance
from app.core.numbers import show
from app.core.rounding import round_once
from app.core.shapes import Shape, dims_conflict, format_shape

FAMILY = "eltwise"
# The pages' tables hold the same three rows in one of two orders; each member keeps its page's.
FLOAT_SAME = rows("src dst", "f32 f32", "bf16 bf16", "f16 f16")
FLOAT_SAME_F16 = rows("src dst", "f32 f32", "f16 f16", "bf16 bf16")
FLOAT_SCHEMA = constraints("src:T dst:T", T="f32 bf16 f16")

GRADIENT_SAME = rows("src diff_dst diff_src", "f32 f32 f32", "f16 f16 f16", "bf16 bf16 bf16")
GRADIENT_SAME_BF16 = rows("src diff_dst diff_src", "f32 f32 f32", "bf16 bf16 bf16", "f16 f16 f16")
GRADIENT_SCHEMA = constraints("src:T diff_dst:T diff_src:T", T="f32 bf16 f16")

EXACT = None  # a selection or one rounding of an exact value: compared bit for bit

Values = dict[str, Any]  # the member's attributes, defaults filled, f32 ones as float64 of their f32 value
Formula = Callable[[Values, np.ndarray], np.ndarray]
Gradient = Callable[[Values, np.ndarray, np.ndarray], np.ndarray]
Check = Callable[[str, Values, Context], None]


def _values(d: Any, attrs: Sequence[Attr]) -> Values:
    out: Values = {}
    for a in attrs:
        value = getattr(d.attrs, a.name)
        value = a.default if value is None else value
        out[a.name] = np.float64(np.float32(value)) if a.type == "f32" and value is not None else value
    return out


def _same_shape(d: Any, ctx: Context) -> list[Shape | None]:
    return [d.inputs[0].shape]


def _with_check(kind: str, attrs: Sequence[Attr], check: Check | None, shape: Callable) -> Callable:
    """The shape rule after the member's own attribute checks: each f32 attribute one number (the wire
    type also admits a list), then `check` on the values."""
    scalars = [a.name for a in attrs if a.type == "f32"]
    if not scalars and check is None:
        return shape

    def rule(d: Any, ctx: Context) -> Any:
        bad = [name for name in scalars if not _is_f32(getattr(d.attrs, name))]
        for name in bad:
            ctx.error(
                f"{kind}.attrs.scalar",
                f"attrs.{name}",
                f"{name} is {show(getattr(d.attrs, name))}; {kind}'s {name} is one finite f32 number "
                f"(magnitude at most {F32_MAX:.8g})",
            )
        if bad:
            return None
        if check is not None:
            check(kind, _values(d, attrs), ctx)
        return shape(d, ctx)

    return rule


F32_MAX = float(np.finfo(np.float32).max)


def _is_f32(value: Any) -> bool:
    """None (absent) or one number that rounds to a finite f32."""
    if value is None:
        return True
    if isinstance(value, list):
        return False
    with np.errstate(over="ignore"):
        return bool(np.isfinite(np.float32(value)))


def _scalar_rule(kind: str, attrs: Sequence[Attr]) -> tuple[Rule, ...]:
    if not any(a.type == "f32" for a in attrs):
        return ()
    return (
        Rule(
            f"{kind}.attrs.scalar",
            "Each f32 attribute is one finite f32 number.",
            f"oneDNN Graph {kind}, Operation attributes",
        ),
    )


def build(
    kind: str,
    formula: str,
    fn: Formula,
    *,
    attrs: Sequence[Attr] = (),
    tolerance: Tolerance | None = EXACT,
    check: Check | None = None,
    rules: Sequence[Rule] = (),
    **more: Any,
):
    """A forward op: `fn(attributes, src as float64)` is dst before its one rounding to dst's dtype."""

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):  # inf and NaN are answers here, not faults
            return [round_once(fn(_values(d, attrs), arrays[0].astype(np.float64)), out[0])]

    return family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=formula,
        inputs=(In("src", "The input tensor."),),
        outputs=(Out("dst", "src's shape and dtype."),),
        table=more.pop("table", FLOAT_SAME),
        accepts=FLOAT_SCHEMA,
        shape=_with_check(kind, attrs, check, _same_shape),
        kernel=kernel,
        attrs=attrs,
        tolerance=tolerance,
        rules=(*rules, *_scalar_rule(kind, attrs)),
        **more,
    )


# --- gradients ------------------------------------------------------------------------------------

USE_DST = Attr(
    "use_dst",
    "bool",
    "If true, input 0 is the forward op's dst; otherwise its src.",
    default=True,
)


def _gradient_shape(kind: str, first: str) -> Callable:
    """diff_src has the forward tensor's shape; diff_dst must have it too (oneDNN 3.13 aborts at compile
    time when they differ). Known dims fill unknown ones across the two."""

    def rule(d: Any, ctx: Context) -> list[Shape | None]:
        a, b = d.inputs[0].shape, d.inputs[1].shape
        if a is None or b is None:
            return [a if a is not None else b]
        if len(a) != len(b):
            ctx.error(
                f"{kind}.shapes.match",
                "inputs[1].shape",
                f"diff_dst has shape {format_shape(b)} (rank {len(b)}) but {first} has {format_shape(a)} "
                f"(rank {len(a)}); {kind} needs them equal",
            )
            return [a]
        bad = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if dims_conflict(x, y)]
        for i in bad:
            ctx.error(
                f"{kind}.shapes.match",
                f"inputs[1].shape[{i}]",
                f"diff_dst's dim {i} is {b[i]} but {first}'s is {a[i]}: {kind} needs diff_dst of {first}'s shape "
                f"{format_shape(a)}",
            )
        return [
            tuple(
                y if x is None or (isinstance(x, str) and isinstance(y, int)) else x
                for x, y in zip(a, b, strict=True)
            )
        ]

    return rule


def build_backward(
    kind: str,
    formula: str,
    fn: Gradient,
    *,
    attrs: Sequence[Attr] = (),
    use_dst: bool = False,
    tolerance: Tolerance | None = EXACT,
    check: Check | None = None,
    rules: Sequence[Rule] = (),
    **more: Any,
):
    """A gradient: `fn(attributes, src or dst, diff_dst)`, both as float64, is diff_src before its one
    rounding. With `use_dst` the op has the attribute and input 0 is what it says."""
    attrs = (*attrs, USE_DST) if use_dst else tuple(attrs)
    first = "src/dst" if use_dst else "src"  # how messages name input 0; its port is `src` (rule ids)
    page = f"oneDNN Graph {kind}"

    def kernel(d: Any, arrays: Sequence[np.ndarray], out: Sequence[np.dtype]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            x, g = (a.astype(np.float64) for a in arrays)
            return [round_once(fn(_values(d, attrs), x, g), out[0])]

    return family.build(
        kind,
        family=FAMILY,
        page=kind,
        summary=formula,
        inputs=(
            In(
                "src",
                "The forward op's dst if use_dst is true, else its src." if use_dst else "The forward src.",
            ),
            In("diff_dst", "The gradient with respect to dst; the first input's shape."),
        ),
        outputs=(Out("diff_src", "The gradient with respect to src; the first input's shape and dtype."),),
        table=more.pop("table", GRADIENT_SAME),
        accepts=GRADIENT_SCHEMA,
        shape=_with_check(kind, attrs, check, _gradient_shape(kind, first)),
        kernel=kernel,
        attrs=attrs,
        tolerance=tolerance,
        rules=(
            *rules,
            *_scalar_rule(kind, attrs),
            Rule(f"{kind}.shapes.match", "diff_dst has the shape of the first input.", f"{page}, Inputs"),
        ),
        **more,
    )


# --- the functions, in float64 --------------------------------------------------------------------

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_GELU_CUBIC = 0.044715
_erfc = np.frompyfunc(math.erfc, 1, 1)  # NumPy has no erf; libm's is correctly rounded to float64


def erfc(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erfc(x), dtype=np.float64)


def sigmoid(z: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(z))  # never overflows
    return np.where(z >= 0, 1 / (1 + e), e / (1 + e))


def softplus(z: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, z)  # ln(1 + e^z) without overflow


def select_min(x: np.ndarray, low: Any) -> np.ndarray:
    """x where x > low, else low: a NaN x gives low, as maxNum (C's fmaxf) does."""
    return np.where(x > low, x, low)


def select_max(x: np.ndarray, high: Any) -> np.ndarray:
    return np.where(x < high, x, high)


def gelu_erf(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * erfc(-x * _SQRT_HALF)  # 1 + erf(v) = erfc(-v), without cancellation for v < 0


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x**3)))


def gelu_erf_grad(x: np.ndarray) -> np.ndarray:
    return 0.5 * erfc(-x * _SQRT_HALF) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI


def gelu_tanh_grad(x: np.ndarray) -> np.ndarray:
    t = np.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x**3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * x * x)


def mish_grad(x: np.ndarray) -> np.ndarray:
    """The page's e^x * omega / delta^2, as tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2) with
    sp = softplus(x): equal, and free of the e^(3x) that overflows."""
    t = np.tanh(softplus(x))
    return t + x * sigmoid(x) * (1 - t * t)


def hardswish(x: np.ndarray) -> np.ndarray:
    return x * np.fmin(np.fmax(x + 3, 0), 6) / 6


def hardswish_grad(x: np.ndarray) -> np.ndarray:
    return np.where(x <= -3, 0.0, np.where(x >= 3, 1.0, (2 * x + 3) / 6))


def reciprocal(x: np.ndarray) -> np.ndarray:
    return np.where(x == 0, np.inf, 1 / x)  # the page: inf where src = 0, either zero


def gelu(v: Values, x: np.ndarray) -> np.ndarray:
    return gelu_tanh(x) if v["mode"] == "gelu_tanh" else gelu_erf(x)


def gelu_grad(v: Values, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    return g * (gelu_tanh_grad(x) if v["mode"] == "gelu_tanh" else gelu_erf_grad(x))


def elu_grad(v: Values, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """From dst: alpha * e^src = dst + alpha where dst <= 0."""
    slope = x + v["alpha"] if v["use_dst"] else v["alpha"] * np.exp(x)
    return g * np.where(x > 0, 1.0, slope)


def _from(v: Values, x: np.ndarray, forward: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The forward op's dst: input 0 itself with use_dst, else forward(src)."""
    return x if v["use_dst"] else forward(x)


# --- attributes -----------------------------------------------------------------------------------

# Either bound may be infinite ("-inf", "inf"), as a C float may: oneDNN runs max = inf as no upper
# bound (seen with the oracle), and ONNX's Clip and OpenVINO's Clamp write such bounds.
MIN = Attr(
    "min",
    "f32|inf",
    'The lower bound of the output: smaller values become min ("-inf": none).',
    required=True,
)
MAX = Attr(
    "max", "f32|inf", 'The upper bound of the output: greater values become max ("inf": none).', required=True
)
ELU_ALPHA = Attr("alpha", "f32", "Scale for the negative factor; the page: non-negative.", required=True)
HS_ALPHA = Attr("alpha", "f32", "alpha in max(0, min(1, alpha * src + beta)).", required=True)
HS_BETA = Attr("beta", "f32", "beta in max(0, min(1, alpha * src + beta)).", required=True)
LEAKY_ALPHA = Attr(
    "alpha", "f32", "The coefficient of leakage, usually a small positive value.", required=True
)
SOFTPLUS_BETA = Attr("beta", "f32", "beta in 1/beta * ln(e^(beta * src) + 1).", default=1.0)
GELU_MODE = Attr(
    "mode", "string", "The computation mode: erf, or the tanh approximation.", default="gelu_erf",
    values=("gelu_erf", "gelu_tanh"),
)  # fmt: skip


def _clamp_bounds(kind: str, v: Values, ctx: Context) -> None:
    if v["min"] > v["max"]:
        ctx.warn(
            f"{kind}.onednn.bounds",
            "attrs",
            f"min {show(float(v['min']))} is greater than max {show(float(v['max']))}: the page's formula gives "
            f"max everywhere, but {ONEDNN_VERSION} aborts when it compiles such a {kind}",
        )


def _clamp_rules(kind: str) -> tuple[Rule, ...]:
    return (
        Rule(
            f"{kind}.onednn.bounds",
            f"min > max: the formula gives max everywhere; {ONEDNN_VERSION} aborts (SIGABRT) at compile time.",
            f"oneDNN Graph {kind}, Operation attributes; {ONEDNN_VERSION}",
            "warning",
        ),
    )


def _elu_alpha_warning(kind: str, v: Values, ctx: Context) -> None:
    if v["alpha"] < 0:
        ctx.warn(
            f"{kind}.onednn.alpha",
            "attrs.alpha",
            f"alpha is {show(float(v['alpha']))}; the page supports non-negative values only, but "
            f"{ONEDNN_VERSION} runs {kind} with it (the formula is evaluated as written)",
        )


def _elu_alpha_error(kind: str, v: Values, ctx: Context) -> None:
    if v["alpha"] < 0:
        ctx.error(
            f"{kind}.attrs.alpha",
            "attrs.alpha",
            f"alpha is {show(float(v['alpha']))}; {kind} supports non-negative values only "
            f"({ONEDNN_VERSION} aborts when it compiles one)",
        )


# --- tolerances: measured against oneDNN 3.13 (AVX2, f32) on seeded inputs and a grid of |x| <= 20 ----

F32_UNIT = 2.0**-24  # half an ulp of 1.0 in f32: the error of one rounding near 1


LIBM = "A transcendental function, correctly rounded here (float64, rounded once); vectorised f32 ones are within a few ulps"
CANCELS = "the derivative's terms cancel near its zeros"
# name: (ulps, absolute, why); "oneDNN 3.13" figures are the largest differences measured.
_TOLERANCES = {
    "exp": (4, 2.0**-124, f"{LIBM} (oneDNN 3.13: 2); results below about 2^-125 may be flushed to 0"),
    "tanh": (4, 0.0, f"{LIBM} (oneDNN 3.13: 1)"),
    "elu": (4, 4 * F32_UNIT, f"{LIBM}; e^x - 1 without expm1 cancels near 0 (oneDNN 3.13: 9e-8 absolute)"),
    "gelu": (4, 8 * F32_UNIT, f"{LIBM}; erf and tanh approximations near 0 (oneDNN 3.13: 2.5e-7 absolute)"),
    "hardsigmoid": (2, F32_UNIT, "alpha * src + beta rounds once with a fused multiply-add, twice without (oneDNN 3.13: 1 ulp)"),
    "hardswish": (4, 0.0, "src * (src + 3) / 6 rounds up to three times in f32 (oneDNN 3.13: 4 ulps)"),
    "log": (4, 2.0**-17, f"{LIBM}; oneDNN 3.13's vectorised log is good to about 2^-18 absolutely (3.5e-6)"),
    "mish": (4, 16 * F32_UNIT, f"{LIBM}; tanh(ln(1 + e^x)) cancels for x < 0 (oneDNN 3.13: 7.8e-7 absolute)"),
    "softplus": (4, 2.0**-18, f"{LIBM}; ln(1 + e^x) in f32 loses what 1 + e^x rounds away (oneDNN 3.13: 1.9e-6 at -20)"),
    "gradient": (4, 4 * F32_UNIT, f"{LIBM}; {CANCELS} (oneDNN 3.13: 1.2e-7 absolute)"),
    "gelu_gradient": (4, 32 * F32_UNIT, f"{LIBM}; {CANCELS} (oneDNN 3.13: 1.2e-6 absolute)"),
    "tanh_gradient": (4, 8 * F32_UNIT, f"{LIBM}; 1 - tanh^2 cancels as |x| grows (oneDNN 3.13: 1.8e-7 absolute)"),
    "sqrt_gradient": (2, 0.0, "A quotient: rounded once here, twice where 1 / (2 * d) is formed first (oneDNN 3.13: 1 ulp)"),
}  # fmt: skip
TOL = {name: Tolerance(ulps=u, absolute=a, why=why) for name, (u, a, why) in _TOLERANCES.items()}


# --- the members ----------------------------------------------------------------------------------

ABS = build("Abs", "dst = |src| (IEEE abs: -0 gives +0).", lambda v, x: np.abs(x), table=FLOAT_SAME_F16)
CLAMP = build(
    "Clamp",
    "dst = min(max(src, min), max): src where min < src < max, else the bound it passes (NaN gives min).",
    lambda v, x: select_max(select_min(x, v["min"]), v["max"]),
    attrs=(MIN, MAX),
    check=_clamp_bounds,
    rules=_clamp_rules("Clamp"),
    table=FLOAT_SAME_F16,
)
ELU = build(
    "Elu",
    "dst = src if src > 0, else alpha * (e^src - 1).",
    lambda v, x: np.where(x > 0, x, v["alpha"] * np.expm1(x)),
    attrs=(ELU_ALPHA,),
    tolerance=TOL["elu"],
    check=_elu_alpha_warning,
    rules=(
        Rule("Elu.onednn.alpha", f"alpha < 0: beyond the page's non-negative values, but {ONEDNN_VERSION} runs it.",
             "oneDNN Graph Elu, Operation attributes", "warning"),
    ),
    notes=("oneDNN 3.13 (AVX2) gives +0 for Elu(-0) and for tiny negative src (subnormals read as 0).",),
    table=FLOAT_SAME_F16,
)  # fmt: skip
EXP = build(
    "Exp",
    "dst = e^src.",
    lambda v, x: np.exp(x),
    tolerance=TOL["exp"],
    notes=("oneDNN 3.13 (AVX2) gives inf for a NaN src, and 0 for results below about 2^-125.",),
    table=FLOAT_SAME_F16,
)
GELU = build(
    "GELU",
    "dst = 0.5 * src * (1 + erf(src / sqrt(2))); with mode gelu_tanh, "
    "0.5 * src * (1 + tanh(sqrt(2 / pi) * (src + 0.044715 * src^3))).",
    gelu,
    attrs=(GELU_MODE,),
    tolerance=TOL["gelu"],
    notes=("The page writes erf(src) / sqrt(2); erf(src / sqrt(2)) is meant (oneDNN computes it).",),
    table=FLOAT_SAME_F16,
)
HARD_SIGMOID = build(
    "HardSigmoid",
    "dst = max(0, min(1, alpha * src + beta)) (NaN gives 1: min and max ignore a NaN).",
    lambda v, x: np.fmax(0.0, np.fmin(1.0, v["alpha"] * x + v["beta"])),
    attrs=(HS_ALPHA, HS_BETA),
    tolerance=TOL["hardsigmoid"],
)
HARD_SWISH = build(
    "HardSwish",
    "dst = src * min(max(src + 3, 0), 6) / 6.",
    lambda v, x: hardswish(x),
    tolerance=TOL["hardswish"],
)
LEAKY_RELU = build(
    "LeakyReLU",
    "dst = src if src >= 0, else alpha * src (one product, rounded once).",
    lambda v, x: np.where(x >= 0, x, v["alpha"] * x),
    attrs=(LEAKY_ALPHA,),
)
LOG = build(
    "Log",
    "dst = ln(src) (-inf at 0, NaN below).",
    lambda v, x: np.log(x),
    tolerance=TOL["log"],
    notes=(
        "oneDNN 3.13 (AVX2) reads a subnormal src as the smallest normal: ln(1e-45) gives -88.03, not -103.28.",
    ),
    table=FLOAT_SAME_F16,
)
MISH = build(
    "Mish", "dst = src * tanh(ln(1 + e^src)).", lambda v, x: x * np.tanh(softplus(x)), tolerance=TOL["mish"]
)
RECIPROCAL = build(
    "Reciprocal",
    "dst = 1 / src, rounded once; inf where src is 0 (either zero, as the page writes).",
    lambda v, x: reciprocal(x),
    notes=(
        "oneDNN 3.13 runs Reciprocal only fused with a following op (benchdnn's Reciprocal + Multiply), not alone.",
    ),
)
RELU = build("ReLU", "dst = src if src > 0, else 0 (+0; NaN gives 0).", lambda v, x: np.where(x > 0, x, 0.0))
ROUND = build(
    "Round",
    "dst = src rounded to the nearest integer, ties to even.",
    lambda v, x: np.rint(x),
    table=FLOAT_SAME_F16,
)
SIGMOID = build("Sigmoid", "dst = 1 / (1 + e^-src).", lambda v, x: sigmoid(x), tolerance=TOL["exp"])
SOFT_PLUS = build(
    "SoftPlus",
    "dst = 1/beta * ln(e^(beta * src) + 1).",
    lambda v, x: softplus(v["beta"] * x) / v["beta"],
    attrs=(SOFTPLUS_BETA,),
    tolerance=TOL["softplus"],
)
SQRT = build(
    "Sqrt",
    "dst = sqrt(src), rounded once (-0 gives -0, below 0 NaN).",
    lambda v, x: np.sqrt(x),
    table=FLOAT_SAME_F16,
)
SQUARE = build("Square", "dst = src * src, rounded once.", lambda v, x: x * x, table=FLOAT_SAME_F16)
TANH = build("Tanh", "dst = tanh(src).", lambda v, x: np.tanh(x), tolerance=TOL["tanh"])

ABS_BACKWARD = build_backward(
    "AbsBackward",
    "diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0 (NaN src gives NaN).",
    lambda v, x, g: g * np.where(x > 0, 1.0, np.where(x < 0, -1.0, np.where(x == 0, 0.0, np.nan))),
    notes=("oneDNN 3.13 (AVX2) gives diff_dst, not NaN, where src is NaN.",),
)
CLAMP_BACKWARD = build_backward(
    "ClampBackward",
    "diff_src = diff_dst where min < src (or dst) < max, else 0.",
    lambda v, x, g: g * ((x > v["min"]) & (x < v["max"])),
    attrs=(MIN, MAX),
    use_dst=True,
    check=_clamp_bounds,
    rules=_clamp_rules("ClampBackward"),
)
ELU_BACKWARD = build_backward(
    "EluBackward",
    "diff_src = diff_dst where x > 0, else diff_dst * alpha * e^src (from dst: diff_dst * (dst + alpha)).",
    elu_grad,
    attrs=(ELU_ALPHA,),
    use_dst=True,
    tolerance=TOL["gradient"],
    check=_elu_alpha_error,
    rules=(Rule("EluBackward.attrs.alpha", "alpha is non-negative.", "oneDNN Graph EluBackward, Operation attributes"),),
)  # fmt: skip
GELU_BACKWARD = build_backward(
    "GELUBackward",
    "diff_src = diff_dst * GELU'(src), for the mode's GELU.",
    gelu_grad,
    attrs=(GELU_MODE,),
    tolerance=TOL["gelu_gradient"],
)
HARD_SIGMOID_BACKWARD = build_backward(
    "HardSigmoidBackward",
    "diff_src = diff_dst * alpha where 0 < alpha * src + beta < 1, else 0.",
    lambda v, x, g: g * np.where((v["alpha"] * x + v["beta"] > 0) & (v["alpha"] * x + v["beta"] < 1), v["alpha"], 0.0),
    attrs=(HS_ALPHA, HS_BETA),
)  # fmt: skip
HARD_SWISH_BACKWARD = build_backward(
    "HardSwishBackward",
    "diff_src = 0 where src <= -3, diff_dst where src >= 3, else diff_dst * (2 * src + 3) / 6.",
    lambda v, x, g: g * hardswish_grad(x),
    tolerance=TOL["gradient"],
)
MISH_BACKWARD = build_backward(
    "MishBackward",
    "diff_src = diff_dst * e^src * omega / delta^2, omega = e^3src + 4e^2src + e^src(4src + 6) + 4(src + 1), "
    "delta = e^2src + 2e^src + 2.",
    lambda v, x, g: g * mish_grad(x),
    tolerance=TOL["gradient"],
)
RELU_BACKWARD = build_backward(
    "ReLUBackward",
    "diff_src = diff_dst where src (or dst) > 0, else 0.",
    lambda v, x, g: g * (x > 0),
    use_dst=True,
    notes=("oneDNN 3.13 (AVX2) gives diff_dst, not 0, where src is NaN.",),
)
SIGMOID_BACKWARD = build_backward(
    "SigmoidBackward",
    "diff_src = diff_dst * s * (1 - s), s = sigmoid(src) (or dst).",
    lambda v, x, g: g * _from(v, x, sigmoid) * (1 - _from(v, x, sigmoid)),
    use_dst=True,
    tolerance=TOL["gradient"],
)
SOFT_PLUS_BACKWARD = build_backward(
    "SoftPlusBackward",
    "diff_src = diff_dst * sigmoid(beta * src).",
    lambda v, x, g: g * sigmoid(v["beta"] * x),
    attrs=(SOFTPLUS_BETA,),
    tolerance=TOL["gradient"],
    table=GRADIENT_SAME_BF16,
)
SQRT_BACKWARD = build_backward(
    "SqrtBackward",
    "diff_src = diff_dst / (2 * sqrt(src)) (or / (2 * dst)).",
    lambda v, x, g: g / (2 * _from(v, x, np.sqrt)),
    use_dst=True,
    tolerance=TOL["sqrt_gradient"],
)
TANH_BACKWARD = build_backward(
    "TanhBackward",
    "diff_src = diff_dst * (1 - t^2), t = tanh(src) (or dst).",
    lambda v, x, g: g * (1 - _from(v, x, np.tanh) ** 2),
    use_dst=True,
    tolerance=TOL["tanh_gradient"],
)

OPS = (
    ABS, CLAMP, ELU, EXP, GELU, HARD_SIGMOID, HARD_SWISH, LEAKY_RELU, LOG, MISH, RECIPROCAL, RELU, ROUND,
    SIGMOID, SOFT_PLUS, SQRT, SQUARE, TANH,
    ABS_BACKWARD, CLAMP_BACKWARD, ELU_BACKWARD, GELU_BACKWARD, HARD_SIGMOID_BACKWARD, HARD_SWISH_BACKWARD,
    MISH_BACKWARD, RELU_BACKWARD, SIGMOID_BACKWARD, SOFT_PLUS_BACKWARD, SQRT_BACKWARD, TANH_BACKWARD,
)  # fmt: skip
