// The oversubscription model's controls (seed 001, ALGORITHMS.md §3): a form that mirrors the scenario's
// `oversub` section (+ seed), reads into a scenario object and shows validation messages next to the fields.
// Field ids are the engine's dotted field paths (oversub.beta, oversub.pms, seed, ...), so the engine's
// FieldErrors land in place. An empty policy list means the preset's (the engine's `policy_list`); the α field
// is the page's own: it rewrites the level of every gpa:α and c2marl:α policy of the list.

import { h } from '../common/dom.js';
import { field, num, readOnto, showFieldErrors } from '../common/fields.js';
import { createScriptBox } from '../common/script-box.js';

/** The experiments, with the data each one runs on: [id, label, data statement]. */
export const PRESETS = [
  ['E1.1', 'E1.1 — synthetic internal cloud, cold start',
    'Synthetic internal cloud of ALGORITHMS.md §3.6 (12 subscribers, diurnal usage profiles): the paper\'s trace of its internal cloud is not public. Every PM starts empty.'],
  ['E1.2', 'E1.2 — synthetic internal cloud, warm start',
    'Synthetic internal cloud of ALGORITHMS.md §3.6, warm start: the VMs alive at the start of an episode are pre-placed, not oversubscribed. The paper\'s trace is not public.'],
  ['E1.3', 'E1.3 — Azure-derived subscribers',
    'Subscribers fitted from real public data: usage profiles from the Azure 2019 CPU readings, arrivals and lifetimes from the Azure 2017 VM table (static/oversub/ATTRIBUTION.md). Cold start, 200 PMs.'],
  ['E1.4', 'E1.4 — cluster vs PM hot ratio',
    'E1.1\'s synthetic internal cloud, reported as C-Hot-R (an hour is hot when any PM is) beside PM-Hot-R (the worst PM), App. B.2.'],
];

/** What the engine makes of a scenario's oversub section before it runs (the model's 'setup' operation):
 * { policies: the list it runs (the preset's for an empty list), pms: K, alpha: [min, max] of α }. */
export function sectionSetup(wasm, sc) {
  return wasm.model_call(sc, 'setup', null);
}

/** The preset's policy list (the engine's `OversubParams::policy_list` for an empty list). */
export function presetPolicies(wasm, preset) {
  const d = wasm.default_scenario();
  return sectionSetup(wasm, { ...d, model: 'oversub', oversub: { ...d.oversub, preset, policies: [] } }).policies;
}

/** The policy names of a list typed by the user (comma- or space-separated). */
export function splitPolicies(text) {
  return String(text).split(/[,\s]+/).map((x) => x.trim()).filter((x) => x !== '');
}

/** Whether `name` is gpa:α or c2marl:α with a numeric α (c2marl:FILE is a trained policy file). */
const levelled = (name) => /^(gpa|c2marl):/.test(name) && Number.isFinite(Number(name.slice(name.indexOf(':') + 1)));

