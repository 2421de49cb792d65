"""`opspec check`: exit codes CI can trust (0 valid, 1 invalid, 2 unreadable or not a descriptor), every
finding at its line and column, files, directories and stdin, any format to stdout or --output."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

from app.cli import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main
from app.core.config import get_settings
from app.formats.readers import suffixes

GOOD = {"kind": "ReduceMax", "attrs": {"axes": [1]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
BAD = {"kind": "ReduceMax", "attrs": {"axes": [4]}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}
WARNS = {"kind": "ReduceMax", "attrs": {"axes": []}, "inputs": [{"dtype": "f32", "shape": [2, 3]}]}


def write(tmp_path, name, document) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def test_valid_file_exits_0(tmp_path, capsys) -> None:
    assert main(["check", write(tmp_path, "good.json", GOOD)]) == EXIT_VALID
    assert capsys.readouterr().out == "1 file, 1 descriptor: 1 valid, 0 invalid; 0 errors, 0 warnings\n"


def test_invalid_descriptor_exits_1_with_the_line_and_column_of_the_value(tmp_path, capsys) -> None:
    text = '{"ops": [\n  ' + json.dumps(GOOD) + ",\n  " + json.dumps(BAD) + "\n]}"
    name = write(tmp_path, "ops.json", text)
    assert main(["check", name]) == EXIT_INVALID
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"{name}:3:44: error ReduceMax.axes.range: axis 4 is out of range [-2, 1] for src of rank 2"
    )
    assert text.splitlines()[2][43] == "4"


def test_malformed_wins_over_invalid(tmp_path, capsys) -> None:
    files = [write(tmp_path, "bad.json", [BAD]), write(tmp_path, "typo.json", {**GOOD, "attrs": {"axis": 1}})]
    assert main(["check", *files]) == EXIT_MALFORMED
    assert "error ReduceMax.attrs.unknown: unknown attribute 'axis' for ReduceMax" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        ('{"kind": "ReduceMax",\n  "attrs": }', "2:12", "error opspec.json: not JSON: Expecting value"),
        (b"[\xff]", "1:2", "error opspec.read: not UTF-8 text"),
        ("[" * 100_000, "1:257", "error opspec.json: not a descriptor: nesting deeper than 256"),
        ('[{"kind": "Nope"}]', "1:11", "error opspec.descriptor: unknown kind 'Nope'"),
        (
            '{"ops": [\n {"kind": "ReduceMax", "attrs": {}}]}',
            "2:2",
            "error opspec.descriptor: inputs is required",
        ),
        (
            "[1]",
            "1:2",
            "error opspec.descriptor: a descriptor is a JSON object with kind, attrs and inputs; this is a number",
        ),
    ],
)
def test_an_unreadable_file_is_a_finding_with_its_place_never_a_traceback(
    tmp_path, capsys, content, where, message
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["check", str(path)]) == EXIT_MALFORMED
    assert capsys.readouterr().out.startswith(f"{path}:{where}: {message}")


@pytest.mark.parametrize("command", ["check", "verify"])
def test_a_bad_setting_exits_2_in_one_line_for_check_and_verify(
    tmp_path, capsys, monkeypatch, command
) -> None:
    monkeypatch.setenv("OPSPEC_MAX_ELEMENTS", "0")
    get_settings.cache_clear()
    try:
        assert main([command, write(tmp_path, "good.json", GOOD)]) == EXIT_MALFORMED
    finally:
        monkeypatch.delenv("OPSPEC_MAX_ELEMENTS")
        get_settings.cache_clear()
    assert capsys.readouterr().err.splitlines() == [
        f"opspec {command}: OPSPEC_MAX_ELEMENTS='0' is not valid: Input should be greater than or equal to 1"
    ]


def test_a_missing_file_exits_2(tmp_path, capsys) -> None:
    assert main(["check", str(tmp_path / "nope.json")]) == EXIT_MALFORMED
    assert "error opspec.read: cannot read the file: No such file or directory" in capsys.readouterr().out


def test_strict_makes_warnings_fail(tmp_path) -> None:
    name = write(tmp_path, "warns.json", WARNS)
    assert main(["check", name]) == EXIT_VALID
    assert main(["check", "--strict", name]) == EXIT_INVALID


def test_a_directory_is_searched_recursively_for_json(tmp_path, capsys) -> None:
    write(tmp_path, "a/good.json", GOOD)
    write(tmp_path, "a/b/bad.json", BAD)
    write(tmp_path, "a/notes.txt", "not a descriptor")
    write(tmp_path, "a/.hidden/broken.json", "{")
    assert main(["check", "--format", "json", str(tmp_path / "a")]) == EXIT_INVALID
    document = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in document["files"]] == [
        str(tmp_path / "a/good.json"),
        str(tmp_path / "a/b/bad.json"),
    ]
    assert document["summary"]["invalid"] == 1 and document["exit_code"] == EXIT_INVALID


def test_output_file_gets_the_report_and_stderr_the_summary(tmp_path, capsys) -> None:
    report = tmp_path / "out" / "report.sarif"
    report.parent.mkdir()
    assert main(["check", write(tmp_path, "bad.json", BAD), "--format", "sarif", "-o", str(report)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("1 file (1 invalid), 1 descriptor: 0 valid, 1 invalid;")
    [result] = json.loads(report.read_text())["runs"][0]["results"]
    assert result["ruleId"] == "ReduceMax.axes.range"


def test_help_names_every_extension_a_directory_walk_reads(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    help_text = capsys.readouterr().out
    assert all(f"*{suffix}" in help_text for suffix in suffixes())


@pytest.mark.parametrize("command", ["check", "merge"])
def test_help_lists_every_report_format_in_the_table(command, capsys) -> None:
    from app.report import FORMATS

    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = capsys.readouterr().out
    assert "{" + ",".join(row.name for row in FORMATS) + "}" in help_text  # --format's choices
    listed = help_text.split("\nformats:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed if line.startswith("  ") and not line.startswith("   ")] == [
        row.name for row in FORMATS
    ]


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == "opspec " + metadata.version("opspec") + "\n"  # the installed one


def test_one_blas_thread_unless_the_user_chose(monkeypatch, capsys) -> None:
    # OpenBLAS's pool of spinning threads cost ~0.15 s of CPU per process at numpy's import
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="OpenBLAS starts no pool on one core")
def test_numpy_loads_with_one_thread_after_the_cli_set_up() -> None:
    # The variable must be set before numpy is imported: OpenBLAS reads it once, as it starts its pool.
    count = "import numpy, os; print(len(os.listdir('/proc/self/task')))"
    limits = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    env = {key: value for key, value in os.environ.items() if key not in limits}

    def threads(code: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        return int(done.stdout)

    assert threads(count) > 1  # the pool this avoids
    assert threads("from app.cli.command import limit_blas_threads; limit_blas_threads(); " + count) == 1


def test_console_script_runs_from_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "check", "--format", "github", "-"],
        input=json.dumps(BAD),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == EXIT_INVALID, done.stderr
    assert done.stdout == (
        "::error file=stdin,line=1,col=42,title=ReduceMax.axes.range::"
        "axis 4 is out of range [-2, 1] for src of rank 2\n"
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_bar_only_at_a_terminal_and_only_for_many_files(monkeypatch) -> None:
    from app.cli import check as cli

    monkeypatch.setattr(sys, "stderr", Terminal())
    assert list(cli._progress(iter(range(3)), 3)) == [0, 1, 2]
    assert sys.stderr.getvalue() == ""
    assert list(cli._progress(iter(range(300)), 300)) == list(range(300))
    assert "0/300" in sys.stderr.getvalue()  # drawn, then cleared at the end (leave=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert list(cli._progress(iter(range(300)), 300)) == list(range(300))
    assert sys.stderr.getvalue() == ""


def test_an_output_that_cannot_be_written_exits_2_with_a_message(tmp_path, capsys) -> None:
    target = str(tmp_path / "no" / "such" / "dir.json")
    assert main(["check", write(tmp_path, "good.json", GOOD), "-o", target]) == EXIT_MALFORMED
    assert f"cannot write {target}: No such file or directory" in capsys.readouterr().err
