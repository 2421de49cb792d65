"""Dim expressions (app/core/dims.py) held to Python's own integer arithmetic: any expression, read and
written canonically, has the value Python gives its text, for any sizes of its symbols; equal forms
print the same; the bounds, `differ` and `can_be` never claim what a value contradicts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import dims
from app.core.shapes import parse_dim

NAMES = ("A", "B", "C")

# Expression texts over A, B, C: divisors are positive (a literal >= 1, or a symbol plus 1).
leaf = st.one_of(st.integers(0, 9).map(str), st.sampled_from(NAMES))
divisor = st.one_of(st.integers(1, 6).map(str), st.sampled_from(NAMES).map(lambda n: f"({n} + 1)"))


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(children, st.sampled_from(["//", "%"]), divisor).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
        children.map(lambda c: f"-({c})"),
    )


expressions = st.recursive(leaf, _extend, max_leaves=8)
values = st.fixed_dictionaries({name: st.integers(0, 40) for name in NAMES})


def _python(text: str, env: dict[str, int]) -> int:
    return eval(text, {"__builtins__": {}, "min": min, "max": max}, dict(env))


def _canonical(text: str) -> dims.Dim:
    try:
        return dims._dim(dims._Parser(text).whole())
    except ValueError:
        return None  # beyond the bounds


@settings(max_examples=400, deadline=None)
@given(expressions, st.lists(values, min_size=3, max_size=3))
def test_canonical_form_has_pythons_value(text, envs) -> None:
    canonical = _canonical(text)
    if canonical is None:
        return
    for env in envs:
        expected = _python(text, env)
        assert dims.evaluate(canonical, env) == expected, (text, canonical, env)
        if isinstance(canonical, str):
            assert _python(canonical, env) == expected, (
                text,
                canonical,
                env,
            )  # the text reads as Python does


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_canonical_form_reads_back_as_itself(text) -> None:
    canonical = _canonical(text)
    if isinstance(canonical, str):
        assert _canonical(canonical) == canonical


@settings(max_examples=300, deadline=None)
@given(expressions, expressions, st.lists(values, min_size=4, max_size=4))
def test_what_is_claimed_of_two_dims_holds_for_every_value(a, b, envs) -> None:
    x, y = _canonical(a), _canonical(b)
    if x is None or y is None:
        return
    low, high = dims.bounds(x)
    for env in envs:
        vx, vy = dims.evaluate(x, env), dims.evaluate(y, env)
        assert low <= vx <= high
        if dims.differ(x, y):
            assert vx != vy
        if x == y:
            assert vx == vy
        for op, expected in ((dims.add, vx + vy), (dims.sub, vx - vy), (dims.mul, vx * vy),
                             (dims.minimum, min(vx, vy)), (dims.maximum, max(vx, vy))):  # fmt: skip
            got = op(x, y)
            assert got is None or dims.evaluate(got, env) == expected


@pytest.mark.parametrize(
    ("given_text", "canonical"),
    [
        ("S + T", "S + T"),
        ("T+S", "S + T"),
        ("(H + 2 - 3) // 2 + 1", "(H - 1) // 2 + 1"),
        ("(H + 1) // 2", "(H - 1) // 2 + 1"),
        ("S * B", "B * S"),
        ("((H - 1) // 2 + 1 - 1) // 2 + 1", "(H - 1) // 4 + 1"),
        ("6 * N % 5", "6 * N % 5"),
        ("H - H % 2", "2 * (H // 2)"),
        ("3 - H", "3 - H"),
        ("-(H // 2)", "-(H // 2)"),
        ("min(S, 512)", "min(S, 512)"),
        ("max(H % 4, 4)", 4),
        ("min(H, H + 1)", "H"),
        ("2 + 3", 5),
        ("N", "N"),
        ("  past  +1 ", "past + 1"),
    ],
)
def test_canonical_forms(given_text, canonical) -> None:
    assert dims.parse(given_text) == canonical
    assert parse_dim(given_text) == canonical


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("S +", "ends where an operand is expected"),
        ("S $ 2", "'$' at position 2 is not part of a dim expression"),
        ("H // 0", "divides by 0"),
        ("H % (2 - 2)", "divides by 0"),
        ("foo(S)", "calls 'foo'"),
        ("min(S)", "expects ','"),
        ("(S + 1", "expects ')'"),
        ("S T", "left over"),
        ("1 - 2", "is -1; a size is an integer from 0"),
        ("+S", "unary +"),
        ("(" * 17 + "S" + ")" * 17, "nests deeper than 16 levels"),
        (" + ".join(["S"] * 33), "at most 64"),
        ("S + " + "x" * 300, "characters long; at most 256"),
        ("S + " + "x" * 65, "symbol of 65 characters; at most 64"),
        ("S + 99999999999999999999", "above int64"),
        (" * ".join(f"(A{k} + B{k})" for k in range(16)), "expands to more than 64 terms"),
    ],
)
def test_bad_expressions_say_why(text, said) -> None:
    with pytest.raises(ValueError, match="dim expression") as caught:
        parse_dim(text)
    assert said in str(caught.value)


def test_an_inferred_expression_past_the_bounds_is_unknown() -> None:
    grown = "S"
    for index in range(40):
        grown = dims.add(grown, f"T{index}")
    assert grown is None  # past EXPR_NODES: -1, so every answer can be sent back as a dim


def test_substitution_and_names() -> None:
    assert dims.substitute("M + 1", {"M": "N"}) == "N + 1"
    assert dims.substitute("(M - 1) // 2 + 1", {"M": 7}) == 4
    assert dims.substitute("M * N", {"M": None}) is None
    assert dims.symbols("(H - 1) // S + min(W, 3)") == {"H", "S", "W"}
    assert dims.engine_made("unk__12") and dims.engine_made("dyn__0") and not dims.engine_made("unk_1")
    assert dims.fresh({"dyn__0", "N"}) == ("dyn__1", 2)
    assert dims.by_engine("S + unk__3") and not dims.engine_only("S + unk__3")


def test_the_int_fast_path_is_plain_arithmetic() -> None:
    assert dims.add(3, 4) == 7 and dims.floordiv(7, 2) == 3 and dims.mod(7, 0) is None
    assert dims.mul(0, None) == 0 and dims.add(None, 1) is None
