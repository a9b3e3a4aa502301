// The Preview Lab's live mode: free play with no preset. Pick a graph and
// press Play, then set its parameters while it plays (the graph beside it
// lights the active states and the transition under way); or play one clip
// (loop, speed). The skeleton follows; delivered events are listed.
import { api, withQuery } from './api.js';
import { $, el, failed } from './ui.js';
import { LiveSession, paramControl, highlights } from './live.js';
import { SkeletonView } from './skeleton_view.js';
import { GraphCanvas } from './graph_canvas.js';
import * as buffers from './buffers.js';
import { MeshView } from './mesh_view.js';

let session = null;
let view3d = null;
let meshView = null;
let meshShown = false;
let graphCanvas = null;
let graphView = null;
let controls = new Map();
let files = [];

export async function start() {
  const host = $('#live-lab');
  if (!host) return;
  host.replaceChildren(el('details.card.live-lab#live-card', {},
    el('summary', {}, el('b', { text: 'Live: free play ' }), el('span.note', { text: 'no preset: pick a graph or a clip, press Play, set parameters while it plays' })),
    el('div.form-row', {},
      el('label', {}, 'Mode ', el('select#live-mode', { onchange: modeChanged }, el('option', { value: 'graph', text: 'Graph' }), el('option', { value: 'clip', text: 'Single clip' }))),
      el('label.live-graph-only', {}, 'Graph ', el('select#live-graph')),
      el('label.live-clip-only', { hidden: true }, 'Clip ', el('select#live-clip')),
      el('label.live-clip-only', { hidden: true }, el('input#live-loop', { type: 'checkbox', checked: true }), ' loop'),
      el('label', {}, 'Speed ', el('input#live-speed', { type: 'number', value: '1', min: '0', step: '0.1', onchange: speedChanged })),
      el('button#live-play.primary', { text: '▶ Play', onclick: play }),
      el('button#live-stop', { text: '■ Stop', disabled: true, onclick: () => session && session.stop() }),
      el('span#live-status.note')),
    el('div.split', {},
      el('div.viewport', {}, el('canvas#live-mesh', { width: 420, height: 340, hidden: true }), el('canvas#live-canvas', { width: 420, height: 340 }),
        el('div.hint', { text: 'drag to orbit · wheel to zoom' }),
        el('label.live-stick', {}, el('input#live-stick', { type: 'checkbox', checked: true, onchange: (e) => { meshView.stick = e.target.checked; meshView.draw(); } }), ' stick figure'),
        el('div#live-mesh-note.note')),
      el('div.side-panel', {},
        el('div#live-params.live-params'),
        el('div.live-graph-host#live-graph-host'),
        el('div#live-states.mono.note'),
        el('div#live-events.live-events')))));
  view3d = new SkeletonView($('#live-canvas'));
  view3d.draw();
  meshView = new MeshView($('#live-mesh'));
  graphCanvas = new GraphCanvas($('#live-graph-host'), { select() {}, moveNodes() {}, requestAddState() {}, addTransition() {}, deleteSelection() {}, setEntry() {}, renameState() {}, menu() {} });
  const res = await api.get('/api/defs');
  if (!res.ok) return failed(res, 'listing definitions');
  files = res.data.files;
  for (const f of files.filter((x) => x.kind === 'animation_graph')) $('#live-graph').append(el('option', { value: f.id, text: f.id, dataset: { path: f.path } }));
  for (const f of files.filter((x) => x.kind === 'clip')) $('#live-clip').append(el('option', { value: f.id, text: f.id }));
}

function modeChanged() {
  const clip = $('#live-mode').value === 'clip';
  for (const n of document.querySelectorAll('.live-clip-only')) n.hidden = !clip;
  for (const n of document.querySelectorAll('.live-graph-only')) n.hidden = clip;
}

function speedChanged() {
  const v = Number($('#live-speed').value);
  if (session && Number.isFinite(v)) session.setSpeed(v);
}

