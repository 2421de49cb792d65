// The graph view beside the calculator: open a graph file (drop, pick or paste), send it to POST
// /v1/graphs/validate on this origin, draw it (graphcanvas.js) or list it (graphlist.js), and read one
// node at a time in the side panel, with a link that opens its descriptor in the calculator (#d=).
import * as api from "./api.js";
import { GraphCanvas, typeText, verdictOf } from "./graphcanvas.js";
import { GraphList, verdictText } from "./graphlist.js";
import { encode } from "./state.js";
import { ruleId } from "./result.js";

const DRAW_LIMIT = 20000; // nodes: beyond this the page lists the graph instead of drawing it
const SUMMARY_LIMIT = 200; // findings in the summary; the list view has them all

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const view = {
  answer: null,
  selected: -1,
  matches: [],
  match: -1,
  mode: "drawing",
};

const canvas = new GraphCanvas($("graph-canvas"), { onSelect: (i, how) => select(i, how) });
const list = new GraphList($("graph-list"), {
  onSelect: (i, how) => select(i, how),
  findings: (i) => [...placed(view.answer, i), ...view.answer.nodes[i].diagnostics],
});

// --- the two views ------------------------------------------------------------------------------------

function showView(name, { focus = false, restore = false } = {}) {
  const graph = name === "graph";
  document.documentElement.dataset.view = name;
  $("view-graph").hidden = !graph;
  $("view-calculator").hidden = graph;
  $("tab-graph").toggleAttribute("aria-current", graph);
  $("tab-calculator").toggleAttribute("aria-current", !graph);
  if (graph) {
    $("tab-graph").setAttribute("aria-current", "page");
    document.title = view.answer ? `${view.name} · opspec graph` : "Graph · opspec shape calculator";
    if (location.hash !== "#graph") history.replaceState(history.state, "", "#graph");
    canvas.resize();
    if (focus) $("graph-heading").focus();
  } else {
    $("tab-calculator").setAttribute("aria-current", "page");
    // From the tab, the calculator's own link comes back; from a #d= link, that link stays.
    if (restore) document.dispatchEvent(new Event("opspec:calculator"));
  }
}

$("tab-graph").addEventListener("click", (e) => {
  e.preventDefault();
  showView("graph", { focus: true });
});
$("tab-calculator").addEventListener("click", (e) => {
  e.preventDefault();
  showView("calculator", { restore: true });
});
window.addEventListener("hashchange", () => {
  if (location.hash.startsWith("#d=")) showView("calculator");
  else if (location.hash === "#graph") showView("graph");
});

// --- opening a file --------------------------------------------------------------------------------

function status(text, kind = "") {
  $("graph-status").textContent = text;
  $("graph-status").className = `graphview__status ${kind ? `graphview__status--${kind}` : ""}`;
}

/** files: File[] from a drop or the picker. An IR's .xml goes with its .bin as multipart. */
async function openFiles(files) {
  files = [...files];
  if (!files.length) return;
  const by = (ext) => files.find((f) => f.name.toLowerCase().endsWith(ext));
  const xml = by(".xml");
  const bin = by(".bin");
  const onnx = by(".onnx");
  const json = by(".json");
  const t0 = performance.now();
  if (xml) {
    if (bin) {
      const form = new FormData();
      form.append("model", xml, xml.name);
      form.append("weights", bin, bin.name);
      return send(form, null, `${xml.name} with ${bin.name}`, t0);
    }
    return send(xml, "application/xml", xml.name, t0);
  }
  if (onnx) return send(onnx, "application/octet-stream", onnx.name, t0);
  if (bin) {
    status(`${bin.name} is an IR's weights: give its .xml with it (pick or drop both files at once).`, "error");
    return;
  }
  const file = json ?? files[0];
  return send(file, "application/json", file.name, t0);
}

async function send(body, type, name, t0) {
  status(`Checking ${name}…`);
  let answer;
  try {
    answer = await api.graph(body, type);
  } catch (error) {
    status(`The service did not answer: ${error.message ?? error}`, "error");
    return;
  }
  if (answer.status !== 200) {
    problem(name, answer);
    return;
  }
  const tAnswer = performance.now();
  show(answer.body, name);
  // The drawing is on screen after the next frame.
  requestAnimationFrame(() => {
    const ms = performance.now() - t0;
    document.documentElement.dataset.graphMs = String(Math.round(ms));
    document.documentElement.dataset.graphServerMs = String(Math.round(tAnswer - t0));
    document.documentElement.dataset.graphs = String(Number(document.documentElement.dataset.graphs ?? 0) + 1);
    performance.mark("opspec:graph");
  });
}

