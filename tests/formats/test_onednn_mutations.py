"""benchdnn's multi-op graphs with one thing changed, each judged by oneDNN 3.13 itself (add_op, finalize,
compile, recorded by tests/formats/oracle/record_mutations.py): opspec refuses what oneDNN refuses, with
one error at the place of the change and the rule the record names, and accepts what it accepts, save
where the record says why opspec differs (docs/graph-rules.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from app.core.config import Settings
from app.formats import graphs
from tests.formats.oracle.record_mutations import BENCHDNN, OUT, apply_edits

MUTATIONS = json.loads(OUT.read_text())
DOCUMENTS = {name: json.loads((BENCHDNN / name).read_text()) for name in {m["file"] for m in MUTATIONS}}


def _errors(result: graphs.GraphResult) -> list:
    found = [d for d in result.diagnostics if d.severity == "error"]
    return found + [d for node in result.nodes for d in node.diagnostics if d.severity == "error"]


def _at(path: str, place: str) -> bool:
    return path == place or path.startswith((place + ".", place + "["))


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[f"{m['file']}:{m['kind']}" for m in MUTATIONS])
def test_opspec_judges_the_mutation_as_onednn_does(mutation) -> None:
    document = apply_edits(DOCUMENTS[mutation["file"]], mutation["edits"])
    result = graphs.check(json.dumps(document, indent=2).encode(), Settings())
    errors = _errors(result)
    expected = mutation["opspec"]
    assert bool(errors) == expected["refuses"], (mutation["onednn"], mutation.get("differs"), errors)
    if expected["rule"] is not None:
        # one fault, one finding, at the place of the change
        [error] = errors
        assert error.rule == expected["rule"] and _at(error.path, mutation["path"]), error


def test_the_record_covers_every_kind_of_change_and_both_verdicts() -> None:
    verdicts = Counter((m["kind"].split(".")[0], m["onednn"]["verdict"]) for m in MUTATIONS)
    assert {kind for kind, _ in verdicts} == {"edge", "input", "output", "mid", "field", "op"}
    assert verdicts["edge", "refuses"] > 500 and verdicts["field", "accepts"] > 50
    # every departure from oneDNN is the record's own, with its reason
    assert all(
        m["opspec"]["refuses"] == (m["onednn"]["verdict"] == "refuses")
        for m in MUTATIONS
        if "differs" not in m
    )


def test_benchdnns_own_graphs_keep_their_verdicts() -> None:
    """The 283 graphs as oneDNN ships them: one error (tensor 4257, declared two ways), the rest warnings
    where the file names an older oneDNN than the features it uses, or ports that name nothing."""
    rules: Counter[tuple[str, str]] = Counter()
    for path in sorted(BENCHDNN.rglob("*.json")):
        for d in graphs.check(path.read_bytes(), Settings()).diagnostics:
            rules[d.severity, d.rule] += 1
    assert rules == {
        ("error", "graph.edge.shape"): 1,
        ("warning", "graph.version"): 26,
        ("warning", "graph.ports"): 4,
    }


def test_the_files_are_benchdnns() -> None:
    assert all(Path(BENCHDNN / name).is_file() for name in DOCUMENTS)
