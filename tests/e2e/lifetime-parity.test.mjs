// The lifetime model with the learned lifetime predictor (seed 003 §3; its training runs when the run is
// planned) in wasm (node, the www/pkg files the page loads) against the native `packlab run`: identical
// reports, bit for bit, so the training gives the same model in both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, planRun, ROOT } from './wasm-node.mjs';

test('wasm and native give identical lifetime reports with the learned predictor', async () => {
  const w = await loadWasm();
  const b = new w.TraceBuilder();
  const file = 'azure2017-arrivals.txt.gz';
  b.add(file, readFileSync(path.join(ROOT, 'static/traces', file)));
  const workload = b.finish_workload('azure2017-arrivals');
  const scenario = {
    model: 'lifetime',
    workload: { bundled: 'azure2017-arrivals' },
    seed: 2,
    lifetime: { predictor: 'learned', share: 0.05, stranding_h: 12 },
  };
  const scenarioFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'packlab-lifetime-')), 'learned.json');
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  // `packlab run` (make native), the same run natively
  const native = JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', scenarioFile], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'],
  }));
  const run = planRun(w, scenario, { workload });
  assert.deepEqual(run.run_all(), native);
  run.free();
  workload.free();
});
