// The list view: every node of the graph as a table row (name, kind, verdict, what flows in and out,
// findings), for keyboard and screen-reader users and for graphs too big to draw. Up and Down move
// between the rows' buttons.
import { engineOf, typeText, verdictOf } from "./graphcanvas.js";

const VERDICT = { error: "error", warning: "warning", valid: "valid", unchecked: "not checked", structural: "graph input, output or constant" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A cell of tensor types, each kept whole: the line breaks only between two of them. */
function types(tensors) {
  const cell = el("td", "nodes__types");
  tensors.forEach((t, k) => {
    if (k) cell.append(", ");
    cell.append(el("span", "nodes__type", typeText(t)));
  });
  return cell;
}

export function verdictText(node) {
  const v = verdictOf(node);
  const engine = engineOf(node);
  if (!engine || v === "structural") return VERDICT[v];
  return `${VERDICT[v]} (${node.checked_by === engine ? "checked" : "typed"} by ${engine})`;
}

export class GraphList {
  /** findings(i): what the list says of node i (its own findings, and the graph's that sit at it). */
  constructor(box, { onSelect, findings }) {
    this.box = box;
    this.onSelect = onSelect;
    this.findings = findings;
    this.rows = [];
    this.answer = null;
  }

  show(answer) {
    this.answer = answer;
    this.drawn = false;
  }

  /** Built when first shown: a 5,000-row table costs nothing until someone asks for it. */
  render() {
    if (this.drawn || !this.answer) return;
    this.drawn = true;
    const table = el("table", "nodes");
    const caption = el("caption", "nodes__caption", `${this.answer.nodes.length} nodes in file order`);
    table.append(caption);
    const head = el("tr");
    for (const title of ["Node", "Kind", "Verdict", "Inputs", "Outputs", "Findings"]) {
      const th = el("th", "", title);
      th.scope = "col";
      head.append(th);
    }
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    this.rows = this.answer.nodes.map((node, i) => {
      const tr = el("tr", `nodes__row nodes__row--${verdictOf(node)}`);
      tr.dataset.index = String(i);
      const name = el("th", "nodes__name");
      name.scope = "row";
      const button = el("button", "nodes__select", node.name || node.id);
      button.type = "button";
      button.addEventListener("click", () => this.onSelect(i, { from: "list" }));
      button.addEventListener("keydown", (e) => {
        if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
        e.preventDefault();
        const next = this.rows[i + (e.key === "ArrowDown" ? 1 : -1)];
        next?.querySelector("button").focus();
      });
      name.append(button);
      const diagnostics = this.findings(i).filter((d) => d.severity !== "info");
      tr.append(
        name,
        el("td", "nodes__kind", node.kind),
        el("td", "nodes__verdict", verdictText(node)),
        types(node.inputs),
        types(node.outputs),
        el("td", "nodes__findings", diagnostics.map((d) => `${d.severity} ${d.rule ?? ""}: ${d.message}`).join("; ")),
      );
      body.append(tr);
      return tr;
    });
    table.append(thead, body);
    this.box.replaceChildren(table);
  }

  select(i) {
    for (const row of this.box.querySelectorAll("[aria-current]")) row.removeAttribute("aria-current");
    const row = this.rows[i];
    if (row) {
      row.setAttribute("aria-current", "true");
      row.scrollIntoView({ block: "nearest" });
    }
  }

  focus(i) {
    this.rows[i]?.querySelector("button").focus();
  }
}
