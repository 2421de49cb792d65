"""The shape calculator in Chromium: typed through the form as a person would, checked on screen.

Every visit (the `visit` fixture) also asserts, when the test ends, that the page asked no host but
its own and logged no console error."""

from __future__ import annotations

import base64
import json

import pytest

from tests.web.conftest import DESKTOP, PHONE


def fragment(descriptor: dict) -> str:
    compact = json.dumps(descriptor, separators=(",", ":"))
    return "#d=" + base64.urlsafe_b64encode(compact.encode()).decode().rstrip("=")


def from_fragment(url: str) -> dict:
    encoded = url.split("#d=", 1)[1]
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def result_text(visit) -> str:
    return visit.page.locator("#result").inner_text()


def pick(visit, kind: str) -> None:
    """Choose an op in the picker; choosing the op already shown would change nothing, so go by another."""
    picker = visit.page.get_by_label("kind", exact=True)
    if picker.input_value() == kind:
        visit.settle(lambda: picker.select_option("Max" if kind != "Max" else "ReduceMax"))
    visit.settle(lambda: picker.select_option(kind))


def field(visit, label: str):
    return visit.page.get_by_label(label, exact=True)


def type_into(visit, label: str, text: str) -> None:
    visit.settle(lambda: field(visit, label).fill(text))


# --- each op's happy path, typed ----------------------------------------------------------------------


def test_reduce_max_typed(visit):
    visit.open()
    pick(visit, "ReduceMax")
    type_into(visit, "src shape", "2, N, 4")
    type_into(visit, "axes", "1")
    visit.settle(lambda: field(visit, "keep_dims").check())
    text = result_text(visit)
    assert "Valid" in text
    assert "f32[2, 1, 4]" in text
    assert visit.page.locator("#result .summary").count() == 0
    # Declaring the outputs starts from the inferred ones; a wrong one is marked on its field.
    visit.settle(lambda: visit.page.get_by_label("Check declared outputs against the inferred ones").check())
    assert field(visit, "dst shape").input_value() == "2, 1, 4"
    type_into(visit, "dst shape", "2, 4")
    assert field(visit, "dst shape").get_attribute("aria-invalid") == "true"
    assert "ReduceMax.outputs.rank" in result_text(visit)


def test_segment_max_typed(visit):
    visit.open()
    pick(visit, "SegmentMax")
    visit.settle(lambda: field(visit, "fill_mode").select_option("LOWEST"))
    type_into(visit, "data shape", "N, 4")
    visit.settle(lambda: field(visit, "segment_ids dtype").select_option("s64"))
    type_into(visit, "segment_ids shape", "[N]")
    visit.settle(lambda: visit.page.get_by_role("button", name="Add the optional num_segments input").click())
    type_into(visit, "num_segments shape", "[]")
    type_into(visit, "num_segments data", "3")
    text = result_text(visit)
    assert "Valid" in text
    assert "f32[3, 4]" in text
    # An alias of the same op keeps everything typed.
    visit.settle(lambda: field(visit, "kind").select_option("SegmentMax-16"))
    assert field(visit, "num_segments data").input_value() == "3"
    assert from_fragment(visit.page.url)["kind"] == "SegmentMax-16"
    assert "f32[3, 4]" in result_text(visit)


def test_argmax_typed_with_an_alias(visit):
    visit.open()
    pick(visit, "mli_krn_argmax_sa8")
    type_into(visit, "axis", "1")
    type_into(visit, "top_k", "2")
    type_into(visit, "in shape", '[2, "W", 4]')
    type_into(visit, "in quant", '{"scale": 1, "zero_point": 0}')
    text = result_text(visit)
    assert "Valid" in text
    assert "sa32[W, 2]" in text


