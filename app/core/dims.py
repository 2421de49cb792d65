"""Dims as integer expressions over symbols, in one canonical printed form.

A dim is an int, None (unknown: nothing can say more) or a string: the canonical text of an integer
expression over symbols (`N`, `S + T`, `(H - 1) // 2 + 1`, `B * S`, `min(S, 512)`): names, integer
literals, `+ - * // %`, parentheses, `min(a, b)`, `max(a, b)`, with Python's integer semantics (floor
division; `%` takes the divisor's sign). The text is the dim everywhere: on the wire, in answers, in
messages, in the graph walker's values, as a key. Two dims that this module can show equal print the
same, so equal dims compare equal as strings.

Inside, an expression is a polynomial with integer coefficients over atoms: a symbol, a floor
division, a min or a max (each over polynomials); `a % b` is `a - b * (a // b)`, printed back as `%`.
Kept canonical:
- terms merged and ordered, constants folded, products of atoms sorted (`S * B` is `B * S`);
- `p // c` for a constant c > 0: the common factor of c and p's coefficients cancelled, the terms
  whose coefficient c divides taken out, the constant moved into (-c, 0] (`(H + 2 - 3) // 2 + 1` is
  `(H - 1) // 2 + 1`, `(H + 1) // 2` too), and `(x // a + y) // b` as `(x + a * y) // (a * b)`;
- `min` and `max` decided where the difference of their arguments has a known sign (symbols are
  sizes: >= 0; `x % c` lies in [0, c - 1]).

Why not SymPy: bench/bench_dims.py times both: importing SymPy costs more than the whole start-up
budget of a check, and each of its operations tens of times one of these; what shapes need (linear
forms, floor division by constants, min/max with constants) is small enough to keep here, and the
property tests (tests/core/test_dims.py) hold it to Python's own arithmetic.

Static ints never come here: callers test `type(dim) is int` first, so a graph without symbols pays
nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from app.core.numbers import INT64_MAX, show

Dim = int | str | None

SYMBOL_CHARS = 64  # a symbol comes back in every inferred shape: a long one would be echoed many times
# Matched from the start to the very end: `$` would also end before a final newline and let "N\n" in.
SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Bounds on an expression, given or inferred (an inferred one past them is unknown, -1, so that every
# answer can be sent back as a dim): its text, its operands and operators, its nesting.
EXPR_CHARS = 256
EXPR_NODES = 64
EXPR_DEPTH = 16

# Names an engine made up for a size it did not know: ONNX's shape inference writes `unk__N`; the
# graph walker names an unknown dim of a file `dyn__N`. An assumption about them is a note, not a warning.
ENGINE_MADE = re.compile(r"(?:unk|dyn)__\d+\Z")
FRESH_PREFIX = "dyn__"


def engine_made(name: str) -> bool:
    return ENGINE_MADE.match(name) is not None


# --- the normal form ----------------------------------------------------------------------------
# Poly: a sorted tuple of (monomial, coefficient), no zero coefficient; the constant's monomial is ()
# and sorts first. Monomial: a sorted tuple of atoms, repeated for powers. Atom: (tag, ...) with the
# tags ordering symbols before divisions before min before max.

SYM, DIV, MIN, MAX = "a", "b", "c", "d"
Poly = tuple
ZERO: Poly = ()


def _const(value: int) -> Poly:
    return (((), value),) if value else ZERO


def _atom(atom: tuple) -> Poly:
    return (((atom,), 1),)


def _terms(terms: Mapping[tuple, int]) -> Poly:
    return tuple(sorted([(mono, coef) for mono, coef in terms.items() if coef]))


def _constant(p: Poly) -> int | None:
    """p's value when it is a constant, else None."""
    if not p:
        return 0
    if len(p) == 1 and not p[0][0]:
        return p[0][1]
    return None


def _add(p: Poly, q: Poly, scale: int = 1) -> Poly:
    terms = dict(p)
    for mono, coef in q:
        terms[mono] = terms.get(mono, 0) + scale * coef
    return _terms(terms)


def _scale(p: Poly, k: int) -> Poly:
    return tuple([(mono, coef * k) for mono, coef in p]) if k else ZERO


def _mul(p: Poly, q: Poly) -> Poly:
    if len(p) * len(q) > EXPR_NODES:  # (a + b) * (c + d) * ... would expand past any text's bounds
        raise ValueError(f"expands to more than {EXPR_NODES} terms")
    terms: dict[tuple, int] = {}
    for m1, c1 in p:
        for m2, c2 in q:
            mono = tuple(sorted(m1 + m2)) if m1 and m2 else m1 or m2
            terms[mono] = terms.get(mono, 0) + c1 * c2
    return _terms(terms)


