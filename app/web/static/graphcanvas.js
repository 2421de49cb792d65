// The graph drawing: one canvas, boxes and edges from the server's layout, redrawn per frame for only
// what is in view, so a 5,000-node graph pans as smoothly as a 10-node one. Zoom and pan by mouse,
// wheel, touch (one finger pans, two pinch) and keyboard; the list view is the accessible twin.

const PAD = 48; // world margin: room above the first layer for the graph inputs' labels
const MIN_SCALE = 0.02;
const MAX_SCALE = 4;
const TEXT_SCALE = 0.45; // below this, boxes only: text would be unreadable and slow
const LABEL_GAP = 6; // between two labels side by side

/** f32[1, 64, 8, 8] from a value or tensor of the answer; unknown dtype '?', unknown dim '?'. */
export function typeText(t) {
  const dims = Array.isArray(t.shape) ? t.shape.map((d) => (d === -1 || d === null || d === "?" ? "?" : String(d))).join(", ") : "*";
  return `${t.dtype ?? "?"}[${dims}]`;
}

/** error, warning, valid, unchecked, structural: what a node's colour says. */
export function verdictOf(node) {
  if (node.structural) return "structural";
  if (node.diagnostics.some((d) => d.severity === "error")) return "error";
  if (!node.checked_by) return "unchecked";
  if (node.diagnostics.some((d) => d.severity === "warning")) return "warning";
  return "valid";
}

/** The engine (onnx, openvino) whose own inference checked the node or typed its outputs; null: none. */
export function engineOf(node) {
  if (node.checked_by && node.checked_by !== "opspec") return node.checked_by;
  return node.typed_by === "onnx" || node.typed_by === "openvino" ? node.typed_by : null;
}

function palette() {
  const css = getComputedStyle(document.documentElement);
  const v = (name) => css.getPropertyValue(name).trim();
  return {
    bg: v("--panel"),
    text: v("--text"),
    muted: v("--muted"),
    border: v("--border"),
    focus: v("--focus"),
    accent: v("--accent"),
    error: [v("--error-bg"), v("--error")],
    warning: [v("--warning-bg"), v("--warning")],
    valid: [v("--valid-bg"), v("--valid")],
    unchecked: [v("--panel"), v("--muted")],
    structural: [v("--code-bg"), v("--muted")],
    mono: v("--mono"),
    sans: v("--sans"),
  };
}

