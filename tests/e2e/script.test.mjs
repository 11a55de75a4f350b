// End to end in real Chromium: the placement view's policy code box (issue 31, docs/policies.md). A starter is
// picked, broken (the engine's error at line:column under the box, nothing runs), fixed and run; its point is
// in the table in the script colour with the numbers of the native CLI on the same link, bit for bit (the GPA
// starter and the idea not in the papers, so wasm = native for both); the script travels in the link and
// stays across tab switches. The oversub tab's box: the MA and SL starters give the built-in rows (= native);
// a script that fails at run time fails only its row (oversub) or point (placement). The admission tab's box: the
// FIRST and SECOND starters each give their built-in's row (= native).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, waitForRun, waitForSettledRun, readTable, tableOf, cliRun } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();
const BOX = '#f-placement-scripts-0-source';

test('code box: starter, error at line:column, fix, run in its colour = native, link and tab round trip', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  let n = await waitForRun(page);
  assert.equal(await page.inputValue(BOX), '', 'no script by default');

  // the GPA starter: a point script:gpa with exactly the built-in gpa:0.05's m and q
  await page.selectOption('#placement-script-starter', 'gpa');
  n = await waitForSettledRun(page, n);
  let rows = await readTable(page);
  const mine = rows.find((r) => r.spec === 'script:gpa');
  const builtin = rows.find((r) => r.spec === 'gpa:0.05');
  assert.ok(mine && builtin, JSON.stringify(rows.map((r) => r.spec)));
  assert.deepEqual([mine.m, mine.q, mine.m_abs], [builtin.m, builtin.q, builtin.m_abs]);
  assert.equal(await page.getAttribute('#frontier-rows tr[data-spec="script:gpa"] .swatch', 'class'), 'swatch fam-script');
  const colour = await page.$eval('#frontier-rows tr[data-spec="script:gpa"] .swatch', (e) => getComputedStyle(e).backgroundColor);
  assert.equal(colour, 'rgb(213, 94, 0)');
  // wasm = native: the CLI on the page's link gives the same table, string for string
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url() })));

  // a syntax error: shown under the box at its line and column; the run on display stays, nothing runs
  const good = await page.inputValue(BOX);
  const broken = good.replace('let m = mu + mu_k;', 'let m = mu + ;');
  assert.notEqual(broken, good);
  await page.fill(BOX, broken);
  await page.waitForFunction((s) => document.querySelector(`${s}-error`).textContent !== '', BOX);
  assert.match(await page.textContent(`${BOX}-error`), /^line 6, column \d+: /);
  assert.equal(await page.getAttribute(BOX, 'aria-invalid'), 'true');
  assert.equal(await page.getAttribute('#frontier-card', 'data-state'), 'invalid');
  assert.equal(Number(await page.getAttribute('#frontier-card', 'data-runs')), n);
  assert.ok((await readTable(page)).some((r) => r.spec === 'script:gpa'), 'the results on display stay');

  // fixed: it runs again
  await page.fill(BOX, good);
  await page.waitForFunction((s) => document.querySelector(`${s}-error`).textContent === '', BOX);

  // the idea not in the papers (Cantelli on the machine's total): wasm = native too
  await page.selectOption('#placement-script-starter', 'cantelli-total');
  n = await waitForSettledRun(page, n);
  rows = await readTable(page);
  assert.ok(rows.some((r) => r.spec === 'script:cantelli-total'), JSON.stringify(rows.map((r) => r.spec)));
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url() })));

  // the link carries the script (versioned), and opening it shows it in the box with the same table
  const url = page.url();
  const w = await loadWasm();
  const s = w.scenario_from_link(url).placement.scripts;
  assert.equal(s.length, 1);
  assert.equal(s[0].name, 'cantelli-total');
  assert.equal(s[0].language, 'rhai-1');
  const source = await page.inputValue(BOX);
  assert.equal(s[0].source, source);

  // across a tab switch the box keeps its text (the admission tab's default run cancelled: it runs once per suite, in
  // the tab tour)
  await page.click('#tab-admission');
  await page.click('#admission-cancel');
  await page.click('#tab-placement');
  assert.equal(await page.inputValue(BOX), source);

  const again = await newPage(env.browser);
  await again.goto(url);
  await waitForRun(again);
  assert.equal(await again.inputValue(BOX), source);
  assert.deepEqual(await readTable(again), rows);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(again.problems, []);
  await again.context().close();
  await page.context().close();
});

