// One 3-year SECOND run with the full 5 × 600 look-ahead on the ALGORITHMS.md §2.13 defaults (C = 20,000
// cores, 1 arrival/h), θ2 = 0.01: the www/pkg engine in node (`admission_series`, what the playground's run
// view calls) against the native `cargo bench --bench admit` on the same run seed. Usage:
//   node scripts/bench-admission-run.mjs [hours=26280] [threshold=0.01] [master seed=1]
// Prints JSON { admission_run_bench: { wasm_s, native_s, ratio, identical, ... } } and merges it into
// test-artifacts/metrics.json.
// Optional overrides, to time an older build against a newer one: ADMIT_BENCH_PKG (a wasm-bindgen output
// directory holding packlab.js and packlab_bg.wasm; default www/pkg) and ADMIT_BENCH_BIN (an already built
// `benches/admit.rs` executable, run instead of `cargo bench --bench admit`).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadWasm, ROOT } from '../tests/e2e/wasm-node.mjs';

const [hours = '26280', threshold = '0.01', seed = '1'] = process.argv.slice(2);
const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);
const scenario = w.check_scenario({
  model: 'admission',
  seed: Number(seed),
  admission: { preset: 'E0.1', runs: 1, policies: ['SECOND'], params: { capacity: 20000, horizon_hours: Number(hours) } },
}).scenario;
let t0 = performance.now();
const r = w.model_call(scenario, 'series', { label: 'SECOND', threshold: Number(threshold), run: 0, points: 10 });
const wasmS = (performance.now() - t0) / 1000;
const wasmLine = { utilization: r.utilization, failed: r.failed, requests: r.requests, arrivals: r.arrivals, admitted: r.admitted };
const [cmd, args] = process.env.ADMIT_BENCH_BIN
  ? [process.env.ADMIT_BENCH_BIN, []]
  : ['cargo', ['bench', '--locked', '--bench', 'admit']];
const out = execFileSync(cmd, args, {
  cwd: ROOT,
  encoding: 'utf8',
  env: { ...process.env, ADMIT_BENCH_RUN_OF: seed, ADMIT_BENCH_HOURS: hours, ADMIT_BENCH_THRESHOLD: threshold },
});
const m = out.match(/: ([0-9.]+) s {2}\(utilization ([0-9.]+), failures (\d+)\/(\d+), arrivals (\d+), accepted (\d+)/);
if (!m) throw new Error('cannot parse the bench output:\n' + out);
const native = { seconds: Number(m[1]), utilization: Number(m[2]), failed: Number(m[3]), requests: Number(m[4]), arrivals: Number(m[5]), admitted: Number(m[6]) };
const res = {
  admission_run_bench: {
    hours: Number(hours), capacity: 20000, policy: 'SECOND', threshold: Number(threshold),
    wasm_s: +wasmS.toFixed(2), native_s: native.seconds, ratio: +(wasmS / native.seconds).toFixed(2),
    wasm: wasmLine, native,
    // the bench prints utilization to 5 decimals
    identical: wasmLine.failed === native.failed && wasmLine.requests === native.requests && wasmLine.admitted === native.admitted
      && Math.abs(wasmLine.utilization - native.utilization) < 5e-6,
  },
};
console.log(JSON.stringify(res));
const p = path.join(ROOT, 'test-artifacts/metrics.json');
mkdirSync(path.dirname(p), { recursive: true });
let cur = {};
try { cur = JSON.parse(readFileSync(p, 'utf8')); } catch { /* first */ }
writeFileSync(p, JSON.stringify({ ...cur, ...res }, null, 2) + '\n');
