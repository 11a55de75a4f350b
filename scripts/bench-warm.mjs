// Benchmark (not a test): why a fresh wasm instance's first run costs more than the next ones (issue 30's
// "warm engine"). Each case runs in a fresh node process that loads the www/pkg engine as the page does and
// times the same scenario RUNS times in a row (the bundled input read in every run, as bench-common.mjs's wasm()
// does); the process is started once with node's default V8 flags and once per diagnostic flag set:
//   eager   --no-liftoff --no-wasm-lazy-compilation: every function compiled by the optimising tier while the
//           module loads (the load time says what that costs); what the first run still costs more is not V8's
//           tiering (kept tables, memory growth, caches)
//   notier  --no-wasm-dynamic-tiering: baseline code first, every function optimised in the background at once
// Prints one line per case and flag set: the load time (compile + instantiate, s), the run times (s) and
// first/second. The case `placement+warm-up` first makes the page worker's warm-up (www/placement/warm-up.js:
// the default scenario on a synthetic trace, its `passes` times, as www/common/worker.js runs it), waits
// WARM_PAUSE_MS (default 100, the page's idle time before its first run), then times the runs; its line also gives
// the warm-up's time (all passes).
// Usage (after `make wasm`):
//   node scripts/bench-warm.mjs [RUNS=3] > results/bench/warm-engine.txt   (WARM_CASES=placement,era picks cases, WARM_FLAGS=default,eager flag sets)
// ADMIT_BENCH_PKG=DIR times another build's wasm-bindgen output (packlab.js, packlab_bg.wasm) instead of www/pkg
// (e.g. the page's first module copied in as packlab_bg.wasm beside packlab.js, as scripts/bench-issue30.sh does).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const RUNS = Number(process.argv[2] || 3);
const SELF = fileURLToPath(import.meta.url);

// the playground's default scenario of each model (the first run a visitor makes), and a reduced admission run
const CASES = {
  placement: { model: 'placement' },
  'placement+warm-up': { model: 'placement' },
  admission: { model: 'admission' },
  lifetime: { model: 'lifetime' },
  era: { model: 'era' },
  oversub: { model: 'oversub' },
};

if (process.argv[2] === '--child') {
  // child: one case, RUNS times, prints the times as JSON
  const t0 = performance.now();
  const { wasm } = await import('./bench-common.mjs');
  const load = (performance.now() - t0) / 1000;
  const { loadWasm, planRun, parseTrace, bundledTraceFiles } = await import('../tests/e2e/wasm-node.mjs');
  const name = process.argv[3];
  const runs = Number(process.argv[4]);
  const sc = CASES[name];
  const times = [];
  let warmS = null;
  if (name.startsWith('placement')) {
    const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);
    if (name === 'placement+warm-up') {
      // as www/common/worker.js warmUp runs the recipe: its trace read once, the scenario stepped to the end and
      // reported `passes` times (the worker's yields between steps left out)
      const t0 = performance.now();
      const { warmUp } = await import('../www/placement/warm-up.js');
      const recipe = await warmUp(w);
      const t = parseTrace(w, recipe.trace, 'warm-up');
      for (let pass = 0; pass < (recipe.passes || 1); pass++) {
        const run = planRun(w, recipe.scenario, { trace: t });
        while (run.step() !== null);
        run.report();
        run.free();
      }
      t.free();
      warmS = (performance.now() - t0) / 1000;
      await new Promise((r) => setTimeout(r, Number(process.env.WARM_PAUSE_MS ?? 100)));
    }
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const t = parseTrace(w, bundledTraceFiles(), 'planetlab-20110303');
      const run = planRun(w, sc, { trace: t });
      run.run_all();
      run.free();
      t.free();
      times.push((performance.now() - t0) / 1000);
    }
  } else {
    for (let i = 0; i < runs; i++) times.push(wasm(sc, 1, { workload: name === 'lifetime' || name === 'era' })[0]);
  }
  process.stdout.write(JSON.stringify({ load, times, warmS }));
  process.exit(0);
}

const FLAGS = {
  default: [],
  eager: ['--no-liftoff', '--no-wasm-lazy-compilation'],
  notier: ['--no-wasm-dynamic-tiering'],
};
console.log(`# node ${process.version}, ${os.cpus()[0].model} × ${os.cpus().length}, ${RUNS} runs per fresh process, load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const only = process.env.WARM_CASES ? process.env.WARM_CASES.split(',') : Object.keys(CASES);
for (const name of only) {
  for (const [label, flags] of Object.entries(FLAGS).filter(([l]) => !process.env.WARM_FLAGS || process.env.WARM_FLAGS.split(',').includes(l))) {
    const out = execFileSync(process.execPath, [...flags, SELF, '--child', name, String(RUNS)],
      { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
    const { load, times: t, warmS } = JSON.parse(out);
    const warm = warmS === null ? '' : `, warm-up ${warmS.toFixed(2)} s (then ${process.env.WARM_PAUSE_MS ?? 100} ms idle)`;
    console.log(`${name.padEnd(10)} ${label.padEnd(8)} load ${load.toFixed(2)} s${warm}, runs ${t.map((x) => x.toFixed(2)).join(' ')} s, first/second ${(t[0] / t[1]).toFixed(2)}`);
  }
}
console.log(`# load average at end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
