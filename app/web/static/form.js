// The form: controls built from the op's schema (GET /v1/ops/{kind}); each edit is written into the
// descriptor at once. Every control is registered under its path in the descriptor ("attrs.axes",
// "inputs[1].shape"), so a diagnostic's path finds the field it names.
import { clone } from "./json.js";
import {
  formatData,
  formatInts,
  formatJSONField,
  formatShape,
  parseData,
  parseInteger,
  parseInts,
  parseJSONField,
  parseShape,
  SyntaxProblem,
} from "./syntax.js";

const idFor = (path) => `f-${path.replace(/[^A-Za-z0-9_]+/g, "-").replace(/-+$/, "")}`;

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** How an attribute is edited, from its JSON schema. */
function attrControl(prop) {
  if (prop.type === "boolean") return { type: "bool" };
  if (prop.type === "integer") return { type: "int" };
  if (prop.type === "array" && prop.items?.type === "integer") return { type: "ints" };
  const options = prop.enum ?? prop.anyOf?.find((a) => a.enum)?.enum;
  if (options) return { type: "enum", options };
  return { type: "json" };
}

/** A tensor with the port's first dtype and no shape yet: what a new input starts as (the page checks
 * nothing until a shape is typed; `*` is typed for an unknown rank). */
export const blankTensor = (port) => ({ dtype: port?.dtypes?.[0] ?? "f32" });

/** An op's minimal descriptor: its required inputs, no attributes set. */
export function skeleton(kind, detail) {
  const inputs = detail.inputs.filter((p) => !p.optional).map(blankTensor);
  return { kind, attrs: {}, inputs };
}

/** The inputs shown for an op: one slot per port, a variadic port as X1, X2, ... */
function inputSlots(detail, inputs) {
  const ports = detail.inputs;
  const variadic = ports.find((p) => p.variadic);
  if (variadic) {
    const count = Math.max(1, inputs.length);
    return Array.from({ length: count }, (_, i) => ({ port: variadic, name: `${variadic.name}${i + 1}` }));
  }
  const slots = ports.map((port) => ({ port, name: port.name }));
  for (let i = ports.length; i < inputs.length; i++) slots.push({ port: null, name: `input ${i}` });
  return slots;
}

/** The op's dtype table (GET /v1/ops/{kind}), folded: which dtypes go together. */
function dtypeTable(detail) {
  const rows = detail.dtypes ?? [];
  if (!rows.length) return null;
  const columns = Object.keys(rows[0]);
  const head = el("tr", {}, ...columns.map((c) => el("th", { scope: "col", text: c })));
  const body = rows.map((row) => el("tr", {}, ...columns.map((c) => el("td", { text: row[c] ?? "" }))));
  return el(
    "details",
    { class: "dtypes" },
    el("summary", { text: `dtype table: ${rows.length} supported combination${rows.length === 1 ? "" : "s"}` }),
    el("div", { class: "dtypes__scroll" }, el("table", { class: "dtypes__table" }, el("thead", {}, head), el("tbody", {}, ...body))),
  );
}

export class Form {
  /**
   * @param root the <form> element
   * @param hooks onEdit(): a field changed the descriptor (or now fails to parse);
   *              onStructure(focus): inputs or kind changed, the form must be built again;
   *              inferred(): the outputs the last verdict inferred, to start declared outputs from.
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.fields = new Map(); // path -> {wrapper, control, message}
    this.errors = new Map(); // path -> message, for text the form cannot read
    root.addEventListener("submit", (event) => event.preventDefault());
  }

  /** Build every control for the descriptor `d` of the op `detail` (null when the kind is unknown). */
  render(d, ops, detail) {
    this.d = d;
    this.detail = detail;
    this.fields.clear();
    this.errors.clear();
    const parts = [this.kindPicker(d, ops, detail)];
    if (detail) {
      parts.push(this.attributes(d, detail), this.inputs(d, detail), this.outputs(d, detail));
    }
    this.root.replaceChildren(...parts);
  }

