"""The page as the app serves it, without a browser: where it is, its policy, its files."""

import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.web import STATIC

client = TestClient(create_app())


def test_the_page_is_served_at_the_root_with_a_strict_policy():
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'self'" in policy
    assert "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert '<label class="field__label" for="json">descriptor JSON</label>' in response.text


def test_every_file_the_page_loads_is_served_with_its_type():
    page = client.get("/").text
    referenced = re.findall(r'(?:src|href)="(web/[^"]+)"', page)
    modules = {f"web/{path.name}" for path in STATIC.glob("*.js")}
    assert {"web/main.js", "web/style.css", "web/icon.svg"} <= set(referenced)
    types = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    for path in set(referenced) | modules:
        response = client.get(f"/{path}")
        assert response.status_code == 200, path
        assert response.headers["content-type"] == types[Path(path).suffix] + "; charset=utf-8", path
        assert response.content == (STATIC / Path(path).name).read_bytes()


def test_no_inline_script_no_style_attribute_and_no_other_host():
    page = (STATIC / "index.html").read_text()
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", page))
    assert "style=" not in page
    for path in STATIC.iterdir():
        text = path.read_text()
        # The only URL the files spell out is the SVG namespace, which is never fetched.
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{path.name} names {urls}"


def test_every_module_import_is_a_file_of_the_page():
    for path in STATIC.glob("*.js"):
        for target in re.findall(r'from "\./([^"]+)"', path.read_text()):
            assert (STATIC / target).is_file(), f"{path.name} imports {target}"


def test_the_api_keeps_its_problem_bodies_beside_the_page():
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    missing = client.get("/web/__init__.py")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert "main.js" in missing.json()["detail"]


def test_an_unchanged_file_is_not_sent_again():
    first = client.get("/web/main.js")
    again = client.get("/web/main.js", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""
