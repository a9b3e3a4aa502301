// Play in the Graph Editor: free play of the graph being edited (its text
// as it is now, saved or not). While it plays, each parameter gets a live
// control, the canvas lights the active states and the transition under
// way with its progress, and a small view shows the skeleton.
import { $, el } from './ui.js';
import { LiveSession, paramControl, highlights } from './live.js';
import { SkeletonView } from './skeleton_view.js';

let page; // the graphs module
let session = null;
let playedText = null;
let controls = new Map(); // parameter name → control
let view3d = null;

export function attach(graphs) {
  page = graphs;
  $('#ge-live-host').replaceChildren(
    el('button#ge-play', { text: '▶ Play', title: 'Free play: the graph as edited, every parameter settable', onclick: play }),
    el('button#ge-stop', { text: '■ Stop', hidden: true, onclick: stop }),
    el('span#ge-live-status.note'));
  const port = el('div.ge-viewport#ge-viewport', { hidden: true }, el('canvas#ge-skeleton', { width: 210, height: 210 }));
  $('.ge-params').append(port);
  view3d = new SkeletonView($('#ge-skeleton'));
  graphs.hooks.paramControls = (fields) => {
    if (!session || session.ended) return null;
    const p = session.parameters.find((x) => x.name === fields.name);
    if (!p) return null;
    const c = paramControl(session, p);
    controls.set(p.name, c);
    c.update(session.value(p.name));
    return c.node;
  };
  graphs.hooks.rendered.push(() => show(session && !session.ended ? session.frame : null));
}

async function play() {
  const g = page.current();
  if (!g || !g.view || !g.view.id) return;
  if (session) await session.stop();
  $('#ge-live-status').textContent = 'starting…';
  const s = await LiveSession.start({ mode: 'graph', graph: g.view.id, unsaved: { path: g.path, text: g.text } });
  if (!s) { $('#ge-live-status').textContent = ''; return; }
  session = s;
  playedText = g.text;
  controls = new Map();
  view3d.setSkeleton(s.jointParents, s.jointNames);
  view3d.setPose(s.frame.joints);
  view3d.frame();
  $('#ge-viewport').hidden = false;
  $('#ge-play').textContent = '↻ Restart';
  $('#ge-stop').hidden = false;
  s.onFrame((frame, events, ended) => {
    if (s !== session) return;
    if (ended) { finished(ended); return; }
    show(frame);
    const edited = page.current() && page.current().text !== playedText;
    $('#ge-live-status').textContent = `${frame.time.toFixed(1)} s${edited ? ' · edited since Play: Restart to play the edits' : ''}`;
  });
  page.rerender();
  s.run();
  document.body.dataset.live = '1';
}

async function stop() {
  if (session) await session.stop();
}

function finished(reason) {
  session = null;
  controls = new Map();
  $('#ge-play').textContent = '▶ Play';
  $('#ge-stop').hidden = true;
  $('#ge-viewport').hidden = true;
  $('#ge-live-status').textContent = reason === 'stopped' ? '' : reason;
  document.body.dataset.live = '';
  document.body.dataset.liveStates = '';
  page.rerender();
}

/// Shows `frame` (null: nothing plays) on every layer's canvas, the controls and the skeleton.
function show(frame) {
  const g = page.current();
  if (!g || !g.view) return;
  for (const [layer, c] of g.canvases) c.setLive(frame ? highlights(g.view, frame, layer) : null);
  if (!frame || !session) return;
  session.parameters.forEach((p, i) => controls.get(p.name)?.update(frame.values[i]));
  view3d.setPose(frame.joints);
  view3d.draw();
  document.body.dataset.liveStates = frame.layers.map((l) => l.states.filter((s) => s[1] > 0.99).map((s) => s[0]).join('+')).join('|');
}
