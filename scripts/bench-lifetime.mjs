// Benchmark (not a test): the lifetime model (seed 003) on the whole Azure 2017 test split (share 1: every
// tenant batch, 410k VMs, ~1,700 hosts, oracle lifetimes, no stranding inflation), natively (`packlab run`, one
// thread) and in wasm (node, the www/pkg files the page loads), reading the bundled workload included, best of N
// runs; checks that both give the same report. Best fit alone, then best fit with NILAS and with LAVA: a policy's
// own time is the difference to best fit alone (every run simulates best fit, the baseline of Δ). Writes
// results/003/bench.txt with the load average, since the figures are only comparable on a quiet machine.
// Usage: node scripts/bench-lifetime.mjs [N]   (after `make native wasm`)
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, ROOT } from '../tests/e2e/wasm-node.mjs';

const N = Number(process.argv[2] || 2);
const w = await loadWasm();
const base = { share: 1, stranding_h: 0 };
const cases = [
  ['best fit alone', ['best-fit']],
  ['best fit + NILAS', ['best-fit', 'nilas']],
  ['best fit + LAVA', ['best-fit', 'lava']],
];
const dir = mkdtempSync(path.join(os.tmpdir(), 'packlab-lifetime-bench-'));
const lines = [`# node ${process.version}, ${os.cpus()[0].model} × ${os.cpus().length}, best of ${N}, load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  '# whole Azure 2017 test split (share 1), oracle, stranding off; times include reading the bundled workload'];
const times = {};
for (const [name, policies] of cases) {
  const sc = { model: 'lifetime', lifetime: { ...base, policies } };
  const file = path.join(dir, 'sc.json');
  writeFileSync(file, JSON.stringify(sc));
  let native = Infinity; let nativeRep = null;
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    nativeRep = JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, PACKLAB_THREADS: '1' } }));
    native = Math.min(native, Number(process.hrtime.bigint() - t) / 1e9);
  }
  let wasm = Infinity; let wasmRep = null;
  const b = w.bundled_data().find((d) => d.id === w.check_scenario(sc).scenario.workload.bundled);
  const bytes = readFileSync(path.join(ROOT, b.path));
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    const tb = new w.TraceBuilder();
    tb.add(path.basename(b.path), bytes);
    const wl = tb.finish_workload(b.id);
    const run = w.ExperimentRun.with_workload(wl, sc);
    wasmRep = run.run_all();
    run.free(); wl.free();
    wasm = Math.min(wasm, Number(process.hrtime.bigint() - t) / 1e9);
  }
  const same = JSON.stringify(wasmRep) === JSON.stringify(nativeRep);
  times[name] = { native, wasm };
  lines.push(`${name}: ${nativeRep.results[0].arrivals} VMs on ${nativeRep.hosts} hosts; native ${native.toFixed(2)} s, wasm ${wasm.toFixed(2)} s, wasm/native ${(wasm / native).toFixed(2)}, identical reports: ${same}`);
}
const bf = times['best fit alone'];
for (const [name, label] of [['best fit + NILAS', 'NILAS'], ['best fit + LAVA', 'LAVA']]) {
  const t = times[name];
  lines.push(`${label} alone (difference to best fit alone): native ${(t.native - bf.native).toFixed(2)} s, wasm ${(t.wasm - bf.wasm).toFixed(2)} s`);
}
const text = lines.join('\n') + '\n';
mkdirSync(path.join(ROOT, 'results/003'), { recursive: true });
writeFileSync(path.join(ROOT, 'results/003/bench.txt'), text);
process.stdout.write(text);
