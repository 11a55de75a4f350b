// The Findings page: for each paper, its experiments' tables as the committed findings scripts wrote them
// (results/<paper>/tables.md and the other stored tables, served beside the site as on `make run`), every arm
// beside the paper's number with its verdict, a count of the verdicts, the command that regenerates the tables,
// a link that opens the paper's model in the playground, and "Open the evidence": for every stored run behind
// the tables, the link of its exact scenario (results/<paper>/links.json, made by the engine through
// scripts/findings_links.py; validated here, since a served file can be tampered with). The Markdown is read by
// www/common/markdown.js (text nodes only). The engine is loaded only to make the model links (scenario_to_link).

import { h, setChildren, $, scrollTable } from './common/dom.js';
import { loadEngine, errorText } from './common/engine.js';
import { parseMarkdown, renderMarkdown } from './common/markdown.js';

/** The papers in seed order: id, title, the playground model, the regenerating command, the stored tables. */
export const PAPERS = [
  { id: '000', title: 'Cluster admission control (moment policies, Gamma posteriors, SLA on scale-out failures)', model: 'admission',
    command: 'make findings PAPER=000', files: ['results/000/tables.md'] },
  { id: '001', title: 'Chance-constrained oversubscription (C2MARL, hot-machine constraint)', model: 'oversub',
    command: 'make findings PAPER=001', files: ['results/001/tables.md'] },
  { id: '002', title: 'Stochastic bin packing with the Gaussian Percentile Approximation (GPA)', model: 'placement',
    command: 'make findings PAPER=002', files: ['results/002/tables.md'] },
  { id: '003', title: 'Lifetime-aware VM allocation (NILAS, LAVA, LA-Binary, LARS)', model: 'lifetime',
    command: 'make findings PAPER=003', files: ['results/003/tables.md', 'results/003/synthetic.md', 'results/003/accuracy-frontier/frontier.md'] },
  { id: '004', title: 'Economic reservation scheduling and pricing (ERA)', model: 'era',
    command: 'make findings PAPER=004', files: ['results/004/tables.md'] },
];

/**
 * Verdict counts of a Markdown text: every cell of a column whose header contains "verdict", classified by its
 * leading words ("not reproduced…", "direction…", "reproduced…"; anything else, e.g. "baseline" or "—", is
 * "other"). Pure: the e2e test compares it with its own count.
 * @param {string} text
 * @returns {{ reproduced: number, direction: number, not_reproduced: number, other: number }}
 */
