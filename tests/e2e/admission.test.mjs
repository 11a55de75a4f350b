// End to end in real Chromium: the admission-control view (seed 000) against the native CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  useBrowser, newPage, newContext, pageIn, pinOf, canvasInk, cliRun, artifact, recordMetrics, savedLinks, tempDir,
  grabDownload, admissionTable, admissionTableOf, openIn, SMALL as SMALL_SCENARIOS,
} from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();

/** A small admission scenario: two policies, C = 300 cores, 3 weeks, 2 runs, 4 search steps. */
const SMALL = SMALL_SCENARIOS.admission;

async function linkFor(scenario) {
  const w = await loadWasm();
  return `#s=${w.scenario_to_link(scenario)}`;
}

async function waitAdmission(page, after = 0, timeout = 90_000) {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#admission-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, after, { timeout });
}

// The default Admission control view's run is checked in the tab tour (teaching.test.mjs, DEFAULT_RUN.admission): one
// default run per suite.

test('a small admission scenario: frontier drawn, table equals the CLI, time series, link round trip', async () => {
  const page = await newPage(env.browser);
  const t0 = Date.now();
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitAdmission(page);
  const ms = Date.now() - t0;
  assert.ok((await canvasInk(page, '#admission-canvas')) > 5000, 'frontier canvas is blank');
  const rows = await admissionTable(page);
  assert.deepEqual(rows.map((r) => r.label), ['ZEROTH', 'SECOND']);
  const url = page.url();
  const native = cliRun({ link: url });
  assert.equal(native.model, 'admission');
  assert.deepEqual(rows, admissionTableOf(native));

  // the time series of one run is drawn
  await page.waitForFunction(() => document.querySelector('#admission-series-card').dataset.ready);
  assert.ok((await canvasInk(page, '#admission-series-canvas')) > 3000, 'series canvas is blank');
  assert.match(await page.textContent('#admission-series-info'), /arrivals admitted/);
  await page.waitForTimeout(200);
  await page.screenshot({ path: artifact('playground-admission.png'), fullPage: true });

  // invalid values show messages next to their fields
  await page.fill('#f-admission-params-sla', '1.5');
  await page.waitForFunction(() => (document.querySelector('#f-admission-params-sla-error')?.textContent || '').length > 0);
  assert.match(await page.textContent('#f-admission-params-sla-error'), /\(0, 1\)/);
  await page.fill('#f-admission-runs', 'x');
  await page.waitForFunction(() => (document.querySelector('#f-admission-runs-error')?.textContent || '').includes('not a number'));
  assert.equal(await page.getAttribute('#admission-card', 'data-runs'), '1');

  // the link restores the admission tab, the controls and the numbers in a fresh page
  const page2 = await newPage(env.browser);
  await page2.goto(url);
  await waitAdmission(page2);
  assert.equal(await page2.getAttribute('#tab-admission', 'aria-current'), 'page');
  assert.equal(await page2.inputValue('#f-admission-params-capacity'), '300');
  assert.equal(await page2.inputValue('#f-admission-seed'), '5');
  assert.deepEqual(await admissionTable(page2), rows);
  recordMetrics({ browser_admission_small_ms: ms });
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page2.problems, []);
  await page.context().close();
  await page2.context().close();
});

