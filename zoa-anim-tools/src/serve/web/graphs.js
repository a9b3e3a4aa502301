// Graph Editor: an `animation_graph` definition as a graph. Parameters on
// the left, one canvas per layer in the middle, the details of the
// selection on the right. Every change is a server-side edit of the file's
// TOML (comments and order kept); the page keeps the texts for undo and
// redo and saves through the shared buffers (Save, Save All, `*` markers).
import { api } from './api.js';
import { $, el, toast, dialog, confirmDialog, debounce, failed } from './ui.js';
import * as buffers from './buffers.js';
import { GraphCanvas } from './graph_canvas.js';
import { renderDetails } from './graph_details.js';
import * as live from './graph_live.js';

let files = [];
let g = null; // {path, text, view, diags, clips, models, usedBy, layer, sel, canvases: Map(layer → GraphCanvas)}
const history = new Map(); // path → {undo: [texts], redo: [texts]}
let seq = 0;
let busy = Promise.resolve();
/// Hooks other modules add (live play): called after each render with the page state.
export const hooks = { rendered: [], paramControls: null };

export async function start() {
  const root = $('#graph-editor');
  root.replaceChildren(
    el('div.toolbar.ge-toolbar', {},
      el('label', {}, 'Graph ', el('select#ge-file', { onchange: (e) => openGraph(e.target.value) })),
      el('button#ge-new', { text: 'New graph…', onclick: newGraph }),
      el('span.ge-sep'),
      el('button#ge-undo', { text: 'Undo', title: 'Ctrl+Z', onclick: undo, disabled: true }),
      el('button#ge-redo', { text: 'Redo', title: 'Ctrl+Y', onclick: redo, disabled: true }),
      el('button#ge-save', { text: 'Save', title: 'Ctrl+S', onclick: () => save(), disabled: true }),
      el('button#ge-save-all', { text: 'Save All', title: 'Ctrl+Shift+S', onclick: () => buffers.saveAll() }),
      el('span#ge-status.status'),
      el('span.spacer'),
      el('span#ge-live-host')),
    el('div.ge-body', {},
      el('aside.ge-params', {}, el('div.ge-head', {}, 'Parameters', el('button.small#ge-add-param', { text: '+', title: 'Add a parameter', onclick: addParameter })),
        el('div#ge-params')),
      el('div.ge-center', {}, el('div.ge-layers#ge-layers'), el('div.ge-canvas-host#ge-canvas-host'), el('div.ge-pending#ge-pending', { hidden: true, text: 'Click the target state (Escape cancels)' })),
      el('aside.ge-details#ge-details')),
    el('div.ctx-menu#ge-menu', { hidden: true, role: 'menu' }));
  document.addEventListener('pointerdown', (e) => { if (!e.target.closest('#ge-menu')) $('#ge-menu').hidden = true; });
  root.addEventListener('keydown', onKey);
  buffers.onChange(() => { renderFiles(); updateButtons(); });
  live.attach({ hooks, current, rerender: () => g && g.view && render() });
  await listFiles();
  const first = files[0];
  if (first) await openGraph(first.path);
}

export async function shown() {
  await listFiles();
  // The text may have changed in the TOML editor meanwhile.
  if (g) {
    const b = buffers.get(g.path);
    if (b && b.text !== g.text) { g.text = b.text; await refreshView(); }
  }
}

/// Opens `path` (from another capability).
export async function open(path) { await openGraph(path); }

async function listFiles() {
  const res = await api.get('/api/defs');
  if (!res.ok) return failed(res, 'listing definitions');
  files = res.data.files.filter((f) => f.kind === 'animation_graph');
  renderFiles();
}

function renderFiles() {
  const sel = $('#ge-file');
  if (!sel) return;
  const current = g ? g.path : sel.value;
  sel.replaceChildren(...files.map((f) => el('option', { value: f.path, text: `${buffers.isDirty(f.path) ? '* ' : ''}${f.id || f.path} — ${f.path.replace(/^defs\//, '')}` })));
  if (current) sel.value = current;
}

function onKey(e) {
  if (e.target.closest('input, select, textarea')) return;
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.shiftKey && (e.key === 'z' || e.key === 'Z')) { e.preventDefault(); undo(); }
  else if (mod && (e.key === 'y' || (e.shiftKey && (e.key === 'z' || e.key === 'Z')))) { e.preventDefault(); redo(); }
  else if (mod && !e.shiftKey && e.key === 's') { e.preventDefault(); save(); }
}

