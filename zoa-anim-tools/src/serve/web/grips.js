// Grips: an `equipment` item's idle grip sockets on the IK Targets skeleton.
// The numbers are edited in a form and the markers move as they are typed,
// placed as the runtime places them (attach bone × offset × socket, here on
// the rest pose); Save writes the sockets through the safe save path (a file
// changed on disk meanwhile is refused, never overwritten).
import { api } from './api.js';
import { $, el, toast, failed } from './ui.js';

const HANDS = ['main_hand', 'off_hand'];
const COLOR = { main_hand: '#81c784', off_hand: '#f06292' };
let view;
let grip = null; // last /api/ik/grips answer
let context = null; // { model, skin, policy } of the drawn skeleton
let saved = '';

/// Fills the item list (from /api/ik/models) and wires the form's buttons.
export function initGrips(skeletonView, items) {
  view = skeletonView;
  const sel = $('#ik-item');
  sel.replaceChildren(el('option', { value: '', text: items.length ? '(no item)' : '(the folder has no equipment)' }),
    ...items.map((i) => el('option', { value: i.id, text: `${i.id} — ${i.path}` })));
  if (items.length) sel.value = items[0].id;
  sel.addEventListener('change', load);
  $('#ik-grips-save').addEventListener('click', save);
  $('#ik-grips-reset').addEventListener('click', load);
}

/// Shows the chosen item on the skeleton discovery just drew.
export async function showGrips(ctx) {
  context = ctx;
  await load();
}

async function load() {
  const id = $('#ik-item').value;
  grip = null;
  if (!id || !context) {
    $('#ik-grips').replaceChildren();
    return draw();
  }
  const res = await api.post('/api/ik/grips', { ...context, equipment: id });
  if (!res.ok) {
    $('#ik-grips').replaceChildren(el('div.flag', { text: res.data.error || `HTTP ${res.status}` }));
    draw();
    return;
  }
  grip = res.data;
  form();
  saved = JSON.stringify(current());
  draw();
}

const number = (v) => (v === null || v === undefined ? '' : String(v));

function form() {
  const e = grip.equipment;
  const held = grip.attach ? `held by ${e.attach} = ${grip.attach.bone}` : `the skin has no bone for its attach role ${e.attach}`;
  const rows = HANDS.map((hand) => {
    const s = e.grips[hand];
    const input = (field, value, placeholder) => el('input.num', {
      value: number(value), placeholder, dataset: { hand, field }, oninput: draw,
    });
    const xyz = (field, v, placeholder) => [0, 1, 2].map((k) => input(`${field}.${k}`, v ? v[k] : null, placeholder));
    return el('fieldset.grip', { dataset: { hand } },
      el('legend', {}, el('label', {}, el('input', { type: 'checkbox', checked: !!s, dataset: { hand, field: 'on' }, onchange: draw }),
        el('span', { style: `color:${COLOR[hand]}`, text: ' ● ' }), hand.replace('_', ' '))),
      el('div.form-row', {}, el('span.note', { text: 'position (m)' }), ...xyz('position', s && s.position, '0')),
      el('div.form-row', {}, el('span.note', { text: 'euler (°)' }), ...xyz('euler', s && s.euler, 'anim')),
      el('div.form-row', {}, el('span.note', { text: 'weight' }), input('weight', s ? s.weight : 1, '1')));
  });
  const notes = [el('div.note', { text: `${e.id} (${e.classes.join(', ')}), ${held}; sockets in the item frame.` })];
  if (e.aim || e.slots) notes.push(el('div.note', { text: 'Its aim and slot grips are edited in Definitions.' }));
  $('#ik-grips').replaceChildren(...notes, ...rows);
}

/// The form's sockets: null for a hand switched off, NaN where a number is not one.
function current() {
  const out = {};
  for (const hand of HANDS) {
    const box = $(`#ik-grips input[data-hand="${hand}"][data-field="on"]`);
    if (!box || !box.checked) { out[hand] = null; continue; }
    const val = (field, fallback) => {
      const t = $(`#ik-grips input[data-hand="${hand}"][data-field="${field}"]`).value.trim();
      return t === '' ? fallback : Number(t);
    };
    const euler = [0, 1, 2].map((k) => val(`euler.${k}`, null));
    out[hand] = {
      position: [0, 1, 2].map((k) => val(`position.${k}`, 0)),
      euler: euler.every((x) => x === null) ? null : euler.map((x) => (x === null ? 0 : x)),
      weight: val('weight', 1),
    };
  }
  return out;
}

const valid = (s) => !s || ([...s.position, ...(s.euler || []), s.weight].every(Number.isFinite) && s.weight >= 0 && s.weight <= 1);

/// `q ⊗ v` for a unit quaternion [x, y, z, w].
function rotate(q, v) {
  const [x, y, z, w] = q;
  const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
  return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]), v[2] + w * t[2] + (x * t[1] - y * t[0])];
}
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

/// Moves the markers to the form's numbers and redraws; enables Save when they changed.
function draw() {
  const sockets = grip ? current() : {};
  const placed = {};
  view.extras = [];
  if (grip && grip.attach) {
    const { position: ap, rotation: aq } = grip.attach;
    const off = grip.equipment.offset;
    for (const hand of HANDS) {
      const s = sockets[hand];
      if (!s || !valid(s)) continue;
      const at = add(ap, rotate(aq, add(off.position, rotate(off.rotation, s.position))));
      placed[hand] = at.map((x) => Math.round(x * 1e4) / 1e4);
      view.extras.push({ at, from: ap, color: COLOR[hand], label: `${hand.replace('_', ' ')} grip` });
    }
  }
  // What is drawn, readable by a test.
  $('#ik-canvas').dataset.grips = JSON.stringify(placed);
  view.draw();
  const now = JSON.stringify(sockets);
  $('#ik-grips-save').disabled = !grip || now === saved || !HANDS.every((h) => valid(sockets[h]));
}

async function save() {
  const e = grip.equipment;
  const res = await api.post('/api/ik/grips/save', { path: e.path, version: e.version, grips: current() });
  if (!res.ok) return failed(res, 'saving the grips');
  const errors = res.data.diagnostics.filter((d) => d.severity === 'error');
  toast(errors.length ? `Saved with ${errors.length} error(s): ${errors[0].message}` : `Saved grips to ${e.path}`, errors.length ? 'error' : '');
  await load();
}
