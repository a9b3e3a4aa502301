// IK Targets: discovered roles on a drawn skeleton, editable overrides, and
// which rig-policy behaviours run on the model.
import { api } from './api.js';
import { $, el, toast, failed } from './ui.js';
import { SkeletonView } from './skeleton_view.js';
import { initGrips, showGrips } from './grips.js';

let view;
let data = null; // last discovery
let edits = new Map(); // role → bone ('' = no override)

const COLORS = { hips: '#ffb74d', spine: '#ffd54f', neck: '#fff176', head: '#ff8a65' };
const colorOf = (role) => COLORS[role] || (role.startsWith('left') ? '#4fc3f7' : role.startsWith('right') ? '#81c784' : '#ce93d8');

export async function start() {
  view = new SkeletonView($('#ik-canvas'));
  view.draw();
  const res = await api.get('/api/ik/models');
  if (!res.ok) return failed(res, 'listing models');
  const models = $('#ik-model');
  for (const m of res.data.models) models.append(el('option', { value: m.path, text: `${m.path}${m.used ? '' : ' (not used by a definition)'}` }));
  const pol = $('#ik-policy');
  pol.append(el('option', { value: '', text: '(defaults, no overrides)' }));
  for (const p of res.data.policies) pol.append(el('option', { value: p.id, text: p.id }));
  if (res.data.policies.length) pol.value = res.data.policies[0].id;
  models.addEventListener('change', () => { $('#ik-skin').replaceChildren(); discover(true); });
  $('#ik-skin').addEventListener('change', () => discover(true));
  pol.addEventListener('change', () => discover(true));
  $('#ik-try').addEventListener('click', () => discover(false));
  $('#ik-reset').addEventListener('click', () => discover(true));
  $('#ik-save').addEventListener('click', save);
  initGrips(view, res.data.equipment || []);
  if (res.data.models.length) await discover(true);
  else $('#ik-behaviours').textContent = 'No model inside the Workbench folders (pass --assets DIR).';
}

function overridesFromEdits() {
  return [...edits.entries()].filter(([, bone]) => bone).map(([role, bone]) => [role, bone]);
}

async function discover(reset) {
  const model = $('#ik-model').value;
  if (!model) return;
  const body = { model, skin: parseInt($('#ik-skin').value || '0', 10), policy: $('#ik-policy').value || null };
  if (!reset) body.overrides = overridesFromEdits();
  const res = await api.post('/api/ik/discover', body);
  if (!res.ok) return failed(res, 'bone discovery');
  data = res.data;
  if (reset) edits = new Map(data.policy.overrides.map(([r, b]) => [r, b]));
  render();
  await showGrips({ model: body.model, skin: body.skin, policy: body.policy });
}

function render() {
  const skins = $('#ik-skin');
  if (skins.options.length !== data.skins.length) {
    skins.replaceChildren(...data.skins.map((s, i) => el('option', { value: i, text: `${i}: ${s}` })));
    skins.value = data.skin;
  }
  view.setSkeleton(data.joint_parents, data.joint_names);
  view.setPose(data.positions);
  view.marks = new Map();
  for (const [role, joints] of Object.entries(data.roles)) {
    joints.forEach((j, i) => view.marks.set(j, { color: colorOf(role), label: role === 'spine' ? (i === 0 ? 'spine' : '') : role }));
  }
  view.frame();
  view.draw();

  const beh = $('#ik-behaviours');
  beh.replaceChildren(el('h3', { text: `Rig policy ${data.policy.id}: behaviours on this skin` }));
  for (const b of data.behaviours) {
    const state = b.runs ? 'runs' : b.enabled ? 'skipped' : 'off';
    const why = b.runs ? 'runs' : !b.enabled ? 'switched off by the policy' + (b.available ? '' : `; would also need ${b.missing.join(', ')}`) :
      `skipped: missing ${b.missing.join(', ')}`;
    beh.append(el(`div.behaviour.${state}`, { dataset: { policy: b.policy, state } }, el('b', { text: b.policy }), ` — ${why}`));
  }
  const ends = Object.entries(data.leg_ends || {}).map(([side, e]) => el('div.note', {
    text: e ? `${side} leg ends at ${e.at === 'foot' ? `the foot ${e.bone}` : `the tip of ${e.bone} (${e.source === 'estimated' ? 'estimated' : 'end joint'})`}`
      : `${side} leg: none found`,
  }));
  const rejected = (data.rejected || []).length ? el('details#ik-rejected', {},
    el('summary', { text: `${data.rejected.length} name match(es) turned down` }),
    ...data.rejected.map((r) => el('div.note', { text: `${r.bone}${r.role ? ` (looked like ${r.role})` : ''}: ${r.reason}` }))) : '';
  $('#ik-problems').replaceChildren(...data.problems.map((p) => el('div.flag', { text: p })), ...ends, rejected);

  const body = $('#ik-roles tbody');
  body.replaceChildren();
  for (const role of data.role_names) {
    const found = data.roles[role].map((j) => data.joint_names[j]).join(', ');
    const current = edits.get(role) || '';
    let input;
    if (role === 'spine') {
      input = el('input.mono', { value: current, placeholder: found || '(none found)', title: 'comma-separated, hips side first' });
    } else {
      input = el('select', {}, el('option', { value: '', text: found ? `${found} (discovered)` : '— none —' }),
        ...data.joint_names.map((n) => el('option', { value: n, text: n })));
      input.value = current;
    }
    input.dataset.role = role;
    input.addEventListener('change', () => { edits.set(role, input.value.trim()); dirty(); });
    body.append(el('tr', { dataset: { role } }, el('td', {}, el('span', { style: `color:${colorOf(role)}`, text: '● ' }), role), el('td', {}, input)));
  }
  dirty();
}

function dirty() {
  const key = (list) => JSON.stringify(list.map(([r, b]) => `${r}=${b}`).sort());
  const now = key(overridesFromEdits());
  const saved = key(data.policy.saved_overrides);
  $('#ik-save').disabled = !data.policy.path || now === saved;
}

async function save() {
  const res = await api.post('/api/ik/save', { path: data.policy.path, version: data.policy.version, overrides: overridesFromEdits() });
  if (!res.ok) return failed(res, 'saving overrides');
  const errors = res.data.diagnostics.filter((d) => d.severity === 'error');
  toast(errors.length ? `Saved with ${errors.length} error(s): ${errors[0].message}` : `Saved overrides to ${data.policy.path}`, errors.length ? 'error' : '');
  await discover(true);
}
