"""Symbolic dims: opspec's own normal form (app/core/dims.py) against SymPy, the representation torch's
ShapeEnv and onnxruntime's symbolic_shape_infer use, on what shape rules ask of a dim.

Prints, for each: the import in a fresh process (against `python -c pass`, taking turns), and per
operation the time of a convolution's output size ((H + 2 - 3) // 2 + 1 from H), a concat's sum
(S + T), a reshape's product (B * S), deciding two dims equal, and reading a dim from its text and
writing it back (what an answer and the next node of a graph do). opspec's figures include its own
parse and print (a dim is its text); SymPy's are given both ways: on expressions already built, and
from and to text. "cold" clears opspec's caches of results first (a shape met the first time);
"repeated" is a model's next layer of the same shapes (SymPy keeps a cache of its own, so both of its
rows are warm). The int fast path (two static dims added) is printed beside them.
SymPy is optional: without it, its rows say so. Asserts nothing.

    .venv/bin/python bench/bench_dims.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.core import dims


def fresh_import(statement: str, runs: int, baseline: str = "pass") -> float:
    """The median CPU seconds of a fresh interpreter running `statement`, less `baseline`'s."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    root = str(Path(__file__).resolve().parent.parent)

    def cpu(code: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    cpu(statement)  # byte code written once
    pairs = [(cpu(baseline), cpu(statement)) for _ in range(runs)]
    return sorted(b - a for a, b in pairs)[len(pairs) // 2]


def per_call(function, number: int = 20000) -> float:
    """Best of 5 of `number` calls, in microseconds per call."""
    return min(timeit.repeat(function, number=number, repeat=5)) / number * 1e6


def ours() -> dict[str, float]:
    def conv() -> object:
        return dims.add(dims.floordiv(dims.sub(dims.add("H", 2), 3), 2), 1)

    dims._POLYS.clear()
    text = "(H + 2 - 3) // 2 + 1"

    def cold_conv() -> object:
        dims._RESULTS.clear()
        return conv()

    return {
        "conv output size (cold)": per_call(cold_conv),
        "conv output size (repeated)": per_call(conv),
        "concat sum S + T": per_call(lambda: dims.add("S", "T")),
        "reshape product B * S": per_call(lambda: dims.mul("B", "S")),
        "equal? (differ)": per_call(lambda: dims.differ("(H - 1) // 2 + 1", "(H + 1) // 2")),
        "parse + print (cached)": per_call(lambda: dims.parse(text)),
        "parse + print (cold)": per_call(
            lambda: (dims._POLYS.clear(), dims._TEXTS.clear(), dims.parse(text)), 2000
        ),
    }


def sympy_figures() -> dict[str, float] | None:
    try:
        import sympy
    except ImportError:
        return None
    h, s, t, b = sympy.symbols("H S T B", integer=True, nonnegative=True)

    def conv() -> object:
        return sympy.floor((h + 2 - 3) / 2) + 1

    a_expr, b_expr = sympy.floor((h - 1) / 2) + 1, sympy.floor((h + 1) / 2)
    text = "floor((H + 2 - 3) / 2) + 1"
    local = {"H": h}
    return {
        "conv output size (cold)": per_call(conv, 2000),
        "conv output size (repeated)": per_call(conv, 2000),
        "concat sum S + T": per_call(lambda: s + t, 2000),
        "reshape product B * S": per_call(lambda: b * s, 2000),
        "equal? (differ)": per_call(lambda: sympy.simplify(a_expr - b_expr) == 0, 20),
        "parse + print (cached)": per_call(lambda: str(sympy.sympify(text, locals=local)), 200),
        "parse + print (cold)": per_call(
            lambda: (sympy.core.cache.clear_cache(), str(sympy.sympify(text, locals=local))), 50
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    base = per_call(lambda: dims.add(3, 4))
    mine = ours()
    theirs = sympy_figures()
    print(f"import, CPU s (median of {runs} fresh processes, taking turns with the baseline):")
    numbers = "import app.core.numbers"  # what app.core.shapes imported before dims came
    both = numbers + "; import app.core.dims"
    print(
        f"  app.core.dims  {fresh_import(both, runs, numbers):+.4f} over app.core.numbers, which shapes imports anyway"
    )
    if theirs is None:
        print("  sympy          (not installed: pip install sympy to compare)")
    else:
        print(f"  sympy          {fresh_import('import sympy', runs):+.4f} over python -c pass")
    print(f"per operation, us (best of 5); the int fast path dims.add(3, 4): {base:.3f} us")
    print(f"  {'operation':26} {'opspec':>9} {'sympy':>10} {'sympy/opspec':>13}")
    for name, value in mine.items():
        other = theirs.get(name) if theirs else None
        shown = f"{other:10.1f} {other / value:12.0f}x" if other is not None else f"{'-':>10} {'-':>13}"
        print(f"  {name:26} {value:9.2f} {shown}")
    print(f"  answers: opspec {dims.add(dims.floordiv(dims.sub(dims.add('H', 2), 3), 2), 1)!r}, "
          f"{dims.add('S', 'T')!r}, {dims.mul('B', 'S')!r}, equal: {not dims.differ('(H - 1) // 2 + 1', '(H + 1) // 2')}, "
          f"same text: {dims.parse('(H + 1) // 2') == dims.parse('(H - 1) // 2 + 1')}")  # fmt: skip
    if theirs is not None:
        import sympy

        h = sympy.Symbol("H", integer=True, nonnegative=True)
        a, b = sympy.floor((h - 1) / 2) + 1, sympy.floor((h + 1) / 2)
        print(
            f"  answers: sympy {sympy.floor((h + 2 - 3) / 2) + 1}, simplify(a - b) == 0: {sympy.simplify(a - b) == 0}"
        )


if __name__ == "__main__":
    main()
