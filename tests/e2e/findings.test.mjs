// End to end in real Chromium: the Findings pages (www/findings.html, ?paper=<id>) show every paper's stored tables
// (results/<paper>/…md) cell for cell with a claim card per verdict row and a contents list, counts the verdicts as an independent count of the files does, and its
// links open each paper's model in the playground; "Open the evidence" lists every row of
// results/<paper>/links.json with its link, and one link per paper opens the playground on that run's scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, useBrowser, newPage, recordMetrics } from './helpers.mjs';

const env = useBrowser();

const PAPERS = [
  ['000', 'admission', ['results/000/tables.md']],
  ['001', 'oversub', ['results/001/tables.md']],
  ['002', 'placement', ['results/002/tables.md']],
  ['003', 'lifetime', ['results/003/tables.md', 'results/003/synthetic.md', 'results/003/accuracy-frontier/frontier.md']],
  ['004', 'era', ['results/004/tables.md']],
];

/** Tables of a Markdown file, read here without the page's reader: a row with pipes followed by a delimiter row. */
function tablesOf(text) {
  const lines = text.split('\n');
  const cells = (l) => l.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((c) => c.trim());
  const out = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].includes('|') || !/^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(lines[i + 1])) continue;
    const header = cells(lines[i]);
    const rows = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].trim() && lines[j].includes('|'); j++) rows.push(cells(lines[j]));
    out.push({ header, rows });
    i = j - 1;
  }
  return out;
}

function verdicts(files) {
  const n = { reproduced: 0, direction: 0, not: 0 };
  for (const f of files) {
    for (const t of tablesOf(readFileSync(path.join(ROOT, f), 'utf8'))) {
      const cols = t.header.map((c, k) => (/verdict/i.test(c) ? k : -1)).filter((k) => k >= 0);
      for (const r of t.rows) {
        for (const k of cols) {
          const v = (r[k] || '').replace(/[*`]/g, '').trim().toLowerCase();
          if (v.startsWith('not reproduced')) n.not += 1;
          else if (v.startsWith('direction')) n.direction += 1;
          else if (v.startsWith('reproduced')) n.reproduced += 1;
        }
      }
    }
  }
  return n;
}

test('the Findings page states the playground\'s Content-Security-Policy and has no inline script or style', () => {
  const csp = (f) => (readFileSync(path.join(ROOT, f), 'utf8').match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/) || [])[1];
  assert.ok(csp('www/findings.html'));
  assert.equal(csp('www/findings.html'), csp('www/index.html'));
  const html = readFileSync(path.join(ROOT, 'www/findings.html'), 'utf8');
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
  assert.doesNotMatch(html, /\son[a-z]+=|\sstyle=/i);
});

/** Rows with a verdict that says something (not empty, "—" or "baseline"): one claim card each. */
function claimRows(files) {
  let n = 0;
  for (const f of files) {
    for (const t of tablesOf(readFileSync(path.join(ROOT, f), 'utf8'))) {
      const k = t.header.findIndex((c) => /verdict/i.test(c));
      if (k < 0) continue;
      n += t.rows.filter((r) => { const v = (r[k] || '').replace(/[*`]/g, '').trim().toLowerCase(); return v && v !== '—' && v !== '-' && v !== 'baseline'; }).length;
    }
  }
  return n;
}

