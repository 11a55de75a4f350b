// Where the placement default day's wasm/native gap lies (issue 30: wasm/native ≤ 1.3; bench-frontier-run.mjs times
// the whole, trace parse and process start included): the bundled PlanetLab day's parse in the www/pkg engine in node
// (as the .tsv.gz and as its gunzipped text), the run's plan and run_all, against the CLI's process start
// (`--version`), `summary` of the trace (.tsv.gz and text: start + parse + statistics) and `run` of the default
// scenario, one thread. Medians of REPS each. Usage: PACKLAB_THREADS=1 node scripts/bench-default-day-parts.mjs [reps=15]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadWasm, parseTrace, bundledTraceFiles, planRun, ROOT } from '../tests/e2e/wasm-node.mjs';

const reps = Number(process.argv[2] ?? 15);
const w = await loadWasm(process.env.ADMIT_BENCH_PKG || undefined);
const cli = process.env.PACKLAB_CLI || path.join(ROOT, 'target/release/packlab');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'packlab-day-'));
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f) => { const xs = []; for (let i = 0; i < reps; i++) { const t = performance.now(); f(); xs.push(performance.now() - t); } return Number(median(xs).toFixed(1)); };
const gz = bundledTraceFiles();
const text = path.join(tmp, 'planetlab-20110303.tsv');
writeFileSync(text, gunzipSync(gz[0].bytes));
const raw = [{ name: 'planetlab-20110303.tsv', bytes: gunzipSync(gz[0].bytes) }];
const sc = w.default_scenario();
const scFile = path.join(tmp, 'default.json');
writeFileSync(scFile, w.scenario_json(sc));
const trace = parseTrace(w, gz, 'planetlab-20110303');
let run;
const out = {
  wasm_parse_gz_ms: time(() => parseTrace(w, gz, 'planetlab-20110303').free()),
  wasm_parse_text_ms: time(() => parseTrace(w, raw, 'planetlab-20110303').free()),
  wasm_plan_ms: time(() => { run = planRun(w, sc, { trace }); run.free(); }),
  wasm_plan_and_run_ms: time(() => { run = planRun(w, sc, { trace }); run.run_all(); run.free(); }),
  native_process_ms: time(() => execFileSync(cli, ['--version'])),
  native_summary_gz_ms: time(() => execFileSync(cli, ['summary', '--trace', path.join(ROOT, 'static/traces/planetlab-20110303.tsv.gz')])),
  native_summary_text_ms: time(() => execFileSync(cli, ['summary', '--trace', text])),
  native_run_ms: time(() => execFileSync(cli, ['run', scFile], { cwd: ROOT, maxBuffer: 64 << 20 })),
};
trace.free();
console.log(JSON.stringify({ reps, load: Number(os.loadavg()[0].toFixed(2)), default_day_parts: out }));
