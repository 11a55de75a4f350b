// The playground's glossary: every symbol and acronym the tabs use, in plain words first and the symbol's role
// second (ALGORITHMS.md §2–§6 and docs/<model>.md give the formulas). One data table; `gloss(key)` makes a
// term a keyboard-focusable button whose explanation shows on hover, focus and tap (a role="tooltip" element
// the button names with aria-describedby), and `glossText('… {ρ} …')` turns the `{key}` marks of a lesson's
// sentence into such terms.

import { h } from './dom.js';

/** term → { name: the term spelled out, text: what it means here }. Keys are what the page shows. */
export const GLOSSARY = {
  // placement (seed 002)
  VM: { name: 'virtual machine', text: 'A tenant\'s virtual computer; here its CPU usage over time, measured in VM units (1 = one VM\'s full CPU).' },
  PM: { name: 'physical machine (host)', text: 'A real server that runs several VMs; its capacity is shared by the VMs placed on it.' },
  c: { name: 'capacity c', text: 'How much CPU one machine has, in VM units: c = 4 holds four VMs running flat out.' },
  ρ: { name: 'rho: target overflow probability', text: 'The chance of overload the operator accepts (the SLO): ρ = 0.05 means a machine may be overloaded in 5% of the time intervals.' },
  q: { name: 'overflow frequency q', text: 'How often the machines were actually overloaded: the share of (machine, 5-minute interval) pairs whose total usage exceeded c, measured on data the packing did not see.' },
  m: { name: 'normalized machines m', text: 'Machines used, divided by the fewest any packing could use (total peak demand / c, rounded up): m = 1.2 means 20% more machines than that bound.' },
  ℓ: { name: 'ell: clairvoyance', text: 'The share of the day the fit tests may look at (ℓ = 1: all of it; ℓ = 0.5: the first half, judged on the second half).' },
  R: { name: 'realisations R', text: 'The number of usage samples drawn per VM in the resampled mode.' },
  SLO: { name: 'service-level objective', text: 'The promise to tenants, here a bound on how often their machine may be overloaded (ρ).' },
  GPA: { name: 'Gaussian Percentile Approximation', text: 'A fit test: a VM fits on a machine if the mean plus z(1−ρ) standard deviations of the machine\'s total usage stays below c, as if the total were Gaussian (seed 002).' },
  Pareto: { name: 'Pareto front', text: 'The points no other point beats on both axes at once: fewer machines and fewer overflows.' },
  'av:F': { name: 'average-times-F fit test', text: 'Reserve F times each VM\'s mean usage (F = 1.5: 50% headroom).' },
  'perc:P': { name: 'percentile fit test', text: 'Reserve each VM\'s P-th percentile usage (P = 100 is its peak).' },
  max: { name: 'peak reservation', text: 'Reserve each VM\'s peak usage: never overloaded, but many machines.' },
  Cantelli: { name: 'Cantelli fit test', text: 'Reserve mean + B standard deviations per machine, a bound that holds for any distribution (more cautious than GPA).' },
  'First Fit': { name: 'First Fit', text: 'Put each VM on the first machine it fits on.' },
  'Best Fit': { name: 'Best Fit', text: 'Put each VM on the machine it fits on with the least room left, keeping other machines free.' },
  // admission (seed 000)
  C: { name: 'cluster capacity C', text: 'The cluster\'s cores; a scale-out that does not fit in them fails.' },
  'scale-out': { name: 'scale-out', text: 'A running deployment asking for more cores; admission control keeps room for these.' },
  SLA: { name: 'service-level agreement', text: 'The promise the admission policy must keep: at most ε of the scale-out requests may fail.' },
  ε: { name: 'epsilon: SLA failure rate', text: 'The largest share of scale-out requests allowed to fail (ε = 0.001: one in a thousand).' },
  θ: { name: 'theta: threshold', text: 'The admission policy\'s knob, tuned run by run to the largest value that still meets the SLA.' },
  ZEROTH: { name: 'ZEROTH policy', text: 'Admit a new deployment while the cores in use stay below a threshold θ0.' },
  FIRST: { name: 'FIRST policy', text: 'Admit while the expected cores of all deployments, at every future time, stay below θ1 (uses the mean of the future).' },
  SECOND: { name: 'SECOND policy', text: 'Admit while a bound on the probability of running out of cores (from means and variances, Cantelli) stays below θ2.' },
  κ: { name: 'kappa: kill factor', text: 'How much longer a deployment lives than its cores: it ends after an exponential time with rate λ/κ.' },
  λ: { name: 'lambda', text: 'Admission: the rate at which a deployment\'s cores end (per hour). Oversubscription: C2MARL\'s Lagrange multiplier, the price it puts on running hot.' },
  utilization: { name: 'utilization', text: 'Cores in use divided by the cores available, averaged over time.' },
  // oversubscription (seed 001)
  oversubscription: { name: 'oversubscription', text: 'Giving VMs fewer physical cores than they asked for, betting they will not all be busy at once.' },
  x: { name: 'oversubscription rate x', text: 'A new VM asking for c cores is given x·c; x = 0.6 saves 40% of its cores.' },
  β: { name: 'beta: hot threshold', text: 'A PM is hot in an hour when its VMs\' usage reaches β of its cores (β = 0.6 of 48).' },
  α: { name: 'alpha: safety level', text: 'The probability that a PM stays safe (hot for fewer than δ·T hours of an episode); safe at level α when PM-Hot-R ≤ 1 − α.' },
  'PM-Hot-R': { name: 'PM hot rate', text: 'The worst PM\'s share of episodes in which it ran hot too long: the risk to one machine.' },
  'C-Hot-R': { name: 'cluster hot rate', text: 'The share of episodes with 3 or more hours in which some PM ran hot, not necessarily the same PM (seed 001 eq. 4): the risk somewhere in the cluster. A few hot PM-hours spread over many PMs are enough, so it sits far above PM-Hot-R.' },
  'S-Cores': { name: 'saved cores', text: 'The share of requested cores not assigned: what oversubscription saves.' },
  'Grid-x': { name: 'fixed rate', text: 'Every subscriber gets the same rate x, all day.' },
  C2MARL: { name: 'chance-constrained multi-agent reinforcement learning', text: 'One learning agent per subscriber picks its rate each hour; a Lagrange multiplier λ keeps the chance of running hot below 1 − α (seed 001).' },
  // lifetime (seed 003)
  'empty hosts': { name: 'empty hosts', text: 'Hosts with no VM on them, as a share of all hosts, averaged over time: room for large VMs and maintenance.' },
  stranding: { name: 'stranding', text: 'Free resources that cannot be used, e.g. free memory on a host whose cores are all taken.' },
  lifetime: { name: 'VM lifetime', text: 'How long a VM runs from creation to exit.' },
  A: { name: 'prediction accuracy A', text: 'How often the noisy predictor names a VM\'s lifetime class correctly (A = 1: always, like the oracle).' },
  oracle: { name: 'oracle predictor', text: 'A predictor that knows every VM\'s true lifetime: the best case.' },
  reprediction: { name: 'reprediction', text: 'Updating a VM\'s predicted exit as it ages: a VM that outlived its prediction gets a new, later one.' },
  'LA-Binary': { name: 'lifetime-aware binary', text: 'Sorts VMs into short (< 2 h) and long, and keeps them on separate hosts.' },
  NILAS: { name: 'Non-Invasive Lifetime-Aware Scheduling', text: 'Prefers hosts whose VMs will exit at about the same time as the new one, so hosts empty out together (seed 003).' },
  LAVA: { name: 'Lifetime-Aware VM Allocation', text: 'Groups hosts by the lifetime class of their VMs and lets long-lived hosts take short VMs in their gaps; adapts when predictions turn out wrong (seed 003).' },
  LARS: { name: 'Lifetime-Aware ReScheduling', text: 'When a host is drained for maintenance, live-migrate its VMs in order of remaining lifetime, so VMs that will exit soon need not move (seed 003).' },
  // reservations (seed 004)
  ERA: { name: 'Economic Resource Allocation', text: 'Reserve capacity ahead for jobs with a window and a value, and price each reservation by the demand it displaces (seed 004).' },
  BASIC_ECON: { name: 'ERA\'s pricing', text: 'Price a reservation by the predicted demand of the slots it takes; accept the job if its value covers the cheapest start.' },
  greedy: { name: 'greedy (first fit)', text: 'Reserve the earliest start that fits, at a fixed price.' },
  'on-demand': { name: 'on-demand', text: 'No reservations: run a job now at the full price if it fits now, else reject it.' },
  κ_use: { name: 'kappa_use: committed share', text: 'The share of the planned capacity the reservations may commit; the rest absorbs surprises.' },
  'value efficiency': { name: 'value efficiency', text: 'The value of the jobs done by their deadline, as a share of the value of all jobs asked for.' },
  'late jobs': { name: 'late jobs', text: 'Accepted jobs that finished after their deadline, because the actual capacity fell short of the plan.' },
  revenue: { name: 'revenue', text: 'The sum of the prices the accepted jobs paid (in units of the full price per core-minute).' },
};

