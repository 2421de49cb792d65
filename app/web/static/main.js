// The page: wires the form, the JSON view, the URL state and the result view to the API client.
// One descriptor object is the state; every edit changes it, and everything else is drawn from it.
import * as api from "./api.js";
import { clone, stringify } from "./json.js";
import { JsonView } from "./jsonview.js";
import { mark } from "./marks.js";
import { onSuggestion, renderBar, render as renderResult } from "./result.js";
import * as url from "./state.js";
import { Form, skeleton } from "./form.js";
import "./graph.js";

const DEBOUNCE_MS = 40; // a validate call takes a few ms; this only merges bursts of keystrokes

const $ = (id) => document.getElementById(id);
const page = {
  ops: [],
  byName: new Map(), // kind or alias -> canonical kind
  descriptor: null,
  detail: null,
  inferred: null,
  seq: 0,
  controller: null,
  timer: 0,
  early: null, // {body, answer}: a validate sent while the page was still loading
};

const form = new Form($("form"), {
  onEdit: () => edited(),
  onStructure: (focus) => rebuild(focus),
  onKind: (kind) => pickKind(kind),
  onLoad: (descriptor) => load(descriptor),
  inferred: () => page.inferred,
});
const json = new JsonView(
  $("json"),
  $("json-msg"),
  (descriptor) => {
    stale(null);
    load(descriptor, { fromJson: true });
  },
  (why) => stale(why),
);

/** While the JSON view holds text that is not a descriptor, the result shown is for the last one that
 * was: it is marked stale, with the reason, until the text is a descriptor again. */
function stale(why) {
  const region = $("result");
  region.classList.toggle("result--stale", Boolean(why));
  let note = $("stale-note");
  if (!why) {
    note?.remove();
    return;
  }
  if (!note) {
    note = document.createElement("p");
    note.id = "stale-note";
    note.className = "stale-note";
    region.before(note);
  }
  note.textContent = `Out of date: the JSON below is not a descriptor (${why}). The result is for the last descriptor it held.`;
}

async function detailFor(kind) {
  const canonical = page.byName.get(kind);
  return canonical ? api.getOp(canonical) : null;
}

/** Replace the whole descriptor (a link, an example, pasted JSON) and draw everything again. */
async function load(descriptor, { fromJson = false, now = false } = {}) {
  page.descriptor = descriptor;
  page.detail = await detailFor(descriptor.kind);
  if (page.descriptor !== descriptor) return; // a newer load won
  draw(fromJson, { now });
}

/** What an alias implies, from the op's dtype table (a row whose `kind` is the alias): each port the
 * row names gets its dtype (mli_krn_argmax_fx16: in fx16, out sa32). */
function implied(descriptor, detail) {
  const row = (detail?.dtypes ?? []).find((r) => r.kind === descriptor.kind);
  if (!row) return;
  const ports = [
    ["inputs", detail.inputs],
    ["outputs", detail.outputs],
  ];
  for (const [side, list] of ports) {
    if (!Array.isArray(descriptor[side])) continue;
    list.forEach((port, i) => {
      const tensor = descriptor[side][i];
      if (row[port.name] && tensor && typeof tensor === "object") tensor.dtype = row[port.name];
    });
  }
}

async function pickKind(kind) {
  const old = page.byName.get(page.descriptor.kind);
  if (old && old === page.byName.get(kind)) {
    page.descriptor.kind = kind; // an alias of the same op keeps everything else but what it implies
    implied(page.descriptor, page.detail);
    draw(false);
    $("f-kind")?.focus();
    return;
  }
  const detail = await detailFor(kind);
  page.descriptor = detail ? skeleton(kind, detail) : { kind, inputs: [] };
  if (detail && !detail.attributes?.properties) delete page.descriptor.attrs;
  implied(page.descriptor, detail);
  page.detail = detail;
  draw(false);
  $("f-kind")?.focus();
}

/** A "did you mean" button: the name goes where the diagnostic's path points (an unknown attribute's
 * value moves to the suggested name). */
