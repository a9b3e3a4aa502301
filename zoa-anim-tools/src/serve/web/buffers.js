// Unsaved definition texts, one buffer per file, shared by every page that
// edits files (the TOML editor, the graph editor, parameter renames): a `*`
// on each file with unsaved edits and in the page title, Save and Save All
// through the safe save (`/api/save`: the version the page opened; a file
// changed on disk meanwhile asks before anything is replaced).
import { api, withQuery } from './api.js';
import { dialog, failed, toast } from './ui.js';

const buffers = new Map(); // path → {text, saved, version, writable}
const listeners = new Set();
const BASE_TITLE = document.title;

function changed() {
  const dirty = dirtyPaths();
  document.title = dirty.length ? `* ${BASE_TITLE} (${dirty.length} unsaved)` : BASE_TITLE;
  document.body.dataset.unsaved = String(dirty.length);
  for (const f of listeners) f();
}

/// Calls `f` whenever a buffer's saved state changes.
export function onChange(f) { listeners.add(f); }

/// The buffer of `path`, read from the server when none is held. Resolves to null on failure.
export async function open(path) {
  if (buffers.has(path)) return buffers.get(path);
  const res = await api.get(withQuery('/api/file', { path }));
  if (!res.ok) { failed(res, `opening ${path}`); return null; }
  const b = { text: res.data.text, saved: res.data.text, version: res.data.version, writable: res.data.writable };
  buffers.set(path, b);
  return b;
}

/// Forgets the held text of `path` and reads it again from disk.
export async function reload(path) {
  buffers.delete(path);
  const b = await open(path);
  changed();
  return b;
}

/// Forgets `path` (deleted).
export function forget(path) { buffers.delete(path); changed(); }

/// The held buffer of `path` (undefined when none).
export function get(path) { return buffers.get(path); }

/// Holds `text` as the unsaved text of `path` (its buffer must be open,
/// or `version`/`saved` given for a file read elsewhere).
export function update(path, text, opened) {
  let b = buffers.get(path);
  if (!b && opened) { b = { ...opened }; buffers.set(path, b); }
  if (!b) return;
  const was = b.text !== b.saved;
  b.text = text;
  if (was !== (b.text !== b.saved)) changed(); else for (const f of listeners) f();
}

export function isDirty(path) {
  const b = buffers.get(path);
  return !!b && b.text !== b.saved;
}

export function dirtyPaths() {
  return [...buffers.entries()].filter(([, b]) => b.text !== b.saved).map(([p]) => p);
}

/// Saves `path` (its buffer's text). Resolves to the save's report, or null
/// when it did not happen (refused, or the user chose not to).
export async function save(path, overwriteVersion) {
  const b = buffers.get(path);
  if (!b || !b.writable) return null;
  const text = b.text;
  const version = overwriteVersion !== undefined ? overwriteVersion : b.version;
  const res = await api.post('/api/save', { path, text, version });
  if (res.ok) {
    b.version = res.data.version;
    b.saved = text;
    changed();
    return res.data;
  }
  if (res.status === 409 && res.data.stale) {
    const gone = res.data.disk_version === null;
    const r = await dialog({
      title: gone ? 'The file was deleted on disk' : 'The file changed on disk',
      body: gone ? `${path} was deleted since you opened it.` :
        `${path} was changed by something else since you opened it. Saving now would replace those changes.`,
      buttons: [{ id: 'cancel', label: 'Cancel' }, ...(gone ? [] : [{ id: 'reload', label: 'Reload from disk (lose my edits)' }]),
        { id: 'overwrite', label: gone ? 'Save it again' : 'Overwrite with my version', danger: true }],
    });
    if (r.button === 'reload') { await reload(path); return { reloaded: true }; }
    if (r.button === 'overwrite') return save(path, res.data.disk_version);
    return null;
  }
  failed(res, `saving ${path}`);
  return null;
}

/// Saves every buffer with unsaved edits, one after another.
export async function saveAll() {
  const paths = dirtyPaths();
  let saved = 0;
  for (const p of paths) if (await save(p)) saved++;
  if (paths.length) toast(`Saved ${saved} of ${paths.length} file(s)`);
  return saved === paths.length;
}

// Ctrl+Shift+S saves everything, wherever the focus is.
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.shiftKey && (e.key === 'S' || e.key === 's')) {
    e.preventDefault();
    saveAll();
  }
});
