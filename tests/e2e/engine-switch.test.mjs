// End to end in real Chromium: the page's two engine modules (issue 30, www/common/engine.js). The placement tab
// starts on the first module (placement without the other models and the script language) and fetches nothing
// else; another model's tab, a script in placement's code box or a link that needs either moves the page to the
// full module. What the user had survives the move (the uploaded trace, the edited fields, the results on
// display), a run in progress when it comes finishes (the shell's worker moves after it, EngineWorker.useModule),
// and the runs after it equal the CLI's. The findings page takes the first module only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  useBrowser, newPage, waitForRun, waitForSettledRun, runCount, readTable, tableOf, cliRun, zipFolder, tempDir,
  lifetimeTable, lifetimeTableOf, FIXTURES,
} from './helpers.mjs';

const env = useBrowser();
const TMP = tempDir('packlab-switch-');
const MINI = path.join(FIXTURES, 'planetlab-20110306-mini');
const BOX = '#f-placement-scripts-0-source';
const FIRST = '/pkg/packlab_first_bg.wasm';
const FULL = '/pkg/packlab_bg.wasm';

/** A new page that records the wasm modules it fetches (`page.modules`, in order). */
async function watched() {
  const page = await newPage(env.browser);
  page.modules = [];
  page.on('request', (r) => {
    const p = new URL(r.url()).pathname;
    if (p.startsWith('/pkg/') && p.endsWith('.wasm')) page.modules.push(p);
  });
  return page;
}

const engineOf = (page) => page.getAttribute('html', 'data-engine');
const onFull = (page) => page.waitForFunction(() => document.documentElement.dataset.engine === 'full', null, { timeout: 90_000 });

test('another tab moves the page to the full module; the upload, the fields, the results and a run in progress survive', async () => {
  const page = await watched();
  await page.goto(env.server.url);
  let n = await waitForRun(page);
  assert.deepEqual(page.modules, [FIRST], 'the placement tab takes the first module only');
  assert.equal(await engineOf(page), 'first');

  // what the user loads and edits before the move: an uploaded day, the capacity, a long resampled run
  const zip = zipFolder(MINI, path.join(TMP, 'mini.zip'));
  await page.setInputFiles('#trace-files', zip);
  n = await waitForRun(page, n);
  await page.fill('#f-placement-capacity', '3');
  await page.selectOption('#f-placement-mode', 'resampled');
  await page.fill('#f-placement-realisations', '100000');
  await page.waitForFunction(() => document.querySelector('#frontier-card').dataset.state === 'running', null, { timeout: 30_000 });
  // the tab is clicked in the same turn as the state is read: the run is in progress at the move
  const state = await page.evaluate(() => {
    const s = document.querySelector('#frontier-card').dataset.state;
    document.querySelector('#tab-lifetime').click();
    return s;
  });
  assert.equal(state, 'running', 'a placement run is in progress when the lifetime tab opens');

  // the lifetime view runs on the full module and equals the CLI
  await page.waitForFunction(() => document.querySelector('#lifetime-card')?.dataset.state === 'done', null, { timeout: 120_000 });
  assert.deepEqual(await lifetimeTable(page), lifetimeTableOf(cliRun({ link: page.url() }).results));
  await onFull(page);

  // back on placement: the run in progress finished (not cancelled), on the uploaded day, with the edited fields
  await page.click('#tab-placement');
  n = await waitForRun(page, n);
  assert.equal(await page.getAttribute('#frontier-card', 'data-state'), 'done');
  assert.equal(await page.textContent('#trace-name'), 'mini.zip');
  assert.equal(await page.inputValue('#f-placement-capacity'), '3');
  assert.equal(await page.inputValue('#f-placement-realisations'), '100000');
  const kept = await readTable(page);
  assert.deepEqual(kept, tableOf(cliRun({ link: page.url(), trace: zip })));

  // the next run is on the full module, still on the uploaded day (replayed into the new worker), = the CLI
  await page.fill('#f-placement-seed', '5');
  n = await waitForSettledRun(page, n);
  const rows = await readTable(page);
  assert.notDeepEqual(rows, kept, 'another seed, other numbers');
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url(), trace: zip })));
  assert.equal(await page.textContent('#trace-name'), 'mini.zip');
  assert.deepEqual(page.modules, [FIRST, FULL], 'each module fetched once');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('a script in placement\'s code box moves the page to the full module; its run equals the CLI; so does its link', async () => {
  const page = await watched();
  await page.goto(env.server.url);
  let n = await waitForRun(page);
  await page.fill('#f-placement-capacity', '3');
  n = await waitForSettledRun(page, n);
  assert.deepEqual(page.modules, [FIRST]);

  await page.selectOption('#placement-script-starter', 'gpa');
  n = await waitForSettledRun(page, n);
  assert.equal(await engineOf(page), 'full');
  assert.deepEqual(page.modules, [FIRST, FULL]);
  assert.equal(await page.textContent(`${BOX}-error`), '', 'no "not in this build" on the way');
  assert.equal(await page.inputValue('#f-placement-capacity'), '3');
  const rows = await readTable(page);
  assert.ok(rows.some((r) => r.spec === 'script:gpa'), JSON.stringify(rows.map((r) => r.spec)));
  assert.deepEqual(rows, tableOf(cliRun({ link: page.url() })));
  const url = page.url();
  assert.deepEqual(page.problems, []);
  await page.context().close();

  // the link with the script opens on the full module at once, with the same table
  const again = await watched();
  await again.goto(url);
  await waitForRun(again);
  assert.equal(await engineOf(again), 'full');
  assert.equal(await runCount(again), 1, 'one run, on the full module');
  assert.deepEqual(await readTable(again), rows);
  assert.deepEqual(again.problems, []);
  await again.context().close();
});

test('the findings page takes the first module only', async () => {
  const page = await watched();
  await page.goto(`${env.server.url}findings.html`);
  await page.waitForFunction(() => /^engine /.test(document.querySelector('#engine-version')?.textContent || ''));
  await page.waitForLoadState('networkidle');
  assert.deepEqual(page.modules, [FIRST]);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
