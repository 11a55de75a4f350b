// Tiny DOM helpers. Text always goes through textContent / attributes, never innerHTML, so no string a user
// controls (file names, link contents, trace ids) can become markup.

/**
 * h('div', { class: 'x', onclick: fn, dataset: { a: 1 } }, 'text', child, [more])
 * Strings and numbers become text nodes; null/undefined/false children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else if (k in el && k !== 'list' && k !== 'form') el[k] = v;
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replace all children of `el`. */
export function setChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** Format a number for display: up to 4 significant digits, scientific for tiny values, "0" for zero. */
export function fmt(v, digits = 4) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e6) return v.toExponential(Math.max(0, digits - 2)).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(digits)));
}

/** A fraction as a percentage with `digits` decimals ("12.5%"); "–" when not a number. */
export const pct = (v, digits = 1) => (Number.isFinite(v) ? `${(v * 100).toFixed(digits)}%` : '–');

/** A count rounded, with thousands separators ("1,450"); "–" when not a number. */
export const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');

/** Debounce `fn` by `ms`. */
export function debounce(fn, ms) {
  let t = null;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}

/**
 * Coalesce redraws during a run: `schedule()` runs `fn` at the next animation frame, at most once per frame
 * and at least `minMs` after its previous call, however many progress messages arrive meanwhile; so input
 * (the Cancel button) is never queued behind a backlog of chart redraws. Callers check in `fn` whether the
 * drawing is still wanted (a run may have ended meanwhile).
 */
export function frameThrottle(fn, minMs = 100) {
  let pending = false; // a call is scheduled
  let last = -Infinity;
  const run = () => {
    pending = false;
    last = performance.now();
    fn();
  };
  const schedule = () => {
    if (pending) return;
    const wait = last + minMs - performance.now();
    pending = true;
    if (wait > 0) setTimeout(() => requestAnimationFrame(run), wait);
    else requestAnimationFrame(run);
  };
  return schedule;
}

/** A download of `data` (string or Blob) as `filename`. */
export function download(filename, data, type = 'application/octet-stream') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, style: { display: 'none' } });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Size a canvas for crisp drawing: CSS size from its box, backing store times devicePixelRatio. */
export function fitCanvas(canvas, cssHeight) {
  const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  const cssWidth = Math.max(200, Math.round(canvas.parentElement.clientWidth));
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  canvas.width = Math.round(cssWidth * dpr);
  canvas.height = Math.round(cssHeight * dpr);
  return dpr;
}

/** A model view's "Data" card (`#<prefix>-data`): what the run reads and where it comes from. */
export function dataCard(prefix, ...children) {
  return h('section', { class: 'card data-note', id: `${prefix}-data`, 'aria-labelledby': `${prefix}-data-title` },
    h('h2', { id: `${prefix}-data-title` }, 'Data'), ...children);
}

/**
 * A table in a box that scrolls sideways on narrow screens. The box is a labelled region that takes focus, so
 * the keyboard can scroll it too (axe-core's scrollable-region-focusable).
 */
export function scrollTable(label, table) {
  return h('div', { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': label }, table);
}
