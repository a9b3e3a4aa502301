// Small DOM helpers, the modal dialog and the toast.

/// Creates an element: el('div.cls#id', {attr: v, onclick: f}, children...).
export function el(spec, attrs = {}, ...children) {
  const m = spec.match(/^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i);
  const node = document.createElement((m && m[1]) || 'div');
  for (const part of ((m && m[2]) || '').match(/[.#][\w-]+/g) || []) {
    if (part[0] === '.') node.classList.add(part.slice(1)); else node.id = part.slice(1);
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else if (k === 'style') node.style.cssText = v; // CSSOM: allowed by the page's CSP, unlike style attributes
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

let toastTimer = 0;
/// A short message in the corner.
export function toast(text, kind = '') {
  const t = $('#toast');
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, kind === 'error' ? 7000 : 3500);
}

/// A modal dialog. `fields`: [{name, label, value}] become inputs; `buttons`:
/// [{id, label, primary, danger}]. Resolves to {button, values} (button null on Escape).
export function dialog({ title, body = '', fields = [], buttons }) {
  const backdrop = $('#dialog-backdrop');
  $('#dialog-title').textContent = title;
  const bodyNode = $('#dialog-body');
  bodyNode.replaceChildren();
  if (typeof body === 'string') bodyNode.append(el('p', { text: body })); else bodyNode.append(body);
  const inputs = fields.map((f, i) => {
    const input = el('input', { value: f.value || '', id: i === 0 ? 'dialog-input' : `dialog-input-${f.name}`, dataset: { name: f.name } });
    bodyNode.append(el('label', {}, f.label, input));
    return input;
  });
  const row = $('#dialog-buttons');
  row.replaceChildren();
  backdrop.hidden = false;
  return new Promise((resolve) => {
    const finish = (button) => {
      backdrop.hidden = true;
      document.removeEventListener('keydown', onKey, true);
      const values = Object.fromEntries(inputs.map((i) => [i.dataset.name, i.value]));
      resolve({ button, values });
    };
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); finish(null); }
      if (e.key === 'Enter' && inputs.length) { e.preventDefault(); finish(buttons.find((b) => b.primary)?.id ?? buttons[0].id); }
    };
    document.addEventListener('keydown', onKey, true);
    for (const b of buttons) {
      row.append(el(`button#dialog-${b.id}`, { class: b.primary ? 'primary' : b.danger ? 'danger' : '', text: b.label, onclick: () => finish(b.id) }));
    }
    (inputs[0] || row.lastChild).focus();
  });
}

/// Yes/no confirmation; resolves true only for the confirming button.
export async function confirmDialog(title, body, yes = 'OK', danger = false) {
  const r = await dialog({ title, body, buttons: [{ id: 'cancel', label: 'Cancel' }, { id: 'ok', label: yes, primary: !danger, danger }] });
  return r.button === 'ok';
}

/// Debounces `fn` by `ms` milliseconds.
export function debounce(fn, ms) {
  let t = 0;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}

/// Reports an API failure in a toast.
export function failed(res, what) {
  const msg = res.data && res.data.error ? res.data.error : `HTTP ${res.status}`;
  const problems = res.data && res.data.problems ? `: ${res.data.problems.join('; ')}` : '';
  toast(`${what}: ${msg}${problems}`, 'error');
}
