// The graph editor's details panel: what is selected on the canvas (a
// state, a transition, or nothing: the graph), its fields as controls, and
// its problems. Every change becomes one server-side edit through `apply`.
import { el } from './ui.js';

const OPS = ['==', '!=', '<', '>', '<=', '>='];

/// Renders into `box`. `g`: {view, sel, diags (per target key), clips, models, apply(edits), select(sel), layerName(i)}.
export function renderDetails(box, g) {
  const { view, sel } = g;
  if (sel && sel.kind === 'state') {
    const s = view.states.find((x) => x.index === sel.index);
    if (s) return box.replaceChildren(...stateDetails(s, g));
  }
  if (sel && sel.kind === 'transition') {
    const t = view.transitions.find((x) => x.index === sel.index);
    if (t) return box.replaceChildren(...transitionDetails(t, g));
  }
  box.replaceChildren(...graphDetails(g));
}

const num = (v) => (v === '' || v === null || v === undefined ? null : Number(v));
const field = (label, control, note) => el('label.gd-field', {}, el('span', { text: label }), control, note ? el('span.note', { text: note }) : null);

function problems(g, key, extra = []) {
  const list = (g.diags.get(key) || []).map((d) => el(`li.${d.severity}`, { dataset: { code: d.code } }, el('b', { text: `${d.code} ` }), d.message));
  const flags = extra.map(([cls, text, code]) => el(`li.${cls}`, { dataset: { code } }, el('b', { text: `${code} ` }), text));
  if (!list.length && !flags.length) return el('div.gd-problem-box', {}, el('div.note.gd-clean', { text: 'No problems.' }));
  return el('div.gd-problem-box', {}, el('ul.gd-problems', {}, ...flags, ...list));
}

function select(options, value, onchange, attrs = {}) {
  const s = el('select', { ...attrs, onchange: () => onchange(s.value) });
  for (const o of options) {
    const [v, label] = Array.isArray(o) ? o : [o, o];
    s.append(el('option', { value: v, text: label }));
  }
  if (value !== undefined && value !== null && ![...s.options].some((o) => o.value === String(value))) {
    s.append(el('option', { value: String(value), text: `${value} (not available here)` }));
  }
  s.value = value === undefined || value === null ? (options.length ? (Array.isArray(options[0]) ? options[0][0] : options[0]) : '') : String(value);
  return s;
}

function input(value, onchange, attrs = {}) {
  const i = el('input', { value: value === undefined || value === null ? '' : String(value), ...attrs });
  i.addEventListener('change', () => onchange(i.value));
  return i;
}

function clipOptions(g) { return g.clips.map((c) => [c.id, c.id]); }

function numberParams(view) {
  return view.parameters.filter((p) => p.fields.type === 'float' || p.fields.type === 'int').map((p) => p.fields.name);
}

