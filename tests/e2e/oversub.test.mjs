// End to end: the oversubscription view (chance-constrained oversubscription, seed 001) in real Chromium
// against the same engine in wasm under node (and the native CLI when target/release/packlab is built), bit for
// bit: the results table, the charts, Pause/Resume of a run, the export and import of a trained policy (the
// shared 'run' operation's input files), a tampered policy file, and share links that restore the controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, newPage, canvasInk, artifact, grabDownload, tempDir, CLI, cliRun, SMALL as SMALL_SCENARIOS } from './helpers.mjs';
import { loadWasm, planRun } from './wasm-node.mjs';

const env = useBrowser();

/** The small scenario of these tests (merged onto the defaults). */
const SMALL = SMALL_SCENARIOS.oversub.oversub;

async function scenarioOf(over, seed = 1) {
  const w = await loadWasm();
  const d = w.default_scenario();
  return { ...d, model: 'oversub', seed, oversub: { ...d.oversub, ...over } };
}

/** The report of `sc` computed by the wasm engine in node, with input files [{ name, bytes }]. */
async function wasmReport(sc, files = []) {
  const w = await loadWasm();
  const run = planRun(w, sc, { files });
  const rep = run.run_all();
  run.free();
  return rep;
}

/** What the table's data attributes hold for report rows. */
const rowsOf = (rows) => rows.map((r) => ({
  policy: r.policy, pm_hot_r: String(r.pm_hot_r), pm_hot_r_lo: String(r.pm_hot_r_lo), pm_hot_r_hi: String(r.pm_hot_r_hi),
  c_hot_r: String(r.c_hot_r), s_cores: String(r.s_cores), s_cores_lo: String(r.s_cores_lo), s_cores_hi: String(r.s_cores_hi),
  safe: r.safe.map(String).join(','), hot_pm_hours: String(r.hot_pm_hours), active_pms: String(r.active_pms), utilization: String(r.utilization),
}));

async function readRows(page) {
  return page.$$eval('#oversub-rows tr', (trs) => trs.map((r) => ({
    policy: r.dataset.policy, pm_hot_r: r.dataset.pmHotR, pm_hot_r_lo: r.dataset.pmHotRLo, pm_hot_r_hi: r.dataset.pmHotRHi,
    c_hot_r: r.dataset.cHotR, s_cores: r.dataset.sCores, s_cores_lo: r.dataset.sCoresLo, s_cores_hi: r.dataset.sCoresHi,
    safe: r.dataset.safe, hot_pm_hours: r.dataset.hotPmHours, active_pms: r.dataset.activePms, utilization: r.dataset.utilization,
  })));
}

async function waitOversub(page, after = 0, timeout = 180_000) {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#oversub-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, after, { timeout });
}

const runsOf = async (page) => Number(await page.getAttribute('#oversub-card', 'data-runs'));

