"""`opspec check`: the verdicts CI reads, and exit codes it can trust (0 valid, 1 invalid, 2 malformed)."""

from __future__ import annotations

import json
import subprocess
import sys

from app.cli import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main

GOOD = {"kind": "ReduceMax", "attrs": {"axes": [1]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
BAD = {"kind": "ReduceMax", "attrs": {"axes": [4]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}


def write(tmp_path, name, document) -> str:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def test_valid_file_exits_0(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, "good.json", GOOD)]) == EXIT_VALID
    assert "ReduceMax: valid -> f32[2]" in capsys.readouterr().out


def test_invalid_descriptor_exits_1_and_names_the_rule(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, "ops.json", {"ops": [GOOD, BAD]})]) == EXIT_INVALID
    out = capsys.readouterr().out
    assert "[1]: ReduceMax: INVALID" in out
    assert (
        "error ReduceMax.axes.range at attrs.axes[0]: axis 4 is out of range [-2, 1] for src of rank 2" in out
    )


def test_malformed_wins_over_invalid(tmp_path, capsys) -> None:
    files = [write(tmp_path, "bad.json", [BAD]), write(tmp_path, "typo.json", {**GOOD, "attrs": {"axis": 1}})]
    assert main(["check", *files]) == EXIT_MALFORMED
    assert "malformed: attrs.axis: unknown attribute 'axis' for ReduceMax" in capsys.readouterr().out


def test_unreadable_json_exits_2(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, "broken.json", "{not json")]) == EXIT_MALFORMED
    assert "cannot read a JSON descriptor" in capsys.readouterr().err


def test_json_output(tmp_path, capsys) -> None:
    assert main(["check", "--json", write(tmp_path, "good.json", GOOD)]) == EXIT_VALID
    [result] = json.loads(capsys.readouterr().out)
    assert result["valid"] is True and result["outputs"] == [{"dtype": "f32", "shape": [2]}]


def test_console_script_runs_from_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", "-"],
        input=json.dumps(BAD),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == EXIT_INVALID, done.stderr
    assert "ReduceMax.axes.range" in done.stdout
