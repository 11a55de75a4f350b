// Benchmark (not a test): the oversubscription model's training and evaluation episodes (E1.1: 12 agents,
// 500 PMs, 120 hours) natively (`packlab run`, one thread) and in wasm (node, the www/pkg files the page
// loads), best of N runs; per-episode times are differences of two runs (K episodes minus 1 episode, / (K − 1)),
// so set-up (subscribers, history estimates) cancels. Checks that both give the same report. Also times the
// playground's default scenario once in wasm. Writes results/001/bench.txt.
// Usage: node scripts/bench-oversub.mjs [N]   (after `make native wasm`)
import { writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadWasm, ROOT } from '../tests/e2e/wasm-node.mjs';

const N = Number(process.argv[2] || 3);
const K = 21;
const w = await loadWasm();
const dir = mkdtempSync(path.join(os.tmpdir(), 'packlab-oversub-bench-'));

function native(sc) {
  const file = path.join(dir, 'sc.json');
  writeFileSync(file, JSON.stringify(sc));
  let best = Infinity; let rep = null;
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    rep = JSON.parse(execFileSync(path.join(ROOT, 'target/release/packlab'), ['run', file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, PACKLAB_THREADS: '1' } }));
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return [best, rep];
}

function wasm(sc, n = N) {
  let best = Infinity; let rep = null;
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const run = new w.ExperimentRun(sc);
    rep = run.run_all();
    run.free();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return [best, rep];
}

const sc = (over) => ({ model: 'oversub', oversub: { preset: 'E1.1', ...over } });
const cases = [
  ['training episode (C2MARL, α 0.95)', (k) => sc({ policies: ['c2marl:0.95'], train_episodes: k, eval_episodes: 1 })],
  ['evaluation episode (grid:0.6)', (k) => sc({ policies: ['grid:0.6'], eval_episodes: k })],
  ['evaluation episode (trained C2MARL policy)', (k) => sc({ policies: ['c2marl:0.95'], train_episodes: 1, eval_episodes: k })],
];
const lines = [`# node ${process.version}, ${os.cpus()[0].model}, best of ${N}; per episode = (time of ${K} − time of 1) / ${K - 1}`];
for (const [name, mk] of cases) {
  const [n1] = native(mk(1));
  const [nk, nrep] = native(mk(K));
  const [w1] = wasm(mk(1));
  const [wk, wrep] = wasm(mk(K));
  const pn = (nk - n1) / (K - 1);
  const pw = (wk - w1) / (K - 1);
  const same = JSON.stringify(wrep) === JSON.stringify(nrep);
  lines.push(`${name}: native ${(1000 * pn).toFixed(1)} ms, wasm ${(1000 * pw).toFixed(1)} ms, wasm/native ${(pw / pn).toFixed(2)}, identical reports: ${same}`);
}
const d = w.default_scenario();
const [td] = wasm({ ...d, model: 'oversub' }, 1);
lines.push(`playground default (E1.1, ${d.oversub.train_episodes} training episodes, ${d.oversub.eval_episodes} evaluation episodes per policy, the preset's policies) in wasm: ${td.toFixed(1)} s`);
const text = lines.join('\n') + '\n';
mkdirSync(path.join(ROOT, 'results/001'), { recursive: true });
writeFileSync(path.join(ROOT, 'results/001/bench.txt'), text);
process.stdout.write(text);
