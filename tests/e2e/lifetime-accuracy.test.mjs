// End to end in real Chromium: the lifetime view's accuracy frontier (E3.2) against `packlab sweep` on the
// sweep file the page itself offers, and the findings card against results/003/tables.md. A small pool
// (share 0.03, three policies) keeps the frontier's 6 runs quick; the scenario's own run is the oracle's,
// which the frontier reuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, useBrowser, newPage, canvasInk, cliRun, tempDir, grabDownload, artifact, recordMetrics } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();
const CLI = path.join(ROOT, 'target/release/packlab');

const SMALL = { model: 'lifetime', seed: 2, lifetime: { share: 0.03, policies: ['best-fit', 'nilas', 'lava'], reprediction: false } };

async function open(page, scenario) {
  const w = await loadWasm();
  await page.goto(`${env.server.url}#s=${w.scenario_to_link(scenario)}`);
  await page.waitForFunction(() => {
    const c = document.querySelector('#lifetime-card');
    return c && c.dataset.state === 'done';
  }, null, { timeout: 120_000 });
}

/** The frontier table: [{ predictor, accuracy, values: { policy: exact string } }]. */
function readFrontier(page) {
  return page.$$eval('#lifetime-accuracy-rows tr', (rows) => rows.map((r) => ({
    predictor: r.dataset.predictor,
    accuracy: r.dataset.accuracy,
    values: Object.fromEntries([...r.querySelectorAll('td[data-policy]')].map((td) => [td.dataset.policy, td.dataset.value])),
  })));
}

const deltas = (report) => Object.fromEntries(report.results.map((r) => [r.policy, String(r.empty_hosts_pp_vs_best_fit)]));

test('the accuracy frontier equals packlab sweep on the page\'s sweep file, with progress, exports and Cancel', async () => {
  const TMP = tempDir();
  const page = await newPage(env.browser);
  await open(page, SMALL);
  const t0 = Date.now();
  await page.click('#lifetime-accuracy-run');
  await page.waitForFunction(() => document.querySelector('#lifetime-accuracy-card').dataset.state === 'done', null, { timeout: 180_000 });
  const ms = Date.now() - t0;
  // the oracle is the view's own run (the scenario's predictor is the oracle): 6 runs, not 7
  assert.match(await page.textContent('#lifetime-accuracy-status'), /^6 runs in [0-9.]+ s \(the oracle's is the run above\)$/);
  assert.ok((await canvasInk(page, '#lifetime-accuracy-canvas')) > 5000, 'frontier canvas is blank');

  // the CLI on the sweep file the page offers: results.json byte for byte, and every number of the table
  const sweep = await grabDownload(page, '#lifetime-accuracy-sweep-file', TMP);
  const spec = JSON.parse(sweep.bytes.toString('utf8'));
  assert.deepEqual(spec.axes, [{ field: 'lifetime.accuracy', values: [0.5, 0.6, 0.7, 0.8, 0.9, 1] }]);
  const w = await loadWasm();
  const base = w.scenario_from_link(spec.scenario);
  assert.equal(base.lifetime.predictor, 'noisy');
  assert.equal(base.lifetime.reprediction, false);
  assert.deepEqual(base.lifetime.policies, SMALL.lifetime.policies);
  execFileSync(CLI, ['sweep', sweep.path, '--out', path.join(TMP, 'cli')], { cwd: ROOT, stdio: 'ignore' });
  const cliJson = readFileSync(path.join(TMP, 'cli/results.json'));
  const pageJson = await grabDownload(page, '#lifetime-accuracy-results-json', TMP);
  assert.ok(pageJson.bytes.equals(cliJson), 'results.json differs from packlab sweep\'s');
  const cli = JSON.parse(cliJson.toString('utf8'));
  const oracle = cliRun({ link: page.url() });
  assert.equal(oracle.predictor, 'oracle');
  const expected = [
    ...cli.cells.map((c) => ({ predictor: 'noisy', accuracy: String(c.values[0]), values: deltas(c.report) })),
    { predictor: 'oracle', accuracy: '', values: deltas(oracle) },
  ];
  assert.deepEqual(await readFrontier(page), expected);
  // the frontier is not flat: a wrong A would not show (A = 0.5 and A = 1 give other Δ for NILAS or LAVA)
  assert.notDeepEqual(expected[0].values, expected[5].values);

  // exports: the chart (SVG names the oracle's Δ), the CSV, the JSON with the sweep, its results and the oracle
  const svg = (await grabDownload(page, '#lifetime-accuracy-export-svg', TMP)).bytes.toString('utf8');
  const nilasOracle = oracle.results.find((r) => r.policy === 'nilas').empty_hosts_pp_vs_best_fit;
  const signed = (v) => (v === 0 ? '0' : `${v > 0 ? '+' : ''}${v.toFixed(2)}`);
  assert.ok(svg.includes(`NILAS with the oracle: ${signed(nilasOracle)} pp`), 'the SVG names the oracle\'s Δ');
  const png = await grabDownload(page, '#lifetime-accuracy-export-png', TMP);
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const csv = (await grabDownload(page, '#lifetime-accuracy-export-csv', TMP)).bytes.toString('utf8').trim().split('\n');
  assert.equal(csv[0], 'predictor,accuracy,reprediction,policy,empty_hosts,empty_hosts_pp_vs_best_fit,failures');
  assert.equal(csv.length, 1 + 7 * 3);
  assert.deepEqual(csv[1].split(','), ['noisy', '0.5', 'false', 'best-fit', String(cli.cells[0].report.results[0].empty_hosts), '0', String(cli.cells[0].report.results[0].failures)]);
  const json = JSON.parse((await grabDownload(page, '#lifetime-accuracy-export-json', TMP)).bytes.toString('utf8'));
  assert.deepEqual(json.results, cli);
  assert.deepEqual(json.oracle.report, oracle);
  await page.screenshot({ path: artifact('playground-lifetime-accuracy.png'), fullPage: true });

  // the view's own run still answers the host timeline (the frontier's runs are transient)
  await page.selectOption('#lifetime-timeline-policy', '1');
  await page.waitForSelector('#lifetime-timeline-card[data-policy="nilas"]', { timeout: 60_000 });

  // Cancel: the second frontier stops, the table keeps what was done
  await page.click('#lifetime-accuracy-rerun');
  await page.waitForFunction(() => document.querySelector('#lifetime-accuracy-card').dataset.state === 'running');
  await page.click('#lifetime-accuracy-cancel');
  await page.waitForFunction(() => document.querySelector('#lifetime-accuracy-card').dataset.state === 'cancelled', null, { timeout: 30_000 });
  assert.match(await page.textContent('#lifetime-accuracy-status'), /^Cancelled after [0-5] of 6 runs\.$/);
  recordMetrics({ browser_lifetime_accuracy_small_ms: ms });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('the lifetime tab links to seed 003\'s findings page instead of embedding its tables', async () => {
  const page = await newPage(env.browser);
  await open(page, { ...SMALL, lifetime: { ...SMALL.lifetime, share: 0.01 } });
  assert.equal(await page.getAttribute('#lifetime-findings-link', 'href'), './findings.html?paper=003');
  assert.equal(await page.locator('#view-lifetime table.findings').count(), 0, 'no findings table on the tab');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