def test_expressions_typed_as_dims_give_live_results(visit):
    """Issue 31: `S + T`, `H // 2` typed as dims are read by the server, the result in canonical form."""
    visit.open()
    pick(visit, "StaticReshape")
    type_into(visit, "src shape", "B, S + 1, H // 2, 4")
    type_into(visit, "shape", "[0, -1, 4]")
    type_into(visit, "special_zero", "true")
    text = result_text(visit)
    assert "Valid" in text and "f32[B, S * (H // 2) + H // 2, 4]" in text, text
    pick(visit, "Add")
    type_into(visit, "src_0 shape", "N, min(S, 512), T+S")
    type_into(visit, "src_1 shape", "1, 1, S + T")
    text = result_text(visit)
    assert "Valid" in text and "f32[N, min(S, 512), S + T]" in text, text
    assert from_fragment(visit.page.url)["inputs"][0]["shape"] == ["N", "min(S, 512)", "T+S"]
    type_into(visit, "src_1 shape", "1, 1, S + T + 1")  # never S + T: one of them must be 1
    assert "Add.broadcast.assumption" in result_text(visit)
    type_into(visit, "src_1 shape", "1, 1, S +")  # the page reads it as no dim, at the field
    assert field(visit, "src_1 shape").get_attribute("aria-invalid") == "true"
    assert 'dim 2 is "S +"' in visit.page.locator("#f-inputs").inner_text()
    type_into(visit, "src_1 shape", "1, 1, S // 0")  # the server names what is wrong, at the field
    assert field(visit, "src_1 shape").get_attribute("aria-invalid") == "true"
    assert "divides by 0" in visit.page.locator("#f-inputs").inner_text()
    type_into(visit, "src_1 shape", "1, 1, S + T")
    visit.screenshot("symbolic-dims-calculator")


def test_max_adds_and_removes_inputs(visit):
    visit.open()
    pick(visit, "Max")
    type_into(visit, "X1 shape", "N, 3, 1")
    visit.settle(lambda: visit.page.get_by_role("button", name="Add input X2").click())
    # The keyboard's place follows: the new input's shape has the focus.
    assert visit.page.evaluate("document.activeElement.id") == field(visit, "X2 shape").get_attribute("id")
    visit.settle(lambda: visit.page.keyboard.type("4"))
    assert "f32[N, 3, 4]" in result_text(visit)
    visit.settle(lambda: visit.page.get_by_role("button", name="Add input X3").click())
    type_into(visit, "X3 shape", "?")
    assert "f32[N, 3, 4]" in result_text(visit)
    assert from_fragment(visit.page.url)["inputs"][2]["shape"] == [-1]
    visit.settle(lambda: visit.page.get_by_role("button", name="Remove X3").click())
    assert field(visit, "X3 shape").count() == 0
    assert len(from_fragment(visit.page.url)["inputs"]) == 2


# --- marks on fields ---------------------------------------------------------------------------------


def test_invalid_axis_marks_the_axes_field_with_the_rule(visit):
    visit.open()
    pick(visit, "ReduceMax")
    type_into(visit, "src shape", "2, N, 4")
    type_into(visit, "axes", "1, 5")
    axes = field(visit, "axes")
    assert axes.get_attribute("aria-invalid") == "true"
    described = axes.get_attribute("aria-describedby").split()
    messages = " ".join(visit.page.locator(f"#{i}").inner_text() for i in described)
    assert "ReduceMax.axes.range" in messages
    assert "axis 5 is out of range [-3, 2]" in messages
    assert field(visit, "src shape").get_attribute("aria-invalid") is None
    text = result_text(visit)
    assert "Invalid" in text and "ReduceMax.axes.range" in text
    assert "Every axis is in [-r, r-1]" in text  # the rule's statement from GET /v1/ops/ReduceMax
    # The summary links to the field, and following the link keeps the #d= link.
    summary = visit.page.locator("#result .summary")
    assert "There is a problem" in summary.inner_text()
    # The rule id links to its page in the docs (GET /v1/ops/ReduceMax's url for it), in a new tab.
    rule = summary.get_by_role("link", name="ReduceMax.axes.range")
    assert rule.get_attribute("href") == (
        "https://opspec.github.io/opspec/reference/ops/ReduceMax.html#ReduceMax.axes.range"
    )
    assert rule.get_attribute("target") == "_blank"
    url = visit.page.url
    summary.locator("a.diagnostic__message").first.click()
    assert visit.page.evaluate("document.activeElement.id") == axes.get_attribute("id")
    assert visit.page.url == url