let tipCount = 0;

/**
 * The term `key` as a focusable button with its tooltip (`shown` is the text on the page; default: the key).
 * Hover, keyboard focus or a tap shows the explanation; Escape hides it. Throws on a key the glossary lacks,
 * so a lesson cannot cite a term it does not explain.
 * @param {string} key
 * @param {string} [shown]
 * @param {string} [more] what the term means in this place (a table column's formula), appended to the tip
 */
export function gloss(key, shown = key, more = '') {
  const entry = GLOSSARY[key];
  if (!entry) throw new Error(`glossary: no entry for '${key}'`);
  const id = `gloss-tip-${++tipCount}`;
  const tip = h('span', { class: 'gloss-tip', role: 'tooltip', id }, h('strong', {}, `${key}: ${entry.name}. `), entry.text,
    more ? h('span', { class: 'gloss-more' }, ` In this column: ${more}.`) : null);
  const btn = h('button', {
    type: 'button', class: 'gloss', 'aria-describedby': id, 'aria-expanded': 'false', dataset: { term: key },
    onfocus: () => place(btn, tip),
    onmouseenter: () => place(btn, tip),
    onclick: () => { btn.setAttribute('aria-expanded', btn.getAttribute('aria-expanded') === 'true' ? 'false' : 'true'); place(btn, tip); },
    onblur: () => btn.setAttribute('aria-expanded', 'false'),
    onkeydown: (e) => { if (e.key === 'Escape') { btn.setAttribute('aria-expanded', 'false'); btn.blur(); } },
  }, shown);
  return h('span', { class: 'gloss-wrap' }, btn, tip);
}

