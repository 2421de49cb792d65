"""The page as a new user meets it in the first hour (issue 18), in Chromium, with screenshots under
tests/web/screenshots/: grids that read, a first screen without outputs nobody typed, a stale result
marked, aliases that set what they imply, one way of saying "invalid", nothing judged before anything
is typed, damaged links, stale attribute names, "did you mean" buttons, and an op picker for ~90 ops."""

from __future__ import annotations

from tests.web.conftest import PHONE
from tests.web.test_page import field, fragment, from_fragment, pick, result_text, type_into

WIDE = {
    "kind": "Max",
    "inputs": [
        {"dtype": "s32", "shape": [2, 24], "data": [[10 * j + i for j in range(24)] for i in range(2)]},
        {"dtype": "s32", "shape": [1, 24], "data": [[123456 + j for j in range(24)]]},
    ],
}


def test_grid_cells_stay_on_one_line_and_a_wide_grid_scrolls_in_its_box(make_visit):
    visit = make_visit(PHONE, "light")
    visit.open(fragment(WIDE))
    page = visit.page
    heights = page.eval_on_selector_all(
        "#result .grid td", "cells => cells.map(c => c.getBoundingClientRect().height)"
    )
    line = page.eval_on_selector("#result .grid td", "c => parseFloat(getComputedStyle(c).lineHeight) || 20")
    assert heights and max(heights) < 2 * line + 8, (max(heights), line)  # `123456` is one line, not six
    assert page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth"
    )  # the page does not scroll
    assert page.eval_on_selector(
        "#result .values__scroll", "s => s.scrollWidth > s.clientWidth"
    )  # its box does
    visit.screenshot("first-hour-wide-grid-phone")


def test_the_page_opens_without_declared_outputs(visit):
    visit.open()
    assert not visit.page.get_by_label("Check declared outputs against the inferred ones").is_checked()
    assert "outputs" not in from_fragment(visit.page.url)
    type_into(visit, "axes", "0")
    assert result_text(visit).startswith("✓\nValid") or "Valid" in result_text(visit).split("\n")[1]
    assert "Invalid" not in result_text(visit)


def test_errors_only_in_declared_outputs_still_show_the_inferred_outputs_and_values(visit):
    descriptor = {
        "kind": "ReduceMax",
        "attrs": {"axes": [1]},
        "inputs": [{"dtype": "f32", "shape": [2, 3], "data": [[1, 2, 3], [4, 5, 6]]}],
        "outputs": [{"dtype": "f32", "shape": [7]}],
    }
    visit.open(fragment(descriptor))
    text = result_text(visit)
    assert "Invalid" in text and "ReduceMax.outputs" in text
    assert "inferred outputs" in text.lower() and "f32[2]" in text
    assert visit.page.locator("#result .grid td").all_inner_texts() == ["3", "6"]
    visit.screenshot("first-hour-declared-outputs-wrong")


def test_a_json_view_that_is_not_a_descriptor_marks_the_result_stale(visit):
    visit.open()
    json_view = visit.page.locator("#json")
    json_view.fill('{"kind": "ReduceMax", ')
    visit.page.wait_for_selector("#stale-note")
    assert "not JSON" in visit.page.locator("#stale-note").inner_text()
    assert "result--stale" in visit.page.locator("#result").get_attribute("class")
    visit.screenshot("first-hour-stale")
    json_view.fill("[1, 2]")
    visit.page.locator("#stale-note", has_text="a list").wait_for()
    visit.settle(lambda: json_view.fill('{"kind": "Max", "inputs": [{"dtype": "f32", "shape": [2]}]}'))
    assert visit.page.locator("#stale-note").count() == 0
    assert "result--stale" not in (visit.page.locator("#result").get_attribute("class") or "")


def test_an_alias_sets_the_dtypes_it_implies(visit):
    visit.open()
    pick(visit, "mli_krn_argmax_fx16")
    assert field(visit, "in dtype").input_value() == "fx16"
    assert "Argmax.in.kernel" not in result_text(visit)
    pick(visit, "mli_krn_argmax_sa8")
    assert field(visit, "in dtype").input_value() == "sa8"