def test_warning_is_marked_apart_from_errors(visit):
    descriptor = {
        "kind": "SegmentMax",
        "attrs": {"empty_segment_value": "ZERO"},
        "inputs": [{"dtype": "f32", "shape": [3, 4]}, {"dtype": "s32", "shape": [3]}],
    }
    visit.open(fragment(descriptor))
    stale = field(visit, "empty_segment_value")
    assert stale.get_attribute("aria-invalid") is None
    wrapper = visit.page.locator('.field[data-path="attrs.empty_segment_value"]')
    assert "field--warning" in wrapper.get_attribute("class")
    assert "SegmentMax.fill_mode.stale_name" in wrapper.inner_text()
    assert "Valid" in result_text(visit)


def test_a_marked_dtype_leaves_its_shape_the_whole_row(visit):
    # A dtype with a message takes the whole row; the shape after it must not drop to the dtype's
    # narrow column, where its own message wrapped a word a line and broke the rule id.
    visit.open(
        fragment(
            {
                "kind": "Max",
                "inputs": [{"dtype": "f32", "shape": [2, 4]}, {"dtype": "f16", "shape": ["N", 4]}],
            }
        )
    )
    assert field(visit, "X2 dtype").get_attribute("aria-invalid") == "true"
    dtype, shape = (
        visit.page.locator(f'.field[data-path="inputs[1].{name}"]') for name in ("dtype", "shape")
    )
    assert "field--warning" in shape.get_attribute("class")
    assert shape.bounding_box()["width"] == dtype.bounding_box()["width"]


def test_not_a_descriptor_shows_the_problem_beside_the_field(visit):
    visit.open()
    pick(visit, "ReduceMax")
    type_into(visit, "src shape", "2, -3")  # readable, but the API refuses it (422)
    shape = field(visit, "src shape")
    assert shape.get_attribute("aria-invalid") == "true"
    assert "dim -3 is negative" in visit.page.locator('.field[data-path="inputs[0].shape"]').inner_text()
    assert "Invalid" in result_text(visit) and "422" not in result_text(visit)  # said as a broken rule is
    type_into(visit, "src shape", "2, 3 4")  # not readable at all: said on the spot, nothing sent
    assert 'dim 1 is "3 4"' in visit.page.locator('.field[data-path="inputs[0].shape"]').inner_text()
    assert "Fix the marked field" in result_text(visit)


# --- JSON view, links, curl -----------------------------------------------------------------------------


def test_pasted_json_fills_the_form(visit):
    visit.open()
    pasted = {
        "kind": "SegmentMax-16",
        "attrs": {"fill_mode": "ZERO"},
        "inputs": [
            {"dtype": "f16", "shape": [5, "C"]},
            {"dtype": "s32", "shape": [5], "data": [0, 0, 1, 1, 3]},
        ],
    }
    editor = visit.page.get_by_label("descriptor JSON")
    visit.settle(lambda: editor.fill(json.dumps(pasted, indent=2)))
    assert field(visit, "kind").input_value() == "SegmentMax-16"
    assert field(visit, "fill_mode").input_value() == "ZERO"
    assert field(visit, "data dtype").input_value() == "f16"
    assert field(visit, "data shape").input_value() == "5, C"
    assert field(visit, "segment_ids data").input_value() == "[0, 0, 1, 1, 3]"
    assert field(visit, "data data").input_value() == ""
    assert "f16[4, C]" in result_text(visit)
    assert from_fragment(visit.page.url) == pasted
    # And the other way: the form's edit shows in the JSON.
    visit.page.locator("#result-heading").focus()
    type_into(visit, "data shape", "5, 8")
    assert json.loads(editor.input_value())["inputs"][0]["shape"] == [5, 8]