/**
 * A tip inside a scrolling table (`.table-scroll`) would be clipped by the scroller: there it is placed in the
 * viewport (fixed, below its term or above it near the window's bottom, kept inside the window's width); elsewhere, and on narrow screens (where the
 * style sheet docks every tip at the bottom), the style sheet places it.
 */
function place(btn, tip) {
  const inTable = btn.closest('.table-scroll') && !window.matchMedia('(max-width: 640px)').matches;
  tip.classList.toggle('gloss-tip-fixed', Boolean(inTable));
  if (!inTable) return;
  const r = btn.getBoundingClientRect();
  const width = Math.min(320, window.innerWidth * 0.8);
  const below = r.bottom + 4;
  const above = r.top - 4 - tip.offsetHeight;
  tip.style.top = `${Math.round(below + tip.offsetHeight > window.innerHeight - 8 && above >= 8 ? above : below)}px`;
  tip.style.left = `${Math.round(Math.max(8, Math.min(r.left, window.innerWidth - width - 8)))}px`;
}

/**
 * A sentence with glossary marks as nodes: `{key}` shows the key, `{key|shown}` shows other words for it.
 * @param {string} text
 * @returns {(string|Node)[]}
 */
export function glossText(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\{([^{}|]+)(?:\|([^{}]+))?\}/g)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(gloss(m[1], m[2] || m[1]));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * A results table's column header (`<th scope="col">`): `label` with its glossary term (`term`, default the label
 * itself when the glossary has it) as in the controls' labels, `title` (the column's formula) joining the term's
 * tip; a label with no term keeps `title` as its tooltip.
 * @param {string} label
 * @param {{ title?: string, term?: string|null, cls?: string }} [opts] cls: the cell class (default `num`)
 */
export function headerCell(label, { title, term, cls = 'num' } = {}) {
  const key = term === undefined ? (GLOSSARY[label] ? label : null) : term;
  if (!key) return h('th', { scope: 'col', class: cls, title }, label);
  return h('th', { scope: 'col', class: cls }, gloss(key, label, title));
}
