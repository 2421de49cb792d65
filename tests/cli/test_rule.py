"""`opspec rule RULE_ID`: the rule, an example and its fix, exit 0; an unknown id exit 2 with the
closest ids; `--list` every id."""

from __future__ import annotations

import json

from app import reference
from app.cli import EXIT_MALFORMED, EXIT_VALID, main


def test_a_rule_with_its_example_and_fix(capsys) -> None:
    assert main(["rule", "Max.RJ"]) == EXIT_VALID
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [
        "Max.RJ (error)",
        "  In output dim 1 (J) each input's size is the largest size there, or 1.",
        "  op:    Max",
        "  spec:  ONNX Max under the SONNX profile, restriction RJ of the broadcasting rule",
        "  formerly: RJ (still read by --ignore, with a warning)",
        "  docs:  https://opspec.github.io/opspec/reference/ops/Max.html#Max.RJ",
    ]
    assert out[7] == "Example (specs/max.json: RJ: a size that is neither the largest nor 1):"
    assert out[9].startswith("  error Max.RJ at inputs[1].shape[0]: input 1 has size 3 in dim 1")
    assert out[11] == "Fix: set inputs[1].shape[0] to 1"
    assert json.loads(out[12])["inputs"][1]["shape"] == [1]


def test_the_docs_url_is_the_setting(capsys, monkeypatch) -> None:
    from app.core.config import get_settings

    monkeypatch.setenv("OPSPEC_DOCS_URL", "http://docs.internal/opspec")
    get_settings.cache_clear()
    try:
        assert main(["rule", "graph.edge", "--format", "json"]) == EXIT_VALID
    finally:
        get_settings.cache_clear()
    rule = json.loads(capsys.readouterr().out)
    assert rule["url"] == "http://docs.internal/opspec/reference/files-and-graphs.html#graph.edge"
    assert rule["example"] is None and rule["op"] is None


def test_a_former_id_answers_as_the_rule_it_became(capsys) -> None:
    assert main(["rule", "C1"]) == EXIT_VALID
    captured = capsys.readouterr()
    assert captured.out.startswith("Max.C1 (error)\n")
    assert captured.err == "opspec rule: C1 is the former id of Max.C1 (a rule id names its op first)\n"


def test_an_unknown_id_exits_2_naming_the_closest(capsys) -> None:
    assert main(["rule", "ReduceMax.axes.rnage"]) == EXIT_MALFORMED
    assert capsys.readouterr().err == (
        "opspec rule: no rule has the id 'ReduceMax.axes.rnage'; did you mean 'ReduceMax.axes.range', "
        "'ReduceMean.axes.range' or 'ReduceMax.axes.rank'? (opspec rule --list lists every id)\n"
    )
    assert main(["rule", "zzzzzzzz"]) == EXIT_MALFORMED
    assert "did you mean" not in capsys.readouterr().err


def test_list_names_every_rule_and_each_answers(capsys) -> None:
    assert main(["rule", "--list"]) == EXIT_VALID
    ids = capsys.readouterr().out.split()
    assert ids == list(reference.book())
    for rule in ids[:: len(ids) // 40]:  # a spread of them, each answered
        assert main(["rule", rule]) == EXIT_VALID
        assert capsys.readouterr().out.startswith(f"{rule} (")


def test_no_id_and_no_list_is_a_usage_error(capsys) -> None:
    try:
        main(["rule"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "give a rule id, or --list" in capsys.readouterr().err
