// Accessibility: axe-core (WCAG 2.x A and AA rules) finds no critical or serious violation on any model tab
// or on the Findings page, every page has one h1, and the upload drop zone opens the file picker on Enter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, ROOT } from './helpers.mjs';

const env = useBrowser();
const AXE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const MODELS = ['placement', 'admission', 'oversub', 'lifetime', 'era'];

/** A page in a context that lets the test inject axe-core (the site's CSP allows no inline script). */
async function axePage(width = 1366) {
  const context = await env.browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
  return context.newPage();
}

/** Critical and serious violations on the page as "rule: target (summary)" lines. */
async function violations(page) {
  await page.addScriptTag({ content: AXE });
  const res = await page.evaluate(async () => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }));
  return res.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) => v.nodes.map((n) => `${v.id} [${v.impact}]: ${n.target.join(' ')} (${n.failureSummary.split('\n').slice(1, 2).join('').trim()})`));
}

for (const id of MODELS) {
  test(`the ${id} tab has one h1 and no critical or serious axe-core violation`, async () => {
    const page = await axePage();
    await page.goto(env.server.url);
    await page.waitForSelector('#tab-placement');
    if (id !== 'placement') await page.click(`#tab-${id}`);
    await page.waitForSelector(`#tab-${id}.active`);
    await page.waitForFunction((m) => document.querySelector(`#view-${m}`)?.children.length > 0, id);
    const found = await violations(page);
    assert.deepEqual(found, []);
    assert.equal(await page.locator('h1').count(), 1, 'one h1 per page');
    await page.context().close();
  });
}

for (const q of ['', '?paper=000', '?paper=001', '?paper=002', '?paper=003', '?paper=004']) {
  test(`the Findings page${q ? ` ${q}` : ' (the list of papers)'} has one h1 and no critical or serious axe-core violation`, async () => {
    const page = await axePage();
    await page.goto(new URL(`findings.html${q}`, env.server.url).href);
    await page.waitForFunction(() => { const s = [...document.querySelectorAll('#findings section[data-state]')]; return s.length > 0 && s.every((x) => x.dataset.state === 'done'); }, null, { timeout: 30_000 });
    const found = await violations(page);
    assert.deepEqual(found, []);
    assert.equal(await page.locator('h1').count(), 1, 'one h1 per page');
    await page.context().close();
  });
}

test('the upload drop zone opens the file picker on Enter and on Space, its buttons only their own', async () => {
  const page = await axePage();
  await page.goto(env.server.url);
  await page.locator('#trace-drop').waitFor();
  // record which file input is asked to open its picker (a headless browser shows no dialog to wait for)
  await page.evaluate(() => {
    window.__picked = [];
    HTMLInputElement.prototype.click = function click() { window.__picked.push(this.id); };
  });
  const picked = () => page.evaluate(() => window.__picked.splice(0));
  for (const key of ['Enter', ' ']) {
    await page.locator('#trace-drop').focus();
    await page.keyboard.press(key);
    assert.deepEqual(await picked(), ['trace-files'], `${JSON.stringify(key)} on the drop zone`);
  }
  await page.getByRole('button', { name: 'Choose folder…' }).focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await picked(), ['trace-folder'], 'Enter on "Choose folder…" opens the folder picker only');
  await page.keyboard.press('Tab');
  assert.deepEqual(await picked(), []);
  await page.context().close();
});

test("at 390 px every tab fits the screen's width and shows its chart before its controls", async () => {
  const page = await axePage(390);
  await page.goto(env.server.url);
  for (const id of MODELS) {
    await page.click(`#tab-${id}`);
    await page.waitForSelector(`#view-${id} .layout .content`);
    const r = await page.evaluate((m) => {
      const v = document.querySelector(`#view-${m}`);
      return {
        scrollWidth: document.documentElement.scrollWidth,
        width: document.documentElement.clientWidth,
        chartTop: v.querySelector('.content').getBoundingClientRect().top,
        controlsTop: v.querySelector('.sidebar').getBoundingClientRect().top,
      };
    }, id);
    assert.ok(r.scrollWidth <= r.width, `${id}: the page is ${r.scrollWidth} px wide on a ${r.width} px screen`);
    assert.ok(r.chartTop < r.controlsTop, `${id}: the chart (top ${r.chartTop}) comes after the controls (${r.controlsTop})`);
  }
  await page.context().close();
});
