// The four-step binding-profile wizard: identity, parameter bindings, slot
// assignments, review. The issue tray shows what the loader says about the
// draft at its path; the dock previews the TOML it writes.
import { api } from './api.js';
import { $, $$, el, toast, confirmDialog, debounce, failed } from './ui.js';
import { go } from './main.js';

const STEPS = ['Identity', 'Parameter bindings', 'Slot assignments', 'Review'];
let step = 0;
let voc = null;
let pathEdited = false;
const draft = { id: 'my_rig', display_name: '', class: 'rifle', path: 'defs/bindings/my_rig.toml', bindings: [], slots: [], roots: '' };
let last = null; // last preview answer

export async function start(session) {
  const res = await api.get('/api/vocabulary');
  if (!res.ok) return failed(res, 'vocabulary');
  voc = res.data;
  draft.roots = session.roots.filter((r) => !r.writable).map((r) => r.label).join(', ') || 'defs';
  document.body.append(
    el('datalist#wz-binding-ids', {}, ...voc.bindings.map((b) => el('option', { value: b.id, text: b.type }))),
    el('datalist#wz-slot-ids', {}, ...voc.slots.map((s) => el('option', { value: s }))),
    el('datalist#wz-clip-ids', {}, ...voc.clips.map((c) => el('option', { value: c }))));
  for (const li of $$('#wz-rail li')) li.addEventListener('click', () => goStep(parseInt(li.dataset.step, 10)));
  $('#wz-back').addEventListener('click', () => goStep(step - 1));
  $('#wz-next').addEventListener('click', () => (step === 3 ? write(false) : goStep(step + 1)));
  goStep(0);
}

function goStep(n) {
  step = Math.max(0, Math.min(3, n));
  $$('#wz-rail li').forEach((li, i) => { li.classList.toggle('active', i === step); li.classList.toggle('done', i < step); });
  $('#wz-back').disabled = step === 0;
  $('#wz-next').textContent = step === 3 ? 'Write binding profile' : 'Next';
  const box = $('#wz-step');
  box.replaceChildren(el('h2', { text: `${step + 1}. ${STEPS[step]}` }), [identity, bindingsStep, slotsStep, review][step]());
  refresh();
}

const refresh = debounce(async () => {
  const res = await api.post('/api/wizard/preview', { draft: wire(), path: draft.path });
  if (!res.ok) { $('#wz-issues').replaceChildren(el('li.flag', { text: res.data.error })); return; }
  last = res.data;
  $('#wz-toml').textContent = last.toml;
  const issues = last.diagnostics;
  $('#wz-issue-count').textContent = `(${last.errors} error(s), ${last.warnings} warning(s))`;
  $('#wz-issues').replaceChildren(...(issues.length ? issues.map((d) => el('li', { class: d.severity }, el('span', { class: `flag`, text: `${d.severity} ${d.code} ` }), `line ${d.line}${d.field ? ` ${d.field}` : ''}: ${d.message}`))
    : [el('li.clean', { text: 'No issues: the profile validates in this folder.' })]));
  if (step === 3) renderReview();
}, 250);

function wire() {
  return {
    id: draft.id,
    display_name: draft.display_name,
    bindings: draft.bindings.map((b) => ({ id: b.id, parameter: b.parameter, type: b.type, layer: Number.isFinite(+b.layer) ? +b.layer : -1 })),
    slots: draft.slots.map((s) => ({ id: s.id, clip: s.clip, speed: Number.isFinite(+s.speed) && +s.speed > 0 ? +s.speed : 1, additive: !!s.additive })),
  };
}

function field(label, key, attrs = {}, onChange) {
  const input = el('input', { value: draft[key], ...attrs });
  input.addEventListener('input', () => { draft[key] = input.value; onChange && onChange(); refresh(); });
  return el('label.block', {}, label, input);
}

function identity() {
  const cls = el('select#wz-class', {}, ...voc.profile_types.map((t) => el('option', { value: t, text: t })));
  cls.value = draft.class;
  cls.addEventListener('change', () => { draft.class = cls.value; });
  const pathField = field('File', 'path', { id: 'wz-path' }, () => { pathEdited = true; });
  return el('div', {},
    field('Profile id', 'id', { id: 'wz-id' }, () => {
      if (!pathEdited) { draft.path = `defs/bindings/${draft.id}.toml`; $('#wz-path').value = draft.path; }
    }),
    field('Display name', 'display_name', { id: 'wz-name', placeholder: 'Standard Rifle' }),
    el('label.block', {}, 'Weapon class (for slot suggestions and auto-binding)', cls),
    pathField,
    el('p.note', { text: 'Bind against the shipped binding and slot ids wherever one fits: a profile built on them transfers to another rig by editing only the parameter names.' }));
}

function rowEditor(list, columns, make) {
  const body = el('tbody');
  const redraw = () => {
    body.replaceChildren(...list.map((item, i) => el('tr', {}, ...columns.map((c) => el('td', {}, c.input(item, () => { refresh(); }))),
      el('td', {}, el('button.small', { text: '✕', title: 'remove', onclick: () => { list.splice(i, 1); redraw(); refresh(); } })))));
  };
  redraw();
  return { table: el('table.grid.compact', {}, el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { text: c.title })), el('th'))), body), redraw, add: (item) => { list.push(item || make()); redraw(); refresh(); } };
}

