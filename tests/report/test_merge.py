"""app/report/merge.py: a JSON report read back renders as the report it was written from, in every
format; the shards of a run merge into the run's own report; anything that is not every shard of one
run is refused, naming why."""

from __future__ import annotations

import copy
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.report import WRITERS, text
from app.report.merge import MergeError, ReportError, merge, read
from app.report.model import RunReport, Shard
from tests.report import snapshot
from tests.report.cases import report

LINK_BASE = "http://opspec.internal/"


def renderings(run: RunReport) -> dict[str, str]:
    """The run in every format, and text with each of its options."""
    found = {name: snapshot.render(run, name) for name in WRITERS}
    for name, options in {
        "text -v": {"verbose": True},
        "text -q": {"quiet": True},
        "text --link-base": {"link_base": LINK_BASE},
        "text colour": {"colour": True},
    }.items():
        out = io.StringIO()
        text.write(run, out, **options)
        found[name] = out.getvalue()
    return found


def options(strict: bool, require_checked: bool) -> RunReport:
    run = report()
    run.strict, run.require_checked = strict, require_checked
    return run


@pytest.mark.parametrize(("strict", "require_checked"), [(False, False), (True, False), (False, True)])
def test_a_shards_json_report_read_back_renders_as_its_run_in_every_format(strict, require_checked) -> None:
    run = options(strict, require_checked)
    run.shard = Shard(1, 1, len(run.files), tuple(range(len(run.files))))
    again = read(snapshot.render(run, "json"))
    assert renderings(again) == renderings(run)
    assert again.exit_code() == run.exit_code()


def test_a_whole_runs_json_report_leaves_the_descriptors_out() -> None:
    """Only text's page links use them: read back, such a report renders as its run but for those."""
    run = report()
    text = snapshot.render(run, "json")
    assert '"descriptor"' not in text
    linked, again = renderings(run), renderings(read(text))
    assert LINK_BASE in linked.pop("text --link-base") and LINK_BASE not in again.pop("text --link-base")
    assert again == linked


def test_a_shards_report_read_back_keeps_its_shard() -> None:
    run = report()
    run.shard = Shard(2, 3, 17, (1, 4, 5, 9, 12, 16))
    again = read(snapshot.render(run, "json"))
    assert again.shard == run.shard
    assert renderings(again) == renderings(run)


def split(run: RunReport, shard_of: list[int], count: int) -> list[tuple[str, RunReport]]:
    """The run as `count` shards' JSON reports read back, file i in shard shard_of[i] (1-based)."""
    parts = []
    for index in range(1, count + 1):
        part = copy.deepcopy(run)
        kept = [i for i, k in enumerate(shard_of) if k == index]
        part.files = [part.files[i] for i in kept]
        part.rules = {rule: info for file in part.files for rule, info in file.rules.items()}
        part.shard = Shard(index, count, len(run.files), tuple(kept))
        parts.append((f"shard-{index}.json", read(snapshot.render(part, "json"))))
    return parts


@given(st.data())
def test_the_shards_merge_into_the_runs_report_however_the_files_fall(data) -> None:
    run = options(data.draw(st.booleans()), data.draw(st.booleans()))
    count = data.draw(st.integers(1, 8))
    shard_of = data.draw(st.lists(st.integers(1, count), min_size=len(run.files), max_size=len(run.files)))
    parts = data.draw(st.permutations(split(run, shard_of, count)))  # any order on the command line
    assert renderings(merge(parts)) == renderings(run)


def test_an_empty_shard_merges_too() -> None:
    run = report()
    parts = split(run, [1] * len(run.files), 3)
    assert not parts[1][1].files
    assert renderings(merge(parts)) == renderings(run)


# Refused: what is not every shard of one run


def parts_of(run: RunReport) -> list[tuple[str, RunReport]]:
    return split(run, [1 + k % 3 for k in range(len(run.files))], 3)


FILES = len(report().files)  # in the writers' report case


def test_a_missing_shard_is_refused() -> None:
    parts = parts_of(report())
    with pytest.raises(MergeError, match=r"^shard 2/3 missing: the merge would not be the whole run$"):
        merge([parts[0], parts[2]])
    with pytest.raises(MergeError, match=r"^shards 1/3, 3/3 missing"):
        merge([parts[1]])
    with pytest.raises(MergeError, match="no reports"):
        merge([])


def test_a_shard_given_twice_is_refused() -> None:
    parts = parts_of(report())
    with pytest.raises(MergeError, match=r"^shard 2/3 is given twice: shard-2.json and shard-2.json$"):
        merge([*parts, parts[1]])


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda run: setattr(run, "version", "9.9.8"), "version 9.9.8 against 9.9.9"),
        (lambda run: setattr(run, "strict", True), "--strict True against False"),
        (lambda run: setattr(run, "require_checked", True), "--require-checked True against False"),
        (lambda run: setattr(run, "shard", Shard(2, 4, FILES, run.shard.positions)), "shards 4 against 3"),
        (
            lambda run: setattr(run, "shard", Shard(2, 3, FILES + 1, run.shard.positions)),
            f"files in the run {FILES + 1} against {FILES}",
        ),
    ],
)
def test_shards_of_different_runs_are_refused(change, said) -> None:
    parts = parts_of(report())
    change(parts[1][1])
    with pytest.raises(
        MergeError, match=f"^shard-2.json and shard-1.json are not shards of one run: {said}$"
    ):
        merge(parts)


def test_shards_whose_files_overlap_or_leave_gaps_are_refused() -> None:
    parts = parts_of(report())
    second = parts[1][1]
    second.shard = Shard(2, 3, FILES, (0, 4))  # file 0 is shard 1's, file 1 no shard's
    with pytest.raises(
        MergeError, match=rf"do not make up the {FILES} files of one run \(they overlap or leave gaps\)"
    ):
        merge(parts)


def test_a_whole_runs_report_is_not_a_shard() -> None:
    whole = read(snapshot.render(report(), "json"))
    with pytest.raises(MergeError, match=r"^whole.json: the report of a whole run, not of a shard"):
        merge([("whole.json", whole)])


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (b"\xff{", "not JSON"),
        ("[1, 2]", "not a JSON report of opspec"),
        ('{"files": []}', "not a JSON report of opspec"),
    ],
)
def test_what_is_no_report_is_refused(text, said) -> None:
    with pytest.raises(ReportError, match=said):
        read(text)


def test_a_field_of_the_wrong_type_is_named_with_its_place() -> None:
    document = json.loads(snapshot.render(report(), "json"))
    document["files"][1]["units"][0]["findings"][0]["severity"] = "fatal"
    with pytest.raises(
        ReportError,
        match=r"^Invalid enum value 'fatal' - at `\$.files\[1\].units\[0\].findings\[0\].severity`$",
    ):
        read(json.dumps(document))


@pytest.mark.parametrize("cut", ["unit", "finding", "exit_code"])
def test_a_report_whose_summary_its_files_do_not_give_is_refused(cut) -> None:
    """An edited or truncated report cannot pass for what the run found."""
    document = json.loads(snapshot.render(report(), "json"))
    if cut == "unit":
        del document["files"][1]["units"][0]
    elif cut == "finding":
        document["files"][1]["units"][0]["findings"].clear()
    else:
        document["exit_code"] = 0
    with pytest.raises(ReportError, match="its summary or exit code is not what its files give"):
        read(json.dumps(document))
