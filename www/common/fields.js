// Form fields and their validation, shared by the model views' controls. A field's id and `data-field` are
// the engine's dotted field path (placement.capacity, admission.params.sla, seed, ...), so the engine's
// FieldErrors and the page's own checks land next to the input they are about.

import { h, $$ } from './dom.js';
import { errorText } from './engine.js';
import { gloss } from './glossary.js';

/** The element id of the field for a dotted path: `f-placement-capacity`, `f-admission-params-sla`, … */
export function fieldId(path) {
  return `f-${path.replace(/[^a-zA-Z0-9_-]+/g, '-')}`;
}

/**
 * A labelled field with its message slot (`#<id>-error`). `path` is the engine's dotted field path; `scope` (a
 * model id) keeps the element id of an envelope field such as `seed` unique while every tab's view is mounted
 * (`f-admission-seed`); the field's `data-field` stays the path. The label is plain words first, then the
 * glossary's symbols as `{key}` marks ('target overflow probability {ρ}'): the words label the input, each
 * symbol follows them as a glossary term (www/common/glossary.js) that explains itself on hover, focus or tap.
 */
export function field(path, label, input, help, scope = null) {
  input.id = fieldId(scope ? `${scope}.${path}` : path);
  input.dataset.field = path;
  const msg = h('div', { class: 'field-error', id: `${input.id}-error`, role: 'alert', 'aria-live': 'polite' });
  input.setAttribute('aria-describedby', msg.id);
  const keys = [...label.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);
  if (!keys.length) {
    return h('label', { class: 'field', for: input.id, title: help || '' },
      h('span', { class: 'label' }, label), input, msg);
  }
  // a term is a button, which a <label> may not hold: the words are the label, the terms sit beside it
  const words = label.replace(/\{[^{}]+\}/g, '').replace(/\s+/g, ' ').trim();
  return h('div', { class: 'field', title: help || '' },
    h('span', { class: 'label' }, h('label', { for: input.id }, words), keys.map((k) => [' ', gloss(k)])), input, msg);
}

/** The engine's default value at the dotted scenario path `path` of `defaults` (the engine's default scenario),
 * as the placeholder of an empty field ('' when there is none). */
export function defaultAt(defaults, path) {
  const v = path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), defaults);
  return v == null ? '' : String(v);
}

/** A text input for numbers (text, not type=number, so what the user typed can be reported back). */
export function num(attrs) {
  return h('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: false, ...attrs });
}

/**
 * The number typed into `input` (NaN when it is not one). Pushes `{ field: path, message }` onto `errors` when
 * it is empty or not a finite number, or, with `integer`, not a whole number ≥ 0.
 */
export function readNumber(input, path, errors, { integer = false } = {}) {
  const t = input.value.trim();
  const v = t === '' ? NaN : Number(t);
  if (!Number.isFinite(v)) errors.push({ field: path, message: t === '' ? 'enter a number' : `'${t}' is not a number` });
  else if (integer && !(Number.isSafeInteger(v) && v >= 0)) errors.push({ field: path, message: 'a whole number ≥ 0' });
  return v;
}

/**
 * The start of a controls' `read(base)`: `s`, a copy of `base` for model `model` (`p`: its section), the
 * page-side `errors`, and readers that keep the old value when the input holds no valid number (the error goes
 * to `errors`): `value(input, path, old, { integer? })`, `number(input, key, opts)` for the section's field
 * `key`, `readSeed(input)` for the scenario's seed.
 */
export function readOnto(base, model) {
  const errors = [];
  const s = structuredClone(base);
  s.model = model;
  const value = (input, path, old, opts = {}) => {
    const v = readNumber(input, path, errors, opts);
    return (opts.integer ? Number.isSafeInteger(v) && v >= 0 : Number.isFinite(v)) ? v : old;
  };
  return {
    s,
    p: s[model],
    errors,
    value,
    number: (input, key, opts) => value(input, `${model}.${key}`, s[model][key], opts),
    readSeed: (input) => { s.seed = value(input, 'seed', s.seed, { integer: true }); },
  };
}

/**
 * Show `[{ field, message }]` next to their fields inside `root` (the first message per field wins) and mark
 * the inputs aria-invalid; clears the previous messages first. `placeAt(path)` maps an error's field to the
 * field that shows it (null: none). Returns the errors that have no field here.
 */
export function showFieldErrors(root, errors, placeAt = (path) => path) {
  for (const m of $$('.field-error', root)) m.textContent = '';
  for (const i of $$('[data-field]', root)) i.removeAttribute('aria-invalid');
  const unplaced = [];
  for (const e of errors) {
    const path = placeAt(String(e.field || ''));
    const input = path === null ? null : root.querySelector(`[data-field="${CSS.escape(path)}"]`);
    const msg = input && root.querySelector(`#${CSS.escape(input.id)}-error`);
    if (msg) {
      if (!msg.textContent) msg.textContent = e.message;
      input.setAttribute('aria-invalid', 'true');
    } else unplaced.push(e);
  }
  return unplaced;
}

/**
 * The words a user sees on the field of the dotted `path` inside `root`, in quotes (“machine capacity, in VM
 * units”), or null when no control there shows that field (then the path is the only name).
 */
export function fieldLabel(root, path) {
  const input = path ? root.querySelector(`[data-field="${CSS.escape(path)}"]`) : null;
  if (!input || !input.id) return null;
  const label = root.querySelector(`label[for="${CSS.escape(input.id)}"]`);
  const words = label && (label.querySelector('.label') || label).textContent.replace(/\s+/g, ' ').trim();
  return words ? `“${words}”` : null;
}

/**
 * Read the controls onto `base`, check the result with the engine and show every problem next to its field
 * (the page's own checks first, then the engine's for other fields). Returns the engine's checked scenario
 * when it is valid; otherwise null, after `setStatus('error' | 'invalid', text)`.
 */
export function checkControls({ wasm, controls, base, setStatus }) {
  const { scenario: read, errors } = controls.read(base);
  let all = errors;
  let checked = null;
  try {
    checked = wasm.check_scenario(read);
    all = errors.concat(checked.errors.filter((e) => !errors.some((j) => j.field === e.field)));
  } catch (e) {
    all = errors.concat([{ field: e.field || '', message: errorText(e) }]);
  }
  const unplaced = controls.showErrors(all);
  if (unplaced.length) setStatus('error', `This scenario cannot run: ${unplaced.map(errorText).join('; ')}. Change these settings (or reload the page without the link for the defaults).`);
  if (all.length) {
    if (!unplaced.length) setStatus('invalid', 'Fix the highlighted fields to run.');
    return null;
  }
  return checked.scenario;
}
