// Live play (free play of a graph, or one clip) on the server: start a
// session, poll it about ten times a second (each poll advances the
// character by the time passed), set parameters while it plays. The
// session ends on the server when the page stops polling.
import { api } from './api.js';
import { el, failed } from './ui.js';

const POLL_MS = 100;

export class LiveSession {
  /// Starts a session (`body` as `/api/live/start` takes it); null on failure (reported).
  static async start(body) {
    const res = await api.post('/api/live/start', body);
    if (!res.ok) { failed(res, 'starting free play'); return null; }
    return new LiveSession(res.data);
  }

  constructor(data) {
    this.id = data.session;
    this.parameters = data.parameters;
    this.jointNames = data.joint_names;
    this.jointParents = data.joint_parents;
    this.frame = data.frame;
    this.events = [];
    this.listeners = new Set();
    this.ended = null;
    this.timer = 0;
  }

  /// Calls `f(frame, events)` after each poll, and `f(null, [], reason)` when the session ends.
  onFrame(f) { this.listeners.add(f); }

  run() {
    const tick = async () => {
      if (this.ended) return;
      const res = await api.post('/api/live/poll', { session: this.id });
      if (this.ended) return;
      if (!res.ok) { this.end(res.data.error || `HTTP ${res.status}`); return; }
      this.frame = res.data.frame;
      this.events = res.data.events;
      for (const f of this.listeners) f(this.frame, this.events);
      if (res.data.ended) { this.end(res.data.ended); return; }
      this.timer = setTimeout(tick, POLL_MS);
    };
    tick();
  }

  end(reason) {
    if (this.ended) return;
    this.ended = reason || 'stopped';
    clearTimeout(this.timer);
    for (const f of this.listeners) f(null, [], this.ended);
  }

  async stop() {
    if (this.ended) return;
    this.end('stopped');
    await api.post('/api/live/stop', { session: this.id });
  }

  /// Sets parameter `name` (`value` null fires a trigger).
  async set(name, value) {
    const res = await api.post('/api/live/set', { session: this.id, parameter: name, value });
    if (!res.ok) failed(res, `setting ${name}`);
  }

  async setSpeed(speed) {
    const res = await api.post('/api/live/set', { session: this.id, playback_speed: speed });
    if (!res.ok) failed(res, 'setting the speed');
  }

  /// The value of parameter `name` in the last frame.
  value(name) {
    const i = this.parameters.findIndex((p) => p.name === name);
    return i < 0 || !this.frame ? undefined : this.frame.values[i];
  }
}

/// A control that sets `p` (one of `session.parameters`) while the session
/// plays: a slider and a number for floats and ints, a checkbox for bools,
/// a button for triggers. `update(value)` shows a value from a frame.
export function paramControl(session, p) {
  if (!p.settable) return { node: el('div.live.note', { text: 'not a binding id: nothing outside the graph sets it' }), update() {} };
  if (p.type === 'trigger') {
    const b = el('button.small.live-fire', { text: 'Fire', dataset: { param: p.name }, onclick: () => session.set(p.name, null) });
    return { node: el('div.live', {}, b), update(v) { b.classList.toggle('set', !!v); } };
  }
  if (p.type === 'bool') {
    const c = el('input.live-bool', { type: 'checkbox', dataset: { param: p.name } });
    c.checked = !!p.default;
    c.addEventListener('change', () => session.set(p.name, c.checked));
    return { node: el('label.live', {}, c, 'on'), update(v) { if (document.activeElement !== c) c.checked = !!v; } };
  }
  const int = p.type === 'int';
  const def = Number(p.default) || 0;
  const lo = Math.min(0, def);
  const hi = Math.max(int ? 5 : 8, def);
  const slider = el('input.live-slider', { type: 'range', min: String(lo), max: String(hi), step: int ? '1' : '0.05', value: String(def), dataset: { param: p.name } });
  const number = el('input.live-number', { type: 'number', step: int ? '1' : '0.1', value: String(def), dataset: { param: p.name } });
  const send = (v) => session.set(p.name, int ? Math.round(Number(v)) : Number(v));
  slider.addEventListener('input', () => { number.value = slider.value; send(slider.value); });
  number.addEventListener('change', () => { slider.value = number.value; send(number.value); });
  return {
    node: el('div.live', {}, slider, number),
    update(v) {
      if (v === undefined || document.activeElement === slider || document.activeElement === number) return;
      number.value = String(v);
      slider.value = String(v);
    },
  };
}

/// What a frame highlights on a graph canvas of layer `layer` of `view`:
/// active states with weight and clip progress, and the transition under way.
export function highlights(view, frame, layer) {
  const l = frame && frame.layers[layer];
  if (!l) return null;
  const byName = (n) => view.states.find((s) => s.layer === layer && s.name === n);
  const active = l.states.map(([name, weight, t]) => {
    const s = byName(name);
    return s ? { state: s.index, weight, progress: t - Math.floor(t) } : null;
  }).filter(Boolean);
  let transition = null;
  if (l.transition) {
    const from = byName(l.transition.from);
    const to = byName(l.transition.to);
    const t = to && (view.transitions.find((x) => from && x.from_state === from.index && x.to_state === to.index)
      || view.transitions.find((x) => x.from_any && x.to_state === to.index));
    if (t) transition = { index: t.index, progress: l.transition.progress };
  }
  return { active, transition };
}