test('the Findings pages: a list of papers with their verdict counts, and per paper its tables, claim cards and contents', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  await page.click('#findings-link');
  await page.waitForFunction(() => document.querySelectorAll('#findings section[data-state="done"]').length === 5, null, { timeout: 60_000 });
  for (const [id, model, files] of PAPERS) {
    const v = verdicts(files);
    const ds = await page.$eval(`#paper-${id}`, (s) => ({ ...s.dataset }));
    assert.deepEqual([ds.reproduced, ds.direction, ds.notReproduced], [v.reproduced, v.direction, v.not].map(String), `seed ${id}: verdict counts on the list`);
    assert.equal(ds.model, model);
    assert.equal(await page.getAttribute(`#paper-${id} a.paper-page`, 'href'), `./findings.html?paper=${id}`);
  }
  for (const [id, model, files] of PAPERS) {
    await page.goto(`${env.server.url}findings.html?paper=${id}`);
    const sec = `#paper-${id}`;
    await page.waitForFunction((s) => document.querySelector(s)?.dataset.state === 'done', sec, { timeout: 60_000 });
    // every table, cell for cell (text as rendered: inline marks dropped)
    const want = files.flatMap((f) => tablesOf(readFileSync(path.join(ROOT, f), 'utf8')));
    const got = await page.$$eval(`${sec} .findings-body table`, (ts) => ts.map((t) => ({
      header: [...t.querySelectorAll('thead th')].map((c) => c.textContent.trim()),
      rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent.trim())),
    })));
    assert.equal(got.length, want.length, `seed ${id}: number of tables`);
    const plain = (c) => c.replace(/\\\|/g, '|').replace(/\*\*/g, '').replace(/`/g, '');
    got.forEach((t, k) => {
      assert.deepEqual(t.header, want[k].header.map(plain), `seed ${id} table ${k} header`);
      assert.deepEqual(t.rows, want[k].rows.map((r) => want[k].header.map((_, c) => plain(r[c] ?? ''))), `seed ${id} table ${k} rows`);
    });
    const v = verdicts(files);
    const ds = await page.$eval(sec, (s) => ({ ...s.dataset }));
    assert.deepEqual([ds.reproduced, ds.direction, ds.notReproduced], [v.reproduced, v.direction, v.not].map(String), `seed ${id}: verdict counts`);
    assert.equal(ds.model, model);
    if (v.reproduced + v.direction + v.not === 0) assert.match(await page.textContent(`${sec} .findings-summary`), /No verdict column/);
    else assert.match(await page.textContent(`${sec} .findings-summary`), new RegExp(`^Verdicts: ${v.reproduced} reproduced`));
    // one claim card per row with a verdict; every contents entry points at a section of the page
    assert.equal(await page.locator(`${sec} .claim-card`).count(), claimRows(files), `seed ${id}: claim cards`);
    const toc = await page.$$eval(`${sec} .findings-toc a`, (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(toc.length >= 2, `seed ${id}: contents`);
    for (const href of toc) assert.equal(await page.locator(href).count(), 1, `seed ${id}: ${href}`);
    // claim links open without computing
    for (const href of await page.$$eval(`${sec} .claim-link`, (as) => as.map((a) => a.getAttribute('href')))) assert.match(href, /^\.\/#s=v\d+\.d\d+\.[A-Za-z0-9_-]+&run=ask(&est=[0-9.]+)?$/);
  }
  // each paper's page at 1366 px: its height, with the folds closed as it opens (issue 28: 4,653 to 14,890 px; aim ≤ 6,000)
  const heights = {};
  const wide = await newPage(env.browser, { width: 1366, height: 900 });
  for (const [id] of PAPERS) {
    await wide.goto(`${env.server.url}findings.html?paper=${id}`);
    await wide.waitForFunction((s) => document.querySelector(s)?.dataset.state === 'done', `#paper-${id}`, { timeout: 60_000 });
    heights[id] = await wide.evaluate(() => document.documentElement.scrollHeight);
  }
  recordMetrics({ findings_page_height_px_1366: heights });
  await wide.context().close();
  // the link opens the paper's model in the playground
  await page.goto(`${env.server.url}findings.html?paper=003`);
  await page.click('#paper-003-open');
  await page.waitForSelector('#lifetime-card');
  assert.equal(await page.getAttribute('#tab-lifetime', 'aria-current'), 'page');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

const linksOf = (id) => JSON.parse(readFileSync(path.join(ROOT, `results/${id}/links.json`), 'utf8'));

/** The value of `--name` in a stored command line. */
const flagOf = (command, name) => {
  const w = command.split(/\s+/);
  const i = w.indexOf(name);
  return i >= 0 ? w[i + 1] : undefined;
};

