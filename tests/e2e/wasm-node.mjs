// The playground's engine (www/pkg, wasm-bindgen --target web) loaded in node with initSync, for parity
// checks against the native CLI and for timing. No drawing here: plotters needs a DOM (TOOLCHAIN.md trap 2).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let wasm = null;
export async function loadWasm() {
  if (!wasm) {
    wasm = await import(path.join(ROOT, 'www/pkg/packlab.js'));
    wasm.initSync({ module: readFileSync(path.join(ROOT, 'www/pkg/packlab_bg.wasm')) });
  }
  return wasm;
}

/** Parse files [{ name, bytes }] into a wasm Trace (named `name` when given, as the page names bundled traces). */
/** A run of `scenario` planned by the engine's one constructor on the loaded `trace` / `workload` and the
 * named input `files` ([{ name, bytes }]), as the worker plans it (www/common/run-ops.js). */
export function planRun(w, scenario, { trace, workload, files = [] } = {}) {
  const inputs = new w.RunInputs();
  if (trace) inputs.use_trace(trace);
  if (workload) inputs.use_workload(workload);
  for (const f of files) inputs.add(f.name, f.bytes);
  return new w.ExperimentRun(scenario, inputs);
}

export function parseTrace(w, files, name) {
  const b = new w.TraceBuilder();
  for (const f of files) b.add(f.name, f.bytes);
  return b.finish(name);
}

export function bundledTraceFiles() {
  const p = path.join(ROOT, 'static/traces/planetlab-20110303.tsv.gz');
  return [{ name: 'planetlab-20110303.tsv.gz', bytes: readFileSync(p) }];
}
