// End to end in real Chromium: the pool of Web Workers (www/common/pool.js) and the sweep panel
// (www/common/sweep.js). A placement frontier and an admission tuning computed on 1, 2 and 3 workers give the
// same report, bit for bit, as the native CLI; the run says how many workers computed it; the speed-up over one
// worker is recorded (not asserted). A sweep file run in the page gives `packlab sweep`'s results files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { useBrowser, newPage, cliRun, recordMetrics, tempDir, grabDownload, poolRuns, CLI, ROOT } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();

test('a frontier and an admission tuning on a pool of workers give the one worker report, bit for bit', async () => {
  const w = await loadWasm();
  const scenarios = {
    // 1052 VMs × 3000 resampled realisations: each frontier point is real work
    frontier: w.check_scenario({ placement: { mode: 'resampled', realisations: 3000 } }).scenario,
    // the admission view's default preset (E0.1: four policies, 2 runs) made small, C = 300 cores and 500 h instead
    // of 1,000 cores and 1,460 h: six tunings here (three pool sizes, twice); the default itself runs to the CLI's
    // table once, in admission.test.mjs
    admission: w.check_scenario({ model: 'admission', admission: { params: { capacity: 300, horizon_hours: 500 } } }).scenario,
  };
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const sizes = [1, 2, 3];
  // minMs 0: every run goes to the pool, however short (by default only runs worth the pool's set-up); each scenario
  // twice: the second run finds what the first left in the workers (admission: alive tables)
  const out = {};
  for (const size of sizes) {
    const got = await poolRuns(page, { scenarios, size, minMs: 0, passes: 2 });
    for (const [key, r] of Object.entries(got)) out[`${key}@${size}`] = r;
  }

  for (const label of Object.keys(scenarios)) {
    const native = cliRun({ link: w.scenario_to_link(scenarios[label]) });
    for (const key of sizes.flatMap((s) => [`${label}@${s}`, `${label}-again@${s}`])) {
      const size = Number(key.split('@')[1]);
      const r = out[key];
      assert.deepEqual(r.report, native, `${label} on ${size} workers`);
      // one worker never splits; more workers all take part once the run is long enough
      if (size === 1) assert.equal(r.workers, 1, label);
      else assert.ok(r.workers >= 2 && r.workers <= size, `${label} on ${size} workers: ${r.workers} computed`);
      assert.ok(r.partials > 1, `${label}: partial results while it runs`);
    }
  }
  const speedup = (label, n) => +(out[`${label}@1`].ms / out[`${label}@${n}`].ms).toFixed(2);
  const ms = (label) => Object.fromEntries(sizes.map((s) => [s, Math.round(out[`${label}@${s}`].ms)]));
  const m = {
    browser_pool_cores: cores,
    browser_pool_frontier_ms: ms('frontier'),
    browser_pool_frontier_again_ms: ms('frontier-again'),
    browser_pool_admission_ms: ms('admission'),
    browser_pool_admission_again_ms: ms('admission-again'),
    browser_pool_frontier_speedup_2: speedup('frontier', 2),
    browser_pool_frontier_again_speedup_2: speedup('frontier-again', 2),
    browser_pool_admission_speedup_2: speedup('admission', 2),
    browser_pool_admission_again_speedup_2: speedup('admission-again', 2),
  };
  console.log(JSON.stringify(m));
  recordMetrics(m);
});

test('the pool is taken only when what its members save is worth their set-up (run-ops.js poolWorth)', async () => {
  const { poolWorth } = await import('../../www/common/run-ops.js');
  const pool = { size: 2, minMs: 1000 };
  // set-up 1.3 × 900 + 70 = 1,240 ms; 2 members save half the rest: worth it above a rest of 4 × 1,240 = 4,960 ms
  assert.equal(poolWorth(pool, 100, 49, 900), false); // rest 4,900 ms
  assert.equal(poolWorth(pool, 100, 50, 900), true); // rest 5,000 ms
  // a cheap plan: the threshold alone decides (rest > 1,000 ms)
  assert.equal(poolWorth(pool, 100, 10, 1), false);
  assert.equal(poolWorth(pool, 100, 11, 1), true);
  // three members save two thirds: 3,000 ms of rest against 2 × (1.3 × 500 + 70) = 1,440 ms
  assert.equal(poolWorth({ size: 3, minMs: 1000 }, 100, 30, 500), true);
  assert.equal(poolWorth({ size: 3, minMs: 1000 }, 100, 21, 500), false); // 1,400 ms saved
  // nothing measured yet; minMs 0 forces the pool for any rest
  assert.equal(poolWorth(pool, null, 50, 0), false);
  assert.equal(poolWorth({ size: 2, minMs: 0 }, 1, 1, 1e6), true);
});

