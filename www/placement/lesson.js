// The placement tab's lesson (seed 002): content as data for www/common/lesson.js. Every step's claim was
// checked on the default day (capacity 4, aligned); its `check` re-reads the claim from the results table.
import { s, picture, rowsOf } from '../common/lesson.js';

const point = (root, spec) => {
  const r = rowsOf(root, '#frontier-rows tr').find((x) => x.spec === spec);
  if (!r) throw new Error(`no row ${spec}`);
  return { m: Number(r.m), q: Number(r.q) };
};
const f3 = (v) => Number(v.toPrecision(3));

/** Two machines of capacity c: one packed tight (its total crosses c: an overflow), one with headroom. */
function machines() {
  const vm = (x, y, hgt, fill) => s('rect', { x, y, width: 56, height: hgt, fill, stroke: '#fff' });
  return picture(340, 150, 'Two machines: tightly packed VMs overflow the capacity line, loosely packed ones do not',
    s('line', { x1: 20, y1: 40, x2: 320, y2: 40, stroke: '#b42318', 'stroke-dasharray': '5 4' }),
    s('text', { x: 250, y: 34, 'font-size': 11, fill: '#b42318' }, 'capacity c'),
    vm(40, 110, 20, '#0072b2'), vm(40, 82, 28, '#e69f00'), vm(40, 52, 30, '#009e73'), vm(40, 26, 26, '#cc79a7'),
    s('rect', { x: 40, y: 26, width: 56, height: 14, fill: 'none', stroke: '#b42318', 'stroke-width': 2 }),
    s('text', { x: 104, y: 36, 'font-size': 11, fill: '#b42318' }, 'overflow'),
    s('text', { x: 40, y: 145, 'font-size': 11 }, 'few machines'),
    vm(200, 110, 20, '#0072b2'), vm(200, 82, 28, '#e69f00'), vm(262, 100, 30, '#009e73'), vm(262, 74, 26, '#cc79a7'),
    s('text', { x: 170, y: 145, 'font-size': 11 }, 'more machines, no overflow'),
    s('line', { x1: 20, y1: 130, x2: 320, y2: 130, stroke: '#5f6b76' }));
}

export const LESSON = {
  model: 'placement',
  card: '#frontier-card',
  headline: 'packing VMs onto as few machines as their usage allows',
  problem: 'Each {VM} uses a varying share of its CPU. Packing many of them on one machine saves machines, but when their usage peaks together the machine is overloaded (an overflow). A fit test decides whether one more VM fits; {GPA} assumes the machine\'s total usage is Gaussian and allows an overflow probability {ρ}.',
  tradeoff: 'fewer machines ({m}, to the left) against fewer overflows ({q}, down). Each point on the chart is one packing; the {Pareto} front is the best trade-off found.',
  paper: { seed: '002', title: 'SLO-aware Colocation of Data Center Tasks Based on Instantaneous Processor Requirements' },
  spec: 'ALGORITHMS.md §4', doc: 'docs/placement.md',
  terms: ['VM', 'c', 'ρ', 'SLO', 'q', 'm', 'GPA', 'av:F', 'perc:P', 'Cantelli', 'max', 'ℓ', 'R', 'Best Fit', 'First Fit', 'Pareto'],
  picture: machines,
  caption: 'Tight packing saves machines but overflows when usages peak together.',
  base: { 'f-placement-capacity': '4', 'f-placement-target_rho': '0.05', 'f-placement-mode': 'aligned' },
  steps: [
    {
      title: 'a stricter SLO (ρ = 0.01)',
      set: { 'f-placement-target_rho': '0.01' },
      look: 'The dashed SLO line drops to {ρ} = 0.01. {GPA} at ρ = 0.01 uses more machines than at ρ = 0.05 (a larger {m}), yet its overflow frequency {q} stays above 0.01: with about four VMs on a machine ({c} = 4) the total usage is far from Gaussian, so GPA is optimistic.',
      check(root) {
        const a = point(root, 'gpa:0.01');
        const b = point(root, 'gpa:0.05');
        return { ok: a.m > b.m && a.q > 0.01, detail: `GPA at ρ = 0.01: m ${f3(a.m)} (at 0.05: ${f3(b.m)}), q ${f3(a.q)}` };
      },
    },
    {
      title: 'bigger machines (c = 16)',
      set: { 'f-placement-capacity': '16', 'f-placement-target_rho': '0.01' },
      look: 'With {c} = 16 a machine holds about sixteen VMs and their total is closer to Gaussian: GPA at ρ = 0.01 now keeps {q} below 0.01.',
      check(root) {
        const a = point(root, 'gpa:0.01');
        return { ok: a.q <= 0.01, detail: `GPA at ρ = 0.01: q ${f3(a.q)}` };
      },
    },
    {
      title: 'independent usage (resampled)',
      set: { 'f-placement-capacity': '16', 'f-placement-mode': 'resampled' },
      look: 'The resampled realisations draw each VM\'s usage independently, so VMs no longer get busy together as they do on the real day. That is GPA\'s assumption: its {q} at ρ = 0.05 now meets the target (on the real, aligned day at c = 16 it was above 0.05).',
      check(root) {
        const a = point(root, 'gpa:0.05');
        return { ok: a.q <= 0.05, detail: `GPA at ρ = 0.05: q ${f3(a.q)}` };
      },
    },
    {
      title: 'back to the default: the price of peaks',
      set: {},
      look: 'Reserving every VM\'s peak ({max}) never overflows (q = 0) but needs more than three times the lower bound of machines; GPA at ρ = 0.05 needs about 1.2 times.',
      check(root) {
        const mx = point(root, 'max');
        const g = point(root, 'gpa:0.05');
        return { ok: mx.q === 0 && mx.m > 3 && g.m < 1.3, detail: `max: m ${f3(mx.m)}, q ${mx.q}; GPA at ρ = 0.05: m ${f3(g.m)}` };
      },
    },
  ],
};
