// Definitions: the folder's files by kind, the editor with validation as you
// type, save / duplicate / delete, and the coverage report.
import { api, withQuery } from './api.js';
import { $, el, toast, dialog, confirmDialog, debounce, failed } from './ui.js';
import { Editor } from './editor.js';
import * as buffers from './buffers.js';
import { go } from './main.js';

let editor;
let files = [];
let kinds = [];
let current = null; // {path, writable}; its text, version and saved text live in `buffers`
let seq = 0;

export function isDirty() {
  return buffers.dirtyPaths().length > 0;
}

export async function start(session) {
  kinds = session.kinds;
  editor = new Editor($('#editor'), { onInput: onEdit, onSave: () => save() });
  editor.setReadOnly(true);
  $('#def-filter').addEventListener('input', renderList);
  $('#btn-save').addEventListener('click', () => save());
  $('#btn-duplicate').addEventListener('click', duplicate);
  $('#btn-delete').addEventListener('click', remove);
  $('#btn-coverage').addEventListener('click', toggleCoverage);
  $('#btn-new').addEventListener('click', createFile);
  buffers.onChange(() => { renderList(); updateButtons(); });
  // Graphs open as graphs too.
  $('#btn-save').before(el('button#btn-graph', { text: 'Open in its editor', hidden: true, onclick: openInEditor }));
  await refresh();
}

export async function shown() {
  if (current) refreshOpen(current.path);
  await refresh();
}

/// Opens `path` (from another capability).
export async function open(path) { await openFile(path); }

// Kinds with an editor of their own: the tab that opens them.
const EDITORS = { animation_graph: 'graphs', clip: 'clips' };

function openInEditor() {
  const kind = current && (files.find((f) => f.path === current.path) || {}).kind;
  if (EDITORS[kind]) go(EDITORS[kind], current.path);
}

async function refresh() {
  const res = await api.get('/api/defs');
  if (!res.ok) return failed(res, 'listing definitions');
  files = res.data.files;
  renderList();
}