function stateDetails(s, g) {
  const f = s.fields;
  const set = (key, value) => g.apply([{ op: 'set', target: { state: s.index }, key, value }]);
  const name = input(s.name, (v) => g.apply([{ op: 'rename_state', state: s.index, name: v }]), { id: 'gd-state-name' });
  const kind = f.entry !== undefined ? 'machine' : f.blend_tree ? `tree-${f.blend_tree.type}` : 'clip';
  const motion = select([['clip', 'Clip'], ['tree-1D', 'Blend tree 1D'], ['tree-2D', 'Blend tree 2D'], ['tree-direct', 'Direct blend tree'], ['machine', 'Sub-state machine']],
    kind, (v) => changeMotion(s, v, g), { id: 'gd-motion' });
  const out = [
    el('h3', { text: 'State' }),
    field('Name', name),
    field('Layer', el('span', { text: g.layerName(s.layer) })),
    s.entry ? el('div.gd-badge', { text: 'Entry state of its layer' })
      : el('button#gd-set-entry', { text: 'Set as entry state', onclick: () => g.apply([{ op: 'set_entry', state: s.index }]) }),
    field('Plays', motion),
  ];
  // The sub-state machines it may sit in: the other states of its layer
  // (one that is not a machine yet is flagged until it becomes one).
  const others = g.view.states.filter((o) => o.layer === s.layer && o.index !== s.index).map((o) => [o.name, o.name]);
  out.push(field('Inside', select([['', 'the layer itself'], ...others], f.machine || '', (v) => set('machine', v || null), { id: 'gd-machine' }),
    'a sub-state machine of its layer'));
  if (f.entry !== undefined) {
    const inner = g.view.states.filter((o) => o.fields.machine === s.name).map((o) => [o.name, o.name]);
    out.push(field('Machine entry', select(inner, f.entry, (v) => set('entry', v), { id: 'gd-machine-entry' }),
      'entering the machine enters this state; its transitions leave from every state inside'));
  } else if (!f.blend_tree) {
    out.push(field('Clip', select(clipOptions(g), f.clip, (v) => set('clip', v), { id: 'gd-clip' }), 'clips of the graph\'s skeleton'));
  } else {
    out.push(treeEditor(f.blend_tree, (next) => set('blend_tree', next), g, 1));
  }
  out.push(field('Sync group', input(f.sync_group, (v) => set('sync_group', v.trim() || null), { id: 'gd-sync-group', placeholder: 'none' }),
    'looping states of one group keep their feet in step by sync marker'));
  out.push(
    field('Loop', select([['', 'the clip\'s loop hint'], ['true', 'loop'], ['false', 'play once']], f.loop === undefined ? '' : String(f.loop),
      (v) => set('loop', v === '' ? null : v === 'true'), { id: 'gd-loop' })),
    field('Speed', input(f.speed, (v) => set('speed', num(v)), { type: 'number', step: '0.05', min: '0', id: 'gd-speed', placeholder: '1' })),
    field('Cross-fade in (s)', input(f.crossfade?.duration, (v) => set('crossfade.duration', num(v)), { type: 'number', step: '0.05', min: '0', placeholder: '0' })),
    field('Warp', checkbox(!!f.crossfade?.warp, (v) => set('crossfade.warp', v || null)), 'sync clip phases while fading in'),
    field('Weight', input(f.weight, (v) => set('weight', num(v)), { type: 'number', step: '0.05', min: '0', max: '1', placeholder: 'the layer\'s' })),
    field('Blend mode', select([['', 'the layer\'s'], ['override', 'override'], ['additive', 'additive']], f.blend_mode || '', (v) => set('blend_mode', v || null))),
    field('Mask: include', input((f.bone_mask?.include || []).join(', '), (v) => setMask(s, 'include', v, g), { placeholder: 'bone names' })),
    field('Mask: exclude', input((f.bone_mask?.exclude || []).join(', '), (v) => setMask(s, 'exclude', v, g), { placeholder: 'bone names' })),
    el('h4', { text: 'Outgoing transitions (firing order)' }),
    outgoing(s, g),
    el('h4', { text: 'Problems' }),
    problems(g, `state:${s.index}`, s.reachable ? [] : [['warning', 'no transition path reaches this state from its layer\'s entry', 'W003']]),
    el('button.danger', { text: 'Delete state', onclick: () => g.apply([{ op: 'delete_state', state: s.index }]) }),
  );
  return out;
}

function checkbox(on, onchange, attrs = {}) {
  const c = el('input', { type: 'checkbox', ...attrs });
  c.checked = on;
  c.addEventListener('change', () => onchange(c.checked));
  return c;
}

function setMask(s, key, text, g) {
  const mask = { ...(s.fields.bone_mask || {}) };
  const names = text.split(',').map((x) => x.trim()).filter(Boolean);
  mask[key] = names.length ? names : null;
  const empty = !mask.include?.length && !mask.exclude?.length;
  return g.apply([{ op: 'set', target: { state: s.index }, key: 'bone_mask', value: empty ? null : mask }]);
}

function changeMotion(s, kind, g) {
  const f = s.fields;
  const clips = g.clips.map((c) => c.id);
  const first = f.clip || (f.blend_tree?.children || [])[0]?.clip || clips[0] || '';
  const second = clips.find((c) => c !== first) || first;
  const params = numberParams(g.view);
  let edit;
  if (kind === 'clip') edit = { key: 'clip', value: first };
  else if (kind === 'tree-1D') edit = { key: 'blend_tree', value: { type: '1D', parameter: params[0] || '', children: [{ clip: first, threshold: 0 }, { clip: second, threshold: 1 }] } };
  else if (kind === 'tree-2D') edit = { key: 'blend_tree', value: { type: '2D', parameter: params[0] || '', parameter_y: params[1] || params[0] || '', children: [{ clip: first, threshold: 0, threshold_y: 0 }, { clip: second, threshold: 1, threshold_y: 0 }] } };
  else if (kind === 'machine') {
    const inner = g.view.states.find((o) => o.fields.machine === s.name);
    if (!inner) {
      g.status('put a state inside this one first (its Inside field), then make this one a sub-state machine');
      return null;
    }
    edit = { key: 'entry', value: inner.name };
  } else edit = { key: 'blend_tree', value: { type: 'direct', children: [{ clip: first, weight: 1 }] } };
  return g.apply([{ op: 'set', target: { state: s.index }, ...edit }]);
}

