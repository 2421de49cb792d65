"""GET /v1/rules and /v1/rules/{id}: the rule reference over HTTP, as `opspec rule` gives it."""

from __future__ import annotations

from app import reference
from app.api.models import RuleDetail


def test_every_rule_is_listed_with_its_page(client) -> None:
    listed = client.get("/v1/rules").json()
    assert [rule["id"] for rule in listed] == list(reference.book())
    first = listed[0]
    assert set(first) == {"id", "op", "severity", "statement", "spec", "url"}
    assert first["url"] == f"https://opspec.github.io/opspec/reference/ops/{first['op']}.html#{first['id']}"


def test_every_rule_answers_as_opspec_rule_does(client) -> None:
    for entry in reference.book().values():
        response = client.get(f"/v1/rules/{entry.id}")
        assert response.status_code == 200, entry.id
        assert (
            response.json()
            == RuleDetail(**reference.describe(entry, "https://opspec.github.io/opspec/")).model_dump()
        )


def test_a_former_id_answers_under_the_id_now(client) -> None:
    assert client.get("/v1/rules/C2").json()["id"] == "Max.C2"


def test_an_unknown_id_is_a_404_problem_with_the_closest_ids(client) -> None:
    response = client.get("/v1/rules/Max.RX1")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "/problems/not-found"
    assert problem["errors"] == [
        {
            "path": "rule_id",
            "message": "no rule has the id 'Max.RX1'; did you mean 'Max.RX', 'Max.RZ' or 'Max.RY'? "
            "(GET /v1/rules lists them)",
            "suggestions": ["Max.RX", "Max.RZ", "Max.RY"],
        }
    ]
    long = client.get("/v1/rules/" + "x" * 5000)
    assert long.status_code == 404 and len(long.content) < 2000


def test_an_ops_rules_link_to_their_pages(client) -> None:
    rules = client.get("/v1/ops/Max").json()["rules"]
    assert rules[0] == {
        **rules[0],
        "id": "Max.C1",
        "url": "https://opspec.github.io/opspec/reference/ops/Max.html#Max.C1",
    }


def test_the_problem_pages_of_ruled_errors_link_to_the_rule_pages(client) -> None:
    for slug in ("malformed", "invalid"):
        page = client.get(f"/problems/{slug}").text
        assert 'href="https://opspec.github.io/opspec/reference/rules.html"' in page
        assert (
            'href="https://opspec.github.io/opspec/reference/ops/ReduceMax.html#ReduceMax.axes.range"' in page
        )
    assert "reference/rules.html" not in client.get("/problems/too-large").text  # no rule there