export class GraphCanvas {
  constructor(canvas, { onSelect }) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onSelect = onSelect;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.graph = null;
    this.selected = -1;
    this.matches = new Set();
    this.frame = 0;
    this.pointers = new Map();
    this.colors = palette();
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      this.colors = palette();
      this.request();
    });
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
    this.listen();
  }

  /** answer: the graph answer with `layout`. Builds the drawing's index once. */
  show(answer) {
    const boxes = answer.layout.nodes;
    const index = new Map(boxes.map((b, i) => [b.id, i]));
    const nodes = answer.nodes;
    const verdicts = nodes.map(verdictOf);
    const edges = []; // [from index, to index, value index]
    const inputs = []; // [to index, value index, port]
    const labels = []; // [value index, x, y]: one label per value, under its producer
    const outCount = new Map();
    answer.values.forEach((value, v) => {
      const from = value.producer == null ? -1 : (index.get(value.producer) ?? -1);
      if (from >= 0) {
        const k = outCount.get(from) ?? 0;
        outCount.set(from, k + 1);
        labels.push([v, from, k]);
      }
      for (const consumer of value.consumers) {
        const to = index.get(consumer);
        if (to === undefined) continue;
        if (from >= 0) edges.push([from, to, v]);
        else inputs.push([to, v]);
      }
    });
    // Each graph input gets its own slot above its consumer.
    const slot = new Map();
    const inputSlots = inputs.map(([to]) => {
      const k = slot.get(to) ?? 0;
      slot.set(to, k + 1);
      return k;
    });
    const layers = [];
    boxes.forEach((b, i) => (layers[b.layer] ??= []).push(i));
    for (const row of layers) row?.sort((a, b) => boxes[a].x - boxes[b].x);
    // A value whose declarations disagree (graph.edge.*) is drawn as a faulty edge, its label marked.
    const faults = answer.values.map((value) => {
      const found = value.diagnostics ?? [];
      return found.some((d) => d.severity === "error") ? "error" : found.some((d) => d.severity === "warning") ? "warning" : "";
    });
    // The labels of one node's graph inputs (above it) and of its outputs (below it) side by side,
    // centred on the node, so that two never overlap however narrow the box; each input's line runs
    // from its label to its own place on the box.
    this.ctx.font = `11px ${this.colors.mono}`;
    const width = (v) => this.ctx.measureText(labelText(answer.values[v], faults[v])).width + 8;
    const packed = (groups, at) => {
      const centre = new Array(at.length);
      for (const [node, members] of groups) {
        const b = boxes[node];
        const xs = sideBySide(members.map((k) => width(at[k])), b.x + b.width / 2);
        members.forEach((k, j) => (centre[k] = xs[j]));
      }
      return centre;
    };
    const group = (pairs) => {
      const out = new Map();
      pairs.forEach(([node], k) => (out.get(node) ?? out.set(node, []).get(node)).push(k));
      return out;
    };
    const inputLabelX = packed(group(inputs), inputs.map(([, v]) => v));
    const outputLabelX = packed(group(labels.map(([v, from]) => [from, v])), labels.map(([v]) => v));
    this.graph = { answer, boxes, nodes, verdicts, edges, inputs, inputSlots, slot, labels, outCount, layers, faults, inputLabelX, outputLabelX, width: answer.layout.width, height: answer.layout.height };
    document.documentElement.dataset.faultyValues = String(faults.filter(Boolean).length); // for the tests
    this.selected = -1;
    this.resize();
    this.start();
  }

  /** The first view: the whole graph when it reads at that size, else its top at a readable size. */
  start() {
    this.fit();
    if (this.scale >= 0.6) return;
    const w = this.graph.width + 2 * PAD;
    this.scale = Math.max(TEXT_SCALE, Math.min(1, this.cssWidth / w));
    this.tx = Math.max(0, (this.cssWidth - w * this.scale) / 2) + PAD * this.scale;
    this.ty = PAD * this.scale;
    this.request();
  }

  // --- view transform ----------------------------------------------------------------------------

  resize() {
    const rect = this.canvas.parentElement.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    this.cssWidth = Math.max(1, rect.width);
    this.cssHeight = Math.max(1, this.canvas.getBoundingClientRect().height || rect.height);
    this.canvas.width = Math.round(this.cssWidth * ratio);
    this.canvas.height = Math.round(this.cssHeight * ratio);
    this.ratio = ratio;
    this.request();
  }

  fit() {
    if (!this.graph) return;
    const w = this.graph.width + 2 * PAD;
    const h = this.graph.height + 2 * PAD;
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, Math.min(this.cssWidth / w, this.cssHeight / h, 1.25)));
    this.tx = (this.cssWidth - w * this.scale) / 2 + PAD * this.scale;
    this.ty = Math.max(0, (this.cssHeight - h * this.scale) / 2) + PAD * this.scale;
    this.request();
  }

  zoom(factor, cx = this.cssWidth / 2, cy = this.cssHeight / 2) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.scale * factor));
    const k = scale / this.scale;
    this.tx = cx - (cx - this.tx) * k;
    this.ty = cy - (cy - this.ty) * k;
    this.scale = scale;
    this.request();
  }

  pan(dx, dy) {
    this.tx += dx;
    this.ty += dy;
    this.request();
  }

  /** Centre a node, zoomed in enough to read it. */
  reveal(i) {
    if (!this.graph) return;
    const b = this.graph.boxes[i];
    this.scale = Math.max(this.scale, 1);
    this.tx = this.cssWidth / 2 - (b.x + b.width / 2) * this.scale;
    this.ty = this.cssHeight / 2 - (b.y + b.height / 2) * this.scale;
    this.request();
  }

  /** No drawing (a graph over the page's limit): nothing is drawn or hit. */
  clear() {
    this.graph = null;
    this.selected = -1;
    this.request();
  }

  select(i, { reveal = false } = {}) {
    this.selected = i;
    if (!this.graph) return;
    if (reveal && i >= 0) this.reveal(i);
    this.request();
  }

  nodeAt(x, y) {
    const wx = (x - this.tx) / this.scale;
    const wy = (y - this.ty) / this.scale;
    const { boxes, layers } = this.graph;
    for (const row of layers) {
      if (!row?.length) continue;
      const b0 = boxes[row[0]];
      if (wy < b0.y || wy > b0.y + b0.height) continue;
      for (const i of row) {
        const b = boxes[i];
        if (wx >= b.x && wx <= b.x + b.width) return i;
      }
    }
    return -1;
  }

  // --- input ---------------------------------------------------------------------------------------

  listen() {
    const c = this.canvas;
    let moved = 0;
    c.addEventListener("pointerdown", (e) => {
      c.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
      moved = 0;
    });
    c.addEventListener("pointermove", (e) => {
      const last = this.pointers.get(e.pointerId);
      if (!last) return;
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        last.x = e.offsetX;
        last.y = e.offsetY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        if (before > 0) this.zoom(after / before, (a.x + b.x) / 2, (a.y + b.y) / 2);
        moved += 10;
        return;
      }
      const dx = e.offsetX - last.x;
      const dy = e.offsetY - last.y;
      moved += Math.abs(dx) + Math.abs(dy);
      last.x = e.offsetX;
      last.y = e.offsetY;
      this.pan(dx, dy);
    });
    const end = (e) => {
      const was = this.pointers.has(e.pointerId);
      this.pointers.delete(e.pointerId);
      if (was && e.type === "pointerup" && moved < 5 && this.graph) {
        const i = this.nodeAt(e.offsetX, e.offsetY);
        if (i >= 0) this.onSelect(i, { from: "drawing" });
      }
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        this.zoom(Math.exp(-e.deltaY * 0.0015), e.offsetX, e.offsetY);
      },
      { passive: false },
    );
    c.addEventListener("keydown", (e) => {
      if (!this.graph) return;
      const step = 60;
      const keys = {
        ArrowLeft: () => this.pan(step, 0),
        ArrowRight: () => this.pan(-step, 0),
        ArrowUp: () => this.pan(0, step),
        ArrowDown: () => this.pan(0, -step),
        "+": () => this.zoom(1.25),
        "=": () => this.zoom(1.25),
        "-": () => this.zoom(0.8),
        0: () => this.fit(),
        "]": () => this.step(1),
        "[": () => this.step(-1),
        Enter: () => this.selected >= 0 && this.onSelect(this.selected, { from: "keyboard", open: true }),
      };
      const action = keys[e.key];
      if (action && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        action();
      }
    });
  }

  /** The next or previous node in reading order (layer by layer, left to right). */
  step(direction) {
    const order = this.graph.layers.flat();
    const at = order.indexOf(this.selected);
    const next = order[(at + direction + order.length) % order.length] ?? order[0];
    this.onSelect(next, { from: "keyboard", reveal: true });
  }

  // --- drawing -------------------------------------------------------------------------------------

  request() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  draw() {
    this.frame = 0;
    const ctx = this.ctx;
    const c = this.colors;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.graph) return;
    const t0 = performance.now();
    const { boxes, verdicts, edges, inputs, inputSlots, slot, labels, nodes, faults, inputLabelX, outputLabelX } = this.graph;
    const s = this.scale;
    ctx.setTransform(s * this.ratio, 0, 0, s * this.ratio, this.tx * this.ratio, this.ty * this.ratio);
    // The visible world rectangle, with a margin for labels.
    const x0 = -this.tx / s - 150;
    const y0 = -this.ty / s - 60;
    const x1 = (this.cssWidth - this.tx) / s + 150;
    const y1 = (this.cssHeight - this.ty) / s + 60;
    const inView = (b) => b.x + b.width >= x0 && b.x <= x1 && b.y + b.height >= y0 && b.y <= y1;
    const sel = this.selected;
    const lw = Math.max(1, 1 / s);

    // Edges: one path for all, one for the selected node's, one per kind of fault in a value.
    const plain = new Path2D();
    const marked = new Path2D();
    const faulty = { error: new Path2D(), warning: new Path2D() };
    const pathOf = (from, to, v) => faulty[faults[v]] ?? (sel >= 0 && (from === sel || to === sel) ? marked : plain);
    for (const [from, to, v] of edges) {
      const a = boxes[from];
      const b = boxes[to];
      const ax = a.x + a.width / 2;
      const ay = a.y + a.height;
      const bx = b.x + b.width / 2;
      const by = b.y;
      if (Math.max(ax, bx) < x0 || Math.min(ax, bx) > x1 || by < y0 || ay > y1) continue;
      const path = pathOf(from, to, v);
      path.moveTo(ax, ay);
      path.lineTo(bx, by);
    }
    inputs.forEach(([to, v], k) => {
      const b = boxes[to];
      if (!inView(b)) return;
      const n = slot.get(to);
      const path = pathOf(-1, to, v);
      path.moveTo(inputLabelX[k], b.y - 22);
      path.lineTo(b.x + (b.width * (inputSlots[k] + 1)) / (n + 1), b.y);
    });
    ctx.lineWidth = lw;
    ctx.strokeStyle = c.muted;
    ctx.stroke(plain);
    ctx.lineWidth = 2.5 * lw;
    ctx.strokeStyle = c.accent;
    ctx.stroke(marked);
    for (const kind of ["warning", "error"]) {
      ctx.lineWidth = 3 * lw;
      ctx.strokeStyle = c[kind][1];
      ctx.setLineDash([8, 4]);
      ctx.stroke(faulty[kind]);
    }
    ctx.setLineDash([]);

    // Boxes, batched by verdict.
    const visible = [];
    for (let i = 0; i < boxes.length; i++) if (inView(boxes[i])) visible.push(i);
    for (const kind of ["valid", "warning", "error", "unchecked", "structural"]) {
      const path = new Path2D();
      for (const i of visible) {
        if (verdicts[i] !== kind) continue;
        const b = boxes[i];
        path.roundRect(b.x, b.y, b.width, b.height, kind === "structural" ? b.height / 2 : 6);
      }
      ctx.fillStyle = c[kind][0];
      ctx.fill(path);
      ctx.strokeStyle = c[kind][1];
      ctx.lineWidth = (kind === "error" || kind === "warning" ? 2.5 : 1.5) * lw;
      ctx.setLineDash(kind === "unchecked" ? [5, 4] : []);
      ctx.stroke(path);
    }
    ctx.setLineDash([]);
    // Zoomed far out, a node with findings is a mark at least 10 px high, so it is seen at once.
    if (s < TEXT_SCALE) {
      for (const kind of ["warning", "error"]) {
        ctx.fillStyle = c[kind][1];
        for (const i of visible) {
          if (verdicts[i] !== kind) continue;
          const b = boxes[i];
          const h = Math.max(b.height, 10 / s);
          const w = Math.max(b.width, 24 / s);
          ctx.fillRect(b.x + b.width / 2 - w / 2, b.y + b.height / 2 - h / 2, w, h);
        }
      }
    }
    // Search matches and the selection: a thick outline in the focus colour.
    const ring = (i, width) => {
      const b = boxes[i];
      ctx.lineWidth = width * lw;
      ctx.strokeStyle = c.focus;
      ctx.beginPath();
      ctx.roundRect(b.x - 4, b.y - 4, b.width + 8, b.height + 8, 9);
      ctx.stroke();
    };
    for (const i of this.matches) if (inView(boxes[i])) ring(i, 2);
    if (sel >= 0 && inView(boxes[sel])) ring(sel, 4);

    if (s >= TEXT_SCALE) {
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      for (const i of visible) {
        const b = boxes[i];
        const node = nodes[i];
        const marked = verdicts[i] === "error" || verdicts[i] === "warning" || verdicts[i] === "valid";
        const engine = engineOf(node);
        const tag = engine === "openvino" ? "OpenVINO" : engine?.toUpperCase();
        // The text between the verdict mark (the left 20 px) and the engine's tag (top right), so the
        // kind never runs under the tag however long it is.
        const left = b.x + (marked ? 20 : 8);
        const right = b.x + b.width - 8;
        ctx.font = `700 9.5px ${c.sans}`;
        const tagRoom = tag ? ctx.measureText(tag).width + 6 : 0;
        ctx.fillStyle = c.text;
        ctx.font = `700 12.5px ${c.sans}`;
        ctx.fillText(fitText(ctx, node.kind, right - tagRoom - left), (left + right - tagRoom) / 2, b.y + 15);
        ctx.font = `11.5px ${c.mono}`;
        ctx.fillStyle = c.muted;
        ctx.fillText(fitText(ctx, node.name, right - left), (left + right) / 2, b.y + 31);
        const mark = verdicts[i] === "error" ? "✗" : verdicts[i] === "warning" ? "!" : verdicts[i] === "valid" ? "✓" : "";
        if (mark) {
          ctx.fillStyle = c[verdicts[i]][1];
          ctx.font = `700 14px ${c.sans}`;
          ctx.textAlign = "left";
          ctx.fillText(mark, b.x + 7, b.y + b.height / 2);
          ctx.textAlign = "center";
        }
        if (tag) {
          // checked or typed by another engine's own inference: a small tag in the corner
          ctx.font = `700 9.5px ${c.sans}`;
          ctx.fillStyle = c.accent;
          ctx.textAlign = "right";
          ctx.fillText(tag, b.x + b.width - 5, b.y + 10);
          ctx.textAlign = "center";
        }
      }
      // Edge labels: each value once, under its producer (several outputs side by side).
      ctx.font = `11px ${c.mono}`;
      const values = this.graph.answer.values;
      labels.forEach(([v, from], k) => {
        const b = boxes[from];
        if (inView(b)) label(ctx, c, values[v], faults[v], outputLabelX[k], b.y + b.height + 13);
      });
      inputs.forEach(([to, v], k) => {
        const b = boxes[to];
        if (inView(b)) label(ctx, c, values[v], faults[v], inputLabelX[k], b.y - 30);
      });
    }
    this.lastDrawMs = performance.now() - t0;
  }
}

