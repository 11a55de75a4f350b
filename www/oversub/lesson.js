// The oversubscription tab's lesson (seed 001): content as data for www/common/lesson.js. Every step's claim
// was checked on the default scenario (E1.1); its `check` re-reads it from the results table.
import { s, picture, rowsOf } from '../common/lesson.js';

const row = (root, policy) => {
  const r = rowsOf(root, '#oversub-rows tr').find((x) => x.policy === policy);
  if (!r) throw new Error(`no row ${policy}`);
  return { hot: Number(r.pmHotR), chot: Number(r.cHotR), saved: Number(r.sCores) };
};
const pct = (v) => `${Math.round(100 * v)}%`;

/** One PM: cores asked for, the fewer cores assigned (x times), usage crossing the hot line β·B. */
function pm() {
  return picture(340, 150, 'A physical machine: VMs ask for cores, get a share x of them, and the machine is hot when their usage crosses beta times its cores',
    s('rect', { x: 20, y: 20, width: 60, height: 110, fill: '#dfe3e8' }),
    s('text', { x: 20, y: 145, 'font-size': 11 }, 'asked for'),
    s('rect', { x: 100, y: 64, width: 60, height: 66, fill: '#0072b2' }),
    s('text', { x: 96, y: 145, 'font-size': 11 }, 'assigned (x·c)'),
    s('line', { x1: 180, y1: 60, x2: 330, y2: 60, stroke: '#b42318', 'stroke-dasharray': '5 4' }),
    s('text', { x: 250, y: 54, 'font-size': 11, fill: '#b42318' }, 'hot: β·B'),
    s('polyline', { points: '180,120 200,110 220,100 240,70 255,52 270,58 285,90 300,112 330,118', fill: 'none', stroke: '#e69f00', 'stroke-width': 2 }),
    s('text', { x: 200, y: 145, 'font-size': 11 }, 'usage over a day'),
    s('line', { x1: 180, y1: 130, x2: 330, y2: 130, stroke: '#5f6b76' }));
}

export const LESSON = {
  model: 'oversub',
  card: '#oversub-card',
  headline: 'giving VMs fewer cores than they ask for, without running machines hot',
  problem: 'VMs rarely use all the cores they request. {oversubscription|Oversubscribing} gives each new VM a share {x} of its cores, picked each hour per subscriber by a policy ({Grid-x}, {GPA}, {C2MARL}, …). A {PM} is hot when its VMs\' usage reaches {β} of its cores; it must stay safe at level {α}.',
  tradeoff: 'saved cores ({S-Cores}) against hot machines ({PM-Hot-R}, {C-Hot-R}).',
  paper: { seed: '001', title: 'Learning Cooperative Oversubscription for Cloud by Chance-Constrained Multi-Agent Reinforcement Learning' },
  spec: 'ALGORITHMS.md §3', doc: 'docs/oversub.md',
  terms: ['oversubscription', 'x', 'PM', 'β', 'α', 'PM-Hot-R', 'C-Hot-R', 'S-Cores', 'Grid-x', 'GPA', 'C2MARL', 'λ'],
  picture: pm,
  caption: 'The fewer cores assigned, the more saved, and the closer the usage comes to the hot line.',
  base: { 'f-oversub-beta': '0.6' },
  steps: [
    {
      title: 'fixed rates against GPA',
      set: { 'f-oversub-policies': 'grid:0.2, grid:0.6, gpa:0.95' },
      look: 'A low fixed rate ({Grid-x}, x = 0.2) saves 80% of the cores ({S-Cores}) but some PM runs hot in nearly every episode ({C-Hot-R}); x = 0.6 saves 40%; the {GPA} rate at {α} = 0.95 saves less (about a third) and rarely runs hot.',
      check(root) {
        const a = row(root, 'grid:0.2');
        const b = row(root, 'grid:0.6');
        const g = row(root, 'gpa:0.95');
        return { ok: a.saved > b.saved && b.saved > g.saved && a.chot > g.chot, detail: `S-Cores ${pct(a.saved)}, ${pct(b.saved)}, ${pct(g.saved)}; C-Hot-R ${pct(a.chot)}, ${pct(b.chot)}, ${pct(g.chot)}` };
      },
    },
    {
      title: 'a lower hot line (β = 0.5)',
      set: { 'f-oversub-policies': 'grid:0.6, gpa:0.95', 'f-oversub-beta': '0.5' },
      look: 'With {β} = 0.5 a PM counts as hot sooner. The fixed rate 0.6 does not react: it still saves 40% and now some PM runs hot in most episodes. GPA plans for β: it assigns more cores (saving well under 30%) and stays safe.',
      check(root) {
        const b = row(root, 'grid:0.6');
        const g = row(root, 'gpa:0.95');
        return { ok: b.chot > 0.5 && g.chot < 0.05 && g.saved < 0.3, detail: `grid:0.6 C-Hot-R ${pct(b.chot)}, S-Cores ${pct(b.saved)}; gpa:0.95 C-Hot-R ${pct(g.chot)}, S-Cores ${pct(g.saved)}` };
      },
    },
    {
      title: 'less safety (α = 0.75)',
      set: { 'f-oversub-policies': 'gpa:0.75, gpa:0.95' },
      look: 'Asking for less safety ({α} = 0.75 instead of 0.95) lets GPA oversubscribe more: it saves more cores.',
      check(root) {
        const a = row(root, 'gpa:0.75');
        const b = row(root, 'gpa:0.95');
        return { ok: a.saved > b.saved, detail: `S-Cores at α = 0.75: ${pct(a.saved)}; at 0.95: ${pct(b.saved)}` };
      },
    },
  ],
};
