"""The browser tests' own rule: without a browser they fail under CI and skip, visibly, elsewhere."""

import pytest

from tests.web.conftest import _no_browser


def test_a_browser_that_cannot_start_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run: no Chromium"):
        _no_browser("no Chromium at /nowhere")


def test_elsewhere_it_is_a_skip_that_says_how_to_fix_it(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="make browser"):
        _no_browser("no Chromium at /nowhere")
