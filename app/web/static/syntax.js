// What people type into the form's text fields, read leniently and written back the same way:
// shapes (`2, N, 4`, `[2, "N", 4]`, `?`, `*`), lists of ints, and tensor data with nan, inf and -0.
import { Lit, parseJSON, pretty } from "./json.js";

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SYMBOL = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EXPRESSION = /^[A-Za-z0-9_ +\-*/%(),]+$/;
const SPECIAL = new Map([
  ["nan", "nan"],
  ["+nan", "nan"],
  ["-nan", "nan"],
  ["inf", "inf"],
  ["+inf", "inf"],
  ["infinity", "inf"],
  ["+infinity", "inf"],
  ["-inf", "-inf"],
  ["-infinity", "-inf"],
]);

export class SyntaxProblem extends Error {}

function integer(text) {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : new Lit(text.replace(/^\+/, ""));
}

function unbracket(text) {
  const t = text.trim();
  return t.startsWith("[") && t.endsWith("]") ? t.slice(1, -1).trim() : t;
}

/** The text split at its commas outside parentheses: `S, min(T, 4)` is two dims. */
function topLevel(text) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Whether a dim reads as an expression over symbols (`S + T`, `(H - 1) // 2 + 1`, `min(S, 512)`): the
 * server reads it (app/core/dims.py) and answers its canonical form, or names what is wrong in it. */
function isExpression(token) {
  if (!EXPRESSION.test(token)) return false;
  const tokens = token.match(/\d+|[A-Za-z_]\w*|\/\/|[-+*%(),]|\S/g) ?? [];
  let depth = 0;
  let operand = false; // the last token ended an operand: a number, a name or ")"
  for (const [i, t] of tokens.entries()) {
    if (t === "/") return false;
    const call = tokens[i - 1] === "min" || tokens[i - 1] === "max";
    if (/^[\w(]/.test(t) && operand && !(t === "(" && call)) return false; // two operands in a row
    depth += t === "(" ? 1 : t === ")" ? -1 : 0;
    if (depth < 0) return false;
    operand = /^[\w)]/.test(t);
  }
  return depth === 0 && operand;
}

/** A shape: null (unknown rank) for empty or `*`; `[]` is rank 0; `?` is an unknown dim (-1); a dim may
 * be a size, a symbol or an expression over symbols. */