def test_a_missing_attribute_reads_the_same_for_every_op_without_status_codes(visit):
    visit.open()
    pick(visit, "Argmax")  # axis and top_k required: a 422 from the API
    type_into(visit, "in shape", "4, 8")
    argmax = result_text(visit)
    pick(visit, "SegmentMax")  # fill_mode required: a 200 whose verdict is invalid
    type_into(visit, "data shape", "4")
    type_into(visit, "segment_ids shape", "4")
    segment = result_text(visit)
    for text in (argmax, segment):
        assert "Invalid" in text, text
        assert "422" not in text and "Not a descriptor" not in text, text


def test_nothing_is_judged_before_a_shape_is_typed(visit):
    visit.open()
    pick(visit, "Max")
    text = result_text(visit)
    assert "Not checked yet" in text and "Valid" not in text
    type_into(visit, "X1 shape", "2, 3")
    assert "Valid" in result_text(visit) and "f32[2, 3]" in result_text(visit)


def test_a_damaged_link_says_so_keeps_nothing_and_offers_an_example(visit):
    visit.open("#d=bm90IGpzb24")  # base64 of "not json"
    notice = visit.page.locator("#notice").inner_text()
    assert "damaged" in notice and "atob" not in notice
    assert "not json" not in visit.page.locator("#json").input_value()
    visit.screenshot("first-hour-damaged-link")
    visit.settle(lambda: visit.page.get_by_role("button", name="Show an example").click())
    assert visit.page.locator("#notice").is_hidden()
    assert "Valid" in result_text(visit)


def test_segment_max_shows_the_stale_name_only_when_used(visit):
    visit.open()
    pick(visit, "SegmentMax")
    assert visit.page.get_by_label("empty_segment_value", exact=True).count() == 0
    stale = {
        "kind": "SegmentMax",
        "attrs": {"empty_segment_value": "ZERO"},
        "inputs": [{"dtype": "f32", "shape": [4]}, {"dtype": "s32", "shape": [4]}],
    }
    visit.open(fragment(stale))
    assert visit.page.get_by_label("empty_segment_value", exact=True).count() == 1


def test_did_you_mean_buttons_put_the_name_in_place(visit):
    typo = {
        "kind": "ReduceMax",
        "attrs": {"axes": [0], "keepdims": True},
        "inputs": [{"dtype": "flaot32", "shape": [2]}],
    }
    visit.open(fragment(typo))
    assert "did you mean 'keep_dims'?" in result_text(visit)
    visit.screenshot("first-hour-did-you-mean")
    visit.settle(lambda: visit.page.get_by_role("button", name="Use keep_dims for attrs.keepdims").click())
    assert from_fragment(visit.page.url)["attrs"] == {"axes": [0], "keep_dims": True}
    visit.settle(lambda: visit.page.get_by_role("button", name="Use f32 for inputs[0].dtype").click())
    assert from_fragment(visit.page.url)["inputs"][0]["dtype"] == "f32"
    assert "Valid" in result_text(visit)
    visit.open(fragment({"kind": "ArgMax", "inputs": []}))
    visit.settle(lambda: visit.page.get_by_role("button", name="Use Argmax for kind").click())
    assert field(visit, "kind").input_value() == "Argmax"


def test_the_op_picker_groups_by_family_and_searches(visit):
    visit.open()
    groups = visit.page.eval_on_selector_all("#f-kind optgroup", "gs => gs.map(g => g.label)")
    assert any(label.startswith("seed ops") for label in groups) and any(
        label.startswith("eltwise") for label in groups
    )
    visit.page.get_by_label("find an op", exact=True).fill("leakyrelu")
    assert "1 op match" in visit.page.locator("#op-search-status").inner_text()
    visit.settle(lambda: visit.page.get_by_label("find an op", exact=True).press("Enter"))
    assert field(visit, "kind").input_value() == "LeakyReLU"
    visit.screenshot("first-hour-op-picker")
