"""The built site's search in Chromium with nothing but the site's own origin reachable: Material's
search runs in the page over the site's own index, so it answers on a machine with no network."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.browser import CHROMIUM, launch


@pytest.fixture
def origin(site: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *_: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_search_finds_a_rule_id_offline(origin: str) -> None:
    pytest.importorskip("playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (`make browser` installs it)")
    from playwright.sync_api import sync_playwright

    foreign: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})

            def route(request_route) -> None:
                url = request_route.request.url
                if url.startswith(origin):
                    request_route.continue_()
                else:
                    foreign.append(url)
                    request_route.abort()

            page.route("**/*", route)
            page.goto(f"{origin}/index.html")
            search = page.locator("input.md-search__input")
            search.click()
            search.fill("ReduceMax.axes.range")
            first = page.locator(".md-search-result__item").first
            first.wait_for(timeout=20_000)
            assert "ReduceMax" in page.locator(".md-search-result__list").inner_text()
            first.locator("a").first.click()
            page.wait_for_load_state()
            assert "/reference/" in page.url
        finally:
            browser.close()
    assert foreign == []  # no font, script or style from anywhere but the site itself
