// The Findings page: for each paper, its experiments' tables as the committed findings scripts wrote them
// (results/<paper>/tables.md and the other stored tables, served beside the site as on `make run`), every arm
// beside the paper's number with its verdict, a count of the verdicts, the command that regenerates the tables,
// a link that opens the paper's model in the playground, and "Open the evidence": for every stored run behind
// the tables, the link of its exact scenario (results/<paper>/links.json, made by the engine through
// scripts/findings_links.py; validated here, since a served file can be tampered with). The Markdown is read by
// www/common/markdown.js (text nodes only). The engine is loaded only to make the model links (scenario_to_link).

import { h, setChildren, $, scrollTable } from './common/dom.js';
import { loadEngine, errorText } from './common/engine.js';
import { parseMarkdown, renderBlock, renderInline } from './common/markdown.js';

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
    for (const r of b.rows) for (const k of cols) n[verdictKind(r[k])] += 1;
  }
  return n;
}

/**
 * The kind of a verdict cell by its leading words: 'not_reproduced', 'direction', 'reproduced' or 'other'.
 * @param {string} cell
 */
export function verdictKind(cell) {
  const v = cell.replace(/[*`]/g, '').trim().toLowerCase();
  if (v.startsWith('not reproduced')) return 'not_reproduced';
  if (v.startsWith('direction')) return 'direction';
  if (v.startsWith('reproduced')) return 'reproduced';
  return 'other';
}

/** Column headers that name a row (the row's key) rather than a measured value. */
const KEY_COLUMN = /^(paper figure|predictor|policy|arm or comparison|arm|estimator|comparison|pair|c|ρ|realisations|horizon|start|scheduler|experiment|reported|users|A|refresh|q)$/i;

/**
 * The claims of a parsed table: one per row whose verdict cell says something (not empty, "—" or
 * "baseline"): `{ key: [header, cell][], paper: [header, cell][], ours: [header, cell][], verdict, kind }`.
 * `key` are the leading columns that name the row (at most 4), `paper` the columns of the paper's numbers
 * (header mentions "paper", not "paper figure"), `ours` the other columns. Empty for a table without a verdict column.
 * @param {{ header: string[], rows: string[][] }} table
 */
export function claimsOf(table) {
  const vcol = table.header.findIndex((c) => /verdict/i.test(c));
  if (vcol < 0) return [];
  let nKey = 0;
  while (nKey < Math.min(4, table.header.length) && KEY_COLUMN.test(table.header[nKey].trim())) nKey += 1;
  nKey = Math.max(1, nKey);
  const isPaper = (c) => /paper/i.test(c) && !/figure/i.test(c);
  return table.rows.filter((r) => {
    const v = (r[vcol] || '').replace(/[*`]/g, '').trim().toLowerCase();
    return v && v !== '—' && v !== '-' && v !== 'baseline';
  }).map((r) => {
    const pick = (f) => table.header.map((c, k) => [c, r[k] ?? '', k]).filter(([c, , k]) => f(c, k)).map(([c, v]) => [c, v]);
    return {
      key: pick((c, k) => k < nKey),
      paper: pick((c, k) => k >= nKey && k !== vcol && isPaper(c)),
      ours: pick((c, k) => k >= nKey && k !== vcol && !isPaper(c)),
      verdict: r[vcol],
      kind: verdictKind(r[vcol]),
    };
  });
}

/** The experiment ids (E0.1, E3.2, …) a text names. */
export const experimentIds = (text) => [...new Set(String(text).match(/E\d+\.\d+/g) || [])];

const url = (file) => new URL(`../${file}`, import.meta.url);

/** What a links.json link must look like: the playground page with a share link in its fragment, nothing else. */
export const EVIDENCE_HREF = /^\.\/#s=v[0-9]+\.d[0-9]+\.[A-Za-z0-9_-]+$/;

