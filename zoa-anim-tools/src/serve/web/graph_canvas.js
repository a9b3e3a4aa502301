// One layer of an animation graph on a 2D canvas: states as nodes (the
// entry marked), the layer's Any State as a source-only node, transitions
// as arrows. Interactions: select (click), drag nodes, context menus (add
// a state on empty space; on a node: add a transition, then click its
// target; set entry; rename; delete), Delete removes the selection,
// middle-drag or Alt-drag pans, the wheel zooms, Escape cancels a pending
// transition. The canvas never edits the file itself: it asks its owner
// through `on.*` callbacks, which turn requests into server-side edits.
//
// A list beside the canvas (`.graph-a11y`, visually hidden) names every
// node and arrow drawn, for screen readers and tests.
import { el } from './ui.js';

export const NODE_W = 150;
export const NODE_H = 42;
const ANY = -1; // node id of the Any State
const ELLIPSE_MIN_X = 200; // auto layout: smallest half-axes
const ELLIPSE_MIN_Y = 130;

const COLORS = {
  bg: '#1e242c', grid: '#262e38', node: '#34404f', nodeText: '#e8edf2', entry: '#f0a030', any: '#1f6f6a',
  arrow: '#9aa7b6', selected: '#6fb0ff', error: '#ff6b6b', warning: '#f5b942', active: '#3ccf7a', pending: '#6fb0ff',
};

/// Positions of the layer's nodes: the file's `position`s; the others on an
/// ellipse in breadth-first order from the entry (so neighbours sit side by
/// side and arrows are chords that miss the other nodes), the Any State in
/// the middle.
export function layout(view, layer) {
  const states = view.states.filter((s) => s.layer === layer);
  const order = [];
  const seen = new Set();
  const entry = states.find((s) => s.entry);
  const queue = entry ? [entry.index] : [];
  if (entry) seen.add(entry.index);
  while (queue.length) {
    const s = queue.shift();
    order.push(s);
    for (const t of view.transitions) {
      if (t.from_state === s && t.to_state !== null && !seen.has(t.to_state)) { seen.add(t.to_state); queue.push(t.to_state); }
    }
  }
  for (const s of states) if (!seen.has(s.index)) order.push(s.index);
  const n = order.length;
  const rx = Math.max(ELLIPSE_MIN_X, n * 42);
  const ry = Math.max(ELLIPSE_MIN_Y, n * 26);
  const pos = new Map();
  order.forEach((index, k) => {
    const s = states.find((x) => x.index === index);
    if (s && s.position) { pos.set(index, { x: s.position[0], y: s.position[1] }); return; }
    const a = Math.PI + (2 * Math.PI * k) / Math.max(n, 1);
    pos.set(index, { x: Math.round(rx * Math.cos(a)), y: Math.round(ry * Math.sin(a)) });
  });
  const any = view.layers[layer]?.any_position;
  pos.set(ANY, any ? { x: any[0], y: any[1] } : { x: 0, y: 0 });
  return pos;
}

export class GraphCanvas {
  constructor(host, on) {
    this.on = on; // {select(sel), requestAddState(pt), moveNodes(positions), addTransition(from, to), deleteSelection(), menu(items, x, y), setEntry(i), renameState(i)}
    this.canvas = el('canvas.graph-canvas', { tabindex: '0', 'aria-label': 'Graph canvas' });
    this.a11y = el('ul.graph-a11y');
    host.append(this.canvas, this.a11y);
    this.view = null;
    this.layer = 0;
    this.pos = new Map();
    this.zoom = 1;
    this.pan = { x: 0, y: 0 };
    this.sel = null; // {kind: 'state'|'transition'|'any', index}
    this.pending = null; // a transition being drawn: {from (state index or ANY), to: {x, y}}
    this.flags = { states: new Map(), transitions: new Map() }; // index → 'error'|'warning'
    this.live = null; // {active: [{state, weight, time}], transition: {from, to, progress}}
    this.drag = null;
    this.bind();
  }

  /// Shows `view`'s layer `layer`; keeps the camera.
  setView(view, layer) {
    this.view = view;
    this.layer = layer;
    this.pos = layout(view, layer);
    if (this.sel && !this.exists(this.sel)) this.sel = null;
    this.draw();
  }

  exists(sel) {
    if (sel.kind === 'state') return this.view.states.some((s) => s.index === sel.index && s.layer === this.layer);
    if (sel.kind === 'transition') return this.view.transitions.some((t) => t.index === sel.index);
    return sel.kind === 'any';
  }

