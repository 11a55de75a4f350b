// Benchmark (not a test): every saved reservation link (tests/links/*.jsonl, model era) as the replay test runs
// it (tests/e2e/era.test.mjs: the bundled workload decoded, then the run, in the www/pkg engine in node) and
// natively (`packlab run --link`, PACKLAB_THREADS=1, process start included), interleaved per repetition so
// both see the same load: wall and CPU seconds of each side (wasm: `process.cpuUsage()`, which counts V8's
// GC threads; native: the child's user + sys from /usr/bin/time), the first repetition (a fresh wasm
// instance's first run of the link, as a browser opening it) and the best of REPS, and whether the reports are
// the same JSON. Usage:
//   node scripts/bench-era-links.mjs [reps=3]
// Optional overrides (to time an older build): ADMIT_BENCH_PKG (wasm-bindgen output directory; default www/pkg),
// PACKLAB_CLI (native binary; default target/release/packlab). Prints the lines stored in
// results/bench/era-links.txt.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, planRun, ROOT, savedLinks } from '../tests/e2e/wasm-node.mjs';

const reps = Number(process.argv[2] ?? 3);
const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);
const cli = process.env.PACKLAB_CLI || path.join(ROOT, 'target/release/packlab');
const links = savedLinks().filter((e) => e.expect.model === 'era');

function wasmRun(link) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const sc = w.scenario_from_link(link);
  const b = w.bundled_data().find((d) => d.id === sc.workload.bundled);
  const tb = new w.TraceBuilder();
  tb.add(path.basename(b.path), readFileSync(path.join(ROOT, b.path)));
  const wl = tb.finish_workload(b.id);
  const run = planRun(w, sc, { workload: wl });
  const report = run.run_all();
  run.free();
  wl.free();
  const c = process.cpuUsage(c0);
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, report };
}

function nativeRun(link) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', cli, 'run', '--link', link], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20, env: { ...process.env, PACKLAB_THREADS: '1' },
  });
  if (r.status !== 0) throw new Error(`packlab run --link failed: ${r.stderr}`);
  const [wall, user, sys, rss] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys, rss_mb: rss / 1024, report: JSON.parse(r.stdout) };
}

const fmt = (x) => x.toFixed(2);
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`# node ${process.version}, ${os.cpus()[0].model} × ${os.cpus().length}, best of ${reps} (interleaved), load average at start ${load()}`);
console.log(`# wasm: ${process.env.ADMIT_BENCH_PKG || 'www/pkg'}; native: ${path.relative(ROOT, cli) || cli}`);
for (const e of links) {
  const ws = []; const ns = [];
  for (let i = 0; i < reps; i++) { ws.push(wasmRun(e.link)); ns.push(nativeRun(e.link)); }
  const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
  const same = ws.every((x, i) => JSON.stringify(x.report) === JSON.stringify(ns[i].report));
  console.log(`${e.note.slice(0, 90)}…`);
  console.log(`  first: wasm ${fmt(ws[0].wall)} s wall / ${fmt(ws[0].cpu)} s CPU, native ${fmt(ns[0].wall)} / ${fmt(ns[0].cpu)} s; `
    + `best: wasm ${fmt(best(ws, 'wall'))} / ${fmt(best(ws, 'cpu'))} s, native ${fmt(best(ns, 'wall'))} / ${fmt(best(ns, 'cpu'))} s, `
    + `native peak ${Math.round(Math.max(...ns.map((n) => n.rss_mb)))} MB; wasm/native (best) ${fmt(best(ws, 'wall') / best(ns, 'wall'))} wall, `
    + `${fmt(best(ws, 'cpu') / best(ns, 'cpu'))} CPU; identical reports: ${same}`);
}
console.log(`# load average at end ${load()}`);
