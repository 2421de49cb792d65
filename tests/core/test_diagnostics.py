"""Report's answers on its short paths (nothing reported, nothing left out) and past its limit."""

from __future__ import annotations

from app.core.diagnostics import Report, Rule

RULES = {"r": Rule("r", "a rule", "a spec")}


def test_an_empty_report_is_ok_and_lists_nothing() -> None:
    report = Report(RULES, 5)
    assert report.ok and report.diagnostics == []


def test_a_report_whose_only_error_was_left_out_is_not_ok() -> None:
    report = Report(RULES, 0)
    report.error("r", "attrs.axes[0]", "bad")
    assert not report.ok
    assert [d.message for d in report.diagnostics] == [
        "1 more like this, from attrs.axes[0] on, left out: at most 0 diagnostics are listed per descriptor "
        "(max_diagnostics)"
    ]


def test_the_listed_diagnostics_are_a_copy() -> None:
    report = Report(RULES, 5)
    report.warn("r", "inputs", "odd")
    listed = report.diagnostics
    listed.clear()
    assert report.ok and len(report.diagnostics) == 1
