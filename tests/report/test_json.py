"""app/report/json.py's `indented` against the standard library's indented JSON it shortcuts: the same
text for any document a report can hold, NaN, infinities, odd strings and empty containers included."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from app.report.json import indented

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities too: Python writes them as bare words
    | st.text()  # any code point: controls, U+2028, lone surrogates
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@given(DOCUMENTS)
def test_indented_is_the_standard_librarys_indented_json(document) -> None:
    assert indented(document) == json.dumps(document, indent=2, ensure_ascii=False)


def test_the_cases_that_go_the_standard_librarys_way() -> None:
    for document in ({"x": float("nan")}, [float("inf")], {"s": "\ud800"}, [[], {}, {"": [{}]}]):
        assert indented(document) == json.dumps(document, indent=2, ensure_ascii=False)
