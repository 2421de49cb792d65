"""The graph view in Chromium: real graph files opened through the file picker, read back from the
list view (the accessible twin of the drawing), the summary, the side panel and the calculator.

Every visit also asserts, when the test ends, that the page asked no host but its own and logged no
console error (see conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.web.conftest import DESKTOP, PHONE
from tests.web.graphs import onednn_text

BENCHDNN = Path(__file__).parent.parent / "formats" / "files" / "benchdnn"


def open_graph(visit, files: list[dict]) -> None:
    """Open the graph view and pick files; wait until the answer is drawn (or listed)."""
    if "#graph" not in visit.page.url:
        visit.open("#graph")
    before = int(visit.page.evaluate("Number(document.documentElement.dataset.graphs || 0)"))
    visit.page.set_input_files("#graph-file", files)
    visit.page.wait_for_function(
        "n => Number(document.documentElement.dataset.graphs || 0) > n", arg=before, timeout=30_000
    )


def json_file(name: str, text: str) -> dict:
    return {"name": name, "mimeType": "application/json", "buffer": text.encode()}


def list_rows(visit) -> list[dict]:
    """The list view's rows as {node, kind, verdict, inputs, outputs, findings}."""
    visit.page.get_by_role("button", name="List", exact=True).click()
    return visit.page.evaluate(
        """() => [...document.querySelectorAll('#graph-list tbody tr')].map(tr => {
            const c = [...tr.children].map(td => td.innerText.trim());
            return {node: c[0], kind: c[1], verdict: c[2], inputs: c[3], outputs: c[4], findings: c[5]};
        })"""
    )


def status(visit) -> str:
    return visit.page.locator("#graph-status").inner_text()


def test_a_benchdnn_graph_shows_every_inferred_shape(visit):
    path = BENCHDNN / "complex_fusion" / "mha" / "GQA-f32-v2.json"
    open_graph(visit, [json_file(path.name, path.read_text())])
    assert status(visit).startswith("Valid"), status(visit)
    rows = list_rows(visit)
    assert len(rows) == len(json.loads(path.read_text())["graph"])
    matmul = next(r for r in rows if r["kind"] == "MatMul")
    assert matmul["inputs"] == "f32[32, 2, 8, 384, 64], f32[32, 2, 1, 384, 64]"
    assert matmul["outputs"] == "f32[32, 2, 8, 384, 384]"
    assert all(r["verdict"] == "valid" for r in rows), rows
    assert visit.page.title() == "GQA-f32-v2.json · opspec graph"
    # The tabs: the calculator is one click away, its link in the address bar again.
    visit.page.get_by_role("link", name="Calculator").click()
    assert visit.page.locator("#view-calculator").is_visible()
    assert "#d=" in visit.page.url
    assert visit.page.title().endswith(" · opspec shape calculator")


def test_one_error_in_forty_nodes_is_marked_summarised_and_opens_in_the_calculator(visit):
    open_graph(visit, [json_file("forty.json", onednn_text(40, error_at=19))])
    assert status(visit).startswith("Invalid"), status(visit)
    summary = visit.page.locator("#graph-summary .summary")
    assert summary.locator("li").count() == 1
    assert "ReduceMax.axes.range" in summary.inner_text()
    summary.get_by_role("link").click()
    assert visit.page.locator("#graph-side-heading").inner_text() == "ReduceMax reduce_6"
    side = visit.page.locator("#graph-side").inner_text()
    assert "axis 5 is out of range" in side and "oneDNN Graph ReduceMax, attribute axes" in side
    assert "axes" in side and "f32[1, 64, 8, 8]" in side
    # The drawing holds the node selected; the list marks the same row.
    assert visit.page.evaluate("document.querySelector('#graph-canvas') !== null")
    rows = list_rows(visit)
    bad = [r for r in rows if r["verdict"] == "error"]
    assert [r["node"] for r in bad] == ["reduce_6"]
    assert visit.page.locator("#graph-list tr[aria-current]").inner_text().startswith("reduce_6")
    # Every edge's type: each Add reads two values and writes f32[1, 64, 8, 8].
    adds = [r for r in rows if r["kind"] == "Add"]
    assert adds and all(r["outputs"] == "f32[1, 64, 8, 8]" for r in adds)
    before = visit.results()
    visit.page.get_by_role("link", name="Open in the calculator").click()
    visit.wait_result(before)
    visit.page.wait_for_timeout(150)
    result = visit.page.locator("#result").inner_text()
    assert "Invalid" in result and "ReduceMax.axes.range" in result
    assert visit.page.locator("#view-calculator").is_visible()
    assert not visit.page.locator("#view-graph").is_visible()


