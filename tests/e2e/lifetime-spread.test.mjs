// The lifetime view's spread note (www/lifetime/spread.js), in node: SPREAD is the paired per-pool differences of
// the stored E3.1 runs (recomputed here from results/003/e31_e32.json), and spreadText calls a difference within
// the spread by the pair's own per-pool s.d., on hand-made rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SPREAD, spreadSet, spreadText } from '../../www/lifetime/spread.js';

const RAW = JSON.parse(readFileSync(fileURLToPath(new URL('../../results/003/e31_e32.json', import.meta.url)), 'utf8'));
const ORDER = ['best-fit', 'la-binary', 'nilas', 'lava'];
/** t_{0.975} with 4 degrees of freedom, as the findings tables round it (scripts/findings.py T975). */
const T975_4 = 2.776;
const r2 = (x) => Math.round(x * 100) / 100 + 0; // + 0: −0 → 0

test('SPREAD is the paired per-pool differences of the stored E3.1 runs (5 pools, both starts, both predictors)', () => {
  const tags = (r) => Object.keys(r).filter((k) => !['command', 'seed', 'engine', 'results'].includes(k)).sort().join(',');
  const want = {};
  let hosts = [];
  for (const [key, pred, warm] of [['oracle', 'oracle', false], ['noisy:0.9', 'noisy:0.9', false],
    ['oracle/warm-up', 'oracle', true], ['noisy:0.9/warm-up', 'noisy:0.9', true]]) {
    // E3.1's runs: tagged with the predictor alone (empty start) or with App. F's alive set
    const runs = RAW.runs.filter((r) => r.predictor === pred && tags(r) === (warm ? 'alive_at_start,predictor' : 'predictor'))
      .sort((a, b) => a.seed - b.seed);
    assert.deepEqual(runs.map((r) => r.seed), [1, 2, 3, 4, 5], key);
    if (warm) hosts = hosts.concat(runs.map((r) => r.results[0].hosts));
    const delta = runs.map((r) => Object.fromEntries(r.results.map((x) => [x.policy, x.empty_hosts_pp_vs_best_fit])));
    want[key] = [];
    for (let j = 1; j < ORDER.length; j++) {
      for (let i = 0; i < j; i++) {
        const d = delta.map((x) => x[ORDER[j]] - x[ORDER[i]]);
        const m = d.reduce((s, v) => s + v, 0) / d.length;
        const sd = Math.sqrt(d.reduce((s, v) => s + (v - m) ** 2, 0) / (d.length - 1));
        const h = T975_4 * sd / Math.sqrt(d.length);
        want[key].push([ORDER[j], ORDER[i], r2(m), r2(sd), r2(m - h), r2(m + h)]);
      }
    }
  }
  const sort = (pairs) => [...pairs].sort((x, y) => (x[0] + x[1]).localeCompare(y[0] + y[1]));
  for (const key of Object.keys(want)) {
    assert.deepEqual(sort(SPREAD.sets[key]), sort(want[key]),
      `www/lifetime/spread.js SPREAD.sets['${key}'] differs from results/003/e31_e32.json; expected ${JSON.stringify(want[key])}`);
  }
  assert.deepEqual(Object.keys(SPREAD.sets).sort(), Object.keys(want).sort());
  assert.deepEqual(SPREAD.hosts, [Math.min(...hosts), Math.max(...hosts)]);
  assert.equal(SPREAD.pools, 5);
  // tables.md's paired LAVA − NILAS row (empty start, oracle) is the same figure
  assert.match(readFileSync(fileURLToPath(new URL('../../results/003/tables.md', import.meta.url)), 'utf8'),
    /\| empty \| oracle \| -0\.94 ± 0\.67 \| \[-1\.62, -0\.27\] \|/);
});

test('spreadSet: the noisy A = 0.9 set only for its stored setting; the warm-up sets with App. F\'s alive set', () => {
  assert.deepEqual(spreadSet({ lifetime: { predictor: 'oracle' } }), { key: 'oracle', label: 'oracle, empty start', exact: true });
  assert.equal(spreadSet({ lifetime: { predictor: 'noisy', accuracy: 0.9, noisy_estimate: 'capped-mean', reprediction: true } }).key, 'noisy:0.9');
  assert.equal(spreadSet({ lifetime: { predictor: 'noisy', accuracy: 0.9, alive_at_start: true } }).key, 'noisy:0.9/warm-up');
  // another accuracy, estimate or no reprediction: read against the oracle's, and said so
  for (const l of [{ predictor: 'noisy', accuracy: 0.7 }, { predictor: 'noisy', accuracy: 0.9, noisy_estimate: 'median' },
    { predictor: 'noisy', accuracy: 0.9, reprediction: false }, { predictor: 'distributional' }]) {
    assert.deepEqual(spreadSet({ lifetime: l }), { key: 'oracle', label: 'oracle, empty start', exact: false }, JSON.stringify(l));
  }
});