  setFlags(flags) { this.flags = flags; this.draw(); }
  setLive(live) { this.live = live; this.draw(); }
  select(sel) { this.sel = sel; this.draw(); }

  /// Centres the layer's nodes in the canvas.
  frame() {
    const pts = [...this.pos.values()];
    if (!pts.length) return;
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    const w = this.canvas.clientWidth || this.canvas.width;
    const h = this.canvas.clientHeight || this.canvas.height;
    const spanX = Math.max(...xs) - Math.min(...xs) + NODE_W + 60;
    const spanY = Math.max(...ys) - Math.min(...ys) + NODE_H + 60;
    this.zoom = Math.max(0.25, Math.min(1.5, Math.min(w / spanX, h / spanY)));
    const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
    const cy = (Math.max(...ys) + Math.min(...ys)) / 2;
    this.pan = { x: w / 2 - cx * this.zoom, y: h / 2 - cy * this.zoom };
    this.draw();
  }

  toWorld(e) {
    const r = this.canvas.getBoundingClientRect();
    return { x: (e.clientX - r.left - this.pan.x) / this.zoom, y: (e.clientY - r.top - this.pan.y) / this.zoom };
  }

  states() { return this.view ? this.view.states.filter((s) => s.layer === this.layer) : []; }

  /// Transitions drawn on this layer, each with its two end points.
  arrows() {
    if (!this.view) return [];
    const out = [];
    for (const t of this.view.transitions) {
      if (t.layer !== this.layer || t.to_state === null) continue;
      const from = t.from_any ? ANY : t.from_state;
      if (from === null || !this.pos.has(from) || !this.pos.has(t.to_state)) continue;
      out.push({ t, from, to: t.to_state });
    }
    // Parallel arrows side by side: n-th of a pair (either direction) shifted.
    const seen = new Map();
    for (const a of out) {
      const key = [Math.min(a.from, a.to), Math.max(a.from, a.to)].join('/');
      const n = seen.get(key) || 0;
      seen.set(key, n + 1);
      a.lane = n;
    }
    for (const a of out) {
      const key = [Math.min(a.from, a.to), Math.max(a.from, a.to)].join('/');
      const total = seen.get(key);
      const p = this.pos.get(a.from);
      const q = this.pos.get(a.to);
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      const len = Math.hypot(dx, dy) || 1;
      const nx = -dy / len;
      const ny = dx / len;
      const sign = a.from < a.to ? 1 : -1; // same side offsets for either direction
      const off = (a.lane - (total - 1) / 2) * 10 * sign + (total === 1 ? 0 : 0);
      a.p = clip(p, q, { x: p.x + nx * off, y: p.y + ny * off });
      a.q = clip(q, p, { x: q.x + nx * off, y: q.y + ny * off });
    }
    return out;
  }

  hitNode(w) {
    for (const s of this.states().slice().reverse()) {
      const p = this.pos.get(s.index);
      if (Math.abs(w.x - p.x) <= NODE_W / 2 && Math.abs(w.y - p.y) <= NODE_H / 2) return { kind: 'state', index: s.index };
    }
    const a = this.pos.get(ANY);
    if (a && this.hasAny() && Math.abs(w.x - a.x) <= NODE_W / 2 && Math.abs(w.y - a.y) <= NODE_H / 2) return { kind: 'any', index: ANY };
    return null;
  }

  hitArrow(w) {
    let best = null;
    for (const a of this.arrows()) {
      const d = segDist(w, a.p, a.q);
      if (d < 7 / this.zoom && (!best || d < best.d)) best = { d, sel: { kind: 'transition', index: a.t.index } };
    }
    return best && best.sel;
  }

  /// The Any State node is drawn when the layer has states.
  hasAny() { return this.states().length > 0; }

