"""The names a graph's dims carry, as a walk goes through it.

A graph is one set of sizes: a name means one size wherever it appears. So the walker keeps, for the
whole graph, what each name has been taken to be:
- an unknown dim of a value nobody inferred (a graph input's `?`, a dim a file or an engine declares
  unknown) is a size all the same, fixed at run time: it gets a fresh name, engine-made (dyn__N), so
  that it can flow and meet other sizes by name;
- where a node's check takes two sizes equal (Context.assume's binding: M as N), M reads as N in every
  value from then on, so the assumption is said once, where it is made;
- where opspec infers an expression for a dim another engine names with a made-up symbol (ONNX's
  unk__N), the engine's name reads as opspec's expression everywhere.
With no binding and no unknown dim (most graphs), each step is one test.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from app.core import dims
from app.core.dims import Dim
from app.core.shapes import Shape


class GraphSymbols:
    def __init__(self, shapes: Iterable[Shape | None] = ()):
        self.bound: dict[str, Dim] = {}
        self.taken: set[str] = set()  # every name seen, so that a fresh one is new
        self.made = 0  # fresh names made so far
        for shape in shapes:
            self.see(shape)

    def see(self, shape: Shape | None) -> None:
        if shape is None:
            return
        for dim in shape:
            if type(dim) is str:
                self.taken |= dims.symbols(dim)

    def fresh(self, shape: Shape | None) -> Shape | None:
        """The shape with each unknown dim a new engine-made name."""
        if shape is None or None not in shape:
            return shape
        out = []
        for dim in shape:
            if dim is None:
                dim, self.made = dims.fresh(self.taken, self.made)
            out.append(dim)
        return tuple(out)

    def bind(self, bindings: Mapping[str, Dim]) -> bool:
        """Take each name as its dim from here on; whether any binding is new."""
        changed = False
        for name, dim in bindings.items():
            dim = self.apply_dim(dim)
            if dim is None or dim == name or name in dims.symbols(dim) or name in self.bound:
                continue
            self.bound = {key: dims.substitute(value, {name: dim}) for key, value in self.bound.items()}
            self.bound[name] = dim
            changed = True
        return changed

    def apply_dim(self, dim: Dim) -> Dim:
        return dims.substitute(dim, self.bound) if self.bound and type(dim) is str else dim

    def apply(self, shape: Shape | None) -> Shape | None:
        """The shape with every bound name read as its dim."""
        if not self.bound or shape is None:
            return shape
        out = tuple([dims.substitute(dim, self.bound) if type(dim) is str else dim for dim in shape])
        return shape if out == shape else out

    def named_by_engine(self, ours: Shape | None, theirs: Shape | None) -> list[tuple[int, str, Dim]]:
        """Where an engine's shape names a dim with a name it made up and opspec's has something else
        there (an expression, a size, a user's name): (axis, the engine's name, opspec's dim)."""
        if ours is None or theirs is None or ours == theirs or len(ours) != len(theirs):
            return []
        return [
            (axis, b, a)
            for axis, (a, b) in enumerate(zip(ours, theirs, strict=True))
            if a is not None and a != b and dims.is_symbol(b) and dims.engine_made(b)  # type: ignore[arg-type]
        ]