/** The centres of labels of these widths laid side by side, LABEL_GAP apart, centred on `centre`. */
export function sideBySide(widths, centre) {
  let x = centre - (widths.reduce((a, w) => a + w, 0) + LABEL_GAP * (widths.length - 1)) / 2;
  return widths.map((w) => {
    const at = x + w / 2;
    x += w + LABEL_GAP;
    return at;
  });
}

/** A value's label: its type, marked ✗ (or !) where its declarations disagree. */
function labelText(value, fault) {
  return fault ? `${fault === "error" ? "✗" : "!"} ${typeText(value)}` : typeText(value);
}

function label(ctx, c, value, fault, x, y) {
  const text = labelText(value, fault);
  const w = ctx.measureText(text).width + 8;
  ctx.fillStyle = fault ? c[fault][0] : c.bg;
  ctx.fillRect(x - w / 2, y - 8, w, 16);
  if (fault) {
    ctx.strokeStyle = c[fault][1];
    ctx.lineWidth = 1.5 / ctx.getTransform().a * (window.devicePixelRatio || 1);
    ctx.strokeRect(x - w / 2, y - 8, w, 16);
  }
  ctx.fillStyle = fault ? c[fault][1] : c.text;
  ctx.fillText(text, x, y);
}

function fitText(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let cut = text.length;
  while (cut > 1 && ctx.measureText(`${text.slice(0, cut)}…`).width > width) cut--;
  return `${text.slice(0, cut)}…`;
}
