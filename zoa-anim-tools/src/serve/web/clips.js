// Clip Editor: a clip's skeleton, source and length; its rate, loop hint
// and notifies on a timeline strip (drag a marker to move it, double-click
// the strip to add one, drag the playhead to scrub the figure). Every change
// is a server-side edit of the file's TOML; the shared buffers save it.
import { api } from './api.js';
import { $, el, toast, debounce, failed } from './ui.js';
import * as buffers from './buffers.js';
import { SkeletonView } from './skeleton_view.js';

let files = [];
let c = null; // {path, text, view, samples, diags, playhead (s), selected (notify index)}
const history = new Map(); // path → {undo, redo}
let figure = null;
let busy = Promise.resolve();
let playing = 0;
const STRIP_H = 90;
const PAD = 14;

export async function start() {
  $('#clip-editor').replaceChildren(
    el('div.toolbar', {},
      el('label', {}, 'Clip ', el('select#ce-file', { onchange: (e) => openClip(e.target.value) })),
      el('button#ce-undo', { text: 'Undo', onclick: undo, disabled: true }),
      el('button#ce-redo', { text: 'Redo', onclick: redo, disabled: true }),
      el('button#ce-save', { text: 'Save', title: 'Ctrl+S', onclick: save, disabled: true }),
      el('button#ce-save-all', { text: 'Save All', title: 'Ctrl+Shift+S', onclick: () => buffers.saveAll() }),
      el('span#ce-status.status')),
    el('div.ce-body.pad', {},
      el('div#ce-info.ce-info'),
      el('div.form-row', {},
        el('label', {}, 'Rate ', el('input#ce-rate', { type: 'number', step: '0.05', min: '0', placeholder: '1', onchange: (e) => setField('rate', e.target.value === '' ? null : Number(e.target.value)) })),
        el('label', {}, el('input#ce-loop', { type: 'checkbox', onchange: (e) => setField('loop', e.target.checked) }), ' loop hint'),
        el('button#ce-play', { text: '▶ Play', onclick: togglePlay }),
        el('span#ce-time.mono')),
      el('canvas#ce-strip.ce-strip', { height: STRIP_H, tabindex: '0', 'aria-label': 'Timeline: notifies and playhead' }),
      el('ul#ce-markers.graph-a11y'),
      el('div.split', {},
        el('div.viewport', {}, el('canvas#ce-figure', { width: 420, height: 320 }), el('div.hint', { text: 'drag to orbit · wheel to zoom' })),
        el('div.side-panel', {},
          el('table.grid.compact#ce-notifies', {}, el('thead', {}, el('tr', {}, el('th', { text: 'Notify' }), el('th', { text: 'Time (s)' }), el('th'))), el('tbody')),
          el('button.small#ce-add', { text: 'Add notify at the playhead', onclick: () => addNotify(c ? c.playhead : 0) }),
          el('ul#ce-problems.gd-problems')))));
  figure = new SkeletonView($('#ce-figure'));
  figure.draw();
  bindStrip();
  $('#clip-editor').addEventListener('keydown', (e) => {
    const mod = e.ctrlKey || e.metaKey;
    if (e.target.closest('input, select')) return;
    if (mod && !e.shiftKey && e.key === 's') { e.preventDefault(); save(); }
    if (mod && !e.shiftKey && e.key === 'z') { e.preventDefault(); undo(); }
    if (mod && e.key === 'y') { e.preventDefault(); redo(); }
    if ((e.key === 'Delete' || e.key === 'Backspace') && c && c.selected !== null) { e.preventDefault(); removeNotify(c.selected); }
  });
  buffers.onChange(() => { renderFiles(); updateButtons(); });
  await listFiles();
  if (files[0]) await openClip(files[0].path);
}

export async function shown() {
  await listFiles();
  if (c) {
    const b = buffers.get(c.path);
    if (b && b.text !== c.text) { c.text = b.text; await refresh(); }
  }
}

