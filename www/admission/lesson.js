// The admission tab's lesson (seed 000): content as data for www/common/lesson.js. Every step's claim was
// checked on the default scenario (E0.1, C = 1,000 cores, 2 runs); its `check` re-reads it from the table.
import { s, picture, rowsOf } from '../common/lesson.js';

const POLICIES = ['ZEROTH', 'FIRST', 'SECOND'];
const tuned = (root) => {
  const rows = rowsOf(root, '#admission-rows tr').filter((r) => POLICIES.includes(r.label));
  if (rows.length !== 3) throw new Error(`${rows.length} of the three policies in the table`);
  return rows.map((r) => ({ label: r.label, status: r.status, u: Number(r.utilization) }));
};
const pct = (u) => `${(100 * u).toFixed(1)}%`;

/** A cluster of C cores: deployments' cores stacked, a new deployment at the door, room kept for scale-outs. */
function cluster() {
  const dep = (y, hgt, fill) => s('rect', { x: 120, y, width: 90, height: hgt, fill, stroke: '#fff' });
  return picture(340, 150, 'A cluster of C cores: running deployments, the room kept for their scale-outs, and a new deployment waiting to be admitted',
    s('rect', { x: 120, y: 20, width: 90, height: 110, fill: 'none', stroke: '#5f6b76' }),
    s('text', { x: 120, y: 14, 'font-size': 11 }, 'cluster: C cores'),
    dep(100, 30, '#0072b2'), dep(76, 24, '#e69f00'), dep(56, 20, '#009e73'),
    s('rect', { x: 120, y: 20, width: 90, height: 36, fill: '#f4f6f8', stroke: '#5f6b76', 'stroke-dasharray': '4 3' }),
    s('text', { x: 216, y: 42, 'font-size': 11 }, 'room for scale-outs'),
    s('rect', { x: 20, y: 80, width: 50, height: 22, fill: '#cc79a7' }),
    s('text', { x: 14, y: 120, 'font-size': 11 }, 'new deployment'),
    s('path', { d: 'M74 91 L114 91 M106 85 L114 91 L106 97', stroke: '#212529', fill: 'none' }),
    s('text', { x: 76, y: 80, 'font-size': 11 }, 'admit?'),
    s('text', { x: 216, y: 100, 'font-size': 11 }, 'cores in use'));
}

export const LESSON = {
  model: 'admission',
  card: '#admission-card',
  headline: 'admitting deployments to a cluster while keeping room for them to grow',
  problem: 'Deployments arrive, start small and later ask for more cores (a {scale-out}). A scale-out that does not fit in the cluster\'s {C} cores fails. On each arrival an admission policy decides whether to admit it; its threshold {θ} is tuned to the highest {utilization} whose failure rate meets the {SLA} {ε}. {ZEROTH} looks at the cores in use now, {FIRST} at their expected future, {SECOND} also at their spread.',
  tradeoff: 'a full cluster (high {utilization}) against failed scale-outs (the {SLA}).',
  paper: { seed: '000', title: 'On the cluster admission problem for cloud computing' },
  spec: 'ALGORITHMS.md §2', doc: 'docs/admission.md',
  terms: ['C', 'scale-out', 'SLA', 'ε', 'θ', 'utilization', 'ZEROTH', 'FIRST', 'SECOND', 'κ', 'λ'],
  picture: cluster,
  caption: 'Admitting more fills the cluster, but leaves less room for the scale-outs of those already running.',
  base: { 'f-admission-params-sla': '0.001', 'f-admission-params-capacity': '1000' },
  steps: [
    {
      title: 'a looser SLA (ε = 0.01)',
      set: { 'f-admission-params-sla': '0.01' },
      look: 'Allowing ten times more failed {scale-out}s ({ε} = 0.01) lets every policy admit more: each tuned policy\'s {utilization} rises above 80% (74–79% at ε = 0.001).',
      check(root) {
        const rows = tuned(root);
        return { ok: rows.every((r) => r.status === 'tuned' && r.u > 0.8), detail: rows.map((r) => `${r.label} ${pct(r.u)}`).join(', ') };
      },
    },
    {
      title: 'a bigger cluster (C = 2,000 cores)',
      set: { 'f-admission-params-capacity': '2000' },
      look: 'On a cluster twice as large the three policies end within two points of each other (about 80%; 74–79% on 1,000 cores): a large cluster pools many deployments, so the simple {ZEROTH} threshold loses little to {FIRST} and {SECOND}.',
      check(root) {
        const rows = tuned(root);
        const us = rows.map((r) => r.u);
        return { ok: rows.every((r) => r.status === 'tuned') && Math.max(...us) - Math.min(...us) < 0.02, detail: rows.map((r) => `${r.label} ${pct(r.u)}`).join(', ') };
      },
    },
  ],
};
