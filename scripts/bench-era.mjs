// Benchmark (not a test): the reservation model's E4.1 (the SWIM day, greedy and BASIC_ECON with the LP and
// spreading predictors) and one E4.3 point (basic-econ:lp at κ_use 0.8, its LPs included) natively
// (`packlab run`, one thread) and in wasm (node, the www/pkg files the page loads), reading the bundled
// workload included, best of N runs; checks that both give the same report. Writes results/004/bench.txt.
// Usage: node scripts/bench-era.mjs [N]   (after `make native wasm`)
import { native, wasm, same, header, writeBench } from './bench-common.mjs';

const N = Number(process.argv[2] || 3);
const cases = [
  ['E4.1 (3 policies)', { model: 'era', workload: { bundled: 'swim-fb2010' }, era: { preset: 'E4.1' } }],
  ['E4.3 one point (basic-econ:lp, κ 0.8)', { model: 'era', era: { policies: ['basic-econ:lp'], kappa: [0.8] } }],
];
const lines = [header(N)];
for (const [name, sc] of cases) {
  const [tn, rn] = native(sc, N);
  const [tw, rw] = wasm(sc, N, { workload: true });
  lines.push(`${name}: native ${tn.toFixed(2)} s, wasm ${tw.toFixed(2)} s, wasm/native ${(tw / tn).toFixed(2)}, identical reports: ${same(rw, rn)}`);
}
writeBench('results/004/bench.txt', lines);
