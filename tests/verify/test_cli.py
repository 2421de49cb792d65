"""`opspec verify`: case files and .npz tensors, check's formats, and exit codes a kernel's CI can trust."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import EXIT_INVALID, EXIT_MALFORMED, EXIT_VALID, main
from app.core.config import get_settings
from app.ops import segment_max

DESCRIPTOR = {
    "kind": "SegmentMax",
    "attrs": {"fill_mode": "LOWEST"},
    "inputs": [{"dtype": "f32", "shape": ["N"]}, {"dtype": "s32", "shape": ["N"]}],
}
DATA = np.array([1, np.nan, 4, -2, 3], dtype=np.float32)
IDS = np.array([0, 0, 2, 2, 3], dtype=np.int32)
LOWEST = np.finfo(np.float32).min
SPEC = np.array([np.nan, LOWEST, 4, 3], dtype=np.float32)
OPENVINO = np.array([1, LOWEST, 4, 3], dtype=np.float32)


def case_file(tmp_path, answer: np.ndarray, name: str = "case.json") -> str:
    document = {
        **DESCRIPTOR,
        "inputs": [
            {"dtype": "f32", "shape": [5], "data": [1, "nan", 4, -2, 3]},
            {"dtype": "s32", "shape": [5], "data": IDS.tolist()},
        ],
        "outputs": [
            {"dtype": "f32", "shape": [4], "data": ["nan" if np.isnan(v) else float(v) for v in answer]}
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=1))
    return str(path)


def npz_case(tmp_path, answer: np.ndarray, *, named_inputs: bool = True) -> list[str]:
    (tmp_path / "d.json").write_text(json.dumps(DESCRIPTOR))
    if named_inputs:
        np.savez(tmp_path / "in.npz", segment_ids=IDS, data=DATA)  # by name, in any order
    else:
        np.savez(tmp_path / "in.npz", DATA, IDS)  # arr_0, arr_1: by order
    np.savez(tmp_path / "out.npz", answer)
    return [
        "--descriptor",
        str(tmp_path / "d.json"),
        "--inputs",
        str(tmp_path / "in.npz"),
        "--outputs",
        str(tmp_path / "out.npz"),
    ]


def test_case_file_conformant_exits_0(tmp_path, capsys) -> None:
    assert main(["verify", case_file(tmp_path, SPEC)]) == EXIT_VALID
    assert capsys.readouterr().out.endswith("1 file, 1 case: 1 valid, 0 invalid; 0 errors, 1 warning\n")


def test_case_file_text_report(tmp_path, capsys) -> None:
    path = case_file(tmp_path, OPENVINO)
    assert main(["verify", path]) == EXIT_INVALID
    assert capsys.readouterr().out.splitlines() == [
        f"{path}:14:5: warning SegmentMax.openvino.nan: data holds NaN, so its segment's maximum is NaN here; "
        "OpenVINO's CPU plugin skips NaN (a segment of only NaN gets the lowest finite value there)",
        f"{path}:41:5: error SegmentMax.mismatch.nan_dropped: output 0: 1 of 4 elements are nan_dropped; first at "
        '[0]: expected "nan", got 1.0 (segment 0 holds NaN here, so its maximum is NaN)',
        f"{path}:35:3: info SegmentMax.like: output 0 matches OpenVINO 2026.4 CPU: NaN ignored in segment 0 "
        f"(evidence: {segment_max.IMPLEMENTATIONS[0].evidence})",
        "1 file (1 invalid), 1 case: 0 valid, 1 invalid; 1 error, 1 warning, 1 note",
    ]


@pytest.mark.parametrize("named_inputs", [True, False])
def test_npz_tensors_bound_by_name_or_order(tmp_path, capsys, named_inputs) -> None:
    assert main(["verify", *npz_case(tmp_path, SPEC, named_inputs=named_inputs)]) == EXIT_VALID
    capsys.readouterr()
    assert (
        main(["verify", "--format", "json", *npz_case(tmp_path, OPENVINO, named_inputs=named_inputs)])
        == EXIT_INVALID
    )
    document = json.loads(capsys.readouterr().out)
    [unit] = document["files"][0]["units"]
    assert unit["verdict"] == "invalid"
    [output] = unit["detail"]["outputs"]
    assert output["classes"] == {"nan_dropped": 1}
    assert [like["implementation"] for like in output["like"]] == ["OpenVINO 2026.4 CPU"]


def test_npz_one_extra_difference_is_no_like(tmp_path, capsys) -> None:
    answer = OPENVINO.copy()
    answer[3] = 4  # segment 3 given segment 2's maximum
    assert main(["verify", "--format", "json", *npz_case(tmp_path, answer)]) == EXIT_INVALID
    [unit] = json.loads(capsys.readouterr().out)["files"][0]["units"]
    assert unit["detail"]["outputs"][0]["like"] == []
    assert unit["detail"]["outputs"][0]["classes"] == {"nan_dropped": 1, "segment_boundary": 1}


def test_npz_pickles_are_refused(tmp_path, capsys) -> None:
    args = npz_case(tmp_path, SPEC)
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.savez(tmp_path / "out.npz", np.array([{"a": 1}], dtype=object))
    assert main(["verify", *args]) == EXIT_MALFORMED
    out = capsys.readouterr().out
    assert "opspec.verify.npz" in out and "allow_pickle" in out


def test_npz_wrong_dtype_is_a_finding(tmp_path, capsys) -> None:
    args = npz_case(tmp_path, SPEC.astype(np.float64))
    assert main(["verify", *args]) == EXIT_INVALID
    assert "error SegmentMax.outputs.dtype: output is f32, but f64 is declared" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "finding"),
    [
        ("{not json", "1:2: error opspec.json: not JSON: Expecting property name enclosed in double quotes"),
        (
            json.dumps({**DESCRIPTOR, "outputs": None}),
            "1:149: error opspec.verify.case: verify needs the implementation's answer: `outputs` with data, "
            "one per output port",
        ),
    ],
)
def test_unreadable_cases_exit_2(tmp_path, capsys, content, finding) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["verify", str(path)]) == EXIT_MALFORMED
    assert capsys.readouterr().out.splitlines()[0] == f"{path}:{finding}"


@pytest.mark.parametrize("fmt", ["sarif", "junit", "github"])
def test_every_format_renders_a_verify_run(tmp_path, capsys, fmt) -> None:
    assert main(["verify", "--format", fmt, case_file(tmp_path, OPENVINO)]) == EXIT_INVALID
    out = capsys.readouterr().out
    assert "SegmentMax.mismatch.nan_dropped" in out


def test_npz_arrays_past_max_total_bytes_are_refused_before_they_are_unpacked(
    tmp_path, capsys, monkeypatch
) -> None:
    args = npz_case(tmp_path, SPEC)
    # A compressed archive is small on disk whatever it unpacks to: the inputs, read first, are 16 KiB.
    np.savez_compressed(tmp_path / "in.npz", data=np.zeros(1 << 12, np.float32), segment_ids=IDS)

    def unpacked(*_):
        raise AssertionError("an array was unpacked")

    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", unpacked)
    monkeypatch.setenv("OPSPEC_MAX_TOTAL_BYTES", "4096")
    get_settings.cache_clear()
    try:
        assert main(["verify", *args]) == EXIT_MALFORMED
    finally:
        monkeypatch.delenv("OPSPEC_MAX_TOTAL_BYTES")
        get_settings.cache_clear()
    out = capsys.readouterr().out
    assert "opspec.verify.npz" in out and "above the limit of 4,096 (max_total_bytes)" in out


def test_a_single_npy_where_an_npz_is_due_is_a_finding_not_a_traceback(tmp_path, capsys) -> None:
    args = npz_case(tmp_path, SPEC)
    np.save(tmp_path / "in.npy", DATA)
    args[args.index("--inputs") + 1] = str(tmp_path / "in.npy")
    assert main(["verify", *args]) == EXIT_MALFORMED
    out = capsys.readouterr().out
    assert "opspec.verify.npz" in out and "a single .npy array" in out


def test_the_npz_case_descriptor_is_bounded_by_max_body_bytes_as_any_file(
    tmp_path, capsys, monkeypatch
) -> None:
    args = npz_case(tmp_path, SPEC)
    monkeypatch.setenv("OPSPEC_MAX_BODY_BYTES", "64")
    get_settings.cache_clear()
    try:
        assert main(["verify", *args]) == EXIT_MALFORMED
    finally:
        monkeypatch.delenv("OPSPEC_MAX_BODY_BYTES")
        get_settings.cache_clear()
    assert "above the limit of 64 (max_body_bytes)" in capsys.readouterr().out
