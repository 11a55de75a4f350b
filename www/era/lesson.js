// The reservations tab's lesson (seed 004): content as data for www/common/lesson.js. Every step's claim was
// checked on the default scenario (E4.3, one day) with three of its six policies; its `check` re-reads it from the
// results table.
import { s, picture, rowsOf } from '../common/lesson.js';

const cells = (root) => rowsOf(root, '#era-rows tr').map((r) => ({
  policy: r.policy, kappa: Number(r.kappa), ve: Number(r.valueEfficiency), late: Number(r.latePct), revenue: Number(r.revenue),
}));
const cell = (root, policy, kappa) => {
  const c = cells(root).find((x) => x.policy === policy && x.kappa === kappa);
  if (!c) throw new Error(`no row ${policy} at κ_use ${kappa}`);
  return c;
};
const pct = (v) => `${Math.round(100 * v)}%`;

/** Capacity over time with reserved jobs (W cores × T minutes inside a window) and the price following demand. */
function plan() {
  const job = (x, y, w, hgt, fill) => s('rect', { x, y, width: w, height: hgt, fill, stroke: '#fff' });
  return picture(340, 150, 'Reservations on a capacity timeline: each job takes cores for a while inside its window; the price rises where demand is high',
    s('line', { x1: 20, y1: 40, x2: 320, y2: 40, stroke: '#5f6b76', 'stroke-dasharray': '5 4' }),
    s('text', { x: 22, y: 34, 'font-size': 11 }, 'capacity C (κ_use of it committed)'),
    job(30, 96, 90, 34, '#0072b2'), job(90, 66, 120, 30, '#e69f00'), job(180, 100, 80, 30, '#009e73'), job(230, 70, 70, 30, '#cc79a7'),
    s('line', { x1: 20, y1: 130, x2: 320, y2: 130, stroke: '#5f6b76' }),
    s('polyline', { points: '20,120 80,110 140,70 200,62 260,80 320,112', fill: 'none', stroke: '#b42318', 'stroke-width': 2 }),
    s('text', { x: 250, y: 145, 'font-size': 11, fill: '#b42318' }, 'price'),
    s('text', { x: 22, y: 145, 'font-size': 11 }, 'time →'));
}

export const LESSON = {
  model: 'era',
  card: '#era-card',
  headline: 'reserving capacity ahead and pricing it by demand',
  problem: 'Jobs ask for cores for a while, some time within a window, and say what the job is worth. {ERA} plans reservations on a capacity timeline and prices each one by the demand it displaces ({BASIC_ECON}); {greedy} takes the earliest start at a fixed price; {on-demand} runs a job only if it fits now. The plan may commit a share {κ_use} of the capacity, and the actual capacity varies.',
  tradeoff: 'jobs served and {value efficiency|value} gained against {late jobs} when the actual capacity falls short; and {revenue}.',
  paper: { seed: '004', title: 'ERA: A Framework for Economic Resource Allocation for the Cloud' },
  spec: 'ALGORITHMS.md §6', doc: 'docs/era.md',
  terms: ['ERA', 'BASIC_ECON', 'greedy', 'on-demand', 'κ_use', 'value efficiency', 'late jobs', 'revenue', 'utilization'],
  picture: plan,
  caption: 'A reservation holds cores for a time inside the job\'s window; prices follow the predicted demand.',
  // the steps compare three policies (on-demand, greedy, BASIC_ECON with the linear predictor): each step's run
  // takes about a third of the six-policy preset's time, and the claims are about these three
  base: {
    'era-policies-preset': false,
    'era-policy-on-demand': true,
    'era-policy-greedy': true,
    'era-policy-basic-econ-linear': true,
    'era-policy-basic-econ-linear-penalty': false,
    'era-policy-basic-econ-lp': false,
    'era-policy-basic-econ-lp-penalty': false,
    'era-policy-basic-econ-spread': false,
    'era-policy-basic-econ-spread-penalty': false,
    'f-era-kappa': '',
    'f-era-load': '1',
  },
  steps: [
    {
      title: 'three policies at one committed share (κ_use = 0.8)',
      set: { 'f-era-kappa': '0.8' },
      look: 'The steps compare {on-demand}, {greedy} and {BASIC_ECON} with the linear demand predictor (the policy boxes under Policies). At {κ_use} = 0.8, pricing by predicted demand keeps the most {value efficiency|value}: about 93%, against 87% for {greedy} and 54% for {on-demand}.',
      check(root) {
        const b = cell(root, 'basic-econ:linear', 0.8);
        const g = cell(root, 'greedy', 0.8);
        const o = cell(root, 'on-demand', 0.8);
        return { ok: b.ve > g.ve && g.ve > o.ve, detail: `value efficiency ${pct(b.ve)}, ${pct(g.ve)}, ${pct(o.ve)}` };
      },
    },
    {
      title: 'commit everything (κ_use = 0.6 and 1)',
      set: { 'f-era-kappa': '0.6, 1' },
      look: 'Committing all the planned capacity ({κ_use} = 1) leaves no room for a shortfall of the actual capacity: every reserving policy makes more {late jobs} than at 0.6.',
      check(root) {
        const pols = [...new Set(cells(root).map((c) => c.policy))].filter((p) => p !== 'on-demand');
        const worse = pols.filter((p) => cell(root, p, 1).late > cell(root, p, 0.6).late);
        return { ok: pols.length > 0 && worse.length === pols.length, detail: pols.map((p) => `${p} ${cell(root, p, 0.6).late.toFixed(1)}% → ${cell(root, p, 1).late.toFixed(1)}%`).join(', ') };
      },
    },
    {
      title: 'scarce capacity (load 2)',
      set: { 'f-era-kappa': '0.8', 'f-era-load': '2' },
      look: 'With twice as much demand as capacity, prices rise where demand is high: BASIC_ECON\'s {revenue} becomes more than 1.4 times greedy\'s (about 1.6; 1.1 times at load 1).',
      check(root) {
        const b = cell(root, 'basic-econ:linear', 0.8);
        const g = cell(root, 'greedy', 0.8);
        const r = b.revenue / g.revenue;
        return { ok: r > 1.4, detail: `revenue ratio ${r.toFixed(2)}` };
      },
    },
  ],
};
