// The engine compiled to wasm (the very www/pkg files the page loads, run in node) against the native CLI:
// identical frontiers for the same scenarios, bit for bit; also records the wasm/native time ratio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loadWasm, parseTrace, bundledTraceFiles, ROOT } from './wasm-node.mjs';
import { cliRun, CLI, recordMetrics } from './helpers.mjs';

const corpus = readFileSync(path.join(ROOT, 'tests/links/v1.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const TMP = mkdtempSync(path.join(tmpdir(), 'packlab-parity-'));

test('wasm and native give identical frontiers for the saved links', async () => {
  const w = await loadWasm();
  const trace = parseTrace(w, bundledTraceFiles(), 'planetlab-20110303');
  for (const entry of corpus.filter((e) => !(e.expect.trace && e.expect.trace.upload))) {
    const scenario = w.scenario_from_link(entry.link);
    const wasmFrontier = w.run_frontier(trace, scenario);
    const native = cliRun({ link: entry.link });
    assert.deepEqual(wasmFrontier, native, entry.note);
    // and the point-by-point path the worker uses
    const run = new w.PlacementRun(trace, scenario);
    assert.deepEqual(run.run_all(), native, entry.note);
    run.free();
  }
  trace.free();
});

test('wasm/native time ratio on the default scenario', async () => {
  const w = await loadWasm();
  const files = bundledTraceFiles();
  const scenario = w.default_scenario();
  const scenarioFile = path.join(TMP, 'default.json');
  writeFileSync(scenarioFile, w.scenario_json(scenario));
  const reps = 5;
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // wasm: parse the bundled trace + the whole frontier, as `packlab run` does
  const wasmMs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const t = parseTrace(w, files, 'planetlab-20110303');
    w.run_frontier(t, scenario);
    wasmMs.push(performance.now() - t0);
    t.free();
  }
  const nativeMs = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    execFileSync(CLI, ['run', scenarioFile], { cwd: ROOT, maxBuffer: 64 << 20 });
    nativeMs.push(performance.now() - t0);
  }
  const ratio = median(wasmMs) / median(nativeMs);
  recordMetrics({
    node_wasm_default_ms: +median(wasmMs).toFixed(1),
    native_cli_default_ms: +median(nativeMs).toFixed(1),
    wasm_native_ratio: +ratio.toFixed(2),
  });
  console.log(`wasm (node) ${median(wasmMs).toFixed(1)} ms, native CLI ${median(nativeMs).toFixed(1)} ms (process included), ratio ${ratio.toFixed(2)}`);
  assert.ok(ratio < 20, `wasm is ${ratio}x slower than native`);
});