test('spreadText: within the spread = below the pair\'s per-pool s.d., not the larger policy s.d.', () => {
  // a hand-made set: LAVA − NILAS varies by 0.5 pp from pool to pool although each policy's Δ varies by 2 pp
  const spread = {
    pools: 5, seeds: '1–5', hosts: [400, 500],
    sets: { oracle: [['nilas', 'best-fit', 3, 2, 0.5, 5.5], ['lava', 'best-fit', 2, 2, -0.5, 4.5], ['lava', 'nilas', -1, 0.5, -1.6, -0.4]] },
  };
  const rows = [
    { policy: 'best-fit', empty_hosts_pp_vs_best_fit: 0 },
    { policy: 'nilas', empty_hosts_pp_vs_best_fit: 2.5 },
    { policy: 'lava', empty_hosts_pp_vs_best_fit: 1.7 },
  ];
  const t = spreadText(rows, { lifetime: { predictor: 'oracle' } }, 341, (p) => p.toUpperCase(), spread);
  // NILAS 2.5 < 2 s.d.? no: 2.5 ≥ 2 → beyond; LAVA 1.7 < 2 → within; LAVA − NILAS = −0.8, |−0.8| ≥ 0.5 → beyond
  assert.match(t, /^Spread across pools, measured on the 5 pools of results\/003 E3\.1 \(seeds 1–5, 400–500 hosts each, oracle, empty start\); this run is one pool of 341 hosts\./);
  assert.match(t, /Within the spread: LAVA − BEST-FIT \+1\.70 pp \(s\.d\. 2\.00 pp; 5 pools: \+2\.00, 95% CI \[−0\.50, \+4\.50\]\)\./);
  assert.match(t, /Beyond the spread: NILAS − BEST-FIT \+2\.50 pp \(s\.d\. 2\.00 pp; 5 pools: \+3\.00, 95% CI \[\+0\.50, \+5\.50\]\); LAVA − NILAS −0\.80 pp \(s\.d\. 0\.50 pp; 5 pools: −1\.00, 95% CI \[−1\.60, −0\.40\]\)\.$/);
  // a pair whose policy did not run is left out; with no pair left there is no note
  assert.doesNotMatch(spreadText(rows.slice(0, 2), { lifetime: {} }, 341, String, spread), /LAVA|lava/);
  assert.equal(spreadText(rows.slice(0, 1), { lifetime: {} }, 341, String, spread), '');
  // another predictor says it is read against the stored setting
  assert.match(spreadText(rows, { lifetime: { predictor: 'distributional' } }, 341, String, spread), /oracle, empty start; this run's predictor differs\)/);
  // the stored E3.1 oracle set and the default view's Δs (seed 1, 341 hosts: `packlab lifetime run`, NILAS +1.86,
  // LAVA +1.39): LAVA − NILAS −0.47 pp is within its paired s.d. 0.54, the 5 pools' −0.94 [−1.62, −0.27] beside it;
  // under the old rule (each policy's own s.d., NILAS 2.33) the stored −0.94 itself would have been within
  const def = [['best-fit', 0], ['la-binary', 0.30], ['nilas', 1.86], ['lava', 1.39]].map(([policy, v]) => ({ policy, empty_hosts_pp_vs_best_fit: v }));
  const d = spreadText(def, { lifetime: { predictor: 'oracle' } }, 341, String);
  assert.match(d, /this run is one pool of 341 hosts/);
  assert.match(d, /Within the spread: .*lava − nilas −0\.47 pp \(s\.d\. 0\.54 pp; 5 pools: −0\.94, 95% CI \[−1\.62, −0\.27\]\)/);
  // a LAVA − NILAS gap as large as the stored mean is beyond the spread
  const far = def.map((r) => (r.policy === 'lava' ? { ...r, empty_hosts_pp_vs_best_fit: 1.86 - 0.94 } : r));
  assert.match(spreadText(far, { lifetime: { predictor: 'oracle' } }, 341, String), /Beyond the spread: .*lava − nilas −0\.94 pp/);
});
