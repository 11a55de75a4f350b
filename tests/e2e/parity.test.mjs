// The engine compiled to wasm (the very www/pkg files the page loads, run in node) against the native CLI:
// identical frontiers for the same scenarios, bit for bit; also records the wasm/native time ratio. For the saved
// links the native side is the CLI's pinned output (helpers.pinOf: tests/integration/cli_pins.rs holds the CLI to it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadWasm, planRun, parseTrace, bundledTraceFiles, ROOT } from './wasm-node.mjs';
import { CLI, recordMetrics, savedLinks, tempDir, pinOf } from './helpers.mjs';

const corpus = savedLinks();
const TMP = tempDir('packlab-parity-');

test('wasm and native give identical frontiers for the saved links', async () => {
  const w = await loadWasm();
  const trace = parseTrace(w, bundledTraceFiles(), 'planetlab-20110303');
  for (const entry of corpus.filter((e) => !(e.expect.trace && e.expect.trace.upload) && (e.expect.model || 'placement') === 'placement')) {
    const scenario = w.scenario_from_link(entry.link);
    const native = pinOf(entry.link);
    // the point-by-point path the worker uses (the engine's experiment contract, one unit per step)
    const run = planRun(w, scenario, { trace });
    assert.deepEqual(run.run_all(), native, entry.note);
    run.free();
  }
  trace.free();
});

test('wasm and native give identical admission reports (the pinned CLI output, and the saved admission links)', async () => {
  const w = await loadWasm();
  // tests/pins/run-admission-tiny.json is `packlab run tests/pins/admission-tiny.json` as written by the engine
  // before the experiment-contract refactor; the wasm stepper, one simulation run per step, must give it exactly
  const scenario = JSON.parse(readFileSync(path.join(ROOT, 'tests/pins/admission-tiny.json'), 'utf8'));
  const pinned = readFileSync(path.join(ROOT, 'tests/pins/run-admission-tiny.json'), 'utf8');
  const run = new w.ExperimentRun(scenario);
  let steps = 0;
  while (run.step() !== null) steps += 1;
  // one simulation run per step in the browser (a tuned threshold already evaluated is one step for its R runs)
  assert.ok(steps > 0 && steps <= run.total() && run.done() === run.total(), `${steps} steps, ${run.done()} of ${run.total()}`);
  assert.deepEqual(run.report(), JSON.parse(pinned));
  run.free();
  // a scenario saved under several link versions (the default experiment's v1 and v2 links) runs once, and every
  // link's pin must equal its report (the default experiment is ~5 s of CPU in wasm)
  const reports = new Map();
  for (const entry of corpus.filter((e) => e.expect.model === 'admission')) {
    const sc = w.scenario_from_link(entry.link);
    const key = JSON.stringify(sc);
    if (!reports.has(key)) {
      const r = new w.ExperimentRun(sc);
      reports.set(key, r.run_all());
      r.free();
    }
    assert.deepEqual(reports.get(key), pinOf(entry.link), entry.note);
  }
});

/** Median wall time (ms) of parse + frontier in wasm (node) and of `packlab run` (process included). */
async function timeBoth(w, scenario, label, reps) {
  const files = bundledTraceFiles();
  const scenarioFile = path.join(TMP, `${label}.json`);
  writeFileSync(scenarioFile, w.scenario_json(scenario));
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const wasmMs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const t = parseTrace(w, files, 'planetlab-20110303');
    const run = planRun(w, scenario, { trace: t });
    run.run_all();
    run.free();
    wasmMs.push(performance.now() - t0);
    t.free();
  }
  const nativeMs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    execFileSync(CLI, ['run', scenarioFile], { cwd: ROOT, maxBuffer: 64 << 20 });
    nativeMs.push(performance.now() - t0);
  }
  const wm = median(wasmMs);
  const nm = median(nativeMs);
  console.log(`${label}: wasm (node) ${wm.toFixed(1)} ms, native CLI ${nm.toFixed(1)} ms (process included), ratio ${(wm / nm).toFixed(2)}`);
  return { wasm_ms: +wm.toFixed(1), native_ms: +nm.toFixed(1), ratio: +(wm / nm).toFixed(2) };
}

test('wasm/native time ratio (default scenario, and a heavier resampled one)', async () => {
  const w = await loadWasm();
  const small = await timeBoth(w, w.default_scenario(), 'default', 5);
  // 1052 VMs x 3000 resampled realisations: compute dominates process start and parsing
  const heavy = await timeBoth(w, w.check_scenario({ placement: { mode: 'resampled', realisations: 3000 } }).scenario, 'resampled-3000', 3);
  recordMetrics({
    node_wasm_default_ms: small.wasm_ms,
    native_cli_default_ms: small.native_ms,
    wasm_native_ratio: small.ratio,
    node_wasm_resampled3000_ms: heavy.wasm_ms,
    native_cli_resampled3000_ms: heavy.native_ms,
    wasm_native_ratio_resampled3000: heavy.ratio,
  });
  assert.ok(small.ratio < 20 && heavy.ratio < 20, 'wasm is far slower than native');
});
