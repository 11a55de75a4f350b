// End to end in real Chromium: the placement view's policy code box (issue 31, docs/policies.md). A starter is
// picked, broken (the engine's error at line:column under the box, nothing runs), fixed and run; its point is
// in the table in the script colour with the numbers of the native CLI on the same link, bit for bit (the GPA
// starter and the idea not in the papers, so wasm = native for both); the script travels in the link and
// stays across tab switches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, waitForRun, waitForSettledRun, readTable, tableOf, cliRun } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();
const BOX = '#f-placement-scripts-0-source';

test('code box: starter, error at line:column, fix, run in its colour = native, link and tab round trip', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  let n = await waitForRun(page);
  assert.equal(await page.inputValue(BOX), '', 'no script by default');

  // the GPA starter: a point script:gpa with exactly the built-in gpa:0.05's m and q
  await page.selectOption('#script-starter', 'gpa');
  n = await waitForSettledRun(page, n);
  let rows = await readTable(page);
  const mine = rows.find((r) => r.spec === 'script:gpa');
  const builtin = rows.find((r) => r.spec === 'gpa:0.05');
  assert.ok(mine && builtin, JSON.stringify(rows.map((r) => r.spec)));
  assert.deepEqual([mine.m, mine.q, mine.m_abs], [builtin.m, builtin.q, builtin.m_abs]);
  assert.equal(await page.getAttribute('#frontier-rows tr[data-spec="script:gpa"] .swatch', 'class'), 'swatch fam-script');
  const colour = await page.$eval('#frontier-rows tr[data-spec="script:gpa"] .swatch', (e) => getComputedStyle(e).backgroundColor);
  assert.equal(colour, 'rgb(213, 94, 0)');
  // wasm = native: the CLI on the page's link gives the same table, string for string
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url() })));

  // a syntax error: shown under the box at its line and column; the run on display stays, nothing runs
  const good = await page.inputValue(BOX);
  const broken = good.replace('let m = mu + mu_k;', 'let m = mu + ;');
  assert.notEqual(broken, good);
  await page.fill(BOX, broken);
  await page.waitForFunction((s) => document.querySelector(`${s}-error`).textContent !== '', BOX);
  assert.match(await page.textContent(`${BOX}-error`), /^line 6, column \d+: /);
  assert.equal(await page.getAttribute(BOX, 'aria-invalid'), 'true');
  assert.equal(await page.getAttribute('#frontier-card', 'data-state'), 'invalid');
  assert.equal(Number(await page.getAttribute('#frontier-card', 'data-runs')), n);
  assert.ok((await readTable(page)).some((r) => r.spec === 'script:gpa'), 'the results on display stay');

  // fixed: it runs again
  await page.fill(BOX, good);
  await page.waitForFunction((s) => document.querySelector(`${s}-error`).textContent === '', BOX);

  // the idea not in the papers (Cantelli on the machine's total): wasm = native too
  await page.selectOption('#script-starter', 'cantelli-total');
  n = await waitForSettledRun(page, n);
  rows = await readTable(page);
  assert.ok(rows.some((r) => r.spec === 'script:cantelli-total'), JSON.stringify(rows.map((r) => r.spec)));
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url() })));

  // the link carries the script (versioned), and opening it shows it in the box with the same table
  const url = page.url();
  const w = await loadWasm();
  const s = w.scenario_from_link(url).placement.scripts;
  assert.equal(s.length, 1);
  assert.equal(s[0].name, 'cantelli-total');
  assert.equal(s[0].language, 'rhai-1');
  const source = await page.inputValue(BOX);
  assert.equal(s[0].source, source);

  // across a tab switch the box keeps its text
  await page.click('#tab-admission');
  await page.click('#tab-placement');
  assert.equal(await page.inputValue(BOX), source);

  const again = await newPage(env.browser);
  await again.goto(url);
  await waitForRun(again);
  assert.equal(await again.inputValue(BOX), source);
  assert.deepEqual(await readTable(again), rows);
  assert.deepEqual(page.problems, []);
  assert.deepEqual(again.problems, []);
  await again.context().close();
  await page.context().close();
});