  bind() {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => this.down(e));
    c.addEventListener('pointermove', (e) => this.move(e));
    c.addEventListener('pointerup', (e) => this.up(e));
    c.addEventListener('contextmenu', (e) => { e.preventDefault(); this.context(e); });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      const sx = e.clientX - r.left;
      const sy = e.clientY - r.top;
      const z = Math.max(0.2, Math.min(3, this.zoom * Math.exp(-e.deltaY * 0.0015)));
      this.pan.x = sx - ((sx - this.pan.x) * z) / this.zoom;
      this.pan.y = sy - ((sy - this.pan.y) * z) / this.zoom;
      this.zoom = z;
      this.draw();
    }, { passive: false });
    c.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.pending) { e.preventDefault(); this.pending = null; this.on.pendingChanged?.(false); this.draw(); }
      if ((e.key === 'Delete' || e.key === 'Backspace') && this.sel) { e.preventDefault(); this.on.deleteSelection(this.sel); }
    });
    new ResizeObserver(() => this.draw()).observe(c);
  }

  down(e) {
    this.canvas.focus();
    const w = this.toWorld(e);
    if (e.button === 1 || (e.button === 0 && e.altKey)) {
      e.preventDefault();
      this.drag = { pan: true, x: e.clientX, y: e.clientY };
      this.canvas.setPointerCapture(e.pointerId);
      return;
    }
    if (e.button !== 0) return;
    if (this.pending) {
      const hit = this.hitNode(w);
      if (hit && hit.kind === 'state') {
        const from = this.pending.from;
        this.pending = null;
        this.on.pendingChanged?.(false);
        this.on.addTransition(from, hit.index);
      }
      this.draw();
      return;
    }
    const node = this.hitNode(w);
    const sel = node || this.hitArrow(w);
    this.sel = sel;
    this.on.select(sel);
    if (node) {
      const p = this.pos.get(node.index);
      this.drag = { node: node.index, dx: w.x - p.x, dy: w.y - p.y, moved: false };
      this.canvas.setPointerCapture(e.pointerId);
    }
    this.draw();
  }

  move(e) {
    const w = this.toWorld(e);
    if (this.pending) { this.pending.to = w; this.draw(); return; }
    if (!this.drag) return;
    if (this.drag.pan) {
      this.pan.x += e.clientX - this.drag.x;
      this.pan.y += e.clientY - this.drag.y;
      this.drag.x = e.clientX;
      this.drag.y = e.clientY;
    } else {
      this.pos.set(this.drag.node, { x: w.x - this.drag.dx, y: w.y - this.drag.dy });
      this.drag.moved = true;
    }
    this.draw();
  }

  up() {
    const d = this.drag;
    this.drag = null;
    if (d && d.moved) this.on.moveNodes(this.positions());
  }

  /// Every node's position on this layer (states by row index; `any` for the Any State).
  positions() {
    const states = this.states().map((s) => [s.index, roundPt(this.pos.get(s.index))]);
    return { states, any: [[this.layer, roundPt(this.pos.get(ANY))]] };
  }

  /// Starts drawing a transition from `from` (a state index or the Any State).
  startTransition(from) {
    this.pending = { from, to: { ...this.pos.get(from) } };
    this.on.pendingChanged?.(true);
    this.canvas.focus();
    this.draw();
  }

  context(e) {
    const w = this.toWorld(e);
    const node = this.hitNode(w);
    const arrow = node ? null : this.hitArrow(w);
    const items = [];
    if (node && node.kind === 'state') {
      this.sel = node;
      this.on.select(node);
      items.push({ label: 'Add transition from here', id: 'add-transition', run: () => this.startTransition(node.index) });
      items.push({ label: 'Set as entry state', id: 'set-entry', run: () => this.on.setEntry(node.index) });
      items.push({ label: 'Rename…', id: 'rename', run: () => this.on.renameState(node.index) });
      items.push({ label: 'Delete state', id: 'delete', run: () => this.on.deleteSelection(node) });
    } else if (node) {
      items.push({ label: 'Add transition from Any State', id: 'add-transition', run: () => this.startTransition(ANY) });
    } else if (arrow) {
      this.sel = arrow;
      this.on.select(arrow);
      items.push({ label: 'Delete transition', id: 'delete', run: () => this.on.deleteSelection(arrow) });
    } else {
      items.push({ label: 'Add state here', id: 'add-state', run: () => this.on.requestAddState(roundPt(w), this.layer) });
    }
    this.draw();
    this.on.menu(items, e.clientX, e.clientY);
  }

  /// A world point in canvas pixels, as `{[kx]: x, [ky]: y}` strings (for the list beside the canvas).
  where(p, kx, ky) {
    return { [kx]: String(Math.round(this.pan.x + p.x * this.zoom)), [ky]: String(Math.round(this.pan.y + p.y * this.zoom)) };
  }

  draw() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth || 600;
    const h = c.clientHeight || 400;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = COLORS.bg;
    ctx.fillRect(0, 0, w, h);
    this.drawGrid(ctx, w, h);
    if (!this.view) return;
    ctx.setTransform(dpr * this.zoom, 0, 0, dpr * this.zoom, dpr * this.pan.x, dpr * this.pan.y);
    const a11y = [];
    const arrows = this.arrows();
    for (const a of arrows) this.drawArrow(ctx, a, a11y);
    if (this.hasAny()) this.drawNode(ctx, ANY, 'Any State', { any: true }, a11y);
    for (const s of this.states()) this.drawNode(ctx, s.index, s.name || '(no name)', { state: s }, a11y);
    if (this.pending) {
      const p = this.pos.get(this.pending.from);
      ctx.strokeStyle = COLORS.pending;
      ctx.setLineDash([6, 4]);
      ctx.lineWidth = 2 / this.zoom;
      ctx.beginPath();
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(this.pending.to.x, this.pending.to.y);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    this.a11y.replaceChildren(...a11y);
    c.dataset.states = String(this.states().length);
    c.dataset.arrows = String(arrows.length);
  }

  drawGrid(ctx, w, h) {
    const step = 40 * this.zoom;
    if (step < 8) return;
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let x = ((this.pan.x % step) + step) % step; x < w; x += step) { ctx.moveTo(x, 0); ctx.lineTo(x, h); }
    for (let y = ((this.pan.y % step) + step) % step; y < h; y += step) { ctx.moveTo(0, y); ctx.lineTo(w, y); }
    ctx.stroke();
  }

  drawNode(ctx, index, label, { any, state }, a11y) {
    const p = this.pos.get(index);
    const x = p.x - NODE_W / 2;
    const y = p.y - NODE_H / 2;
    const flag = state ? this.flags.states.get(index) : null;
    const unreachable = state && !state.reachable;
    const active = this.live && state ? this.live.active.find((a) => a.state === index) : null;
    const selected = this.sel && ((any && this.sel.kind === 'any') || (state && this.sel.kind === 'state' && this.sel.index === index));
    ctx.fillStyle = any ? COLORS.any : active ? mix(COLORS.node, COLORS.active, Math.max(0.35, active.weight)) : COLORS.node;
    roundRect(ctx, x, y, NODE_W, NODE_H, 8);
    ctx.fill();
    ctx.lineWidth = (selected ? 3 : state && state.entry ? 2.5 : 1.2) / Math.max(this.zoom, 0.6);
    ctx.strokeStyle = selected ? COLORS.selected : flag === 'error' ? COLORS.error
      : (flag === 'warning' || unreachable) ? COLORS.warning : state && state.entry ? COLORS.entry : '#5a6878';
    if (unreachable && !selected) ctx.setLineDash([5, 3]);
    roundRect(ctx, x, y, NODE_W, NODE_H, 8);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS.nodeText;
    ctx.font = '600 13px sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(fit(ctx, label, NODE_W - 16), p.x, p.y - (state ? 5 : 0));
    if (state) {
      ctx.font = '10px sans-serif';
      ctx.fillStyle = '#aab6c3';
      const f = state.fields;
      const motion = f.entry !== undefined ? `machine, entry ${f.entry}`
        : f.blend_tree ? `blend ${f.blend_tree.type || '?'}${f.blend_tree.parameter ? ` (${f.blend_tree.parameter})` : ''}` : f.clip || 'no motion';
      // A state inside a sub-state machine names it.
      const what = f.machine ? `${f.machine} › ${motion}` : motion;
      ctx.fillText(fit(ctx, what, NODE_W - 16), p.x, p.y + 11);
    }
    if (state && state.entry) {
      // The entry marker: a tab on the node's left edge.
      ctx.fillStyle = COLORS.entry;
      ctx.beginPath();
      ctx.moveTo(x - 14, p.y - 8);
      ctx.lineTo(x - 2, p.y);
      ctx.lineTo(x - 14, p.y + 8);
      ctx.closePath();
      ctx.fill();
    }
    if (flag || unreachable) {
      ctx.fillStyle = flag === 'error' ? COLORS.error : COLORS.warning;
      ctx.beginPath();
      ctx.arc(x + NODE_W - 2, y + 2, 7, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#1e242c';
      ctx.font = 'bold 11px sans-serif';
      ctx.fillText('!', x + NODE_W - 2, y + 2.5);
    }
    if (active) {
      // Clip progress under the node.
      ctx.fillStyle = COLORS.active;
      ctx.fillRect(x + 6, y + NODE_H - 5, (NODE_W - 12) * Math.max(0, Math.min(1, active.progress)), 3);
    }
    a11y.push(el('li', {
      text: any ? 'Any State' : `${label}${state.entry ? ' (entry)' : ''}`,
      dataset: { kind: any ? 'any' : 'state', index: String(index), name: any ? '' : label,
        flag: flag || (unreachable ? 'unreachable' : ''), active: active ? '1' : '', ...this.where(p, 'x', 'y'), wx: String(p.x), wy: String(p.y) },
    }));
  }

  drawArrow(ctx, a, a11y) {
    const { t, p, q } = a;
    const flag = this.flags.transitions.get(t.index) || (t.unconditional ? 'warning' : null);
    const selected = this.sel && this.sel.kind === 'transition' && this.sel.index === t.index;
    const running = this.live && this.live.transition && this.live.transition.index === t.index ? this.live.transition : null;
    const color = selected ? COLORS.selected : running ? COLORS.active : flag === 'error' ? COLORS.error : flag === 'warning' ? COLORS.warning : COLORS.arrow;
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = (selected || running ? 3 : 1.6) / Math.max(this.zoom, 0.6);
    ctx.beginPath();
    ctx.moveTo(p.x, p.y);
    ctx.lineTo(q.x, q.y);
    ctx.stroke();
    // Arrow head in the middle (the ends may be hidden under nodes of a busy graph).
    const mx = (p.x + q.x) / 2;
    const my = (p.y + q.y) / 2;
    const ang = Math.atan2(q.y - p.y, q.x - p.x);
    ctx.beginPath();
    ctx.moveTo(mx + Math.cos(ang) * 8, my + Math.sin(ang) * 8);
    ctx.lineTo(mx + Math.cos(ang + 2.5) * 8, my + Math.sin(ang + 2.5) * 8);
    ctx.lineTo(mx + Math.cos(ang - 2.5) * 8, my + Math.sin(ang - 2.5) * 8);
    ctx.closePath();
    ctx.fill();
    if (running) {
      const k = Math.max(0, Math.min(1, running.progress));
      ctx.beginPath();
      ctx.arc(p.x + (q.x - p.x) * k, p.y + (q.y - p.y) * k, 5, 0, Math.PI * 2);
      ctx.fill();
    }
    if (flag) {
      ctx.font = 'bold 11px sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('!', mx - Math.sin(ang) * 12, my + Math.cos(ang) * 12);
    }
    const from = t.from_any ? 'Any State' : (this.view.states.find((s) => s.index === t.from_state) || {}).name;
    const to = (this.view.states.find((s) => s.index === t.to_state) || {}).name;
    a11y.push(el('li', { text: `${from} → ${to}`, dataset: { kind: 'transition', index: String(t.index), from, to, flag: flag || '', active: running ? '1' : '', ...this.where(p, 'x1', 'y1'), ...this.where(q, 'x2', 'y2') } }));
  }
}

function roundPt(p) { return [Math.round(p.x), Math.round(p.y)]; }

/// Where the segment from the centre of a node at `c` towards `other` leaves the node's box (shifted by `at`).
function clip(c, other, at) {
  const dx = other.x - c.x;
  const dy = other.y - c.y;
  const sx = dx === 0 ? Infinity : (NODE_W / 2 + 2) / Math.abs(dx);
  const sy = dy === 0 ? Infinity : (NODE_H / 2 + 2) / Math.abs(dy);
  const s = Math.min(sx, sy, 1);
  return { x: at.x + dx * s, y: at.y + dy * s };
}

function segDist(w, p, q) {
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const l2 = dx * dx + dy * dy || 1;
  const k = Math.max(0, Math.min(1, ((w.x - p.x) * dx + (w.y - p.y) * dy) / l2));
  return Math.hypot(w.x - (p.x + k * dx), w.y - (p.y + k * dy));
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

function fit(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let t = text;
  while (t.length > 1 && ctx.measureText(`${t}…`).width > width) t = t.slice(0, -1);
  return `${t}…`;
}

function mix(a, b, k) {
  const pa = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const pb = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  return `rgb(${pa.map((v, i) => Math.round(v + (pb[i] - v) * k)).join(',')})`;
}
