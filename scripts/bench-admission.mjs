// wasm vs native time of the same admission experiment: the www/pkg engine in node (ExperimentRun, the path
// the browser's worker takes) against `packlab run` (target/release/packlab). Usage:
//   node scripts/bench-admission.mjs [hours=8760] [capacity=1000] [policy=SECOND] [iterations=3]
// Prints JSON { scenario, wasm_ms, native_ms, ratio, identical } and merges it into test-artifacts/metrics.json.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadWasm, ROOT } from '../tests/e2e/wasm-node.mjs';

const [hours = '8760', capacity = '1000', policy = 'SECOND', iterations = '3'] = process.argv.slice(2);
const scenario = {
  model: 'admission',
  admission: { runs: 1, policies: [policy], params: { horizon_hours: Number(hours), capacity: Number(capacity), tune_iterations: Number(iterations) } },
};
const w = await loadWasm();
const full = w.check_scenario(scenario).scenario;
const file = path.join(ROOT, 'test-artifacts/bench-admission-scenario.json');
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, w.scenario_json(full));
let t0 = performance.now();
const run = new w.ExperimentRun(full);
const runs = run.total();
const wasmReport = run.run_all();
run.free();
const wasmMs = performance.now() - t0;
t0 = performance.now();
const native = JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', file], { encoding: 'utf8' }));
const nativeMs = performance.now() - t0;
const out = {
  admission_bench: { hours: Number(hours), capacity: Number(capacity), policy, simulation_runs: runs, wasm_ms: Math.round(wasmMs), native_ms: Math.round(nativeMs), ratio: +(wasmMs / nativeMs).toFixed(2), identical: JSON.stringify(wasmReport) === JSON.stringify(native) },
};
console.log(JSON.stringify(out));
const p = path.join(ROOT, 'test-artifacts/metrics.json');
let cur = {};
try { cur = JSON.parse(readFileSync(p, 'utf8')); } catch { /* first */ }
writeFileSync(p, JSON.stringify({ ...cur, ...out }, null, 2) + '\n');
