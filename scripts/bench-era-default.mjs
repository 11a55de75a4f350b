// Benchmark (not a test): the reservation model's default view (E4.3, 30 cells) in wasm (node, the www/pkg files
// the page loads), at the paper's 150,000 datacenter cores and at the default's 100,000 (defaults set 14), interleaved
// twice, CPU and wall time. Prints the lines stored in results/004/bench-default.txt.
// Usage: node scripts/bench-era-default.mjs   (after `make wasm`)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadWasm, planRun, ROOT } from '../tests/e2e/wasm-node.mjs';
const w = await loadWasm();
const b = w.bundled_data().find((d) => d.id === 'azure2017-arrivals');
const tb = new w.TraceBuilder(); tb.add(path.basename(b.path), readFileSync(path.join(ROOT, b.path)));
const wl = tb.finish_workload('azure2017-arrivals');
const base = { ...w.default_scenario(), model: 'era' };
for (const rep of [1, 2]) for (const dc of [150000, 100000]) {
  const sc = { ...base, era: { ...base.era, datacenter_cores: dc } };
  const c0 = process.cpuUsage(); const t0 = Date.now();
  const run = planRun(w, sc, { workload: wl }); const r = run.run_all(); run.free();
  const c = process.cpuUsage(c0);
  console.log(`dc ${dc}: cpu ${((c.user + c.system) / 1e6).toFixed(2)} s, wall ${((Date.now() - t0) / 1000).toFixed(2)} s, cells ${r.cells.length}, requests ${r.setup.requests}`);
}