function problem(name, answer) {
  const body = answer.body ?? {};
  status(`${name} cannot be checked (${answer.status} ${body.title ?? ""}).`, "error");
  const box = el("div", "summary");
  box.append(el("h3", "summary__title", "There is a problem with the file"));
  const items = el("ul", "diagnostics");
  const errors = body.errors?.length ? body.errors : [{ message: body.detail ?? "" }];
  for (const e of errors) {
    const where = e.line ? ` (line ${e.line}, column ${e.column})` : e.path ? ` (${e.path})` : "";
    items.append(el("li", "diagnostic diagnostic--error", `${e.message}${where}`));
  }
  box.append(items);
  $("graph-summary").replaceChildren(box);
  $("graph-main").hidden = true;
  view.answer = null;
}

$("graph-file").addEventListener("change", (e) => openFiles(e.target.files));
$("graph-check").addEventListener("click", () => {
  const text = $("graph-text").value;
  if (text.trim()) send(new Blob([text], { type: "application/json" }), "application/json", "the pasted graph", performance.now());
});
const dropTarget = $("view-graph");
dropTarget.addEventListener("dragover", (e) => {
  e.preventDefault();
  dropTarget.classList.add("graphview--drop");
});
dropTarget.addEventListener("dragleave", () => dropTarget.classList.remove("graphview--drop"));
dropTarget.addEventListener("drop", (e) => {
  e.preventDefault();
  dropTarget.classList.remove("graphview--drop");
  openFiles(e.dataTransfer.files);
});

// --- the answer ---------------------------------------------------------------------------------------

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : word.endsWith("ch") ? "es" : "s"}`;
}

function show(answer, name) {
  view.answer = answer;
  view.name = name;
  document.title = `${name} · opspec graph`;
  view.selected = -1;
  const nodes = answer.nodes;
  const counts = { error: 0, warning: 0, valid: 0, unchecked: 0, structural: 0 };
  for (const n of nodes) counts[verdictOf(n)]++;
  const engines = Object.entries(answer.coverage.by_engine).map(([e, n]) => `${n} by ${e}`);
  const parts = [
    `${name}: ${plural(nodes.length - counts.structural, "op")}`,
    `${counts.error} with errors`,
    `${counts.warning} with warnings`,
    `${counts.valid} valid`,
    `${counts.unchecked} not checked`,
  ];
  if (engines.length) parts.push(`checked ${engines.join(", ")}`);
  status(`${answer.valid ? "Valid" : "Invalid"}: ${parts.join(", ")}.`, answer.valid ? "valid" : "error");
  summary(answer);
  $("graph-main").hidden = false;
  list.show(answer);
  // data-draw-limit on <html> lowers the limit (the tests use it; a 20,000-node file takes a while)
  const limit = Number(document.documentElement.dataset.drawLimit) || DRAW_LIMIT;
  const tooBig = nodes.length > limit;
  $("graph-show-drawing").disabled = tooBig;
  if (tooBig) {
    status(`${$("graph-status").textContent} ${nodes.length} nodes are more than the drawing takes (${limit}): the list view shows them all.`, answer.valid ? "valid" : "error");
    canvas.clear();
    const preferred = view.mode;
    mode("list");
    view.mode = preferred; // the next graph that fits is drawn again
  } else {
    canvas.show(answer);
    mode(view.mode);
  }
  side(-1);
  search();
}

/** The node a path of the file is inside (graph[4].inputs[1] -> graph[4]), or -1: a finding about the
 * graph between the nodes (a value declared two ways) is read at the node whose declaration it is. */
function nodeAt(answer, path) {
  if (!answer.byPath) answer.byPath = new Map(answer.nodes.map((n, i) => [n.path, i]));
  let probe = path ?? "";
  while (probe) {
    const found = answer.byPath.get(probe);
    if (found !== undefined) return found;
    const cut = Math.max(probe.lastIndexOf("."), probe.lastIndexOf("["));
    probe = cut > 0 ? probe.slice(0, cut) : "";
  }
  return -1;
}

/** The graph's own findings (edges, fields) that sit at node i. */
function placed(answer, i) {
  return answer.diagnostics.filter((d) => d.severity !== "info" && nodeAt(answer, d.path) === i);
}

function summary(answer) {
  const box = $("graph-summary");
  const items = [];
  answer.diagnostics.forEach((d) => items.push([nodeAt(answer, d.path), d, true]));
  answer.nodes.forEach((node, i) => {
    for (const d of node.diagnostics) if (d.severity === "error" || d.severity === "warning") items.push([i, d]);
  });
  if (!items.length) {
    box.replaceChildren();
    return;
  }
  const errors = items.filter(([, d]) => d.severity === "error").length;
  const wrap = el("div", errors ? "summary" : "summary summary--warning");
  wrap.setAttribute("role", "alert");
  wrap.append(el("h3", "summary__title", errors ? "There is a problem" : "Warnings"));
  const listed = el("ol", "diagnostics");
  for (const [i, d, graphWide] of items.slice(0, SUMMARY_LIMIT)) {
    const li = el("li", `diagnostic diagnostic--${d.severity}`);
    const head = el("p", "diagnostic__head");
    head.append(el("span", `badge badge--${d.severity}`, d.severity));
    if (d.rule) head.append(" ", el("code", "rule-id", d.rule));
    if (i >= 0) {
      const node = answer.nodes[i];
      // a finding of the graph's (a value declared two ways) names the declaration it sits at
      head.append(" ", el("code", "diagnostic__path", graphWide && d.path !== node.path ? `${node.kind} ${node.name}, ${d.path}` : `${node.kind} ${node.name}`));
      const link = el("a", "diagnostic__message", d.message);
      link.href = "#graph";
      link.dataset.node = String(i);
      link.addEventListener("click", (e) => {
        e.preventDefault();
        select(i, { from: "summary", reveal: true });
      });
      const line = el("p");
      line.append(link);
      li.append(head, line);
    } else li.append(head, el("p", "diagnostic__message", d.message));
    listed.append(li);
  }
  wrap.append(listed);
  if (items.length > SUMMARY_LIMIT) wrap.append(el("p", "field__hint", `and ${items.length - SUMMARY_LIMIT} more: the list view has every node's findings.`));
  box.replaceChildren(wrap);
}

