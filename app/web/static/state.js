// The page's state in the URL: #d=<base64url of the descriptor's compact JSON, no padding>, so the
// address bar is always a link to what is on screen.
import { parseJSON, stringify } from "./json.js";

export function encode(descriptor) {
  const bytes = new TextEncoder().encode(stringify(descriptor));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decode(text) {
  const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return parseJSON(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
}

/** The descriptor in the current fragment: undefined when there is none; throws when it is broken. */
export function read() {
  const match = /^#d=(.*)$/.exec(location.hash);
  if (!match) return undefined;
  const descriptor = decode(match[1]);
  if (descriptor === null || typeof descriptor !== "object" || Array.isArray(descriptor)) {
    throw new Error("it is not a JSON object");
  }
  return descriptor;
}

export function write(descriptor) {
  if (document.documentElement.dataset.view === "graph") return; // the graph view owns the address then
  const hash = `#d=${encode(descriptor)}`;
  if (location.hash !== hash) history.replaceState(history.state, "", hash);
}