def test_a_link_restores_the_page(visit):
    descriptor = {
        "kind": "ReduceMax",
        "attrs": {"axes": [0, -1], "keep_dims": True},
        "inputs": [{"dtype": "bf16", "shape": [2, 1, 2], "data": [[[1, "nan"]], [[-0.0, "-inf"]]]}],
    }
    visit.open(fragment(descriptor))
    assert field(visit, "kind").input_value() == "ReduceMax"
    assert visit.page.title() == "ReduceMax · opspec shape calculator"
    assert field(visit, "axes").input_value() == "0, -1"
    assert field(visit, "keep_dims").is_checked()
    assert field(visit, "src dtype").input_value() == "bf16"
    assert field(visit, "src shape").input_value() == "2, 1, 2"
    assert field(visit, "src data").input_value() == "[[[1, nan]],\n [[-0, -inf]]]"
    text = result_text(visit)
    assert "Valid" in text and "bf16[1, 1, 1]" in text
    assert visit.page.locator("#result .values__text").inner_text() == "[[[NaN]]]"
    assert from_fragment(visit.page.url) == descriptor
    type_into(visit, "axes", "-1")
    assert from_fragment(visit.page.url) == {**descriptor, "attrs": {"axes": [-1], "keep_dims": True}}


def test_copy_curl_gives_the_same_request(visit):
    visit.open()
    visit.page.get_by_role("button", name="Copy curl").click()
    command = visit.page.locator("#curl").inner_text()
    prefix = f"curl -s {visit.origin}/v1/validate -H 'Content-Type: application/json' -d '"
    assert command.startswith(prefix)
    assert json.loads(command[len(prefix) : -1]) == from_fragment(visit.page.url)
    assert visit.page.evaluate("navigator.clipboard.readText()") == command


# --- evaluation ------------------------------------------------------------------------------------------


def test_evaluate_shows_nan_and_negative_zero(visit):
    visit.open()
    pick(visit, "ReduceMax")
    type_into(visit, "axes", "1")
    type_into(visit, "src shape", "3, 2")
    type_into(visit, "src data", "[[-0, -1], [nan, 2], [-inf, -inf]]")
    cells = visit.page.locator("#result .grid td").all_inner_texts()
    assert cells == ["-0", "NaN", "-inf"]
    assert from_fragment(visit.page.url)["inputs"][0]["data"] == [[-0.0, -1], ["nan", 2], ["-inf", "-inf"]]
    # -0.0 went over the wire as -0.0 (JSON.stringify would have written 0).
    assert "-0.0" in json.dumps(from_fragment(visit.page.url))


def test_evaluate_beyond_rank_two_is_nested_text(visit):
    descriptor = {
        "kind": "Max",
        "inputs": [{"dtype": "s64", "shape": [2, 1, 2], "data": [[[1, 9007199254740993]], [[-0, 4]]]}],
    }
    visit.open(fragment(descriptor))
    text = visit.page.locator("#result .values__text").inner_text()
    assert text == "[[[1, 9007199254740993]],\n [[0, 4]]]"


# --- the page itself ------------------------------------------------------------------------------------


def test_every_control_has_a_visible_label_and_requests_stay_home(visit):
    visit.open()
    unlabelled = visit.page.evaluate(
        """[...document.querySelectorAll('input, select, textarea')]
             .filter(c => c.getClientRects().length)  // the view on screen; the graph view has its own test
             .filter(c => !c.labels.length || ![...c.labels].some(l => l.offsetParent))
             .map(c => c.id)"""
    )
    assert unlabelled == []
    assert visit.page.locator("#result").get_attribute("role") == "status"
    paths = {url.removeprefix(visit.origin) for url in visit.requests}
    assert {"/", "/web/main.js", "/v1/ops", "/v1/validate"} <= paths
    assert visit.posted and set(visit.posted) == {"application/json"}
    # The keyboard reaches the picker, the attributes, the inputs, the JSON and the copy button.
    visit.page.locator("body").focus()
    reached = set()
    for _ in range(40):
        visit.page.keyboard.press("Tab")
        reached.add(visit.page.evaluate("document.activeElement.id"))
    assert {"f-kind", "f-attrs-axes", "f-inputs-0-shape", "f-inputs-0-data", "json", "copy-curl"} <= reached


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_screens_fit_without_horizontal_scroll(make_visit, size, viewport, scheme):
    visit = make_visit(viewport, scheme)
    # A rich screen: computed values, a warning, and a second descriptor with errors marked.
    example = {
        "kind": "SegmentMax",
        "attrs": {"fill_mode": "ZERO"},
        "inputs": [
            {"dtype": "f32", "shape": [8], "data": [1, 7, -2, "nan", 4, -0.5, -3, -1]},
            {"dtype": "s32", "shape": [8], "data": [0, 0, 0, 1, 1, 3, 5, 5]},
        ],
    }
    visit.open(fragment(example))
    assert "NaN" in result_text(visit)
    assert visit.page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    visit.screenshot(f"{size}-{scheme}-values")
    broken = {
        "kind": "Max",
        "inputs": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f16", "shape": ["N", 4]}],
    }
    visit.open(fragment(broken))
    assert "Invalid" in result_text(visit)
    assert visit.page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    visit.screenshot(f"{size}-{scheme}-errors")