// --- selection and the side panel -------------------------------------------------------------------

function select(i, { from = "", reveal = false, open = false } = {}) {
  view.selected = i;
  canvas.select(i, { reveal: reveal || from === "list" || from === "summary" });
  list.select(i);
  side(i);
  if (from === "summary") {
    if (!$("graph-list").hidden) list.focus(i);
    else {
      // The node in view (on a phone the panel is below the drawing), the panel's text next for a reader.
      $("graph-stage").scrollIntoView({ block: "start", behavior: "instant" });
      $("graph-side").focus({ preventScroll: true });
    }
  }
  if (open) $("graph-side").focus();
}

function dl(pairs) {
  const box = el("dl", "graphside__pairs");
  for (const [k, v] of pairs) box.append(el("dt", "", k), el("dd", "", v));
  return box;
}

function attrText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

async function side(i) {
  const body = $("graph-side-body");
  if (i < 0 || !view.answer) {
    $("graph-side-heading").textContent = "No node selected";
    body.replaceChildren(el("p", "field__hint", "Select a node in the drawing, the list or the summary."));
    return;
  }
  const node = view.answer.nodes[i];
  $("graph-side-heading").textContent = `${node.kind} ${node.name}`;
  const parts = [];
  const verdict = verdictOf(node);
  parts.push(el("p", `graphside__verdict graphside__verdict--${verdict}`, verdictText(node)));
  const who = [];
  if (node.checked_as) who.push(`checked as ${node.checked_as} by opspec`);
  else if (node.checked_by) who.push(`checked by ${node.checked_by}`);
  if (node.typed_by) who.push(`outputs typed by ${node.typed_by}`);
  who.push(`${node.path}${node.line ? `, line ${node.line}` : ""}`);
  parts.push(el("p", "field__hint", who.join("; ")));
  const attrs = node.descriptor?.attrs;
  parts.push(el("h4", "graphside__heading", "Attributes"));
  if (attrs && Object.keys(attrs).length) parts.push(dl(Object.entries(attrs).map(([k, v]) => [k, attrText(v)])));
  else parts.push(el("p", "field__hint", attrs ? "none" : "not known: opspec did not check this node"));
  parts.push(el("h4", "graphside__heading", "Inputs"));
  parts.push(dl(node.inputs.map((t, k) => [String(k), typeText(t)])));
  parts.push(el("h4", "graphside__heading", "Outputs"));
  parts.push(dl(node.outputs.map((t, k) => [String(k), typeText(t)])));
  if (node.descriptor) {
    const link = el("a", "button graphside__open", "Open in the calculator");
    link.href = `#d=${encode(node.descriptor)}`;
    link.id = "graph-open-calculator";
    parts.push(el("p", "graphside__actions"));
    parts.at(-1).append(link);
  }
  const found = el("div", "graphside__diagnostics");
  const around = placed(view.answer, i); // a value it reads or writes declared two ways, said here
  if (node.diagnostics.length || around.length) {
    parts.push(el("h4", "graphside__heading", "Findings"));
    const ol = el("ol", "diagnostics");
    for (const d of [...around, ...node.diagnostics]) {
      const li = el("li", `diagnostic diagnostic--${d.severity}`);
      const head = el("p", "diagnostic__head");
      head.append(el("span", `badge badge--${d.severity}`, d.severity));
      if (d.rule) head.append(" ", el("code", "rule-id", d.rule));
      if (d.path) head.append(" ", el("code", "diagnostic__path", d.path));
      li.append(head, el("p", "diagnostic__message", d.message));
      for (const r of d.related ?? []) li.append(el("p", "diagnostic__related", `${r.path}: ${r.message}`));
      const about = el("p", "diagnostic__rule");
      if (d.spec) about.append(el("cite", "", d.spec));
      li.append(about);
      li.dataset.rule = d.rule ?? "";
      ol.append(li);
    }
    found.append(ol);
    parts.push(found);
  }
  body.replaceChildren(...parts);
  // Each rule's statement, from the op's page of the API (fetched once per kind).
  if (node.checked_as && node.diagnostics.length) {
    try {
      const detail = await api.getOp(node.checked_as);
      if (view.selected !== i) return;
      const rules = new Map(detail.rules.map((r) => [r.id, r]));
      for (const li of found.querySelectorAll("li")) {
        const rule = rules.get(li.dataset.rule);
        if (rule?.statement) li.querySelector(".diagnostic__rule").prepend(`${rule.statement} `);
        if (rule?.url) li.querySelector(".rule-id").replaceWith(ruleId(rule.id, rule.url));
      }
    } catch {
      // a kind the API does not list by that name: the message and spec reference stand alone
    }
  }
}

