"""app/core/collector.py across a fork: a child forked inside a paused block (a --jobs helper) starts
with the collector as the block found it, and its own blocks pause and restore it as anywhere."""

from __future__ import annotations

import gc
import multiprocessing

from app.core import collector


def _in_child(answers) -> None:
    seen = [gc.isenabled()]
    with collector.paused():
        seen.append(gc.isenabled())
    seen.append(gc.isenabled())
    answers.put(seen)


def test_a_child_forked_inside_a_paused_block_has_its_collector_back() -> None:
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    with collector.paused():
        child = context.Process(target=_in_child, args=(answers,))
        child.start()
        child.join(timeout=60)
        assert not gc.isenabled()  # the parent's block still runs
    assert child.exitcode == 0
    assert answers.get(timeout=5) == [True, False, True]
    assert gc.isenabled()
