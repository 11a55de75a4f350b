// The placement frontier side by side, as tests/e2e/parity.test.mjs times it: parse of the bundled PlanetLab
// day + the whole run in the www/pkg engine in node against `packlab run` of the same scenario (process
// included), median over REPS runs each, for the default scenario and a heavier resampled one (1052 VMs ×
// 3000 realisations). Usage:
//   node scripts/bench-frontier-run.mjs [reps=3]
// Optional overrides (to time an older build): ADMIT_BENCH_PKG (wasm-bindgen output directory with
// packlab.js and packlab_bg.wasm; default www/pkg), PACKLAB_CLI (native binary; default target/release/packlab).
// Prints JSON { frontier_run_bench: { default: {...}, resampled3000: {...} } }.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, parseTrace, bundledTraceFiles, ROOT, planRun } from '../tests/e2e/wasm-node.mjs';

const reps = Number(process.argv[2] ?? 3);
const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);
const cli = process.env.PACKLAB_CLI || path.join(ROOT, 'target/release/packlab');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'packlab-frontier-'));
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeBoth(scenario, label) {
  const files = bundledTraceFiles();
  const scenarioFile = path.join(tmp, `${label}.json`);
  writeFileSync(scenarioFile, w.scenario_json(scenario));
  const wasmMs = [];
  const nativeMs = [];
  // interleaved so that both see the same machine load
  for (let i = 0; i < reps; i++) {
    let t0 = performance.now();
    const t = parseTrace(w, files, 'planetlab-20110303');
    const run = planRun(w, scenario, { trace: t });
    run.run_all();
    run.free();
    wasmMs.push(performance.now() - t0);
    t.free();
    t0 = performance.now();
    execFileSync(cli, ['run', scenarioFile], { cwd: ROOT, maxBuffer: 64 << 20 });
    nativeMs.push(performance.now() - t0);
  }
  const wm = median(wasmMs);
  const nm = median(nativeMs);
  return { wasm_ms: +wm.toFixed(1), native_ms: +nm.toFixed(1), ratio: +(wm / nm).toFixed(2) };
}

const res = {
  frontier_run_bench: {
    reps,
    default: timeBoth(w.default_scenario(), 'default'),
    resampled3000: timeBoth(w.check_scenario({ placement: { mode: 'resampled', realisations: 3000 } }).scenario, 'resampled-3000'),
  },
};
console.log(JSON.stringify(res));