/** `names` with the level of every gpa:α and c2marl:α set to `alpha` (duplicates dropped, order kept). */
export function withAlpha(names, alpha) {
  const out = [];
  for (const n of names) {
    const m = levelled(n) ? `${n.slice(0, n.indexOf(':'))}:${alpha}` : n;
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

/** The α shown for a list: the level of its first gpa:α / c2marl:α policy (0.95 when none). */
export function alphaOf(names) {
  const n = names.find(levelled);
  return n ? Number(n.slice(n.indexOf(':') + 1)) : 0.95;
}

/** Whether `name` is a C2MARL arm trained in the run (c2marl:α with a numeric α). */
export const trainedInRun = (name) => /^c2marl:/.test(name) && levelled(name);

/**
 * Build the controls. `onChange()` fires on every edit; the engine's default scenario gives the placeholders
 * of the fields (an empty field shows what the engine would use), its 'setup' the preset's policies and α's
 * range.
 * Returns { el, fill(scenario), read(base) -> { scenario, errors }, showErrors(errors), addPolicy(name) }.
 */
export function createControls({ onChange, wasm }) {
  const defaults = wasm.default_scenario();
  const d = defaults.oversub;
  const [alphaMin, alphaMax] = sectionSetup(wasm, { ...defaults, model: 'oversub' }).alpha;
  const preset = h('select', {}, PRESETS.map(([v, label]) => h('option', { value: v }, label)));
  const dataLine = h('p', { class: 'fine', id: 'oversub-preset-data' });
  const policies = h('input', { type: 'text', autocomplete: 'off', spellcheck: false, placeholder: 'the preset\'s' });
  const alpha = num({ placeholder: '0.95' });
  const beta = num({ placeholder: String(d.beta) });
  const pms = num({ inputmode: 'numeric', placeholder: 'the preset\'s' });
  const occupancy = num({ placeholder: String(d.occupancy) });
  const evalEp = num({ inputmode: 'numeric', placeholder: String(d.eval_episodes) });
  const trainEp = num({ inputmode: 'numeric', placeholder: String(d.train_episodes) });
  const seed = num({ inputmode: 'numeric', placeholder: String(defaults.seed) });
  const scriptBox = createScriptBox({
    model: 'oversub', wasm, onChange: () => onChange(),
    hook: 'fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target, min_rate)',
    label: 'script (Rhai): rate(…) gives a subscriber\'s rate for the hour, clipped to [min_rate, 1]',
    spec: 'the row is script:NAME, after the policies',
  });

  const el = h('section', { class: 'card', id: 'oversub-controls', 'aria-labelledby': 'oversub-controls-title' },
    h('h2', { id: 'oversub-controls-title' }, 'Scenario'),
    field('oversub.preset', 'experiment', preset, 'E1.1/E1.2: synthetic internal cloud (cold / warm start); E1.3: Azure-derived subscribers; E1.4: E1.1 as C-Hot-R vs PM-Hot-R'),
    dataLine,
    field('oversub.policies', 'policies', policies, 'comma-separated: grid:X, ma, sl, peak:p95, peak:3sigma, gpa:α, c2marl:α (trained in the run), c2marl:FILE (an imported trained policy); empty = the preset\'s'),
    h('p', { class: 'fine' }, 'grid:X, ma, sl, peak:pP, peak:Nsigma, gpa:α, c2marl:α; empty = the preset\'s (Grid-0.2/0.4/0.6, MA, SL, peak:p95, gpa:0.95, c2marl:0.95).'),
    h('div', { class: 'grid2' },
      field('oversub.alpha', 'safety level of gpa and c2marl {α}', alpha, 'the safety level of the gpa:α and c2marl:α policies: the probability, over episodes, that a PM is hot for fewer than δ·T hours (safe at level α when PM-Hot-R ≤ 1 − α); editing it rewrites those policies'),
      field('oversub.beta', 'hot threshold {β}', beta, 'a PM is hot in an hour when its VMs\' usage reaches β·B'),
      field('oversub.pms', 'physical machines {PM}', pms, 'PMs K; empty = the preset\'s (500; E1.3: 200)'),
      field('oversub.occupancy', 'occupancy', occupancy, 'requested cores alive as a fraction of the cluster\'s cores, on average (sets the arrival rate)'),
      field('oversub.eval_episodes', 'evaluation episodes', evalEp, 'episodes per policy (the same episodes for every policy)'),
      field('oversub.train_episodes', 'training episodes', trainEp, 'per C2MARL arm, before the evaluation'),
      field('seed', 'seed', seed, 'subscribers, episodes and the learner\'s initialisation', 'oversub')),
    h('h3', {}, 'Your policy'),
    scriptBox.el);

  const fire = () => onChange();
  for (const i of [policies, beta, pms, occupancy, evalEp, trainEp, seed]) i.addEventListener('input', fire);
  preset.addEventListener('change', () => { showData(); fire(); });
  alpha.addEventListener('change', () => {
    const a = Number(alpha.value.trim());
    if (!(Number.isFinite(a) && alpha.value.trim() !== '')) { fire(); return; }
    const names = splitPolicies(policies.value);
    policies.value = withAlpha(names.length ? names : presetPolicies(wasm, preset.value), a).join(', ');
    fire();
  });

  function showData() {
    const p = PRESETS.find(([v]) => v === preset.value);
    dataLine.textContent = p ? p[2] : '';
  }

  /** Put a scenario's values into the form. */
  function fill(s) {
    const p = s.oversub;
    preset.value = p.preset;
    policies.value = p.policies.join(', ');
    alpha.value = String(alphaOf(p.policies.length ? p.policies : presetPolicies(wasm, p.preset)));
    beta.value = String(p.beta);
    pms.value = p.pms ? String(p.pms) : '';
    occupancy.value = String(p.occupancy);
    evalEp.value = String(p.eval_episodes);
    trainEp.value = String(p.train_episodes);
    seed.value = String(s.seed);
    scriptBox.fill(p.scripts);
    showData();
    showErrors([]);
  }

  /** Read the form onto `base` (a full scenario); page-side errors are for values that are not numbers. */
  function read(base) {
    const { s, p, errors, number, readSeed } = readOnto(base, 'oversub');
    p.preset = preset.value;
    p.policies = splitPolicies(policies.value);
    if (alpha.value.trim() !== '') {
      const a = Number(alpha.value.trim());
      if (!Number.isFinite(a)) errors.push({ field: 'oversub.alpha', message: `'${alpha.value.trim()}' is not a number` });
      else if (!(a >= alphaMin && a <= alphaMax)) errors.push({ field: 'oversub.alpha', message: `α must lie in [${alphaMin}, ${alphaMax}]` });
    }
    p.beta = number(beta, 'beta');
    p.occupancy = number(occupancy, 'occupancy');
    p.pms = pms.value.trim() === '' ? 0 : number(pms, 'pms', { integer: true });
    p.eval_episodes = number(evalEp, 'eval_episodes', { integer: true });
    p.train_episodes = number(trainEp, 'train_episodes', { integer: true });
    readSeed(seed);
    p.scripts = scriptBox.read();
    return { scenario: s, errors };
  }

  /** Show `[{ field, message }]` next to their inputs (errors of one policy on the list); returns the rest. */
  function showErrors(errors) {
    return showFieldErrors(el, errors, (path) => (path.startsWith('oversub.policies') ? 'oversub.policies' : path));
  }

  /** Add the policy `name` to the list (the preset's list first, when it is empty) and fire onChange. */
  function addPolicy(name) {
    const names = splitPolicies(policies.value);
    const list = names.length ? names : presetPolicies(wasm, preset.value);
    if (!list.includes(name)) list.push(name);
    policies.value = list.join(', ');
    fire();
  }

  return { el, fill, read, showErrors, addPolicy };
}
