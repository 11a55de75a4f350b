// Benchmark (not a test): the lifetime model (seed 003) on the whole Azure 2017 test split (share 1: every
// tenant batch, 410k VMs, ~1,700 hosts, oracle lifetimes, no stranding inflation), natively (`packlab run`, one
// thread) and in wasm (node, the www/pkg files the page loads), reading the bundled workload included, best of N
// runs; checks that both give the same report. Best fit alone, then best fit with NILAS and with LAVA: a policy's
// own time is the difference to best fit alone (every run simulates best fit, the baseline of Δ). Writes
// results/003/bench.txt with the load average, since the figures are only comparable on a quiet machine.
// Usage: node scripts/bench-lifetime.mjs [N]   (after `make native wasm`)
import { native, wasm, same, header, writeBench } from './bench-common.mjs';

const N = Number(process.argv[2] || 2);
const base = { share: 1, stranding_h: 0 };
const cases = [
  ['best fit alone', ['best-fit']],
  ['best fit + NILAS', ['best-fit', 'nilas']],
  ['best fit + LAVA', ['best-fit', 'lava']],
];
const lines = [header(N),
  '# whole Azure 2017 test split (share 1), oracle, stranding off; times include reading the bundled workload'];
const times = {};
for (const [name, policies] of cases) {
  const sc = { model: 'lifetime', lifetime: { ...base, policies } };
  const [tn, rn] = native(sc, N);
  const [tw, rw] = wasm(sc, N, { workload: true });
  times[name] = { native: tn, wasm: tw };
  lines.push(`${name}: ${rn.results[0].arrivals} VMs on ${rn.hosts} hosts; native ${tn.toFixed(2)} s, wasm ${tw.toFixed(2)} s, wasm/native ${(tw / tn).toFixed(2)}, identical reports: ${same(rw, rn)}`);
}
const bf = times['best fit alone'];
for (const [name, label] of [['best fit + NILAS', 'NILAS'], ['best fit + LAVA', 'LAVA']]) {
  const t = times[name];
  lines.push(`${label} alone (difference to best fit alone): native ${(t.native - bf.native).toFixed(2)} s, wasm ${(t.wasm - bf.wasm).toFixed(2)} s`);
}
writeBench('results/003/bench.txt', lines);