test("the page's own pool keeps a frontier whose plan is as dear as its points on one worker, with the CLI's report", async () => {
  const w = await loadWasm();
  // 1052 VMs × 60,000 realisations: the resampling (its plan, ~0.7–0.9 s) costs about what its 28 points do, so a copy
  // in each member costs more than the members save (6.6 s on 2 members against 3.2 s on one, before)
  const scenario = w.check_scenario({ placement: { mode: 'resampled', realisations: 60000 } }).scenario;
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}#run=ask`);
  // the page's default pool on 2 cores, with its default threshold
  const { run: r } = await poolRuns(page, { scenarios: { run: scenario }, size: 2 });
  assert.equal(r.workers, 1);
  assert.deepEqual(r.report, cliRun({ link: w.scenario_to_link(scenario) }));
});

test('the page takes ?workers=N and says how many workers computed a run', async (t) => {
  const w = await loadWasm();
  const page = await newPage(env.browser);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  if (cores < 2) return t.skip(`${cores} core`);
  // the admission view's default experiment (E0.1, C = 1,000 cores) over half its horizon (730 h, a month, instead of
  // 1,460 h): its first simulation run still puts the rest well above 1 s (the default itself runs once per suite,
  // in the tab tour)
  const link = w.scenario_to_link(w.check_scenario({ model: 'admission', admission: { params: { horizon_hours: 730 } } }).scenario);
  await page.goto(`${env.server.url}?workers=2#s=${link}`);
  await page.waitForFunction(() => {
    const c = document.querySelector('#admission-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > 0;
  }, null, { timeout: 120_000 });
  const text = await page.evaluate(() => document.body.innerText);
  assert.match(text, /tuned in [0-9.]+ s on 2 workers/);
});

test('a sweep file run in the page gives the results files of packlab sweep, byte for byte', async () => {
  const sweepFile = path.join(ROOT, 'examples/sweeps/placement-capacity.json');
  const dir = tempDir('packlab-sweep-');
  execFileSync(CLI, ['sweep', sweepFile, '--out', path.join(dir, 'cli')], { cwd: ROOT, stdio: 'ignore' });
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  await page.waitForFunction(() => Number((document.querySelector('#frontier-card') || { dataset: {} }).dataset.runs) > 0, null, { timeout: 60_000 });
  await page.click('#sweep-toggle');
  // the panel starts from the scenario on display over three seeds
  const starter = JSON.parse(await page.inputValue('#sweep-text'));
  assert.deepEqual(starter.axes, [{ field: 'seed', values: [1, 2, 3] }]);
  // before anything starts, Run again and Run sweep state their cost: the view's last run, and the cells × it
  const { costText, sweepCostText } = await import('../../www/common/cost.js');
  const ms = Number(await page.getAttribute('#frontier-card', 'data-ms'));
  assert.equal(await page.textContent('#run-cost'), costText(1, ms));
  assert.equal(await page.textContent('#sweep-cost'), sweepCostText(3, ms));
  // a bad value is named and nothing runs
  await page.fill('#sweep-text', JSON.stringify({ scenario: {}, axes: [{ field: 'placement.capacity', values: [1, -2] }] }));
  await page.click('#sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-card').dataset.state === 'invalid');
  assert.match(await page.textContent('#sweep-error'), /axes\[0\]\.values\[1\].*placement\.capacity/);
  await page.fill('#sweep-text', readFileSync(sweepFile, 'utf8'));
  await page.waitForFunction(() => /^12 cells, one run each: about /.test(document.querySelector('#sweep-cost').textContent));
  await page.click('#sweep-run');
  await page.waitForFunction(() => document.querySelector('#sweep-card').dataset.state === 'done', null, { timeout: 120_000 });
  assert.equal(await page.$$eval('#sweep-rows tr', (r) => r.length), 12);
  const json = await grabDownload(page, '#sweep-json', dir);
  const csv = await grabDownload(page, '#sweep-csv', dir);
  assert.ok(json.bytes.equals(readFileSync(path.join(dir, 'cli/results.json'))), 'results.json differs from the CLI\'s');
  assert.ok(csv.bytes.equals(readFileSync(path.join(dir, 'cli/results.csv'))), 'results.csv differs from the CLI\'s');
  assert.deepEqual(page.problems, []);
});
