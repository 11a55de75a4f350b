// Shared harness of the end-to-end tests: the playground's static server, Debian's chromium driven by
// playwright-core (no browser download, no network), the native CLI, and page helpers.
import { before, after } from 'node:test';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, existsSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './wasm-node.mjs';

export { ROOT };
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const FIXTURES = path.join(ROOT, 'tests/e2e/fixtures');
export const CLI = path.join(ROOT, 'target/release/packlab');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage',
];

/** Start scripts/serve.py on a free port; resolves to { url, stop }. */
export function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', ['-u', path.join(ROOT, 'scripts/serve.py'), '0'], {
      env: { ...process.env, PACKLAB_SERVE_QUIET: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buf = '';
    const timer = setTimeout(() => reject(new Error('server did not start')), 10_000);
    proc.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop: () => proc.kill() });
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Every process alive: its parent and its CPU seconds so far (user + system), from /proc (Linux; empty elsewhere). */
function processTable() {
  const parent = new Map();
  const cpu = new Map();
  let pids = [];
  try { pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return { parent, cpu }; }
  for (const d of pids) {
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      cpu.set(Number(d), (Number(f[11]) + Number(f[12])) / 100); // utime, stime in clock ticks (USER_HZ = 100)
    } catch { /* ended meanwhile */ }
  }
  return { parent, cpu };
}

/** The processes alive under `root` (its descendants, not itself), from the table of `processTable`. */
function descendants(root, { parent } = processTable()) {
  const out = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === root) { out.push(pid); break; }
  }
  return out;
}

/**
 * CPU seconds (user + system) used so far by this process's descendants that are alive (the browser's processes:
 * its workers are threads of them), from /proc (Linux; 0 elsewhere). A difference of two readings is what the
 * browser computed between them, a figure less noisy than wall time on a shared machine.
 */
export function browserCpu() {
  const table = processTable();
  return descendants(process.pid, table).reduce((s, pid) => s + table.cpu.get(pid), 0);
}

/**
 * Stops the background work whose process id is in `pidFile` (`make test`'s fuzz build: test-artifacts/fuzz-build.pid)
 * and all its descendants with SIGSTOP, so a measurement has the machine alone (issue 25: the background build
 * and the browser sit in different scheduler groups, so its nice 19 does not make it yield to the browser). Returns
 * `resume()`, which sends SIGCONT to every process it stopped (safe to call twice). Nothing to stop (no file, the
 * process ended, not Linux): a `resume` that does nothing.
 */
export function pauseBackground(pidFile) {
  let root;
  try { root = Number(readFileSync(pidFile, 'utf8').trim()); } catch { return () => {}; }
  if (!(root > 1)) return () => {};
  // only the fuzz build: a file left by an earlier run may name a process id reused since
  try { if (!readFileSync(`/proc/${root}/cmdline`, 'utf8').includes('scripts/fuzz.sh')) return () => {}; } catch { return () => {}; }
  const stopped = [];
  const signal = (pid, sig) => { try { process.kill(pid, sig); return true; } catch { return false; } };
  if (!signal(root, 'SIGSTOP')) return () => {};
  stopped.push(root);
  // twice: a child forked while the first pass ran is seen by the second (its parent is stopped by then)
  for (let pass = 0; pass < 2; pass++) {
    for (const pid of descendants(root)) if (!stopped.includes(pid) && signal(pid, 'SIGSTOP')) stopped.push(pid);
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const pid of stopped) signal(pid, 'SIGCONT');
  };
}

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * One measurement of the suite is taken with nothing else running (issue 25: the default Oversubscription view's
 * report time, in the tab tour): scripts/e2e-run.mjs starts the tour first and writes this file (its own pid); the
 * other browser files wait in their start-up (useBrowser) until the tour removes it (releaseSolo), the runner that
 * wrote it has ended, or SOLO_WAIT_MS have passed.
 */
export const SOLO_LOCK = path.join(ARTIFACTS, 'solo.lock');
const SOLO_WAIT_MS = 120_000;

