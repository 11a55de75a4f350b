// The lesson panels (www/common/lesson.js, www/<id>/lesson.js): every tab has "What this tab is about" with a
// picture, the paper and a findings link, a glossary whose terms show their meaning on keyboard focus, and
// "Try this" steps whose claims hold (and the lifetime frontier's button states its cost): each step is clicked on its tab (from the default scenario, as a new
// user would) and must report that its own check held on the run it started. Saves a screenshot of every tab
// at 1366 px and 390 px (test-artifacts/tab-<id>-<width>.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, artifact } from './helpers.mjs';

const env = useBrowser();
const MODELS = ['placement', 'admission', 'oversub', 'lifetime', 'era'];
const CARD = { placement: '#frontier-card', admission: '#admission-card', oversub: '#oversub-card', lifetime: '#lifetime-card', era: '#era-card' };

async function openTab(page, id) {
  await page.goto(env.server.url);
  await page.waitForSelector('#tab-placement');
  if (id !== 'placement') await page.click(`#tab-${id}`);
  await page.waitForSelector(`#lesson-${id}`);
  await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD[id], { timeout: 180_000 });
}

for (const id of MODELS) {
  test(`the ${id} tab explains its problem and every "try this" step's claim holds`, async () => {
    const page = await newPage(env.browser, { width: 1366, height: 900 });
    await openTab(page, id);
    const lesson = page.locator(`#lesson-${id}`);
    assert.equal(await lesson.locator('svg[role="img"]').count(), 1, 'one picture');
    const href = await page.getAttribute(`#lesson-${id}-findings`, 'href');
    assert.match(href, /^\.\/findings\.html\?paper=00[0-4]$/);
    // a glossary term shows its meaning on keyboard focus, and hides it on Escape
    const term = lesson.locator('.lesson-terms .gloss').first();
    const tip = page.locator(`#${await term.getAttribute('aria-describedby')}`);
    assert.equal(await tip.isVisible(), false);
    await term.focus();
    assert.equal(await tip.isVisible(), true, 'focus shows the term\'s meaning');
    assert.ok((await tip.textContent()).length > 20);
    await page.keyboard.press('Escape');
    assert.equal(await tip.isVisible(), false);
    await page.screenshot({ path: artifact(`tab-${id}-1366.png`), fullPage: false });
    if (id === 'lifetime') {
      // the accuracy frontier's button states its cost before it is pressed: 6 runs (the view's run is the oracle's) × the last run's time
      const ms = Number(await page.getAttribute('#lifetime-card', 'data-ms'));
      const note = await page.textContent('#lifetime-accuracy-run-cost');
      assert.match(note, /^6 runs of this scenario, about [0-9.]+ (s|min) \(its last run took [0-9.]+ s\)\.$/);
      assert.ok(ms > 0);
    }
    const steps = await lesson.locator('.lesson-step').count();
    assert.ok(steps >= 2 && steps <= 4, `${steps} steps`);
    for (let i = 1; i <= steps; i++) {
      const step = page.locator(`#lesson-${id}-step-${i}`);
      await step.locator('button.lesson-try').click();
      await page.waitForFunction((sel) => ['holds', 'fails'].includes(document.querySelector(sel).dataset.check), `#lesson-${id}-step-${i}`, { timeout: 240_000 });
      const detail = await step.getAttribute('data-detail');
      assert.equal(await step.getAttribute('data-check'), 'holds', `${id} step ${i}: ${detail}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
}

test('at 390 px the lesson and the controls start folded, so each tab shows its chart first; a button unfolds the controls (screenshots)', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844 });
  await page.goto(env.server.url);
  for (const id of MODELS) {
    await page.click(`#tab-${id}`);
    await page.waitForSelector(`#lesson-${id}`);
    assert.equal(await page.getAttribute(`#lesson-${id}`, 'open'), null, `${id}: folded`);
    await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD[id], { timeout: 180_000 });
    await page.screenshot({ path: artifact(`tab-${id}-390.png`), fullPage: false });
    // the controls start folded under one button, which unfolds them
    const toggle = `#controls-toggle-${id}`;
    assert.equal(await page.getAttribute(toggle, 'aria-expanded'), 'false');
    const field = `#view-${id} .sidebar [id^="f-${id}-"]`;
    assert.equal(await page.locator(field).first().isVisible(), false, `${id}: controls folded`);
    await page.click(toggle);
    assert.equal(await page.getAttribute(toggle, 'aria-expanded'), 'true');
    assert.equal(await page.locator(field).first().isVisible(), true, `${id}: controls shown`);
  }
  await page.context().close();
});

test('the cost of a long run: runs × the last run, in words', async () => {
  const { costText } = await import('../../www/common/cost.js');
  assert.equal(costText(6, 1100), '6 runs of this scenario, about 6.6 s (its last run took 1.1 s).');
  assert.equal(costText(7, 15_000), '7 runs of this scenario, about 105 s (its last run took 15 s).');
  assert.equal(costText(7, 60_000), '7 runs of this scenario, about 7 min (its last run took 60 s).');
  assert.equal(costText(7, NaN), '7 runs of this scenario (the time shows once the scenario has run).');
});