export function parseShape(text) {
  const t = text.trim();
  if (t === "" || t === "*" || t === "null") return null;
  const inner = unbracket(t);
  if (inner === "") {
    if (t.startsWith("[")) return [];
    throw new SyntaxProblem(`expected dims such as 2, N, 4; got ${JSON.stringify(text)}`);
  }
  return topLevel(inner).map((raw, index) => {
    let token = raw.trim();
    const quoted = /^(["'])(.*)\1$/.exec(token);
    if (quoted) token = quoted[2].trim();
    if (token === "?" || token === "null" || token === "-1") return -1;
    if (!quoted && INTEGER.test(token)) return integer(token);
    if (SYMBOL.test(token) || isExpression(token)) return token;
    const what = token === "" ? "is empty" : `is ${JSON.stringify(token)}`;
    throw new SyntaxProblem(
      `dim ${index} ${what}; a dim is a size (4), ? for unknown, a symbol (N) or an expression (S + 1, H // 2)`,
    );
  });
}

export function formatShape(shape) {
  if (shape === null || shape === undefined) return "";
  if (!Array.isArray(shape)) return String(shape);
  if (shape.length === 0) return "[]";
  return shape
    .map((d) => {
      if (d === -1 || d === null || d === "?") return "?";
      if (typeof d === "string") return SYMBOL.test(d) || isExpression(d) ? d : JSON.stringify(d);
      return String(d);
    })
    .join(", ");
}

/** A list of integers: `1, 2` or `[1, 2]`; empty text is "not given" (undefined). */
export function parseInts(text) {
  const t = text.trim();
  if (t === "") return undefined;
  const inner = unbracket(t);
  if (inner === "") return [];
  return inner.split(",").map((raw, index) => {
    const token = raw.trim();
    if (!INTEGER.test(token)) {
      throw new SyntaxProblem(`item ${index} is ${JSON.stringify(token)}; expected integers such as 0, -1`);
    }
    return integer(token);
  });
}

export function formatInts(list) {
  if (list === undefined || list === null) return "";
  return Array.isArray(list) ? (list.length ? list.map(String).join(", ") : "[]") : String(list);
}

export function parseInteger(text) {
  const t = text.trim();
  if (t === "") return undefined;
  if (!INTEGER.test(t)) throw new SyntaxProblem(`expected an integer; got ${JSON.stringify(t)}`);
  return integer(t);
}

/** Any JSON value (quant, unknown attributes); empty text is "not given". */
export function parseJSONField(text) {
  const t = text.trim();
  if (t === "") return undefined;
  try {
    return parseJSON(t);
  } catch (error) {
    throw new SyntaxProblem(`not JSON: ${error.message}`);
  }
}

export function formatJSONField(value) {
  return value === undefined ? "" : pretty(value);
}

// --- tensor data ------------------------------------------------------------------------------------

function scalar(token) {
  const special = SPECIAL.get(token.toLowerCase());
  if (special) return special;
  if (token === "true" || token === "false") return token === "true";
  if (INTEGER.test(token)) return token.replace(/^\+/, "") === "-0" ? -0 : integer(token);
  if (NUMBER.test(token)) return Number(token);
  throw new SyntaxProblem(`${JSON.stringify(token)} is not a number (nan, inf, -inf and -0 are)`);
}

/**
 * Values in row-major order: nested lists `[[1, nan], [-0, inf]]`, a flat list with or without
 * brackets (`1, 2, 3`), a bare number for rank 0, or a JSON object ({"encoding": "base64", ...}).
 * Empty text is "no data" (undefined).
 */
export function parseData(text) {
  const t = text.trim();
  if (t === "") return undefined;
  if (t.startsWith("{")) return parseJSONField(t);
  const tokens = t.match(/\[|\]|,|"[^"]*"|[^\s[\],"]+/g) ?? [];
  let at = 0;
  const value = () => {
    const token = tokens[at++];
    if (token === undefined) throw new SyntaxProblem("the data ends early; a ] or a value is missing");
    if (token === "[") {
      const items = [];
      if (tokens[at] === "]") {
        at++;
        return items;
      }
      for (;;) {
        items.push(value());
        const next = tokens[at++];
        if (next === "]") return items;
        if (next === undefined) throw new SyntaxProblem("the data ends early; a ] or a value is missing");
        if (next !== ",") throw new SyntaxProblem(`expected , or ] after item ${items.length - 1}`);
      }
    }
    if (token === "]" || token === ",") throw new SyntaxProblem(`unexpected ${token}`);
    return scalar(token.startsWith('"') ? token.slice(1, -1) : token);
  };
  const first = value();
  if (at === tokens.length) return first;
  // A flat list written without brackets: 1, 2, 3.
  const items = [first];
  while (at < tokens.length) {
    if (tokens[at++] !== ",") throw new SyntaxProblem("expected a comma between values");
    items.push(value());
  }
  return items;
}

/** A value as the page shows it: NaN, inf, -inf and -0 written as such. */
export function formatValue(value) {
  if (value === "nan" || Number.isNaN(value)) return "NaN";
  if (value === "inf" || value === Infinity) return "inf";
  if (value === "-inf" || value === -Infinity) return "-inf";
  if (Object.is(value, -0)) return "-0";
  if (value instanceof Lit) return value.text;
  return String(value);
}

/** Data as the data field shows it (the field's own syntax, so it reads back unchanged); the rows of
 * a matrix, or the matrices of a rank-3 tensor, one to a line. */
export function formatData(value, indent = "") {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) {
    if (value.length > 1 && value.every(Array.isArray)) {
      const inner = `${indent} `;
      return `[${value.map((v, i) => (i ? inner : "") + formatData(v, inner)).join(",\n")}]`;
    }
    return `[${value.map((v) => formatData(v, indent)).join(", ")}]`;
  }
  if (typeof value === "object" && !(value instanceof Lit)) return pretty(value);
  const shown = formatValue(value);
  return shown === "NaN" ? "nan" : shown;
}
