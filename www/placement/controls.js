// The placement model's controls: a form that mirrors `PlacementParams` (+ seed), reads into a scenario
// object, and shows validation messages next to the fields. Field ids are the engine's dotted field paths
// (placement.capacity, placement.families[2].grid, seed, ...), so the engine's FieldErrors land in place.

import { h, setChildren } from '../common/dom.js';
import { defaultAt, fieldId, field, num, readNumber, showFieldErrors } from '../common/fields.js';
import { createScriptBox } from '../common/script-box.js';

const FAMILY_INFO = {
  gpa: { label: 'GPA', knob: 'ρ', hint: 'SLO ρ in (0, 1): fits if μ′ + z₁₋ρ·σ′ ≤ c' },
  'gpa-cal': { label: 'GPA calibrated', knob: 'target ρ', hint: 'target ρ in (0, 1): GPA with the knob ρ′ whose packing overflows at most ρ on the held-out half of the observations O' },
  av: { label: 'av', knob: 'f', hint: 'factor f > 0: size f·μ' },
  perc: { label: 'perc', knob: 'p', hint: 'percentile p in [0, 100] of the observations' },
  cantelli: { label: 'Cantelli', knob: 'b', hint: 'b ≥ 0: size μ + b·σ' },
  max: { label: 'max', knob: '', hint: 'the largest observation (perc 100)' },
};
export const FAMILY_ORDER = ['gpa', 'gpa-cal', 'av', 'perc', 'cantelli', 'max'];

function formatGrid(grid) {
  return (grid || []).map((v) => String(v)).join(', ');
}

/**
 * Build the controls. `onChange()` fires (debounced by the caller) on every edit.
 * Returns { el, fill(scenario), read(base) -> { scenario, errors }, showErrors(errors), setFit(spec) }.
 */
