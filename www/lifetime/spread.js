// The spread across pool instances of seed 003's E3.1 (results/003/tables.md), for the lifetime view's note on
// which differences between policies one run can show: the paired per-pool differences of the stored runs
// (results/003/e31_e32.json), and the sentence built from them. No DOM, no engine: tests/e2e/lifetime-spread.test.mjs
// ties SPREAD to the stored runs and checks spreadText on hand-made rows.

/**
 * The paired per-pool differences of Δ empty hosts vs best fit (pp) in the stored E3.1 runs (results/003/e31_e32.json:
 * 5 pools, seeds 1–5, the default share 0.2 and 40-core / 128 GB hosts, the pool sized with App. F's alive set:
 * `hosts` its range over the seeds). `sets` maps a setting (predictor, `/warm-up` for App. F's alive set placed
 * first) to pairs `[later, earlier, mean, sd, lo, hi]` in the engine's policy order: the per-pool difference
 * Δ(later) − Δ(earlier) in pp, its mean, standard deviation over the pools (n − 1) and 95% Student-t CI of the mean,
 * rounded to 0.01 pp as tables.md prints them (E3.1's Δ rows and its paired LAVA − NILAS table). A pair with best fit
 * is the policy's own Δ.
 */
export const SPREAD = {
  pools: 5,
  seeds: '1–5',
  hosts: [416, 509],
  sets: {
    oracle: [
      ['la-binary', 'best-fit', 0.37, 0.72, -0.52, 1.27],
      ['nilas', 'best-fit', 3.5, 2.33, 0.6, 6.39],
      ['nilas', 'la-binary', 3.12, 2.1, 0.52, 5.73],
      ['lava', 'best-fit', 2.55, 1.79, 0.33, 4.77],
      ['lava', 'la-binary', 2.18, 1.59, 0.2, 4.16],
      ['lava', 'nilas', -0.94, 0.54, -1.62, -0.27],
    ],
    'noisy:0.9': [
      ['la-binary', 'best-fit', -0.3, 0.87, -1.38, 0.77],
      ['nilas', 'best-fit', 1.77, 1.57, -0.18, 3.72],
      ['nilas', 'la-binary', 2.08, 1.67, 0.01, 4.14],
      ['lava', 'best-fit', 1.74, 1.25, 0.19, 3.28],
      ['lava', 'la-binary', 2.04, 1.43, 0.26, 3.82],
      ['lava', 'nilas', -0.04, 0.48, -0.64, 0.56],
    ],
    'oracle/warm-up': [
      ['la-binary', 'best-fit', 0.4, 1, -0.84, 1.64],
      ['nilas', 'best-fit', 4.32, 1.86, 2.02, 6.63],
      ['nilas', 'la-binary', 3.92, 1.73, 1.77, 6.07],
      ['lava', 'best-fit', 3.77, 1.71, 1.65, 5.9],
      ['lava', 'la-binary', 3.37, 1.42, 1.61, 5.13],
      ['lava', 'nilas', -0.55, 0.38, -1.02, -0.08],
    ],
    'noisy:0.9/warm-up': [
      ['la-binary', 'best-fit', -0.16, 1.12, -1.56, 1.23],
      ['nilas', 'best-fit', 1.76, 0.95, 0.58, 2.94],
      ['nilas', 'la-binary', 1.93, 1.34, 0.26, 3.59],
      ['lava', 'best-fit', 1.24, 0.94, 0.08, 2.41],
      ['lava', 'la-binary', 1.41, 1.11, 0.03, 2.79],
      ['lava', 'nilas', -0.52, 0.63, -1.31, 0.27],
    ],
  },
};

/**
 * The setting of SPREAD a scenario's run is read against: `{ key, label, exact }`. The noisy predictor at A = 0.9
 * with its default estimate (`capped-mean`) and reprediction has its own set; every other predictor is read against
 * the oracle's (`exact` false); App. F's warm-up (`lifetime.alive_at_start`) selects the `/warm-up` sets.
 */
export function spreadSet(scenario) {
  const l = (scenario && scenario.lifetime) || {};
  const noisy = l.predictor === 'noisy' && l.accuracy === 0.9 && (l.noisy_estimate ?? 'capped-mean') === 'capped-mean'
    && (l.reprediction ?? true);
  const warm = !!l.alive_at_start;
  const pred = noisy ? 'noisy:0.9' : 'oracle';
  return {
    key: warm ? `${pred}/warm-up` : pred,
    label: `${noisy ? 'noisy predictor A = 0.9' : 'oracle'}, ${warm ? 'App. F warm-up' : 'empty start'}`,
    exact: noisy || (l.predictor ?? 'oracle') === 'oracle',
  };
}

const sig = (v) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(2)}`;

/**
 * The note under a complete run's results: per pair of the run's policies with a stored spread, the run's
 * difference Δ(later) − Δ(earlier) (pp; best fit's Δ is 0) and whether it is within the spread across pools — its
 * magnitude below the s.d. of that pair's per-pool difference in SPREAD (the paired difference, not each policy's
 * own s.d.: the pools move the policies together) — with the stored mean and 95% CI over the 5 pools beside it.
 * `rows`: the report's results ({ policy, empty_hosts_pp_vs_best_fit }); `scenario`: the run's scenario
 * (spreadSet); `hosts`: the run's pool size; `title(name)`: a policy's display name.
 */
export function spreadText(rows, scenario, hosts, title = (p) => p, spread = SPREAD) {
  const set = spreadSet(scenario);
  const delta = new Map(rows.map((r) => [r.policy, r.policy === 'best-fit' ? 0 : r.empty_hosts_pp_vs_best_fit]));
  const within = [];
  const beyond = [];
  for (const [a, b, mean, sd, lo, hi] of spread.sets[set.key] || []) {
    if (!delta.has(a) || !delta.has(b) || !Number.isFinite(delta.get(a)) || !Number.isFinite(delta.get(b))) continue;
    const d = delta.get(a) - delta.get(b);
    const s = `${title(a)} − ${title(b)} ${sig(d)} pp (s.d. ${sd.toFixed(2)} pp; ${spread.pools} pools: ${sig(mean)}, 95% CI [${sig(lo)}, ${sig(hi)}])`;
    (Math.abs(d) < sd ? within : beyond).push(s);
  }
  if (!within.length && !beyond.length) return '';
  const [h0, h1] = spread.hosts;
  const head = `Spread across pools, measured on the ${spread.pools} pools of results/003 E3.1 (seeds ${spread.seeds}, ${h0}–${h1} hosts each, ${set.label}${set.exact ? '' : '; this run\'s predictor differs'}); this run is one pool of ${hosts} hosts. A difference between two policies in one run is within the spread when it is smaller than the s.d. of that pair's per-pool difference.`;
  return [head,
    within.length ? `Within the spread: ${within.join('; ')}.` : '',
    beyond.length ? `Beyond the spread: ${beyond.join('; ')}.` : ''].filter(Boolean).join(' ');
}
