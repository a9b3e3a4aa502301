// Preview Lab: run a preset through the pipeline, scrub the timeline, watch
// the skeleton in sync with binding curves, state weights, events and sound
// cues, read each tick's pose inputs, sounds and IK goals (drawn on the
// skeleton), export.
import { api } from './api.js';
import { $, el, toast, failed } from './ui.js';
import { SkeletonView } from './skeleton_view.js';

let view;
let presets = [];
let lab = null; // the run
let tick = 0;
let playing = false;
let series = []; // chart lanes
const LANE = 18;
const EVENTS_H = 44;
const SOUNDS_H = 26;
const LABEL_W = 170;

export async function start(session) {
  view = new SkeletonView($('#skeleton-canvas'));
  view.draw();
  const res = await api.get('/api/presets');
  if (!res.ok) return failed(res, 'listing presets');
  presets = res.data.presets;
  const sets = $('#preset-set');
  for (const id of res.data.profile_sets) sets.append(el('option', { value: id, text: id }));
  if (res.data.profile_sets.includes('player')) sets.value = 'player';
  $('#preset-rate').value = res.data.default_rate;
  const sel = $('#preset-select');
  for (const p of presets) sel.append(el('option', { value: p.id, text: `${p.id} — ${p.name}` }));
  if (!presets.length) $('#preset-steps').textContent = 'The folder has no preview_preset definitions.';
  sel.addEventListener('change', showSteps);
  showSteps();
  $('#btn-run').addEventListener('click', run);
  $('#scrub').addEventListener('input', () => setTick(parseInt($('#scrub').value, 10)));
  $('#btn-play').addEventListener('click', togglePlay);
  $('#lab-chart').addEventListener('click', (e) => {
    if (!lab) return;
    const c = $('#lab-chart');
    const x = ((e.clientX - c.getBoundingClientRect().left) * c.width) / c.clientWidth;
    setTick(Math.round(((x - LABEL_W) / (c.width - LABEL_W - 10)) * (lab.ticks.length - 1)));
  });
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportAs(b.dataset.export));
  window.addEventListener('resize', () => lab && drawChart());
}

/// Selects preset `id` (from the Overview) and runs it.
export async function open(id) {
  if (!presets.some((p) => p.id === id)) return;
  $('#preset-select').value = id;
  showSteps();
  await run();
}

function showSteps(current = -1) {
  const p = presets.find((x) => x.id === $('#preset-select').value);
  const box = $('#preset-steps');
  if (!p) return;
  box.replaceChildren(...p.steps.map((s, i) => el(`span${i === current ? '.current' : ''}`, { text: `${i}: ${s}` })));
}

async function run() {
  const preset = $('#preset-select').value;
  if (!preset) return;
  stop();
  $('#btn-run').disabled = true;
  $('#lab-time').textContent = 'running…';
  const res = await api.post('/api/preview/run', { preset, rate: parseFloat($('#preset-rate').value), profile_set: $('#preset-set').value || null });
  $('#btn-run').disabled = false;
  if (!res.ok) { $('#lab-time').textContent = '–'; return failed(res, `preset ${preset}`); }
  lab = res.data;
  $('#lab-warnings').replaceChildren(lab.warnings.length ? el('details.warnings', {},
    el('summary', { text: `${lab.warnings.length} inert binding(s): the driver ignores them for their class (see the Binding Browser)` }),
    ...lab.warnings.map((w) => el('div', { text: w }))) : '',
  lab.sound.problem ? el('div.warnings', { text: `No sound: ${lab.sound.problem}` }) : '');
  view.setSkeleton(lab.joint_parents, lab.joint_names);
  // Frame the whole run so root motion stays in view.
  view.setPose(lab.ticks.flatMap((t) => t.joints));
  view.frame();
  buildSeries();
  const scrub = $('#scrub');
  scrub.max = lab.ticks.length - 1;
  scrub.disabled = false;
  $('#btn-play').disabled = false;
  setTick(0);
  document.body.dataset.labRun = preset;
}

function buildSeries() {
  series = [];
  lab.binding_names.forEach((name, k) => {
    const values = lab.ticks.map((t) => t.bindings[k]);
    if (values.some((v) => v !== null)) series.push({ label: name, kind: 'binding', values });
  });
  const keys = new Map();
  lab.ticks.forEach((t, i) => {
    for (const [layer, state, w] of t.states) {
      const key = `${layer}/${state}`;
      if (!keys.has(key)) keys.set(key, new Array(lab.ticks.length).fill(null));
      keys.get(key)[i] = w;
    }
    for (const [clip, w] of t.rows) {
      const key = `selector/${clip}`;
      if (!keys.has(key)) keys.set(key, new Array(lab.ticks.length).fill(null));
      keys.get(key)[i] = w;
    }
  });
  for (const [label, values] of keys) series.push({ label, kind: 'weight', values });
}