test('oversub code box: starters ma/sl give the built-ins\' rows = native; a failing script fails only its row', async () => {
  const w = await loadWasm();
  const d = w.default_scenario();
  const starters = w.model_call({ model: 'oversub' }, 'starters', null);
  const ma = starters.find((s) => s.name === 'ma');
  // a small run: 20 PMs, 2 evaluation episodes, MA and SL beside the MA starter
  const sc = { ...d, model: 'oversub', oversub: { ...d.oversub, policies: ['ma', 'sl'], pms: 20, eval_episodes: 2, scripts: [ma] } };
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  const done = async (after) => {
    await page.waitForFunction((n) => {
      const c = document.querySelector('#oversub-card');
      return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
    }, after, { timeout: 60_000 });
    return Number(await page.getAttribute('#oversub-card', 'data-runs'));
  };
  const rowsOn = () => page.$$eval('#oversub-rows tr', (trs) => trs.map((r) => ({ ...r.dataset })));
  const figures = ({ row, policy, ...rest }) => rest; // eslint-disable-line no-unused-vars
  let n = await done(0);
  assert.equal(await page.inputValue('#f-oversub-scripts-0-source'), ma.source);
  let rows = await rowsOn();
  assert.deepEqual(rows.map((r) => r.policy), ['ma', 'sl', 'script:ma']);
  assert.deepEqual(figures(rows[2]), figures(rows[0]), 'the MA starter = the built-in MA, bit for bit');
  assert.ok(Number(rows[0].sCores) > 0.3, rows[0].sCores);
  assert.equal(await page.$eval('#oversub-rows tr[data-policy="script:ma"] .swatch', (e) => getComputedStyle(e).backgroundColor), 'rgb(213, 94, 0)');
  // wasm = native on the page's link
  const native = cliRun({ link: page.url() }).rows;
  assert.deepEqual(native.map((r) => [r.policy, String(r.pm_hot_r), String(r.s_cores), String(r.utilization)]),
    rows.map((r) => [r.policy, r.pmHotR, r.sCores, r.utilization]));

  // the SL starter, then broken at run time (a string for a rate): its row says so, the others stay
  await page.selectOption('#oversub-script-starter', 'sl');
  n = await done(n);
  rows = await rowsOn();
  assert.deepEqual(rows.map((r) => r.policy), ['ma', 'sl', 'script:sl']);
  assert.deepEqual(figures(rows[2]), figures(rows[1]), 'the SL starter = the built-in SL, bit for bit');
  const before = rows.slice(0, 2);
  await page.fill('#f-oversub-scripts-0-source', 'fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target, min_rate) { "x" }');
  await done(n);
  rows = await rowsOn();
  assert.deepEqual(rows.slice(0, 2), before);
  assert.equal(rows[2].error, 'evaluation episode 0: \'rate\' returned x (string); a number is needed');
  assert.match(await page.textContent('#oversub-rows tr[data-policy="script:sl"]'), /failed: evaluation episode 0/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('placement: a script that fails at run time fails only its point', async () => {
  const w = await loadWasm();
  const d = w.default_scenario();
  const spin = { name: 'spin', language: 'rhai-1', enabled: true, source: 'fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k) {\n  loop {}\n}' };
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link({ ...d, placement: { ...d.placement, scripts: [spin] } })}`);
  await waitForRun(page);
  const rows = await readTable(page);
  const failed = await page.getAttribute('#frontier-rows tr[data-spec="script:spin"]', 'data-error');
  assert.equal(failed, '\'fits\' ran over the operation limit of one call (an endless loop?)');
  // every other point as without the script (the native CLI on the default link)
  assert.deepEqual(rows.filter((r) => r.spec !== 'script:spin'), tableOf(cliRun({ link: w.scenario_to_link(d) })));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// the FIRST and SECOND starters (issue 31: each = its built-in natively, tests/integration/admit_sim.rs, and in wasm, here)
for (const policy of ['FIRST', 'SECOND']) test(`admission code box: the ${policy} starter's arm = the built-in ${policy} = native, in the script colour`, async () => {
  const w = await loadWasm();
  const d = w.default_scenario();
  const name = policy.toLowerCase();
  const starter = w.model_call({ model: 'admission' }, 'starters', null).find((s) => s.name === name);
  // a small tuning: 300 cores, 500 h, a 5 × 40-point look-ahead, 4 iterations, 2 runs (natively about 1 s of CPU
  // each; the search evaluates 7 thresholds, each admitting fewer than all arrivals)
  const sc = {
    ...d, model: 'admission',
    admission: { ...d.admission, runs: 2, policies: [policy], scripts: [starter],
      params: { ...d.admission.params, capacity: 300, horizon_hours: 500, steps: 40, tune_iterations: 4, sla: 0.02 } },
  };
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  await page.waitForFunction(() => {
    const c = document.querySelector('#admission-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > 0;
  }, null, { timeout: 90_000 });
  assert.equal(await page.inputValue('#f-admission-scripts-0-source'), starter.source);
  const rows = await page.$$eval('#admission-rows tr', (trs) => trs.map((r) => ({
    label: r.dataset.label, threshold: r.dataset.threshold, utilization: r.dataset.utilization,
    ci_lo: r.dataset.ciLo, ci_hi: r.dataset.ciHi, failure_rate: r.dataset.failureRate,
  })));
  assert.deepEqual(rows.map((r) => r.label), [policy, `script:${name}`]);
  const { label, ...builtin } = rows[0]; // eslint-disable-line no-unused-vars
  const { label: l2, ...mine } = rows[1]; // eslint-disable-line no-unused-vars
  assert.deepEqual(mine, builtin, `the ${policy} starter = the built-in ${policy}, bit for bit`);
  assert.equal(await page.$eval(`#admission-rows tr[data-label="script:${name}"] .swatch`, (e) => getComputedStyle(e).backgroundColor), 'rgb(213, 94, 0)');
  // wasm = native on the page's link
  const native = cliRun({ link: page.url() }).arms.map((a) => ({
    label: a.label, threshold: String(a.threshold), utilization: String(a.utilization),
    ci_lo: String(a.utilization_ci[0]), ci_hi: String(a.utilization_ci[1]), failure_rate: String(a.failure_rate),
  }));
  assert.deepEqual(rows, native);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('lifetime code box: the NILAS starter gives NILAS\'s row = native; a failing script fails only its row', async () => {
  const w = await loadWasm();
  const starters = w.model_call({ model: 'lifetime' }, 'starters', null);
  const nilas = starters.find((s) => s.name === 'nilas');
  // a small run: 3% of the tenant batches, seed 2, best fit and NILAS beside the NILAS starter
  const sc = { model: 'lifetime', seed: 2, lifetime: { share: 0.03, policies: ['best-fit', 'nilas'], scripts: [nilas] } };
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  const done = async (after) => {
    await page.waitForFunction((n) => {
      const c = document.querySelector('#lifetime-card');
      return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
    }, after, { timeout: 120_000 });
    return Number(await page.getAttribute('#lifetime-card', 'data-runs'));
  };
  const keys = ['emptyHosts', 'emptyHostsPpVsBestFit', 'optimumEmptyHosts', 'emptyToFree', 'packingDensity', 'allocation', 'strandedCpu', 'strandedMem', 'failures'];
  const rowsOn = () => page.$$eval('#lifetime-rows tr:not(.failed)', (trs, ks) => trs.map((r) => [r.dataset.policy, ...ks.map((k) => r.dataset[k])]), keys);
  const n = await done(0);
  assert.equal(await page.inputValue('#f-lifetime-scripts-0-source'), nilas.source);
  let rows = await rowsOn();
  assert.deepEqual(rows.map((r) => r[0]), ['best-fit', 'nilas', 'script:nilas']);
  assert.deepEqual(rows[2].slice(1), rows[1].slice(1), 'the NILAS starter = the built-in NILAS, bit for bit');
  assert.notDeepEqual(rows[1].slice(1), rows[0].slice(1));
  assert.equal(await page.$eval('#lifetime-rows tr[data-policy="script:nilas"] .swatch', (e) => getComputedStyle(e).backgroundColor), 'rgb(213, 94, 0)');
  // wasm = native on the page's link
  const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const native = cliRun({ link: page.url() }).results;
  assert.deepEqual(native.map((r) => [r.policy, ...keys.map((k) => String(r[snake(k)]))]), rows);

  // broken at run time (a string once the clock passes 60 h): its row says so, the others stay
  const before = rows.slice(0, 2);
  await page.fill('#f-lifetime-scripts-0-source', 'fn score(free_cores, free_mem_gb, free_gpus, cap_cores, cap_mem_gb, cap_gpus, vm_cores, vm_mem_gb, vm_gpus, vms, host_exit, vm_exit, now) {\n  if now > 60.0 { "late" } else { 0 }\n}');
  await done(n);
  rows = await rowsOn();
  assert.deepEqual(rows.slice(0, 2), before);
  assert.match(await page.getAttribute('#lifetime-rows tr.failed', 'data-error'), /'score' returned late \(string\); a number is needed/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('era code box: the greedy starter gives greedy\'s cells = native; syntax and hostile scripts fail alone; link round trip', async () => {
  const w = await loadWasm();
  const starters = w.model_call({ model: 'era' }, 'starters', null);
  const greedy = starters.find((s) => s.name === 'greedy');
  // E4.3 at its defaults, two κ_use, greedy beside the greedy starter (quick: no LP)
  const sc = { model: 'era', workload: { bundled: 'azure2017-arrivals' }, era: { preset: 'E4.3', policies: ['greedy'], kappa: [0.8, 1], scripts: [greedy] } };
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  const BOX_ERA = '#f-era-scripts-0-source';
  const done = async (after) => {
    await page.waitForFunction((n) => {
      const c = document.querySelector('#era-card');
      return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
    }, after, { timeout: 120_000 });
    return Number(await page.getAttribute('#era-card', 'data-runs'));
  };
  const keys = ['kappa', 'valueEfficiency', 'latePct', 'revenue'];
  const rowsOn = () => page.$$eval('#era-rows tr:not(.failed)', (trs, ks) => trs.map((r) => [r.dataset.policy, ...ks.map((k) => r.dataset[k])]), keys);
  let n = await done(0);
  assert.equal(await page.inputValue(BOX_ERA), greedy.source);
  let rows = await rowsOn();
  assert.deepEqual(rows.map((r) => `${r[0]}@${r[1]}`), ['greedy@0.8', 'greedy@1', 'script:greedy@0.8', 'script:greedy@1']);
  assert.deepEqual(rows.slice(2).map((r) => r.slice(1)), rows.slice(0, 2).map((r) => r.slice(1)), 'the greedy starter = GREEDY_FIRSTFIT, bit for bit');
  assert.ok(Number(rows[0][2]) > 0.1, rows[0][2]);
  assert.equal(await page.$eval('#era-rows tr[data-policy="script:greedy"] .swatch', (e) => getComputedStyle(e).backgroundColor), 'rgb(213, 94, 0)');
  // wasm = native on the page's link
  const native = cliRun({ link: page.url() }).cells;
  assert.deepEqual(native.map((c) => [c.policy, String(c.kappa), String(c.value_efficiency), String(c.late_pct), String(c.revenue)]), rows);
  const builtin = rows.slice(0, 2);

  // the scarcity starter from the picker: runs beside greedy, in the script colour; its link carries it
  await page.selectOption('#era-script-starter', 'scarcity');
  n = await done(n);
  rows = await rowsOn();
  assert.deepEqual(rows.map((r) => r[0]), ['greedy', 'greedy', 'script:scarcity', 'script:scarcity']);
  assert.deepEqual(rows.slice(0, 2), builtin);
  const url = page.url();
  const source = await page.inputValue(BOX_ERA);
  const linked = w.scenario_from_link(url).era.scripts;
  assert.deepEqual([linked.length, linked[0].name, linked[0].language, linked[0].source], [1, 'scarcity', 'rhai-1', source]);
  const again = await newPage(env.browser);
  await again.goto(url);
  await again.waitForFunction(() => document.querySelector('#era-card')?.dataset.state === 'done', null, { timeout: 120_000 });
  assert.equal(await again.inputValue(BOX_ERA), source);
  assert.deepEqual(await again.$$eval('#era-rows tr', (trs) => trs.map((r) => r.dataset.revenue)), await page.$$eval('#era-rows tr', (trs) => trs.map((r) => r.dataset.revenue)));
  await again.context().close();

  // syntax garbage: the error under the box at its line and column, nothing runs, the results stay
  await page.fill(BOX_ERA, 'fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full) {\n  [s, @@]\n}');
  await page.waitForFunction((s) => document.querySelector(`${s}-error`).textContent !== '', BOX_ERA);
  assert.match(await page.textContent(`${BOX_ERA}-error`), /^line 2, column \d+: /);
  assert.equal(await page.getAttribute('#era-card', 'data-state'), 'invalid');
  assert.equal(Number(await page.getAttribute('#era-card', 'data-runs')), n);
  assert.deepEqual((await rowsOn()).slice(0, 2), builtin);

  // hostile at run time: an endless loop, a huge allocation, a deep recursion; each fails its own cells with a
  // message, greedy's cells stay bit for bit
  const head = 'fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full)';
  for (const [src, re] of [
    [`${head} { loop { } }`, /operation limit/],
    [`${head} { let a = []; loop { a.push(remaining); } }`, /./],
    [`fn f(n) { f(n + 1) }\n${head} { f(0) }`, /./],
  ]) {
    await page.fill(BOX_ERA, src);
    n = await done(n);
    rows = await rowsOn();
    assert.deepEqual(rows.slice(0, 2), builtin, src);
    const failed = await page.$$eval('#era-rows tr.failed', (trs) => trs.map((r) => r.dataset.error));
    assert.equal(failed.length, 2, src);
    for (const e of failed) assert.match(e, re, src);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