/**
 * The rows of a paper's links.json, checked: each { experiment, arm, note, href } with strings only and `href`
 * null when the run has no link or its link is not of the form {@link EVIDENCE_HREF}, else the link with
 * `&run=ask` and, when the row records the stored run's native seconds, `&est=<seconds>`. Throws on a file that is
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
      experiment: text(r.experiment), arm: text(r.arm), note: text(r.note),
      // the playground opens the run without computing it and states its cost (the stored native seconds) first
      href: ok ? `${r.link}&run=ask${Number.isFinite(r.seconds) && r.seconds > 0 ? `&est=${r.seconds}` : ''}` : null,
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
      h('td', {}, r.href ? h('a', { href: r.href, class: 'evidence-link' }, 'open') : (r.invalid ? 'invalid link in links.json' : '—'))))));
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
    const rows = evidenceRows(await resp.json());
    setChildren(box, evidenceTable(p, rows));
    box.dataset.state = 'done';
    return rows;
  } catch (e) {
    setChildren(box, h('p', { class: 'fine' }, `The links to the evidence could not be loaded (${errorText(e)}).`));
    box.dataset.state = 'error';
    return [];
  }
}

/** A paper's stored Markdown files as parsed blocks, each file's blocks after a `{ kind: 'file' }` marker. */
async function readPaper(p) {
  const blocks = [];
  for (const f of p.files) {
    const resp = await fetch(url(f));
    if (!resp.ok) throw new Error(`${f}: HTTP ${resp.status}`);
    blocks.push({ kind: 'file', file: f }, ...parseMarkdown(await resp.text()));
  }
  return blocks;
}

/** The short title of an experiment's lead paragraph: its text up to " — " or the first sentence, marks dropped. */
function sectionTitle(text) {
  const plain = text.replace(/\*\*|`/g, '');
  const cut = plain.split(/; |\. |: (?=[a-z])/)[0];
  return cut.length > 100 ? `${cut.slice(0, 97)}…` : cut;
}

/** The value words of a text: lower case, split at spaces and , ; = : · ( ), without `--flags`, "Fig. N" and filler words. */
function valueWords(text) {
  const words = String(text).toLowerCase().replace(/[*`]/g, '').split(/[\s,;=:·()]+/).filter(Boolean);
  const out = [];
  for (let i = 0; i < words.length; i++) {
    if (/^fig/.test(words[i])) { i += 1; continue; }
    if (words[i].startsWith('--') || ['the', 'for', 'of', 'and', 'vs', 'a', 'in', 'at', 'every', 'policy', 'policies', 'preset', 'arm', 'horizon', 'scenario'].includes(words[i])) continue;
    out.push(words[i]);
  }
  return out;
}

/**
 * The evidence row a claim links to: among the stored runs of the claim's experiment, one whose arm's value
 * words all occur in the claim's row or its section's lead (`context`) or whose row's value words all occur in the arm (the most shared words,
 * then the shortest arm); else the experiment's single "every arm/policy" run or its only run; else none. The
 * card's link names the run it opens, so a loose match shows.
 */
export function evidenceFor(ids, claim, evidence, context = '') {
  const runs = evidence.filter((r) => r.href && experimentIds(r.experiment).some((e) => ids.includes(e)));
  if (!runs.length) return null;
  const row = valueWords(claim.key.map(([, v]) => v).join(' '));
  const key = new Set([...row, ...valueWords(context)]);
  const scored = runs.map((r) => {
    const arm = new Set(valueWords(r.arm));
    const shared = [...arm].filter((w) => key.has(w)).length;
    const ok = shared > 0 && (shared === arm.size || row.every((w) => arm.has(w)));
    return { r, shared, ok };
  }).filter((x) => x.ok).sort((a, b) => b.shared - a.shared || a.r.arm.length - b.r.arm.length);
  if (scored.length) return scored[0].r;
  const whole = runs.filter((r) => /every (arm|policy)/i.test(r.arm));
  return whole.length === 1 ? whole[0] : (runs.length === 1 ? runs[0] : null);
}

const KIND_LABEL = { reproduced: 'reproduced', direction: 'direction only', not_reproduced: 'not reproduced', other: 'note' };

/** Verdict text up to this many characters shows on the card; a longer one shows its first clause, the rest on demand. */
const VERDICT_SHOWN = 110;

/**
 * The head of a long verdict: its text up to the first clause boundary ('; ', '. ', ' — ', ' (') past 30
 * characters and within VERDICT_SHOWN, else cut at a word; the whole text when it is short. Pure.
 * @param {string} text
 */