export function createControls({ onChange, wasm }) {
  const D = wasm.default_scenario();
  const capacity = num({ placeholder: defaultAt(D, 'placement.capacity') });
  const rule = h('select', {}, h('option', { value: 'bf' }, 'Best Fit'), h('option', { value: 'ff' }, 'First Fit'));
  const rebalance = h('input', { type: 'checkbox' });
  const clairvoyance = num({ placeholder: defaultAt(D, 'placement.clairvoyance') });
  const mode = h('select', {}, h('option', { value: 'aligned', title: 'column t of every VM is the same real interval' }, 'aligned'),
    h('option', { value: 'resampled', title: 'R draws per VM from its empirical distribution, seeded' }, 'resampled'));
  const realisations = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'placement.realisations') });
  const seed = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'seed') });
  const target = num({ placeholder: defaultAt(D, 'placement.target_rho') });
  const fit = h('input', { type: 'text', autocomplete: 'off', spellcheck: false, placeholder: defaultAt(D, 'placement.fit') });

  const familyRows = h('div', { class: 'families' });
  const scriptBox = createScriptBox({
    model: 'placement', wasm, onChange: () => onChange(),
    hook: 'fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k)',
    label: 'script (Rhai): fits(…) required, score(…) and size(…) optional',
    spec: 'the point is script:NAME',
  });
  let families = []; // [{ family, enabled: checkbox, grid: input }]

  const el = h('section', { class: 'card', id: 'controls-card', 'aria-labelledby': 'controls-title' },
    h('h2', { id: 'controls-title' }, 'Scenario'),
    h('div', { class: 'grid2' },
      field('placement.capacity', 'machine capacity, in VM units {c}', capacity, 'machine capacity; 1 = one VM\'s full CPU'),
      field('placement.target_rho', 'target overflow probability {ρ} {SLO}', target, 'overflow probability target, in (0, 1); drawn as a reference line'),
      field('placement.rule', 'packing rule', rule),
      field('placement.clairvoyance', 'share of the samples the fit sees {ℓ}', clairvoyance, 'statistics from the first ℓ·R samples (O), quality on the rest (E); ℓ = 1: O = E = all'),
      field('placement.mode', 'realisations', mode),
      field('placement.realisations', 'realisations per VM {R}', realisations, 'realisations per VM in resampled mode'),
      field('seed', 'seed', seed, 'seed of the resampling streams (integer, 0 … 2⁵³−1)', 'placement'),
      h('label', { class: 'field check', for: fieldId('placement.rebalance') },
        Object.assign(rebalance, { id: fieldId('placement.rebalance') }), h('span', {}, 'rebalance (Alg. 1)'))),
    h('h3', {}, 'Fit families on the chart'),
    familyRows,
    h('h3', {}, 'Your policy'),
    scriptBox.el,
    h('h3', {}, 'Teaching view'),
    field('placement.fit', 'packing shown (click a point)', fit, 'a fit spec: gpa:RHO, gpa-cal:RHO, av:F, perc:P, cantelli:B or max'));
  rebalance.dataset.field = 'placement.rebalance';

  const fire = () => onChange();
  for (const i of [capacity, clairvoyance, realisations, seed, target, fit]) i.addEventListener('input', fire);
  for (const i of [rule, mode, rebalance]) i.addEventListener('change', fire);
  mode.addEventListener('change', () => { realisations.disabled = mode.value !== 'resampled'; });

  function buildFamilies(list) {
    families = list.map((f, k) => {
      const info = FAMILY_INFO[f.family] || { label: f.family, knob: '', hint: '' };
      const enabled = h('input', { type: 'checkbox', id: fieldId(`placement.families[${k}].enabled`), checked: !!f.enabled });
      enabled.dataset.field = `placement.families[${k}].enabled`;
      enabled.addEventListener('change', fire);
      const swatch = h('span', { class: `swatch fam-${f.family}`, 'aria-hidden': 'true' });
      let grid = null;
      let gridField;
      if (f.family === 'max') {
        gridField = h('div', { class: 'fine grid-none' }, info.hint);
      } else {
        grid = num({ inputmode: 'text', value: formatGrid(f.grid) });
        grid.addEventListener('input', fire);
        gridField = field(`placement.families[${k}].grid`, `${info.knob} grid`, grid, info.hint);
      }
      const row = h('div', { class: 'family-row' },
        h('label', { class: 'fam-name', for: enabled.id, title: info.hint }, enabled, swatch, info.label), gridField);
      return { family: f.family, enabled, grid, row };
    });
    setChildren(familyRows, families.map((f) => f.row));
  }

  /** Put a scenario's values into the form. */
  function fill(s) {
    const p = s.placement;
    capacity.value = String(p.capacity);
    rule.value = p.rule;
    rebalance.checked = !!p.rebalance;
    clairvoyance.value = String(p.clairvoyance);
    mode.value = p.mode;
    realisations.value = String(p.realisations);
    realisations.disabled = p.mode !== 'resampled';
    seed.value = String(s.seed);
    target.value = String(p.target_rho);
    fit.value = p.fit;
    buildFamilies(p.families);
    scriptBox.fill(p.scripts);
    showErrors([]);
  }

  /** Read the form onto `base` (a full scenario); JS-side errors are for values that are not numbers. */
  function read(base) {
    const errors = [];
    const number = (input, path) => readNumber(input, path, errors);
    const s = structuredClone(base);
    const p = s.placement;
    p.capacity = number(capacity, 'placement.capacity');
    p.rule = rule.value;
    p.rebalance = rebalance.checked;
    p.clairvoyance = number(clairvoyance, 'placement.clairvoyance');
    p.mode = mode.value;
    const r = number(realisations, 'placement.realisations');
    if (Number.isFinite(r) && !(Number.isInteger(r) && r >= 1)) errors.push({ field: 'placement.realisations', message: 'a whole number ≥ 1' });
    p.realisations = Number.isFinite(r) ? Math.max(0, Math.round(r)) : p.realisations;
    const sd = number(seed, 'seed');
    if (Number.isFinite(sd) && !(Number.isSafeInteger(sd) && sd >= 0)) errors.push({ field: 'seed', message: 'a whole number from 0 to 2⁵³−1' });
    s.seed = Number.isSafeInteger(sd) && sd >= 0 ? sd : s.seed;
    p.target_rho = number(target, 'placement.target_rho');
    p.fit = fit.value.trim();
    p.families = families.map((f, k) => {
      const out = { family: f.family, enabled: f.enabled.checked, grid: [] };
      if (f.grid) {
        const parts = f.grid.value.split(/[\s,;]+/).filter((x) => x !== '');
        for (const part of parts) {
          const v = Number(part);
          if (!Number.isFinite(v)) {
            errors.push({ field: `placement.families[${k}].grid`, message: `'${part}' is not a number` });
            break;
          }
          out.grid.push(v);
        }
      }
      return out;
    });
    p.scripts = scriptBox.read();
    // NaN cannot cross as JSON: keep the previous value for the engine check, the JS error is shown instead
    for (const key of ['capacity', 'clairvoyance', 'target_rho']) if (!Number.isFinite(p[key])) p[key] = base.placement[key];
    return { scenario: s, errors };
  }

  /** Show `[{ field, message }]` next to their inputs (grid[k] errors go to the grid's field). */
  function showErrors(errors) {
    return showFieldErrors(el, errors, (path) => path.replace(/(grid)\[\d+\]$/, '$1'));
  }

  function setFit(spec) {
    fit.value = spec;
  }

  return { el, fill, read, showErrors, setFit };
}
