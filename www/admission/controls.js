// The admission model's controls: a form that mirrors the scenario's `admission` section (+ seed), reads into
// a scenario object and shows validation messages next to the fields. Field ids are the engine's dotted field
// paths (admission.params.capacity, admission.runs, seed, ...), so the engine's FieldErrors land in place.

import { h, setChildren } from '../common/dom.js';
import { defaultAt, readOnto, field, num, showFieldErrors } from '../common/fields.js';
import { createScriptBox } from '../common/script-box.js';

const PRESETS = [
  ['E0.1', 'E0.1 · baseline vs moment policies'],
  ['E0.2', 'E0.2 · value of prior information (m)'],
  ['E0.3', 'E0.3 · MARGINAL ablation'],
  ['E0.4', 'E0.4 · labelling vs no labelling'],
];

/** The model parameters only "custom" edits (paths under admission.params). */
const MODEL_FIELDS = [
  ['arrival_rate', 'arrival rate (per hour)', 'deployment arrivals per hour (Poisson)'],
  ['priors.kappa', 'kill factor κ', 'maximum lifetime ~ Exp(λ/κ): κ mean core lifetimes'],
  ['priors.lambda.shape', 'λ prior shape', 'per-core death rate λ ~ Γ(shape, rate), per hour'],
  ['priors.lambda.rate', 'λ prior rate (h)', 'rate of the Gamma prior of λ (hours)'],
  ['priors.nu.shape', 'ν prior shape', 'scale-outs per mean core lifetime ν ~ Γ(shape, rate)'],
  ['priors.nu.rate', 'ν prior rate', 'rate of the Gamma prior of ν'],
  ['priors.sigma.shape', 'σ prior shape', 'scale-out size 1 + Poisson(σ), σ ~ Γ(shape, rate)'],
  ['priors.sigma.rate', 'σ prior rate', 'rate of the Gamma prior of σ'],
];

const getPath = (o, path) => path.split('.').reduce((x, k) => (x == null ? x : x[k]), o);
function setPath(o, path, v) {
  const ks = path.split('.');
  const last = ks.pop();
  let x = o;
  for (const k of ks) x = x[k];
  x[last] = v;
}

/**
 * Build the controls. `onChange()` fires on every edit; `wasm` lists a preset's arms and the defaults.
 * Returns { el, fill(scenario), read(base) -> { scenario, errors }, showErrors(errors) }.
 */