// per paper: which links.json row to open, and the controls it must set, from the row's stored command
const OPEN = {
  '000': { pick: (r) => flagOf(r.command, '--preset') === 'E0.4', controls: (r) => ({
    '#f-admission-preset': 'E0.4', '#f-admission-runs': flagOf(r.command, '--runs'),
    '#f-admission-params-capacity': flagOf(r.command, '--capacity'), '#f-admission-params-arrival_rate': flagOf(r.command, '--arrival-rate'),
    '#f-admission-seed': flagOf(r.command, '--seed') }) },
  '001': { pick: (r) => /scenario-E1\.2(-[0-9a-f]{8})?\.json$/.test(r.command), controls: (r) => {
    const sc = JSON.parse(readFileSync(path.join(ROOT, r.command.split(/\s+/).pop()), 'utf8'));
    return { '#f-oversub-preset': sc.oversub.preset, '#f-oversub-eval_episodes': String(sc.oversub.eval_episodes), '#f-oversub-seed': String(sc.seed) };
  } },
  '002': { pick: (r) => r.link !== null && flagOf(r.command, '--capacity') === '1', controls: (r) => ({
    '#f-placement-capacity': flagOf(r.command, '--capacity'), '#f-placement-fit': flagOf(r.command, '--fit'), '#f-placement-seed': flagOf(r.command, '--seed') }) },
  '003': { pick: (r) => flagOf(r.command, '--refresh-s') === '0', controls: (r) => ({
    '#f-lifetime-predictor': flagOf(r.command, '--predictor').split(':')[0], '#f-lifetime-accuracy': flagOf(r.command, '--predictor').split(':')[1],
    '#f-lifetime-refresh_s': flagOf(r.command, '--refresh-s'), '#f-lifetime-seed': flagOf(r.command, '--seed') }) },
  '004': { pick: (r) => flagOf(r.command, '--capacity-frac') !== undefined, controls: (r) => ({
    '#f-era-preset': flagOf(r.command, '--preset'), '#f-era-capacity_frac': flagOf(r.command, '--capacity-frac'), '#f-era-seed': flagOf(r.command, '--seed') }) },
};