export function verdictCounts(text) {
  const n = { reproduced: 0, direction: 0, not_reproduced: 0, other: 0 };
  for (const b of parseMarkdown(text)) {
    if (b.kind !== 'table') continue;
    const cols = b.header.map((c, k) => (/verdict/i.test(c) ? k : -1)).filter((k) => k >= 0);
    for (const r of b.rows) {
      for (const k of cols) {
        const v = r[k].replace(/[*`]/g, '').trim().toLowerCase();
        if (v.startsWith('not reproduced')) n.not_reproduced += 1;
        else if (v.startsWith('direction')) n.direction += 1;
        else if (v.startsWith('reproduced')) n.reproduced += 1;
        else n.other += 1;
      }
    }
  }
  return n;
}

const url = (file) => new URL(`../${file}`, import.meta.url);

/** What a links.json link must look like: the playground page with a share link in its fragment, nothing else. */
export const EVIDENCE_HREF = /^\.\/#s=v[0-9]+\.d[0-9]+\.[A-Za-z0-9_-]+$/;

/**
 * The rows of a paper's links.json, checked: each { experiment, arm, note, href } with strings only and `href`
 * null when the run has no link or its link is not of the form {@link EVIDENCE_HREF}. Throws on a file that is
 * not a list of objects.
 * @param {unknown} rows
 */
export function evidenceRows(rows) {
  if (!Array.isArray(rows)) throw new Error('links.json is not a list');
  return rows.map((r, i) => {
    if (!r || typeof r !== 'object') throw new Error(`links.json row ${i + 1} is not an object`);
    const text = (v) => (typeof v === 'string' ? v : '');
    const ok = typeof r.link === 'string' && r.link.length <= 20000 && EVIDENCE_HREF.test(r.link);
    return {
      experiment: text(r.experiment), arm: text(r.arm), note: text(r.note), href: ok ? r.link : null,
      invalid: r.link !== null && r.link !== undefined && !ok,
    };
  });
}

/** The "Open the evidence" table of a paper (DOM nodes only; long lists folded in a details element). */
function evidenceTable(p, rows) {
  const linked = rows.filter((r) => r.href).length;
  const table = h('table', { class: 'results findings evidence', id: `paper-${p.id}-evidence` },
    h('thead', {}, h('tr', {}, ['experiment', 'arm', 'what it opens', 'link'].map((c) => h('th', {}, c)))),
    h('tbody', {}, rows.map((r) => h('tr', {},
      h('td', {}, r.experiment), h('td', {}, r.arm), h('td', {}, r.note),
      h('td', {}, r.href ? h('a', { href: `${r.href}&run=ask`, class: 'evidence-link' }, 'open') : (r.invalid ? 'invalid link in links.json' : '—'))))));
  return h('details', { class: 'evidence', open: rows.length <= 12 },
    h('summary', {}, `Open the evidence: ${rows.length} rows of stored runs, ${linked} with a link to their exact scenario`),
    h('p', { class: 'fine' }, 'Each link opens the playground with the scenario of that stored run (',
      h('code', {}, `results/${p.id}/links.json`), ', made by the engine with ', h('code', {}, '--print-link'),
      '); it opens without computing (some experiments take minutes): press Run there to recompute it. Rows averaging several instances or seeds link the first and say so.'),
    scrollTable('Findings table', table));
}

async function loadEvidence(p, box) {
  try {
    const resp = await fetch(url(`results/${p.id}/links.json`));
    if (!resp.ok) throw new Error(`results/${p.id}/links.json: HTTP ${resp.status}`);
    setChildren(box, evidenceTable(p, evidenceRows(await resp.json())));
    box.dataset.state = 'done';
  } catch (e) {
    setChildren(box, h('p', { class: 'fine' }, `The links to the evidence could not be loaded (${errorText(e)}).`));
    box.dataset.state = 'error';
  }
}

async function main() {
  const root = $('#findings');
  let wasm = null;
  try {
    ({ wasm } = await loadEngine());
    $('#engine-version').textContent = `engine ${wasm.engine_version()}`;
  } catch (e) {
    // the tables do not need the engine; only the playground links do
    $('#engine-version').textContent = `engine not loaded (${errorText(e)})`;
  }
  const link = (model) => {
    if (!wasm) return './';
    try {
      return `./#s=${wasm.scenario_to_link({ ...wasm.default_scenario(), model })}`;
    } catch {
      return './';
    }
  };
  const nav = h('nav', { class: 'findings-toc', 'aria-label': 'papers' }, h('ul', {}, PAPERS.map((p) => h('li', {}, h('a', { href: `#paper-${p.id}` }, `seed ${p.id}`)))));
  const sections = PAPERS.map((p) => {
    const body = h('div', { class: 'findings-body' }, h('p', { class: 'fine' }, 'Loading…'));
    const summary = h('p', { class: 'findings-summary' });
    const evidence = h('div', { class: 'findings-evidence', id: `paper-${p.id}-evidence-box`, dataset: { state: 'loading' } });
    const sec = h('section', { class: 'card', id: `paper-${p.id}`, 'aria-labelledby': `paper-${p.id}-title`, dataset: { state: 'loading', paper: p.id, model: p.model } },
      h('h2', { id: `paper-${p.id}-title` }, `Seed ${p.id}: ${p.title}`),
      h('p', { class: 'fine' }, 'Regenerate with ', h('code', {}, p.command), ' (after ', h('code', {}, 'make native'), '); the tables below are ',
        p.files.map((f, i) => [i ? ', ' : '', h('code', {}, f)]), ', read as they are committed. ',
        h('a', { href: link(p.model), class: 'open-model', id: `paper-${p.id}-open` }, `Open the ${p.model} model in the playground`),
        ' (its default scenario; the tables say which scenarios and seeds each row ran).'),
      summary,
      evidence,
      body);
    load(p, body, summary, sec);
    loadEvidence(p, evidence);
    return sec;
  });
  setChildren(root,
    h('section', { class: 'card' },
      h('h2', {}, 'What packlab reproduces'),
      h('p', {}, 'Each paper\'s experiments as packlab\'s findings scripts ran them on real traces: every arm beside the paper\'s number, including those that do not reproduce, with a verdict (reproduced, direction only, not reproduced) and the explanations the scripts compute. The verdict rules are stated with each table.'),
      nav),
    sections);
}

async function load(p, body, summary, sec) {
  const parts = [];
  const counts = { reproduced: 0, direction: 0, not_reproduced: 0, other: 0 };
  try {
    for (const f of p.files) {
      const resp = await fetch(url(f));
      if (!resp.ok) throw new Error(`${f}: HTTP ${resp.status}`);
      const text = await resp.text();
      const c = verdictCounts(text);
      for (const k of Object.keys(counts)) counts[k] += c[k];
      parts.push(h('h3', {}, h('code', {}, f)), ...renderMarkdown(text, { headingBase: 4, tableClass: 'results findings' }));
    }
    setChildren(body, parts);
    const any = counts.reproduced + counts.direction + counts.not_reproduced;
    setChildren(summary, any
      ? `Verdicts: ${counts.reproduced} reproduced, ${counts.direction} direction only, ${counts.not_reproduced} not reproduced`
      : 'No verdict column in these tables yet: they give the paper\'s numbers beside packlab\'s, and the text below them says what holds.');
    Object.assign(sec.dataset, { state: 'done', reproduced: String(counts.reproduced), direction: String(counts.direction), notReproduced: String(counts.not_reproduced) });
  } catch (e) {
    setChildren(body, h('p', { class: 'fine' }, `The stored findings could not be loaded (${errorText(e)}); they are served beside the site (make run serves results/ at /results/).`));
    sec.dataset.state = 'error';
  }
}

main();
