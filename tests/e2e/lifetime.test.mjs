// End to end in real Chromium: the lifetime view (lifetime-aware VM allocation, seed 003) against the native
// CLI and its pinned outputs. Small shares keep it quick: the default scenario (share 0.2) runs once, in the tab tour
// (teaching.test.mjs), and the saved default link only restores its controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, FIXTURES, useBrowser, newPage, newContext, pageIn, pinOf, canvasInk, cliRun, artifact, recordMetrics,
  savedLinks, tempDir, grabDownload, lifetimeTable, lifetimeTableOf, LIFETIME_FIELDS,
  openIn, SMALL as SMALL_SCENARIOS,
} from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();

/** `packlab lifetime --share 0.03 --seed 2 --json` = tests/pins/lifetime-small.json. */
const SMALL = SMALL_SCENARIOS.lifetime;
const PINNED_SMALL = JSON.parse(readFileSync(path.join(ROOT, 'tests/pins/lifetime-small.json'), 'utf8'));

async function linkFor(scenario) {
  const w = await loadWasm();
  return `#s=${w.scenario_to_link(scenario)}`;
}

async function waitLifetime(page, after = 0, timeout = 120_000) {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#lifetime-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, after, { timeout });
}

// The default Lifetime view's run is checked in the tab tour (teaching.test.mjs, DEFAULT_RUN.lifetime): one default
// run per suite.

test('a small lifetime scenario: table equals the CLI, data card, chart, exports and a link round trip', async () => {
  const TMP = tempDir();
  const page = await newPage(env.browser);
  const t0 = Date.now();
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitLifetime(page);
  const ms = Date.now() - t0;
  assert.ok((await canvasInk(page, '#lifetime-canvas')) > 5000, 'chart canvas is blank');
  const rows = await lifetimeTable(page);
  assert.deepEqual(rows.map((r) => r.policy), ['best-fit', 'la-binary', 'nilas', 'lava']);
  // the pinned `packlab lifetime --share 0.03 --seed 2 --json`, and `packlab run` on the page's own link
  assert.deepEqual(rows, lifetimeTableOf(PINNED_SMALL));
  const url = page.url();
  const native = cliRun({ link: url });
  assert.deepEqual(rows, lifetimeTableOf(native.results));
  // the data card shows the plan's numbers
  assert.equal(await page.getAttribute('#lifetime-setup-list dd[data-vms]', 'data-vms'), String(native.setup.vms));
  assert.equal(await page.getAttribute('#lifetime-setup-list dd[data-hosts]', 'data-hosts'), String(native.hosts));
  assert.match(await page.textContent('#lifetime-setup'), /offered allocation/);
  assert.ok(native.setup.notes.length > 0 && (await page.$$('#lifetime-notes li')).length === native.setup.notes.length);
  // the host timeline: LAVA by default, one row per hour of the window (as many as the chart's hourly
  // series), every host; choosing best fit redraws it
  await page.waitForSelector('#lifetime-timeline-card[data-policy="lava"]', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#lifetime-timeline-card', 'data-hosts'), String(native.hosts));
  assert.equal(await page.getAttribute('#lifetime-timeline-card', 'data-hours'), String(native.results[3].empty_series.length));
  assert.ok((await canvasInk(page, '#lifetime-timeline-canvas')) > 20000, 'timeline canvas is blank');
  await page.selectOption('#lifetime-timeline-policy', '0');
  await page.waitForSelector('#lifetime-timeline-card[data-policy="best-fit"]', { timeout: 60_000 });
  await page.screenshot({ path: artifact('playground-lifetime.png'), fullPage: true });

  // exports: the chart as SVG and PNG, the results as CSV and JSON, the scenario for `packlab run`
  const grab = (sel) => grabDownload(page, sel, TMP);
  const svg = await grab('#lifetime-export-svg');
  assert.equal(svg.name, 'packlab-lifetime-oracle-seed2.svg');
  assert.match(svg.bytes.toString('utf8'), /^<svg[\s\S]*warm-up 48 h[\s\S]*best fit[\s\S]*LAVA[\s\S]*<\/svg>\s*$/);
  const png = await grab('#lifetime-export-png');
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const json = JSON.parse((await grab('#lifetime-export-json')).bytes.toString('utf8'));
  assert.equal(json.link, url);
  assert.deepEqual(json.report, native);
  const csv = (await grab('#lifetime-export-csv')).bytes.toString('utf8').trim().split('\n');
  assert.equal(csv[0], `policy,${LIFETIME_FIELDS.join(',')},failures_measured,samples,arrivals`);
  assert.deepEqual(csv.slice(1).map((l) => l.split(',').slice(0, 1 + LIFETIME_FIELDS.length)), lifetimeTableOf(native.results).map((r) => [r.policy, ...LIFETIME_FIELDS.map((k) => r[k])]));
  const sc = await grab('#lifetime-export-scenario');
  assert.deepEqual(cliRun({ scenarioFile: sc.path }), native);

  // the link restores the lifetime tab, the controls and the numbers in a fresh page
  const page2 = await newPage(env.browser);
  await page2.goto(url);
  await waitLifetime(page2);
  assert.equal(await page2.getAttribute('#tab-lifetime', 'aria-current'), 'page');
  assert.equal(await page2.inputValue('#f-lifetime-share'), '0.03');
  assert.equal(await page2.inputValue('#f-lifetime-seed'), '2');
  assert.deepEqual(await lifetimeTable(page2), rows);
  recordMetrics({ browser_lifetime_small_ms: ms });
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page2.problems, []);
  await page.context().close();
  await page2.context().close();
});

