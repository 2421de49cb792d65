"""The graph view's speed in Debian's Chromium: from a oneDNN Graph JSON file given to the page (the file
input's change event, as a drop or a pick gives it) to the graph drawn (the first frame after the
drawing), for 100, 1,000 and 5,000 nodes; of which the answer of POST /v1/graphs/validate (read,
walk, layout, JSON); and panning: frame intervals while the drawing pans by keyboard at full view
(fit to screen) and at reading size. Prints figures; asserts nothing. Needs /usr/bin/chromium.

    .venv/bin/python bench/bench_graph_page.py [--runs 3] [--sizes 100 1000 5000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OPSPEC_ACCESS_LOG", "false")

from tests.web.browser import launch, serving
from tests.web.graphs import onednn_text

# 60 frames of panning, one arrow key per frame; the intervals between frames, in ms.
PAN = """async () => {
  const canvas = document.getElementById("graph-canvas");
  canvas.focus();
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  let last = performance.now();
  const gaps = [];
  for (let i = 0; i < 60; i++) {
    canvas.dispatchEvent(new KeyboardEvent("keydown", { key: i % 20 < 10 ? "ArrowLeft" : "ArrowUp", bubbles: true }));
    await frame();
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }
  return gaps;
}"""


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with serving() as origin, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{origin}/#graph")
        print(
            f"{'nodes':>6} {'file KB':>8} {'drop to drawn ms':>18} {'of which answer ms':>19} {'pan frame ms (median, p95)':>30}"
        )
        for size in args.sizes:
            text = onednn_text(size, error_at=size // 2)
            file = {"name": f"g{size}.json", "mimeType": "application/json", "buffer": text.encode()}
            totals, answers = [], []
            for _ in range(args.runs):
                before = int(page.evaluate("Number(document.documentElement.dataset.graphs || 0)"))
                page.set_input_files("#graph-file", file)
                page.wait_for_function(
                    "n => Number(document.documentElement.dataset.graphs || 0) > n",
                    arg=before,
                    timeout=120_000,
                )
                totals.append(float(page.evaluate("Number(document.documentElement.dataset.graphMs)")))
                answers.append(float(page.evaluate("Number(document.documentElement.dataset.graphServerMs)")))
            page.get_by_role("button", name="Fit to screen").click()
            fit = page.evaluate(PAN)
            page.get_by_role("button", name="Zoom in").click()
            near = page.evaluate(PAN)
            print(
                f"{size:>6} {len(text) / 1024:>8.0f} {statistics.median(totals):>18.0f} {statistics.median(answers):>19.0f}"
                f"   fit {statistics.median(fit):.1f}, {pct(fit, 0.95):.1f}; near {statistics.median(near):.1f}, {pct(near, 0.95):.1f}"
            )
        browser.close()


if __name__ == "__main__":
    main()
