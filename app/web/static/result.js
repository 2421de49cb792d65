// The result region (role="status"): the verdict, the inferred outputs as f32[2, 1, 4], the computed
// values, and every diagnostic with its rule's statement and spec reference.
import { Lit } from "./json.js";
import { formatValue } from "./syntax.js";
import { focusField } from "./marks.js";

let suggest = null; // (item, name): put a suggested name where the item's path points (main.js)

/** What a "did you mean" button does: main.js writes the name into the descriptor. */
export function onSuggestion(handler) {
  suggest = handler;
}

const GRID_CELLS = 4096; // beyond this a grid is unreadable anyway; the text view is cut as well
const TEXT_CHARS = 20000;
const SPECIAL = new Set(["NaN", "inf", "-inf", "-0"]); // values a reader must not take for others

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** f32[2, N, ?]; an unknown rank is [*]. */
export function typeText(tensor) {
  const shape = tensor.shape;
  const dims = Array.isArray(shape)
    ? shape.map((d) => (d === -1 || d === null || d === "?" ? "?" : d instanceof Lit ? d.text : String(d))).join(", ")
    : "*";
  return `${tensor.dtype}[${dims}]`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function counts(diagnostics) {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.filter((d) => d.severity === "warning").length;
  const parts = [];
  if (errors) parts.push(plural(errors, "error"));
  if (warnings) parts.push(plural(warnings, "warning"));
  return parts.join(", ");
}

function verdictLine(kind, text, detail) {
  const line = el("p", `verdict verdict--${kind}`);
  line.append(el("span", "verdict__mark", { valid: "✓", invalid: "✗", problem: "!", pending: "…" }[kind] ?? ""));
  line.append(el("strong", "verdict__text", text));
  if (detail) line.append(el("span", "verdict__detail", ` ${detail}`));
  return line;
}

function outputsList(outputs, detail) {
  const list = el("dl", "outputs");
  outputs.forEach((tensor, i) => {
    list.append(el("dt", "outputs__name", detail?.outputs?.[i]?.name ?? `output ${i}`));
    list.append(el("dd", "outputs__type", typeText(tensor)));
  });
  return list;
}

// --- values -------------------------------------------------------------------------------------------

function grid(data, shape) {
  const table = el("table", "grid");
  const rank = shape.length;
  const rows = rank === 2 ? data : [rank === 1 ? data : [data]];
  const width = rows[0]?.length ?? 0;
  if (rank > 0) {
    const head = el("tr");
    if (rank === 2) head.append(el("th", "grid__corner", ""));
    for (let j = 0; j < width; j++) head.append(el("th", "grid__index", String(j)));
    const thead = el("thead");
    thead.append(head);
    table.append(thead);
  }
  const body = el("tbody");
  rows.forEach((row, i) => {
    const tr = el("tr");
    if (rank === 2) tr.append(el("th", "grid__index", String(i)));
    for (const value of row) {
      const shown = formatValue(value);
      const td = el("td", "grid__cell", shown);
      if (SPECIAL.has(shown)) td.classList.add("grid__cell--special");
      tr.append(td);
    }
    body.append(tr);
  });
  table.append(body);
  return table;
}

function nested(data, indent = "") {
  if (!Array.isArray(data)) return formatValue(data);
  if (!data.some(Array.isArray)) return `[${data.map(formatValue).join(", ")}]`;
  const inner = `${indent} `;
  return `[${data.map((d, i) => (i ? inner : "") + nested(d, inner)).join(",\n")}]`;
}

function valuesView(output, name) {
  const box = el("figure", "values");
  box.append(el("figcaption", "values__caption", `${name} = ${typeText(output)}`));
  const { data, shape } = output;
  const scroller = el("div", "values__scroll");
  const size = Array.isArray(shape) ? shape.reduce((a, b) => a * (typeof b === "number" ? b : 1), 1) : 0;
  if (data !== null && typeof data === "object" && !Array.isArray(data) && !(data instanceof Lit)) {
    scroller.append(el("pre", "values__text", JSON.stringify(data, null, 1)));
  } else if (Array.isArray(shape) && shape.length <= 2 && size <= GRID_CELLS && (shape.length === 0 || size > 0)) {
    scroller.append(grid(data, shape));
  } else {
    let text = nested(data);
    if (text.length > TEXT_CHARS) text = `${text.slice(0, TEXT_CHARS)}\n… (${text.length - TEXT_CHARS} more characters)`;
    scroller.append(el("pre", "values__text", text));
  }
  box.append(scroller);
  return box;
}

// --- diagnostics -------------------------------------------------------------------------------------

/** A rule id, linked to its page in the docs (the API's `url` for it) when there is one. */
export function ruleId(id, url) {
  const code = el("code", "rule-id", id);
  if (!url) return code;
  const link = el("a", "rule-link");
  link.href = url;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.title = `${id}: the rule's page in the docs`;
  link.append(code);
  return link;
}

/** Every diagnostic, as GOV.UK's error summary: a box whose items link to the field each one marks. */
function diagnosticsList(items, rules, marked) {
  const errors = items.filter((i) => (i.severity ?? "error") === "error").length;
  const box = el("div", errors ? "summary" : "summary summary--warning");
  const title = errors ? "There is a problem" : items.length === 1 ? "A warning" : "Warnings";
  box.append(el("h3", "summary__title", title));
  const list = el("ol", "diagnostics");
  box.append(list);
  items.forEach((item, i) => {
    const severity = item.severity ?? "error";
    const li = el("li", `diagnostic diagnostic--${severity}`);
    const head = el("p", "diagnostic__head");
    head.append(el("span", `badge badge--${severity}`, severity));
    const rule = rules.get(item.rule);
    if (item.rule) head.append(" ", ruleId(item.rule, rule?.url));
    if (item.path) head.append(" ", el("code", "diagnostic__path", item.path));
    const field = marked[i];
    if (field) {
      const link = el("a", "diagnostic__message", item.message);
      link.href = `#${field.control.id}`;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        focusField(field);
      });
      const line = el("p");
      line.append(link);
      li.append(head, line);
    } else li.append(head, el("p", "diagnostic__message", item.message));
    const statement = rule?.statement;
    const spec = item.spec || rule?.spec;
    if (statement || spec) {
      const about = el("p", "diagnostic__rule");
      if (statement) about.append(statement);
      if (spec) {
        if (statement) about.append(" ");
        about.append(el("cite", "", spec));
      }
      li.append(about);
    }
    if (item.status) li.append(el("p", "diagnostic__rule", `Reference status: ${item.status}`));
    if (item.suggestions?.length && suggest) {
      // "Did you mean": each close name a button that puts it where the path points.
      const row = el("p", "suggestions");
      row.append(el("span", "suggestions__label", "Did you mean: "));
      for (const name of item.suggestions) {
        const button = el("button", "button button--secondary suggestions__button", name);
        button.type = "button";
        button.setAttribute("aria-label", `Use ${name} for ${item.path || "the kind"}`);
        button.addEventListener("click", () => suggest(item, name));
        row.append(button, " ");
      }
      li.append(row);
    }
    list.append(li);
  });
  return box;
}

