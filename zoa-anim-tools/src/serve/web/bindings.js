// Binding Browser: semantic ids → rig parameter / type / layer per weapon
// class, inert bindings flagged.
import { api } from './api.js';
import { $, el, failed } from './ui.js';
import { go } from './main.js';

let chosen = {}; // set id → class

export async function start() { await load(); }
export async function shown() { await load(); }

async function load() {
  const res = await api.get('/api/bindings');
  if (!res.ok) return failed(res, 'bindings');
  render(res.data);
}

function profileTables(p, checked) {
  const bindings = el('table.grid.compact.binding-table', {},
    el('thead', {}, el('tr', {}, ...['Binding id', 'Parameter', 'Type', 'Layer', 'Status'].map((h) => el('th', { text: h })))),
    el('tbody', {}, ...p.bindings.map((b) => el(`tr${b.inert ? '.inert' : ''}`, { dataset: { binding: b.id } },
      el('td.mono', { text: b.id }), el('td.mono', { text: b.parameter }), el('td', { text: b.type }),
      el('td', { text: b.layer < 0 ? 'base' : `${b.layer} (${b.layer_name})` }),
      el('td', {}, b.inert ? el('span.flag', { text: `inert: ${b.inert}` }) : checked ? el('span.note', { text: 'drives the rig' }) : '',
        !b.shipped_type ? el('span.chip', { text: 'not a shipped id', title: 'does not transfer to other rigs' }) :
          b.shipped_type !== b.type ? el('span.chip.neg', { text: `shipped as ${b.shipped_type}` }) : '')))));
  const slots = el('table.grid.compact', {},
    el('thead', {}, el('tr', {}, ...['Slot', 'Clip', 'Speed', 'Additive', 'Status'].map((h) => el('th', { text: h })))),
    el('tbody', {}, ...p.slots.map((s) => el(`tr${s.inert ? '.inert' : ''}`, {},
      el('td.mono', { text: s.id }), el('td.mono', { text: s.clip }), el('td', { text: s.speed }), el('td', { text: s.additive ? 'yes' : '' }),
      el('td', {}, s.inert ? el('span.flag', { text: `inert: ${s.inert}` }) : '', !s.shipped ? el('span.chip', { text: 'not a shipped slot' }) : '')))));
  return el('div', {}, el('h4', { text: 'Bindings' }), bindings, el('h4', { text: 'Slots' }), slots);
}

function render(d) {
  const body = $('#bindings-body');
  body.replaceChildren();
  if (d.inert_problems.length) {
    body.append(el('div.card', {}, el('b', { text: 'Inert bindings could not be checked: ' }), d.inert_problems.join('; ')));
  }
  if (!d.sets.length) body.append(el('p.note', { text: 'The folder has no player profile set.' }));
  for (const s of d.sets) {
    const card = el('div.card.set-card', { dataset: { set: s.id } });
    card.append(el('h3', {}, 'Player profile set ', el('a.link', { text: s.id, onclick: () => go('definitions', s.path) }),
      el('span.note', { text: ` default class ${s.default}${s.inert_checked ? ' · inert bindings checked against each class’s graph' : ' · inert bindings could not be checked (see above)'}` })));
    const tabs = el('div.class-tabs');
    const content = el('div');
    const showClass = (cls) => {
      chosen[s.id] = cls;
      for (const b of tabs.children) b.classList.toggle('active', b.dataset.class === cls);
      const c = s.classes.find((x) => x.class === cls);
      content.replaceChildren(
        el('p.note', {}, 'binding profile ', c.profile && c.profile.path ? el('a.link', { text: c.binding_profile, onclick: () => go('definitions', c.profile.path) }) : c.binding_profile,
          c.animation_graph ? ` · graph ${c.animation_graph}` : '', c.animation_profile ? ` · animation profile ${c.animation_profile}` : ''),
        c.profile ? profileTables(c.profile, s.inert_checked) : el('p.flag', { text: `binding profile ${c.binding_profile} is missing or invalid` }));
    };
    for (const c of s.classes) {
      const inert = c.profile ? c.profile.bindings.filter((b) => b.inert).length + c.profile.slots.filter((x) => x.inert).length : 0;
      tabs.append(el('button', { dataset: { class: c.class }, onclick: () => showClass(c.class) }, c.class, inert ? el('span.badge.error', { text: inert }) : ''));
    }
    card.append(tabs, content);
    body.append(card);
    showClass(chosen[s.id] && s.classes.some((c) => c.class === chosen[s.id]) ? chosen[s.id] : s.classes[0].class);
  }
  for (const p of d.unused_profiles) {
    body.append(el('div.card', {}, el('h3', {}, 'Binding profile ', el('a.link', { text: p.id, onclick: () => go('definitions', p.path) }),
      el('span.note', { text: ' (no profile set uses it)' })), profileTables(p, false)));
  }
}