def test_pasted_json_with_unknown_names_is_shown_not_lost(visit):
    visit.open()
    editor = visit.page.get_by_label("descriptor JSON")
    visit.settle(lambda: editor.fill('{"kind": "Foo", "inputs": []}'))
    kind = field(visit, "kind")
    assert kind.get_attribute("aria-invalid") == "true"
    assert "unknown kind 'Foo'" in visit.page.locator('.field[data-path="kind"]').inner_text()
    # topk is Argmax's alias of top_k: not in the schema, so it gets a field of its own.
    pasted = {
        "kind": "Argmax",
        "attrs": {"axis": -1, "topk": 2},
        "inputs": [{"dtype": "sa8", "shape": [6], "quant": {"scale": 1}}],
    }
    visit.settle(lambda: editor.fill(json.dumps(pasted)))
    assert field(visit, "topk").input_value() == "2"
    assert field(visit, "top_k").input_value() == ""
    assert "sa32[1, 2]" in result_text(visit)
    editor.fill('{"kind": "Argmax", ')
    visit.page.locator("#json-msg").wait_for(state="visible")
    assert "This is not JSON yet" in visit.page.locator("#json-msg").inner_text()
    assert editor.get_attribute("aria-invalid") == "true"
    assert field(visit, "topk").input_value() == "2"  # the form keeps the last descriptor


def test_pasted_json_of_the_wrong_shapes_breaks_nothing(visit):
    visit.open()
    editor = visit.page.get_by_label("descriptor JSON")
    odd = {"kind": "Max", "attrs": [1], "inputs": [1, None, {"dtype": "f32", "shape": "2,3"}]}
    visit.settle(lambda: editor.fill(json.dumps(odd)))
    assert "Invalid" in result_text(visit)
    type_into(visit, "X1 shape", "2, 3")  # an edit turns the odd entry into a tensor
    assert from_fragment(visit.page.url)["inputs"][0] == {"dtype": "f32", "shape": [2, 3]}
    visit.settle(lambda: editor.fill('{"kind": "ReduceMax", "inputs": "src"}'))
    assert "inputs is not a list" in visit.page.locator("#f-inputs").inner_text()
    # Uncaught errors would fail the test when the visit ends.


def test_a_broken_link_says_so_and_shows_an_example(visit):
    visit.open("#d=not-base64-json")
    notice = visit.page.locator("#notice").inner_text()
    assert "This link is damaged" in notice and "atob" not in notice  # no browser's raw error
    assert field(visit, "kind").input_value() == "ReduceMax"
    assert "Valid" not in result_text(visit)  # nothing shown as if it were the link's
    visit.settle(lambda: visit.page.get_by_role("button", name="Show an example").click())
    assert "Valid" in result_text(visit)


