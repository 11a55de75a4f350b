// A code box for a user's policy script (issue 31, docs/policies.md), shared by the tabs: a text area with the
// model's starter scripts (the engine's `starters` operation) to pick from, on/off and a name. The box edits the scenario's `<model>.scripts[0]`; the engine
// compiles it when the controls are checked (check_scenario), so a syntax error comes back for the field
// `<model>.scripts[0].source` as "line L, column C: …" and shows under the box, and nothing runs.

import { h } from './dom.js';
import { field } from './fields.js';
import { fullEngine, isFull } from './engine.js';

/**
 * @param {object} o
 * @param {string} o.model       the scenario section (e.g. 'placement'); element ids start with it
 * @param {{ model_call(scenario: object, op: string, args: null): any }} [o.wasm]  the engine, asked for the model's
 *   starter scripts (its `starters` operation; none if it fails)
 * @param {{ name: string, language: string, source: string }[]} [o.starters]  the starter scripts, if given instead
 * @param {string} o.hook        the hook's signature, shown in the empty box (e.g. 'fn rate(h, sl, …)')
 * @param {string} o.label       the box's label (which functions are required)
 * @param {string} o.spec        what the policy is called in the results (e.g. 'the point script:NAME')
 * @param {() => void} o.onChange  fires on every edit
 * @returns {{ el: HTMLElement, fill(scripts: object[]): void, read(): object[] }}
 */
export function createScriptBox({ model, wasm, starters = startersOf(wasm, model), hook, label, spec, onChange: notify }) {
  const at = (key) => `${model}.scripts[0].${key}`;
  // a script needs the full engine module (the page's first one has no script language, issue 30): the box's
  // first script loads it, the shell moves its workers to it ('packlab:full-engine'), and only then does the view
  // hear of the edit (the first module would answer that scripts are not in its build); if it cannot be loaded,
  // the view hears of it anyway and shows that answer
  const onChange = () => {
    if (source.value.trim() && !isFull()) toFull().then(notify);
    else notify();
  };
  const enabled = h('input', { type: 'checkbox', id: `${model}-script-enabled` });
  const name = h('input', { type: 'text', autocomplete: 'off', spellcheck: false, placeholder: 'mine' });
  const source = h('textarea', {
    class: 'script-source', rows: 12, spellcheck: false, autocomplete: 'off', wrap: 'off',
    placeholder: `${hook} { … }  (pick a starter above)`,
  });
  const pick = h('select', { id: `${model}-script-starter`, 'aria-label': 'starter script' },
    h('option', { value: '' }, 'start from…'),
    starters.map((s) => h('option', { value: s.name }, s.name)));
  let language = starters.length ? starters[0].language : 'rhai-1';
  let rest = []; // scripts after the first (from a link), kept as they are

  pick.addEventListener('change', () => {
    const s = starters.find((x) => x.name === pick.value);
    pick.value = '';
    if (!s) return;
    source.value = s.source;
    name.value = s.name;
    enabled.checked = true;
    onChange();
  });
  for (const i of [name, source]) i.addEventListener('input', onChange);
  enabled.addEventListener('change', onChange);
  // Tab indents inside the box instead of leaving it (Shift+Tab and Escape, then Tab, still leave)
  source.addEventListener('keydown', (e) => {
    if (e.key !== 'Tab' || e.shiftKey || source.dataset.escaped) return;
    e.preventDefault();
    source.setRangeText('  ', source.selectionStart, source.selectionEnd, 'end');
    onChange();
  });
  source.addEventListener('keyup', (e) => { if (e.key === 'Escape') source.dataset.escaped = '1'; });
  source.addEventListener('focus', () => { delete source.dataset.escaped; });

  const el = h('div', { class: 'script-box' },
    h('div', { class: 'script-head' },
      h('label', { class: 'field check', for: enabled.id }, enabled,
        h('span', { class: 'swatch fam-script', 'aria-hidden': 'true' }), h('span', {}, 'on the chart')),
      field(at('name'), 'name', name, `1–40 letters, digits, _ or -; ${spec}`),
      pick),
    field(at('source'), label, source,
      'compiled on every edit; errors show with their line and column'));

  /** Put the section's `scripts` list into the box (the first script; an empty box when there is none). */
  function fill(scripts) {
    const s = (scripts || [])[0];
    rest = (scripts || []).slice(1);
    source.value = s ? s.source : '';
    name.value = s ? s.name : '';
    enabled.checked = s ? !!s.enabled : true;
    if (s) language = s.language;
    if (s && s.source.trim() && !isFull()) toFull();
  }

  /** The section's `scripts` list from the box: none while the box is empty. */
  function read() {
    if (!source.value.trim()) return rest;
    return [{ name: name.value.trim() || 'mine', language, enabled: enabled.checked, source: source.value }, ...rest];
  }

  return { el, fill, read };
}

/** The engine's starter scripts of `model` (its `starters` operation); none when the engine has none or fails. */
/** Load the full engine module and tell the shell ('packlab:full-engine'); resolves either way (a failure is
 * logged: what runs next on the first module says that scripts are not in its build). */
function toFull() {
  return fullEngine().then(() => { window.dispatchEvent(new Event('packlab:full-engine')); },
    (e) => console.warn(`the full engine module could not be loaded: ${e && e.message}`));
}

function startersOf(wasm, model) {
  try { return wasm?.model_call({ model }, 'starters', null) ?? []; } catch { return []; }
}
