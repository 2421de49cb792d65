"""`import opspec`: the import name users write (the distribution is opspec, the code's package `app`),
with validate, evaluate, check_graph and verify answering as the HTTP routes do; an app.py in the
working directory does not shadow it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import opspec
from app.api.routes.verify import _EXAMPLE

FILES = Path(__file__).parent / "formats" / "files"
SEGMENT = _EXAMPLE  # POST /v1/verify's own example


def test_the_four_names_answer_as_the_routes(client) -> None:
    assert opspec.validate(SEGMENT) == client.post("/v1/validate", json=SEGMENT).json()
    route = client.post("/v1/verify", json=SEGMENT).json()
    mine = opspec.verify(SEGMENT)
    assert (mine["kind"], mine["conformant"]) == (route["kind"], route["conformant"])
    graph = FILES / "onednn_graph.json"
    answer = client.post(
        "/v1/graphs/validate", content=graph.read_bytes(), headers={"content-type": "application/json"}
    )
    checked = opspec.check_graph(graph)
    assert checked == opspec.check_graph(graph.read_bytes())
    assert (checked["format"], checked["valid"]) == (answer.json()["format"], answer.json()["valid"])
    assert [n["kind"] for n in checked["nodes"]] == [n["kind"] for n in answer.json()["nodes"]]


def test_an_app_py_in_the_working_directory_does_not_shadow_it(tmp_path) -> None:
    (tmp_path / "app.py").write_text("raise SystemExit('the user's own app.py was imported')\n")
    probe = (
        "from opspec import validate, evaluate, check_graph, verify\n"
        "print(validate({'kind': 'Max', 'inputs': [{'dtype': 'f32', 'shape': [2]}]})['valid'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True\n"