SYNTAX_CASES = """async () => {
  const s = await import("./web/syntax.js");
  const { stringify } = await import("./web/json.js");
  const shape = (t) => { try { return stringify(s.parseShape(t)); } catch (e) { return "error: " + e.message; } };
  const data = (t) => { try { return stringify(s.parseData(t) ?? "none"); } catch (e) { return "error: " + e.message; } };
  return {
    shapes: ["2, N, 4", '[2, "N", 4]', "?", "*", "", "[]", "2, ?, -1", "2,, 3", "2, 3x",
             "S + T, min(S, 4), (H - 1) // 2 + 1", '["S + 1"]', "2, (S"].map(shape),
    data: ["[[1, nan], [-0, inf]]", "1, 2, 3", "-0", "18446744073709551615", '["NaN", "-Infinity"]',
           "[1, [2", "{\\"encoding\\": \\"base64\\", \\"bytes\\": \\"AAA=\\"}", "", "true, false"].map(data),
    shown: [s.formatShape([2, "N", -1, null]), s.formatShape(null), s.formatShape([]), s.formatShape(["S + 1", "min(S, 4)"]),
            s.formatData([[1, "nan"], [-0, "-inf"]]), s.formatValue(-0), s.formatValue("nan")],
  };
}"""


PRETTY_CASES = """async () => {
  const { pretty } = await import("./web/json.js");
  const rows = [[0, 1.37, 2.74, 4.11, 5.48, 6.85, 8.22, 9.59, 10.96, 12.33, 13.7, 15.07],
                [16.44, 17.81, 19.18, 20.55, 21.92, 23.29, 24.66, 26.03, 27.4, 28.77, 30.14, 31.51]];
  const flat = Array.from({ length: 30 }, (_, k) => k * 1000);
  return [pretty({ dtype: "f32", shape: [2, 12], data: rows }, "", 64), pretty({ data: flat }, "", 64)];
}"""


def test_the_json_view_writes_a_tensors_data_one_row_a_line(visit):
    """A [2, 12] input is its two rows, not 24 lines of one number; a long flat list fills its lines."""
    visit.open()
    nested, flat = visit.page.evaluate(PRETTY_CASES)
    assert nested == (
        '{\n  "dtype": "f32",\n  "shape": [2, 12],\n  "data": [\n'
        "    [0, 1.37, 2.74, 4.11, 5.48, 6.85, 8.22, 9.59, 10.96, 12.33, 13.7, 15.07],\n"
        "    [16.44, 17.81, 19.18, 20.55, 21.92, 23.29, 24.66, 26.03, 27.4, 28.77, 30.14, 31.51]\n"
        "  ]\n}"
    )
    assert flat.splitlines() == [
        "{",
        '  "data": [',
        "    0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000,",
        "    10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000,",
        "    18000, 19000, 20000, 21000, 22000, 23000, 24000, 25000,",
        "    26000, 27000, 28000, 29000",
        "  ]",
        "}",
    ]


def test_the_field_syntax(visit):
    visit.open()
    got = visit.page.evaluate(SYNTAX_CASES)
    assert got["shapes"] == [
        '[2,"N",4]',
        '[2,"N",4]',
        "[-1]",
        "null",
        "null",
        "[]",
        "[2,-1,-1]",
        "error: dim 1 is empty; a dim is a size (4), ? for unknown, a symbol (N) or an expression (S + 1, H // 2)",
        'error: dim 1 is "3x"; a dim is a size (4), ? for unknown, a symbol (N) or an expression (S + 1, H // 2)',
        '["S + T","min(S, 4)","(H - 1) // 2 + 1"]',
        '["S + 1"]',
        'error: dim 1 is "(S"; a dim is a size (4), ? for unknown, a symbol (N) or an expression (S + 1, H // 2)',
    ]
    assert got["data"] == [
        '[[1,"nan"],[-0.0,"inf"]]',
        "[1,2,3]",
        "-0.0",
        "18446744073709551615",
        '["nan","-inf"]',
        "error: the data ends early; a ] or a value is missing",
        '{"encoding":"base64","bytes":"AAA="}',
        '"none"',
        "[true,false]",
    ]
    assert got["shown"] == [
        "2, N, ?, ?",
        "",
        "[]",
        "S + 1, min(S, 4)",
        "[[1, nan],\n [-0, -inf]]",
        "-0",
        "NaN",
    ]