async function openGraph(path) {
  const b = await buffers.open(path);
  if (!b) return;
  for (const c of g ? g.canvases.values() : []) c.canvas.remove();
  g = { path, text: b.text, view: null, diags: new Map(), clips: [], models: [], usedBy: [], layer: 0, sel: null, canvases: new Map(), writable: b.writable };
  $('#ge-canvas-host').replaceChildren();
  if (!history.has(path)) history.set(path, { undo: [], redo: [] });
  renderFiles();
  await refreshView();
  canvas().frame();
  document.body.dataset.graph = path;
}

/// Re-reads the view and the diagnostics of the current text.
async function refreshView() {
  const mine = ++seq;
  const at = g.path;
  const res = await api.post('/api/graph/view', { path: g.path, text: g.text });
  if (!g || g.path !== at || mine !== seq) return;
  if (!res.ok) {
    setStatus(res.data.error || `HTTP ${res.status}`, 'error');
    return;
  }
  g.view = res.data.view;
  g.clips = res.data.clips;
  g.models = res.data.models;
  g.usedBy = res.data.used_by;
  g.diags = new Map();
  for (const d of res.data.diagnostics) {
    const key = targetKey(d.target);
    if (!g.diags.has(key)) g.diags.set(key, []);
    g.diags.get(key).push(d);
  }
  const errors = res.data.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = res.data.diagnostics.filter((d) => d.severity === 'warning').length;
  setStatus(errors ? `${errors} error(s), ${warnings} warning(s)` : warnings ? `valid, ${warnings} warning(s)` : 'valid', errors ? 'error' : 'ok');
  render();
  document.body.dataset.graphChecked = String(mine);
}

const validateSoon = debounce(() => refreshView(), 250);

function targetKey(t) {
  if (t === 'graph') return 'graph';
  const [k] = Object.keys(t);
  return `${k}:${t[k]}`;
}

function setStatus(text, cls = '') {
  const s = $('#ge-status');
  s.textContent = text;
  s.className = `status ${cls}`;
}

function canvas(layer = g.layer) {
  if (!g.canvases.has(layer)) {
    const host = el('div.ge-layer-canvas', { dataset: { layer: String(layer) } });
    $('#ge-canvas-host').append(host);
    g.canvases.set(layer, new GraphCanvas(host, canvasHooks()));
  }
  return g.canvases.get(layer);
}

function render() {
  const view = g.view;
  // Layer tabs: one canvas per layer.
  if (g.layer >= view.layers.length) g.layer = 0;
  $('#ge-layers').replaceChildren(...view.layers.map((l, i) => el(`button${i === g.layer ? '.active' : ''}`, {
    text: l.name, dataset: { layer: String(i) }, onclick: () => { g.layer = i; render(); canvas().frame(); },
  })));
  for (const [i, c] of g.canvases) c.canvas.parentElement.hidden = i !== g.layer;
  const c = canvas();
  c.canvas.parentElement.hidden = false;
  c.setView(view, g.layer);
  c.setFlags(flags());
  if (g.sel) c.select(g.sel);
  renderParams();
  showDetails();
  updateButtons();
  for (const f of hooks.rendered) f(g);
}

function flags() {
  const out = { states: new Map(), transitions: new Map() };
  for (const [key, list] of g.diags) {
    const [kind, i] = key.split(':');
    const sev = list.some((d) => d.severity === 'error') ? 'error' : list.some((d) => d.severity === 'warning') ? 'warning' : null;
    if (!sev) continue;
    if (kind === 'state') out.states.set(Number(i), sev);
    if (kind === 'transition') out.transitions.set(Number(i), sev);
  }
  return out;
}

function selectItem(sel) {
  g.sel = sel;
  if (sel && sel.kind === 'state') {
    const s = g.view.states.find((x) => x.index === sel.index);
    if (s && s.layer !== g.layer) g.layer = s.layer;
  }
  render();
}

function updateButtons() {
  if (!g) return;
  const h = history.get(g.path);
  $('#ge-undo').disabled = !h.undo.length;
  $('#ge-redo').disabled = !h.redo.length;
  $('#ge-save').disabled = !g.writable || !buffers.isDirty(g.path);
}

/// Applies `edits` on the server; the new text becomes the buffer's (one undo step).
function edit(edits) {
  busy = busy.then(async () => {
    if (!g) return;
    const at = g.path;
    const before = g.text;
    const res = await api.post('/api/graph/edit', { path: at, text: before, edits });
    if (!g || g.path !== at) return;
    if (!res.ok) { failed(res, 'editing the graph'); render(); return; }
    if (res.data.text === before) { render(); return; }
    const h = history.get(at);
    h.undo.push(before);
    h.redo = [];
    setText(res.data.text, res.data.view);
  });
  return busy;
}

function setText(text, view) {
  g.text = text;
  buffers.update(g.path, text);
  if (view) { g.view = view; render(); }
  setStatus('checking…');
  validateSoon();
}