// --- drawing or list, zoom, search --------------------------------------------------------------------

function mode(name) {
  view.mode = name;
  const drawing = name === "drawing" && !$("graph-show-drawing").disabled;
  $("graph-stage").hidden = !drawing;
  $("graph-list").hidden = drawing;
  $("graph-show-drawing").setAttribute("aria-pressed", String(drawing));
  $("graph-show-list").setAttribute("aria-pressed", String(!drawing));
  for (const id of ["graph-zoom-in", "graph-zoom-out", "graph-fit"]) $(id).disabled = !drawing;
  if (drawing) {
    canvas.resize();
    if (view.selected >= 0) canvas.reveal(view.selected); // chosen in the list: shown in the drawing
  }
  else {
    list.render();
    if (view.selected >= 0) list.select(view.selected);
  }
}

$("graph-show-drawing").addEventListener("click", () => mode("drawing"));
$("graph-show-list").addEventListener("click", () => mode("list"));
$("graph-zoom-in").addEventListener("click", () => canvas.zoom(1.25));
$("graph-zoom-out").addEventListener("click", () => canvas.zoom(0.8));
$("graph-fit").addEventListener("click", () => canvas.fit());

function search() {
  const query = $("graph-search").value.trim().toLowerCase();
  view.matches = [];
  view.match = -1;
  if (query && view.answer) {
    view.answer.nodes.forEach((n, i) => {
      if (n.name.toLowerCase().includes(query) || n.kind.toLowerCase().includes(query)) view.matches.push(i);
    });
  }
  canvas.matches = new Set(view.matches);
  canvas.request();
  $("graph-search-count").textContent = query ? (view.matches.length ? `${plural(view.matches.length, "match")}: Enter or Next match selects each` : "No node matches") : "";
  $("graph-next").disabled = !view.matches.length;
}

function nextMatch() {
  if (!view.matches.length) return;
  view.match = (view.match + 1) % view.matches.length;
  select(view.matches[view.match], { from: "search", reveal: true });
}

$("graph-search").addEventListener("input", search);
$("graph-search").addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    nextMatch();
  }
});
$("graph-next").addEventListener("click", nextMatch);

if (location.hash === "#graph") showView("graph");