/// A blend tree's editor; `put` writes the whole tree back. A child may be a
/// clip or a tree of its own (edited below the table, nested to the
/// runtime's depth limit of 4 levels).
function treeEditor(tree, put, g, depth) {
  const with_ = (k, v) => put({ ...tree, [k]: v });
  const params = numberParams(g.view);
  const box = el(depth > 1 ? 'div.gd-tree.gd-tree-nested' : 'div.gd-tree', {});
  if (tree.type !== 'direct' || tree.parameter) {
    box.append(field('Parameter', select(params, tree.parameter, (v) => with_('parameter', v), depth === 1 ? { id: 'gd-tree-parameter' } : {})));
  }
  if (tree.type === '2D') {
    box.append(field('Parameter Y', select(params, tree.parameter_y, (v) => with_('parameter_y', v))));
    box.append(field('Weighting', select([['', 'inverse distance'], ['gradient_band', 'gradient bands']], tree.weighting === 'gradient_band' ? 'gradient_band' : '',
      (v) => put({ ...tree, weighting: v || null, power: v ? null : tree.power }))));
    if (tree.weighting !== 'gradient_band') {
      box.append(field('Power', input(tree.power, (v) => with_('power', num(v)), { type: 'number', step: '0.5', min: '0', placeholder: '1' })));
    }
  }
  const children = tree.children || [];
  const putChild = (i, c) => put({ ...tree, children: children.map((x, j) => (j === i ? c : x)) });
  const setChild = (i, k, v) => putChild(i, { ...children[i], [k]: v });
  const NESTED = '\u0000nested';
  const pick = (i, v) => {
    const { clip, blend_tree: _, ...rest } = children[i];
    if (v !== NESTED) return putChild(i, { ...rest, clip: v });
    const clips = g.clips.map((c) => c.id);
    const a = clip || clips[0] || '';
    const b = clips.find((c) => c !== a) || a;
    return putChild(i, { ...rest, blend_tree: { type: '1D', parameter: params[0] || '', children: [{ clip: a, threshold: 0 }, { clip: b, threshold: 1 }] } });
  };
  const options = depth < 4 ? [...clipOptions(g), [NESTED, '(a nested blend tree)']] : clipOptions(g);
  const head = ['Plays', tree.type === 'direct' ? 'Weight' : 'Threshold', ...(tree.type === '2D' ? ['Y'] : []), ''];
  const rows = children.map((c, i) => el('tr', {},
    el('td', {}, c.blend_tree
      ? el('span.gd-child-nested', { text: `nested ${c.blend_tree.type} tree, ${(c.blend_tree.children || []).length} children (below)` })
      : select(options, c.clip, (v) => pick(i, v), { class: 'gd-child-clip' })),
    tree.type === 'direct'
      ? el('td', {}, input(c.weight, (v) => setChild(i, 'weight', num(v)), { type: 'number', step: '0.1', class: 'gd-child-weight' }))
      : el('td', {}, input(c.threshold, (v) => setChild(i, 'threshold', num(v)), { type: 'number', step: '0.1', class: 'gd-child-threshold' })),
    tree.type === '2D' ? el('td', {}, input(c.threshold_y, (v) => setChild(i, 'threshold_y', num(v)), { type: 'number', step: '0.1' })) : null,
    el('td', {}, el('button.small', { text: '✕', title: 'Remove this child', onclick: () => put({ ...tree, children: children.filter((_, j) => j !== i) }) }))));
  const last = children[children.length - 1] || {};
  const add = () => {
    const child = { clip: g.clips[0]?.id || '' };
    if (tree.type === 'direct') child.weight = 1;
    else child.threshold = (Number(last.threshold) || 0) + 1;
    if (tree.type === '2D') child.threshold_y = 0;
    return put({ ...tree, children: [...children, child] });
  };
  box.append(el('table.grid.compact.gd-children', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))), el('tbody', {}, ...rows)),
    el('button.small', { text: 'Add child', onclick: add }));
  children.forEach((c, i) => {
    if (!c.blend_tree) return;
    const label = tree.type === 'direct' ? `weight ${c.weight ?? 0}` : `threshold ${c.threshold ?? 0}`;
    const kinds = select([['1D', '1D'], ['2D', '2D'], ['direct', 'direct']], c.blend_tree.type,
      (v) => putChild(i, { ...c, blend_tree: { ...c.blend_tree, type: v } }));
    box.append(el('div.gd-nested-head', {}, el('span', { text: `Child ${i + 1} (${label}): a nested tree of type ` }), kinds),
      treeEditor(c.blend_tree, (next) => putChild(i, { ...c, blend_tree: next }), g, depth + 1));
  });
  return box;
}