  /** The field a path names, or the nearest enclosing one: attrs.axes[1] -> attrs.axes. */
  locate(path) {
    let p = path;
    for (;;) {
      if (this.fields.has(p)) return this.fields.get(p);
      const shorter = p.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
      if (shorter === p || shorter === "") return this.fields.get("") ?? null;
      p = shorter;
    }
  }

  // --- building blocks ------------------------------------------------------------------------------

  field(path, label, control, hint) {
    const id = idFor(path);
    control.id = id;
    const hintId = `${id}-hint`;
    const messageId = `${id}-msg`;
    const message = el("div", { class: "field__message", id: messageId, hidden: true });
    control.setAttribute("aria-describedby", hint ? hintId : "");
    if (!hint) control.removeAttribute("aria-describedby");
    const wrapper = el(
      "div",
      { class: "field", "data-path": path },
      el("label", { for: id, class: "field__label", text: label }),
      hint ? el("p", { class: "field__hint", id: hintId, text: hint }) : null,
      control,
      // Below the control, not above as GOV.UK has it: results come as you type, and a message
      // appearing above would move the field under the cursor.
      message,
    );
    this.fields.set(path, { wrapper, control, message, hintId: hint ? hintId : null });
    return wrapper;
  }

  group(path, legend, hint, ...children) {
    const id = idFor(path || "body");
    const message = el("div", { class: "field__message", id: `${id}-msg`, hidden: true });
    const fieldset = el(
      "fieldset",
      { class: "group", id, tabindex: "-1" },
      el("legend", { text: legend }),
      hint ? el("p", { class: "field__hint", text: hint }) : null,
      message,
      ...children,
    );
    this.fields.set(path, { wrapper: fieldset, control: fieldset, message, hintId: null });
    return fieldset;
  }

  /** A text control read by `parse` into `write`; text that does not parse is a form error. */
  text(path, value, parse, write, { multiline = false, placeholder } = {}) {
    const control = multiline ? el("textarea", { placeholder }) : el("input", { type: "text", placeholder });
    // A textarea as tall as its text (up to 8 lines), so pasted data shows without scrolling.
    const fit = () => {
      if (multiline) control.rows = Math.min(8, Math.max(1, control.value.split("\n").length, Math.ceil(control.value.length / 56)));
    };
    control.value = value;
    fit();
    control.spellcheck = false;
    control.autocapitalize = "off";
    control.addEventListener("input", () => {
      fit();
      try {
        write(parse(control.value));
        this.errors.delete(path);
      } catch (error) {
        if (!(error instanceof SyntaxProblem)) throw error;
        this.errors.set(path, error.message);
      }
      this.hooks.onEdit();
    });
    return control;
  }

  select(options, value, write) {
    const control = el("select");
    for (const option of options) {
      const [v, label] = Array.isArray(option) ? option : [option, option];
      control.append(el("option", { value: v, text: label }));
    }
    control.value = value;
    control.addEventListener("change", () => {
      write(control.value);
      this.hooks.onEdit();
    });
    return control;
  }

  button(text, onclick, props = {}) {
    return el("button", { type: "button", class: "button button--secondary", text, onclick, ...props });
  }

  /** A change of the form's structure; `focus` is the id of the control to put the focus on after. */
  structural(mutate, focus) {
    mutate();
    this.hooks.onStructure(focus);
  }

  // --- the sections ---------------------------------------------------------------------------------

