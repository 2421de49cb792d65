"""`opspec check` reads the user's own files under the machine's limits, not the service's (issue 30): a
graph over max_graph_bytes and max_body_bytes checks with no settings, a limit the user sets still
holds, streams (standard input, a device) stay bounded since they may not end, and a single large graph
shows a progress bar at a terminal and nothing elsewhere."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import termios
from pathlib import Path

import pytest

from app.cli import EXIT_MALFORMED, EXIT_VALID, main
from app.core.config import FILE_SIZE_LIMITS, NO_LIMIT, Settings, for_local_files, get_settings
from tests.cli.test_check import GOOD
from tests.cli.test_check_graphs import FILES
from tests.cli.test_command import OPSPEC


@pytest.fixture
def fresh_settings():
    """Settings read again from the environment as the test sets it, and again after it."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_local_files_lift_the_size_limits_the_user_did_not_set(monkeypatch) -> None:
    defaults = Settings()
    lifted = for_local_files(defaults)
    assert {name: getattr(lifted, name) for name in FILE_SIZE_LIMITS} == dict.fromkeys(
        FILE_SIZE_LIMITS, NO_LIMIT
    )
    # what a few bytes can make huge or deep stays bounded, as for the service
    bounded = set(Settings.model_fields) - set(FILE_SIZE_LIMITS)
    assert {name: getattr(lifted, name) for name in bounded} == {
        name: getattr(defaults, name) for name in bounded
    }
    monkeypatch.setenv("OPSPEC_MAX_GRAPH_NODES", "7")
    chosen = for_local_files(Settings())
    assert (chosen.max_graph_nodes, chosen.max_graph_bytes) == (7, NO_LIMIT)


def padded_graph(path: Path, size: int) -> Path:
    """benchdnn-style oneDNN JSON, `size` bytes with trailing whitespace (JSON allows it)."""
    text = (FILES / "reducemax.json").read_text()
    path.write_text(text + " " * (size - len(text.encode())))
    return path


def test_a_graph_over_the_services_byte_limits_checks_with_no_settings(
    tmp_path, capsys, fresh_settings
) -> None:
    defaults = Settings()
    size = max(defaults.max_body_bytes, defaults.max_graph_bytes) + 1
    path = padded_graph(tmp_path / "big.json", size)
    assert main(["check", str(path)]) == EXIT_VALID
    assert capsys.readouterr().out.endswith("1 file, 1 node: 1 valid, 0 invalid; 0 errors, 0 warnings\n")


def test_a_limit_the_user_sets_still_bounds_a_local_file(
    tmp_path, monkeypatch, capsys, fresh_settings
) -> None:
    path = padded_graph(tmp_path / "g.json", 4096)
    monkeypatch.setenv("OPSPEC_MAX_BODY_BYTES", "4095")
    assert main(["check", str(path)]) == EXIT_MALFORMED
    assert "4,096 bytes, above the limit of 4,095 (max_body_bytes)" in capsys.readouterr().out
    monkeypatch.delenv("OPSPEC_MAX_BODY_BYTES")
    monkeypatch.setenv("OPSPEC_MAX_GRAPH_NODES", "0")
    get_settings.cache_clear()
    assert main(["check", str(path)]) == EXIT_MALFORMED  # a bad value: one line, as for any setting
    monkeypatch.setenv("OPSPEC_MAX_GRAPH_NODES", "1")
    get_settings.cache_clear()
    two = json.loads((FILES / "onednn_graph.json").read_text())
    assert len(two["graph"]) > 1
    (tmp_path / "two.json").write_text(json.dumps(two))
    assert main(["check", str(tmp_path / "two.json")]) == EXIT_MALFORMED
    assert "(max_graph_nodes)" in capsys.readouterr().out


def test_a_stream_is_read_up_to_max_graph_bytes_and_refused_past_it(tmp_path) -> None:
    """Standard input and a device have no size before they are read, and may not end: /dev/zero costs
    at most the limit, and says so."""
    env = {**os.environ, "OPSPEC_MAX_GRAPH_BYTES": "100000"}
    done = subprocess.run([OPSPEC, "check", "/dev/zero"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == EXIT_MALFORMED
    assert (
        "/dev/zero: error opspec.read: cannot read the file: more than 100,000 bytes (max_graph_bytes)"
        in done.stdout
    )
    text = json.dumps(GOOD)
    for padding, code in ((100_000 - len(text), EXIT_VALID), (100_001 - len(text), EXIT_MALFORMED)):
        done = subprocess.run(
            [OPSPEC, "check", "-"],
            input=text + " " * padding,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == code, done.stdout
    assert "more than 100,000 bytes (max_graph_bytes)" in done.stdout


def chain(nodes: int) -> dict:
    """A oneDNN Graph chain of ReLU ops on a small tensor."""
    tensor = {
        "dtype": "f32",
        "shape": [2, 3],
        "stride": [3, 1],
        "layout_type": "strided",
        "property_type": "undef",
    }
    ops = [
        {"id": i, "name": f"relu{i}", "kind": "ReLU", "attrs": {},
         "inputs": [{"id": i, **tensor}], "outputs": [{"id": i + 1, **tensor}]}
        for i in range(nodes)
    ]  # fmt: skip
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}


def at_a_terminal(argv: list[str]) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """The command with stderr a terminal of 100 columns (a pseudo-terminal): its run, and what it drew
    there."""
    leader, follower = pty.openpty()
    fcntl.ioctl(
        follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0)
    )  # a window, as a terminal has
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=follower, timeout=120)
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other side is closed: all read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    return done, drawn


def test_one_large_graph_shows_a_bar_at_a_terminal_and_nothing_elsewhere(tmp_path) -> None:
    """The command as a user runs it on one large graph: at a terminal, the file said as it is read, then
    a bar over its nodes as it is walked; stderr a pipe (a CI log): not a byte on it."""
    from app.cli.check import PROGRESS_MIN_BYTES, PROGRESS_MIN_NODES

    path = tmp_path / "large.json"
    text = json.dumps(chain(PROGRESS_MIN_NODES))
    path.write_text(text + " " * (PROGRESS_MIN_BYTES - len(text)))
    piped = subprocess.run([OPSPEC, "check", str(path)], capture_output=True, timeout=120)
    assert piped.returncode == EXIT_VALID and piped.stderr == b""
    done, drawn = at_a_terminal([OPSPEC, "check", str(path)])
    assert done.returncode == EXIT_VALID and done.stdout == piped.stdout
    assert b"\rlarge.json: reading\r" in drawn
    assert b"large.json:   0%|" in drawn and f"| 0/{PROGRESS_MIN_NODES} [".encode() in drawn, drawn


def test_a_graph_of_many_nodes_in_a_small_file_gets_the_node_bar_alone(tmp_path) -> None:
    from app.cli.check import PROGRESS_MIN_NODES

    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(chain(PROGRESS_MIN_NODES)))
    done, drawn = at_a_terminal([OPSPEC, "check", str(path)])
    assert done.returncode == EXIT_VALID
    assert b"reading" not in drawn and f"/{PROGRESS_MIN_NODES} [".encode() in drawn