def test_an_onnx_model_typed_by_inference(visit):
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("ReduceMax", ["r", "axes"], ["m"], name="reduce", keepdims=1),
        helper.make_node("Max", ["r", "m"], ["y"], name="max"),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=[axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    open_graph(
        visit,
        [{"name": "m.onnx", "mimeType": "application/octet-stream", "buffer": model.SerializeToString()}],
    )
    rows = {r["node"]: r for r in list_rows(visit)}
    assert rows["reduce"]["outputs"] == "f32[N, 1, 8, 8]", rows
    assert rows["max"]["inputs"] == "f32[N, 3, 8, 8], f32[N, 1, 8, 8]"
    assert rows["max"]["outputs"] == "f32[N, 3, 8, 8]"
    assert visit.posted[-1] == "application/octet-stream"


def test_an_ir_with_its_weights(visit, tmp_path):
    ov = pytest.importorskip("openvino")
    from openvino import opset1, opset16

    x = opset16.parameter([2, 6, 4], np.float32, name="x")
    w = opset16.constant(np.ones((2, 6, 4), np.float32), name="w")
    biggest = opset16.maximum(x, w, name="biggest")
    axes = opset16.constant(np.array([2], dtype=np.int64), name="axes")
    reduced = opset1.reduce_max(biggest, axes, keep_dims=False, name="reduce")
    ov.save_model(ov.Model([reduced], [x], "g"), tmp_path / "net.xml", compress_to_fp16=False)
    open_graph(
        visit,
        [
            {"name": "net.xml", "mimeType": "application/xml", "buffer": (tmp_path / "net.xml").read_bytes()},
            {
                "name": "net.bin",
                "mimeType": "application/octet-stream",
                "buffer": (tmp_path / "net.bin").read_bytes(),
            },
        ],
    )
    assert visit.posted[-1].startswith("multipart/form-data")
    rows = {r["node"]: r for r in list_rows(visit)}
    assert rows["reduce"]["inputs"].startswith("f32[2, 6, 4]"), rows
    assert rows["reduce"]["outputs"] == "f32[2, 6]"
    assert rows["reduce"]["verdict"].startswith("valid")


def test_keyboard_search_and_the_list(visit):
    open_graph(visit, [json_file("forty.json", onednn_text(40, error_at=19))])
    visit.page.locator(".graphview__paste summary").click()
    unlabelled = visit.page.evaluate(
        """() => [...document.querySelectorAll('#view-graph input, #view-graph textarea')]
             .filter(c => !c.labels.length || ![...c.labels].some(l => l.offsetParent))
             .map(c => c.id)"""
    )
    assert unlabelled == []
    canvas = visit.page.locator("#graph-canvas")
    canvas.focus()
    visit.page.keyboard.press("]")
    first = visit.page.locator("#graph-side-heading").inner_text()
    assert first != "No node selected"
    visit.page.keyboard.press("]")
    assert visit.page.locator("#graph-side-heading").inner_text() != first
    for key in ["ArrowLeft", "ArrowDown", "+", "-", "0"]:
        visit.page.keyboard.press(key)
    # Search by kind, Enter steps through the matches.
    visit.page.get_by_label("Find a node by name or kind").fill("reducemax")
    assert "5 matches" in visit.page.locator("#graph-search-count").inner_text()
    visit.page.get_by_label("Find a node by name or kind").press("Enter")
    assert visit.page.locator("#graph-side-heading").inner_text().startswith("ReduceMax ")
    # The list: Tab reaches a row's button, Up and Down move between rows, Enter selects.
    visit.page.get_by_role("button", name="List", exact=True).click()
    visit.page.locator("#graph-list tbody button").first.focus()
    visit.page.keyboard.press("ArrowDown")
    visit.page.keyboard.press("ArrowDown")
    visit.page.keyboard.press("Enter")
    assert visit.page.locator("#graph-side-heading").inner_text() == "Add add_0"


def test_a_broken_file_is_answered_with_where(visit):
    open_graph_text = '{"graph": [ {"id": 0,'
    visit.open("#graph")
    visit.page.set_input_files("#graph-file", [json_file("broken.json", open_graph_text)])
    visit.page.locator("#graph-summary .summary").wait_for()
    assert "line" in visit.page.locator("#graph-summary").inner_text()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_graph_screens(make_visit, size, viewport, scheme):
    visit = make_visit(viewport, scheme)
    open_graph(visit, [json_file("forty.json", onednn_text(40, error_at=19))])
    visit.page.wait_for_timeout(100)
    visit.page.screenshot(path=str(shot(f"graph-{size}-{scheme}-40")))
    visit.page.locator("#graph-summary a").first.click()
    visit.page.wait_for_timeout(100)
    visit.page.screenshot(path=str(shot(f"graph-{size}-{scheme}-40-selected")), full_page=True)
    if size == "desktop" and scheme == "light":  # the README's picture (docs/graph-view.png, made smaller)
        visit.page.locator("#graph-main").screenshot(path=str(shot("graph-readme")))
    open_graph(visit, [json_file("big.json", onednn_text(5000, error_at=2500))])
    visit.page.wait_for_timeout(100)
    assert "5000 ops" in status(visit)
    visit.page.screenshot(path=str(shot(f"graph-{size}-{scheme}-5000")))
    visit.page.get_by_role("button", name="Fit to screen").click()
    visit.page.wait_for_timeout(100)
    visit.page.screenshot(path=str(shot(f"graph-{size}-{scheme}-5000-fit")))
    visit.page.locator("#graph-summary a").first.click()
    visit.page.wait_for_timeout(100)
    visit.page.screenshot(path=str(shot(f"graph-{size}-{scheme}-5000-selected")))
    width = visit.page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], f"{width}px wide at {viewport['width']}"


