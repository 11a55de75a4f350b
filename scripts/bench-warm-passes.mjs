// The placement warm-up's size and passes against a fresh engine's first run, in node (issue 30, "Keep a warm engine so
// the first run costs no more than the second"). For each arm VMS:PASSES, REPS times in a fresh process (a fresh V8
// isolate, nothing compiled): the default scenario on the synthetic warm-up trace of VMS VMs (www/placement/warm-up.js
// syntheticTrace), PASSES times, then the default scenario on the bundled PlanetLab day three times; prints the warm-up's
// time and the three runs' (the run alone: plan and steps, the trace parsed before), and first/second.
// Usage: node scripts/bench-warm-passes.mjs [REPS=3] [ARMS=250:1,250:2,125:2,125:3]   (needs www/pkg: make wasm)
// Output stored in results/bench/warm-engine.txt.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

if (process.argv[2] === '--one') {
  // one arm in this process: VMS PASSES
  const [vms, passes] = [Number(process.argv[3]), Number(process.argv[4])];
  const { syntheticTrace } = await import(path.join(ROOT, 'www/placement/warm-up.js'));
  const w = await import(path.join(ROOT, 'www/pkg/packlab.js'));
  w.initSync({ module: readFileSync(path.join(ROOT, 'www/pkg/packlab_bg.wasm')) });
  const runOn = (files, name, scenario) => {
    const b = new w.TraceBuilder();
    for (const f of files) b.add(f.name, f.bytes);
    const trace = b.finish(name);
    const inputs = new w.RunInputs();
    inputs.use_trace(trace);
    const t0 = performance.now();
    const run = new w.ExperimentRun(scenario, inputs);
    while (run.step() !== null);
    run.report();
    const ms = performance.now() - t0;
    run.free();
    trace.free();
    return ms;
  };
  const scenario = { ...w.default_scenario(), model: 'placement' };
  const warm = [{ name: 'warm-up.tsv.gz', bytes: gzipSync(syntheticTrace(vms)) }];
  let warmMs = 0;
  for (let p = 0; p < passes; p++) warmMs += runOn(warm, 'warm-up', scenario);
  const day = [{ name: 'planetlab-20110303.tsv.gz', bytes: readFileSync(path.join(ROOT, 'static/traces/planetlab-20110303.tsv.gz')) }];
  const runs = [1, 2, 3].map(() => runOn(day, 'planetlab-20110303', scenario));
  console.log(JSON.stringify({ vms, passes, warmMs, runs }));
  process.exit(0);
}

const reps = Number(process.argv[2] || 3);
const arms = (process.argv[3] || '250:1,250:2,125:2,125:3').split(',').map((a) => a.split(':').map(Number));
if (!(Number.isInteger(reps) && reps >= 1) || arms.some(([v, p]) => !(v >= 1 && p >= 1))) {
  console.error('bench-warm-passes: usage: node scripts/bench-warm-passes.mjs [REPS ≥ 1] [VMS:PASSES,...]');
  process.exit(2);
}
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`# node ${process.version}, ${os.cpus().length} cores, ${reps} fresh processes per arm, interleaved; load at start ${load()}`);
const rows = new Map(arms.map((a) => [a.join(':'), []]));
for (let i = 0; i < reps; i++) {
  for (const [vms, passes] of arms) {
    const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', String(vms), String(passes)], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(p.stderr);
    const r = JSON.parse(p.stdout);
    rows.get(`${vms}:${passes}`).push(r);
    console.log(`${vms} VMs × ${passes}: warm-up ${r.warmMs.toFixed(0)} ms; runs ${r.runs.map((x) => x.toFixed(1)).join(' ')} ms; first/second ${(r.runs[0] / r.runs[1]).toFixed(2)}`);
  }
}
for (const [arm, rs] of rows) {
  const f = median(rs.map((r) => r.runs[0]));
  const s = median(rs.map((r) => r.runs[1]));
  console.log(`median ${arm.replace(':', ' VMs × ')}: warm-up ${median(rs.map((r) => r.warmMs)).toFixed(0)} ms, first run ${f.toFixed(1)} ms, second ${s.toFixed(1)} ms, first/second ${(f / s).toFixed(2)}`);
}
console.log(`# load at end ${load()}`);
