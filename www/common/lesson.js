// "What this tab is about": the lesson panel above a model's view. Its content is data (www/<id>/lesson.js):
// the problem in a sentence and a picture, what is traded against what, the paper and the spec section, the
// glossary of the tab's terms, and 2–4 "try this" steps. A step sets some fields of the view (by their ids,
// `f-<model>-<name>`, dispatching input and change as a user's edit would), waits for the view's run to end
// and then checks its own claim on the view's table (`check(root)`), showing whether it holds on this run —
// so a step cannot silently teach a wrong lesson (tests/e2e/teaching.test.mjs clicks every step).

import { h, $$ } from './dom.js';
import { gloss, glossText } from './glossary.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An SVG element: s('rect', { x: 0, … }, children…); strings become text nodes. For the lessons' pictures.
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A picture: an `<svg>` of the given size, scaled to its box, with a title for screen readers. */
export function picture(width, height, title, ...children) {
  return s('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': title, class: 'lesson-svg' },
    s('title', {}, title), ...children);
}

/** The rows of a view's results table as their data attributes (`sel`: the tbody's rows). */
export function rowsOf(root, sel) {
  return $$(sel, root).map((r) => ({ ...r.dataset }));
}

/** Set field `id` of `root` to `value` (a checkbox takes a boolean) as a user's edit: input, then change. */
export function setField(root, id, value) {
  const el = root.querySelector(`#${CSS.escape(id)}`);
  if (!el) throw new Error(`lesson: no field #${id}`);
  if (el.type === 'checkbox') el.checked = !!value;
  else el.value = String(value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Resolves once the view's run card `card` has finished a run started after the edit: waits for the view's
 * debounce (it starts its run ≤ 300 ms after the last edit), then for the card's state to be "done".
 */
function runEnded(card) {
  return new Promise((resolve) => {
    setTimeout(() => {
      if (card.dataset.state === 'done') { resolve(); return; }
      const obs = new MutationObserver(() => {
        if (card.dataset.state === 'done') { obs.disconnect(); resolve(); }
      });
      obs.observe(card, { attributes: true, attributeFilter: ['data-state'] });
    }, 600);
  });
}

/** The paper's page: a search for its exact title (the seeds are published papers). */
const paperHref = (title) => `https://scholar.google.com/scholar?q=${encodeURIComponent(`"${title}"`)}`;

/**
 * Build the lesson panel of `lesson` for the view mounted in `root` (its first child). On screens ≤ 640 px the
 * panel starts folded so the chart comes first. Returns the panel element.
 * @param {{ root: HTMLElement, lesson: object }} p
 */
export function mountLesson({ root, lesson: L }) {
  const id = `lesson-${L.model}`;
  const steps = L.steps.map((st, i) => {
    const status = h('p', { class: 'lesson-status', role: 'status', 'aria-live': 'polite' });
    const li = h('li', { class: 'lesson-step', id: `${id}-step-${i + 1}`, dataset: { check: 'idle' } });
    const btn = h('button', {
      type: 'button', class: 'btn lesson-try', onclick: async () => {
        li.dataset.check = 'running';
        status.textContent = 'Running…';
        const card = root.querySelector(L.card);
        for (const [f, v] of Object.entries({ ...L.base, ...st.set })) setField(root, f, v);
        await runEnded(card);
        let res;
        try {
          res = st.check(root);
        } catch (e) {
          res = { ok: false, detail: `the check could not read the result (${e.message})` };
        }
        li.dataset.check = res.ok ? 'holds' : 'fails';
        li.dataset.detail = res.detail;
        status.textContent = res.ok ? `Seen on this run: ${res.detail}.` : `Not seen on this run: ${res.detail}. (The steps were checked on the default scenario.)`;
      },
    }, `Try it: ${st.title}`);
    li.append(btn, h('p', {}, glossText(st.look)), status);
    return li;
  });
  const terms = h('ul', { class: 'lesson-terms', 'aria-label': 'glossary of this tab' }, L.terms.map((t) => h('li', {}, gloss(t))));
  const panel = h('details', { class: 'card lesson', id, open: !window.matchMedia('(max-width: 640px)').matches },
    h('summary', {}, h('h2', { class: 'lesson-title' }, `What this tab is about: ${L.headline}`)),
    h('div', { class: 'lesson-body' },
      h('div', { class: 'lesson-problem' },
        h('p', { class: 'lesson-lead' }, glossText(L.problem)),
        h('p', { class: 'lesson-trade' }, h('strong', {}, 'The trade-off: '), glossText(L.tradeoff)),
        h('p', { class: 'fine' }, 'From seed ', L.paper.seed, ': ',
          h('a', { href: paperHref(L.paper.title), rel: 'noopener', target: '_blank' }, `“${L.paper.title}”`),
          '. Spec: ', h('code', {}, L.spec), ', explained in ', h('code', {}, L.doc), '. ',
          h('a', { href: `./findings.html?paper=${L.paper.seed}`, id: `${id}-findings` }, 'What packlab reproduces of this paper'), '.'),
        h('p', { class: 'fine' }, 'Terms (hover, tap or focus for their meaning): '), terms),
      h('figure', { class: 'lesson-figure' }, L.picture(), h('figcaption', { class: 'fine' }, L.caption)),
      h('div', { class: 'lesson-steps' },
        h('h3', {}, 'Try this'),
        h('ol', {}, steps))));
  root.prepend(panel);
  return panel;
}
