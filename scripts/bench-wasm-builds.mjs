// Two builds of the wasm engine side by side (e.g. opt-level 3 against "s", results/bench/wasm-size.md): the
// same admission SECOND run (E0.1, capacity 20000, `hours` simulated hours, threshold 0.01, seed 1) and the
// default placement frontier in each, alternating, best of `reps`; checks both give the same numbers.
// Usage: node scripts/bench-wasm-builds.mjs PKG_A PKG_B [hours=2000] [reps=3]   (PKG: a wasm-bindgen out dir)
// BUILDS_WORK=placement,resampled3000 picks the runs (default admission,placement; resampled3000: the placement
// frontier with 3000 resampled realisations, as scripts/bench-frontier-run.mjs; a module without the admission
// model, issue 30's first module, takes only the placement ones). Each figure: wall-clock seconds (best of
// `reps`) and the process's CPU seconds (user + system, median of `reps`; the runs are single-threaded).
// A benchmark, not a test: comparable only between the two columns of one run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { planRun, parseTrace, bundledTraceFiles } from '../tests/e2e/wasm-node.mjs';

const [a, b, hours = '2000', reps = '3'] = process.argv.slice(2);
async function load(dir) {
  const w = await import(path.join(path.resolve(dir), 'packlab.js'));
  w.initSync({ module: readFileSync(path.join(path.resolve(dir), 'packlab_bg.wasm')) });
  return w;
}
const engines = [await load(a), await load(b)];
const work = {
  admission: (w) => {
    const sc = w.check_scenario({
      model: 'admission', seed: 1,
      admission: { preset: 'E0.1', runs: 1, policies: ['SECOND'], params: { capacity: 20000, horizon_hours: Number(hours) } },
    }).scenario;
    const r = w.model_call(sc, 'series', { label: 'SECOND', threshold: 0.01, run: 0, points: 10 });
    return JSON.stringify([r.utilization, r.failed, r.requests, r.admitted]);
  },
  placement: (w) => {
    const sc = w.default_scenario();
    const trace = parseTrace(w, bundledTraceFiles(), sc.trace.bundled);
    return JSON.stringify(planRun(w, sc, { trace }).run_all());
  },
  resampled3000: (w) => {
    const sc = w.check_scenario({ placement: { mode: 'resampled', realisations: 3000 } }).scenario;
    const trace = parseTrace(w, bundledTraceFiles(), sc.trace.bundled);
    return JSON.stringify(planRun(w, sc, { trace }).run_all());
  },
};
const chosen = (process.env.BUILDS_WORK || 'admission,placement').split(',');
const median = (xs) => xs.slice().sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const out = {};
for (const name of chosen) {
  const f = work[name];
  if (!f) throw new Error(`no work '${name}' (${Object.keys(work).join(', ')})`);
  const best = [Infinity, Infinity]; const values = [null, null]; const cpu = [[], []];
  for (let i = 0; i < Number(reps); i++) {
    for (const k of [0, 1]) {
      const t = performance.now();
      const c = process.cpuUsage();
      values[k] = f(engines[k]);
      const d = process.cpuUsage(c);
      cpu[k].push((d.user + d.system) / 1e6);
      best[k] = Math.min(best[k], (performance.now() - t) / 1000);
    }
  }
  const [ca, cb] = [median(cpu[0]), median(cpu[1])];
  out[name] = {
    a_s: +best[0].toFixed(3), b_s: +best[1].toFixed(3), b_over_a: +(best[1] / best[0]).toFixed(2),
    a_cpu_s: +ca.toFixed(3), b_cpu_s: +cb.toFixed(3), cpu_b_over_a: +(cb / ca).toFixed(2),
    identical: values[0] === values[1],
  };
}
console.log(JSON.stringify({ a, b, hours: Number(hours), reps: Number(reps), ...out }, null, 1));