/**
 * Render one state into the region.
 * state: {phase: "pending" | "syntax" | "verdict" | "problem" | "offline", ...}
 */
export function render(region, state, detail, marked = []) {
  const rules = new Map((detail?.rules ?? []).map((r) => [r.id, r]));
  const parts = [];
  if (state.phase === "pending") {
    parts.push(verdictLine("pending", "Checking…"));
  } else if (state.phase === "offline") {
    parts.push(verdictLine("problem", "The service did not answer", state.message));
  } else if (state.phase === "syntax") {
    parts.push(verdictLine("problem", "Fix the marked field", `(${plural(state.items.length, "field")} cannot be read)`));
    parts.push(diagnosticsList(state.items, rules, marked));
  } else if (state.phase === "incomplete") {
    parts.push(verdictLine("pending", "Not checked yet", "(type each input's shape: 2, N, 4 · * for an unknown rank)"));
  } else if (state.phase === "problem") {
    const body = state.body ?? {};
    // A 422 (not a descriptor yet: a required attribute still empty, a misspelled name) reads as the
    // 200 answer of a broken rule does: Invalid, with its errors; no HTTP status on the page.
    parts.push(verdictLine("invalid", "Invalid", `(${plural(state.items.length, "error")})`));
    if (!body.errors?.length) parts.push(el("p", "problem__detail", body.detail ?? ""));
    parts.push(diagnosticsList(state.items, rules, marked));
  } else if (state.phase === "verdict") {
    const { verdict, evaluation } = state;
    const summary = counts(verdict.diagnostics);
    parts.push(verdictLine(verdict.valid ? "valid" : "invalid", verdict.valid ? "Valid" : "Invalid", summary ? `(${summary})` : ""));
    const problems = state.items.length ? diagnosticsList(state.items, rules, marked) : null;
    if (!verdict.valid) parts.push(problems);
    if (verdict.outputs) {
      // Only declared outputs wrong: what inference gives is still shown, beside the errors.
      parts.push(el("h3", "result__heading", verdict.valid ? "Outputs" : "Inferred outputs"));
      parts.push(outputsList(verdict.outputs, detail));
    } else {
      parts.push(el("p", "result__none", "The outputs cannot be inferred until the errors are fixed."));
    }
    if (evaluation?.status === 200) {
      parts.push(el("h3", "result__heading", "Values"));
      evaluation.body.outputs.forEach((output, i) => parts.push(valuesView(output, detail?.outputs?.[i]?.name ?? `output ${i}`)));
    } else if (evaluation) {
      parts.push(el("h3", "result__heading", "Values"));
      parts.push(el("p", "problem__detail", `Not evaluated: ${evaluation.body?.detail ?? evaluation.status}`));
    } else if (verdict.valid || state.outputsOnly) {
      parts.push(el("p", "result__hint", "Give every input data to see the computed values."));
    }
    if (verdict.valid && problems) parts.push(problems);
  }
  region.replaceChildren(...parts);
}

/** The one-line verdict for the bar on narrow screens (the region above is what screen readers hear). */
export function renderBar(bar, state) {
  let kind = "problem";
  let text = "";
  if (state.phase === "verdict") {
    const { verdict } = state;
    kind = verdict.valid ? "valid" : "invalid";
    const outputs = verdict.outputs ? verdict.outputs.map(typeText).join(", ") : "";
    const summary = counts(verdict.diagnostics);
    text = [verdict.valid ? "✓ valid" : "✗ invalid", outputs && `→ ${outputs}`, summary && `(${summary})`];
  } else if (state.phase === "syntax") text = ["! fix the marked field"];
  else if (state.phase === "incomplete") text = ["… type each input's shape"];
  else if (state.phase === "problem") {
    kind = "invalid";
    text = ["✗ invalid", `(${plural(state.items.length, "error")})`];
  }
  else if (state.phase === "offline") text = ["! the service did not answer"];
  bar.className = `resultbar resultbar--${kind}`;
  bar.replaceChildren(...(text || []).filter(Boolean).map((t) => el("span", "", t)));
}
