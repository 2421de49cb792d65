// The API client: the only module that talks to the server, always to the page's own origin.
import { parseJSON, stringify } from "./json.js";

const base = () => new URL(".", document.baseURI);

/** One call: {status, body}; body is the parsed JSON answer (a problem body for 4xx). */
async function call(method, path, descriptor, signal) {
  const init = { method, headers: { Accept: "application/json" }, signal };
  if (descriptor !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = stringify(descriptor);
  }
  const response = await fetch(new URL(path, base()), init);
  const text = await response.text();
  let body;
  try {
    body = parseJSON(text);
  } catch {
    body = { title: response.statusText, detail: text.slice(0, 500), errors: [] };
  }
  return { status: response.status, body };
}

export async function listOps() {
  const { status, body } = await call("GET", "v1/ops");
  if (status !== 200) throw new Error(`GET v1/ops answered ${status}`);
  return body;
}

const details = new Map();

/** One op's schema, ports, dtype table and rules, fetched once per canonical kind. */
export function getOp(kind) {
  if (!details.has(kind)) {
    const request = call("GET", `v1/ops/${encodeURIComponent(kind)}`).then(({ status, body }) => {
      if (status !== 200) throw new Error(`GET v1/ops/${kind} answered ${status}`);
      return body;
    });
    request.catch(() => details.delete(kind));
    details.set(kind, request);
  }
  return details.get(kind);
}

export const validate = (descriptor, signal) => call("POST", "v1/validate", descriptor, signal);
export const evaluate = (descriptor, signal) => call("POST", "v1/evaluate", descriptor, signal);

/** A graph file (a File, Blob or FormData) to POST v1/graphs/validate, with the page's extras: the
 * layout to draw and each checked node's descriptor. type null: FormData sets its own. */
export async function graph(body, type) {
  const headers = { Accept: "application/json" };
  if (type) headers["Content-Type"] = type;
  const response = await fetch(new URL("v1/graphs/validate?layout=true&descriptors=true", base()), { method: "POST", headers, body });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: { title: response.statusText, detail: text.slice(0, 500), errors: [] } };
  }
}

/** A ready-to-run curl command for the same request. */
export function curlCommand(descriptor, endpoint) {
  const url = new URL(`v1/${endpoint}`, base()).href;
  const quoted = `'${stringify(descriptor).replaceAll("'", "'\\''")}'`;
  return `curl -s ${url} -H 'Content-Type: application/json' -d ${quoted}`;
}
