"""No graph file whatever gives a 500: each format's valid file, cut, flipped and spliced at random."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.test_graphs import IR, onnx_model

FILES = Path(__file__).parent.parent / "formats" / "files"
MEDIA = {"onednn": "application/json", "openvino": "application/xml", "onnx": "application/octet-stream"}
SEEDS = {
    "onednn": (FILES / "onednn_graph.json").read_bytes(),
    "openvino": IR,
    "onnx": onnx_model(),
}


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(SEEDS[name])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if action == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        elif action == "insert":
            data[at:at] = draw(
                st.sampled_from(
                    [b"-1", b"-5", b"<", b"{", b"]", b'"', b"\x08", b"..", b"\xff", b"99999999999999999999"]
                )
            )
        else:
            del data[at:]
    return name, bytes(data), draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated())
def test_no_500(client, case) -> None:
    name, data, named = case
    url = f"/v1/graphs/validate?format={name}" if named else "/v1/graphs/validate"
    response = client.post(url, content=data, headers={"content-type": MEDIA[name]})
    assert response.status_code in (200, 413, 422), (response.status_code, response.text[:2000])
    if response.status_code == 200:
        assert response.json()["format"] in SEEDS
