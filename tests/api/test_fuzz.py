"""No input whatever gives a 500: random near-descriptors against every route that takes one."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.dtypes import DTYPES
from app.ops import BY_NAME, REGISTRY

ATTR_NAMES = sorted(
    {
        name
        for spec in REGISTRY.values()
        for name in spec.descriptor.model_fields["attrs"].annotation.model_fields
    }
    | {"topk", "empty_segment_value", "bogus"}
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["nan", "inf", "-inf", "ZERO", "lowest", "N", "?", ""]),
)
small_ints = st.integers(-3, 5)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=12)
dims = st.one_of(small_ints, st.sampled_from(["N", "M", "?", None, -1]))


@st.composite
def tensors(draw):
    tensor = {
        "dtype": draw(st.sampled_from([*DTYPES, "F32", "int64", "x"])),
        "shape": draw(st.one_of(st.none(), st.lists(dims, max_size=4))),
    }
    if draw(st.booleans()):
        tensor["data"] = draw(st.one_of(json_values, st.lists(st.lists(small_ints, max_size=3), max_size=3)))
    if draw(st.integers(0, 4)) == 0:
        tensor["strides"] = draw(st.lists(small_ints, max_size=4))
    if draw(st.integers(0, 4)) == 0:
        tensor["quant"] = draw(
            st.dictionaries(
                st.sampled_from(["scale", "zero_point", "dim", "frac_bits", "scale_frac_bits"]), small_ints
            )
        )
    return tensor


@st.composite
def descriptors(draw):
    body = {
        "kind": draw(st.sampled_from([*BY_NAME, "Nope"])),
        "attrs": draw(st.dictionaries(st.sampled_from(ATTR_NAMES), json_values, max_size=3)),
        "inputs": draw(st.lists(tensors(), max_size=4)),
    }
    if draw(st.booleans()):
        body["outputs"] = draw(st.lists(tensors(), max_size=2))
    return body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(descriptors(), st.sampled_from(["/v1/validate", "/v1/evaluate"]))
def test_no_500(client, body, route) -> None:
    response = client.post(route, json=body)
    assert response.status_code in (200, 413, 422), (response.status_code, response.text)
