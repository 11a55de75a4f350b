// End to end: the reservation view (economic reservations and dynamic pricing, seed 004) in real Chromium and
// the engine in wasm (node) against the native CLI's pinned outputs, bit for bit (the LP predictor's
// interior-point solve included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, useBrowser, newPage, canvasInk, artifact, savedLinks, pinOf } from './helpers.mjs';
import { loadWasm, planRun } from './wasm-node.mjs';

const env = useBrowser();

const eraLinks = () => savedLinks().filter((e) => e.expect.model === 'era');
const cellsOf = (cells) => cells.map((c) => ({ policy: c.policy, kappa: String(c.kappa), value_efficiency: String(c.value_efficiency), late_pct: String(c.late_pct), revenue: String(c.revenue) }));

async function waitEra(page, after = 0, timeout = 180_000) {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#era-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, after, { timeout });
}

async function readCells(page) {
  return page.$$eval('#era-rows tr', (rows) => rows.map((r) => ({
    policy: r.dataset.policy, kappa: r.dataset.kappa, value_efficiency: r.dataset.valueEfficiency, late_pct: r.dataset.latePct, revenue: r.dataset.revenue,
  })));
}

test('wasm gives the native reports of the saved reservation links, bit for bit', async () => {
  const w = await loadWasm();
  const loaded = {};
  for (const entry of eraLinks()) {
    const sc = w.scenario_from_link(entry.link);
    const id = sc.workload.bundled;
    if (!loaded[id]) {
      const b = w.bundled_data().find((d) => d.id === id);
      const tb = new w.TraceBuilder();
      tb.add(path.basename(b.path), readFileSync(path.join(ROOT, b.path)));
      loaded[id] = tb.finish_workload(id);
    }
    const run = planRun(w, sc, { workload: loaded[id] });
    assert.deepEqual(run.run_all(), pinOf(entry.link), entry.note);
    run.free();
  }
  for (const x of Object.values(loaded)) x.free();
});

test('a saved E4.1 link opens the Reservations tab and reproduces the CLI, with the teaching view', async () => {
  const entry = eraLinks().find((e) => e.expect.era.preset === 'E4.1');
  const pinned = pinOf(entry.link);
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}/#s=${entry.link}`);
  await page.waitForSelector('#era-card');
  assert.equal(await page.getAttribute('#tab-era', 'aria-current'), 'page');
  await waitEra(page);
  assert.deepEqual(await readCells(page), cellsOf(pinned.cells));
  assert.ok((await canvasInk(page, '#era-efficiency-canvas')) > 3000, 'efficiency chart blank');
  // one κ_use: no frontier to draw
  assert.equal(await page.isVisible('#era-frontier-wrap'), false);
  assert.match(await page.textContent('#era-data-statement'), /Real arrivals and job sizes/);
  assert.match(await page.textContent('#era-paper'), /greedy 10%, basic-econ 51%/);
  assert.equal(await page.$$eval('#era-classes tbody tr', (r) => r.length), 6);
  // the teaching view: a request from the middle of the run under the first BASIC_ECON cell, its decision
  // and the truthfulness table
  await page.waitForSelector('#era-request-summary');
  const mid = Math.floor(pinned.setup.requests / 2);
  assert.match(await page.textContent('#era-request-summary'), new RegExp(`Request ${mid} \\(basic-econ:lp`));
  const prices = await page.$$eval('#era-truthful tbody tr td:last-child', (t) => t.map((x) => x.textContent));
  assert.equal(prices.length, 4);
  assert.ok(prices.every((p) => p === prices[0]), `the price moved with the stated value: ${prices}`);
  assert.ok((await canvasInk(page, '#era-request-canvas')) > 3000, 'request chart blank');
  await page.click('#era-request-next');
  await page.waitForFunction((n) => new RegExp(`Request ${n} `).test(document.querySelector('#era-request-summary')?.textContent || ''), mid + 1);
  await page.screenshot({ path: artifact('playground-era-e41.png'), fullPage: true });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

// The default Reservations view's run is checked in the tab tour (teaching.test.mjs, DEFAULT_RUN.era): one default
// run per suite.