test('saved lifetime links (tests/links/v*.jsonl) restore the controls, and the small one its pinned numbers', async () => {
  const entries = savedLinks().filter((e) => e.expect.model === 'lifetime');
  assert.ok(entries.length >= 2);
  // each link a new document in one tab (helpers.openIn: the page, the wasm module and the data from the cache after
  // the first); a link not run to its end here opens without running (`&run=ask`, as the findings page's links do):
  // its controls are what is checked, and the default view runs once per suite, in the tab tour
  const links = await newContext(env.browser);
  const p = await pageIn(links);
  for (const entry of entries) {
    const l = entry.expect.lifetime || {};
    const small = l.share !== undefined && l.share <= 0.1;
    await openIn(p, `${env.server.url}#s=${entry.link}${small ? '' : '&run=ask'}`);
    await p.waitForSelector('#lifetime-card');
    assert.equal(await p.isHidden('#banner'), true, entry.note);
    assert.equal(await p.getAttribute('#tab-lifetime', 'aria-current'), 'page', entry.note);
    assert.equal(await p.inputValue('#f-lifetime-share'), String(l.share ?? 0.2), entry.note);
    assert.equal(await p.inputValue('#f-lifetime-predictor'), l.predictor ?? 'oracle', entry.note);
    assert.equal(await p.inputValue('#f-lifetime-seed'), String(entry.expect.seed ?? 1), entry.note);
    assert.equal(await p.isDisabled('#f-lifetime-accuracy'), (l.predictor ?? 'oracle') !== 'noisy', entry.note);
    if (l.accuracy !== undefined) assert.equal(Number(await p.inputValue('#f-lifetime-accuracy')), l.accuracy, entry.note);
    const want = l.policies || ['best-fit', 'la-binary', 'nilas', 'lava'];
    for (const name of ['la-binary', 'nilas', 'lava']) assert.equal(await p.isChecked(`#lifetime-policy-${name}`), want.includes(name), `${entry.note}: ${name}`);
    if (small) {
      // a smaller pool runs to the end here: its numbers equal the CLI's pinned output for the link
      await waitLifetime(p);
      const pinned = pinOf(entry.link);
      assert.deepEqual(await lifetimeTable(p), lifetimeTableOf(pinned.results), entry.note);
      // the link in the address bar is still the same scenario (nothing was rewritten)
      const w = await loadWasm();
      assert.deepEqual(w.scenario_from_link(p.url()), w.scenario_from_link(entry.link), entry.note);
    }
    assert.deepEqual(p.problems, [], entry.note);
  }
  await links.close();
});