export function createControls({ wasm, onChange, onAzure }) {
  const preset = h('select', {}, PRESETS.map(([v, t]) => h('option', { value: v }, t)));
  const D = wasm.default_scenario();
  const capacity = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'admission.params.capacity') });
  const sla = num({ placeholder: defaultAt(D, 'admission.params.sla') });
  const horizon = num({ placeholder: defaultAt(D, 'admission.params.horizon_hours') });
  const runs = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'admission.runs') });
  const seed = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'seed') });
  const iterations = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'admission.params.tune_iterations') });
  const azureOk = azureFitAvailable(wasm);
  const source = h('select', {},
    h('option', { value: 'defaults' }, 'documented defaults (§2.13)'),
    h('option', { value: 'custom' }, 'custom parameters'),
    h('option', { value: 'azure', disabled: !azureOk }, azureOk ? 'Azure 2017-fitted parameters' : 'Azure 2017-fitted (not in this engine yet)'));
  const model = MODEL_FIELDS.map(([path, label, help]) => ({ path: `admission.params.${path}`, key: path, input: num({}), label, help }));
  const policyBox = h('div', { class: 'policies', id: 'admission-policies' });
  let policies = []; // [{ label, box }]
  let lastPreset = null;
  const scriptBox = createScriptBox({
    model: 'admission', wasm, onChange: () => onChange(),
    hook: 'fn admit(active, capacity, n0, t, mean, variance, cand_mean, cand_var, threshold)',
    label: 'script (Rhai): admit(…) is true to admit the arrival (it must also fit: N + n0 ≤ C); optional threshold_scale() is "cores" or "probability"',
    spec: 'the arm is script:NAME, tuned to the SLA after the preset\'s',
  });

  const el = h('section', { class: 'card', id: 'admission-controls', 'aria-labelledby': 'admission-controls-title' },
    h('h2', { id: 'admission-controls-title' }, 'Scenario'),
    field('admission.preset', 'experiment', preset, 'the experiments of ALGORITHMS.md §2.12: which policy arms are tuned to the SLA'),
    h('div', { class: 'grid2' },
      field('admission.params.capacity', 'cluster capacity, in cores {C}', capacity, 'cluster capacity in cores'),
      field('admission.params.sla', 'allowed scale-out failure rate {ε} {SLA}', sla, 'target on the scale-out failure rate, in (0, 1)'),
      field('admission.params.horizon_hours', 'run length T (hours)', horizon, 'simulated hours per run (730 h = one month)'),
      field('admission.runs', 'runs R per threshold', runs, 'common-random-number runs per evaluated threshold'),
      field('admission.params.tune_iterations', 'search iterations', iterations, 'binary-search steps of the threshold tuning (§2.8)'),
      field('seed', 'seed', seed, 'master seed of every random stream (integer, 0 … 2⁵³−1)', 'admission')),
    h('h3', {}, 'Policies'),
    policyBox,
    h('div', { class: 'field-error', id: 'f-admission-policies-error', role: 'alert' }),
    h('h3', {}, 'Your policy'),
    scriptBox.el,
    h('h3', {}, 'Model parameters'),
    field('admission.source', 'parameters', source, 'where the deployment-process parameters come from'),
    h('div', { class: 'grid2', id: 'admission-model-fields' }, model.map((m) => field(m.path, m.label, m.input, m.help))));
  policyBox.dataset.field = 'admission.policies';
  policyBox.id = 'f-admission-policies';

  const fire = () => onChange();
  for (const i of [capacity, sla, horizon, runs, seed, iterations, ...model.map((m) => m.input)]) i.addEventListener('input', fire);
  preset.addEventListener('change', () => { buildPolicies(preset.value, []); fire(); });
  source.addEventListener('change', () => {
    if (source.value === 'azure') {
      setModelEnabled();
      onAzure();
      return;
    }
    if (source.value === 'defaults') {
      const d = wasm.default_scenario().admission.params;
      for (const m of model) m.input.value = String(getPath(d, m.key));
    }
    setModelEnabled();
    fire();
  });

  function setModelEnabled() {
    for (const m of model) m.input.disabled = source.value !== 'custom';
  }

  function buildPolicies(p, selected) {
    lastPreset = p;
    let arms = [];
    try { arms = wasm.model_call({ model: 'admission', admission: { preset: p } }, 'arms', null); } catch { arms = []; }
    policies = arms.map((a) => {
      const box = h('input', { type: 'checkbox', checked: !selected.length || selected.includes(a.label), dataset: { label: a.label } });
      box.addEventListener('change', fire);
      return { label: a.label, box, row: h('label', { class: 'policy-row' }, box, h('span', {}, a.label)) };
    });
    setChildren(policyBox, policies.map((x) => x.row));
  }

  function fill(s) {
    const a = s.admission;
    const p = a.params;
    preset.value = a.preset;
    capacity.value = String(p.capacity);
    sla.value = String(p.sla);
    horizon.value = String(p.horizon_hours);
    runs.value = String(a.runs);
    iterations.value = String(p.tune_iterations);
    seed.value = String(s.seed);
    source.value = a.source;
    for (const m of model) m.input.value = String(getPath(p, m.key));
    setModelEnabled();
    buildPolicies(a.preset, a.policies || []);
    scriptBox.fill(a.scripts);
    showErrors([]);
  }

  function read(base) {
    const { s, p: a, errors, value, number, readSeed } = readOnto(base, 'admission');
    const p = a.params;
    const param = (input, key, opts) => value(input, `admission.params.${key}`, p[key], opts);
    a.preset = preset.value;
    a.source = source.value;
    p.capacity = param(capacity, 'capacity');
    p.sla = param(sla, 'sla');
    p.horizon_hours = param(horizon, 'horizon_hours');
    a.runs = number(runs, 'runs', { integer: true });
    p.tune_iterations = param(iterations, 'tune_iterations', { integer: true });
    readSeed(seed);
    for (const m of model) setPath(p, m.key, value(m.input, m.path, getPath(p, m.key)));
    if (a.source === 'defaults') {
      // documented defaults: also the initial-size distribution an Azure fit may have replaced
      const d = wasm.default_scenario().admission.params;
      p.arrival_rate = d.arrival_rate;
      p.priors = d.priors;
      p.initial_size = d.initial_size;
    }
    const chosen = policies.filter((x) => x.box.checked).map((x) => x.label);
    a.policies = chosen.length === policies.length ? [] : chosen;
    if (!chosen.length) errors.push({ field: 'admission.policies', message: 'choose at least one policy' });
    if (a.preset !== lastPreset) a.policies = [];
    if (a.series_run >= a.runs) a.series_run = 0;
    a.scripts = scriptBox.read();
    const scriptArm = (l) => a.scripts.some((x) => x.enabled && `script:${x.name}` === l);
    if (a.series_arm && chosen.length && !chosen.includes(a.series_arm) && !scriptArm(a.series_arm)) a.series_arm = '';
    return { scenario: s, errors };
  }

  /** Show `[{ field, message }]` next to their inputs; the time-series run and arm have no field here. */
  function showErrors(errors) {
    return showFieldErrors(el, errors, (path) => (path === 'admission.series_run' || path === 'admission.series_arm' ? null : path));
  }

  return { el, fill, read, showErrors };
}

/** Whether this engine can fit the admission parameters to the bundled Azure arrivals (the model's
 * registry entry lists the operation and the bundled-data registry the file). */
export function azureFitAvailable(wasm) {
  const info = wasm.models().find((m) => m.id === 'admission');
  return !!(info && info.ops.includes('azure_fit') && wasm.bundled_data().some((d) => d.kind === 'azure-arrivals'));
}
