// The placement tab's default run in Chromium, first and second run of a visit, over three visits that share
// one browser profile (a persistent user-data dir): visit 1 with an empty cache, visit 2 in a new tab of the
// same browser, visit 3 after restarting the browser. Chromium keeps the wasm module's optimised code in its
// code cache once it has been tiered up (the module comes from WebAssembly.compileStreaming and the server sends
// validators, scripts/serve.py), so from visit 2 on the first run should cost no more than the second.
// The run times are the page's own (#frontier-card data-ms). A measurement, not a test.
// Needs www/pkg (make wasm). Usage: node scripts/measure-warm-browser.mjs [VISITS=3]
//
// `node scripts/measure-warm-browser.mjs compare [VISITS=5]`: the engine worker's warm-up (www/common/worker.js)
// on and off (`?warm=0`), alternating, each visit in a fresh browser context (nothing cached): per visit the time
// from navigation to the first frontier, the first and second run (ms) and how the warm-up went (data-warm:
// state steps/total ms), then the medians. Prints the load average before and after.
// `node scripts/measure-warm-browser.mjs worker [N=5]`: the same for the engine worker alone (no page around it).
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM, CHROMIUM_ARGS, waitForRun } from '../tests/e2e/helpers.mjs';
import { loadWasm } from '../tests/e2e/wasm-node.mjs';

const server = await startServer();
const profile = mkdtempSync(path.join(os.tmpdir(), 'packlab-warm-'));
const open = () => chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 1000 } });
const ms = (page) => page.getAttribute('#frontier-card', 'data-ms').then(Number);
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

if (process.argv[2] === 'worker') {
  // the engine worker alone, on a page that runs nothing else, in a fresh browser each time, warm-up off
  // and on (the 'on' worker's first run waits until its warm-up is done), the bundled trace loaded, the default
  // run twice (the worker's own elapsed_ms); separates the worker's first-run extra from the page's
  const visits = Number(process.argv[3] || 5);
  console.log(`# Chromium, engine worker alone, ${visits} workers per arm, alternating; load average at start ${loadavg()}`);
  const scenario = (await loadWasm()).default_scenario();
  const rows = { off: [], on: [] };
  for (let v = 1; v <= visits; v++) {
    for (const label of ['off', 'on']) {
      // a fresh browser each time: V8 shares the compiled (and optimised) code of equal modules within a process
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      const page = await browser.newPage();
      await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
      await page.goto(`${server.url}common/dom.js`);
      const r = await page.evaluate(async ({ warm, scenario }) => {
        const { EngineWorker } = await import('/common/worker-client.js');
        const module = await WebAssembly.compileStreaming(fetch('/pkg/packlab_bg.wasm'));
        const bytes = new Uint8Array(await (await fetch('/static/traces/planetlab-20110303.tsv.gz')).arrayBuffer());
        const e = new EngineWorker({ module, warm: warm ? 'placement' : undefined });
        await e.ready;
        const status = warm ? await e.request('warm.status').promise : null;
        await e.loadTrace([{ name: 'planetlab-20110303.tsv.gz', data: bytes }], { name: 'planetlab-20110303' }).promise;
        const first = (await e.request('run', { scenario }).promise).elapsed_ms;
        const second = (await e.request('run', { scenario }).promise).elapsed_ms;
        e.worker.terminate();
        return { first, second, warm: status && `${status.state} ${status.steps}/${status.total} ${status.ms}ms` };
      }, { warm: label === 'on', scenario });
      await browser.close();
      rows[label].push(r);
      console.log(`worker ${v} warm-up ${label.padEnd(3)}: first run ${r.first.toFixed(0)} ms, second ${r.second.toFixed(0)} ms, first/second ${(r.first / r.second).toFixed(2)}, warm-up: ${r.warm ?? 'none'}`);
    }
  }
  for (const [label, rs] of Object.entries(rows)) {
    const f = median(rs.map((r) => r.first));
    const sec = median(rs.map((r) => r.second));
    console.log(`median warm-up ${label.padEnd(3)}: first run ${f.toFixed(0)} ms, second ${sec.toFixed(0)} ms, first/second ${(f / sec).toFixed(2)}`);
  }
  console.log(`# load average at end ${loadavg()}`);
  server.stop();
  process.exit(0);
}

if (process.argv[2] === 'compare') {
  const visits = Number(process.argv[3] || 5);
  console.log(`# Chromium, ${os.cpus().length} cores, ${visits} visits per arm, alternating; load average at start ${loadavg()}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const arms = { off: { q: '?warm=0', rows: [] }, on: { q: '', rows: [] } };
  for (let v = 1; v <= visits; v++) {
    for (const [label, arm] of Object.entries(arms)) {
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      const page = await ctx.newPage();
      const t0 = Date.now();
      await page.goto(server.url + arm.q);
      const n = await waitForRun(page, 0, 120_000);
      const toFirst = Date.now() - t0;
      const first = await ms(page);
      await page.click('#rerun');
      await waitForRun(page, n, 120_000);
      const second = await ms(page);
      const warm = await page.getAttribute('html', 'data-warm');
      arm.rows.push({ toFirst, first, second });
      console.log(`visit ${v} warm-up ${label.padEnd(3)}: navigation to first frontier ${toFirst} ms, first run ${first} ms, second ${second} ms, first/second ${(first / second).toFixed(2)}, warm-up: ${warm ?? 'none'}`);
      await ctx.close();
    }
  }
  for (const [label, arm] of Object.entries(arms)) {
    const m = (k) => median(arm.rows.map((r) => r[k]));
    console.log(`median warm-up ${label.padEnd(3)}: navigation to first frontier ${m('toFirst')} ms, first run ${m('first')} ms, second ${m('second')} ms, first/second ${(m('first') / m('second')).toFixed(2)}`);
  }
  console.log(`# load average at end ${loadavg()}`);
  await browser.close();
  server.stop();
  process.exit(0);
}

async function visit(ctx, label) {
  const page = await ctx.newPage();
  await page.goto(server.url);
  const n = await waitForRun(page, 0, 120_000);
  const first = await ms(page);
  await page.click('#rerun');
  await waitForRun(page, n, 120_000);
  const second = await ms(page);
  console.log(`${label.padEnd(36)} first run ${first} ms, second ${second} ms, first/second ${(first / second).toFixed(2)}`);
  // V8 writes a module's code cache a while after its tier-up (a timeout of about 2 s): stay that long
  await page.waitForTimeout(4000);
  await page.close();
}

let ctx = await open();
await visit(ctx, 'visit 1 (empty cache)');
await visit(ctx, 'visit 2 (new tab, same browser)');
await ctx.close();
ctx = await open();
await visit(ctx, 'visit 3 (browser restarted)');
await ctx.close();
server.stop();