const text = (key, attrs = {}) => (item, changed) => {
  const i = el('input', { value: item[key] ?? '', ...attrs });
  i.addEventListener('input', () => { item[key] = i.value; changed(); });
  return i;
};

function bindingsStep() {
  const typeOf = (id) => voc.bindings.find((b) => b.id === id)?.type;
  const ed = rowEditor(draft.bindings, [
    { title: 'Binding id', input: (item, changed) => {
      const i = el('input.mono', { value: item.id, list: 'wz-binding-ids', class: 'wz-binding-id' });
      i.addEventListener('input', () => { item.id = i.value; const t = typeOf(i.value); if (t) { item.type = t; ed.redraw(); } changed(); });
      return i;
    } },
    { title: 'Parameter', input: text('parameter', { class: 'mono wz-parameter' }) },
    { title: 'Type', input: (item, changed) => {
      const s = el('select', {}, ...voc.parameter_types.map((t) => el('option', { value: t, text: t })));
      s.value = item.type;
      s.addEventListener('change', () => { item.type = s.value; changed(); });
      return s;
    } },
    { title: 'Layer (-1 = base)', input: text('layer', { type: 'number', min: -1 }) },
  ], () => ({ id: '', parameter: '', type: 'trigger', layer: -1 }));
  const addShipped = () => {
    for (const b of voc.bindings) if (!draft.bindings.some((x) => x.id === b.id)) draft.bindings.push({ id: b.id, parameter: b.id, type: b.type, layer: -1 });
    ed.redraw();
    refresh();
  };
  return el('div', {}, el('p.note', { text: 'Pair each semantic binding id with the rig parameter it sets, its type and layer.' }), ed.table,
    el('div.form-row', {}, el('button#wz-add-binding', { text: 'Add binding', onclick: () => ed.add() }),
      el('button', { text: 'Add every shipped binding', onclick: addShipped })));
}

function slotsStep() {
  const ed = rowEditor(draft.slots, [
    { title: 'Slot id', input: text('id', { list: 'wz-slot-ids', class: 'mono' }) },
    { title: 'Clip', input: text('clip', { list: 'wz-clip-ids', class: 'mono' }) },
    { title: 'Speed', input: text('speed', { type: 'number', step: 0.1, min: 0.01 }) },
    { title: 'Additive', input: (item, changed) => {
      const c = el('input', { type: 'checkbox', checked: !!item.additive });
      c.addEventListener('change', () => { item.additive = c.checked; changed(); });
      return c;
    } },
  ], () => ({ id: '', clip: '', speed: 1, additive: false }));
  const suggest = () => {
    for (const s of voc.class_slots[draft.class] || []) if (!draft.slots.some((x) => x.id === s)) draft.slots.push({ id: s, clip: '', speed: 1, additive: false });
    ed.redraw();
    refresh();
  };
  const roots = el('input', { value: draft.roots, size: 30 });
  roots.addEventListener('input', () => { draft.roots = roots.value; });
  const auto = async () => {
    const res = await api.post('/api/autobind/scan', { roots: draft.roots.split(',').map((s) => s.trim()).filter(Boolean), profile_type: draft.class });
    if (!res.ok) return failed(res, 'auto-binding');
    let n = 0;
    for (const s of res.data.slots) {
      const best = s.candidates[0];
      const row = draft.slots.find((x) => x.id === s.slot);
      if (row) { if (!row.clip) { row.clip = best.clip_id; n++; } } else { draft.slots.push({ id: s.slot, clip: best.clip_id, speed: 1, additive: false }); n++; }
    }
    ed.redraw();
    refresh();
    toast(`Auto-bound ${n} slot(s) for ${draft.class}`);
  };
  return el('div', {}, el('p.note', { text: 'Each slot plays a clip by reference (a clip definition id, or <model>_<animation> of a model the folder uses).' }), ed.table,
    el('div.form-row', {}, el('button', { text: 'Add slot', onclick: () => ed.add() }),
      el('button', { text: `Add the ${draft.class} slots`, onclick: suggest }),
      el('label', {}, 'Search roots ', roots), el('button', { text: `Auto-bind clips for ${draft.class}`, onclick: auto })));
}

function review() {
  return el('div#wz-review', {}, el('p.note', { text: 'Checking…' }));
}

function renderReview() {
  const box = $('#wz-review');
  if (!box || !last) return;
  box.replaceChildren(
    el('p', {}, `Profile `, el('b.mono', { text: draft.id }), ` with ${draft.bindings.length} binding(s) and ${draft.slots.length} slot(s), written to `, el('span.mono', { text: draft.path }),
      last.exists ? el('span.flag', { text: ' (the file exists; writing asks before replacing it)' }) : ''),
    last.errors ? el('p.flag', { text: `${last.errors} error(s) — see the issue tray. You can still write it and fix it in Definitions.` }) : el('p.note', { text: 'The draft validates.' }));
}

async function write(overwrite) {
  const res = await api.post('/api/wizard/write', { draft: wire(), path: draft.path, overwrite });
  if (res.status === 409 && res.data.exists) {
    if (await confirmDialog('Replace the existing file?', `${draft.path} exists. Replace it with the wizard's profile?`, 'Replace', true)) await write(true);
    return;
  }
  if (!res.ok) return failed(res, 'writing the binding profile');
  toast(`Wrote ${res.data.path}`);
  const box = $('#wz-review');
  if (box) box.append(el('p', {}, 'Written: ', el('a.link', { text: res.data.path, onclick: () => go('definitions', res.data.path) })));
}
