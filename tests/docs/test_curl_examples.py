"""The docs' curl examples are real: each command in README.md and docs/*.md is replayed against the app
and its answer compared.

A command ending in `# abridged` shows part of the answer: every key it shows must be in the real
answer with the same value, and every list it shows must be found, in order, in the real list."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def _examples() -> list:
    examples = []
    for block in (block for page in PAGES for block in BLOCK.findall(page.read_text())):
        command, answer = None, []
        for line in [*block.splitlines(), "$ end"]:
            if line.startswith("$ "):
                if command is not None and command.startswith("curl "):
                    examples.append(pytest.param(command, "\n".join(answer), id=command[:70]))
                command, answer = line[2:], []
            elif command is not None:
                answer.append(line)
    return examples


def _request(command: str) -> tuple[str, str, bytes | None, bool, dict[str, str]]:
    words = shlex.split(command, comments=True)
    abridged = command.rstrip().endswith("# abridged")
    assert words[0] == "curl"
    method, body, url, headers = "GET", None, None, {}
    words = iter(words[1:])
    for word in words:
        if word in ("-X", "--request"):
            method = next(words)
        elif word in ("-d", "--data"):
            body = next(words).encode()
            method = "POST" if method == "GET" else method
        elif word in ("-H", "--header"):
            name, _, value = next(words).partition(":")
            headers[name.strip().lower()] = value.strip()
        elif not word.startswith("-"):
            url = word
    assert url is not None, command
    parts = urlsplit(url if "://" in url else f"http://{url}")
    return method, parts.path + (f"?{parts.query}" if parts.query else ""), body, abridged, headers


def shown_in(shown: Any, real: Any) -> bool:
    if isinstance(shown, dict):
        return isinstance(real, dict) and all(k in real and shown_in(v, real[k]) for k, v in shown.items())
    if isinstance(shown, list):
        if not isinstance(real, list):
            return False
        rest = iter(real)  # each shown item matches a later real item than the one before it
        return all(any(shown_in(item, r) for r in rest) for item in shown)
    return shown == real and type(shown) is type(real)


def test_the_docs_have_an_example_for_every_endpoint(client) -> None:
    paths = {_request(command)[1].split("?")[0] for command, _ in (p.values for p in _examples())}
    routes = {"/healthz", "/v1/ops", "/v1/validate", "/v1/validate/batch", "/v1/evaluate", "/v1/verify"}
    assert routes | {"/v1/rules", "/v1/graphs/validate"} <= paths
    assert any(path.startswith("/v1/ops/") for path in paths)
    assert any(path.startswith("/v1/rules/") for path in paths)


@pytest.mark.parametrize(("command", "answer"), _examples())
def test_docs_example(client, command: str, answer: str) -> None:
    method, path, body, abridged, headers = _request(command)
    response = client.request(method, path, content=body, headers=headers)
    real = response.json()
    shown = json.loads(answer)
    if abridged:
        assert shown_in(shown, real), json.dumps(real, indent=1)
    else:
        assert shown == real, json.dumps(real)
