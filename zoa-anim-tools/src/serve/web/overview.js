// Overview: what the folder holds and where it needs attention.
import { api } from './api.js';
import { $, el, failed } from './ui.js';
import { go } from './main.js';

export async function start() { await load(); }
export async function shown() { await load(); }

async function load() {
  const res = await api.get('/api/overview');
  if (!res.ok) return failed(res, 'overview');
  const d = res.data;
  const open = (p) => el('a.link', { text: p, onclick: () => go('definitions', p) });
  const counts = el('table.grid.compact', {}, el('tbody', {}, ...Object.entries(d.counts).map(([k, n]) => el('tr', {}, el('td', { text: k.replace(/_/g, ' ') }), el('td', { text: n })))));
  const problems = d.problems.length
    ? el('ul', {}, ...d.problems.map((p) => el('li', {}, open(p.path), `: ${p.errors} error(s), ${p.warnings} warning(s)`)))
    : el('p.note', { text: 'No errors or warnings.' });
  const coverage = el('table.grid.compact', {},
    el('thead', {}, el('tr', {}, ...['Profile', 'Exact', 'Fallback', 'Default', 'Nothing', 'Dead rows'].map((h) => el('th', { text: h })))),
    el('tbody', {}, ...d.coverage.map((c) => el('tr', {}, el('td.mono', { text: c.profile }), el('td', { text: c.exact }), el('td', { text: c.fallback_only }),
      el('td', { text: c.default_only }), el('td', { class: c.unresolved ? 'flag' : '', text: c.unresolved }), el('td', { class: c.dead_rows ? 'flag' : '', text: c.dead_rows })))));
  const sets = d.profile_sets.length ? el('div', {}, ...d.profile_sets.map((s) => el('div', {},
    el('b', {}, open(s.path)), ` (default ${s.default})`,
    el('ul', {}, ...s.classes.map((c) => el('li', { text: `${c.class}: bindings ${c.binding_profile}${c.animation_graph ? `, graph ${c.animation_graph}` : ''}${c.animation_profile ? `, profile ${c.animation_profile}` : ''}` }))))))
    : el('p.note', { text: 'No player profile set.' });
  const models = el('ul', {}, ...d.models.map((m) => el('li', {}, el('span.mono', { text: m.written }),
    !m.exists ? el('span.flag', { text: ' missing' }) : m.path ? el('span.note', { text: ` → ${m.path}` }) : el('span.flag', { text: ' outside the Workbench folders (pass --assets)' }))));
  const presets = el('ul', {}, ...d.presets.map((p) => el('li', {}, el('a.link', { text: p.id, onclick: () => go('preview', p.id) }), ` — ${p.name}`)));
  $('#overview-body').replaceChildren(
    el('h2', { text: `Definition folder ${d.folder}` }),
    el('p', {}, el('b', { class: d.errors ? 'flag' : '', text: `${d.errors} error(s)` }), `, ${d.warnings} warning(s)`),
    el('div.cards', {},
      el('div.card', {}, el('h3', { text: 'Definitions' }), counts),
      el('div.card', {}, el('h3', { text: 'Needs attention' }), problems),
      el('div.card.wide', {}, el('h3', { text: 'Coverage (states with at most one tag per dimension)' }), coverage),
      el('div.card', {}, el('h3', { text: 'Player profile sets' }), sets),
      el('div.card', {}, el('h3', { text: 'Models' }), models),
      el('div.card', {}, el('h3', { text: 'Preview presets' }), presets)));
}
