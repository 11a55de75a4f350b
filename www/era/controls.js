// The reservation model's controls (seed 004, ALGORITHMS.md §6): a form that mirrors the scenario's `era`
// section (+ seed), reads into a scenario object and shows validation messages next to the fields. Field ids
// are the engine's dotted field paths (era.period_h, era.kappa, seed, ...), so the engine's FieldErrors land
// in place. Empty policy and κ lists mean the preset's own (the engine's `policy_list` / `kappa_list`).
// The policy and experiment lists come from the engine (`eraLists`).

import { h } from '../common/dom.js';
import { defaultAt, readOnto, field, num, showFieldErrors } from '../common/fields.js';
import { createScriptBox } from '../common/script-box.js';

/**
 * The engine's policy list and experiments (the era model's `policies` and `presets` operations, resolved
 * from the Rust that parses the scenario's policy strings): { policies: [{ name, title, hint }],
 * presets: [{ name, title, workload, policies, accepts }] }. Read once per page.
 */
let engineLists = null;
export function eraLists(wasm) {
  if (!engineLists) {
    const sc = { model: 'era' };
    engineLists = { policies: wasm.model_call(sc, 'policies', null), presets: wasm.model_call(sc, 'presets', null) };
  }
  return engineLists;
}

/** The bundled workload experiment `name` reads (E4.1: SWIM jobs; E4.3: Azure VMs for the non-ERA load). */
export const presetWorkload = (wasm, name) => eraLists(wasm).presets.find((p) => p.name === name).workload;

/**
 * Build the controls. `onChange()` fires on every edit.
 * Returns { el, fill(scenario, policiesRun?), read(base) -> { scenario, errors }, showErrors(errors) }.
 */
