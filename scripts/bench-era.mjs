// Benchmark (not a test): the reservation model's E4.1 (the SWIM day, greedy and BASIC_ECON with the LP and
// spreading predictors) and one E4.3 point (basic-econ:lp at κ_use 0.8, its LPs included) natively
// (`packlab run`, one thread) and in wasm (node, the www/pkg files the page loads), reading the bundled
// workload included, best of N runs; checks that both give the same report. Writes results/004/bench.txt.
// Usage: node scripts/bench-era.mjs [N]   (after `make native wasm`)
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, ROOT } from '../tests/e2e/wasm-node.mjs';

const N = Number(process.argv[2] || 3);
const w = await loadWasm();
const cases = [
  ['E4.1 (3 policies)', { model: 'era', workload: { bundled: 'swim-fb2010' }, era: { preset: 'E4.1' } }],
  ['E4.3 one point (basic-econ:lp, κ 0.8)', { model: 'era', era: { policies: ['basic-econ:lp'], kappa: [0.8] } }],
];
const dir = mkdtempSync(path.join(os.tmpdir(), 'packlab-era-bench-'));
const lines = [`# node ${process.version}, ${os.cpus()[0].model}, best of ${N}`];
for (const [name, sc] of cases) {
  const file = path.join(dir, 'sc.json');
  writeFileSync(file, JSON.stringify(sc));
  let native = Infinity; let nativeRep = null;
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    nativeRep = JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, PACKLAB_THREADS: '1' } }));
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
  lines.push(`${name}: native ${native.toFixed(2)} s, wasm ${wasm.toFixed(2)} s, wasm/native ${(wasm / native).toFixed(2)}, identical reports: ${same}`);
}
const text = lines.join('\n') + '\n';
mkdirSync(path.join(ROOT, 'results/004'), { recursive: true });
writeFileSync(path.join(ROOT, 'results/004/bench.txt'), text);
process.stdout.write(text);