export function verdictHead(text) {
  if (text.length <= VERDICT_SHOWN) return text;
  const re = /; |\. | — | \(/g;
  let m;
  while ((m = re.exec(text)) && m.index <= VERDICT_SHOWN) if (m.index >= 30) return text.slice(0, m.index);
  const cut = text.slice(0, VERDICT_SHOWN);
  return cut.slice(0, Math.max(30, cut.lastIndexOf(' ')));
}

/** The verdict of a card, first: the chip, then the verdict text (a long one folds after its first clause). */
function verdictLine(claim) {
  const chip = h('span', { class: 'verdict-chip' }, KIND_LABEL[claim.kind]);
  const head = verdictHead(claim.verdict);
  if (head === claim.verdict) return h('p', { class: 'claim-verdict' }, chip, ' ', renderInline(claim.verdict));
  return h('details', { class: 'claim-verdict' }, h('summary', {}, chip, ' ', renderInline(head), ' …'), h('p', {}, renderInline(claim.verdict)));
}

/** A claim as a card: the row, the paper's number, packlab's numbers, the verdict and a link to a stored run. */
function claimCard(claim, run) {
  const cells = (pairs) => pairs.map(([c, v]) => h('div', { class: 'claim-cell' }, h('span', { class: 'claim-head' }, renderInline(c)), ' ', h('span', {}, renderInline(v || '—'))));
  // the verdict first, then what it is about and the two numbers
  return h('article', { class: `claim-card verdict-${claim.kind}`, dataset: { verdict: claim.kind } },
    verdictLine(claim),
    h('p', { class: 'claim-title' }, claim.key.map(([, v], i) => [i ? ' · ' : '', h('strong', {}, renderInline(v))])),
    h('div', { class: 'claim-cols' },
      h('div', {}, h('p', { class: 'claim-label' }, 'The paper'), claim.paper.length ? cells(claim.paper) : h('p', { class: 'fine' }, 'no number stated')),
      h('div', {}, h('p', { class: 'claim-label' }, 'packlab'), cells(claim.ours.slice(0, 3)))),
    run ? h('p', { class: 'fine' }, h('a', { href: run.href, class: 'claim-link', title: run.note }, `Open the stored run “${run.experiment}: ${run.arm}”`), ' in the playground (it opens without computing and states its cost; press Run there).') : null);
}

/** Claim cards a section shows (one row of cards at 1366 px) before its tables' "more claims" folds. */
const CARDS_SHOWN = 3;
/** Rows of a table without claims shown unfolded. */
const ROWS_SHOWN = 4;

/** "3 reproduced, 1 direction only" of a list of claims. */
function kindCounts(claims) {
  const n = {};
  for (const c of claims) n[c.kind] = (n[c.kind] || 0) + 1;
  return Object.entries(n).map(([k, v]) => `${v} ${KIND_LABEL[k]}`).join(', ');
}

/**
 * The body of a paper's page from its blocks: one section per experiment (a paragraph naming E<k>.<n> at its
 * start opens one; each file opens one): its lead paragraph, the claim cards of its tables (the section's first
 * CARDS_SHOWN, the rest folded; the full table behind them folded), the first explanation unfolded before any card
 * (cards carry their own why) and the further ones folded in place, the section's first table without claims
 * (folded when longer than ROWS_SHOWN rows; later ones fold with the explanations). Returns { sections: [{ id, title }], nodes }.
 */
function paperBody(p, blocks, evidence) {
  const sections = [];
  const nodes = [];
  let cur = null;
  let more = null; // the section's open fold of further explanations (null once something shows after it)
  let explained = false; // the section shows one explanation unfolded
  let shown = 0; // claim cards the section shows unfolded
  let tabled = false; // the section shows one table without claims unfolded
  let ids = [];
  let lead = '';
  // consecutive further explanations fold together, in their place (the page keeps the files' order)
  // consecutive folds (details) share one row of summaries; an open one takes the row's width
  let row = null;
  const place = (node) => {
    if (node.tagName !== 'DETAILS') { row = null; cur.append(node); return; }
    if (!row) { row = h('div', { class: 'folds' }); cur.append(row); }
    row.append(node);
  };
  const fold = (node) => {
    if (!more) {
      more = h('details', { class: 'section-more' }, h('summary', {}, 'More explanation'));
      place(more);
    }
    more.append(node);
  };
  const show = (node) => { place(node); more = null; };
  const open = (title, lead) => {
    const id = `paper-${p.id}-s${sections.length + 1}`;
    sections.push({ id, title });
    cur = h('section', { class: 'findings-section', id, 'aria-labelledby': `${id}-title` }, h('h3', { id: `${id}-title`, class: 'findings-section-title' }, title));
    if (lead) cur.append(lead);
    more = null;
    row = null;
    explained = false;
    shown = 0;
    tabled = false;
    nodes.push(cur);
  };
  for (const b of blocks) {
    if (b.kind === 'file') {
      open(b.file, h('p', { class: 'fine' }, 'From ', h('code', {}, b.file), '.'));
      ids = [];
      lead = '';
      continue;
    }
    if (b.kind === 'paragraph' && /^(\*\*)?E\d+\.\d+/.test(b.text)) {
      open(sectionTitle(b.text), renderBlock(b));
      ids = experimentIds(b.text.split(/ — /)[0]);
      lead = b.text.split(/ — /)[0];
      continue;
    }
    if (b.kind === 'table') {
      const claims = claimsOf(b);
      const cards = claims.map((c) => claimCard(c, evidenceFor(ids, c, evidence, lead)));
      if (claims.length) {
        const n = Math.max(0, Math.min(cards.length, CARDS_SHOWN - shown));
        shown += n;
        if (n) show(h('div', { class: 'claim-cards' }, cards.slice(0, n)));
        if (cards.length > n) {
          show(h('details', { class: 'more-claims' }, h('summary', {}, `${n ? `${cards.length - n} more claims` : `${cards.length} claims`} (${kindCounts(claims.slice(n))})`),
            h('div', { class: 'claim-cards' }, cards.slice(n))));
        }
        show(h('details', { class: 'full-table' }, h('summary', {}, `The full table (${b.rows.length} rows, every column)`),
          renderBlock(b, { tableClass: 'results findings' })));
      } else if (tabled) fold(renderBlock(b, { tableClass: 'results findings' }));
      else if (b.rows.length > ROWS_SHOWN) {
        show(h('details', { class: 'full-table' }, h('summary', {}, `A table of ${b.rows.length} rows (${b.header.slice(0, 3).join(', ')}${b.header.length > 3 ? ', …' : ''})`),
          renderBlock(b, { tableClass: 'results findings' })));
      } else {
        tabled = true;
        show(renderBlock(b, { tableClass: 'results findings' }));
      }
      continue;
    }
    if (b.kind === 'paragraph' && !explained && shown === 0) { // claim cards carry their own why
      explained = true;
      show(renderBlock(b, { headingBase: 4 }));
      continue;
    }
    fold(renderBlock(b, { headingBase: 4 }));
  }
  return { sections, nodes };
}

async function loadEngineLinks() {
  try {
    const { wasm } = await loadEngine();
    $('#engine-version').textContent = `engine ${wasm.engine_version()}`;
    return (model) => {
      try {
        return `./#s=${wasm.scenario_to_link({ ...wasm.default_scenario(), model })}`;
      } catch {
        return './';
      }
    };
  } catch (e) {
    // the tables do not need the engine; only the playground links do
    $('#engine-version').textContent = `engine not loaded (${errorText(e)})`;
    return () => './';
  }
}

/** Verdict counts of parsed blocks (the tables' verdict columns). */
function countBlocks(blocks) {
  const n = { reproduced: 0, direction: 0, not_reproduced: 0, other: 0 };
  for (const b of blocks) {
    if (b.kind !== 'table') continue;
    const cols = b.header.map((c, k) => (/verdict/i.test(c) ? k : -1)).filter((k) => k >= 0);
    for (const r of b.rows) for (const k of cols) n[verdictKind(r[k])] += 1;
  }
  return n;
}

function summaryText(counts) {
  const any = counts.reproduced + counts.direction + counts.not_reproduced;
  return any
    ? `Verdicts: ${counts.reproduced} reproduced, ${counts.direction} direction only, ${counts.not_reproduced} not reproduced`
    : 'No verdict column in these tables yet: they give the paper\'s numbers beside packlab\'s, and the text below them says what holds.';
}

/** One paper's page (findings.html?paper=<id>). */
async function paperPage(p, root, link) {
  document.title = `packlab · findings of seed ${p.id}: ${p.title}`;
  const body = h('div', { class: 'findings-body' }, h('p', { class: 'fine' }, 'Loading…'));
  const summary = h('p', { class: 'findings-summary' });
  const toc = h('nav', { class: 'findings-toc', 'aria-label': 'experiments' });
  const evidence = h('div', { class: 'findings-evidence', id: `paper-${p.id}-evidence-box`, dataset: { state: 'loading' } });
  const sec = h('section', { class: 'card', id: `paper-${p.id}`, 'aria-labelledby': `paper-${p.id}-title`, dataset: { state: 'loading', paper: p.id, model: p.model } },
    h('p', { class: 'fine' }, h('a', { href: './findings.html' }, '← All papers')),
    h('h2', { id: `paper-${p.id}-title` }, `Seed ${p.id}: ${p.title}`),
    h('p', { class: 'fine' }, 'Regenerate with ', h('code', {}, p.command), ' (after ', h('code', {}, 'make native'), '); read from ',
      p.files.map((f, i) => [i ? ', ' : '', h('code', {}, f)]), ' as committed. ',
      h('a', { href: link(p.model), class: 'open-model', id: `paper-${p.id}-open` }, `Open the ${p.model} model in the playground`),
      ' (its default scenario). Each claim card gives the row of a findings table: the paper\'s number, packlab\'s, the verdict, and a stored run to open.'),
    summary, toc, body, evidence);
  setChildren(root, sec);
  const evidenceRowsP = loadEvidence(p, evidence);
  try {
    const blocks = await readPaper(p);
    const counts = countBlocks(blocks);
    const { sections, nodes } = paperBody(p, blocks, await evidenceRowsP);
    setChildren(body, nodes);
    setChildren(toc, h('p', { class: 'claim-label' }, 'Contents'), h('ol', {}, sections.map((s) => h('li', {}, h('a', { href: `#${s.id}` }, s.title))),
      h('li', {}, h('a', { href: `#paper-${p.id}-evidence-box` }, 'Open the evidence (every stored run)'))));
    setChildren(summary, summaryText(counts));
    Object.assign(sec.dataset, { state: 'done', reproduced: String(counts.reproduced), direction: String(counts.direction), notReproduced: String(counts.not_reproduced) });
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  } catch (e) {
    setChildren(body, h('p', { class: 'fine' }, `The stored findings could not be loaded (${errorText(e)}); they are served beside the site (make run serves results/ at /results/).`));
    sec.dataset.state = 'error';
  }
}

/** The list of papers (findings.html): each with its verdict counts and a link to its page. */
async function indexPage(root, link) {
  const cards = PAPERS.map((p) => {
    const summary = h('p', { class: 'findings-summary' }, 'Loading…');
    const card = h('section', { class: 'card paper-card', id: `paper-${p.id}`, 'aria-labelledby': `paper-${p.id}-title`, dataset: { state: 'loading', paper: p.id, model: p.model } },
      h('h2', { id: `paper-${p.id}-title` }, h('a', { href: `./findings.html?paper=${p.id}`, class: 'paper-page' }, `Seed ${p.id}: ${p.title}`)),
      summary,
      h('p', { class: 'fine' }, h('a', { href: `./findings.html?paper=${p.id}` }, 'Read the claims'), ' · ',
        h('a', { href: link(p.model), class: 'open-model', id: `paper-${p.id}-open` }, `open the ${p.model} model`)));
    readPaper(p).then((blocks) => {
      const counts = countBlocks(blocks);
      setChildren(summary, summaryText(counts));
      Object.assign(card.dataset, { state: 'done', reproduced: String(counts.reproduced), direction: String(counts.direction), notReproduced: String(counts.not_reproduced) });
    }).catch((e) => {
      setChildren(summary, `The stored findings could not be loaded (${errorText(e)}).`);
      card.dataset.state = 'error';
    });
    return card;
  });
  setChildren(root,
    h('section', { class: 'card' },
      h('h2', {}, 'What packlab reproduces'),
      h('p', {}, 'Each paper\'s experiments as packlab\'s findings scripts ran them on real traces: every arm beside the paper\'s number, including those that do not reproduce, with a verdict (reproduced, direction only, not reproduced) and the explanations the scripts compute. One page per paper:')),
    h('div', { class: 'paper-cards' }, cards));
}

async function main() {
  const root = $('#findings');
  const link = await loadEngineLinks();
  const id = new URLSearchParams(location.search).get('paper');
  const p = PAPERS.find((x) => x.id === id);
  if (p) await paperPage(p, root, link);
  else await indexPage(root, link);
}

main();
