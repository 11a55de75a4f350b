// The end-to-end test files (tests/e2e/*.test.mjs) run N at a time (argument, default 2), the longest first.
// `node --test DIR` sorts the files by name, so with two at a time the longest file (the tab tour, teaching.test.mjs)
// started among the last and ran alone for most of its length while one core stood idle; started first, the other
// files fill the second core beside it (longest processing time first). SLOW is the files' order by their wall time
// in the suite (results/bench/web-suite.txt; since the sixteenth session each file's wall run alone,
// scripts/bench-web-files.py); a file not named there runs after them, by name. The order changes no
// test: each file still has its own server, browser and temporary folders.
// One measurement runs alone: the tab tour (first in SLOW) measures the default Oversubscription view's report time
// (issue 25) while the other browser files wait in their start-up for the lock written here (helpers.mjs SOLO_LOCK:
// the tour removes it once it has that report, ~20 s after its start; this runner at its end, whatever happened),
// and `make test`'s background fuzz build is stopped (SIGSTOP) until then.
// Usage: node scripts/e2e-run.mjs [N]   (scripts/test-web.sh; exits 1 when a test fails)
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, SOLO_LOCK, pauseBackground } from '../tests/e2e/helpers.mjs';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tests/e2e');
const SLOW = ['teaching', 'playground', 'oversub', 'script', 'pool', 'lifetime', 'admission', 'a11y', 'findings',
  'engine-switch', 'binding', 'parity', 'lifetime-accuracy', 'era', 'tabs', 'security'];

const concurrency = Number(process.argv[2] || 2);
if (!(Number.isInteger(concurrency) && concurrency >= 1)) {
  console.error(`e2e-run: the number of files at a time must be a whole number ≥ 1, got '${process.argv[2]}'`);
  process.exit(2);
}
const all = readdirSync(DIR).filter((f) => f.endsWith('.test.mjs')).sort();
const rank = (f) => { const i = SLOW.indexOf(f.replace(/\.test\.mjs$/, '')); return i < 0 ? SLOW.length : i; };
const files = [...all].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((f) => path.join(DIR, f));

mkdirSync(path.dirname(SOLO_LOCK), { recursive: true });
writeFileSync(SOLO_LOCK, String(process.pid));
// `make test`'s background fuzz build stopped while the lock is held (pauseBackground), resumed when the tour removes
// it, after SOLO_MAX_MS whatever happened, or at this runner's end
const SOLO_MAX_MS = 150_000;
const resume = pauseBackground(path.join(ARTIFACTS, 'fuzz-build.pid'));
const t0 = Date.now();
const watch = setInterval(() => {
  if (!existsSync(SOLO_LOCK) || Date.now() - t0 > SOLO_MAX_MS) { resume(); clearInterval(watch); }
}, 200);
watch.unref();
process.on('exit', () => { resume(); rmSync(SOLO_LOCK, { force: true }); });
// the shell's conventions: 128 + the signal's number (SIGINT 2, SIGTERM 15)
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.on(sig, () => process.exit(code));

const stream = run({ files, concurrency });
stream.on('test:fail', () => { process.exitCode = 1; });
stream.compose(new spec()).pipe(process.stdout);
