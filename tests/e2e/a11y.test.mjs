// Accessibility: axe-core (WCAG 2.x A and AA rules) finds no critical or serious violation on any model tab
// or on the Findings page, every page has one h1, and the upload drop zone opens the file picker on Enter.
// Each model tab is opened from a small scenario's link (helpers.mjs SMALL; placement: its cheap default) and checked
// once its run is done, results included: the default views run once per suite, in the tab tour (issue 30). All the
// pages open one after another in one tab (helpers.mjs openIn).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, ROOT, SMALL, CARD, openIn } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

const env = useBrowser();
const AXE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
const MODELS = ['placement', 'admission', 'oversub', 'lifetime', 'era'];
const WIDE = { width: 1366, height: 900 };

/** The tab these tests share, in a context that lets them inject axe-core (the site's CSP allows no inline script). */
let shared = null;
async function axePage() {
  if (!shared) shared = await (await env.browser.newContext({ viewport: WIDE, bypassCSP: true })).newPage();
  return shared;
}
after(() => shared?.context().close());

/** The address of model `id`'s view on a small scenario (placement: the default view); `ask`: opened without running. */
async function smallUrl(id, ask = false) {
  const w = await loadWasm();
  const hash = id === 'placement' ? '' : `s=${w.scenario_to_link(SMALL[id])}`;
  return `${env.server.url}#${[hash, ask ? 'run=ask' : ''].filter(Boolean).join('&')}`;
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
    await openIn(page, await smallUrl(id));
    await page.waitForSelector(`#tab-${id}.active`);
    await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD[id], { timeout: 120_000 });
    const found = await violations(page);
    assert.deepEqual(found, []);
    assert.equal(await page.locator('h1').count(), 1, 'one h1 per page');
  });
}

for (const q of ['', '?paper=000', '?paper=001', '?paper=002', '?paper=003', '?paper=004']) {
  test(`the Findings page${q ? ` ${q}` : ' (the list of papers)'} has one h1 and no critical or serious axe-core violation`, async () => {
    const page = await axePage();
    await openIn(page, new URL(`findings.html${q}`, env.server.url).href);
    await page.waitForFunction(() => { const s = [...document.querySelectorAll('#findings section[data-state]')]; return s.length > 0 && s.every((x) => x.dataset.state === 'done'); }, null, { timeout: 30_000 });
    const found = await violations(page);
    assert.deepEqual(found, []);
    assert.equal(await page.locator('h1').count(), 1, 'one h1 per page');
  });
}

test('the upload drop zone opens the file picker on Enter and on Space, its buttons only their own', async () => {
  const page = await axePage();
  await openIn(page, await smallUrl('placement', true));
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
});

test("at 390 px every tab fits the screen's width and shows its chart before its controls", async () => {
  const page = await axePage();
  await page.setViewportSize({ width: 390, height: 900 });
  try {
    // each view mounted at 390 px, from its link, without running (`&run=ask`): the layout is the view's, not its results'
    for (const id of MODELS) {
      await openIn(page, await smallUrl(id, true));
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
  } finally {
    await page.setViewportSize(WIDE);
  }
});