def _floordiv(p: Poly, q: Poly) -> Poly:
    c = _constant(q)
    if c is None:
        if not p:
            return ZERO
        exact = _divide(p, q)
        return exact if exact is not None else _atom((DIV, p, q))
    if c == 0:
        raise ZeroDivisionError("division by zero")
    if c < 0:
        p, c = _scale(p, -1), -c
    k = _constant(p)
    if k is not None:
        return _const(k // c)
    if c == 1:
        return p
    k = p[0][1] if not p[0][0] else 0
    rest = p[1:] if not p[0][0] else p
    g = math.gcd(c, *[coef for _, coef in rest])
    if g > 1:  # floor((g x + k) / (g c)) = floor((x + floor(k / g)) / c)
        rest = tuple([(mono, coef // g) for mono, coef in rest])
        k, c = k // g, c // g
        if c == 1:
            return _add(rest, _const(k))
    taken: dict[tuple, int] = {}
    left: dict[tuple, int] = {}
    for mono, coef in rest:
        if coef % c:
            left[mono] = coef
        else:
            taken[mono] = coef // c
    out = _terms(taken)
    if not left:
        return _add(out, _const(k // c))
    inner = [mono for mono, coef in left.items() if coef == 1 and len(mono) == 1 and _by_constant(mono[0])]
    if len(inner) == 1:  # (x // a + y) // c = (x + a * y) // (a * c), y any integer
        atom = inner[0][0]
        a = _constant(atom[2])
        del left[inner[0]]
        numerator = _add(atom[1], _scale(_add(_terms(left), _const(k)), a))  # type: ignore[arg-type]
        return _add(out, _floordiv(numerator, _const(a * c)))  # type: ignore[operator]
    if next(iter(left.values())) < 0:  # floor(-x / c) = -floor((x + c - 1) / c): a leading term positive
        flipped = _add(_scale(_terms(left), -1), _const(c - 1 - k))
        return _add(out, _floordiv(flipped, _const(c)), -1)
    t = -(-k // c)  # k = c * t + r with r in (-c, 0]
    numerator = _add(_terms(left), _const(k - c * t))
    return _add(_add(out, _const(t)), _atom((DIV, numerator, _const(c))))


def _divide(p: Poly, q: Poly) -> Poly | None:
    """p / q where q is one term that divides every term of p (B * S by B), else None."""
    if len(q) != 1:
        return None
    ((divisor, c),) = q
    out: dict[tuple, int] = {}
    for mono, coef in p:
        if coef % c:
            return None
        left = list(mono)
        for atom in divisor:
            if atom not in left:
                return None
            left.remove(atom)
        out[tuple(left)] = coef // c
    return _terms(out)


def _by_constant(atom: tuple) -> bool:
    return atom[0] == DIV and _constant(atom[2]) is not None


def _mod(p: Poly, q: Poly) -> Poly:
    return _add(p, _mul(q, _floordiv(p, q)), -1)


INF = math.inf


def _bounds(p: Poly) -> tuple[float, float]:
    """Lower and upper bounds of p's value over every value of its symbols (sizes: >= 0)."""
    lo: float = 0
    hi: float = 0
    terms, mods = (
        (dict(p), ()) if not any(atom[0] == DIV for mono, _ in p for atom in mono) else _split_mods(p)
    )
    for mono, coef in terms.items():
        a, b = _mono_bounds(mono)
        if coef > 0:
            lo, hi = lo + coef * a, hi + coef * b
        else:
            lo, hi = lo + coef * b, hi + coef * a
    for _, sign, _, den in mods:  # x % y lies in [0, y - 1] for y >= 1
        dlo, dhi = _bounds(den)
        if dlo < 1:
            return -INF, INF
        top = dhi - 1
        lo, hi = (lo, hi + top) if sign > 0 else (lo - top, hi)
    return lo, hi


def _mono_bounds(mono: tuple) -> tuple[float, float]:
    lo: float = 1
    hi: float = 1
    for atom in mono:
        a, b = _atom_bounds(atom)
        if a < 0:
            return (-INF, INF) if len(mono) > 1 else (a, b)
        lo, hi = lo * a, (0 if b == 0 or hi == 0 else hi * b)
    return lo, hi


def _atom_bounds(atom: tuple) -> tuple[float, float]:
    tag = atom[0]
    if tag == SYM:
        return 0, INF
    if tag == DIV:
        lo, hi = _bounds(atom[1])
        c = _constant(atom[2])
        if c is not None:  # a positive constant: normalised so
            return _floor(lo, c), _floor(hi, c)
        dlo, _ = _bounds(atom[2])
        return (0, INF) if lo >= 0 and dlo >= 1 else (-INF, INF)
    (alo, ahi), (blo, bhi) = _bounds(atom[1]), _bounds(atom[2])
    if tag == MIN:
        return min(alo, blo), min(ahi, bhi)
    return max(alo, blo), max(ahi, bhi)


def _floor(value: float, c: int) -> float:
    return value if math.isinf(value) else value // c  # an int: exact


def _minmax(tag: str, a: Poly, b: Poly) -> Poly:
    lo, hi = _bounds(_add(a, b, -1))
    if lo >= 0:  # a >= b
        return b if tag == MIN else a
    if hi <= 0:
        return a if tag == MIN else b
    return _atom((tag, *sorted((a, b), key=lambda x: (_constant(x) is not None, x))))


# --- text ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r" *(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(//|[-+*%(),]))")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[int, str, str]] = []  # (position, kind, text)
        position = 0
        while position < len(text):
            if not text[position:].strip(" "):
                break
            match = _TOKEN.match(text, position)
            if match is None:
                at = position + len(text[position:]) - len(text[position:].lstrip(" "))
                raise ValueError(f"{show(text[at])} at position {at} is not part of a dim expression")
            kind = "int" if match.group(1) else "name" if match.group(2) else "op"
            self.tokens.append((match.start(match.lastindex or 0), kind, match.group(match.lastindex or 0)))
            position = match.end()
        operands = sum(1 for _, kind, token in self.tokens if kind != "op" or token not in "(),")
        if operands > EXPR_NODES:
            raise ValueError(f"has {operands} operands and operators; at most {EXPR_NODES}")
        self.at = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.at][2] if self.at < len(self.tokens) else None

    def take(self) -> tuple[int, str, str]:
        if self.at >= len(self.tokens):
            raise ValueError("ends where an operand is expected")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, text: str) -> None:
        if self.peek() != text:
            where = self.where()
            raise ValueError(f"expects {show(text)} {where}")
        self.at += 1

    def where(self) -> str:
        if self.at >= len(self.tokens):
            return "at the end"
        position, _, token = self.tokens[self.at]
        return f"where {show(token)} is, at position {position}"

    def whole(self) -> Poly:
        value = self.sum()
        if self.at < len(self.tokens):
            raise ValueError(
                f"has {show(self.tokens[self.at][2])} left over at position {self.tokens[self.at][0]}"
            )
        return value

    def sum(self) -> Poly:
        value = self.product()
        while self.peek() in ("+", "-"):
            sign = 1 if self.take()[2] == "+" else -1
            value = _add(value, self.product(), sign)
        return value

    def product(self) -> Poly:
        value = self.unary()
        while self.peek() in ("*", "//", "%"):
            op = self.take()[2]
            right = self.unary()
            if op == "*":
                value = _mul(value, right)
                continue
            if _constant(right) == 0:
                raise ValueError(f"divides by 0 ({show(op)})")
            value = _floordiv(value, right) if op == "//" else _mod(value, right)
        return value

    def unary(self) -> Poly:
        if self.peek() == "-":
            self.take()
            return self.nested(lambda: _scale(self.unary(), -1))
        if self.peek() == "+":
            raise ValueError(f"has a unary + {self.where()}; write the operand alone")
        return self.operand()

    def nested(self, read: Any) -> Poly:
        self.depth += 1
        if self.depth > EXPR_DEPTH:
            raise ValueError(f"nests deeper than {EXPR_DEPTH} levels")
        value = read()
        self.depth -= 1
        return value

    def operand(self) -> Poly:
        position, kind, token = self.take()
        if kind == "int":
            value = int(token)
            if value > INT64_MAX:
                raise ValueError(f"has the literal {show(token)} at position {position}, above int64")
            return _const(value)
        if kind == "name":
            if self.peek() == "(":
                if token not in ("min", "max"):
                    raise ValueError(
                        f"calls {show(token)} at position {position}; only min and max are functions"
                    )
                self.take()
                first = self.nested(self.sum)
                self.expect(",")
                second = self.nested(self.sum)
                self.expect(")")
                return _minmax(MIN if token == "min" else MAX, first, second)
            if len(token) > SYMBOL_CHARS:
                raise ValueError(f"has a symbol of {len(token):,} characters; at most {SYMBOL_CHARS}")
            return _atom((SYM, token))
        if token == "(":
            value = self.nested(self.sum)
            self.expect(")")
            return value
        raise ValueError(f"has {show(token)} at position {position} where an operand is expected")


def _text(p: Poly) -> str:
    """p's canonical text: terms in order, a positive one first, the constant last."""
    pieces = _pieces(p)
    if not pieces:
        return "0"
    lead = next((k for k, piece in enumerate(pieces) if piece[0] > 0), 0)
    pieces.insert(0, pieces.pop(lead))
    out = []
    for index, (sign, text, bare) in enumerate(pieces):
        if index == 0:
            out.append(("-(" + text + ")" if bare else "-" + text) if sign < 0 else text)
        else:
            out.append((" - " if sign < 0 else " + ") + text)
    return "".join(out) or "0"


def _pieces(p: Poly) -> list[tuple[int, str, bool]]:
    """(sign, text, bare) per printed term, `x - c * (x // c)` printed as `x % c`; bare: a lone `//` or
    `%`, which needs parentheses after a leading minus (-x // c is (-x) // c)."""
    terms, mods = _split_mods(p)
    folded = [(mono, (sign, _binary(num, "%", den), True)) for mono, sign, num, den in mods]
    pieces = [(mono, _term(mono, coef)) for mono, coef in terms.items() if mono]
    ordered = [piece for _, piece in sorted(folded + pieces, key=lambda item: item[0])]
    constant = terms.get(())
    if constant:
        ordered.append((1 if constant > 0 else -1, str(abs(constant)), False))
    return ordered


def _split_mods(p: Poly) -> tuple[dict[tuple, int], list[tuple[tuple, int, Poly, Poly]]]:
    """p's terms less its remainders `x - y * (x // y)` (or their negatives), and those as (the
    monomial that orders them, sign, x, y)."""
    terms = dict(p)
    mods: list[tuple[tuple, int, Poly, Poly]] = []
    for mono, _ in p:
        for atom in mono:
            if atom[0] != DIV or mono not in terms:
                continue
            mod = _add(atom[1], _mul(atom[2], _atom(atom)), -1)
            for sign in (1, -1):
                if all(terms.get(m) == sign * c for m, c in mod if m):  # the constant may differ
                    for m, c in mod:
                        terms[m] = terms.get(m, 0) - sign * c
                        if not terms[m]:
                            del terms[m]
                    mods.append((mono, sign, atom[1], atom[2]))
                    break
    return terms, mods


def _term(mono: tuple, coef: int) -> tuple[int, str, bool]:
    alone = len(mono) == 1 and abs(coef) == 1
    factors = [_factor(atom, alone) for atom in mono]
    if abs(coef) != 1:
        factors.insert(0, str(abs(coef)))
    return (1 if coef > 0 else -1), " * ".join(factors), alone and mono[0][0] == DIV


def _factor(atom: tuple, alone: bool) -> str:
    tag = atom[0]
    if tag == SYM:
        return atom[1]
    if tag == DIV:
        text = _binary(atom[1], "//", atom[2])
        return text if alone else f"({text})"
    return f"{'min' if tag == MIN else 'max'}({_text(atom[1])}, {_text(atom[2])})"


def _binary(numerator: Poly, op: str, denominator: Poly) -> str:
    top = _text(numerator)
    if len(numerator) > 1:
        top = f"({top})"
    bottom = _text(denominator)
    c = _constant(denominator)
    simple = (c is not None and c >= 0) or (
        len(denominator) == 1 and denominator[0][1] == 1 and len(denominator[0][0]) == 1
        and denominator[0][0][0][0] != DIV
    )  # fmt: skip
    return f"{top} {op} {bottom if simple else f'({bottom})'}"


_MEASURE = re.compile(r"\d+|[A-Za-z_][A-Za-z0-9_]*|//|[-+*%]")


def _fits(text: str) -> bool:
    """Whether an inferred expression's text is within the bounds a given one must keep."""
    if len(text) > EXPR_CHARS or len(_MEASURE.findall(text)) > EXPR_NODES:
        return False
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest < EXPR_DEPTH  # a leading minus may nest once more when read back


# --- dims ---------------------------------------------------------------------------------------

_CACHE_MOST = 8192
_POLYS: dict[str, Poly] = {}
_TEXTS: dict[Poly, Dim] = {}


def _poly(dim: int | str) -> Poly:
    if type(dim) is int:
        return _const(dim)
    found = _POLYS.get(dim)  # type: ignore[arg-type]
    if found is None:
        found = _atom((SYM, dim)) if SYMBOL.match(dim) else _Parser(dim).whole()  # type: ignore[arg-type]
        if len(_POLYS) >= _CACHE_MOST:
            _POLYS.clear()
        _POLYS[dim] = found  # type: ignore[index]
    return found


def _dim(p: Poly) -> Dim:
    """p as a dim: an int when constant, else its canonical text; None past the bounds."""
    value = _constant(p)
    if value is not None:
        return value
    found = _TEXTS.get(p)
    if found is None and p not in _TEXTS:
        text = _text(p)
        found = text if _fits(text) else None
        if len(_TEXTS) >= _CACHE_MOST:
            _TEXTS.clear()
        _TEXTS[p] = found
        if found is not None:
            _POLYS.setdefault(text, p)
    return found


def parse(text: str) -> int | str:
    """A dim expression as the wire gives it, in canonical form (an int when it has no symbol);
    ValueError says what is wrong with it."""
    found = _POLYS.get(text)  # a model's few dims come back in every descriptor
    if found is not None:
        return _dim(found)  # type: ignore[return-value]  # read (and so checked) before
    if len(text) > EXPR_CHARS:
        raise ValueError(f"is {len(text):,} characters long; at most {EXPR_CHARS}")
    try:
        p = _Parser(text).whole()
    except RecursionError:  # pragma: no cover (the depth bound comes first)
        raise ValueError(f"nests deeper than {EXPR_DEPTH} levels") from None
    dim = _dim(p)
    if dim is None:
        raise ValueError(f"is beyond the bounds of a dim expression ({EXPR_NODES} operands and operators)")
    if type(dim) is int and not 0 <= dim <= INT64_MAX:
        raise ValueError(f"is {dim:,}; a size is an integer from 0 to 2^63 - 1")
    if len(_POLYS) >= _CACHE_MOST:
        _POLYS.clear()
    _POLYS[text] = p
    return dim


_RESULTS: dict[tuple, Dim] = {}  # (operation, operands) -> result: a model repeats its few shapes


def _apply(op: Any, *dims: Dim) -> Dim:
    if None in dims:
        return None
    key = (op, *dims)
    if key in _RESULTS:
        return _RESULTS[key]
    try:
        found = _dim(op(*[_poly(d) for d in dims]))  # type: ignore[arg-type]
    except (ValueError, ZeroDivisionError):
        found = None
    if len(_RESULTS) >= _CACHE_MOST:
        _RESULTS.clear()
    _RESULTS[key] = found
    return found


def _sub(p: Poly, q: Poly) -> Poly:
    return _add(p, q, -1)


def _min(p: Poly, q: Poly) -> Poly:
    return _minmax(MIN, p, q)


def _max(p: Poly, q: Poly) -> Poly:
    return _minmax(MAX, p, q)


def add(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a + b
    return _apply(_add, a, b)


def sub(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a - b
    return _apply(_sub, a, b)


def mul(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a * b
    if a == 0 or b == 0:  # 0 times anything, unknown included
        return 0
    return _apply(_mul, a, b)


def floordiv(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a // b if b else None
    return _apply(_floordiv, a, b)


def mod(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a % b if b else None
    return _apply(_mod, a, b)


def minimum(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return min(a, b)
    return _apply(_min, a, b)


def maximum(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return max(a, b)
    return _apply(_max, a, b)


def total(dims: Iterable[Dim]) -> Dim:
    out: Dim = 0
    for dim in dims:
        out = add(out, dim)
    return out


def product(dims: Iterable[Dim]) -> Dim:
    out: Dim = 1
    for dim in dims:
        out = mul(out, dim)
    return out


def bounds(dim: Dim) -> tuple[float, float]:
    """The least and greatest value `dim` can take (symbols are sizes, >= 0); infinite where open."""
    if type(dim) is int:
        return dim, dim
    if dim is None:
        return 0, INF
    return _bounds(_poly(dim))


def differ(a: Dim, b: Dim) -> bool:
    """True only when no value of the symbols makes `a` equal `b` (`N + 1` and `N`, `N + 5` and 3)."""
    if type(a) is int and type(b) is int:
        return a != b
    if a is None or b is None or a == b:
        return False
    lo, hi = _bounds(_add(_poly(a), _poly(b), -1))
    return lo > 0 or hi < 0


def can_be(dim: Dim, value: int) -> bool:
    """Whether some value of the symbols makes `dim` equal `value`, as far as can be told."""
    return not differ(dim, value)


_NO_NAMES: frozenset[str] = frozenset()
_SYMBOLS: dict[str, frozenset[str]] = {}


def symbols(dim: Dim) -> frozenset[str]:
    """The names in a dim."""
    if type(dim) is not str:
        return _NO_NAMES
    found = _SYMBOLS.get(dim)
    if found is None:
        # A graph's walk asks this of the same few texts at every node that reads them.
        found = frozenset((dim,)) if SYMBOL.match(dim) else frozenset(_names(_poly(dim)))
        if len(_SYMBOLS) >= _CACHE_MOST:
            _SYMBOLS.clear()
        _SYMBOLS[dim] = found
    return found


def _names(p: Poly) -> Iterable[str]:
    for mono, _ in p:
        for atom in mono:
            if atom[0] == SYM:
                yield atom[1]
            else:
                yield from _names(atom[1])
                yield from _names(atom[2])


def is_symbol(dim: Dim) -> bool:
    return type(dim) is str and SYMBOL.match(dim) is not None


def engine_only(dim: Dim) -> bool:
    """Whether every name in `dim` was made up by an engine (an unknown dim: always)."""
    return dim is None or (type(dim) is str and all(map(engine_made, symbols(dim))))


def by_engine(dim: Dim) -> bool:
    """Whether `dim` holds a name an engine made up, or is unknown."""
    return dim is None or (type(dim) is str and any(map(engine_made, symbols(dim))))


def substitute(dim: Dim, mapping: Mapping[str, Dim]) -> Dim:
    """`dim` with each name in `mapping` replaced by its dim (None: the result is unknown)."""
    if type(dim) is not str or not mapping:
        return dim
    names = symbols(dim)
    if len(names) == 1 and dim in names:
        return mapping.get(dim, dim)
    used = [name for name in names if name in mapping]
    if not used:
        return dim
    if any(mapping[name] is None for name in used):
        return None
    try:
        return _dim(_substitute(_poly(dim), {name: _poly(mapping[name]) for name in used}))  # type: ignore[arg-type]
    except (ValueError, ZeroDivisionError):
        return None


def _substitute(p: Poly, mapping: Mapping[str, Poly]) -> Poly:
    out: Poly = ZERO
    for mono, coef in p:
        term = _const(coef)
        for atom in mono:
            term = _mul(term, _substitute_atom(atom, mapping))
        out = _add(out, term)
    return out


def _substitute_atom(atom: tuple, mapping: Mapping[str, Poly]) -> Poly:
    tag = atom[0]
    if tag == SYM:
        return mapping.get(atom[1], _atom(atom))
    a, b = _substitute(atom[1], mapping), _substitute(atom[2], mapping)
    if tag == DIV:
        return _floordiv(a, b)
    return _minmax(tag, a, b)


def evaluate(dim: Dim, values: Mapping[str, int]) -> int:
    """`dim`'s value for these values of its symbols (every one given), by Python's integer arithmetic."""
    if type(dim) is int:
        return dim
    if dim is None:
        raise ValueError("an unknown dim has no value")
    return _evaluate(_poly(dim), values)


def _evaluate(p: Poly, values: Mapping[str, int]) -> int:
    out = 0
    for mono, coef in p:
        term = coef
        for atom in mono:
            tag = atom[0]
            if tag == SYM:
                term *= values[atom[1]]
            elif tag == DIV:
                term *= _evaluate(atom[1], values) // _evaluate(atom[2], values)
            elif tag == MIN:
                term *= min(_evaluate(atom[1], values), _evaluate(atom[2], values))
            else:
                term *= max(_evaluate(atom[1], values), _evaluate(atom[2], values))
        out += term
    return out


def fresh(taken: set[str], start: int = 0) -> tuple[str, int]:
    """A name for an unknown dim that no name in `taken` is (and now is), dyn__N from N = `start` on;
    and the N to start from next time."""
    index = start
    while f"{FRESH_PREFIX}{index}" in taken:
        index += 1
    name = f"{FRESH_PREFIX}{index}"
    taken.add(name)
    return name, index + 1
