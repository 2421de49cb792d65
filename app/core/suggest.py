""" "Did you mean": the known names closest to an unknown one (a kind, an alias, an attribute, a dtype).

Case and separators first, as people mistype them (`ArgMax` -> `Argmax`, `reducemax` -> `ReduceMax`,
`keepdims` -> `keep_dims`), then difflib's similarity over the lower-cased names. Works on whatever names
it is given, so it follows the registry as ops are added.

The work is bounded: a name far longer than any known one gets no suggestion (difflib is quadratic in
the lengths), and the faces ask only for the errors they list (at most max_diagnostics a request).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MOST = 3  # suggestions offered at most
CUTOFF = 0.6  # difflib's ratio a name must reach


def _folded(name: str) -> str:
    return "".join(ch for ch in name.casefold() if ch not in "_- .")


def close_names(given: object, known: Iterable[str] | Mapping[str, str], most: int = MOST) -> list[str]:
    """The known names closest to `given`, best first (at most `most`); [] when none is close. With a
    mapping, a match on a key suggests its value (a dtype's spelling suggests its canonical name)."""
    if not isinstance(given, str) or not given:
        return []
    table = dict(known) if isinstance(known, Mapping) else {name: name for name in known}
    if not table or len(given) > 2 * max(map(len, table)) + 8:
        return []
    found: list[str] = []
    folded = given.casefold()
    squeezed = _folded(given)
    for key, value in table.items():  # case, then separators: the likeliest slips
        if key.casefold() == folded:
            found.append(value)
    for key, value in table.items():
        if _folded(key) == squeezed:
            found.append(value)
    if found:  # the same name but for case or separators: nothing else is as likely
        return list(dict.fromkeys(found))[:most]
    import difflib  # only when a name is unknown: not a cost of every start-up

    by_fold: dict[str, list[str]] = {}
    for key, value in table.items():
        by_fold.setdefault(key.casefold(), []).append(value)
    for match in difflib.get_close_matches(folded, list(by_fold), n=most, cutoff=CUTOFF):
        found.extend(by_fold[match])
    return list(dict.fromkeys(found))[:most]


def did_you_mean(suggestions: list[str]) -> str:
    """`did you mean 'a'?`, `did you mean 'a' or 'b'?`; "" for none."""
    if not suggestions:
        return ""
    quoted = [f"'{name}'" for name in suggestions]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"did you mean {listed}?"


class UnknownName(ValueError):
    """A name not among the known ones. str() is the plain message (cheap: validation raises it for
    every bad value); `message(suggestions)` the one a face shows, with its "did you mean"."""

    def __init__(self, head: str, tail: str, given: object, known: Iterable[str] | Mapping[str, str]) -> None:
        super().__init__(f"{head}; {tail}")
        self.head, self.tail, self.given = head, tail, given
        self.known = known

    def suggestions(self) -> list[str]:
        return close_names(self.given, self.known)

    def message(self, suggestions: list[str]) -> str:
        hint = did_you_mean(suggestions)
        return f"{self.head}; {hint} {self.tail}" if hint else str(self)