function applySuggestion(item, name) {
  const d = page.descriptor;
  const path = item.path || "kind";
  if (path === "kind") {
    d.kind = name;
    load(d);
    return;
  }
  const attr = /^attrs\.(.+)$/.exec(path);
  if (attr && d.attrs && attr[1] in d.attrs) {
    d.attrs[name] = d.attrs[attr[1]];
    delete d.attrs[attr[1]];
    load(d);
    return;
  }
  const tensor = /^(inputs|outputs)\[(\d+)\]\.dtype$/.exec(path);
  if (tensor && d[tensor[1]]?.[Number(tensor[2])]) {
    d[tensor[1]][Number(tensor[2])].dtype = name;
    load(d);
  }
}
onSuggestion(applySuggestion);

/** Draw the form again after an input was added or removed, keeping the keyboard's place. */
function rebuild(focus) {
  const focused = focus ?? document.activeElement?.id;
  draw(false);
  const again = focused && document.getElementById(focused);
  if (again) again.focus();
}

/** The op's notes on real implementations (GET /v1/ops/{kind}), beside the result. */
function drawNotes(detail) {
  const notes = detail?.notes ?? [];
  $("notes").hidden = !notes.length;
  $("notes-title").textContent = `Where implementations differ from the ${detail?.source ?? ""} spec (${notes.length})`;
  $("notes-source").textContent = detail ? `${detail.kind}: ${detail.summary}` : "";
  $("notes-list").replaceChildren(
    ...notes.map((note) => {
      const li = document.createElement("li");
      li.textContent = note;
      return li;
    }),
  );
}

function draw(fromJson, { now = false } = {}) {
  form.render(page.descriptor, page.ops, page.detail);
  drawNotes(page.detail);
  if (!fromJson) json.show(page.descriptor);
  changed(now);
}

/** A field changed the descriptor in place. */
function edited() {
  json.show(page.descriptor);
  changed();
}

const calculatorTitle = () => `${page.descriptor?.kind ?? "?"} · opspec shape calculator`;

function changed(now = false) {
  url.write(page.descriptor);
  // The tab (and a bookmark of the link) names the op on screen.
  if (document.documentElement.dataset.view !== "graph") document.title = calculatorTitle();
  clearTimeout(page.timer);
  if (form.errors.size) {
    // Text the form cannot read is never sent: the field says what it expected.
    page.controller?.abort();
    page.seq++;
    const items = [...form.errors].map(([path, message]) => ({ severity: "error", path, message }));
    show({ phase: "syntax", items });
    return;
  }
  if (Array.isArray(page.descriptor.inputs) && page.descriptor.inputs.length && page.descriptor.inputs.every((t) => t && typeof t === "object" && !("shape" in t))) {
    // A fresh form: nothing typed yet, so nothing to judge (Max would be "Valid -> f32[*]").
    page.controller?.abort();
    page.seq++;
    page.inferred = null;
    show({ phase: "incomplete", items: [] });
    return;
  }
  if (now) check();
  else page.timer = setTimeout(check, DEBOUNCE_MS);
}

const withoutOutputs = (d) => {
  const copy = clone(d);
  delete copy.outputs;
  return copy;
};

const hasData = (d) =>
  Array.isArray(d.inputs) && d.inputs.length > 0 && d.inputs.every((t) => t && t.data !== undefined && t.data !== null);

