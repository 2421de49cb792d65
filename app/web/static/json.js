// Exact JSON for tensor values: -0 stays -0 (written -0.0) and integers beyond 2**53 keep their digits,
// so an s64 or u64 value survives the round trip through the page unchanged.

/** An integer literal too large for a JS number, kept as its text. */
export class Lit {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const INTEGER = /^-?\d+$/;

/** JSON.parse, with unsafe integers kept as Lit (the reviver sees each number's source text). */
export function parseJSON(text) {
  return JSON.parse(text, (_key, value, context) => {
    if (typeof value === "number" && !Number.isSafeInteger(value) && context && INTEGER.test(context.source)) {
      return new Lit(context.source);
    }
    return value;
  });
}

/** One number as JSON: -0 as -0.0 (JSON.stringify writes 0), non-finite as the wire's strings. */
export function numberText(value) {
  if (Object.is(value, -0)) return "-0.0";
  if (Number.isNaN(value)) return '"nan"';
  if (value === Infinity) return '"inf"';
  if (value === -Infinity) return '"-inf"';
  return String(value);
}

function scalarText(value) {
  if (value instanceof Lit) return value.text;
  if (typeof value === "number") return numberText(value);
  return JSON.stringify(value ?? null);
}

/** Compact JSON (the URL fragment, request bodies, curl). */
export function stringify(value) {
  if (Array.isArray(value)) return `[${value.map(stringify).join(",")}]`;
  if (value !== null && typeof value === "object" && !(value instanceof Lit)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`).join(",")}}`;
  }
  return scalarText(value);
}

/** Readable JSON for the editor: anything that fits on a line stays on one line; a tensor's data reads as
 * its rows, one row (a list of numbers inside a list) per line however long, and a long list of numbers
 * on its own fills its lines, never one number a line. */
export function pretty(value, indent = "", width = 88, row = false) {
  const flat = spaced(value);
  if (flat.length + indent.length <= width || !isContainer(value)) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value) && !value.some(isContainer)) return row ? flat : filled(value, indent, width);
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => inner + pretty(v, inner, width, true)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pretty(v, inner, width)}`);
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

/** A list of scalars over as few lines as fit `width`. */
function filled(values, indent, width) {
  const inner = `${indent}  `;
  const lines = [];
  let line = "";
  for (const text of values.map(scalarText)) {
    if (line && inner.length + line.length + text.length + 2 > width) {
      lines.push(`${line},`);
      line = text;
    } else line = line ? `${line}, ${text}` : text;
  }
  lines.push(line);
  return `[\n${lines.map((l) => inner + l).join("\n")}\n${indent}]`;
}

function isContainer(value) {
  return value !== null && typeof value === "object" && !(value instanceof Lit);
}

function spaced(value) {
  if (Array.isArray(value)) return `[${value.map(spaced).join(", ")}]`;
  if (isContainer(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${spaced(v)}`).join(", ")}}`;
  }
  return scalarText(value);
}

/** A deep copy that keeps Lit and -0. */
export function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (isContainer(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)]));
  return value;
}