test('a small oversub link reproduces the engine bit for bit, draws its charts, exports and imports a trained policy', async () => {
  const w = await loadWasm();
  const sc = await scenarioOf(SMALL);
  const expected = await wasmReport(sc);
  if (existsSync(CLI)) {
    // the native CLI, when built (make native): the same report
    const dir = tempDir();
    const file = path.join(dir, 'scenario.json');
    writeFileSync(file, w.scenario_json(sc));
    assert.deepEqual(rowsOf(cliRun({ scenarioFile: file }).rows), rowsOf(expected.rows), 'CLI vs wasm');
  }
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  await page.waitForSelector('#oversub-card');
  assert.equal(await page.getAttribute('#tab-oversub', 'aria-current'), 'page');
  // the link restored the controls
  assert.equal(await page.inputValue('#f-oversub-policies'), 'grid:0.4, gpa:0.95, c2marl:0.95');
  assert.equal(await page.inputValue('#f-oversub-pms'), '100');
  assert.equal(await page.inputValue('#f-oversub-eval_episodes'), '10');
  assert.equal(await page.inputValue('#f-oversub-train_episodes'), '5');
  assert.equal(await page.inputValue('#f-oversub-preset'), 'E1.1');
  await waitOversub(page);
  assert.deepEqual(await readRows(page), rowsOf(expected.rows));
  assert.deepEqual(w.scenario_from_link(page.url()), sc, 'the address bar holds the scenario');
  assert.match(await page.textContent('#oversub-training-status'), /c2marl:0\.95: episode 5 of 5 · λ/);
  assert.match(await page.textContent('#oversub-paper'), /Seed 001 reports/);
  assert.match(await page.textContent('#oversub-preset-data'), /not public/);
  for (const c of ['#oversub-frontier-canvas', '#oversub-training-canvas', '#oversub-rates-canvas']) {
    assert.ok((await canvasInk(page, c)) > 3000, `${c} blank`);
  }
  // the heat map defaults to the first c2marl row
  assert.equal(await page.inputValue('#oversub-rates-row'), '2');

  // export the trained policy, then import it: it is evaluated as c2marl:<file name>, exactly like the row it
  // was trained in
  const dir = tempDir();
  const dl = await grabDownload(page, '#oversub-policy-export', dir);
  const policy = JSON.parse(dl.bytes.toString('utf8'));
  assert.equal(typeof policy.fingerprint, 'string');
  const runs = await runsOf(page);
  await page.setInputFiles('#oversub-policy-import', dl.path);
  await waitOversub(page, runs);
  const withFile = await readRows(page);
  assert.equal(withFile.length, 4);
  assert.equal(withFile[3].policy, `c2marl:${dl.name}`);
  assert.equal(withFile[3].pm_hot_r, withFile[2].pm_hot_r);
  assert.equal(withFile[3].s_cores, withFile[2].s_cores);
  const sc2 = structuredClone(sc);
  sc2.oversub.policies.push(`c2marl:${dl.name}`);
  assert.deepEqual(withFile, rowsOf((await wasmReport(sc2, [{ name: dl.name, bytes: dl.bytes }])).rows));

  // a tampered policy (trained for another scenario): the engine's message at the policies field, the
  // controls as the user left them
  const tampered = path.join(dir, 'tampered.json');
  writeFileSync(tampered, JSON.stringify({ ...policy, fingerprint: policy.fingerprint.replace('"pms":100', '"pms":101') }));
  await page.setInputFiles('#oversub-policy-import', tampered);
  await page.waitForFunction(() => document.querySelector('#oversub-card').dataset.state === 'error', null, { timeout: 60_000 });
  // the status names the field by its label, not the engine's path, and says what to do
  assert.match(await page.textContent('#oversub-status'), /^Run failed: “policies”: tampered\.json: the policy was trained for another scenario \(pms: 101 in the file, 100 here\)\. Fix the highlighted field to run again\.$/);
  assert.match(await page.textContent('#f-oversub-policies-error'), /tampered\.json: the policy was trained for another scenario/);
  assert.equal(await page.inputValue('#f-oversub-policies'), `grid:0.4, gpa:0.95, c2marl:0.95, c2marl:${dl.name}, c2marl:tampered.json`);
  assert.equal(await page.inputValue('#f-oversub-pms'), '100');
  assert.equal(await page.inputValue('#f-oversub-eval_episodes'), '10');
  // the previous results stay on screen
  assert.equal((await readRows(page)).length, 4);
  await page.screenshot({ path: artifact('playground-oversub.png'), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('Pause holds a run between steps and Resume finishes it with the same report', async () => {
  const w = await loadWasm();
  const sc = await scenarioOf({ policies: ['grid:0.6', 'c2marl:0.95'], train_episodes: 40, eval_episodes: 10, pms: 100 }, 7);
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  await page.waitForFunction(() => /episode \d+ of 40/.test(document.querySelector('#oversub-training-status')?.textContent || ''), null, { timeout: 60_000 });
  await page.click('#oversub-pause');
  await page.waitForFunction(() => document.querySelector('#oversub-card').dataset.state === 'paused', null, { timeout: 30_000 });
  assert.equal(await page.textContent('#oversub-pause'), 'Resume');
  const held = await page.$eval('#oversub-progress', (p) => p.value);
  const status = await page.textContent('#oversub-training-status');
  assert.ok(held < 1, 'paused before the end');
  await page.waitForTimeout(1500);
  assert.equal(await page.$eval('#oversub-progress', (p) => p.value), held, 'no step while paused');
  assert.equal(await page.textContent('#oversub-training-status'), status);
  assert.equal(await page.getAttribute('#oversub-card', 'data-state'), 'paused');
  await page.click('#oversub-pause');
  await waitOversub(page);
  assert.equal(await page.textContent('#oversub-pause'), 'Pause');
  assert.deepEqual(await readRows(page), rowsOf((await wasmReport(sc)).rows));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the α field rewrites the levels of gpa and c2marl; the preset line names the data', async () => {
  const w = await loadWasm();
  const sc = await scenarioOf({ ...SMALL, preset: 'E1.3' });
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  await page.waitForSelector('#oversub-card');
  assert.equal(await page.inputValue('#f-oversub-preset'), 'E1.3');
  assert.match(await page.textContent('#oversub-preset-data'), /Azure 2019 CPU readings.*Azure 2017/);
  await waitOversub(page);
  await page.fill('#f-oversub-alpha', '0.85');
  await page.press('#f-oversub-alpha', 'Tab');
  assert.equal(await page.inputValue('#f-oversub-policies'), 'grid:0.4, gpa:0.85, c2marl:0.85');
  await waitOversub(page, 1);
  assert.deepEqual((await readRows(page)).map((r) => r.policy), ['grid:0.4', 'gpa:0.85', 'c2marl:0.85']);
  assert.equal(w.scenario_from_link(page.url()).oversub.policies.join(','), 'grid:0.4,gpa:0.85,c2marl:0.85');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// The default Oversubscription view's run is checked in the tab tour (teaching.test.mjs, DEFAULT_RUN.oversub): one
// default run per suite.

test('a scenario the bundled policy was not trained for shows the other policies and trains C2MARL on the Train button', async () => {
  const w = await loadWasm();
  // a training above the page's own budget: it waits for the button
  const sc = await scenarioOf({ policies: ['grid:0.4', 'c2marl:0.95'], pms: 100, train_episodes: 60, eval_episodes: 5 });
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${w.scenario_to_link(sc)}`);
  await waitOversub(page);
  assert.equal(await page.getAttribute('#oversub-card', 'data-mode'), 'untrained');
  assert.deepEqual((await readRows(page)).map((r) => r.policy), ['grid:0.4']);
  assert.match(await page.textContent('#oversub-training-status'), /Not trained yet: c2marl:0\.95 \(the pretrained policy 'oversub-c2marl-e11' was trained for another scenario \(oversub\.pms: 0 in the file, 100 here/);
  assert.match(await page.textContent('#oversub-train-cost'), /1 arm × 60 episodes on 100 PMs: about/);
  assert.deepEqual(w.scenario_from_link(page.url()), sc, 'the address bar holds the scenario as given');
  // Train: live curves and a time estimate, then the same report as the engine's
  await page.click('#oversub-train');
  await page.waitForFunction(() => /Training: \d+ of \d+ steps/.test(document.querySelector('#oversub-status')?.textContent || '')
    && /^about \d+ (s|min) left$/.test(document.querySelector('#oversub-eta')?.textContent || ''), null, { timeout: 60_000 });
  assert.ok((await canvasInk(page, '#oversub-training-canvas')) > 1000, 'live training curves');
  await waitOversub(page, 1);
  assert.equal(await page.getAttribute('#oversub-card', 'data-mode'), 'train');
  assert.deepEqual(await readRows(page), rowsOf((await wasmReport(sc)).rows));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
