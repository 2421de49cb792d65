"""deploy/kubernetes.yaml against Kubernetes' own JSON schemas (kubernetes-validate ships them), and
against what the image and the service promise: the probes' routes, the image's non-root user."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from fastapi.testclient import TestClient

from app.main import create_app

MANIFEST = Path(__file__).resolve().parent.parent / "deploy" / "kubernetes.yaml"
DOCUMENTS = [doc for doc in yaml.safe_load_all(MANIFEST.read_text()) if doc]
KUBERNETES = "1.33"  # a release current clusters run; strict: an unknown field is an error


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda doc: doc["kind"])
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