/// Opens `path` (from another capability).
export async function open(path) { await openClip(path); }

async function listFiles() {
  const res = await api.get('/api/defs');
  if (!res.ok) return failed(res, 'listing definitions');
  files = res.data.files.filter((f) => f.kind === 'clip');
  renderFiles();
}

function renderFiles() {
  const sel = $('#ce-file');
  if (!sel) return;
  const current = c ? c.path : sel.value;
  sel.replaceChildren(...files.map((f) => el('option', { value: f.path, text: `${buffers.isDirty(f.path) ? '* ' : ''}${f.id || f.path}` })));
  if (current) sel.value = current;
}

async function openClip(path) {
  const b = await buffers.open(path);
  if (!b) return;
  stopPlay();
  c = { path, text: b.text, view: null, samples: null, diags: [], playhead: 0, selected: null, writable: b.writable };
  if (!history.has(path)) history.set(path, { undo: [], redo: [] });
  renderFiles();
  await refresh();
  figure.frame();
  figure.draw();
  document.body.dataset.clip = path;
}

let seq = 0;
async function refresh() {
  const mine = ++seq;
  const res = await api.post('/api/clip/view', { path: c.path, text: c.text });
  if (mine !== seq) return;
  if (!res.ok) return failed(res, 'reading the clip');
  c.view = res.data.view;
  c.samples = res.data.samples.frames ? res.data.samples : null;
  c.diags = res.data.diagnostics;
  const errors = c.diags.filter((d) => d.severity === 'error').length;
  const status = $('#ce-status');
  status.textContent = errors ? `${errors} error(s)` : 'valid';
  status.className = `status ${errors ? 'error' : 'ok'}`;
  const s = c.samples;
  const sk = res.data.skeleton;
  $('#ce-info').replaceChildren(
    el('span', {}, el('b', { text: 'Skeleton ' }), sk ? `${sk.name} (${sk.joints} joints)` : '?'),
    el('span', {}, el('b', { text: 'Source ' }), el('span.mono', { text: c.view.source || '?' })),
    el('span', {}, el('b', { text: 'Animation ' }), String(c.view.animation ?? c.view.id ?? '?')),
    el('span', {}, el('b', { text: 'Length ' }), s ? `${s.duration.toFixed(3)} s (plays ${s.playback_length.toFixed(3)} s at its rate)` : (res.data.samples.problems || []).join('; ')));
  $('#ce-rate').value = c.view.rate ?? '';
  $('#ce-loop').checked = c.view.loop ?? true;
  if (s) { figure.setSkeleton(s.joint_parents, s.joint_names); }
  $('#ce-problems').replaceChildren(...c.diags.map((d) => el(`li.${d.severity}`, { text: `${d.code} ${d.field} ${d.message}` })));
  render();
  document.body.dataset.clipChecked = String(mine);
}

const refreshSoon = debounce(() => refresh(), 250);

function duration() { return c && c.samples ? c.samples.duration : Math.max(1, ...(c ? c.view.notifies.map((n) => n.time + 0.2) : [1])); }

function render() {
  if (!c || !c.view) return;
  renderTable();
  drawStrip();
  showFrame();
  updateButtons();
}

function renderTable() {
  const body = $('#ce-notifies tbody');
  body.replaceChildren(...c.view.notifies.map((n, i) => el(`tr${i === c.selected ? '.selected' : ''}`, { dataset: { index: String(i) } },
    el('td', {}, inputOf(n.name, (v) => changeNotify(i, { name: v }), 'ce-name')),
    el('td', {}, inputOf(n.time, (v) => changeNotify(i, { time: Number(v) }), 'ce-time', { type: 'number', step: '0.01', min: '0' })),
    el('td', {}, el('button.small', { text: '✕', title: 'Remove', onclick: () => removeNotify(i) })))));
}

