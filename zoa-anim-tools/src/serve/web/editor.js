// A TOML editor: a textarea over two <pre> layers. The bottom layer shows the
// syntax colours, the middle one the diagnostics (wavy underlines and the
// message after the line); the textarea on top is transparent but for the
// caret and selection, so editing is the browser's own. The gutter numbers
// lines and marks the ones with problems.
import { el } from './ui.js';

const esc = (s) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);

const TOKEN = new RegExp([
  '(#[^\\n]*)',                                               // 1 comment
  '("""[\\s\\S]*?(?:"""|$)|\'\'\'[\\s\\S]*?(?:\'\'\'|$))',   // 2 multi-line strings
  '("(?:[^"\\\\\\n]|\\\\.)*"?|\'[^\'\\n]*\'?)',              // 3 strings
  '(\\b(?:true|false)\\b)',                                   // 4 booleans
  '([+-]?(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|inf|nan|\\d[\\d_]*(?:\\.[\\d_]+)?(?:[eE][+-]?\\d+)?)(?![\\w-]))', // 5 numbers
  '([A-Za-z0-9_-]+(?=\\s*(?:=|\\.[A-Za-z0-9_"\'-])))',       // 6 keys
  '([=,{}\\[\\].])',                                          // 7 punctuation
].join('|'), 'gm');

