// The lifetime model's controls (seed 003, ALGORITHMS.md §5): a form that mirrors the scenario's `lifetime`
// section (+ seed), reads into a scenario object and shows validation messages next to the fields. Field ids
// are the engine's dotted field paths (lifetime.share, lifetime.accuracy, seed, ...), so the engine's
// FieldErrors land in place.

import { h, fmt } from '../common/dom.js';
import { defaultAt, readOnto, fieldId, field, num, showFieldErrors } from '../common/fields.js';
import { createScriptBox } from '../common/script-box.js';

/**
 * The policies in the engine's order (the lifetime model's `policies` operation, `Policy::ALL`: the chart
 * colours a policy by its place here, so the table's swatches use the same index): [{ name, title, hint }].
 * Read once per page.
 */
let enginePolicies = null;
export function lifetimePolicies(wasm) {
  if (!enginePolicies) enginePolicies = wasm.model_call({ model: 'lifetime' }, 'policies', null);
  return enginePolicies;
}

const SPLITS = [
  ['test', 'test split', 'the test deployments are simulated; the dev split trains the distributional predictor'],
  ['dev', 'dev split', 'the dev deployments are simulated; the test split trains the distributional predictor'],
  ['', 'all VMs', 'every VM of the workload (for uploads without splits)'],
];

/**
 * Build the controls. `onChange()` fires on every edit.
 * Returns { el, fill(scenario), read(base) -> { scenario, errors }, showErrors(errors) }.
 */
