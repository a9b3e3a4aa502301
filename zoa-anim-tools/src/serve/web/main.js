// The shell: capability strip, routing by #hash, lazy panel start-up.
import { api } from './api.js';
import { $, $$, toast } from './ui.js';
import * as definitions from './definitions.js';
import * as graphs from './graphs.js';
import * as clips from './clips.js';
import * as autobind from './autobind.js';
import * as bindings from './bindings.js';
import * as ik from './ik.js';
import * as preview from './preview.js';
import * as overview from './overview.js';
import * as wizard from './wizard.js';
import * as liveLab from './live_lab.js';

const modules = { definitions, graphs, clips, autobind, bindings, ik, preview, overview, wizard };
const starting = new Map(); // tab → the promise of its start-up
// Parts of a page that live in their own module, started with it.
const parts = { preview: [liveLab] };
const startTab = (tab) => Promise.all([modules[tab].start(session), ...(parts[tab] || []).map((p) => p.start(session))]);
export const session = {};

async function show(tab) {
  if (!modules[tab]) tab = 'definitions';
  for (const b of $$('#strip button')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const p of $$('.panel')) p.hidden = p.dataset.panel !== tab;
  const m = modules[tab];
  if (!starting.has(tab)) starting.set(tab, startTab(tab));
  else if (m.shown) await m.shown();
  await starting.get(tab);
  document.body.dataset.tab = tab;
}

/// Opens another capability (modules call it to link across), then hands it `arg`.
export async function go(tab, arg) {
  if (location.hash.slice(1) !== tab) location.hash = tab; // the hashchange shows it
  else await show(tab);
  if (!starting.has(tab)) starting.set(tab, startTab(tab));
  await starting.get(tab);
  if (arg !== undefined && modules[tab].open) await modules[tab].open(arg);
}

window.addEventListener('hashchange', () => show(location.hash.slice(1)));
window.addEventListener('beforeunload', (e) => { if (definitions.isDirty()) { e.preventDefault(); e.returnValue = ''; } });

(async function boot() {
  const res = await api.get('/api/session');
  if (!res.ok) { toast(`cannot start: ${res.data.error || res.status}`, 'error'); return; }
  Object.assign(session, res.data);
  $('#folder').textContent = session.roots.map((r) => `${r.label}: ${r.folder}`).join('   ');
  for (const b of $$('#strip button')) b.addEventListener('click', () => { location.hash = b.dataset.tab; });
  await show(location.hash.slice(1) || 'definitions');
  document.body.dataset.ready = '1';
})();