function inputOf(value, onchange, cls, attrs = {}) {
  const i = el(`input.${cls}`, { value: String(value), ...attrs });
  i.addEventListener('change', () => onchange(i.value));
  i.addEventListener('focus', () => {
    const row = i.closest('tr');
    if (row) { c.selected = Number(row.dataset.index); drawStrip(); }
  });
  return i;
}

function xOf(t, w) { return PAD + (t / duration()) * (w - 2 * PAD); }
function tOf(x, w) { return Math.max(0, Math.min(duration(), ((x - PAD) / (w - 2 * PAD)) * duration())); }

function drawStrip() {
  const cv = $('#ce-strip');
  const w = cv.clientWidth || 800;
  if (cv.width !== w) cv.width = w;
  const ctx = cv.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, STRIP_H);
  // Time axis with a mark every tenth of a second.
  const d = duration();
  ctx.strokeStyle = '#c5ccd5';
  ctx.fillStyle = '#66707c';
  ctx.font = '10px sans-serif';
  ctx.beginPath();
  ctx.moveTo(PAD, STRIP_H - 22);
  ctx.lineTo(w - PAD, STRIP_H - 22);
  ctx.stroke();
  const step = d > 5 ? 1 : d > 2 ? 0.5 : 0.1;
  for (let t = 0; t <= d + 1e-6; t += step) {
    const x = xOf(t, w);
    ctx.beginPath();
    ctx.moveTo(x, STRIP_H - 26);
    ctx.lineTo(x, STRIP_H - 18);
    ctx.stroke();
    ctx.fillText(`${+t.toFixed(2)}`, x - 6, STRIP_H - 6);
  }
  // Notifies.
  const items = [];
  c.view.notifies.forEach((n, i) => {
    const x = xOf(n.time, w);
    ctx.fillStyle = i === c.selected ? '#2f6fd6' : '#2e7d32';
    ctx.fillRect(x - 1.5, 8, 3, STRIP_H - 36);
    ctx.beginPath();
    ctx.moveTo(x - 6, 8);
    ctx.lineTo(x + 6, 8);
    ctx.lineTo(x, 16);
    ctx.closePath();
    ctx.fill();
    ctx.fillText(n.name, x + 4, 26 + (i % 3) * 12);
    items.push(el('li', { text: `${n.name} at ${n.time} s`, dataset: { name: n.name, time: String(n.time), x: String(Math.round(x)) } }));
  });
  // The playhead.
  const x = xOf(c.playhead, w);
  ctx.strokeStyle = '#c62828';
  ctx.beginPath();
  ctx.moveTo(x, 0);
  ctx.lineTo(x, STRIP_H - 18);
  ctx.stroke();
  $('#ce-markers').replaceChildren(...items);
  $('#ce-time').textContent = `${c.playhead.toFixed(3)} s`;
}

function bindStrip() {
  const cv = $('#ce-strip');
  let drag = null;
  const at = (e) => e.clientX - cv.getBoundingClientRect().left;
  cv.addEventListener('pointerdown', (e) => {
    if (!c) return;
    const x = at(e);
    const w = cv.width;
    const hit = c.view.notifies.findIndex((n) => Math.abs(xOf(n.time, w) - x) < 6);
    cv.setPointerCapture(e.pointerId);
    if (hit >= 0) { c.selected = hit; drag = { notify: hit, time: c.view.notifies[hit].time }; renderTable(); }
    else { drag = { playhead: true }; c.playhead = tOf(x, w); showFrame(); }
    drawStrip();
  });
  cv.addEventListener('pointermove', (e) => {
    if (!drag || !c) return;
    const t = tOf(at(e), cv.width);
    if (drag.playhead) { c.playhead = t; showFrame(); }
    else { drag.time = Math.round(t * 1000) / 1000; c.view.notifies[drag.notify].time = drag.time; }
    drawStrip();
  });
  cv.addEventListener('pointerup', () => {
    const d = drag;
    drag = null;
    if (d && d.notify !== undefined) changeNotify(d.notify, { time: d.time });
  });
  cv.addEventListener('dblclick', (e) => addNotify(Math.round(tOf(at(e), cv.width) * 1000) / 1000));
  new ResizeObserver(() => c && c.view && drawStrip()).observe(cv);
}