async function check() {
  const seq = ++page.seq;
  page.controller?.abort();
  const controller = new AbortController();
  page.controller = controller;
  const descriptor = clone(page.descriptor);
  const body = stringify(descriptor);
  const early = page.early?.body === body ? page.early.answer : null;
  page.early = null;
  let state;
  try {
    const answer = await (early ?? api.validate(descriptor, controller.signal));
    if (answer.status === 200) {
      const verdict = answer.body;
      let evaluation = null;
      // Errors only in declared outputs: the inferred outputs and values are still worth showing.
      const errors = verdict.diagnostics.filter((d) => d.severity === "error");
      const outputsOnly = !verdict.valid && errors.length > 0 && errors.every((d) => /^outputs(\[|\.|$)/.test(d.path));
      if ((verdict.valid || outputsOnly) && hasData(descriptor)) {
        evaluation = await api.evaluate(outputsOnly ? withoutOutputs(descriptor) : descriptor, controller.signal);
      }
      const items = [...verdict.diagnostics];
      if (evaluation && evaluation.status !== 200) {
        for (const e of evaluation.body?.errors ?? []) items.push({ severity: "error", ...e });
      }
      page.inferred = verdict.outputs;
      state = { phase: "verdict", verdict, evaluation, items, outputsOnly };
    } else {
      const body = answer.body ?? {};
      const errors = body.errors?.length ? body.errors : [{ path: "", message: body.detail ?? "" }];
      state = { phase: "problem", status: answer.status, body, items: errors.map((e) => ({ severity: "error", ...e })) };
    }
  } catch (error) {
    if (error.name === "AbortError") return;
    state = { phase: "offline", message: String(error.message ?? error), items: [] };
  }
  if (seq !== page.seq) return; // an edit since: its own check is on the way
  show(state);
}

function notice(text) {
  $("notice").textContent = text ?? "";
  $("notice").hidden = !text;
}

// What a path names when no form field does ("body", a field the form does not show): the JSON.
const jsonField = {
  wrapper: $("json").closest(".field"),
  control: $("json"),
  message: $("json-marks"),
  hintId: "json-hint",
};

function show(state) {
  const items = state.items ?? [];
  const fields = [...form.fields.values(), jsonField];
  const marked = mark(fields, items, (path) => form.locate(path) ?? jsonField);
  renderResult($("result"), state, page.detail, marked);
  renderBar($("resultbar"), state);
  document.documentElement.dataset.results = String(Number(document.documentElement.dataset.results ?? 0) + 1);
  performance.mark("opspec:result");
}

// --- copy buttons -------------------------------------------------------------------------------------

async function copy(text, what) {
  const status = $("copy-status");
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = `${what} copied.`;
  } catch {
    status.textContent = `${what} below: select it and copy.`;
  }
}

$("copy-curl").addEventListener("click", () => {
  const endpoint = hasData(page.descriptor) ? "evaluate" : "validate";
  const command = api.curlCommand(page.descriptor, endpoint);
  $("curl").textContent = command;
  $("curl").hidden = false;
  copy(command, "The curl command");
});
$("copy-link").addEventListener("click", () => copy(location.href, "The link"));

// --- start ----------------------------------------------------------------------------------------------

let damaged = false; // the page was opened from a link whose #d= part is not a descriptor

function fromFragment() {
  try {
    damaged = false;
    return url.read();
  } catch {
    // The browser's own words (atob's) mean nothing to a reader: say what is wrong and what to do.
    damaged = true;
    return undefined;
  }
}

/** A damaged link: say so, keep nothing of it, and offer an example. */
function damagedNotice() {
  const box = $("notice");
  box.replaceChildren(
    "This link is damaged: its #d= part is not a descriptor (cut short or edited?), so nothing of it is shown. ",
  );
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button--secondary";
  button.id = "load-example";
  button.textContent = "Show an example";
  button.addEventListener("click", async () => {
    notice(null);
    const first = await api.getOp(page.ops[0].kind);
    load(startingExample(first));
  });
  box.append(button);
  box.hidden = false;
}

/** An op's first example as a starting point: without declared outputs, which the person never typed. */
function startingExample(detail) {
  const example = clone(detail.examples[0] ?? skeleton(detail.kind, detail));
  delete example.outputs;
  return example;
}

// Back from the graph view: the address is the calculator's link again.
document.addEventListener("opspec:calculator", () => {
  if (page.descriptor) url.write(page.descriptor);
  document.title = calculatorTitle();
});

window.addEventListener("hashchange", () => {
  const descriptor = fromFragment();
  if (descriptor) {
    notice(null);
    load(descriptor);
  }
});

async function start() {
  let descriptor = fromFragment();
  if (descriptor) {
    // A link's verdict does not wait for the op list and schema: ask for it while they load.
    const early = clone(descriptor);
    page.early = { body: stringify(early), answer: api.validate(early) };
    page.early.answer.catch(() => {});
  }
  try {
    page.ops = await api.listOps();
  } catch (error) {
    show({ phase: "offline", message: String(error.message ?? error), items: [] });
    return;
  }
  for (const op of page.ops) {
    page.byName.set(op.kind, op.kind);
    for (const alias of op.aliases) page.byName.set(alias, op.kind);
    api.getOp(op.kind); // fetched now, so picking another op draws at once
  }
  if (!descriptor) {
    const first = await api.getOp(page.ops[0].kind);
    if (damaged) {
      damagedNotice();
      descriptor = skeleton(first.kind, first); // nothing of the damaged link
    } else descriptor = startingExample(first);
  }
  await load(descriptor, { now: true });
}

start();