/// The transitions that may leave `s`, as the runtime tries them: its own in
/// file order, then those from Any State into its layer.
function outgoing(s, g) {
  const own = g.view.transitions.filter((t) => t.from_state === s.index);
  const any = g.view.transitions.filter((t) => t.from_any && t.layer === s.layer && t.to_state !== s.index);
  const nameOf = (i) => (g.view.states.find((x) => x.index === i) || {}).name || '?';
  const list = el('ol.gd-outgoing', {});
  own.forEach((t, k) => {
    const up = k > 0 ? el('button.small', { text: '↑', title: 'Fire earlier', onclick: () => g.apply([{ op: 'swap_transitions', a: t.index, b: own[k - 1].index }]) }) : null;
    const down = k < own.length - 1 ? el('button.small', { text: '↓', title: 'Fire later', onclick: () => g.apply([{ op: 'swap_transitions', a: t.index, b: own[k + 1].index }]) }) : null;
    list.append(el('li', { dataset: { transition: t.index } }, el('a.link', { text: `→ ${nameOf(t.to_state)}`, onclick: () => g.select({ kind: 'transition', index: t.index }) }),
      ` ${t.conditions.map((c) => c.text).join(' and ') || (t.fields.exit_time !== undefined ? `at ${t.fields.exit_time}` : 'always')} `, up, down));
  });
  for (const t of any) {
    list.append(el('li.note', {}, el('a.link', { text: `(any) → ${nameOf(t.to_state)}`, onclick: () => g.select({ kind: 'transition', index: t.index }) })));
  }
  if (!own.length && !any.length) list.append(el('li.note', { text: 'none' }));
  return list;
}

function paramOf(view, name) { return view.parameters.find((p) => p.fields.name === name); }

/// A condition's text from its parts: `speed > 1.5`, `grounded is true`, `jump`.
function conditionText(view, name, op, value) {
  const p = paramOf(view, name);
  const ty = p && p.fields.type;
  if (ty === 'trigger') return name;
  if (ty === 'bool') return `${name} is ${value === 'false' ? 'false' : 'true'}`;
  return `${name} ${op || '>'} ${value === '' || value === undefined || value === null ? '0' : value}`;
}

function conditionsEditor(t, g) {
  const texts = t.conditions.map((c) => c.text);
  const put = (list) => g.apply([{ op: 'set', target: { transition: t.index }, key: 'conditions', value: list.length ? list : null }]);
  const names = g.view.parameters.map((p) => p.fields.name);
  const rows = t.conditions.map((c, i) => {
    const p = paramOf(g.view, c.parameter);
    const ty = p ? p.fields.type : null;
    const replace = (text) => put(texts.map((x, j) => (j === i ? text : x)));
    const param = select(names, c.parameter, (v) => {
      const np = paramOf(g.view, v);
      const def = np && np.fields.type === 'bool' ? 'true' : (c.value ?? '0');
      replace(conditionText(g.view, v, c.op && c.op !== 'is' ? c.op : '>', def));
    }, { class: 'gd-cond-param' });
    let test;
    if (ty === 'trigger') test = el('span.note', { text: 'fires' });
    else if (ty === 'bool') test = select([['true', 'is true'], ['false', 'is false']], c.value === 'false' ? 'false' : 'true', (v) => replace(conditionText(g.view, c.parameter, 'is', v)), { class: 'gd-cond-bool' });
    else if (ty) {
      test = el('span', {}, select(OPS, c.op || '>', (v) => replace(conditionText(g.view, c.parameter, v, c.value)), { class: 'gd-cond-op' }),
        input(c.value, (v) => replace(conditionText(g.view, c.parameter, c.op, v)), { type: 'number', step: ty === 'int' ? '1' : '0.1', class: 'gd-cond-value' }));
    } else test = input(c.text, (v) => replace(v), { class: 'gd-cond-text' });
    return el('li', {}, param, test, el('button.small', { text: '✕', title: 'Remove this condition', onclick: () => put(texts.filter((_, j) => j !== i)) }));
  });
  const add = () => {
    const p = g.view.parameters[0];
    if (!p) return g.apply([]);
    return put([...texts, conditionText(g.view, p.fields.name, '>', p.fields.type === 'bool' ? 'true' : '0')]);
  };
  return el('div', {}, el('ul.gd-conditions', {}, ...rows),
    el('button.small#gd-add-condition', { text: 'Add condition', disabled: !names.length, title: names.length ? '' : 'The graph has no parameters yet', onclick: add }));
}