/// The figure at the playhead (source seconds → the sampled tick).
function showFrame() {
  const s = c && c.samples;
  if (!s || !s.frames.length) return;
  const k = Math.max(0, Math.min(s.frames.length - 1, Math.round((c.playhead / Math.max(s.duration, 1e-6)) * s.playback_length * s.hz)));
  figure.setPose(s.frames[k]);
  figure.draw();
  $('#ce-time').textContent = `${c.playhead.toFixed(3)} s`;
}

function togglePlay() {
  if (playing) { stopPlay(); return; }
  if (!c || !c.samples) return;
  $('#ce-play').textContent = '❚❚ Pause';
  let last = performance.now();
  const s = c.samples;
  const step = (now) => {
    if (!playing) return;
    const dt = (now - last) / 1000;
    last = now;
    // Source seconds advance at the clip's rate.
    c.playhead = (c.playhead + (dt * s.duration) / Math.max(s.playback_length, 1e-6)) % Math.max(s.duration, 1e-6);
    showFrame();
    drawStrip();
    playing = requestAnimationFrame(step);
  };
  playing = requestAnimationFrame(step);
}

function stopPlay() {
  if (playing) cancelAnimationFrame(playing);
  playing = 0;
  if ($('#ce-play')) $('#ce-play').textContent = '▶ Play';
}

function notifiesWith(change) {
  return c.view.notifies.map((n) => ({ name: n.name, time: n.time })).filter(Boolean).map(change);
}

function changeNotify(i, patch) {
  return edit({ notifies: notifiesWith((n, j) => (j === i ? { ...n, ...patch } : n)) });
}

function removeNotify(i) {
  c.selected = null;
  return edit({ notifies: c.view.notifies.filter((_, j) => j !== i).map((n) => ({ name: n.name, time: n.time })) });
}

function addNotify(time) {
  if (!c) return null;
  const name = c.view.notifies[c.view.notifies.length - 1]?.name || 'Event';
  c.selected = c.view.notifies.length;
  return edit({ notifies: [...c.view.notifies.map((n) => ({ name: n.name, time: n.time })), { name, time }] });
}

function setField(key, value) { return edit({ [key]: value }); }

function edit(set) {
  busy = busy.then(async () => {
    if (!c) return;
    const before = c.text;
    const res = await api.post('/api/clip/edit', { path: c.path, text: before, set });
    if (!res.ok) { failed(res, 'editing the clip'); render(); return; }
    if (res.data.text === before) { render(); return; }
    const h = history.get(c.path);
    h.undo.push(before);
    h.redo = [];
    setText(res.data.text, res.data.view);
  });
  return busy;
}

function setText(text, view) {
  c.text = text;
  buffers.update(c.path, text);
  if (view) { c.view = view; render(); }
  $('#ce-status').textContent = 'checking…';
  refreshSoon();
}

async function undo() {
  if (!c) return;
  const h = history.get(c.path);
  if (!h.undo.length) return;
  h.redo.push(c.text);
  setText(h.undo.pop());
}

async function redo() {
  if (!c) return;
  const h = history.get(c.path);
  if (!h.redo.length) return;
  h.undo.push(c.text);
  setText(h.redo.pop());
}

function updateButtons() {
  if (!c) return;
  const h = history.get(c.path);
  $('#ce-undo').disabled = !h.undo.length;
  $('#ce-redo').disabled = !h.redo.length;
  $('#ce-save').disabled = !c.writable || !buffers.isDirty(c.path);
}

async function save() {
  if (!c) return;
  await busy;
  const r = await buffers.save(c.path);
  if (!r) return;
  if (r.reloaded) { history.delete(c.path); await openClip(c.path); return; }
  toast(`Saved ${c.path}`);
  updateButtons();
}
