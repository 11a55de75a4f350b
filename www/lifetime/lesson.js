// The lifetime tab's lesson (seed 003): content as data for www/common/lesson.js. Every step's claim was
// checked on the default scenario (a 20% pool of the Azure 2017 arrivals, oracle); its `check` re-reads it
// from the results table.
import { s, picture, rowsOf } from '../common/lesson.js';

const gain = (root, policy) => {
  const r = rowsOf(root, '#lifetime-rows tr').find((x) => x.policy === policy);
  if (!r) throw new Error(`no row ${policy}`);
  return Number(r.emptyHostsPpVsBestFit);
};
const pp = (v) => `${v >= 0 ? '+' : ''}${v.toFixed(2)} pp`;

/** Hosts filled with VMs of mixed lifetimes (long bars) against hosts of like lifetimes, one of which empties. */
function hosts() {
  const host = (x, label) => [s('rect', { x, y: 30, width: 60, height: 90, fill: 'none', stroke: '#5f6b76' }), s('text', { x, y: 136, 'font-size': 11 }, label)];
  const vm = (x, y, hgt, fill) => s('rect', { x: x + 4, y, width: 52, height: hgt, fill, stroke: '#fff' });
  const SHORT = '#56b4e9';
  const LONG = '#0b3d91';
  return picture(340, 150, 'Mixing short- and long-lived VMs on every host keeps all hosts busy; grouping VMs that exit together lets hosts empty out',
    s('text', { x: 10, y: 16, 'font-size': 11 }, 'mixed lifetimes'),
    ...host(10, 'busy'), vm(10, 90, 30, LONG), vm(10, 60, 30, SHORT),
    ...host(80, 'busy'), vm(80, 90, 30, SHORT), vm(80, 60, 30, LONG),
    s('text', { x: 190, y: 16, 'font-size': 11 }, 'grouped by lifetime'),
    ...host(190, 'busy'), vm(190, 90, 30, LONG), vm(190, 60, 30, LONG),
    ...host(260, 'empty soon'), vm(260, 90, 30, SHORT), vm(260, 60, 30, SHORT));
}

export const LESSON = {
  model: 'lifetime',
  card: '#lifetime-card',
  headline: 'placing VMs by how long they will live, so hosts empty out',
  problem: 'VMs arrive and exit all the time. A host can be maintained, or take a very large VM, only when it is empty. Policies that know or predict each VM\'s {lifetime} ({NILAS}, {LAVA}, {LA-Binary}) place VMs that exit together on the same hosts, so more hosts become empty than under plain {Best Fit|best fit}.',
  tradeoff: 'tight packing now (best fit, little {stranding}) against {empty hosts} later; and how much this depends on good lifetime predictions ({A}).',
  paper: { seed: '003', title: 'LAVA: Lifetime-Aware VM Allocation with Learned Distributions and Adaptation to Mispredictions' },
  spec: 'ALGORITHMS.md §5', doc: 'docs/lifetime.md',
  terms: ['VM', 'lifetime', 'empty hosts', 'stranding', 'Best Fit', 'LA-Binary', 'NILAS', 'LAVA', 'LARS', 'oracle', 'A', 'reprediction'],
  picture: hosts,
  caption: 'Hosts whose VMs exit together become empty together.',
  base: { 'f-lifetime-predictor': 'oracle', 'f-lifetime-accuracy': '0.9', 'f-lifetime-reprediction': true, 'f-lifetime-defrag': false },
  steps: [
    {
      title: 'perfect predictions (the oracle)',
      set: {},
      look: 'With the {oracle}\'s exact lifetimes, {NILAS} and {LAVA} keep more {empty hosts} than best fit (the table\'s Δ column: about +1.9 and +1.4 percentage points).',
      check(root) {
        const n = gain(root, 'nilas');
        const l = gain(root, 'lava');
        return { ok: n > 1 && l > 0.5, detail: `NILAS ${pp(n)}, LAVA ${pp(l)} vs best fit` };
      },
    },
    {
      title: 'poor predictions (A = 0.5)',
      set: { 'f-lifetime-predictor': 'noisy', 'f-lifetime-accuracy': '0.5' },
      look: 'A predictor that names the lifetime right only half the time ({A} = 0.5, with {reprediction}): NILAS and LAVA keep much smaller gains over best fit, under one point each (about +0.5 and +0.3).',
      check(root) {
        const n = gain(root, 'nilas');
        const l = gain(root, 'lava');
        return { ok: n > 0 && n < 1 && l < 1, detail: `NILAS ${pp(n)}, LAVA ${pp(l)} vs best fit` };
      },
    },
    {
      title: 'defragmentation by live migration',
      set: { 'f-lifetime-defrag': true },
      look: 'Hosts are now drained by live migration; the table "Live migrations" appears, with the migrations in start order and in the {LARS} order. NILAS and LAVA still keep more empty hosts than best fit.',
      check(root) {
        const mig = rowsOf(root, '#lifetime-migration-rows tr');
        const moved = mig.reduce((a, r) => a + Number(r.startMigrations || 0), 0);
        const n = gain(root, 'nilas');
        const l = gain(root, 'lava');
        return { ok: mig.length > 0 && moved > 0 && n > 0 && l > 0, detail: `${moved} migrations in start order over ${mig.length} policies; NILAS ${pp(n)}, LAVA ${pp(l)}` };
      },
    },
  ],
};
