"""Install and run as written: the GitHub Actions and GitLab snippets of docs/cli.md, run command by command
in a clean virtual environment (the repository's git URL pointed at this clone's committed HEAD: no
network), and the image's source label.

The venv gets the project's dependencies through a .pth file naming this environment's site-packages,
so pip finds them installed and builds only opspec itself, from git, as the snippet says (its build
backend, setuptools, comes from the package index as in CI)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CI_PAGE = (ROOT / "docs" / "cli.md").read_text()
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
URL = PROJECT["urls"]["Repository"]


def _block(comment: str) -> str:
    (block,) = re.findall(r"```yaml\n(# " + re.escape(comment) + r"\n.*?)```", CI_PAGE, re.S)
    return block


def _commands(block: str) -> list[str]:
    """Each shell command of a snippet: GitHub's `run:` values and GitLab's `script:` items."""
    commands = re.findall(r"^\s+(?:- )?run: (.+)$", block, re.M)
    commands += re.findall(r"^    - (.+)$", block, re.M)
    return [re.sub(r"\s+#.*$", "", command) for command in commands]


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory) -> Path:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git clone")
    venv = tmp_path_factory.mktemp("ci") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def _models(folder: Path) -> None:
    (folder / "models").mkdir()
    (folder / "models" / "max.json").write_text('{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}')


@pytest.mark.parametrize("snippet", [".github/workflows/opspec.yml", ".gitlab-ci.yml"])
def test_each_snippets_commands_run_in_a_clean_venv(snippet, clean_venv, tmp_path) -> None:
    commands = _commands(_block(snippet))
    installs = [c for c in commands if c.startswith("pip install")]
    assert installs == [f'pip install "git+{URL}"'], commands  # never `pip install opspec`: not on PyPI
    if snippet == ".gitlab-ci.yml":  # python:3.12-slim has no git: the snippet installs it first
        assert re.search(r"image: python:3\.12-slim", _block(snippet))
        assert commands.index(
            next(c for c in commands if "apt-get install" in c and " git" in c)
        ) < commands.index(installs[0])
    _models(tmp_path)
    env = {
        **os.environ,
        "PATH": f"{clean_venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(clean_venv),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # The repository's URL, as git would fetch it, served by this clone.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{ROOT.as_uri()}.insteadOf",
        "GIT_CONFIG_VALUE_0": URL,
    }
    for command in commands:
        if command.startswith("apt-get"):
            continue  # the image's package manager, not this machine's
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
        )
        words = shlex.split(command)
        allowed = {0, 1} if "|| true" in command or words[0] == "opspec" else {0}
        assert done.returncode in allowed, (command, done.stdout[-2000:], done.stderr[-2000:])
    installed = subprocess.run(
        [str(clean_venv / "bin" / "python"), "-c", "import opspec, sys; print(opspec.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert str(clean_venv) in installed  # opspec from the venv, not this checkout
    assert (tmp_path / ("opspec.sarif" if "github" in snippet else "opspec-junit.xml")).is_file()


def test_the_images_source_label_is_the_projects_url() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"ARG SOURCE={URL}\n" in dockerfile
    assert 'org.opencontainers.image.source="${SOURCE}"' in dockerfile


def test_the_matrix_snippets_shards_check_every_model_once_each_its_own_sarif_category(tmp_path) -> None:
    """The zoo matrix's `opspec check` commands, run as each of its shards would run them (this
    checkout's opspec: the install is the snippets' above)."""
    block = _block(".github/workflows/opspec-zoo.yml")
    shards = re.search(r"shard: \[([\d, ]+)\]", block).group(1).split(", ")
    commands = [c for c in _commands(block) if c.startswith("opspec check")]
    assert len(commands) == 2 and all(
        "--jobs auto" in c and "--shard ${{ matrix.shard }}/" in c for c in commands
    )
    _models(tmp_path)
    for index in range(10):
        (tmp_path / "models" / f"m{index}.json").write_text(
            '{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}, {"dtype": "f32", "shape": [3]}]}'
        )
    opspec = Path(sys.executable).with_name("opspec")
    categories, checked = [], []
    for shard in shards:
        for command in commands:
            line = command.replace("${{ matrix.shard }}", shard).replace("opspec ", f"{opspec} ", 1)
            done = subprocess.run(line, shell=True, cwd=tmp_path, capture_output=True, text=True, check=False)
            assert done.returncode in {0, 1}, (line, done.stderr)
        [run] = json.loads((tmp_path / "opspec.sarif").read_text())["runs"]
        categories.append(run["automationDetails"]["id"].rsplit("/", 1)[0])
        checked += {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert categories == [f"opspec/shard-{shard}-of-{len(shards)}" for shard in shards]
    assert sorted(checked) == sorted(f"models/m{index}.json" for index in range(10))  # each bad model once
