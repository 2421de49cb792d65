"""`opspec check` as a new user and a CI job meet it (issue 18): a folder with nothing to check fails,
files are selected by globs (on the command line and in [tool.opspec]), rules can be ignored, a closed
pipe and Ctrl-C end quietly, --quiet, colour, the gcc format, a start-up that imports only what the
command needs, and settings a command does not use cannot stop it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main
from app.cli import output as cli
from app.core.config import get_settings
from tests.cli.test_check import BAD, GOOD, WARNS, write

OPSPEC = Path(sys.executable).with_name("opspec")


@pytest.fixture
def in_tmp(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_folder_with_nothing_to_check_exits_2_and_says_so(in_tmp, capsys) -> None:
    (in_tmp / "empty").mkdir()
    write(in_tmp, "empty/notes.txt", "no descriptors here")
    assert main(["check", "empty"]) == EXIT_MALFORMED
    err = capsys.readouterr().err
    assert err.startswith("opspec check: no descriptor or graph files in empty")


def test_package_json_and_friends_are_passed_over_in_a_folder(in_tmp, capsys) -> None:
    write(in_tmp, "m/good.json", GOOD)
    write(in_tmp, "m/package.json", {"name": "web", "version": "1.0.0"})
    write(in_tmp, "m/tsconfig.json", {"compilerOptions": {}})
    assert main(["check", "--format", "json", "m"]) == EXIT_VALID
    assert [f["path"] for f in json.loads(capsys.readouterr().out)["files"]] == ["m/good.json"]


def test_include_and_exclude_select_a_folders_files(in_tmp, capsys) -> None:
    write(in_tmp, "m/ops/good.json", GOOD)
    write(in_tmp, "m/fixtures/bad.json", BAD)
    write(in_tmp, "m/other.json", BAD)
    assert main(["check", "m", "--exclude", "fixtures", "--exclude", "other.json"]) == EXIT_VALID
    assert main(["check", "m", "--include", "m/ops/*.json"]) == EXIT_VALID
    assert main(["check", "m", "--include", "ops/*.json"]) == EXIT_VALID  # relative to the folder too
    assert main(["check", "m", "--include", "*.json"]) == EXIT_INVALID
    capsys.readouterr()
    assert main(["check", "m", "--include", "nothing/*.json"]) == EXIT_MALFORMED
    assert "no descriptor or graph files in m" in capsys.readouterr().err


def test_a_named_file_is_read_whatever_the_globs(in_tmp) -> None:
    bad = write(in_tmp, "bad.json", BAD)
    assert main(["check", bad, "--exclude", "*.json"]) == EXIT_INVALID


def test_pyproject_tool_opspec_sets_include_exclude_and_ignore(in_tmp, capsys) -> None:
    write(in_tmp, "m/good.json", GOOD)
    write(in_tmp, "m/fixtures/broken.json", "{")
    write(in_tmp, "m/warns.json", WARNS)
    assert main(["check", "--strict", "m"]) == EXIT_MALFORMED
    (in_tmp / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.opspec]\nexclude = ["fixtures"]\nignore = ["ReduceMax.onednn.*"]\n'
    )
    assert main(["check", "--strict", "m"]) == EXIT_VALID
    (in_tmp / "sub").mkdir()
    os.chdir(in_tmp / "sub")  # the nearest pyproject.toml above the working directory
    assert main(["check", "--strict", "../m"]) == EXIT_VALID
    (in_tmp / "pyproject.toml").write_text('[tool.opspec]\nexclude = "fixtures"\n')
    capsys.readouterr()
    assert main(["check", "../m"]) == EXIT_MALFORMED
    assert "[tool.opspec] exclude must be a list of strings" in capsys.readouterr().err


def test_ignore_drops_a_rules_findings_and_the_verdict_follows(in_tmp, capsys) -> None:
    bad = write(in_tmp, "bad.json", BAD)
    assert main(["check", bad, "--ignore", "ReduceMax.axes.range"]) == EXIT_VALID
    assert capsys.readouterr().out.startswith("1 file, 1 descriptor: 1 valid, 0 invalid")
    assert main(["check", bad, "--ignore", "Max.*"]) == EXIT_INVALID
    assert main(["check", bad, "--ignore", "ReduceMax.*"]) == EXIT_VALID
    broken = write(in_tmp, "broken.json", "{")
    assert main(["check", broken, "--ignore", "*"]) == EXIT_MALFORMED  # unreadable is never ignored


MIXED_MAX = '{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}, {"dtype": "u8", "shape": [3]}]}'


def test_a_former_rule_id_still_ignores_with_one_warning_naming_the_new_id(in_tmp, capsys) -> None:
    """Max's SONNX ids were bare (C1, RI) before every rule id named its op first: a CI config written
    then keeps working, and is told once per pattern what to write instead."""
    bad = write(in_tmp, "max.json", MIXED_MAX)
    assert main(["check", bad]) == EXIT_INVALID
    assert "error Max.C1:" in capsys.readouterr().out
    assert main(["check", bad, "--ignore", "C1", "--ignore", "R?"]) == EXIT_VALID
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "opspec check: --ignore 'C1' names the former rule id C1, now Max.C1 (a rule id names its op first); "
        "it still works but is deprecated: write Max.C1"
    )
    assert err[1].startswith("opspec check: --ignore 'R?' names the former rule ids RI, RJ, RK,")
    assert err[1].endswith("write Max.R?") and "now Max.RI, Max.RJ," in err[1]
    assert len(err) == 2  # once each
    (in_tmp / "pyproject.toml").write_text('[tool.opspec]\nignore = ["C1", "RI"]\n')
    assert main(["check", "--format", "json", bad]) == EXIT_VALID
    err = capsys.readouterr().err
    assert "[tool.opspec] ignore 'C1' names the former rule id C1, now Max.C1" in err
    assert "[tool.opspec] ignore 'RI' names the former rule id RI, now Max.RI" in err
    assert main(["check", bad, "--ignore", "Max.C1", "--ignore", "Max.RI"]) == EXIT_VALID
    assert capsys.readouterr().err.count("deprecated") == 2  # the config's, not the new ids'


def test_quiet_writes_the_summary_line_only(in_tmp, capsys) -> None:
    bad = write(in_tmp, "bad.json", BAD)
    assert main(["check", "--quiet", bad]) == EXIT_INVALID
    assert capsys.readouterr().out.splitlines() == [
        "1 file (1 invalid), 1 descriptor: 0 valid, 1 invalid; 1 error, 0 warnings"
    ]


def test_colour_at_a_terminal_off_with_no_color_forced_with_force_color(monkeypatch) -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert cli.colour(Terminal()) and not cli.colour(object())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not cli.colour(Terminal())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.colour(object())


def test_forced_colour_paints_severities_and_plain_output_has_no_escapes(in_tmp, monkeypatch, capsys) -> None:
    bad = write(in_tmp, "bad.json", BAD)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert main(["check", bad]) == EXIT_INVALID
    out = capsys.readouterr().out
    assert "\x1b[31merror\x1b[0m ReduceMax.axes.range" in out
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["check", bad]) == EXIT_INVALID
    assert "\x1b[" not in capsys.readouterr().out
    assert main(["check", bad, "-o", str(in_tmp / "report.txt")]) == EXIT_INVALID  # a file: never coloured
    assert "\x1b[" not in (in_tmp / "report.txt").read_text()


def test_gcc_format_is_what_problem_matchers_read(in_tmp, capsys) -> None:
    write(in_tmp, "bad.json", BAD)
    assert main(["check", "--format", "gcc", "bad.json"]) == EXIT_INVALID
    captured = capsys.readouterr()
    assert captured.out == (
        "bad.json:1:42: error: axis 4 is out of range [-2, 1] for src of rank 2 [ReduceMax.axes.range]\n"
    )
    assert captured.err.startswith("1 file (1 invalid), 1 descriptor: 0 valid, 1 invalid")


def test_json_entries_carry_valid_as_the_api_says_it(in_tmp, capsys) -> None:
    good, bad = write(in_tmp, "good.json", GOOD), write(in_tmp, "bad.json", BAD)
    main(["check", "--format", "json", good, bad])
    files = json.loads(capsys.readouterr().out)["files"]
    assert [unit["valid"] for file in files for unit in file["units"]] == [True, False]


def test_sarif_names_the_projects_url_as_pyproject_does(in_tmp, capsys) -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    main(["check", "--format", "sarif", write(in_tmp, "good.json", GOOD)])
    driver = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == project["urls"]["Repository"]


def test_a_setting_the_command_does_not_use_cannot_stop_it(in_tmp, monkeypatch, capsys) -> None:
    good = write(in_tmp, "good.json", GOOD)
    monkeypatch.setenv("OPSPEC_PORT", "eighty")
    get_settings.cache_clear()
    try:
        assert main(["check", good]) == EXIT_VALID
        monkeypatch.setenv("OPSPEC_PORT", "eighty")
        monkeypatch.setenv("OPSPEC_MAX_ELEMENTS", "0")  # one check uses: still a stop
        get_settings.cache_clear()
        assert main(["check", good]) == EXIT_MALFORMED
    finally:
        monkeypatch.delenv("OPSPEC_PORT", raising=False)
        monkeypatch.delenv("OPSPEC_MAX_ELEMENTS", raising=False)
        get_settings.cache_clear()
    assert "OPSPEC_MAX_ELEMENTS='0' is not valid" in capsys.readouterr().err


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(OPSPEC), *args], capture_output=True, text=True, check=False, **kwargs)


def test_a_closed_pipe_ends_quietly_with_the_runs_exit_code(tmp_path) -> None:
    for index in range(300):
        write(tmp_path, f"m/bad{index:03}.json", BAD)
    done = subprocess.run(
        f"set -o pipefail; {OPSPEC} check {tmp_path / 'm'} | head -2",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        check=False,
    )
    assert len(done.stdout.splitlines()) == 2
    assert done.stderr == "", done.stderr
    assert done.returncode == EXIT_INVALID  # the verdict, not a crash


def _wait_until_idle(pid: int, timeout: float = 60.0) -> None:
    """Until the process has used no CPU for 0.5 s: its imports done, it waits on a read. (One signal
    only: a second one, sent while the first is being handled, would test something else.)"""

    def cpu() -> int:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks

    deadline = time.monotonic() + timeout
    last, still = cpu(), 0
    while time.monotonic() < deadline and still < 5:
        time.sleep(0.1)
        now = cpu()
        still = still + 1 if now == last else 0
        last = now


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_prints_one_line_and_exits_130(tmp_path, jobs) -> None:
    """SIGINT while reading standard input (a check waiting on a pipe that never ends; with --jobs the
    parent reads it before any worker starts). The child starts with SIGINT's default action: a test run
    may ignore SIGINT, and a child inheriting that would never see the signal (Python installs its
    KeyboardInterrupt handler only where SIGINT is not ignored)."""
    files = ["-"] if jobs == 1 else [write(tmp_path, "good.json", GOOD), "-", "--jobs", str(jobs)]
    process = subprocess.Popen(
        [str(OPSPEC), "check", *files],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _wait_until_idle(process.pid)  # started and blocked on stdin: its CPU time stops growing
        process.send_signal(signal.SIGINT)
        try:
            # wait, not communicate: communicate closes stdin at once, and a read that sees that end of
            # input before the signal is handled reads an empty descriptor (exit 2), not an interrupt
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail("no exit after SIGINT")
        err = process.stderr.read()
    finally:
        for pipe in (process.stdin, process.stdout, process.stderr):
            pipe.close()
    assert process.returncode == EXIT_INTERRUPTED
    assert err.decode().splitlines() == ["opspec: interrupted"]


def test_version_and_help_import_no_numpy_pydantic_or_ops() -> None:
    """`opspec --version` took ~1 s idle (2 s under load): it imported the whole checker first."""
    probe = (
        "import sys\n"
        "from app import cli\n"
        "for argv in (['--version'], ['check', '--help']):\n"
        "    try:\n"
        "        cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = [m for m in ('numpy', 'pydantic', 'app.ops', 'fastapi', 'app.core.config') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "HEAVY []"
    assert done.stdout.startswith("opspec ")


def test_check_imports_only_what_checking_needs(tmp_path) -> None:
    """`opspec check` of one file imported pydantic-settings (a third of its start-up) and the HTTP
    stack's modules it never uses."""
    good = write(tmp_path, "good.json", GOOD)
    probe = (
        "import sys\n"
        "from app import cli\n"
        f"assert cli.main(['check', {good!r}]) == 0\n"
        "unused = ('pydantic_settings', 'fastapi', 'starlette', 'uvicorn', 'onnx', 'tqdm', 'tomllib', 'difflib')\n"
        "print('UNUSED', [m for m in unused if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.splitlines()[-1] == "UNUSED []"


def test_the_console_script_exits_with_mains_code_and_leaves_the_heap_to_the_process_end(monkeypatch) -> None:
    """`opspec` (app.cli:run) exits with main's code; the heap it leaves is frozen, so the interpreter's
    last collection does not walk a zoo's report (tests calling main keep their collector as it was)."""
    import gc

    from app.cli import command

    monkeypatch.setattr(command, "main", lambda: 1)
    before = gc.get_freeze_count()
    try:
        with pytest.raises(SystemExit) as exited:
            command.run()
        assert exited.value.code == 1
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