function transitionDetails(t, g) {
  const f = t.fields;
  const set = (key, value) => g.apply([{ op: 'set', target: { transition: t.index }, key, value }]);
  const nameOf = (i) => (g.view.states.find((x) => x.index === i) || {}).name;
  const target = g.view.states.find((x) => x.index === t.to_state);
  const exit = input(f.exit_time, (v) => set('exit_time', num(v)), { type: 'number', step: '0.05', min: '0', max: '1', id: 'gd-exit-time', placeholder: 'none' });
  return [
    el('h3', { text: 'Transition' }),
    el('div.gd-route', {}, t.from_any ? 'Any State' : el('a.link', { text: nameOf(t.from_state) || f.from, onclick: () => g.select({ kind: 'state', index: t.from_state }) }),
      ' → ', el('a.link', { text: nameOf(t.to_state) || f.to, onclick: () => g.select({ kind: 'state', index: t.to_state }) })),
    el('h4', { text: 'Conditions (all must hold)' }),
    conditionsEditor(t, g),
    field('Exit time', exit, 'fraction of the source clip; empty: none'),
    field('Blend (s)', input(f.blend, (v) => set('blend', num(v)), { type: 'number', step: '0.05', min: '0', id: 'gd-blend', placeholder: '0' })),
    field('Mode', select([['', 'cross-fade'], ['inertialize', 'inertialization']], f.mode === 'inertialize' ? 'inertialize' : '', (v) => set('mode', v || null), { id: 'gd-mode' })),
    field('Interruption', select([['', 'none'], ['current', 'by the source\'s transitions'], ['next', 'by the target\'s transitions']], f.interruption && f.interruption !== 'none' ? f.interruption : '', (v) => set('interruption', v || null))),
    target ? field('Warp', checkbox(!!target.fields.crossfade?.warp,
      (v) => g.apply([{ op: 'set', target: { state: target.index }, key: 'crossfade.warp', value: v || null }])), `the target state's cross-fade (${target.name})`) : null,
    el('h4', { text: 'Problems' }),
    problems(g, `transition:${t.index}`, t.unconditional ? [['warning', 'neither exit time nor conditions: it fires the moment its source is entered', 'W002']] : []),
    el('button.danger', { text: 'Delete transition', onclick: () => g.apply([{ op: 'delete_transition', transition: t.index }]) }),
  ];
}

function graphDetails(g) {
  const { view } = g;
  const model = select([['', '(choose the model)'], ...g.models.map((m) => [m, m])], view.model || '',
    (v) => g.apply([{ op: 'set', target: 'graph', key: 'model', value: v || null }]), { id: 'gd-model' });
  const layerProblems = [...g.diags.entries()].filter(([k]) => k.startsWith('layer:')).flatMap(([, v]) => v);
  const extra = layerProblems.map((d) => [d.severity, d.message, d.code]);
  return [
    el('h3', { text: view.id ? `Graph ${view.id}` : 'Graph' }),
    field('Model', model, 'its skeleton decides which clips the states can play'),
    el('p.note', { text: `${view.states.length} state(s), ${view.transitions.length} transition(s), ${view.parameters.length} parameter(s), ${view.layers.length} layer(s).` }),
    el('p.note', { text: 'Right-click empty space to add a state; right-click a state to add a transition (then click its target), set the entry or delete it. Drag to move, middle-drag or Alt-drag to pan, wheel to zoom, Delete removes the selection, Escape cancels a transition, Ctrl+Z / Ctrl+Y undo and redo.' }),
    el('h4', { text: 'Problems of the graph' }),
    problems(g, 'graph', extra),
  ];
}
