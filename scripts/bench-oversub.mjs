// Benchmark (not a test): the oversubscription model's training and evaluation episodes (E1.1: 12 agents,
// 500 PMs, 120 hours) natively (`packlab run`, one thread) and in wasm (node, the www/pkg files the page
// loads), best of N runs; per-episode times are differences of two runs (K episodes minus 1 episode, / (K − 1)),
// so set-up (subscribers, history estimates) cancels. Checks that both give the same report. Also times the
// playground's default scenario once in wasm. Writes results/001/bench.txt.
// Usage: node scripts/bench-oversub.mjs [N]   (after `make native wasm`)
import { native as nativeN, wasm as wasmN, same, header, w, writeBench } from './bench-common.mjs';

const N = Number(process.argv[2] || 3);
const K = 21;
const native = (sc) => nativeN(sc, N);
const wasm = (sc, n = N) => wasmN(sc, n);

const sc = (over) => ({ model: 'oversub', oversub: { preset: 'E1.1', ...over } });
const cases = [
  ['training episode (C2MARL, α 0.95)', (k) => sc({ policies: ['c2marl:0.95'], train_episodes: k, eval_episodes: 1 })],
  ['evaluation episode (grid:0.6)', (k) => sc({ policies: ['grid:0.6'], eval_episodes: k })],
  ['evaluation episode (trained C2MARL policy)', (k) => sc({ policies: ['c2marl:0.95'], train_episodes: 1, eval_episodes: k })],
];
const lines = [header(N, `; per episode = (time of ${K} − time of 1) / ${K - 1}`)];
for (const [name, mk] of cases) {
  const [n1] = native(mk(1));
  const [nk, nrep] = native(mk(K));
  const [w1] = wasm(mk(1));
  const [wk, wrep] = wasm(mk(K));
  const pn = (nk - n1) / (K - 1);
  const pw = (wk - w1) / (K - 1);
  lines.push(`${name}: native ${(1000 * pn).toFixed(1)} ms, wasm ${(1000 * pw).toFixed(1)} ms, wasm/native ${(pw / pn).toFixed(2)}, identical reports: ${same(wrep, nrep)}`);
}
const d = w.default_scenario();
const [td] = wasm({ ...d, model: 'oversub' }, 1);
lines.push(`playground default (E1.1, ${d.oversub.train_episodes} training episodes, ${d.oversub.eval_episodes} evaluation episodes per policy, the preset's policies) in wasm: ${td.toFixed(1)} s`);
writeBench('results/001/bench.txt', lines);