export function setTick(i) {
  if (!lab) return;
  tick = Math.max(0, Math.min(lab.ticks.length - 1, i | 0));
  const t = lab.ticks[tick];
  $('#scrub').value = tick;
  $('#lab-time').textContent = `${t.time.toFixed(3)} s · tick ${tick}/${lab.ticks.length - 1} · step ${t.step}`;
  view.setPose(t.joints);
  view.setTargets(t.ik.map(([behaviour, side, , target, weight, error]) => ({
    p: target,
    color: behaviour === 'look_at' ? '#ffd166' : side === 'left' ? '#6fb1ff' : '#ff8a80',
    label: `${side || behaviour} ${(error * 1000).toFixed(1)} mm`,
    weight,
  })));
  view.draw();
  showSteps(t.step);
  drawChart();
  renderTick(t);
  document.body.dataset.labTick = String(tick);
}

const cells = (...texts) => texts.map((x) => el('td', { text: x === null || x === undefined ? '—' : String(x) }));
const table = (cls, heads, rows) => el(`table.grid.compact.tick-table.${cls}`, {},
  el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', { text: h })))), el('tbody', {}, ...rows));
const fileStem = (f) => (f || '').split(/[\\/]/).pop().replace(/\.[^.]*$/, '');

function renderTick(t) {
  const rows = [];
  for (const [layer, state, w, ct] of t.states) rows.push(el('tr', {}, ...cells(layer, state, w.toFixed(3), `${ct.toFixed(2)} s`)));
  for (const [clip, w, step] of t.rows) rows.push(el('tr', {}, ...cells('selector', clip, w.toFixed(3), step < 0 ? 'default' : step === 0 ? 'exact' : `fallback ${step}`)));
  const binds = lab.binding_names.map((n, k) => el('tr', {}, ...cells(n, t.bindings[k])));
  // Every input of the composed pose, as the blender used it.
  const inputs = t.contributions.map(([stack, layer, part, name, what, clip, w, ct, mode, mask]) => el(`tr${stack === 'outgoing' ? '.outgoing' : ''}`, {},
    ...cells(`${stack === 'outgoing' ? 'out ' : ''}${layer}`, part === 'state' ? `${name}/${what}` : part === 'selector' ? `selector row ${what ?? 'default'}` : part, clip, w.toFixed(3), `${ct.toFixed(2)} s`, mode, mask)));
  const sounds = t.sounds.map(([time, event, outcome, entry, variant, bus, gain]) => el(`tr${outcome === 'started' ? '' : '.refused'}`, {},
    ...cells(time.toFixed(3), event, entry ? `${entry} / ${fileStem(variant) || '—'}` : '—', bus, outcome === 'started' ? gain.toFixed(2) : null, outcome)));
  const goals = t.ik.map(([behaviour, side, joint, p, w, err]) => el('tr', {},
    ...cells(side ? `${behaviour} ${side}` : behaviour, joint, p.map((x) => x.toFixed(3)).join(', '), w.toFixed(2), `${(err * 1000).toFixed(2)} mm`)));
  const note = (text) => el('div.muted', { text });
  const box = $('#lab-tick');
  box.replaceChildren(
    table('states', ['Layer', 'State / clip', 'Weight', 'Time'], rows),
    el('h4', { text: `Pose inputs${t.switch_alpha < 1 ? ` (loadout switch at ${t.switch_alpha.toFixed(2)})` : ''}` }),
    table('contributions', ['Stack layer', 'From', 'Clip', 'Weight', 'Time', 'Mode', 'Mask'], inputs),
    el('h4', { text: 'Sound cues' }),
    sounds.length ? table('sounds', ['Time', 'Event', 'Entry / variant', 'Bus', 'Gain', 'Outcome'], sounds)
      : note(lab.sound.profile ? 'no cue this tick' : `no sound${lab.sound.problem ? `: ${lab.sound.problem}` : ' profile'}`),
    el('h4', { text: 'IK goals' }),
    goals.length ? table('ik', ['Goal', 'Joint', 'Target (m)', 'Weight', 'Reach error'], goals)
      : note(lab.ground === null ? 'no IK goal (no ground given)' : 'no IK goal this tick'),
    table('bindings', ['Binding', 'Value'], binds),
    t.events.length ? el('div', {}, el('b', { text: 'Events: ' }), ...t.events.map(([k, n, time]) => el('span.chip', { text: `${k} ${n} @${time}` }))) : '');
}

function drawChart() {
  const c = $('#lab-chart');
  c.width = Math.max(600, c.clientWidth || 1100);
  c.height = EVENTS_H + SOUNDS_H + series.length * LANE + 8;
  const ctx = c.getContext('2d');
  const w = c.width - LABEL_W - 10;
  const n = lab.ticks.length;
  const xOf = (i) => LABEL_W + (n > 1 ? (i / (n - 1)) * w : 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.font = '11px sans-serif';
  // Events row: a tick mark per event, labels on three alternating rows.
  ctx.fillStyle = '#444';
  ctx.fillText('events', 6, 14);
  let labels = 0;
  lab.ticks.forEach((t, i) => {
    for (const [kind, name] of t.events) {
      if (kind === 'set') continue;
      // Notifies and notify windows (begin, end, cut) in green; a window's label says which.
      const notify = kind === 'notify' || kind.startsWith('notify_');
      ctx.fillStyle = notify ? '#2e7d32' : kind.startsWith('state') || kind.startsWith('transition') ? '#b0b6bd' : '#c62828';
      ctx.fillRect(xOf(i) - 1, 4, 2, EVENTS_H - 12);
      if (['trigger', 'tags', 'slot', 'equip', 'force_state'].includes(kind) || notify) {
        const window = { notify_begin: ' [', notify_end: ' ]', notify_cut: ' ]x' }[kind] || '';
        const text = kind === 'tags' ? name.split(' ').map((p) => p.split('=').pop()).join('/') : name + window;
        ctx.fillText(text, xOf(i) + 3, 12 + (labels++ % 3) * 11);
      }
    }
  });
  // Sounds row: a mark per cue (green: a voice started; red: no entry answers; orange: refused),
  // labelled with the variant played on two rows, a label left out where it would cover another.
  ctx.fillStyle = '#444';
  ctx.fillText('sounds', 6, EVENTS_H + 14);
  const ends = [-1e9, -1e9];
  lab.ticks.forEach((t, i) => {
    for (const [, event, outcome, , variant] of t.sounds) {
      const x = xOf(i);
      ctx.fillStyle = outcome === 'started' ? '#2e7d32' : outcome === 'no_match' ? '#c62828' : '#e07b00';
      ctx.fillRect(x - 1, EVENTS_H + 2, 2, SOUNDS_H - 6);
      const label = outcome === 'started' ? fileStem(variant) : `${event}: ${outcome}`;
      const row = ends.findIndex((end) => x + 3 > end + 6);
      if (row < 0) continue;
      ctx.fillText(label, x + 3, EVENTS_H + 11 + row * 11);
      ends[row] = x + 3 + ctx.measureText(label).width;
    }
  });
  series.forEach((s, k) => {
    const y0 = EVENTS_H + SOUNDS_H + k * LANE;
    ctx.fillStyle = k % 2 ? '#f7f8fa' : '#fff';
    ctx.fillRect(0, y0, c.width, LANE);
    const vals = s.values.filter((v) => v !== null);
    let lo = Math.min(0, ...vals);
    let hi = Math.max(1, ...vals);
    if (hi - lo < 1e-6) hi = lo + 1;
    const yOf = (v) => y0 + LANE - 2 - ((v - lo) / (hi - lo)) * (LANE - 4);
    ctx.fillStyle = s.kind === 'weight' ? 'rgba(47,111,214,.35)' : 'rgba(178,106,0,.15)';
    ctx.strokeStyle = s.kind === 'weight' ? '#2f6fd6' : '#b26a00';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null) { pen = false; return; }
      if (!pen) ctx.moveTo(xOf(i), yOf(v)); else ctx.lineTo(xOf(i), yOf(v));
      pen = true;
    });
    ctx.stroke();
    if (s.kind === 'weight') {
      // Filled area under each run of ticks where the state plays.
      let start = -1;
      const base = y0 + LANE - 2;
      for (let i = 0; i <= s.values.length; i++) {
        const v = i < s.values.length ? s.values[i] : null;
        if (v !== null && start < 0) start = i;
        if ((v === null || i === s.values.length) && start >= 0) {
          ctx.beginPath();
          ctx.moveTo(xOf(start), base);
          for (let j = start; j < i; j++) ctx.lineTo(xOf(j), yOf(s.values[j]));
          ctx.lineTo(xOf(i - 1), base);
          ctx.closePath();
          ctx.fill();
          start = -1;
        }
      }
    }
    const cur = s.values[tick];
    ctx.fillStyle = '#333';
    ctx.fillText(`${s.label}${cur === null || cur === undefined ? '' : ` ${(+cur).toFixed(2)}`}`.slice(0, 30), 6, y0 + 13);
  });
  ctx.strokeStyle = '#c62828';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(xOf(tick), 0);
  ctx.lineTo(xOf(tick), c.height);
  ctx.stroke();
}

function togglePlay() { if (playing) stop(); else play(); }

function play() {
  if (!lab) return;
  playing = true;
  $('#btn-play').textContent = 'Pause';
  if (tick >= lab.ticks.length - 1) setTick(0);
  let startTime = null;
  const t0 = lab.ticks[tick].time;
  const frame = (now) => {
    if (!playing) return;
    if (startTime === null) startTime = now;
    const want = t0 + (now - startTime) / 1000;
    let i = tick;
    while (i < lab.ticks.length - 1 && lab.ticks[i + 1].time <= want) i++;
    if (i !== tick) setTick(i);
    if (i >= lab.ticks.length - 1) { stop(); return; }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

function stop() {
  playing = false;
  $('#btn-play').textContent = 'Play';
}

async function exportAs(format) {
  const preset = (lab && lab.preset) || $('#preset-select').value;
  if (!preset) return;
  const res = await api.post('/api/preview/export', { preset, rate: parseFloat($('#preset-rate').value), format, profile_set: $('#preset-set').value || null });
  if (!res.ok) return failed(res, 'export');
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') || '')?.[1] || `${preset}.${format}`;
  const blob = res.data instanceof Blob ? res.data : new Blob([JSON.stringify(res.data)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  toast(`Exported ${name}`);
}