  kindPicker(d, ops, detail) {
    // Grouped by family (GET /v1/ops gives each op's), the ops of no family under their source: with
    // ~90 ops a flat list is a long scroll. The search box below narrows it by name.
    const groups = new Map();
    for (const op of ops) {
      const label = op.family ? `${op.family} (${op.source})` : `seed ops: ${op.source}`;
      if (!groups.has(label)) groups.set(label, []);
      groups.get(label).push([op.kind, `${op.kind}`]);
      for (const alias of op.aliases) groups.get(label).push([alias, `${alias} (alias of ${op.kind})`]);
    }
    const control = el("select");
    const known = [...groups.values()].flat().some(([v]) => v === d.kind);
    if (!known) control.append(el("option", { value: d.kind ?? "", text: `${d.kind ?? ""} (unknown)` }));
    for (const [label, options] of groups) {
      control.append(el("optgroup", { label }, ...options.map(([v, text]) => el("option", { value: v, text }))));
    }
    control.value = d.kind ?? "";
    // A new op is a new descriptor: rebuilt by the page, not patched here.
    control.addEventListener("change", () => this.hooks.onKind(control.value));
    const hint = detail ? `${detail.summary}` : "Pick one of the ops opspec knows.";
    const wrapper = this.field("kind", "kind", control, hint);
    wrapper.append(this.opSearch(groups, control));
    if (detail?.examples?.length) {
      const examples = detail.examples.map((example, i) =>
        this.button(`Example ${i + 1}`, () => this.hooks.onLoad(clone(example)), {
          title: `Load example ${i + 1} of ${detail.kind}`,
        }),
      );
      wrapper.append(el("div", { class: "examples" }, el("span", { text: "Load:" }), ...examples));
    }
    return wrapper;
  }