async function undo() {
  if (!g) return;
  const h = history.get(g.path);
  if (!h.undo.length) return;
  h.redo.push(g.text);
  setText(h.undo.pop());
  await refreshView();
}

async function redo() {
  if (!g) return;
  const h = history.get(g.path);
  if (!h.redo.length) return;
  h.undo.push(g.text);
  setText(h.redo.pop());
  await refreshView();
}

async function save() {
  if (!g) return;
  await busy;
  const r = await buffers.save(g.path);
  if (!r) return;
  if (r.reloaded) { history.delete(g.path); await openGraph(g.path); return; }
  toast(`Saved ${g.path}`);
  updateButtons();
}

function stateName(i) { return (g.view.states.find((s) => s.index === i) || {}).name; }

function canvasHooks() {
  return {
    select: (sel) => { g.sel = sel; showDetails(); },
    moveNodes: (positions) => edit([{ op: 'place', states: positions.states, any: positions.any }]),
    requestAddState: (pt, layer) => addState(pt, layer),
    addTransition: async (from, to) => {
      await edit([{ op: 'add_transition', from: from === -1 ? 'any' : stateName(from), to: stateName(to) }]);
      const last = g.view.transitions[g.view.transitions.length - 1];
      if (last) selectItem({ kind: 'transition', index: last.index });
    },
    deleteSelection: (sel) => {
      if (sel.kind === 'state') { g.sel = null; return edit([{ op: 'delete_state', state: sel.index }]); }
      if (sel.kind === 'transition') { g.sel = null; return edit([{ op: 'delete_transition', transition: sel.index }]); }
      return null;
    },
    setEntry: (i) => edit([{ op: 'set_entry', state: i }]),
    renameState: async (i) => {
      const r = await dialog({ title: 'Rename state', fields: [{ name: 'name', label: 'Name', value: stateName(i) }],
        buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Rename', primary: true }] });
      if (r.button === 'ok') await edit([{ op: 'rename_state', state: i, name: r.values.name }]);
    },
    menu: showMenu,
    pendingChanged: (on) => { $('#ge-pending').hidden = !on; },
  };
}

/// Renders the details panel. While the user works in it and only the
/// problems changed (a check finished), only the problems are replaced, so
/// focus and typing are never lost.
function showDetails() {
  const box = $('#ge-details');
  const key = `${g.text}\u0000${JSON.stringify(g.sel)}`;
  const fresh = el('div');
  renderDetails(fresh, detailsCtx());
  const focused = box.contains(document.activeElement) && document.activeElement !== box;
  if (focused && g.detailsKey === key) {
    const old = box.querySelector('.gd-problem-box');
    const next = fresh.querySelector('.gd-problem-box');
    if (old && next) old.replaceWith(next);
    return;
  }
  g.detailsKey = key;
  box.replaceChildren(...fresh.childNodes);
}

function detailsCtx() {
  return { view: g.view, sel: g.sel, diags: g.diags, clips: g.clips, models: g.models,
    apply: (edits) => edit(edits), select: (sel) => selectItem(sel), layerName: (i) => g.view.layers[i]?.name || 'base',
    status: (text) => setStatus(text, 'error') };
}

function showMenu(items, x, y) {
  const m = $('#ge-menu');
  m.replaceChildren(...items.map((it) => el('button', { text: it.label, dataset: { item: it.id }, role: 'menuitem', onclick: () => { m.hidden = true; it.run(); } })));
  m.hidden = false;
  m.style.left = `${x}px`;
  m.style.top = `${y}px`;
}

async function addState(pt, layer) {
  const taken = new Set(g.view.states.map((s) => s.name));
  let n = g.view.states.length + 1;
  while (taken.has(`state_${n}`)) n++;
  const r = await dialog({ title: 'New state', body: 'It plays the clip of the same name when there is one, else the first clip of the skeleton; change it in the details panel.',
    fields: [{ name: 'name', label: 'Name', value: `state_${n}` }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Add', primary: true }] });
  if (r.button !== 'ok') return;
  const name = r.values.name.trim();
  const clip = (g.clips.find((c) => c.id === name) || g.clips[0] || {}).id;
  await edit([{ op: 'add_state', name, layer: g.view.layers[layer]?.name, clip, position: pt }]);
  const s = g.view.states.find((x) => x.name === name);
  if (s) selectItem({ kind: 'state', index: s.index });
}

function renderParams() {
  const box = $('#ge-params');
  const rows = g.view.parameters.map((p) => {
    const f = p.fields;
    const live = hooks.paramControls ? hooks.paramControls(f) : null;
    return el('div.ge-param', { dataset: { name: f.name || '', type: f.type || '' } },
      el('div.ge-param-head', {}, el('span.mono', { text: f.name || '(no name)' }), el('span.note', { text: f.type || '?' }),
        el('span.spacer'),
        el('button.small', { text: '✎', title: 'Rename (updates conditions and binding profiles)', dataset: { act: 'rename' }, onclick: () => renameParameter(p) }),
        el('button.small', { text: '✕', title: 'Delete', dataset: { act: 'delete' }, onclick: () => deleteParameter(p) })),
      el('div.note', { text: f.type === 'trigger' ? 'trigger' : `default ${f.default ?? (f.type === 'bool' ? false : 0)}` }),
      live,
      problemsOf(`parameter:${p.index}`));
  });
  box.replaceChildren(...(rows.length ? rows : [el('p.note', { text: 'No parameters yet.' })]));
}

function problemsOf(key) {
  const list = g.diags.get(key) || [];
  return list.length ? el('ul.gd-problems', {}, ...list.map((d) => el(`li.${d.severity}`, { text: `${d.code} ${d.message}` }))) : null;
}

async function addParameter() {
  if (!g) return;
  const r = await dialog({ title: 'New parameter', body: 'Type: float, int, bool or trigger.',
    fields: [{ name: 'name', label: 'Name', value: '' }, { name: 'type', label: 'Type', value: 'float' }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Add', primary: true }] });
  if (r.button !== 'ok') return;
  await edit([{ op: 'add_parameter', name: r.values.name, type: r.values.type.trim() }]);
}

async function deleteParameter(p) {
  const ok = await confirmDialog(`Delete parameter ${p.fields.name}?`, 'Conditions and blend trees that use it stay and are flagged until you change them.', 'Delete', true);
  if (ok) await edit([{ op: 'delete_parameter', parameter: p.index }]);
}

/// Renames a parameter after showing every line it changes: the graph's
/// conditions and axes, and the binding profiles that drive it.
async function renameParameter(p) {
  const r = await dialog({ title: `Rename parameter ${p.fields.name}`, fields: [{ name: 'name', label: 'New name', value: p.fields.name }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Preview changes', primary: true }] });
  if (r.button !== 'ok') return;
  await busy;
  const res = await api.post('/api/graph/rename_parameter', { path: g.path, text: g.text, parameter: p.index, name: r.values.name });
  if (!res.ok) return failed(res, 'renaming');
  const plan = res.data;
  const dirty = plan.files.filter((f) => buffers.isDirty(f.path));
  const section = (path, changes) => el('div.rename-file', {}, el('div.mono', { text: path }),
    ...changes.map((c) => el('div.rename-line', {}, el('span.note', { text: `${c.line}: ` }), el('del', { text: c.before }), el('br'), el('ins', { text: c.after }))));
  const body = el('div.rename-plan', {},
    el('p', { text: `${plan.from} → ${plan.to}: ${plan.changes.length + plan.files.reduce((n, f) => n + f.changes.length, 0)} line(s) in ${1 + plan.files.length} file(s). Nothing is saved until you save.` }),
    section(g.path, plan.changes), ...plan.files.map((f) => section(f.path, f.changes)),
    dirty.length ? el('p.flag', { text: `Not changed (unsaved edits there): ${dirty.map((f) => f.path).join(', ')}` }) : '');
  const ok = await dialog({ title: 'Rename parameter', body, buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Apply', primary: true }] });
  if (ok.button !== 'ok') return;
  const h = history.get(g.path);
  h.undo.push(g.text);
  h.redo = [];
  setText(plan.text);
  for (const f of plan.files) {
    if (buffers.isDirty(f.path)) continue;
    const b = await buffers.open(f.path);
    if (b && b.version === f.version) buffers.update(f.path, f.text);
  }
  await refreshView();
}

async function newGraph() {
  const r = await dialog({ title: 'New animation graph', body: 'An empty graph: choose its model in the details panel, then add states with a right-click on the canvas.',
    fields: [{ name: 'id', label: 'Id', value: 'new_graph' }, { name: 'path', label: 'File', value: 'defs/graphs/new_graph.toml' }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Create', primary: true }] });
  if (r.button !== 'ok') return;
  const text = `kind = "animation_graph"\nid = ${JSON.stringify(r.values.id.trim())}\n`;
  const res = await api.post('/api/save', { path: r.values.path.trim(), text, version: null });
  if (!res.ok) return failed(res, 'creating the graph');
  await listFiles();
  await openGraph(r.values.path.trim());
}

/// The page state, for the live play module.
export function current() { return g; }
/// Redraws (the live module calls it when the graph's highlights change).
export function canvasOf(layer) { return g && g.canvases.get(layer); }
