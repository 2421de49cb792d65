"""The manifests under deploy/ against Kubernetes' own JSON schemas (kubernetes-validate ships them), and
against what the image and the service promise: the probes' routes, the image's non-root user; the
zoo's Indexed Job and its merge run as local processes, pod by pod, give a single run's reports."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from fastapi.testclient import TestClient

from app.api.main import create_app
from tests.cli.test_command import OPSPEC

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
MANIFEST = DEPLOY / "kubernetes.yaml"
DOCUMENTS = [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]
EVERY_DOCUMENT = [
    (path.name, doc)
    for path in sorted(DEPLOY.glob("*.yaml"))
    for doc in yaml.safe_load_all(path.read_text())
    if doc
]
KUBERNETES = "1.33"  # a release current clusters run; strict: an unknown field is an error


@pytest.mark.parametrize(
    "document",
    [doc for _, doc in EVERY_DOCUMENT],
    ids=[f"{name}:{doc['kind']}" for name, doc in EVERY_DOCUMENT],
)
def test_each_document_is_valid_kubernetes(document) -> None:
    kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_a_misspelled_field_is_caught() -> None:
    """The check can fail: a typo in the Deployment is refused."""
    deployment = next(doc for doc in DOCUMENTS if doc["kind"] == "Deployment")
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_set_is_deployment_service_autoscaler_and_disruption_budget() -> None:
    assert sorted(doc["kind"] for doc in DOCUMENTS) == [
        "Deployment",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Service",
    ]


def test_probes_name_routes_the_service_has_and_run_as_the_images_user() -> None:
    deployment = next(doc for doc in DOCUMENTS if doc["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    client = TestClient(create_app())
    for probe in ("readinessProbe", "livenessProbe"):
        assert client.get(container[probe]["httpGet"]["path"]).status_code == 200
    dockerfile = (MANIFEST.parent.parent / "Dockerfile").read_text()
    assert f"USER {pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}" in dockerfile
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    selector = deployment["spec"]["selector"]["matchLabels"]
    for doc in DOCUMENTS:
        if doc["kind"] in ("Service",):
            assert doc["spec"]["selector"] == selector
        if doc["kind"] == "PodDisruptionBudget":
            assert doc["spec"]["selector"]["matchLabels"] == selector


# The zoo: deploy/zoo-check.yaml's Indexed Job and deploy/zoo-merge.yaml's Job

ZOO_CHECK = [doc for name, doc in EVERY_DOCUMENT if name == "zoo-check.yaml"]
ZOO_MERGE = [doc for name, doc in EVERY_DOCUMENT if name == "zoo-merge.yaml"]


def job(documents: list[dict[str, Any]]) -> dict[str, Any]:
    [found] = [doc for doc in documents if doc["kind"] == "Job"]
    return found


def container(documents: list[dict[str, Any]]) -> dict[str, Any]:
    [found] = job(documents)["spec"]["template"]["spec"]["containers"]
    return found


def environment(documents: list[dict[str, Any]], **given: str) -> dict[str, str]:
    """The container's environment as the pod gets it: plain values, and `given` for those Kubernetes
    fills in (the CPU limit, the completion index)."""
    values = {item["name"]: item["value"] for item in container(documents)["env"] if "value" in item}
    return {**values, **given}


def test_the_zoo_job_is_indexed_with_one_pod_per_shard() -> None:
    spec = job(ZOO_CHECK)["spec"]
    assert spec["completionMode"] == "Indexed"
    shards = int(environment(ZOO_CHECK)["SHARDS"])
    assert spec["completions"] == spec["parallelism"] == shards
    check = container(ZOO_CHECK)
    [cpus] = [item for item in check["env"] if item["name"] == "CPUS"]
    assert cpus["valueFrom"]["resourceFieldRef"] == {
        "containerName": check["name"],
        "resource": "limits.cpu",
        "divisor": "1",
    }
    assert (
        check["resources"]["limits"]["cpu"] == check["resources"]["requests"]["cpu"]
    )  # whole cores, all its own


def test_the_zoo_jobs_share_the_reports_volume_and_run_as_the_images_user() -> None:
    claims = {doc["metadata"]["name"] for doc in ZOO_CHECK if doc["kind"] == "PersistentVolumeClaim"}
    for documents, variable in ((ZOO_CHECK, "REPORTS"), (ZOO_MERGE, "REPORTS")):
        pod = job(documents)["spec"]["template"]["spec"]
        mounts = {mount["name"]: mount["mountPath"] for mount in container(documents)["volumeMounts"]}
        volumes = {volume["name"]: volume["persistentVolumeClaim"]["claimName"] for volume in pod["volumes"]}
        assert volumes["reports"] in claims
        assert environment(documents)[variable].startswith(mounts["reports"])
        assert pod["restartPolicy"] == "Never"
        assert (
            pod["securityContext"]["runAsUser"]
            == DOCUMENTS[0]["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
        )
        assert container(documents)["securityContext"]["readOnlyRootFilesystem"] is True
    # the shards write where the merge reads: REPORTS/shards
    assert environment(ZOO_CHECK)["REPORTS"] == environment(ZOO_MERGE)["REPORTS"] + "/shards"


def pod(
    documents: list[dict[str, Any]], cwd: Path, root: Path, **given: str
) -> subprocess.CompletedProcess[str]:
    """A pod's command run here: the image's `sh -c SCRIPT` with this environment's opspec, the
    volumes' paths under `root`."""
    spec = container(documents)
    assert spec["command"] == ["sh", "-c"]
    env = {
        key: str(root) + value if value.startswith("/") else value
        for key, value in environment(documents, **given).items()
    }
    path = f"{Path(OPSPEC).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["sh", "-c", spec["args"][0]],
        cwd=cwd,
        env={**os.environ, **env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_zoo_jobs_pods_give_a_single_runs_reports(tmp_path) -> None:
    """Each index's pod, then the merge's, as processes here: the merged JSON, SARIF, JUnit and text are a
    single `opspec check` run's, byte for byte, and the merge's exit code is its verdict."""
    from tests.cli.test_check_graphs import BENCHDNN

    zoo = tmp_path / "zoo"
    for folder in ("op", "complex_fusion"):
        shutil.copytree(BENCHDNN / folder, zoo / folder)
    (tmp_path / "reports").mkdir()
    shards = int(environment(ZOO_CHECK)["SHARDS"])
    for index in range(shards):
        done = pod(ZOO_CHECK, zoo, tmp_path, JOB_COMPLETION_INDEX=str(index), CPUS="1")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"shard {index + 1}/{shards}: report ")
    reports = tmp_path / "reports"
    assert sorted(path.name for path in (reports / "shards").iterdir()) == sorted(
        f"shard-{k}-of-{shards}.json" for k in range(1, shards + 1)
    )
    merged = pod(ZOO_MERGE, reports, tmp_path)
    single = subprocess.run([OPSPEC, "check", "."], cwd=zoo, capture_output=True, text=True)
    assert (merged.returncode, merged.stdout) == (single.returncode, single.stdout)
    assert single.returncode == 0 and "1 not checked (BiasAddBackprop 1)" in single.stdout
    for name, format in (("opspec.json", "json"), ("opspec.sarif", "sarif"), ("opspec-junit.xml", "junit")):
        single = subprocess.run([OPSPEC, "check", ".", "--format", format], cwd=zoo, capture_output=True)
        assert (reports / name).read_bytes() == single.stdout, name


def test_a_pod_whose_shard_finds_faults_succeeds_and_one_without_a_report_fails(tmp_path) -> None:
    """Findings are the merge's to answer; only a pod that wrote no report fails (and is retried)."""
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    (zoo / "bad.json").write_text(
        '{"kind": "ReduceMax", "attrs": {"axes": [4]}, "inputs": [{"dtype": "f32", "shape": [2]}]}'
    )
    (tmp_path / "reports").mkdir()
    shards = int(environment(ZOO_CHECK)["SHARDS"])
    codes = [
        pod(ZOO_CHECK, zoo, tmp_path, JOB_COMPLETION_INDEX=str(i), CPUS="1").returncode for i in range(shards)
    ]
    assert codes == [0] * shards
    merged = pod(ZOO_MERGE, tmp_path / "reports", tmp_path)
    assert merged.returncode == 1 and "error ReduceMax.axes.range" in merged.stdout
    (zoo / "bad.json").unlink()  # an empty zoo: no report, so the pod fails
    assert pod(ZOO_CHECK, zoo, tmp_path, JOB_COMPLETION_INDEX="0", CPUS="1").returncode == 3