  /** "Find an op": a search box whose typed words narrow the picker to the ops whose names hold them. */
  opSearch(groups, picker) {
    const search = el("input", { type: "search", id: "op-search", placeholder: "e.g. reduce, relu, softmax" });
    search.spellcheck = false;
    const status = el("span", { class: "field__hint", id: "op-search-status", role: "status" });
    search.addEventListener("input", () => {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      let matches = 0;
      for (const option of picker.querySelectorAll("option")) {
        const hit = words.every((w) => option.textContent.toLowerCase().includes(w) || option.parentElement.label?.toLowerCase().includes(w));
        option.hidden = !hit && option.value !== picker.value;
        if (hit) matches++;
      }
      for (const group of picker.querySelectorAll("optgroup")) {
        group.hidden = [...group.children].every((o) => o.hidden);
      }
      status.textContent = words.length ? `${matches} op${matches === 1 ? "" : "s"} match` : "";
    });
    search.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const first = [...picker.querySelectorAll("option")].find((o) => !o.hidden && o.value !== picker.value);
      if (first) this.hooks.onKind(first.value);
    });
    return el(
      "div",
      { class: "field field--search" },
      el("label", { for: "op-search", class: "field__label", text: "find an op" }),
      el("p", { class: "field__hint", text: "Type part of a name; Enter picks the first match." }),
      search,
      status,
    );
  }

  attributes(d, detail) {
    const schema = detail.attributes ?? {};
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const attrs = () => {
      if (!isObject(d.attrs)) d.attrs = {};
      return d.attrs;
    };
    const set = (name) => (value) => {
      if (value === undefined) delete attrs()[name];
      else attrs()[name] = value;
    };
    const current = isObject(d.attrs) ? d.attrs : {};
    // A stale spelling (deprecated in the schema) is a control only when the descriptor uses it.
    const shown = Object.entries(props).filter(([name, prop]) => !prop.deprecated || name in current);
    const controls = shown.map(([name, prop]) => {
      const path = `attrs.${name}`;
      const how = attrControl(prop);
      const hint = (required.has(name) ? "Required. " : "") + (prop.description ?? "");
      const value = current[name];
      if (how.type === "bool") {
        const box = el("input", { type: "checkbox" });
        box.checked = value === true;
        box.addEventListener("change", () => {
          set(name)(box.checked || prop.default !== false ? box.checked : undefined);
          this.hooks.onEdit();
        });
        return this.field(path, name, box, hint);
      }
      if (how.type === "enum") {
        const options = [["", "(not set)"], ...how.options.map((o) => [o, o])];
        if (value !== undefined && value !== null && !how.options.includes(value)) {
          options.push([String(value), String(value)]);
        }
        const control = this.select(options, value ?? "", (v) => set(name)(v === "" ? undefined : v));
        return this.field(path, name, control, hint);
      }
      if (how.type === "int") {
        const control = this.text(path, value === undefined ? "" : String(value), parseInteger, set(name), {
          placeholder: required.has(name) ? "required" : "",
        });
        return this.field(path, name, control, hint);
      }
      if (how.type === "ints") {
        const control = this.text(path, formatInts(value), parseInts, set(name), {
          placeholder: "e.g. 1 or 0, -1 (empty: not given)",
        });
        return this.field(path, name, control, hint);
      }
      const control = this.text(path, formatJSONField(value), parseJSONField, set(name));
      return this.field(path, name, control, hint);
    });
    // Names the schema does not know (a pasted alias such as topk) stay editable as JSON.
    for (const [name, value] of Object.entries(current)) {
      if (name in props) continue;
      const control = this.text(`attrs.${name}`, formatJSONField(value), parseJSONField, set(name));
      controls.push(this.field(`attrs.${name}`, name, control, "Not an attribute of this op's schema."));
    }
    if (!controls.length) controls.push(el("p", { class: "field__hint", text: "This op has no attributes." }));
    return this.group("attrs", "Attributes", null, ...controls);
  }

  inputs(d, detail) {
    if (d.inputs !== undefined && !Array.isArray(d.inputs)) {
      // Pasted JSON whose inputs are not a list: the API says so at "inputs"; the form shows nothing
      // it would have to invent, and the JSON view stays the place to fix it.
      return this.group("inputs", "Inputs", "inputs is not a list here; fix it in the JSON below.");
    }
    if (d.inputs === undefined) d.inputs = [];
    const slots = inputSlots(detail, d.inputs);
    const variadic = detail.inputs.some((p) => p.variadic);
    const parts = [];
    slots.forEach(({ port, name }, index) => {
      const present = index < d.inputs.length;
      const path = `inputs[${index}]`;
      if (port?.optional && !present) {
        const add = this.button(`Add the optional ${name} input`, () =>
          this.structural(() => {
            while (d.inputs.length < index) d.inputs.push(blankTensor(slots[d.inputs.length].port));
            d.inputs.push(blankTensor(port));
          }, idFor(`${path}.shape`)),
          { id: `add-input-${index}` },
        );
        parts.push(el("div", { class: "tensor tensor--absent" }, el("p", { class: "field__hint", text: port.description }), add));
        return;
      }
      const removable = variadic ? slots.length > 1 : !port || port.optional;
      const remove = removable
        ? this.button(`Remove ${name}`, () =>
            this.structural(() => {
              if (variadic || !port) d.inputs.splice(index, 1);
              else d.inputs.length = index; // later optional ports cannot stay without this one
            }, variadic || !port ? "add-input" : `add-input-${index}`),
          )
        : null;
      const tensor = () => {
        while (d.inputs.length <= index) d.inputs.push(blankTensor(slots[d.inputs.length].port));
        if (!isObject(d.inputs[index])) d.inputs[index] = blankTensor(port);
        return d.inputs[index];
      };
      parts.push(this.tensor(path, name, port, tensor, d.inputs[index] ?? blankTensor(port), remove, detail, true));
    });
    if (variadic) {
      const port = detail.inputs.find((p) => p.variadic);
      parts.push(
        this.button(
          `Add input ${port.name}${slots.length + 1}`,
          () =>
            this.structural(() => {
              while (d.inputs.length < slots.length) d.inputs.push(blankTensor(port));
              const last = d.inputs[d.inputs.length - 1];
              d.inputs.push({ dtype: last?.dtype ?? port.dtypes[0] });
            }, idFor(`inputs[${slots.length}].shape`)),
          { id: "add-input" },
        ),
      );
    }
    return this.group("inputs", "Inputs", null, dtypeTable(detail), ...parts);
  }

  outputs(d, detail) {
    const declared = Array.isArray(d.outputs);
    const box = el("input", { type: "checkbox", id: "f-declare-outputs" });
    box.checked = declared;
    box.addEventListener("change", () =>
      this.structural(() => {
        if (box.checked) {
          d.outputs = detail.outputs.map(
            (port, i) => clone(this.hooks.inferred()?.[i]) ?? { dtype: port.dtypes[0], shape: null },
          );
        } else delete d.outputs;
      }, box.id),
    );
    const toggle = el(
      "div",
      { class: "check" },
      box,
      el("label", { for: "f-declare-outputs", text: "Check declared outputs against the inferred ones" }),
    );
    const parts = [toggle];
    if (declared) {
      d.outputs.forEach((tensor, index) => {
        const port = detail.outputs[index];
        const name = port?.name ?? `output ${index}`;
        const get = () => {
          if (!isObject(d.outputs[index])) d.outputs[index] = blankTensor(port);
          return d.outputs[index];
        };
        parts.push(this.tensor(`outputs[${index}]`, name, port, get, tensor, null, detail, false));
      });
    }
    return this.group("outputs", "Outputs", null, ...parts);
  }

  /** One tensor's controls: `<name> dtype`, `<name> shape`, and for inputs `<name> data`. */
  tensor(path, name, port, get, tensor, remove, detail, isInput) {
    const t = isObject(tensor) ? tensor : {};
    const dtypes = [...(port?.dtypes ?? [])];
    if (t.dtype !== undefined && !dtypes.includes(t.dtype)) dtypes.push(String(t.dtype));
    if (!dtypes.length) dtypes.push("f32");
    const dtype = this.select(dtypes, t.dtype ?? dtypes[0], (v) => {
      get().dtype = v;
    });
    const shape = this.text(`${path}.shape`, formatShape(t.shape), parseShape, (v) => {
      get().shape = v;
    }, { placeholder: "2, N, 4 · ? unknown dim · * unknown rank" });
    const rows = [
      el(
        "div",
        { class: "tensor__row" },
        this.field(`${path}.dtype`, `${name} dtype`, dtype),
        this.field(`${path}.shape`, `${name} shape`, shape),
      ),
    ];
    if (isInput) {
      const data = this.text(
        `${path}.data`,
        formatData(t.data),
        parseData,
        (v) => {
          if (v === undefined) delete get().data;
          else get().data = v;
        },
        { multiline: true, placeholder: "[[1, nan], [-0, inf]] or empty" },
      );
      rows.push(this.field(`${path}.data`, `${name} data`, data));
      const layoutShown = t.strides !== undefined || t.quant !== undefined || detail.kind === "Argmax";
      if (layoutShown) {
        const strides = this.text(`${path}.strides`, formatInts(t.strides), parseInts, (v) => {
          if (v === undefined) delete get().strides;
          else get().strides = v;
        }, { placeholder: "in elements, outermost first (empty: contiguous)" });
        const quant = this.text(`${path}.quant`, formatJSONField(t.quant), parseJSONField, (v) => {
          if (v === undefined) delete get().quant;
          else get().quant = v;
        }, { placeholder: '{"scale": 1, "zero_point": 0} or {"frac_bits": 8}' });
        rows.push(
          el(
            "div",
            { class: "tensor__row" },
            this.field(`${path}.strides`, `${name} strides`, strides),
            this.field(`${path}.quant`, `${name} quant`, quant),
          ),
        );
      }
    }
    const legend = el("span", { class: "tensor__name", text: name });
    const description = port?.description ?? "Not a port of this op.";
    const group = this.group(path, "", description, ...rows);
    group.classList.add("tensor");
    group.querySelector("legend").replaceChildren(legend, remove ? el("span", { class: "tensor__actions" }, remove) : "");
    return group;
  }
}
