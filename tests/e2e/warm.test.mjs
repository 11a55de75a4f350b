// End to end in real Chromium: the engine worker's warm-up (www/common/worker.js warmUp, issue 30). A worker
// started with a model to warm runs that model's small run on its own throwaway inputs while idle and leaves the
// worker as it found it; a request sent right behind the start skips it, one sent while it runs stops it at the
// next step; in every case the default frontier afterwards is the native CLI's, bit for bit. How long the warm-up
// took is recorded, not asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, cliRun, recordMetrics } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();

test('a fresh worker warms up while idle, gives way to requests, and no result changes', async () => {
  const w = await loadWasm();
  const scenario = w.default_scenario();
  const page = await newPage(env.browser);
  // a page of the same origin that runs nothing (the playground would run its own workers beside these; the
  // browser asks a plain file's page for /favicon.ico, which the server has not)
  await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  await page.goto(`${env.server.url}common/dom.js`);
  const out = await page.evaluate(async ({ scenario }) => {
    const { EngineWorker } = await import('/common/worker-client.js');
    const bytes = new Uint8Array(await (await fetch('/static/traces/planetlab-20110303.tsv.gz')).arrayBuffer());
    // a module compiled for each worker: instances of one module share its optimised code, so a second warm-up
    // would find the first one's work done
    const compile = () => WebAssembly.compileStreaming(fetch('/pkg/packlab_bg.wasm'));
    const files = [{ name: 'planetlab-20110303.tsv.gz', data: bytes }];
    const frontier = async (e) => (await e.request('run', { scenario }).promise).report;
    const res = {};

    // left idle: the warm-up runs to its end ('warm.status' waits behind it), on a trace of its own
    const idle = new EngineWorker({ module: await compile(), warm: 'placement' });
    await idle.ready;
    res.idle = await idle.request('warm.status').promise;
    res.idleNoTrace = await idle.request('run', { scenario }).promise.then(() => null, (e) => e);
    await idle.loadTrace(files, { name: 'planetlab-20110303' }).promise;
    res.idleReport = await frontier(idle);
    idle.worker.terminate();

    // a request sent right behind the start: no warm-up at all
    const busy = new EngineWorker({ module: await compile(), warm: 'placement' });
    const load = busy.loadTrace(files, { name: 'planetlab-20110303' }).promise;
    await busy.ready;
    await load;
    res.busyReport = await frontier(busy);
    res.busy = await busy.request('warm.status').promise;
    busy.worker.terminate();

    // a request sent once the worker has started: the warm-up stops before its next step
    const late = new EngineWorker({ module: await compile(), warm: 'placement' });
    await late.ready;
    await late.loadTrace(files, { name: 'planetlab-20110303' }).promise;
    res.lateReport = await frontier(late);
    res.late = await late.request('warm.status').promise;
    late.worker.terminate();

    // a model without a warm-up
    const none = new EngineWorker({ module: await compile(), warm: 'era' });
    await none.ready;
    res.none = await none.request('warm.status').promise;
    none.worker.terminate();
    return res;
  }, { scenario });

  assert.equal(out.idle.model, 'placement');
  assert.equal(out.idle.state, 'done', JSON.stringify(out.idle));
  const native = cliRun({ link: w.scenario_to_link(scenario) });
  // the default scenario's run on the synthetic trace, twice (www/placement/warm-up.js: the second pass on the first
  // one's optimised code): one step per frontier point, as on the bundled one
  assert.equal(out.idle.total, 2 * native.points.length);
  assert.equal(out.idle.steps, out.idle.total, 'every step of both passes');
  // the warm-up's trace was its own: the worker still has none
  assert.equal(out.idleNoTrace && out.idleNoTrace.message, 'no trace is loaded');
  assert.equal(out.busy.state, 'skipped', JSON.stringify(out.busy));
  assert.equal(out.busy.steps, 0);
  assert.equal(out.late.state, 'given up', JSON.stringify(out.late));
  assert.ok(out.late.steps < out.idle.total, JSON.stringify(out.late));
  assert.equal(out.none.state, 'none');

  assert.deepEqual(out.idleReport, native, 'after a whole warm-up');
  assert.deepEqual(out.busyReport, native, 'without one');
  assert.deepEqual(out.lateReport, native, 'after one given up');
  console.log(JSON.stringify({ idle: out.idle, busy: out.busy, late: out.late }));
  recordMetrics({ browser_warm_up_ms: out.idle.ms, browser_warm_up_steps: out.idle.total });
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
