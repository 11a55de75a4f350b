// The playground's engine (www/pkg, wasm-bindgen --target web) loaded in node with initSync, for parity
// checks against the native CLI and for timing. No drawing here: plotters needs a DOM (TOOLCHAIN.md trap 2).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const loaded = new Map();
/** The engine of the wasm-bindgen output directory `pkg` (packlab.js and packlab_bg.wasm; default www/pkg, or
 * an older build's directory when a benchmark times one build against another), loaded once per directory. */
export async function loadWasm(pkg = path.join(ROOT, 'www/pkg')) {
  const dir = path.resolve(pkg);
  if (!loaded.has(dir)) {
    const w = await import(path.join(dir, 'packlab.js'));
    w.initSync({ module: readFileSync(path.join(dir, 'packlab_bg.wasm')) });
    loaded.set(dir, w);
  }
  return loaded.get(dir);
}

/** Parse files [{ name, bytes }] into a wasm Trace (named `name` when given, as the page names bundled traces). */
/** A run of `scenario` planned by the engine's one constructor on the loaded `trace` / `workload` and the
 * named input `files` ([{ name, bytes }]), as the worker plans it (www/common/run-ops.js). */
export function planRun(w, scenario, { trace, workload, files = [] } = {}) {
  // a build from before the one constructor (issue 30's filing, 51867ea, timed by scripts/bench-issue30.sh)
  if (!w.RunInputs) return trace ? w.ExperimentRun.with_trace(trace, scenario) : workload ? w.ExperimentRun.with_workload(workload, scenario) : new w.ExperimentRun(scenario);
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

/** The saved share links of every version (tests/links/v*.jsonl): [{ note, link, expect, file }]. */
export function savedLinks() {
  const dir = path.join(ROOT, 'tests/links');
  return readdirSync(dir).filter((f) => /^v\d+\.jsonl$/.test(f)).sort().flatMap((file) => readFileSync(path.join(dir, file), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => ({ ...JSON.parse(l), file })));
}
