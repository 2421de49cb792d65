"""The page in a real browser: the app served by uvicorn on a free loopback port, Debian's Chromium
driven by Playwright (see browser.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.web.browser import CHROMIUM, launch, serving

EXPECTED_REFUSAL = re.compile(r"Failed to load resource: the server responded with a status of 4(22|13) ")
SCREENSHOTS = Path(__file__).parent / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _no_browser(reason: str) -> None:
    """In CI a browser that cannot start is a failure; on a developer's machine, a visible skip."""
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(f"the browser tests cannot run: {reason} (`make browser` installs Chromium)")


@pytest.fixture(scope="session")
def page_origin() -> Iterator[str]:
    with serving() as origin:
        yield origin


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - dev extra missing
        _no_browser(f"PyPI playwright is not installed ({exc})")
    if not Path(CHROMIUM).exists():
        _no_browser(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        try:
            browser = launch(playwright)
        except Exception as exc:
            _no_browser(f"{CHROMIUM} did not start ({exc})")
        yield browser
        browser.close()


@dataclass
class Visit:
    """One page in its own context, with every request and console message it caused."""

    page: object
    origin: str
    requests: list[str] = field(default_factory=list)
    posted: list[str | None] = field(default_factory=list)  # each POST's Content-Type
    foreign: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, fragment: str = "") -> None:
        """Load the page afresh (a new fragment alone would not reload it)."""
        if self.page.url != "about:blank":
            self.page.goto("about:blank")
        self.page.goto(f"{self.origin}/{fragment}")
        self.wait_result()

    def wait_result(self, after: int = 0) -> None:
        """Wait until the result region has been drawn more than `after` times (see main.js)."""
        self.page.wait_for_function(
            "n => Number(document.documentElement.dataset.results || 0) > n", arg=after, timeout=10_000
        )

    def results(self) -> int:
        return int(self.page.evaluate("Number(document.documentElement.dataset.results || 0)"))

    def settle(self, action) -> None:
        """Do an edit, then wait for the result it causes."""
        before = self.results()
        action()
        self.wait_result(before)
        # A burst of keystrokes may be answered more than once; wait until no check is pending.
        self.page.wait_for_timeout(120)

    def screenshot(self, name: str) -> Path:
        """The whole page at once. The viewport is made as tall as the page for it: a full-page capture
        would otherwise paint the sticky verdict bar where the screen's bottom was, mid-page."""
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        size = self.page.viewport_size
        height = self.page.evaluate("document.documentElement.scrollHeight")
        self.page.set_viewport_size({"width": size["width"], "height": height})
        self.page.screenshot(path=str(path))
        self.page.set_viewport_size(size)
        return path


def _visit(browser, page_origin: str, viewport: dict, scheme: str) -> Iterator[Visit]:
    context = browser.new_context(
        viewport=viewport,
        color_scheme=scheme,
        service_workers="block",  # so every request of the page passes the route below
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    visit = Visit(page=page, origin=page_origin)

    def route(route) -> None:
        url = route.request.url
        visit.requests.append(url)
        if route.request.method == "POST":
            visit.posted.append(route.request.headers.get("content-type"))
        if url == page_origin or url.startswith(page_origin + "/"):
            route.continue_()
        else:
            visit.foreign.append(url)
            route.abort()

    page.route("**/*", route)

    def console(message) -> None:
        # Chromium logs every 4xx answer to fetch as "Failed to load resource"; a 422 or 413 is the API's
        # answer about a descriptor, which the page shows beside the field. Anything else counts.
        if message.type == "error" and not EXPECTED_REFUSAL.match(message.text):
            visit.console_errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda e: visit.console_errors.append(f"uncaught: {e}"))
    yield visit
    context.close()
    assert not visit.foreign, f"the page asked other hosts: {visit.foreign}"
    assert not visit.console_errors, f"console errors: {visit.console_errors}"


@pytest.fixture
def visit(browser, page_origin) -> Iterator[Visit]:
    yield from _visit(browser, page_origin, DESKTOP, "light")


@pytest.fixture
def make_visit(browser, page_origin):
    """Visits at other sizes and colour schemes, each checked like `visit` when the test ends."""
    made = []

    def make(viewport: dict, scheme: str) -> Visit:
        generator = _visit(browser, page_origin, viewport, scheme)
        made.append(generator)
        return next(generator)

    yield make
    for generator in made:
        with pytest.raises(StopIteration):
            next(generator)