test('Cancel stops a lifetime run, and Run again restarts it', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url + await linkFor({ model: 'lifetime', lifetime: { share: 0.3 } }));
  await page.waitForFunction(() => document.querySelector('#lifetime-card')?.dataset.state === 'running', null, { timeout: 30_000 });
  const t0 = Date.now();
  await page.click('#lifetime-cancel');
  // cooperative cancel between policies; a policy that runs on is ended by the worker restart after 2 s
  await page.waitForFunction(() => document.querySelector('#lifetime-card').dataset.state === 'cancelled', null, { timeout: 15_000 });
  recordMetrics({ browser_lifetime_cancel_ms: Date.now() - t0 });
  assert.match(await page.textContent('#lifetime-status'), /Cancelled/);
  assert.equal(await page.isDisabled('#lifetime-cancel'), true);
  await page.click('#lifetime-rerun');
  await page.waitForFunction(() => document.querySelector('#lifetime-card').dataset.state === 'running');
  await page.click('#lifetime-cancel');
  await page.waitForFunction(() => document.querySelector('#lifetime-card').dataset.state === 'cancelled', null, { timeout: 15_000 });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('bad lifetime fields show a message at the field they name; a bad upload names its file', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitLifetime(page);
  // the engine's check: share must lie in (0, 1]
  await page.fill('#f-lifetime-share', '1.5');
  await page.waitForFunction(() => (document.querySelector('#f-lifetime-share-error')?.textContent || '').length > 0);
  assert.match(await page.textContent('#f-lifetime-share-error'), /\(0, 1\], got 1\.5/);
  assert.equal(await page.getAttribute('#f-lifetime-share', 'aria-invalid'), 'true');
  assert.equal(await page.getAttribute('#lifetime-card', 'data-state'), 'invalid');
  // the page's check: not a number
  await page.fill('#f-lifetime-share', '0.03');
  await page.fill('#f-lifetime-host_cores', 'many');
  await page.waitForFunction(() => (document.querySelector('#f-lifetime-host_cores-error')?.textContent || '').includes('not a number'));
  assert.equal(await page.textContent('#f-lifetime-share-error'), '');
  // a run-time error names its field too: a share that keeps no batch
  await page.fill('#f-lifetime-host_cores', '40');
  await page.fill('#f-lifetime-share', '0.0000001');
  await page.waitForFunction(() => (document.querySelector('#f-lifetime-share-error')?.textContent || '').length > 0, null, { timeout: 60_000 });
  assert.equal(await page.getAttribute('#lifetime-card', 'data-state'), 'error');
  assert.equal(await page.getAttribute('#lifetime-card', 'data-runs'), '1');
  // an upload that is no workload: the message names the file, the bundled arrivals stay in use
  await page.setInputFiles('#lifetime-workload-file', path.join(FIXTURES, 'bad-usage.csv'));
  await page.waitForFunction(() => (document.querySelector('#lifetime-workload-msg')?.textContent || '').includes('Not loaded'));
  assert.match(await page.textContent('#lifetime-workload-msg'), /bad-usage\.csv/);
  const w = await loadWasm();
  assert.deepEqual(w.scenario_from_link(page.url()).workload, { bundled: 'azure2017-arrivals' });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('an uploaded workload replays like the bundled one and its link asks for the file', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url + await linkFor(SMALL));
  await waitLifetime(page);
  const bundled = await lifetimeTable(page);
  // the bundled file itself, uploaded: same VMs, same numbers; the link records the upload's name and hash
  const file = path.join(ROOT, 'static/traces/azure2017-arrivals.txt.gz');
  await page.setInputFiles('#lifetime-workload-file', file);
  await waitLifetime(page, 1);
  assert.deepEqual(await lifetimeTable(page), bundled);
  const w = await loadWasm();
  const b = new w.TraceBuilder();
  b.add('azure2017-arrivals.txt.gz', readFileSync(file));
  const ref = w.scenario_from_link(page.url()).workload;
  assert.deepEqual(ref, { upload: { name: 'azure2017-arrivals.txt.gz', sha256: b.sha256() } });
  b.free();
  // a fresh page with that link waits for the file, then runs
  const page2 = await newPage(env.browser);
  await page2.goto(page.url());
  await page2.waitForFunction(() => document.querySelector('#lifetime-card')?.dataset.state === 'invalid');
  assert.match(await page2.textContent('#lifetime-workload-msg'), /uploaded workload[\s\S]*azure2017-arrivals\.txt\.gz/);
  await page2.setInputFiles('#lifetime-workload-file', file);
  await waitLifetime(page2);
  assert.deepEqual(await lifetimeTable(page2), bundled);
  // back to the bundled arrivals
  await page2.click('#lifetime-workload-bundled');
  await waitLifetime(page2, 1);
  assert.deepEqual(w.scenario_from_link(page2.url()).workload, { bundled: 'azure2017-arrivals' });
  assert.deepEqual(page.problems, []);
  assert.deepEqual(page2.problems, []);
  await page.context().close();
  await page2.context().close();
});

test('E3.4 and E3.5 from the page: the cache refresh, defragmentation and the App. F warm-up controls run to the CLI\'s numbers', async () => {
  const page = await newPage(env.browser);
  const sc = { model: 'lifetime', seed: 2, lifetime: { share: 0.03, policies: ['best-fit', 'nilas'], refresh_s: 900, defrag: true, alive_at_start: true } };
  await page.goto(env.server.url + await linkFor(sc));
  await waitLifetime(page);
  // the link's settings are in the controls
  assert.equal(await page.inputValue('#f-lifetime-refresh_s'), '900');
  assert.equal(await page.isChecked('#f-lifetime-defrag'), true);
  assert.equal(await page.isChecked('#f-lifetime-alive_at_start'), true);
  // the table and the migrations card equal `packlab run --link` of the page's own link
  const native = cliRun({ link: page.url() });
  assert.deepEqual(await lifetimeTable(page), lifetimeTableOf(native.results));
  assert.equal(await page.isVisible('#lifetime-migration-card'), true);
  const mig = await page.$$eval('#lifetime-migration-rows tr', (rows) => rows.map((r) => [r.dataset.policy, r.dataset.startMigrations, r.dataset.larsMigrations]));
  assert.deepEqual(mig, native.results.map((r) => [r.policy, String(r.start_order.migrations), String(r.lars.migrations)]));
  assert.ok(native.results.some((r) => r.start_order.drained_hosts > 0), 'no host was drained: the test scenario does not exercise E3.5');
  // switching defragmentation and the warm-up off re-runs without the card, to the CLI's numbers again
  const runs = Number(await page.getAttribute('#lifetime-card', 'data-runs'));
  await page.uncheck('#f-lifetime-defrag');
  await page.uncheck('#f-lifetime-alive_at_start');
  await waitLifetime(page, runs);
  assert.equal(await page.isVisible('#lifetime-migration-card'), false);
  const w = await loadWasm();
  const now = w.scenario_from_link(page.url());
  assert.equal(now.lifetime.defrag, false);
  assert.equal('alive_at_start' in now.lifetime, false);
  assert.deepEqual(await lifetimeTable(page), lifetimeTableOf(cliRun({ link: page.url() }).results));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
