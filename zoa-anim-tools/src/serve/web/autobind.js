// Auto Binding: scan roots, review each slot's ranked candidates with their
// score breakdown, approve or change each, write the player profile set.
import { api } from './api.js';
import { $, el, toast, confirmDialog, failed } from './ui.js';
import { go } from './main.js';

let last = null; // the scan request and answer
let types = [];

export async function start(session) {
  const assets = session.roots.filter((r) => !r.writable).map((r) => r.label);
  $('#ab-roots').value = (assets.length ? assets : ['defs']).join(', ');
  const voc = await api.get('/api/vocabulary');
  types = voc.ok ? voc.data.profile_types : [];
  for (const t of types) $('#ab-type').append(el('option', { value: t, text: t }));
  $('#ab-scan').addEventListener('click', scan);
  $('#ab-write').addEventListener('click', () => write(false));
  $('#ab-skeleton').addEventListener('change', scan);
}

function params() {
  return {
    roots: $('#ab-roots').value.split(',').map((s) => s.trim()).filter(Boolean),
    profile_type: $('#ab-type').value || null,
    min_score: parseFloat($('#ab-min').value),
    skeleton: ['', '*'].includes($('#ab-skeleton').value) ? null : $('#ab-skeleton').value,
    one_set: $('#ab-skeleton').value === '*',
  };
}

// One option per skeleton of the last scan, and "every file" (one set mixing them).
function skeletonOptions(d) {
  const sel = $('#ab-skeleton');
  sel.replaceChildren(...d.skeletons.map((k) =>
    el('option', { value: k.id, text: `${k.id} (${k.files.length} file(s), ${k.slots} slot(s))` })),
  el('option', { value: '*', text: 'every file (one set)' }));
  sel.value = d.skeleton ?? '*';
}

async function scan() {
  const req = params();
  // Other roots: their skeletons are not the ones listed.
  if (last && req.roots.join(',') !== last.req.roots.join(',')) req.skeleton = null;
  $('#ab-summary').textContent = 'scanning…';
  const res = await api.post('/api/autobind/scan', req);
  if (!res.ok) { $('#ab-summary').textContent = ''; return failed(res, 'scan'); }
  skeletonOptions(res.data);
  // Writing ranks the skeleton shown, whichever the scan picked.
  last = { req: params(), data: res.data };
  render();
}

function signalChips(signals) {
  return Object.entries(signals).map(([k, v]) =>
    el(`span.chip.${v < 0 ? 'neg' : 'pos'}`, { text: `${k} ${v > 0 ? '+' : ''}${v.toFixed(2)}`, title: k }));
}

function render() {
  const d = last.data;
  const failedFiles = d.failed.length ? `, ${d.failed.length} unreadable` : '';
  $('#ab-summary').textContent = `${d.clips} clip(s) in ${d.files} file(s)${failedFiles}; ${d.slots.length} slot(s) with candidates` +
    (d.unassigned.length ? `; no candidate for: ${d.unassigned.join(', ')}` : '') +
    (d.classes.length ? `; classes: ${d.classes.join(', ')}` : '') +
    (d.skeletons.length > 1 ? `; skeleton ${d.skeleton ?? 'every file'} of ${d.skeletons.length} (one set per skeleton)` : '');
  const body = $('#ab-table tbody');
  body.replaceChildren();
  for (const s of d.slots) {
    const approve = el('input.ab-approve', { type: 'checkbox', checked: true, 'aria-label': `approve ${s.slot}` });
    const choice = el('select.ab-choice', { 'aria-label': `clip for ${s.slot}` },
      ...s.candidates.map((c, i) => el('option', { value: c.key, text: `${c.clip} — ${c.file} (${c.score.toFixed(2)})${i === 0 ? ' ★' : ''}` })));
    const score = el('td.score');
    const why = el('td.why');
    const row = el('tr.ab-slot', { dataset: { slot: s.slot } },
      el('td', {}, approve), el('td.mono', { text: s.slot }), el('td', { text: s.classes.join(', ') }), el('td', {}, choice), score, why);
    const update = () => {
      const c = s.candidates.find((x) => x.key === choice.value);
      score.replaceChildren(el('span.scorebar', { style: `width:${Math.max(2, Math.min(1.6, c.score) * 50)}px` }), c.score.toFixed(2));
      const runner = s.candidates.find((x) => x.key !== c.key);
      why.replaceChildren(...signalChips(c.signals), runner ? el('div.note', { text: `next: ${runner.clip} (${runner.score.toFixed(2)})` }) : '');
      row.classList.toggle('rejected', !approve.checked);
      choice.disabled = !approve.checked;
    };
    approve.addEventListener('change', update);
    choice.addEventListener('change', update);
    update();
    body.append(row);
  }
  $('#ab-table').hidden = !d.slots.length;
  $('#ab-out-row').hidden = !d.slots.length;
  $('#ab-result').replaceChildren();
}

async function write(overwrite) {
  if (!last) return;
  const choices = {};
  for (const row of document.querySelectorAll('#ab-table tr.ab-slot')) {
    const approved = row.querySelector('.ab-approve').checked;
    choices[row.dataset.slot] = approved ? row.querySelector('.ab-choice').value : null;
  }
  const res = await api.post('/api/autobind/write', { ...last.req, choices, out: $('#ab-out').value.trim(), overwrite });
  if (res.status === 409 && res.data.exists) {
    const ok = await confirmDialog('Replace existing profile files?',
      el('div', {}, el('p', { text: 'These files exist and would be replaced:' }), el('ul', {}, ...res.data.files.map((f) => el('li.mono', { text: f })))),
      'Replace them', true);
    if (ok) await write(true);
    return;
  }
  if (!res.ok) return failed(res, 'writing the profile set');
  const box = $('#ab-result');
  const errors = res.data.diagnostics.filter((x) => x.severity === 'error');
  box.replaceChildren(el('h3', { text: 'Written' }),
    el('ul', {}, ...res.data.written.map((f) => el('li', {}, el('a.link', { text: f, onclick: () => go('definitions', f) })))),
    errors.length ? el('p.flag', { text: `${errors.length} error(s) in the written files: ${errors.map((e) => `${e.file}:${e.line} ${e.message}`).join('; ')}` })
      : el('p.note', { text: 'The written files validate.' }));
  toast(`Wrote ${res.data.written.length} file(s)`);
}