function renderList() {
  const filter = $('#def-filter').value.trim().toLowerCase();
  const list = $('#def-list');
  list.replaceChildren();
  const groups = [...kinds, null];
  for (const kind of groups) {
    const items = files.filter((f) => (f.kind || null) === kind)
      .filter((f) => !filter || f.path.toLowerCase().includes(filter) || (f.id || '').toLowerCase().includes(filter));
    if (!items.length) continue;
    list.append(el('div.kind', { text: kind ? kind.replace(/_/g, ' ') : 'unrecognised' }));
    for (const f of items) {
      const item = el('div.def-item', { role: 'treeitem', dataset: { path: f.path }, onclick: () => openFile(f.path) },
        el('span.id', { text: `${buffers.isDirty(f.path) ? '* ' : ''}${f.id || '(no id)'}` }),
        el('span.path', { text: f.path.replace(/^defs\//, ''), title: f.path }),
        f.errors ? el('span.badge.error', { text: f.errors, title: `${f.errors} error(s)` }) : null,
        f.warnings ? el('span.badge.warning', { text: f.warnings, title: `${f.warnings} warning(s)` }) : null);
      if (current && current.path === f.path) item.classList.add('open');
      list.append(item);
    }
  }
}

// Unsaved edits stay in their buffer (marked `*`) when another file opens.
async function openFile(path, { force = false } = {}) {
  const b = force ? await buffers.reload(path) : await buffers.open(path);
  if (!b) return;
  current = { path, writable: b.writable };
  editor.setText(b.text);
  editor.setReadOnly(!current.writable);
  $('#editor-title').textContent = path;
  $('#coverage').hidden = true;
  updateButtons();
  renderList();
  await validateNow();
}

function updateButtons() {
  const dirty = !!current && buffers.isDirty(current.path);
  $('#btn-save').disabled = !current || !current.writable || !dirty;
  $('#btn-duplicate').disabled = !current;
  $('#btn-delete').disabled = !current || !current.writable;
  const kind = current && (files.find((f) => f.path === current.path) || {}).kind;
  $('#btn-graph').hidden = !EDITORS[kind];
  $('#editor-title').textContent = current ? `${dirty ? '* ' : ''}${current.path}` : 'No file open';
}

const validateSoon = debounce(validateNow, 300);

function onEdit() {
  if (current) buffers.update(current.path, editor.text);
  updateButtons();
  setStatus('checking…');
  validateSoon();
}

function setStatus(text, cls = '') {
  const s = $('#editor-status');
  s.textContent = text;
  s.className = `status ${cls}`;
}

async function validateNow() {
  if (!current) return;
  const mine = ++seq;
  const res = await api.post('/api/validate', { path: current.path, text: editor.text });
  if (mine !== seq) return; // a newer edit is being checked
  if (!res.ok) return failed(res, 'validating');
  showReport(res.data);
}

function showReport(r) {
  editor.setDiagnostics(r.diagnostics);
  const folder = r.folder_errors - r.errors;
  setStatus(r.errors ? `${r.errors} error(s), ${r.warnings} warning(s)` :
    r.warnings ? `valid, ${r.warnings} warning(s)` : 'valid', r.errors ? 'error' : 'ok');
  $('#problem-count').textContent = `(${r.diagnostics.length} here${folder > 0 ? `, ${folder} error(s) elsewhere` : ''})`;
  const ul = $('#problems');
  ul.replaceChildren();
  for (const d of r.diagnostics) {
    ul.append(el('li', { dataset: { line: d.line, severity: d.severity }, onclick: () => editor.reveal(d.line, d.column) },
      el('span', { class: `sev ${d.severity}`, text: d.severity }),
      el('span.where', { text: `${d.line}:${d.column}` }),
      el('span.code', { text: `${d.code} ` }),
      d.field ? el('span.where', { text: d.field }) : null,
      d.message));
  }
  for (const o of r.others) {
    const path = `defs/${o.file}`;
    ul.append(el('li.others', {},
      el('a.link', { text: o.file, onclick: () => openFile(path) }),
      `: ${o.errors} error(s), ${o.warnings} warning(s)`));
  }
}

async function save() {
  if (!current || !current.writable) return;
  const path = current.path;
  const r = await buffers.save(path);
  if (!r) return;
  if (r.reloaded) { await openFile(path); return; }
  updateButtons();
  showReport(r);
  toast(`Saved ${path}`);
  await refresh();
}

/// The editor shows `path`'s buffer again (another page changed it).
export function refreshOpen(path) {
  if (current && current.path === path) {
    const b = buffers.get(path);
    if (b && b.text !== editor.text) { editor.setText(b.text); validateSoon(); }
    updateButtons();
  }
}

async function duplicate() {
  if (!current) return;
  const dot = current.path.lastIndexOf('.toml');
  const id = files.find((f) => f.path === current.path)?.id || 'copy';
  const r = await dialog({
    title: `Duplicate ${current.path}`,
    body: 'The copy gets a new id; nothing is overwritten.',
    fields: [{ name: 'path', label: 'New file', value: `${current.path.slice(0, dot)}_copy.toml` },
      { name: 'id', label: 'New id', value: `${id}_copy` }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Duplicate', primary: true }],
  });
  if (r.button !== 'ok') return;
  const res = await api.post('/api/duplicate', { path: current.path, new_path: r.values.path, new_id: r.values.id });
  if (!res.ok) return failed(res, 'duplicating');
  toast(`Created ${res.data.path}`);
  await refresh();
  await openFile(res.data.path, { force: true });
}

async function createFile() {
  const r = await dialog({
    title: 'New definition',
    body: `One definition per file. Kinds: ${kinds.join(', ')}. The editor then lists what the kind still needs.`,
    fields: [{ name: 'kind', label: 'Kind', value: 'binding_profile' }, { name: 'id', label: 'Id', value: 'new_definition' },
      { name: 'path', label: 'File', value: 'defs/new_definition.toml' }],
    buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: 'Create', primary: true }],
  });
  if (r.button !== 'ok') return;
  const { kind, id, path } = r.values;
  if (!kinds.includes(kind.trim())) return toast(`unknown kind \`${kind}\`; one of: ${kinds.join(', ')}`, 'error');
  const text = `kind = ${JSON.stringify(kind.trim())}\nid = ${JSON.stringify(id.trim())}\n`;
  const res = await api.post('/api/save', { path: path.trim(), text, version: null });
  if (!res.ok) return failed(res, `creating ${path}`);
  await refresh();
  await openFile(path.trim());
}

async function remove() {
  if (!current) return;
  const ok = await confirmDialog(`Delete ${current.path}?`,
    'The file is removed from the definition folder. This cannot be undone from the Workbench.', 'Delete', true);
  if (!ok) return;
  const res = await api.post('/api/delete', { path: current.path, version: buffers.get(current.path).version, confirm: true });
  if (!res.ok) {
    failed(res, 'deleting');
    if (res.status === 409) await openFile(current.path, { force: true });
    return;
  }
  toast(`Deleted ${current.path}`);
  buffers.forget(current.path);
  current = null;
  editor.setText('');
  editor.setReadOnly(true);
  $('#problems').replaceChildren();
  setStatus('');
  updateButtons();
  await refresh();
}

async function toggleCoverage() {
  const box = $('#coverage');
  if (!box.hidden) { box.hidden = true; return; }
  const res = await api.get('/api/coverage');
  if (!res.ok) return failed(res, 'coverage');
  box.replaceChildren(renderCoverage(res.data, (p) => openFile(p)));
  box.hidden = false;
}

/// The coverage report as a node (also used by the Overview).
export function renderCoverage(data, openPath) {
  const root = el('div', {}, el('div.legend', {},
    el('span', {}, el('i.cov-exact'), 'exact'), el('span', {}, el('i.cov-fallback'), 'only by fallback'),
    el('span', {}, el('i.cov-default'), 'only by the default row'), el('span', {}, el('i.cov-none'), 'to nothing')));
  if (!data.profiles.length) root.append(el('p.note', { text: 'No animation profiles.' }));
  for (const p of data.profiles) {
    const path = data.files[p.profile];
    root.append(el('h3', {}, path ? el('a.link', { text: p.profile, onclick: () => openPath(path) }) : p.profile));
    if (p.error) { root.append(el('p.flag', { text: `not checked: ${p.error}` })); continue; }
    const total = Math.max(1, p.states_checked);
    const bar = el('div.cov-bar', {});
    for (const [n, cls] of [[p.exact, 'cov-exact'], [p.fallback_only, 'cov-fallback'], [p.default_only, 'cov-default'], [p.unresolved, 'cov-none']]) {
      if (n) bar.append(el(`span.${cls}`, { style: `width:${(100 * n) / total}%`, title: `${n}` }));
    }
    root.append(bar, el('div.note', { text: `${p.states_checked} states: ${p.exact} exact, ${p.fallback_only} only by fallback, ${p.default_only} only by the default row, ${p.unresolved} to nothing` }));
    const examples = [['to nothing', p.unresolved_examples], ['only by the default row', p.default_examples], ['only by fallback', p.fallback_examples]];
    for (const [label, list] of examples) {
      if (list.length) root.append(el('div.note', {}, `${label}: `, ...list.slice(0, 6).map((s) => el('span.chip', { text: s })), list.length > 6 ? ` and ${list.length - 6} more` : ''));
    }
    for (const d of p.dead_rows) {
      root.append(el('div.flag', { text: `row ${d.source}[${d.index}] \`${d.pattern}\` → ${d.clip} can never win (beaten by ${d.beaten_by})` }));
    }
  }
  if (data.cross_modal) root.append(renderCrossModal(data.cross_modal));
  return root;
}

/// The cross-modal table: per semantic event and slot and weapon class, is there a clip row and a sound?
/// Only the gaps are listed, with the count of rows checked.
function renderCrossModal(rows) {
  const gaps = rows.filter((r) => !r.clip || !r.sound);
  const box = el('div.cross-modal', {}, el('h4', { text: 'Cross-modal coverage (clip and sound per event, slot and class)' }),
    el('div.note', { text: `${rows.length} row(s) checked, ${gaps.length} with a gap` }));
  if (!gaps.length) return box;
  const mark = (ok) => el(ok ? 'td' : 'td.flag', { text: ok ? 'yes' : 'missing' });
  box.append(el('table.grid.compact', {},
    el('thead', {}, el('tr', {}, ...['Id', 'Kind', 'Class', 'Clip', 'Sound'].map((h) => el('th', { text: h })))),
    el('tbody', {}, ...gaps.map((r) => el('tr.cm-gap', {}, el('td.mono', { text: r.id }), el('td', { text: r.kind }),
      el('td', { text: r.class }), mark(r.clip), mark(r.sound))))));
  return box;
}