export function createControls({ onChange, color, wasm }) {
  const D = wasm.default_scenario();
  const predictor = h('select', {},
    h('option', { value: 'oracle' }, 'oracle (true lifetimes)'),
    h('option', { value: 'noisy' }, 'noisy at accuracy A (App. G.1)'),
    h('option', { value: 'distributional' }, 'distributional (no features)'));
  const accuracy = h('input', { type: 'range', min: 0, max: 1, step: 0.05, value: 0.9 });
  const accuracyOut = h('output', { id: 'lifetime-accuracy-value', for: fieldId('lifetime.accuracy') }, '0.9');
  const reprediction = h('input', { type: 'checkbox' });
  const split = h('select', {}, SPLITS.map(([v, t, hint]) => h('option', { value: v, title: hint }, t)));
  const share = num({ placeholder: defaultAt(D, 'lifetime.share') });
  const hosts = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'lifetime.hosts') });
  const peak = num({ placeholder: defaultAt(D, 'lifetime.peak_allocation') });
  const cores = num({ placeholder: defaultAt(D, 'lifetime.host_cores') });
  const memory = num({ placeholder: defaultAt(D, 'lifetime.host_memory_gb') });
  const warmup = num({ placeholder: defaultAt(D, 'lifetime.warmup_h') });
  const seed = num({ inputmode: 'numeric', placeholder: defaultAt(D, 'seed') });
  const refresh = num({ placeholder: defaultAt(D, 'lifetime.refresh_s') });
  const defrag = h('input', { type: 'checkbox' });
  const aliveAtStart = h('input', { type: 'checkbox' });

  const boxes = lifetimePolicies(wasm).map(({ name, title, hint }, i) => {
    const box = h('input', { type: 'checkbox', dataset: { policy: name }, id: `lifetime-policy-${name}` });
    if (i === 0) { box.checked = true; box.disabled = true; }
    box.addEventListener('change', () => onChange());
    return { name, box, row: h('label', { class: 'policy-row', title: hint }, box,
      h('span', { class: 'swatch', style: { background: color(i) }, 'aria-hidden': 'true' }), h('span', {}, title),
      i === 0 ? h('span', { class: 'fine' }, ' (baseline, always run)') : null) };
  });
  const scriptBox = createScriptBox({
    model: 'lifetime', wasm, onChange: () => onChange(),
    hook: 'fn score(free_cores, free_mem_gb, free_gpus, cap_cores, cap_mem_gb, cap_gpus, vm_cores, vm_mem_gb, vm_gpus, vms, host_exit, vm_exit, now)',
    label: 'script (Rhai): score(…) of a host for the VM, lower is better (ties by best fit); optional least() stops the scan',
    spec: 'the row is script:NAME, after the policies',
  });
  const policyBox = h('div', { class: 'policies', id: 'f-lifetime-policies', dataset: { field: 'lifetime.policies' } }, boxes.map((b) => b.row));

  const accField = field('lifetime.accuracy', 'accuracy of the noisy predictor {A}', accuracy, 'per VM, the prediction is right with probability A, else off by 3 decades (App. G.1); at arrival the predictor reports that prediction L̂ itself, later the posterior mean of the remaining time under that noise model given the uptime (§5.2)');
  accField.querySelector('.label').append(' = ', accuracyOut);

  const el = h('section', { class: 'card', id: 'lifetime-controls', 'aria-labelledby': 'lifetime-controls-title' },
    h('h2', { id: 'lifetime-controls-title' }, 'Scenario'),
    h('h3', {}, 'Policies'),
    policyBox,
    h('div', { class: 'field-error', id: 'f-lifetime-policies-error', role: 'alert' }),
    h('h3', {}, 'Lifetime predictions'),
    field('lifetime.predictor', 'predictor', predictor, 'what the policies believe about a VM\'s remaining lifetime (§5.2)'),
    accField,
    h('label', { class: 'field check', for: fieldId('lifetime.reprediction'), title: 'repredict with the VM\'s uptime (off: the same model without the update, max(R̂(0) − u, 0); LA-Binary never repredicts, the oracle is always exact)' },
      Object.assign(reprediction, { id: fieldId('lifetime.reprediction') }), h('span', {}, 'reprediction with the uptime')),
    h('h3', {}, 'Pool'),
    h('div', { class: 'grid2' },
      field('lifetime.share', 'share of tenant batches', share, 'fraction of the tenant batches (whole deployments) the pool receives, in (0, 1]'),
      field('lifetime.hosts', 'hosts (0 = sized)', hosts, 'hosts in the pool; 0 = the fewest hosts the peak demand fills to at most the peak allocation'),
      field('lifetime.peak_allocation', 'peak allocation', peak, 'with hosts = 0: the largest fraction of the pool the peak demand may fill, in (0, 1]'),
      field('lifetime.host_cores', 'cores per host', cores, 'host capacity in cores'),
      field('lifetime.host_memory_gb', 'memory per host (GB)', memory, 'host memory in GB'),
      field('lifetime.warmup_h', 'warm-up (hours)', warmup, 'simulated before measuring (App. F: 2 days)'),
      field('seed', 'seed', seed, 'which batches the pool gets, noisy predictions, inflation draws (integer, 0 … 2⁵³−1)', 'lifetime'),
      field('lifetime.split', 'VMs simulated', split, 'a deployment split of the Azure 2017 arrivals (the other split trains the distributional predictor), or every VM')),
    h('label', { class: 'field check', for: fieldId('lifetime.alive_at_start'), title: 'App. F warm-up: the VMs of the dev split still running when the test window starts (censored at the cut) are in the pool first, placed by best fit, with exits drawn from the Kaplan–Meier residual life (off: the pool starts empty, App. G.2\'s ideal run)' },
      Object.assign(aliveAtStart, { id: fieldId('lifetime.alive_at_start') }), h('span', {}, 'VMs alive at the window\'s start (App. F)')),
    h('h3', {}, 'NILAS cache and defragmentation'),
    field('lifetime.refresh_s', 'host-exit cache refresh (s)', refresh, 'NILAS recomputes a host\'s exit time at most this often (§5.3, E3.4; 0 = no cache, recomputed at every use)'),
    h('label', { class: 'field check', for: fieldId('lifetime.defrag'), title: 'drain hosts when fewer than 5% are empty (up to 3 hosts, 3 concurrent 20-minute live migrations), then count the same drains in the LARS order (§5.6, E3.5)' },
      Object.assign(defrag, { id: fieldId('lifetime.defrag') }), h('span', {}, 'defragmentation: start order vs LARS (E3.5)')),
    h('h3', {}, 'Your policy'),
    h('p', { class: 'fine' }, 'Free capacity and capacity in cores, GB and GPUs; vms: the host\'s VMs; host_exit: NILAS\'s predicted exit of the host (the latest of its VMs\', now when empty); vm_exit: now + the VM\'s predicted remaining lifetime; times in hours from the window\'s start (docs/policies.md).'),
    scriptBox.el);
  reprediction.dataset.field = 'lifetime.reprediction';
  defrag.dataset.field = 'lifetime.defrag';
  aliveAtStart.dataset.field = 'lifetime.alive_at_start';

  const fire = () => onChange();
  for (const i of [share, hosts, peak, cores, memory, warmup, seed, refresh]) i.addEventListener('input', fire);
  for (const i of [defrag, aliveAtStart]) i.addEventListener('change', fire);
  accuracy.addEventListener('input', () => { accuracyOut.textContent = fmt(Number(accuracy.value)); fire(); });
  for (const i of [predictor, reprediction, split]) i.addEventListener('change', () => { setEnabled(); fire(); });
  hosts.addEventListener('input', setEnabled);

  function setEnabled() {
    accuracy.disabled = predictor.value !== 'noisy';
    reprediction.disabled = predictor.value === 'oracle';
    peak.disabled = hosts.value.trim() !== '0';
  }

  /** Put a scenario's values into the form. */
  function fill(s) {
    const p = s.lifetime;
    const chosen = new Set(p.policies);
    for (const [i, b] of boxes.entries()) if (i > 0) b.box.checked = chosen.has(b.name);
    predictor.value = p.predictor;
    accuracy.value = String(p.accuracy);
    accuracyOut.textContent = fmt(p.accuracy);
    reprediction.checked = !!p.reprediction;
    if (![...split.options].some((o) => o.value === p.split)) split.append(h('option', { value: p.split }, p.split));
    split.value = p.split;
    share.value = String(p.share);
    hosts.value = String(p.hosts);
    peak.value = String(p.peak_allocation);
    cores.value = String(p.host_cores);
    memory.value = String(p.host_memory_gb);
    warmup.value = String(p.warmup_h);
    refresh.value = String(p.refresh_s);
    defrag.checked = !!p.defrag;
    aliveAtStart.checked = !!p.alive_at_start;
    seed.value = String(s.seed);
    scriptBox.fill(p.scripts);
    setEnabled();
    showErrors([]);
  }

  /** Read the form onto `base` (a full scenario); page-side errors are for values that are not numbers. */
  function read(base) {
    const { s, p, errors, number, readSeed } = readOnto(base, 'lifetime');
    // the policies in the engine's order; best fit (always simulated) is listed when the scenario listed it
    // or nothing else is chosen, so a link's list reads back unchanged
    const chosen = boxes.slice(1).filter((b) => b.box.checked).map((b) => b.name);
    p.policies = base.lifetime.policies.includes('best-fit') || !chosen.length ? ['best-fit', ...chosen] : chosen;
    p.scripts = scriptBox.read();
    // a script listed by name (a link's or the CLI's) stays listed while the box still has it
    const names = new Set(p.scripts.map((x) => `script:${x.name}`));
    p.policies.push(...base.lifetime.policies.filter((n) => n.startsWith('script:') && names.has(n)));
    p.predictor = predictor.value;
    p.accuracy = number(accuracy, 'accuracy');
    p.reprediction = reprediction.checked;
    p.split = split.value;
    p.share = number(share, 'share');
    p.hosts = number(hosts, 'hosts', { integer: true });
    p.peak_allocation = number(peak, 'peak_allocation');
    p.host_cores = number(cores, 'host_cores');
    p.host_memory_gb = number(memory, 'host_memory_gb');
    p.warmup_h = number(warmup, 'warmup_h');
    p.refresh_s = number(refresh, 'refresh_s');
    p.defrag = defrag.checked;
    // left out when off, as the engine writes it (links made before the field keep their bytes)
    if (aliveAtStart.checked) p.alive_at_start = true;
    else delete p.alive_at_start;
    readSeed(seed);
    return { scenario: s, errors };
  }

  /** Show `[{ field, message }]` next to their inputs; returns those without a field here. */
  function showErrors(errors) {
    return showFieldErrors(el, errors);
  }

  return { el, fill, read, showErrors };
}