export function createControls({ onChange, wasm }) {
  const D = wasm.default_scenario();
  const { policies, presets } = eraLists(wasm);
  const preset = h('select', {}, presets.map((p) => h('option', { value: p.name }, `${p.name} — ${p.title}`)));
  const usePreset = h('input', { type: 'checkbox', id: 'era-policies-preset' });
  const boxes = policies.map(({ name, hint }) => {
    const box = h('input', { type: 'checkbox', dataset: { policy: name }, id: `era-policy-${name.replace(/:/g, '-')}` });
    box.addEventListener('change', () => onChange());
    return { name, box, row: h('label', { class: 'policy-row', title: hint }, box, h('span', {}, name)) };
  });
  const kappa = h('input', { type: 'text', autocomplete: 'off', spellcheck: false, placeholder: 'the preset\'s' });
  const periodH = num({ placeholder: defaultAt(D, 'era.period_h') });
  const bucket = num({ placeholder: defaultAt(D, 'era.lp_bucket_min') });
  const gamma = num({ placeholder: defaultAt(D, 'era.gamma_pen') });
  const capFrac = num({ placeholder: defaultAt(D, 'era.capacity_frac') });
  const days = num({ placeholder: defaultAt(D, 'era.days') });
  const load = num({ placeholder: defaultAt(D, 'era.load') });
  const quantile = num({ placeholder: defaultAt(D, 'era.nonera_quantile') });
  const nonera = h('select', {},
    h('option', { value: 'azure' }, 'real Azure 2017 load'),
    h('option', { value: 'synthetic' }, 'synthetic (§6.5 sinusoid + AR(1))'));
  const seed = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'seed') });
  const horizon = h('select', {},
    h('option', { value: 'open' }, 'open — the predictor assumes arrivals never stop (version 1)'),
    h('option', { value: 'no-arrivals' }, 'no-arrivals — horizon-aware predictor'),
    h('option', { value: 'cut-windows' }, 'cut-windows — windows cut at the end'));
  const jobs = h('select', {},
    h('option', { value: 'synthetic' }, 'synthetic §6.5 generator — mirrors the paper'),
    h('option', { value: 'swim' }, 'the SWIM workload (bundled day or upload)'));
  const basis = h('select', {},
    h('option', { value: 'runnable' }, 'runnable work, widths clamped to C'),
    h('option', { value: 'arrivals' }, 'offered load over the arrival span (version 1)'));
  const floor = num({ placeholder: defaultAt(D, 'era.e43_floor') });
  const lpKappa = h('input', { type: 'checkbox', id: 'era-lp-at-kappa' });
  const scriptBox = createScriptBox({
    model: 'era', wasm, onChange: () => onChange(),
    hook: 'fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full)',
    label: 'script (Rhai): quote(…) of a request → [start, price], or () for no quote; accepted iff value ≥ price',
    spec: 'the policy is script:NAME, after the policies, at every κ_use',
  });

  const policyBox = h('div', { class: 'policies', id: 'f-era-policies', dataset: { field: 'era.policies' } },
    h('label', { class: 'policy-row', title: `compare the policies the preset lists (${presets.map((p) => `${p.name}: ${p.policies.join(', ')}`).join('; ')})` },
      usePreset, h('span', {}, h('strong', {}, 'the preset\'s policies'))),
    boxes.map((b) => b.row));
  const e41 = h('div', { class: 'grid2', id: 'era-e41-fields' },
    field('era.jobs', 'jobs', jobs, 'E4.1: the synthetic generator of ALGORITHMS.md §6.5 mirrors the paper (six classes of 1,450 jobs, yahoo-5 the largest at $1 per unit-slot, the rest $10); SWIM days have no job types, so their classes are work sextiles'),
    field('era.capacity_basis', 'capacity against', basis, 'E4.1: C = capacity / offered load × the work that can run (widths clamped to C, over the arrival span plus the mean window), or the version-1 rule'),
    field('era.capacity_frac', 'capacity / offered load', capFrac, 'E4.1: the cluster\'s capacity as a fraction of the mean offered load (the paper: "far too small")'));
  const e43 = h('div', { class: 'grid2', id: 'era-e43-fields' },
    field('era.days', 'days scheduled', days, 'E4.3: days after the history period'),
    field('era.load', 'offered load / capacity', load, 'E4.3: offered ERA work per slot as a multiple of ERA\'s capacity [UNSTATED]'),
    field('era.nonera', 'non-ERA load', nonera, 'E4.3: what moves ERA\'s actual capacity'),
    field('era.nonera_quantile', 'non-ERA provisioned at quantile', quantile, 'E4.3: the quantile of the Azure load\'s fluctuation the non-ERA 80% is provisioned for; above it, it takes ERA\'s cores'),
    field('era.e43_floor', 'price floor (× p_full)', floor, 'E4.3: BASIC_ECON\'s floor and greedy\'s fixed price, matched (stated 0.65)'));

  const el = h('section', { class: 'card', id: 'era-controls', 'aria-labelledby': 'era-controls-title' },
    h('h2', { id: 'era-controls-title' }, 'Scenario'),
    field('era.preset', 'experiment', preset, 'E4.1: value efficiency on real MapReduce arrivals; E4.3: late jobs vs accepted revenue as κ_use sweeps'),
    h('h3', {}, 'Policies'),
    policyBox,
    h('div', { class: 'field-error', id: 'f-era-policies-error', role: 'alert' }),
    h('div', { class: 'grid2' },
      field('era.kappa', 'committed shares of the capacity {κ_use}', kappa, 'capacity fractions the plan may use, comma-separated in (0, 1]; empty = the preset\'s (E4.1: 1; E4.3: 0.6 … 1)'),
      field('era.period_h', 'period (hours)', periodH, 'the LP and the spreading predictor of each period are fitted on the previous period\'s requests'),
      field('era.lp_bucket_min', 'LP bucket (minutes)', bucket, 'time resolution of the LP predictor; must divide the period'),
      field('era.gamma_pen', 'γ of the penalty', gamma, 'price(x) × exp(γ·(x − s)/(d − s)) in the :penalty variants'),
      field('era.horizon', 'at the workload\'s end', horizon, 'arrivals stop at the end while accepted jobs run on: the version-1 predictor still prices the idle tail for arrivals that never come'),
      field('era.lp_at_kappa', 'LP at κ_use·C', lpKappa, 'solve the LP predictor at the capacity the plan uses instead of C'),
      field('seed', 'seed', seed, 'jobs, windows and values (E4.1), ERA jobs (E4.3)', 'era')),
    h('h3', {}, 'E4.1'), e41,
    h('h3', {}, 'E4.3'), e43,
    h('h3', {}, 'Your policy'),
    h('p', { class: 'fine' }, 'A request needs w units per slot for t slots inside its window [s, d) (slots are minutes); now: its arrival; cap: the planned capacity κ_use·C; remaining: the plan\'s free units in each slot of the window; feasible: for each start s … d − t whether it fits; p_fix, p_full: the fixed and on-demand prices per unit-slot. The rule never sees the value (docs/policies.md).'),
    scriptBox.el);

  const fire = () => onChange();
  for (const i of [kappa, periodH, bucket, gamma, capFrac, days, load, quantile, seed, floor]) i.addEventListener('input', fire);
  for (const i of [preset, nonera, horizon, jobs, basis, lpKappa]) i.addEventListener('change', () => { setEnabled(); fire(); });
  usePreset.addEventListener('change', () => { setEnabled(); fire(); });

  function setEnabled() {
    const accepts = new Set(presets.find((p) => p.name === preset.value).accepts);
    for (const b of boxes) b.box.disabled = usePreset.checked || !accepts.has(b.name);
    const p41 = preset.value === 'E4.1';
    for (const i of [capFrac, jobs, basis]) i.disabled = !p41;
    for (const i of [days, load, nonera, quantile, floor]) i.disabled = p41;
    quantile.disabled = p41 || nonera.value !== 'azure';
  }

  /** Put a scenario's values into the form; `policiesRun` (the last report's policies) ticks the boxes when
   * the scenario uses the preset's list. */
  function fill(s, policiesRun) {
    const p = s.era;
    preset.value = p.preset;
    usePreset.checked = p.policies.length === 0;
    const chosen = new Set(p.policies.length ? p.policies : policiesRun || []);
    for (const b of boxes) b.box.checked = chosen.has(b.name);
    kappa.value = p.kappa.join(', ');
    periodH.value = String(p.period_h);
    bucket.value = String(p.lp_bucket_min);
    gamma.value = String(p.gamma_pen);
    capFrac.value = String(p.capacity_frac);
    days.value = String(p.days);
    load.value = String(p.load);
    quantile.value = String(p.nonera_quantile);
    nonera.value = p.nonera;
    horizon.value = p.horizon;
    jobs.value = p.jobs;
    basis.value = p.capacity_basis;
    floor.value = String(p.e43_floor);
    lpKappa.checked = !!p.lp_at_kappa;
    seed.value = String(s.seed);
    scriptBox.fill(p.scripts);
    setEnabled();
    showErrors([]);
  }

  /** Read the form onto `base` (a full scenario); page-side errors are for values that are not numbers. */
  function read(base) {
    const { s, p, errors, number, readSeed } = readOnto(base, 'era');
    if (preset.value !== p.preset) {
      // another experiment reads another workload; an upload is kept only for the preset it was made for
      p.preset = preset.value;
      s.workload = { bundled: presetWorkload(wasm, p.preset) };
    }
    p.policies = usePreset.checked ? [] : boxes.filter((b) => b.box.checked && !b.box.disabled).map((b) => b.name);
    p.scripts = scriptBox.read();
    // a script listed by name (a link's or the CLI's) stays listed while the box still has it
    const names = new Set(p.scripts.map((x) => `script:${x.name}`));
    if (!usePreset.checked) p.policies.push(...base.era.policies.filter((n) => n.startsWith('script:') && names.has(n)));
    if (!usePreset.checked && !p.policies.length) errors.push({ field: 'era.policies', message: 'choose at least one policy, or the preset\'s' });
    const ks = kappa.value.split(',').map((x) => x.trim()).filter((x) => x !== '');
    const kv = ks.map(Number);
    if (kv.some((k) => !Number.isFinite(k))) errors.push({ field: 'era.kappa', message: 'comma-separated numbers in (0, 1]' });
    else p.kappa = kv;
    p.period_h = number(periodH, 'period_h');
    p.lp_bucket_min = number(bucket, 'lp_bucket_min');
    p.gamma_pen = number(gamma, 'gamma_pen');
    p.capacity_frac = number(capFrac, 'capacity_frac');
    p.days = number(days, 'days');
    p.load = number(load, 'load');
    p.nonera_quantile = number(quantile, 'nonera_quantile');
    p.nonera = nonera.value;
    p.horizon = horizon.value;
    p.jobs = jobs.value;
    p.capacity_basis = basis.value;
    p.e43_floor = number(floor, 'e43_floor');
    p.lp_at_kappa = lpKappa.checked;
    readSeed(seed);
    return { scenario: s, errors };
  }

  /** Show `[{ field, message }]` next to their inputs (κ errors of one value on the list); returns the rest. */
  function showErrors(errors) {
    return showFieldErrors(el, errors, (path) => (path.startsWith('era.kappa') ? 'era.kappa' : path.startsWith('era.policies') ? 'era.policies' : path));
  }

  return { el, fill, read, showErrors };
}
