// Placement's pool of Web Workers in Chromium against native on the same number of threads (issue 30: "Placement
// wasm/native ≤ 1.3 with the browser's pool against native on the same number of threads"). The resampled frontier
// (the bundled PlanetLab day, 1052 VMs × R realisations) for each R given, interleaved per repetition:
//   browser, pool of k workers (k = 1, 2): an engine worker in a fresh page with the trace loaded, the page's own
//     threshold (the pool takes a run whose rest is above 1 s after the first step), the worker's `elapsed_ms`
//     (first step, the members' set-up: trace and copy of the run, and the rest; a fresh worker each time, so a
//     first run) and how many workers computed it;
//   native on k threads: `PACKLAB_THREADS=k packlab run SCENARIO`, the process's wall (start and trace parse
//     included: ~50 ms) and its CPU (user + system, from the child's rusage).
// The reports of every arm are compared with the CLI's, bit for bit. Medians over REPS repetitions; the load beside.
// Usage: node scripts/measure-pool-browser.mjs [REPS=3] [R,...=3000,20000]
// Needs www/pkg (make wasm) and target/release/packlab; output stored in results/bench/pool.txt.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launch, newPage, poolRuns, CLI, ROOT } from '../tests/e2e/helpers.mjs';
import { loadWasm } from '../tests/e2e/wasm-node.mjs';

const reps = Number(process.argv[2] || 3);
const sizes = (process.argv[3] || '3000,20000').split(',').map(Number);
if (!(Number.isInteger(reps) && reps >= 1) || sizes.some((r) => !(Number.isInteger(r) && r >= 1))) {
  console.error('measure-pool-browser: usage: node scripts/measure-pool-browser.mjs [REPS ≥ 1] [R,... whole numbers ≥ 1]');
  process.exit(2);
}
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const w = await loadWasm();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'packlab-pool-'));
const server = await startServer();
const browser = await launch();
console.log(`# ${new Date().toISOString()}, ${os.cpus().length} cores, load at start ${load()}`);

/** One browser run of `scenario` on a pool of `k` workers in a fresh page: { ms, workers, report }. */
async function browserRun(scenario, k) {
  const page = await newPage(browser);
  // the page's own view idle (`run=ask`), its shell worker's warm-up over before the timed worker starts
  await page.goto(server.url + '#run=ask');
  await page.waitForFunction(() => document.documentElement.dataset.warm, null, { timeout: 60_000 });
  const { run: out } = await poolRuns(page, { scenarios: { run: scenario }, size: k });
  await page.context().close();
  return out;
}

/** One native run on `k` threads: { ms, cpu_s, report }. */
function nativeRun(file, k) {
  const t0 = performance.now();
  const p = spawnSync('/usr/bin/time', ['-f', '%U %S', CLI, 'run', file], {
    cwd: ROOT, env: { ...process.env, PACKLAB_THREADS: String(k) }, encoding: 'utf8', maxBuffer: 64 << 20,
  });
  const ms = performance.now() - t0;
  if (p.status !== 0) throw new Error(`packlab run ${file}: ${p.stderr}`);
  const [u, s] = p.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { ms, cpu_s: u + s, report: JSON.parse(p.stdout) };
}

const rows = [];
for (const r of sizes) {
  const scenario = w.check_scenario({ placement: { mode: 'resampled', realisations: r } }).scenario;
  const file = path.join(tmp, `resampled-${r}.json`);
  writeFileSync(file, w.scenario_json(scenario));
  const arms = { 'browser 1 worker': [], 'browser 2 workers': [], 'native 1 thread': [], 'native 2 threads': [] };
  const used = { 1: new Set(), 2: new Set() };
  const cpu = { 1: [], 2: [] };
  let reference = null;
  for (let i = 0; i < reps; i++) {
    for (const k of [1, 2]) {
      const n = nativeRun(file, k);
      reference ??= JSON.stringify(n.report);
      if (JSON.stringify(n.report) !== reference) throw new Error(`native on ${k} threads: another report`);
      arms[`native ${k} thread${k > 1 ? 's' : ''}`].push(n.ms);
      cpu[k].push(n.cpu_s);
      const b = await browserRun(scenario, k);
      if (JSON.stringify(b.report) !== reference) throw new Error(`browser on ${k} workers: not the CLI's report`);
      arms[`browser ${k} worker${k > 1 ? 's' : ''}`].push(b.ms);
      used[k].add(b.workers);
    }
    console.log(`R ${r} repetition ${i + 1}: ${Object.entries(arms).map(([a, xs]) => `${a} ${Math.round(xs[i])} ms`).join(', ')}; load ${load()}`);
  }
  const m = Object.fromEntries(Object.entries(arms).map(([a, xs]) => [a, median(xs)]));
  const row = {
    realisations: r,
    median_ms: Object.fromEntries(Object.entries(m).map(([a, x]) => [a, Math.round(x)])),
    browser_workers_used: { 1: [...used[1]], 2: [...used[2]] },
    native_cpu_s: { 1: +median(cpu[1]).toFixed(2), 2: +median(cpu[2]).toFixed(2) },
    ratio_1: +(m['browser 1 worker'] / m['native 1 thread']).toFixed(2),
    ratio_2: +(m['browser 2 workers'] / m['native 2 threads']).toFixed(2),
    reports: 'identical to the CLI in every arm',
  };
  console.log(JSON.stringify(row));
  rows.push(row);
}
await browser.close();
server.stop();
console.log(`# load at end ${load()}`);
