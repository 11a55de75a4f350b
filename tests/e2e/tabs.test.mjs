// One page: a tab switch never reloads the page, each tab keeps its scenario and results, the address bar
// shows the visible tab's scenario, and Back/Forward switch tabs. A tab opened here only to be looked at has its
// default run cancelled at once (its Cancel button): the default views run to their end once per suite, in the tab
// tour (teaching.test.mjs; issue 30).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, waitForRun } from './helpers.mjs';

const env = useBrowser();
const MODELS = ['placement', 'admission', 'oversub', 'lifetime', 'era'];
const active = (page) => page.getAttribute('.tab.active', 'id');

test('switching tabs keeps the page, the edits and the results; the URL follows the visible tab', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  await waitForRun(page);
  await page.evaluate(() => { window.__samePage = true; });
  const capacity = page.getByLabel('machine capacity, in VM units');
  await capacity.fill('8');
  await waitForRun(page, 1);
  const placementUrl = page.url();
  const rows = await page.$$eval('#frontier-rows tr', (trs) => trs.map((r) => r.dataset.q));
  assert.ok(rows.length > 0);

  await page.click('#tab-admission');
  await page.waitForSelector('#admission-card');
  await page.click('#admission-cancel');
  await page.waitForFunction(() => document.querySelector('#admission-card').dataset.state === 'cancelled');
  assert.notEqual(page.url(), placementUrl, 'the address bar shows the admission scenario');
  assert.match(page.url(), /#s=v2\.d\d+\./);
  assert.equal(await page.isVisible('#frontier-card'), false, 'the placement view is hidden');

  await page.click('#tab-placement');
  assert.equal(await active(page), 'tab-placement');
  assert.equal(await capacity.inputValue(), '8', 'the edit survives the visit to another tab');
  assert.equal(page.url(), placementUrl, 'the address bar shows the kept placement scenario');
  assert.deepEqual(await page.$$eval('#frontier-rows tr', (trs) => trs.map((r) => r.dataset.q)), rows, 'results kept');
  assert.equal(await page.evaluate(() => window.__samePage), true, 'no reload');

  // Back: admission; Back again: placement; Forward: admission — all without a reload
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.tab.active')?.id === 'tab-admission');
  assert.equal(await page.isVisible('#admission-card'), true);
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.tab.active')?.id === 'tab-placement');
  assert.equal(page.url(), placementUrl);
  await page.goForward();
  await page.waitForFunction(() => document.querySelector('.tab.active')?.id === 'tab-admission');
  assert.equal(await page.evaluate(() => window.__samePage), true, 'no reload');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('with every tab mounted, no element id is used twice and the visible tab owns the address bar', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  await page.waitForSelector('#frontier-card');
  for (const id of MODELS.slice(1)) {
    await page.click(`#tab-${id}`);
    await page.waitForSelector(`#view-${id}`);
    await page.click(`#${id}-cancel`);
  }
  const dups = await page.evaluate(() => {
    const n = {};
    document.querySelectorAll('[id]').forEach((e) => { n[e.id] = (n[e.id] || 0) + 1; });
    return Object.entries(n).filter(([, k]) => k > 1).map(([id]) => id);
  });
  assert.deepEqual(dups, []);
  // the placement run that ends while the era tab is visible does not take the address bar
  const eraUrl = page.url();
  await page.waitForTimeout(1500);
  assert.equal(page.url(), eraUrl);
  assert.equal(await active(page), 'tab-era');
  await page.context().close();
});