/** Resolves once no measurement runs alone (SOLO_LOCK gone, its runner ended, or SOLO_WAIT_MS passed). */
async function waitSolo() {
  const t0 = Date.now();
  while (Date.now() - t0 < SOLO_WAIT_MS) {
    let pid;
    try { pid = Number(readFileSync(SOLO_LOCK, 'utf8')); } catch { return; }
    try { process.kill(pid, 0); } catch { return; } // a runner that ended without removing it
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The measurement taken alone is done: the other files may start (SOLO_LOCK removed). */
export function releaseSolo() {
  rmSync(SOLO_LOCK, { force: true });
}

/**
 * The start-up of a browser test file: registers before/after hooks that start the static server and
 * Chromium once for the file and stop them at the end. Returns { server, browser } (set once `before` ran).
 * The file waits while a measurement runs alone (SOLO_LOCK), unless it is the file that takes it (`solo`).
 */
export function useBrowser({ solo = false } = {}) {
  const env = { server: null, browser: null };
  before(async () => {
    if (!solo) await waitSolo();
    env.server = await startServer();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.stop();
  });
  return env;
}

export { savedLinks } from './wasm-node.mjs';

/** A fresh temporary directory for downloads and generated files. */
export function tempDir(prefix = 'packlab-e2e-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Click `selector`, save the download it starts into `dir`; resolves to { name, path, bytes }. */
export async function grabDownload(page, selector, dir) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const p = path.join(dir, dl.suggestedFilename());
  await dl.saveAs(p);
  return { name: dl.suggestedFilename(), path: p, bytes: readFileSync(p) };
}

/** Collects the page's Content-Security-Policy violations, from its first document on, into `window.__csp`
 * ("directive blocked-URI" strings); read them with `page.evaluate(() => window.__csp)`. */
export function collectCsp(page) {
  return page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

/**
 * A page that records console errors and page errors into `page.problems`. PACKLAB_E2E_CPU_THROTTLE=k slows
 * the page's main thread k times (Chromium's CPU throttling), to shake out races a slow CI machine meets.
 */
export async function newPage(browser, size) {
  return pageIn(await newContext(browser, size));
}

/** A new browser context (a fresh profile: no cache, no cookies) whose pages have the viewport `size`. */
export function newContext(browser, { width = 1440, height = 1000 } = {}) {
  return browser.newContext({ viewport: { width, height }, acceptDownloads: true });
}

/**
 * A new page (a new document) in `context`, recording problems as `newPage` does: pages opened one after another in
 * one context share its HTTP cache, so the wasm module and the bundled trace come from the cache after the first
 * (a share link opened in the user's own browser); nothing else carries over (the playground stores nothing in the
 * browser). Close it with `page.close()`.
 */
export async function pageIn(context) {
  const page = await context.newPage();
  const throttle = Number(process.env.PACKLAB_E2E_CPU_THROTTLE || 0);
  if (throttle > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: throttle });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  return page;
}

/**
 * Runs `scenarios` ({ label: scenario }) in `page` on a fresh engine worker (www/common/worker-client.js) with a pool of
 * `size` workers, as the page does: the module compiled once and shared with the pool's members, the bundled PlanetLab
 * day loaded. `minMs`: the pool's threshold (undefined: the page's own, run-ops.js poolWorth; 0 forces the pool);
 * `passes`: how many times each scenario runs in turn (the second finds what the first left in the workers). Returns
 * { 'label' (first pass), 'label-again' (second), …: { report, ms (the worker's elapsed_ms), workers, partials } }.
 * Throws when the pool has another size than asked.
 */
export function poolRuns(page, { scenarios, size, minMs, passes = 1 }) {
  return page.evaluate(async ({ scenarios, size, minMs, passes }) => {
    const { EngineWorker } = await import('/common/worker-client.js');
    const bytes = new Uint8Array(await (await fetch('/static/traces/planetlab-20110303.tsv.gz')).arrayBuffer());
    const module = await WebAssembly.compileStreaming(fetch('/pkg/packlab_bg.wasm'));
    const e = new EngineWorker({ module });
    try {
      await e.ready;
      const got = await e.setPoolSize(size, minMs === undefined ? {} : { minMs });
      if (got.size !== size) throw new Error(`pool size ${got.size}, asked ${size}`);
      await e.loadTrace([{ name: 'planetlab-20110303.tsv.gz', data: bytes }], { name: 'planetlab-20110303' }).promise;
      const res = {};
      for (let pass = 0; pass < passes; pass++) {
        for (const [label, scenario] of Object.entries(scenarios)) {
          let partials = 0;
          const r = await e.request('run', { scenario }, { onProgress: (p) => { if (p.partial) partials += 1; } }).promise;
          res[label + (pass ? '-again'.repeat(pass) : '')] = { report: r.report, ms: r.elapsed_ms, workers: r.workers, partials };
        }
      }
      return res;
    } finally {
      e.worker.terminate();
    }
  }, { scenarios, size, minMs, passes });
}

/**
 * A small scenario of each model (partial: the engine's defaults fill the rest; `packlab run --link` takes under a
 * second of CPU for each): what the model files run, and what a test opens instead of a tab's default view when it
 * looks at the view itself (markup, accessibility, layout), so the suite runs each default scenario once (issue 30:
 * the tab tour, teaching.test.mjs, owns them).
 */
export const SMALL = {
  /** two policies, C = 300 cores, 500 h (3 weeks), 2 runs, 4 search steps */
  admission: { model: 'admission', seed: 5, admission: { runs: 2, policies: ['ZEROTH', 'SECOND'], params: { capacity: 300, horizon_hours: 500, tune_iterations: 4, sla: 0.002 } } },
  /** a 3% share of the Azure 2017 tenant batches */
  lifetime: { model: 'lifetime', seed: 2, lifetime: { share: 0.03 } },
  /** E1.1 on 100 PMs: Grid-0.4, GPA and C2MARL trained for 5 episodes, 10 evaluation episodes */
  oversub: { model: 'oversub', oversub: { policies: ['grid:0.4', 'gpa:0.95', 'c2marl:0.95'], train_episodes: 5, eval_episodes: 10, pms: 100 } },
  /** E4.3 on the Azure 2017 arrivals with greedy alone at two κ_use (no LP) */
  era: { model: 'era', era: { policies: ['greedy'], kappa: [0.8, 1] } },
};

/** Each model's run card (its data-state is 'done' once a run has finished). */
export const CARD = { placement: '#frontier-card', admission: '#admission-card', oversub: '#oversub-card', lifetime: '#lifetime-card', era: '#era-card' };

/**
 * Open `url` in `page` as a new document (through about:blank, so a link that differs from the page's address only
 * in its fragment loads afresh instead of being handed to the open page's hashchange): a page reused for several
 * links costs the browser far less than a new page (a renderer process) for each (results/bench/web-suite.txt).
 * Clears `page.problems`.
 */
export async function openIn(page, url) {
  await page.goto('about:blank');
  if (page.problems) page.problems.length = 0;
  return page.goto(url);
}

/** Wait until the frontier card has completed more than `after` runs; returns the run count. */
export async function waitForRun(page, after = 0, timeout = 60_000) {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#frontier-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, after, { timeout });
  return Number(await page.getAttribute('#frontier-card', 'data-runs'));
}

/**
 * After several edits in a row: wait until a run after `after` is done and no further run starts within
 * `quietMs` (the controls re-run 250 ms after the last edit, so on a slow machine edits more than 250 ms
 * apart start runs over partly edited scenarios first). Returns the run count of the settled run.
 */
export async function waitForSettledRun(page, after = 0, { timeout = 90_000, quietMs = 800 } = {}) {
  const deadline = Date.now() + timeout;
  let seen = after;
  for (;;) {
    const n = await waitForRun(page, seen, Math.max(1, deadline - Date.now()));
    await page.waitForTimeout(quietMs);
    if ((await page.getAttribute('#frontier-card', 'data-state')) === 'done' && (await runCount(page)) === n) return n;
    if (Date.now() > deadline) throw new Error(`no settled run within ${timeout} ms`);
    seen = n; // another run started (or ended) in the quiet time: wait for it
  }
}

export async function runCount(page) {
  return Number(await page.getAttribute('#frontier-card', 'data-runs'));
}

/** The results table as exact strings (data attributes hold JS's round-trip number formatting). */
export async function readTable(page) {
  return page.$$eval('#frontier-rows tr', (rows) => rows.map((r) => ({
    spec: r.dataset.spec, m_abs: r.dataset.mAbs, m_norm: r.dataset.mNorm, m: r.dataset.m, q: r.dataset.q,
    utilization: r.dataset.utilization, pareto: r.dataset.pareto,
  })));
}

/** The same shape from a frontier JSON (CLI or wasm). */
export function tableOf(frontier) {
  return frontier.points.map((p) => ({
    spec: p.spec, m_abs: String(p.m_abs), m_norm: String(p.m_norm), m: String(p.m), q: String(p.q),
    utilization: String(p.utilization), pareto: String(p.pareto),
  }));
}

/** The admission results table as exact strings, one row per arm (the page's data attributes). */
export async function admissionTable(page) {
  return page.$$eval('#admission-rows tr', (rows) => rows.map((r) => ({
    label: r.dataset.label, threshold: r.dataset.threshold, utilization: r.dataset.utilization,
    ci_lo: r.dataset.ciLo, ci_hi: r.dataset.ciHi, failure_rate: r.dataset.failureRate,
  })));
}

/** The same shape from an admission report (CLI or wasm): native and wasm are bit-identical (libm on both). */
export function admissionTableOf(rep) {
  return rep.arms.map((a) => ({
    label: a.label, threshold: String(a.threshold), utilization: String(a.utilization),
    ci_lo: String(a.utilization_ci[0]), ci_hi: String(a.utilization_ci[1]), failure_rate: String(a.failure_rate),
  }));
}

/** The lifetime results table's fields (the engine's names); their dataset keys are the camelCase forms. */
export const LIFETIME_FIELDS = ['empty_hosts', 'empty_hosts_pp_vs_best_fit', 'optimum_empty_hosts', 'empty_to_free', 'packing_density', 'allocation', 'stranded_cpu', 'stranded_mem', 'failures'];

/** The lifetime results table as exact strings, one row per policy. */
export async function lifetimeTable(page) {
  const keys = LIFETIME_FIELDS.map((k) => [k, k.replace(/_([a-z])/g, (_, c) => c.toUpperCase())]);
  return page.$$eval('#lifetime-rows tr', (rows, ks) => rows.map((r) => Object.fromEntries([['policy', r.dataset.policy], ...ks.map(([k, c]) => [k, r.dataset[c]])])), keys);
}

/** The same shape from lifetime results (a report's, or the pinned CLI rows): native and wasm are bit-identical. */
export function lifetimeTableOf(results) {
  return results.map((r) => Object.fromEntries([['policy', r.policy], ...LIFETIME_FIELDS.map((k) => [k, String(r[k])])]));
}

/** Number of non-white pixels of a canvas. */
export async function canvasInk(page, selector) {
  return page.$eval(selector, (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++;
    return n;
  });
}

/** Run the native CLI: `packlab run --link <url> [--trace path]`; returns the parsed frontier. */
export function cliRun({ link, scenarioFile, trace }) {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: build it with \`cargo build --release\` (make native)`);
  const args = ['run'];
  if (link) args.push('--link', link);
  if (scenarioFile) args.push(scenarioFile);
  if (trace) args.push('--trace', trace);
  return JSON.parse(execFileSync(CLI, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/**
 * The native CLI's output for a saved share link (tests/links/v*.jsonl): tests/pins/link-<sha1 of the link, 10 hex>.json,
 * `packlab run --link LINK` (with the uploaded-trace fixture where the link needs it) as scripts/pins.sh wrote it.
 * The native tests (tests/integration/cli_pins.rs) check that the current CLI still writes exactly these bytes, so comparing with
 * the pin is comparing with the CLI, without running it again here.
 */
export function pinOf(link) {
  const name = `link-${createHash('sha1').update(link).digest('hex').slice(0, 10)}.json`;
  return JSON.parse(readFileSync(path.join(ROOT, 'tests/pins', name), 'utf8'));
}

/** Zip a fixture folder with python's zipfile (entries "<folder>/<file>"); returns the zip path. */
export function zipFolder(folder, out) {
  execFileSync('python3', ['-c', `
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
base = os.path.basename(src.rstrip('/'))
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
    for f in sorted(os.listdir(src)):
        z.write(os.path.join(src, f), f'{base}/{f}')
`, folder, out]);
  return out;
}

export function artifact(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

/**
 * Merge `values` into test-artifacts/metrics.json (the measured figures of the report). The test files run two at a
 * time (scripts/test-web.sh), so the read-merge-write holds a lock (a directory beside the file, made atomically).
 */
export function recordMetrics(values) {
  const p = artifact('metrics.json');
  const lock = `${p}.lock`;
  for (let waited = 0; ; waited += 10) {
    try { mkdirSync(lock); break; } catch (e) {
      if (e.code !== 'EEXIST' || waited > 30_000) throw new Error(`recordMetrics: cannot take ${lock}: ${e.message}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  try {
    let cur = {};
    try { cur = JSON.parse(readFileSync(p, 'utf8')); } catch { /* first */ }
    writeFileSync(p, JSON.stringify({ ...cur, ...values }, null, 2) + '\n');
  } finally {
    rmdirSync(lock);
  }
}

/**
 * Words of a developer, not a user, that no message the page shows may hold: serde's and base64's phrasings, Rust
 * type names, a wasm trap (issue 28: "Invalid last symbol 0x39 … decoded as …", "invalid value: integer, expected u64").
 */
export const DEVELOPER_WORDS = /0x[0-9a-f]|decoded as|invalid (type|value): |expected (u|i|f)(8|16|32|64|size)\b|unknown (field|variant) `|Invalid (last )?symbol|serde|panicked|RuntimeError/;