test('"Open the evidence" lists every links.json row with its link, and one link per paper opens its scenario', async () => {
  const page = await newPage(env.browser);
  for (const [id, model] of PAPERS) {
    await page.goto(`${env.server.url}findings.html?paper=${id}`);
    await page.waitForFunction((id) => document.querySelector(`#paper-${id}-evidence-box`)?.dataset.state === 'done', id, { timeout: 60_000 });
    const want = linksOf(id);
    const got = await page.$$eval(`#paper-${id}-evidence tbody tr`, (trs) => trs.map((tr) => ({
      cells: [...tr.children].slice(0, 3).map((c) => c.textContent),
      href: tr.querySelector('a') ? tr.querySelector('a').getAttribute('href') : null,
    })));
    assert.equal(got.length, want.length, `seed ${id}: rows`);
    got.forEach((g, k) => {
      assert.deepEqual(g.cells, [want[k].experiment, want[k].arm, want[k].note], `seed ${id} row ${k}`);
      const est = want[k].seconds > 0 ? `&est=${want[k].seconds}` : '';
      assert.equal(g.href, want[k].link ? `${want[k].link}&run=ask${est}` : null, `seed ${id} row ${k}: link (opens without computing, with the stored run's time)`);
    });
    // open one row's link: the playground on that model, its controls set as the stored command ran
    const k = want.findIndex(OPEN[id].pick);
    assert.ok(k >= 0 && want[k].link, `seed ${id}: a row to open`);
    await page.$eval(`#paper-${id}-evidence-box details`, (d) => { d.open = true; });
    await page.click(`#paper-${id}-evidence tbody tr:nth-child(${k + 1}) a`);
    await page.waitForSelector(model === 'placement' ? '#frontier-card' : `#${model}-card`, { timeout: 30_000 });
    assert.equal(await page.getAttribute(`#tab-${model}`, 'aria-current'), 'page', `seed ${id}`);
    assert.ok(page.url().endsWith(want[k].link.slice(1)), `seed ${id}: ${page.url()}`);
    for (const [sel, value] of Object.entries(OPEN[id].controls(want[k]))) {
      await page.waitForSelector(sel, { state: 'attached' });
      assert.equal(await page.inputValue(sel), value, `seed ${id}: ${sel}`);
    }
    // nothing is computed until the reader presses Run (a stored experiment can take minutes)
    const card = model === 'placement' ? '#frontier-card' : `#${model}-card`;
    const rerun = model === 'placement' ? '#rerun' : `#${model}-rerun`;
    await page.waitForFunction((c) => /not computed yet/.test(document.querySelector(c)?.textContent || ''), card, { timeout: 30_000 });
    assert.equal(await page.getAttribute(card, 'data-state'), 'idle', `seed ${id}: no run started`);
    assert.equal((await page.textContent(rerun)).trim(), 'Run', `seed ${id}`);
    // and its cost is stated beside Run before anything runs: the stored run's native time and the browser's range
    // (and, for the models whose runs are planned before Run, the units of work: E0.4's simulation runs)
    const costSel = model === 'placement' ? '#run-cost' : `#${model}-cost`;
    if (model !== 'oversub') await page.waitForFunction((c) => /: [0-9,]+ /.test(document.querySelector(c)?.textContent || ''), costSel, { timeout: 30_000 });
    const cost = (await page.textContent(costSel)).trim();
    const units = model === 'oversub' ? '' : `: ${model === 'admission' ? '[0-9,]+ simulation runs' : '[0-9,]+ [^,(]+'}`;
    if (want[k].seconds > 0) assert.match(cost, new RegExp(`^1 run of this scenario${units}, about [0-9.]+( (s|min))?(–[0-9.]+ (s|min))? in this browser \\(the stored run took [0-9.]+ (s|min) natively\\)\\.$`), `seed ${id}: ${cost}`);
    else assert.match(cost, new RegExp(`^1 run of this scenario${units} \\(the time shows once (it|the scenario) has run\\)\\.$`), `seed ${id}: ${cost}`);
    assert.equal(await page.getAttribute(card, 'data-state'), 'idle', `seed ${id}: sizing the run computed nothing`);
  }
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a claim card shows a long verdict\'s first clause and the whole verdict on demand', async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}findings.html`);
  const short = 'reproduced: LAVA +5.1 pp vs the paper\'s +5 to +9.5 pp';
  const long = 'not reproduced: NILAS gains 1.2 pp where the paper reports 4.5 pp; the pools here are smaller and the predictor noisier, which the E3.2 frontier shows';
  const words = `direction only: ${'word '.repeat(40)}end`;
  const [a, b, c] = await page.evaluate(async (texts) => {
    const m = await import('./findings.js');
    return texts.map(m.verdictHead);
  }, [short, long, words]);
  assert.equal(a, short);
  assert.equal(b, 'not reproduced: NILAS gains 1.2 pp where the paper reports 4.5 pp');
  // no clause boundary within the first 110 characters: cut at a word
  assert.ok(c.length <= 110 && words.startsWith(c) && words[c.length] === ' ', c);
  await page.context().close();
});

test('the Findings page shows only ./#s= links from a links.json, whatever the file holds', async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.server.url}findings.html`);
  const out = await page.evaluate(async () => {
    const m = await import('./findings.js');
    return m.evidenceRows([
      { experiment: 'a', arm: 'b', note: 'c', link: 'javascript:alert(1)' },
      { experiment: 'a', arm: 'b', note: 'c', link: 'https://example.com/#s=v2.d5.AAAA' },
      { experiment: 'a', arm: 'b', note: 'c', link: './#s=v2.d5.AA"><script>' },
      { experiment: 'a', arm: 'b', note: 'c', link: './#s=v2.d5.AAAA' },
      { experiment: 'a', arm: 'b', note: 'c', link: './#s=v2.d5.AAAA', seconds: 12.5 },
      { experiment: 'a', arm: 'b', note: 'c', link: './#s=v2.d5.AAAA', seconds: '12&run=now' },
      { experiment: 'a', arm: 'b', note: 'no link: why', link: null },
    ]).map((r) => [r.href, r.invalid]);
  });
  assert.deepEqual(out, [[null, true], [null, true], [null, true], ['./#s=v2.d5.AAAA&run=ask', false], ['./#s=v2.d5.AAAA&run=ask&est=12.5', false],
    ['./#s=v2.d5.AAAA&run=ask', false], [null, false]]);
  await page.context().close();
});
