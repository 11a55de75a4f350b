// The Oversubscription tab's default view (E1.1, 8 policies × 100 evaluation episodes on 500 PMs, C2MARL from the
// bundled policy; issue 25: its report in under 10 s in Chromium) from navigation to its report, N visits, each in a
// fresh Chromium (no cache). Per visit: navigation → first step and → report; the breakdown the page gives (the
// wasm file's fetch, navigation → the view's start, start → run request: the bundled policy's fetch and the
// worker's check of it, request → result: the worker's run, of which `compute` is the worker's own time, result →
// drawn); the CPU time of the browser's processes (user + system, all of them, /proc) and the load average; at the
// end the page's rows (policy, PM-Hot-R, S-Cores), to hold against `packlab oversub run`'s table. The
// machine is shared: compare CPU where wall is noisy. Needs www/pkg (make wasm) and target/release/packlab.
// Usage: node scripts/measure-oversub-default-browser.mjs [N=3] [QUERY]   (QUERY e.g. '?workers=1', before the
// link's '#'; output stored in results/bench/oversub-default.txt)
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { startServer, launch, newPage, browserCpu, ROOT } from '../tests/e2e/helpers.mjs';

const n = Number(process.argv[2] || 3);
const query = process.argv[3] || '';
if (!(Number.isInteger(n) && n >= 1)) {
  console.error(`measure-oversub-default-browser: N must be a whole number ≥ 1, got '${process.argv[2]}'`);
  process.exit(2);
}

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const link = execFileSync('target/release/packlab', ['oversub', 'run', '--print-link'], { cwd: ROOT, encoding: 'utf8' }).trim();
const server = await startServer();
console.log(`# ${new Date().toISOString()}, ${os.cpus().length} cores, load at start ${load()}; link #s=${link}${query ? `, query ${query}` : ''}`);
const walls = [];
const tables = [];
for (let i = 1; i <= n; i++) {
  const browser = await launch();
  const page = await newPage(browser);
  const cpu0 = browserCpu();
  const t0 = Date.now();
  await page.goto(`${server.url}${query}#s=${link}`);
  await page.waitForFunction(() => !!document.querySelector('#oversub-card')?.dataset.firstMs, null, { timeout: 300_000 });
  const first = Date.now() - t0;
  await page.waitForFunction(() => document.querySelector('#oversub-card')?.dataset.state === 'done', null, { timeout: 300_000 });
  const report = Date.now() - t0;
  const cpu = browserCpu() - cpu0;
  const b = await page.evaluate(() => {
    const c = document.querySelector('#oversub-card').dataset;
    const now = performance.now(); // within a frame of the result's drawing
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('packlab_bg.wasm'));
    const pol = performance.getEntriesByType('resource').find((e) => /c2marl-e11/.test(e.name));
    const done = Number(c.doneAt);
    const start = done - Number(c.clickMs);
    const request = done - Number(c.ms);
    return {
      wasm_fetch: wasm ? wasm.responseEnd - wasm.startTime : NaN,
      to_start: start, policy_fetch: pol ? pol.responseEnd - pol.startTime : NaN,
      start_to_request: request - start, request_to_result: Number(c.ms), compute: Number(c.computeMs),
      result_to_drawn: Number(c.drawnAt) - done, poll: now - Number(c.drawnAt), status: document.querySelector('#oversub-status').textContent,
      rows: document.querySelectorAll('#oversub-rows tr').length, mode: c.mode,
      table: [...document.querySelectorAll('#oversub-rows tr')].map((r) => `${r.dataset.policy} PM-Hot-R ${r.dataset.pmHotR} S-Cores ${r.dataset.sCores}`),
    };
  });
  const ms = (x) => `${Math.round(x)}`;
  console.log(`visit ${i}: navigation → first step ${first} ms, → report ${report} ms; browser CPU ${cpu.toFixed(1)} s; load ${load()}`);
  console.log(`  in page: wasm fetch ${ms(b.wasm_fetch)} ms; navigation → view start ${ms(b.to_start)} ms; start → run request ${ms(b.start_to_request)} ms`
    + ` (bundled policy fetch ${ms(b.policy_fetch)} ms, the worker's start and check); request → result ${ms(b.request_to_result)} ms (worker compute ${ms(b.compute)} ms);`
    + ` result → drawn ${ms(b.result_to_drawn)} ms; ${b.rows} rows, mode ${b.mode}; "${b.status}"`);
  walls.push(report);
  tables.push(b.table.join('\n'));
  await browser.close();
}
server.stop();
const sorted = [...walls].sort((a, b) => a - b);
// the page's numbers (every visit the same), to hold against `packlab oversub run` (the same scenario, trained there)
console.log(`rows${tables.every((t) => t === tables[0]) ? ' (the same in every visit)' : ' DIFFER between visits'}:\n${tables[0]}`);
console.log(`navigation → report over ${n} visits: median ${sorted[Math.floor((n - 1) / 2)]} ms, min ${sorted[0]} ms, max ${sorted[n - 1]} ms; load at end ${load()}`);