/// TOML text as highlighted HTML (same characters, wrapped in spans).
export function highlight(text) {
  let out = '';
  let last = 0;
  // Table headers are whole lines starting with `[`.
  const lines = text.split('\n');
  let offset = 0;
  const headers = [];
  for (const line of lines) {
    const m = line.match(/^(\s*)(\[\[?[^\]#\n]*\]\]?)/);
    if (m) headers.push([offset + m[1].length, offset + m[1].length + m[2].length]);
    offset += line.length + 1;
  }
  let h = 0;
  TOKEN.lastIndex = 0;
  let m;
  while ((m = TOKEN.exec(text))) {
    if (m[0] === '') { TOKEN.lastIndex++; continue; }
    while (h < headers.length && headers[h][1] <= m.index) h++;
    if (h < headers.length && m.index >= headers[h][0] && m.index < headers[h][1]) {
      const [a, b] = headers[h];
      if (a >= last) { out += esc(text.slice(last, a)) + `<span class="t">${esc(text.slice(a, b))}</span>`; last = b; }
      TOKEN.lastIndex = Math.max(TOKEN.lastIndex, b);
      h++;
      continue;
    }
    if (m.index < last) continue;
    const cls = m[1] ? 'c' : m[2] || m[3] ? 's' : m[4] ? 'b' : m[5] ? 'n' : m[6] ? 'k' : 'p';
    out += esc(text.slice(last, m.index)) + `<span class="${cls}">${esc(m[0])}</span>`;
    last = m.index + m[0].length;
  }
  return out + esc(text.slice(last));
}

const RANK = { error: 0, warning: 1, info: 2 };

export class Editor {
  constructor(host, { onInput, onSave } = {}) {
    this.gutter = el('div.gutter');
    this.hl = el('pre.hl', { 'aria-hidden': 'true' });
    this.marks = el('pre.marks', { 'aria-hidden': 'true' });
    this.area = el('textarea#editor-text', { spellcheck: 'false', autocomplete: 'off', wrap: 'off', 'aria-label': 'Definition text' });
    this.root = el('div.editor', {}, this.gutter, el('div.code', {}, this.hl, this.marks, this.area));
    host.replaceChildren(this.root);
    this.diags = [];
    this.area.addEventListener('input', () => { this.render(); onInput && onInput(this.text); });
    this.area.addEventListener('scroll', () => this.sync());
    this.area.addEventListener('keydown', (e) => {
      if (e.key === 'Tab' && !e.ctrlKey && !e.altKey) {
        e.preventDefault();
        // insertText keeps the browser's undo history (setRangeText would not).
        if (!document.execCommand('insertText', false, '  ')) {
          this.area.setRangeText('  ', this.area.selectionStart, this.area.selectionEnd, 'end');
          this.area.dispatchEvent(new Event('input'));
        }
      }
      if ((e.ctrlKey || e.metaKey) && e.key === 's') { e.preventDefault(); onSave && onSave(); }
    });
    this.render();
  }

  get text() { return this.area.value; }

  setText(text) {
    this.area.value = text;
    this.diags = [];
    this.area.scrollTop = 0;
    this.render();
  }

  setReadOnly(ro) { this.area.readOnly = ro; }

  /// Diagnostics of this file: {severity, line, column, end_line, end_column, message, code}.
  setDiagnostics(list) {
    this.diags = list.slice().sort((a, b) => RANK[a.severity] - RANK[b.severity]);
    this.renderMarks();
  }

  /// Moves the caret to a line and column (1-based) and scrolls there.
  reveal(line, column = 1) {
    const lines = this.text.split('\n');
    let pos = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) pos += lines[i].length + 1;
    pos += Math.min(codeUnits(lines[line - 1] || '', column - 1), (lines[line - 1] || '').length);
    this.area.focus();
    this.area.setSelectionRange(pos, pos);
    const row = parseFloat(getComputedStyle(this.root).lineHeight) || 19;
    this.area.scrollTop = Math.max(0, (line - 4) * row);
    this.sync();
  }

  render() {
    const text = this.text;
    this.hl.innerHTML = highlight(text) + '\n\n\n\n';
    this.renderMarks();
  }

  renderMarks() {
    const lines = this.text.split('\n');
    const per = new Map();
    for (const d of this.diags) {
      const last = Math.min(Math.max(d.end_line || d.line, d.line), lines.length);
      for (let l = d.line; l <= last; l++) {
        if (!per.has(l)) per.set(l, []);
        per.get(l).push(d);
      }
    }
    let html = '';
    const gutter = [];
    lines.forEach((line, i) => {
      const n = i + 1;
      const ds = per.get(n) || [];
      const chars = Array.from(line);
      const cls = new Array(chars.length + 1).fill(null);
      for (const d of ds.slice().reverse()) {
        const from = d.line === n ? d.column - 1 : 0;
        let to = (d.end_line || d.line) === n ? (d.end_column || d.column) - 1 : chars.length;
        if (to <= from) to = from + 1;
        for (let c = Math.max(0, from); c < Math.min(to, chars.length + 1); c++) cls[c] = d.severity;
      }
      let row = '';
      let open = null;
      for (let c = 0; c <= chars.length; c++) {
        const want = cls[c];
        if (want !== open) { if (open) row += '</span>'; if (want) row += `<span class="m-${want}">`; open = want; }
        row += c < chars.length ? esc(chars[c]) : (want ? ' ' : '');
      }
      if (open) row += '</span>';
      const first = ds.find((d) => d.line === n) || ds[0];
      if (first) row += `<span class="lens ${first.severity}" data-line="${n}">${esc(`${first.code} ${first.message}`)}</span>`;
      html += row + '\n';
      const sev = ds.length ? ds[0].severity : '';
      const title = ds.map((d) => `${d.severity} ${d.code}: ${d.message}`).join('\n');
      gutter.push(`<div class="ln ${sev}" data-line="${n}"${title ? ` title="${esc(title).replace(/"/g, '&quot;')}"` : ''}>${n}</div>`);
    });
    this.marks.innerHTML = html + '\n\n\n';
    this.gutter.innerHTML = gutter.join('') + '<div class="ln"></div>'.repeat(4);
    this.sync();
  }

  sync() {
    const { scrollTop, scrollLeft } = this.area;
    this.hl.scrollTop = this.marks.scrollTop = this.gutter.scrollTop = scrollTop;
    this.hl.scrollLeft = this.marks.scrollLeft = scrollLeft;
  }
}

/// UTF-16 length of the first `n` code points of `s`.
function codeUnits(s, n) {
  let units = 0;
  let i = 0;
  for (const ch of s) { if (i++ >= n) break; units += ch.length; }
  return units;
}
