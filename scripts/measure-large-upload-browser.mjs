// Uploads a large wide trace into the playground in Chromium (Debian chromium via playwright-core, as the e2e
// tests do) and reports how long it takes until the trace panel shows it and the default frontier has run, and
// the peak resident memory of all of Chromium's processes (sampled from /proc every 100 ms).
// Needs www/pkg (scripts/build-wasm.sh). Not a CI test: it takes a minute and hundreds of MB.
// Usage: node scripts/measure-large-upload-browser.mjs [TRACE] (default: the trace of
// scripts/bench-large-trace.sh, /tmp/packlab-large-trace/wide-100k-288.tsv)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { startServer, launch, newPage } from '../tests/e2e/helpers.mjs';

const trace = process.argv[2] || '/tmp/packlab-large-trace/wide-100k-288.tsv';
const page_kb = 4;

/** Resident memory (MB) of the processes descending from this one (Chromium and its helpers). */
function descendantsRssMb() {
  const parent = new Map();
  const rss = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      rss.set(Number(d), Number(f[21]) * page_kb / 1024);
    } catch { /* gone */ }
  }
  let total = 0;
  for (const [pid, mb] of rss) {
    for (let p = parent.get(pid); p; p = parent.get(p)) {
      if (p === process.pid) { total += mb; break; }
    }
  }
  return total;
}

const server = await startServer();
const browser = await launch();
const page = await newPage(browser);
let peak = 0;
const timer = setInterval(() => { peak = Math.max(peak, descendantsRssMb()); }, 100);
await page.goto(server.url);
await page.waitForFunction(() => document.querySelector('#frontier-card')?.dataset.state === 'done', null, { timeout: 120_000 });
const idle = descendantsRssMb();
const runs = Number(await page.getAttribute('#frontier-card', 'data-runs'));
const t0 = Date.now();
await page.setInputFiles('#trace-files', trace);
const shown = await page.waitForFunction(() => {
  const e = document.querySelector('#trace-error');
  if (e && !e.hidden && e.textContent) return 'error: ' + e.textContent;
  return document.querySelector('#trace-vms')?.textContent === '100000' ? 'loaded' : null;
}, null, { timeout: 300_000, polling: 50 });
const loaded = Date.now() - t0;
const status = await shown.jsonValue();
let ran = null;
if (status === 'loaded') {
  await page.waitForFunction((n) => {
    const c = document.querySelector('#frontier-card');
    return c && c.dataset.state === 'done' && Number(c.dataset.runs) > n;
  }, runs, { timeout: 600_000 });
  ran = Date.now() - t0;
}
clearInterval(timer);
peak = Math.max(peak, descendantsRssMb());
const m = {
  trace, bytes: statSync(trace).size, status,
  upload_to_panel_ms: loaded, upload_to_frontier_done_ms: ran,
  chromium_rss_idle_mb: Math.round(idle), chromium_rss_peak_mb: Math.round(peak),
  problems: page.problems,
};
console.log(JSON.stringify(m, null, 1));
await browser.close();
server.stop();