test('Cancel stops an admission run', async () => {
  const page = await newPage(env.browser);
  const big = { ...SMALL, admission: { ...SMALL.admission, policies: [], params: { ...SMALL.admission.params, horizon_hours: 4000, capacity: 1500 } } };
  await page.goto(env.server.url + await linkFor(big));
  await page.waitForFunction(() => Number(document.querySelector('#admission-progress')?.value || 0) > 0, null, { timeout: 30_000 });
  const t0 = Date.now();
  await page.click('#admission-cancel');
  // cooperative cancel answers within one step; a step that does not yield is ended by the worker restart
  // after 2 s. The latency is recorded as a metric, not asserted (loaded 2-core machines vary a lot).
  await page.waitForFunction(() => document.querySelector('#admission-card').dataset.state === 'cancelled', null, { timeout: 15_000 });
  recordMetrics({ browser_admission_cancel_ms: Date.now() - t0 });
  assert.match(await page.textContent('#admission-status'), /Cancelled/);
  // the engine still works: Run again completes... cancel it too after it starts
  await page.click('#admission-rerun');
  await page.waitForFunction(() => document.querySelector('#admission-card').dataset.state === 'running');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('saved admission links (tests/links/v*.jsonl) open the admission tab with their controls and numbers', async () => {
  const entries = savedLinks().filter((e) => e.expect.model === 'admission');
  assert.ok(entries.length >= 5);
  // each link a new document in one tab (helpers.openIn: the page, the wasm module and the data from the cache after
  // the first); a link not run to its end here opens without running (`&run=ask`, as the findings page's links do):
  // its controls are what is checked, and the default experiment runs once per suite, in the tab tour
  const links = await newContext(env.browser);
  const p = await pageIn(links);
  for (const entry of entries) {
    const a = entry.expect.admission || {};
    await openIn(p, `${env.server.url}#s=${entry.link}${a.params ? '' : '&run=ask'}`);
    await p.waitForSelector('#admission-card');
    assert.equal(await p.isHidden('#banner'), true, entry.note);
    assert.equal(await p.getAttribute('#tab-admission', 'aria-current'), 'page', entry.note);
    const want = a.params || {};
    assert.equal(await p.inputValue('#f-admission-params-capacity'), String(want.capacity ?? 1000), entry.note);
    if (entry.expect.seed !== undefined) assert.equal(await p.inputValue('#f-admission-seed'), String(entry.expect.seed), entry.note);
    if (a.preset) assert.equal(await p.inputValue('#f-admission-preset'), a.preset, entry.note);
    if (a.source) assert.equal(await p.inputValue('#f-admission-source'), a.source, entry.note);
    if (a.params) {
      // small saved scenarios run to the end and match the CLI
      await waitAdmission(p);
      assert.deepEqual(await admissionTable(p), admissionTableOf(pinOf(entry.link)));
      if (a.series_arm) assert.equal(await p.inputValue('#admission-series-arm'), a.series_arm, entry.note);
    }
    assert.deepEqual(p.problems, [], entry.note);
  }
  await links.close();
});

test('Azure 2017-fitted parameters: the fit fills the identified parameters and the link carries them', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitAdmission(page);
  const runsBefore = Number(await page.getAttribute('#admission-card', 'data-runs') || 0);
  await page.selectOption('#f-admission-source', 'azure');
  // the fit and the fitted run's start wait for a busy machine (the test files run two at a time): the run-sized
  // limit of waitAdmission, not playwright's 30 s
  await page.waitForFunction(() => (document.querySelector('#admission-fit-note')?.textContent || '').includes('Fitted to Azure 2017'), null, { timeout: 90_000 });
  assert.notEqual(await page.inputValue('#f-admission-params-arrival_rate'), '1');
  assert.equal(await page.isDisabled('#f-admission-params-arrival_rate'), true);
  const w = await loadWasm();
  const s = w.scenario_from_link(page.url());
  assert.equal(s.admission.source, 'azure');
  assert.equal(s.admission.params.initial_size.kind, 'empirical');
  assert.equal(s.admission.params.priors.kappa, 20);
  // the fitted scenario runs to its end (28 short simulation runs: a second or two, too short to cancel reliably)
  await waitAdmission(page, runsBefore);
  assert.match(await page.textContent('#admission-status'), /tuned/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('admission exports: SVG, PNG, CSV, JSON, the scenario file and the run\'s SVG', async () => {
  const TMP = tempDir();
  const page = await newPage(env.browser);
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitAdmission(page);
  await page.waitForFunction(() => document.querySelector('#admission-series-card').dataset.ready);
  const grab = (sel) => grabDownload(page, sel, TMP);
  const svg = await grab('#admission-export-svg');
  assert.equal(svg.name, 'packlab-admission-E0.1.svg');
  assert.match(svg.bytes.toString('utf8'), /^<svg[\s\S]*SLA ε = 0\.002[\s\S]*ZEROTH[\s\S]*SECOND[\s\S]*<\/svg>\s*$/);
  const png = await grab('#admission-export-png');
  assert.equal(png.name, 'packlab-admission-E0.1.png');
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const json = JSON.parse((await grab('#admission-export-json')).bytes.toString('utf8'));
  assert.equal(json.link, page.url());
  assert.equal(json.scenario.admission.params.capacity, 300);
  assert.deepEqual(json.report.arms.map((a) => a.label), ['ZEROTH', 'SECOND']);
  // CSV: per policy its tuned row, then every threshold its search evaluated
  const csv = (await grab('#admission-export-csv')).bytes.toString('utf8').trim().split('\n');
  assert.equal(csv[0], 'policy,tuned,threshold,utilization,utilization_ci_lo,utilization_ci_hi,failure_rate,failure_rate_upper95,status');
  assert.equal(csv.length, 1 + json.report.arms.reduce((n, a) => n + 1 + a.sweep.length, 0));
  const tuned = csv.filter((l) => l.split(',')[1] === 'true').map((l) => l.split(','));
  assert.deepEqual(tuned.map((c) => [c[0], Number(c[2]), Number(c[3])]), json.report.arms.map((a) => [a.label, a.threshold, a.utilization]));
  // the scenario file reproduces the CLI's numbers for the page's link
  const sc = await grab('#admission-export-scenario');
  assert.equal(sc.name, 'scenario.json');
  const fromFile = cliRun({ scenarioFile: sc.path });
  assert.deepEqual(fromFile, cliRun({ link: page.url() }));
  assert.deepEqual(admissionTableOf(json.report), admissionTableOf(fromFile));
  // the time series of one run
  const run = await grab('#admission-series-svg');
  assert.match(run.name, /^packlab-admission-E0\.1-run\.svg$/);
  assert.match(run.bytes.toString('utf8'), /^<svg[\s\S]*capacity[\s\S]*<\/svg>\s*$/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
