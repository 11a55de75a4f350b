// Shared timing loop of the model benchmarks (scripts/bench-era.mjs, bench-lifetime.mjs, bench-oversub.mjs):
// a scenario run natively (`packlab run`, one thread) and in wasm (node, the www/pkg files the page loads),
// best of N, with the report of the last run so the caller can check both engines agree. Benchmarks, not tests:
// times are wall-clock seconds and only comparable on a quiet machine.
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, planRun, ROOT } from '../tests/e2e/wasm-node.mjs';

export { ROOT };

/** The wasm engine as the page loads it (ADMIT_BENCH_PKG: another build's wasm-bindgen output directory). */
export const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);

const dir = mkdtempSync(path.join(os.tmpdir(), 'packlab-bench-'));

/** Best of `n` wall times (s) of `f`, and the value of its last call: `[seconds, value]`. */
function bestOf(n, f) {
  let best = Infinity; let value = null;
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    value = f();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return [best, value];
}

/** `packlab run` of scenario `sc` (an object) with PACKLAB_THREADS=1, best of `n`: `[seconds, report]`. */
export function native(sc, n) {
  const file = path.join(dir, 'sc.json');
  writeFileSync(file, JSON.stringify(sc));
  return bestOf(n, () => JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', file], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, PACKLAB_THREADS: '1' },
  })));
}

/**
 * The same scenario in wasm, best of `n`: `[seconds, report]`. With `workload`, the scenario's bundled workload
 * file is read in every run (as the page does after fetching it), so the time includes parsing it.
 */
export function wasm(sc, n, { workload = false } = {}) {
  const id = workload ? w.check_scenario(sc).scenario.workload.bundled : null;
  const b = id ? w.bundled_data().find((d) => d.id === id) : null;
  const bytes = b ? readFileSync(path.join(ROOT, b.path)) : null;
  return bestOf(n, () => {
    let wl = null;
    let run;
    if (bytes) {
      const tb = new w.TraceBuilder();
      tb.add(path.basename(b.path), bytes);
      wl = tb.finish_workload(b.id);
      run = planRun(w, sc, { workload: wl });
    } else {
      run = new w.ExperimentRun(sc);
    }
    const rep = run.run_all();
    run.free();
    if (wl) wl.free();
    return rep;
  });
}

/** True when two reports are the same JSON. */
export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Writes `lines` to `rel` (a path under the repository, e.g. results/004/bench.txt) and prints them; with
 * BENCH_PRINT_ONLY=1 only prints them (scripts/bench-ratios.sh gathers every model's lines in one file). */
export function writeBench(rel, lines) {
  const text = lines.join('\n') + '\n';
  if (process.env.BENCH_PRINT_ONLY === '1') {
    process.stdout.write(text);
    return;
  }
  mkdirSync(path.dirname(path.join(ROOT, rel)), { recursive: true });
  writeFileSync(path.join(ROOT, rel), text);
  process.stdout.write(text);
}

/** The header line: node version, CPU, cores, best of N and the load average at start. */
export function header(n, extra = '') {
  return `# node ${process.version}, ${os.cpus()[0].model} × ${os.cpus().length}, best of ${n}, load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}${extra}`;
}