def shot(name: str) -> Path:
    from tests.web.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def test_the_cli_link_opens_the_node_in_the_calculator(visit, tmp_path, capsys):
    from app.cli import main

    path = tmp_path / "forty.json"
    path.write_text(onednn_text(40, error_at=19))
    assert main(["check", "--link-base", f"{visit.origin}/", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    finding = next(i for i, line in enumerate(lines) if "ReduceMax.axes.range" in line)
    link = lines[finding + 1].strip()
    assert link.startswith(f"{visit.origin}/#d=")
    visit.open(link.removeprefix(visit.origin + "/"))
    result = visit.page.locator("#result").inner_text()
    assert "Invalid" in result and "ReduceMax.axes.range" in result


def test_a_dropped_file_is_opened_and_the_mouse_selects_and_pans(visit):
    visit.open("#graph")
    text = onednn_text(40, error_at=19)
    visit.page.evaluate(
        """(text) => {
            const data = new DataTransfer();
            data.items.add(new File([text], "dropped.json", { type: "application/json" }));
            const target = document.getElementById("view-graph");
            target.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
            target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        }""",
        text,
    )
    visit.page.wait_for_function("() => Number(document.documentElement.dataset.graphs || 0) > 0")
    assert "dropped.json" in status(visit)
    # The summary's link centres its node: a click at the drawing's centre selects it again.
    visit.page.locator("#graph-summary a").first.click()
    visit.page.get_by_role("button", name="List", exact=True).click()
    visit.page.get_by_role("button", name="relu_0").click()
    visit.page.get_by_role("button", name="Drawing", exact=True).click()
    assert visit.page.locator("#graph-side-heading").inner_text() == "ReLU relu_0"
    box = visit.page.locator("#graph-canvas").bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    visit.page.mouse.click(*centre)
    assert visit.page.locator("#graph-side-heading").inner_text() == "ReLU relu_0"
    # A drag pans: the node leaves the centre, and a click there selects nothing new.
    visit.page.mouse.move(*centre)
    visit.page.mouse.down()
    visit.page.mouse.move(centre[0] + 300, centre[1] + 200, steps=5)
    visit.page.mouse.up()
    visit.page.locator("#graph-summary a").first.click()
    visit.page.mouse.click(*centre)
    assert visit.page.locator("#graph-side-heading").inner_text() == "ReduceMax reduce_6"


def test_over_the_drawing_limit_the_list_is_shown(visit):
    visit.open("#graph")
    visit.page.evaluate("() => { document.documentElement.dataset.drawLimit = '30'; }")
    open_graph(visit, [json_file("forty.json", onednn_text(40, error_at=19))])
    assert "more than the drawing takes (30): the list view shows them all" in status(visit)
    assert visit.page.locator("#graph-list").is_visible()
    assert not visit.page.locator("#graph-canvas").is_visible()
    assert visit.page.get_by_role("button", name="Drawing", exact=True).is_disabled()
    assert visit.page.locator("#graph-list tbody tr").count() == 40
    visit.page.locator("#graph-summary a").first.click()
    assert visit.page.locator("#graph-list tr[aria-current]").inner_text().startswith("reduce_6")


def test_a_tap_selects_on_a_touch_screen(browser, page_origin):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, service_workers="block")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{page_origin}/#graph")
    page.set_input_files("#graph-file", [json_file("forty.json", onednn_text(40, error_at=19))])
    page.wait_for_function("() => Number(document.documentElement.dataset.graphs || 0) > 0")
    # Chosen in the list, the node is centred in the drawing; a tap there selects it (the heading was
    # blanked first, so only the tap can write it again).
    page.get_by_role("button", name="List", exact=True).click()
    page.get_by_role("button", name="relu_0").click()
    page.get_by_role("button", name="Drawing", exact=True).click()
    canvas = page.locator("#graph-canvas")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.locator("#graph-side-heading").evaluate("h => { h.textContent = ''; }")
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(100)
    assert page.locator("#graph-side-heading").inner_text() == "ReLU relu_0"
    context.close()
    assert not errors


def test_pasted_onednn_json(visit):
    visit.open("#graph")
    visit.page.locator(".graphview__paste summary").click()
    path = BENCHDNN / "complex_fusion" / "mha" / "GQA-f32-v2.json"
    visit.page.get_by_label("oneDNN Graph JSON", exact=True).fill(path.read_text())
    visit.page.get_by_role("button", name="Check the pasted graph").click()
    visit.page.wait_for_function("() => Number(document.documentElement.dataset.graphs || 0) > 0")
    assert status(visit).startswith("Valid: the pasted graph")
    assert visit.posted[-1] == "application/json"


def test_expressions_flow_on_the_edges_of_a_kv_cache_step(visit):
    """Issue 31: the present key and value of a decoder step are past + 1 long, on every edge."""
    from tests.formats.models import kv_cache_step

    model = {"name": "decoder_step.onnx", "mimeType": "application/octet-stream", "buffer": kv_cache_step()}
    open_graph(visit, [model])
    assert status(visit).startswith("Valid"), status(visit)
    rows = {r["node"]: r for r in list_rows(visit)}
    assert rows["concat_key"]["outputs"] == "f32[B, past + 1, 16]"
    assert rows["scores"]["outputs"] == "f32[B, 1, past + 1]"
    visit.page.get_by_role("button", name="Drawing", exact=True).click()
    visit.screenshot("symbolic-dims-graph")


def test_a_value_declared_two_ways_is_drawn_on_its_edge_and_summarised(visit):
    """benchdnn's int8_maxpool_add_mul_fusion.json: tensor 4257 is [1, 64, 300, 300] where Add makes it and
    [1, 64, 1, 1] where Multiply reads it. No node is wrong; the edge is."""
    path = BENCHDNN / "pattern" / "int8" / "int8_maxpool_add_mul_fusion.json"
    open_graph(visit, [json_file(path.name, path.read_text())])
    assert status(visit).startswith("Invalid"), status(visit)
    assert visit.page.evaluate("document.documentElement.dataset.faultyValues") == "1"
    summary = visit.page.locator("#graph-summary .summary")
    assert summary.locator("li").count() == 1
    head = summary.locator(".diagnostic__head").inner_text()
    assert "graph.edge.shape" in head and "Multiply BINARY_3, graph[4].inputs[1]" in head
    summary.get_by_role("link").click()
    assert visit.page.locator("#graph-side-heading").inner_text() == "Multiply BINARY_3"
    side = visit.page.locator("#graph-side").inner_text()
    assert "value '4257' is declared f32 [1, 64, 1, 1] by graph[4] (BINARY_3)" in side
    assert "graph[3].outputs[0]: graph[3] (BINARY_2) declares f32 [1, 64, 300, 300]" in side
    visit.page.screenshot(
        path=str(Path(__file__).parent / "screenshots" / "graph-edge-error.png"), full_page=True
    )
    rows = {r["node"]: r for r in list_rows(visit)}
    assert rows["BINARY_3"]["verdict"] == "valid" and "graph.edge.shape" in rows["BINARY_3"]["findings"]


def test_labels_and_tags_never_overlap_and_list_cells_never_break_mid_word(visit):
    """Two graph inputs above one narrow node (f32[2, 3] and s64[1] read by Gather), an ONNX tag beside a
    long kind, and the list view at 1280 px beside the side panel."""
    from onnx import TensorProto, helper

    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
              helper.make_tensor_value_info("idx", TensorProto.INT64, [1])]  # fmt: skip
    nodes = [
        helper.make_node("Gather", ["x", "idx"], ["g"], name="gather", axis=0),
        helper.make_node("GlobalAveragePool", ["x"], ["p"], name="gap_with_a_long_name"),
        # a long finding in the list's last column, which crowded the others into breaking mid-word
        helper.make_node("ReduceMax", ["x", "axes"], ["r"], name="reduce", keepdims=1),
    ]
    outputs = [helper.make_tensor_value_info("g", TensorProto.FLOAT, [1, 3]),
               helper.make_tensor_value_info("p", TensorProto.FLOAT, [2, 3])]  # fmt: skip
    outputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3]))
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [5])
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=[axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    open_graph(
        visit,
        [{"name": "m.onnx", "mimeType": "application/octet-stream", "buffer": model.SerializeToString()}],
    )
    visit.page.screenshot(path=str(Path(__file__).parent / "screenshots" / "graph-labels.png"))
    centres = visit.page.evaluate(
        """async () => (await import("./web/graphcanvas.js")).sideBySide([62, 50, 40], 100)"""
    )
    assert centres == [100 - 82 + 31, 100 - 82 + 62 + 6 + 25, 100 - 82 + 62 + 6 + 50 + 6 + 20]
    list_rows(visit)
    # each kind, type and heading on one line: its text's boxes all at one height
    broken = visit.page.evaluate(
        """() => [...document.querySelectorAll("#graph-list .nodes__type, #graph-list .nodes__kind, #graph-list thead th")]
            .filter((e) => {
              const range = document.createRange();
              range.selectNodeContents(e);
              return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
            })
            .map((e) => e.innerText)"""
    )
    assert broken == []
