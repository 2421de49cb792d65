"""`opspec merge` (issue 30): a zoo checked as N shards, each a process of its own as N machines or pods
run it, then merged, gives the bytes and the exit code of one `opspec check` over every file, in every
format and with every option; reports that are not every shard of one run are refused with exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.cli import EXIT_MALFORMED
from tests.cli.test_check_graphs import BENCHDNN, folder
from tests.cli.test_command import OPSPEC
from tests.cli.test_pool import write_mixed
from tests.formats.models import if_model, magika_like

SHARDS = 3
LINK_BASE = "http://opspec.internal/"


@pytest.fixture(scope="module")
def zoo(tmp_path_factory) -> Path:
    """benchdnn's graphs beside every other format and verdict: IR, ONNX (with nodes typed by ONNX's
    inference, subgraphs and notes), descriptor files valid, invalid, with a warning, not JSON, not a
    descriptor, and a file that cannot be read."""
    root = tmp_path_factory.mktemp("zoo")
    # benchdnn's single ops (a kind nothing checks among them), its int8 patterns (--exclude int8 below)
    # and the pattern with a broken attribute: ~150 graphs, enough for three shards of some size
    shutil.copytree(BENCHDNN / "op", root / "benchdnn" / "op")
    shutil.copytree(BENCHDNN / "pattern" / "int8", root / "benchdnn" / "pattern" / "int8")
    shutil.copy(BENCHDNN / "pattern" / "f32" / "avgpool_3d_chain_fusion.json", root / "benchdnn")
    (root / "formats").mkdir()
    folder(root / "formats")
    (root / "onnx").mkdir()
    (root / "onnx" / "magika_like.onnx").write_bytes(magika_like())
    (root / "onnx" / "if_model.onnx").write_bytes(if_model())
    write_mixed(root / "mixed")
    return root


def opspec(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, **(env or {})}
    return subprocess.run([str(OPSPEC), *args], cwd=cwd, capture_output=True, env=environment, timeout=300)


def shard_reports(zoo: Path, folder: Path, options: list[str]) -> Path:
    """The zoo checked as SHARDS processes, each writing its JSON report into `folder`."""
    folder.mkdir()
    for index in range(1, SHARDS + 1):
        jobs = ["--jobs", "2"] if index == 1 else []  # a shard may use its machine's cores too
        done = opspec(
            zoo, "check", ".", "--shard", f"{index}/{SHARDS}", *jobs, *options,
            "--format", "json", "-o", str(folder / f"shard-{index}.json"),
        )  # fmt: skip
        assert done.returncode in (0, 1, 2) and (folder / f"shard-{index}.json").stat().st_size, done.stderr
    return folder


@pytest.fixture(scope="module")
def plain_shards(zoo, tmp_path_factory) -> Path:
    return shard_reports(zoo, tmp_path_factory.mktemp("plain") / "shards", [])


# (options of the check, options of the report: format and text's own), as a CI job would give them
RUNS = {
    "plain": (
        [],
        [
            ["--format", "text"],
            ["--format", "text", "--verbose", "--link-base", LINK_BASE],
            ["--format", "text", "--quiet"],
            ["--format", "json"],
            ["--format", "sarif"],
            ["--format", "junit"],
            ["--format", "github"],
            ["--format", "gcc"],
        ],
    ),
    "strict": (
        ["--strict", "--require-checked", "--ignore", "*.onednn.dtypes", "--exclude", "int8"],
        [["--format", "text"], ["--format", "json"], ["--format", "junit"]],  # the formats they change
    ),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_the_shards_merged_are_one_runs_report_byte_for_byte_in_every_format(
    zoo, plain_shards, tmp_path, run
) -> None:
    check_options, report_options = RUNS[run]
    shards = shard_reports(zoo, tmp_path / "shards", check_options) if check_options else plain_shards
    for options in report_options:
        single = opspec(zoo, "check", ".", *check_options, *options)
        merged = opspec(zoo, "merge", str(shards), *options)
        assert merged.stdout == single.stdout, options
        assert merged.stderr == single.stderr, options  # the summary line on stderr too
        assert merged.returncode == single.returncode == EXIT_MALFORMED  # the zoo has unreadable files
    assert (
        b"ReduceMax.axes.range" in single.stdout
        and b"not checked" in opspec(zoo, "merge", str(shards)).stdout
    )


def test_colour_and_output_files_merge_as_they_check(zoo, plain_shards, tmp_path) -> None:
    shards = plain_shards
    single = opspec(zoo, "check", ".", env={"FORCE_COLOR": "1"})
    assert opspec(zoo, "merge", str(shards), env={"FORCE_COLOR": "1"}).stdout == single.stdout
    assert b"\x1b[" in single.stdout
    opspec(zoo, "check", ".", "--format", "sarif", "-o", str(tmp_path / "single.sarif"))
    shard_files = sorted(str(path) for path in shards.glob("*.json"))  # files, not a folder, in any order
    merged = opspec(
        zoo, "merge", *reversed(shard_files), "--format", "sarif", "-o", str(tmp_path / "merged.sarif")
    )
    assert merged.returncode == EXIT_MALFORMED
    assert (tmp_path / "merged.sarif").read_bytes() == (tmp_path / "single.sarif").read_bytes()


def test_reports_that_are_not_every_shard_of_one_run_are_refused(zoo, plain_shards, tmp_path) -> None:
    shards = Path(shutil.copytree(plain_shards, tmp_path / "shards"))
    (shards / "shard-2.json").unlink()
    done = opspec(zoo, "merge", str(shards), "-o", str(tmp_path / "merged.txt"))
    assert (done.returncode, done.stdout) == (EXIT_MALFORMED, b"")
    assert done.stderr == b"opspec merge: shard 2/3 missing: the merge would not be the whole run\n"
    assert not (tmp_path / "merged.txt").exists()
    whole = tmp_path / "whole.json"
    opspec(zoo, "check", "mixed", "--format", "json", "-o", str(whole))
    done = opspec(zoo, "merge", str(whole))
    assert done.returncode == EXIT_MALFORMED and b"the report of a whole run, not of a shard" in done.stderr
    document = json.loads((shards / "shard-1.json").read_text())
    document["files"][0]["units"] = []
    (shards / "shard-1.json").write_text(json.dumps(document))
    done = opspec(zoo, "merge", str(shards / "shard-1.json"))
    assert done.stderr.startswith(
        b"opspec merge: " + str(shards / "shard-1.json").encode() + b": its summary"
    )


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        (lambda folder: None, b"opspec merge: no *.json report in "),
        (lambda folder: (folder / "x.json").write_text("{"), b"x.json: not JSON: "),
        (lambda folder: (folder / "x.json").mkdir(), b"opspec merge: cannot read "),
    ],
)
def test_what_cannot_be_merged_is_one_line_and_exit_2(tmp_path, setup, said) -> None:
    setup(tmp_path)
    done = opspec(
        tmp_path, "merge", str(tmp_path), env={"OPSPEC_MAX_BODY_BYTES": "nonsense"}
    )  # reads no settings
    assert done.returncode == EXIT_MALFORMED and done.stdout == b""
    assert said in done.stderr and done.stderr.count(b"\n") == 1