async function play() {
  if (session) await session.stop();
  const clipMode = $('#live-mode').value === 'clip';
  const body = clipMode ? { mode: 'clip', clip: $('#live-clip').value, loop: $('#live-loop').checked } : { mode: 'graph', graph: $('#live-graph').value };
  body.skin = !meshView.error;
  const path = clipMode ? null : $('#live-graph').selectedOptions[0]?.dataset.path;
  // An unsaved graph plays as edited.
  if (path && buffers.isDirty(path)) body.unsaved = { path, text: buffers.get(path).text };
  $('#live-status').textContent = 'starting…';
  const s = await LiveSession.start(body);
  if (!s) { $('#live-status').textContent = ''; return; }
  session = s;
  view3d.setSkeleton(s.jointParents, s.jointNames);
  view3d.setPose(s.frame.joints);
  view3d.frame();
  view3d.draw();
  await showMesh(s);
  await showGraph(clipMode ? null : path, body.unsaved && body.unsaved.text);
  controls = new Map();
  $('#live-events').replaceChildren();
  $('#live-params').replaceChildren(...s.parameters.map((p) => {
    const c = paramControl(s, p);
    controls.set(p.name, c);
    return el('div.live-param', { dataset: { name: p.name } }, el('span.mono', { text: p.name }), el('span.note', { text: ` ${p.type}` }), c.node);
  }));
  if (Number($('#live-speed').value) !== 1) speedChanged();
  $('#live-play').textContent = '↻ Restart';
  $('#live-stop').disabled = false;
  s.onFrame((frame, events, ended) => {
    if (s !== session) return;
    if (ended) {
      $('#live-status').textContent = ended === 'stopped' ? 'stopped' : ended;
      $('#live-play').textContent = '▶ Play';
      $('#live-stop').disabled = true;
      graphCanvas.setLive(null);
      document.body.dataset.labLive = '';
      session = null;
      return;
    }
    show(frame, events);
  });
  s.run();
  document.body.dataset.labLive = '1';
}

/// The character's skinned mesh (the stick figure alone when it cannot be drawn).
async function showMesh(s) {
  meshShown = false;
  let why = meshView.error;
  if (!why) {
    const res = await api.post('/api/live/mesh', { session: s.id });
    if (res.ok && meshView.setMesh(res.data, s.jointNames.length)) meshShown = true;
    else why = res.ok ? meshView.error : (res.data.error || `HTTP ${res.status}`);
  }
  $('#live-mesh').hidden = !meshShown;
  $('#live-canvas').hidden = meshShown;
  $('#live-stick').parentElement.hidden = !meshShown;
  $('#live-mesh-note').textContent = meshShown ? '' : `stick figure only: ${why}`;
  if (meshShown) {
    meshView.setSkeleton(s.jointParents);
    meshView.setPose(s.frame.skin, s.frame.joints);
    meshView.frame();
    meshView.draw();
  }
  document.body.dataset.labMesh = meshShown ? '1' : '';
}

/// The graph beside the skeleton (read-only), for its highlights.
async function showGraph(path, unsavedText) {
  graphView = null;
  $('#live-graph-host').hidden = !path;
  if (!path) return;
  let text = unsavedText;
  if (text === undefined || text === null) {
    const f = await api.get(withQuery('/api/file', { path }));
    if (!f.ok) return;
    text = f.data.text;
  }
  const res = await api.post('/api/graph/edit', { path, text, edits: [] });
  if (!res.ok) return;
  graphView = res.data.view;
  graphCanvas.setView(graphView, 0);
  graphCanvas.frame();
}

function show(frame, events) {
  session.parameters.forEach((p, i) => controls.get(p.name)?.update(frame.values[i]));
  view3d.setPose(frame.joints);
  view3d.draw();
  if (meshShown) { meshView.setPose(frame.skin, frame.joints); meshView.draw(); }
  if (graphView) graphCanvas.setLive(highlights(graphView, frame, 0));
  $('#live-states').textContent = frame.layers.map((l) => `${l.name}: ${l.states.map(([n, w]) => `${n} ${w.toFixed(2)}`).join(', ')}${l.transition ? ` (→ ${l.transition.to} ${Math.round(l.transition.progress * 100)}%)` : ''}`).join(' · ');
  $('#live-status').textContent = `${frame.time.toFixed(2)} s`;
  if (events.length) {
    const box = $('#live-events');
    for (const e of events) box.prepend(el('span.chip', { text: e }));
    while (box.childElementCount > 12) box.lastChild.remove();
  }
  document.body.dataset.labLiveStates = frame.layers.map((l) => l.states.filter((s) => s[1] > 0.99).map((s) => s[0]).join('+')).join('|');
}
