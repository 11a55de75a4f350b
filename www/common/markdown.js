// A small, safe reader of the Markdown the findings files use (results/<seed>/tables.md): pipe tables (GFM:
// a header row, a delimiter row of dashes with optional ':' for alignment, body rows; leading and trailing
// pipes optional; `\|` is a literal '|' inside a cell), paragraphs of free text between them, headings
// (`#`…), bullet and numbered lists (`- `, `* `, `1. `; an indented line continues the item), and, inside text
// and cells, `code` spans, **bold** and *emphasis*. Anything else is kept as plain text. The
// parser is pure (no DOM: node tests import it); the renderer builds elements with textContent only, so no
// text of the file ever becomes markup (www/common/dom.js).

import { h, scrollTable } from './dom.js';

/**
 * Splits one table row into its cells: unescaped '|' separate cells, `\|` is a literal '|', one leading
 * and one trailing pipe are dropped, cells are trimmed.
 * @param {string} line
 * @returns {string[]}
 */
export function splitRow(line) {
  let s = line.trim();
  const cells = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && s[i + 1] === '|') {
      cur += '|';
      i += 1;
    } else if (c === '|') {
      cells.push(cur);
      cur = '';
    } else cur += c;
  }
  cells.push(cur);
  // a leading pipe leaves an empty first cell, a trailing one an empty last cell
  if (s.startsWith('|')) cells.shift();
  if (/(^|[^\\])\|$/.test(s) && cells.length) cells.pop();
  return cells.map((x) => x.trim());
}

/** Whether `line` is a table delimiter row (`|---|:--:|--:|`), and the alignment of each column. */
function delimiter(line) {
  if (!line.includes('-')) return null;
  const cells = splitRow(line);
  if (!cells.length || !cells.every((c) => /^:?-+:?$/.test(c))) return null;
  return cells.map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : null));
}

/** Whether `line` can be a table row (holds an unescaped pipe). */
const hasPipe = (line) => /(^|[^\\])\|/.test(line);

/**
 * The blocks of a Markdown text, in order:
 * `{ kind: 'table', header: string[], align: (string|null)[], rows: string[][] }` (every body row padded or
 * cut to the header's width, as GFM does), `{ kind: 'heading', level, text }`, `{ kind: 'paragraph', text }`
 * (consecutive non-blank lines joined by a space), `{ kind: 'list', ordered, items: string[] }`. Cells and text
 * are raw (inline marks not yet read).
 * @param {string} text
 */
export function parseMarkdown(text) {
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  let para = [];
  let list = null; // the list being read: { kind: 'list', ordered, items }
  const flush = () => {
    if (para.length) blocks.push({ kind: 'paragraph', text: para.join(' ') });
    para = [];
    if (list) blocks.push(list);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const align = i + 1 < lines.length && hasPipe(line) ? delimiter(lines[i + 1]) : null;
    if (align && splitRow(line).length === align.length) {
      flush();
      const header = splitRow(line);
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].trim() && hasPipe(lines[i])) {
        const r = splitRow(lines[i]);
        rows.push(header.map((_, k) => r[k] ?? ''));
        i += 1;
      }
      i -= 1;
      blocks.push({ kind: 'table', header, align, rows });
      continue;
    }
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const item = /^\s{0,3}(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/.exec(line);
    if (m) {
      flush();
      blocks.push({ kind: 'heading', level: m[1].length, text: m[2] });
    } else if (!line.trim()) flush();
    else if (item && !(item[1] === '*' && /^\*[^*\s]/.test(line.trim()) && !/^\*\s/.test(line.trim()))) {
      const ordered = item[2] !== undefined;
      if (!list || list.ordered !== ordered) {
        flush();
        list = { kind: 'list', ordered, items: [] };
      }
      list.items.push(item[3].trim());
    } else if (list && /^\s+\S/.test(line)) list.items[list.items.length - 1] += ` ${line.trim()}`;
    else {
      if (list) flush();
      para.push(line.trim());
    }
  }
  flush();
  return blocks;
}

// *emphasis* (not `* ` list-like, not 2·*x*·3 inside arithmetic: it opens after a space, start or bracket) and
// _emphasis_ (not inside a word such as snake_case_names)
const EM = /((?<![\w*])\*(?=[^\s*])[^*]*[^\s*]\*(?![\w*])|(?<![\w*])\*[^\s*]\*(?![\w*])|(?<!\w)_(?=\S)[^_]*\S_(?!\w))/;
const EM_WHOLE = new RegExp(`^${EM.source.slice(1, -1)}$`);

/**
 * Inline runs of a text: `[{ kind: 'text' | 'code' | 'strong' | 'em', text }]` (`code` spans first, then
 * **bold**, then *emphasis* or _emphasis_ outside them: a mark that opens before a non-space and closes after
 * one, not inside a word for `_`; an unclosed mark is plain text).
 * @param {string} text
 */
export function inlineRuns(text) {
  const out = [];
  const push = (kind, t) => { if (t) out.push({ kind, text: t }); };
  const parts = String(text).split(/(`[^`]+`)/);
  for (const part of parts) {
    if (/^`[^`]+`$/.test(part)) {
      push('code', part.slice(1, -1));
      continue;
    }
    const bits = part.split(/(\*\*[^*]+\*\*)/);
    for (const b of bits) {
      if (/^\*\*[^*]+\*\*$/.test(b)) {
        push('strong', b.slice(2, -2));
        continue;
      }
      for (const e of b.split(EM)) {
        if (EM_WHOLE.test(e)) push('em', e.slice(1, -1));
        else push('text', e);
      }
    }
  }
  return out;
}

/** Nodes of a text's inline runs (text nodes, <code>, <strong>, <em>). */
export function renderInline(text) {
  return inlineRuns(text).map((r) => (r.kind === 'text' ? r.text : h(r.kind, {}, r.text)));
}

/**
 * The DOM element of one block of parseMarkdown: a table as `<table class="results">` in a scrolling wrapper
 * (numeric-aligned columns get class `num`), a paragraph as `<p>`, a heading one level below `headingBase`
 * (default 3: `#` → `<h3>`), a list as `<ul>`/`<ol>`. Text only through text nodes.
 * @param {object} b a block of parseMarkdown
 * @param {{ headingBase?: number, tableClass?: string }} [opts]
 * @returns {HTMLElement}
 */
export function renderBlock(b, { headingBase = 3, tableClass = 'results' } = {}) {
  if (b.kind === 'heading') return h(`h${Math.min(6, headingBase + b.level - 1)}`, {}, renderInline(b.text));
  if (b.kind === 'paragraph') return h('p', {}, renderInline(b.text));
  if (b.kind === 'list') return h(b.ordered ? 'ol' : 'ul', {}, b.items.map((t) => h('li', {}, renderInline(t))));
  const cls = (k) => (b.align[k] === 'right' ? 'num' : b.align[k] === 'center' ? 'center' : null);
  return scrollTable('Findings table', h('table', { class: tableClass },
    h('thead', {}, h('tr', {}, b.header.map((c, k) => h('th', { scope: 'col', class: cls(k) }, renderInline(c))))),
    h('tbody', {}, b.rows.map((r) => h('tr', {}, r.map((c, k) => h('td', { class: cls(k) }, renderInline(c))))))));
}

/**
 * DOM elements of a Markdown text (parseMarkdown), each block by {@link renderBlock}.
 * @param {string} text
 * @param {{ headingBase?: number, tableClass?: string }} [opts]
 * @returns {HTMLElement[]}
 */
export function renderMarkdown(text, opts = {}) {
  return parseMarkdown(text).map((b) => renderBlock(b, opts));
}
