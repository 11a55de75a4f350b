// A playground that teaches (issue 28), checked in one visit per tab: every tab is opened once, in one page, at
// 390 px and then at 1366 px (the viewport is resized, the view and its runs are kept), and on that visit
// - its charts keep each text inside the canvas and apart, at both widths. The charts are drawn by the engine
//   (src/chart/, plotters) into canvases, so the page records every fillText call (text, position, font,
//   alignment and the context's transform) and computes each text's box with the browser's own measureText;
// - at 390 px the lesson and the controls start folded, so the chart comes first, and a button unfolds the
//   controls;
// - the lesson panel (www/common/lesson.js, www/<id>/lesson.js) has "What this tab is about" with a picture, the
//   paper and a findings link, a glossary whose terms show their meaning on keyboard focus, and 2–4 "Try this"
//   steps whose claims hold (and the results table's column headers gloss their terms like the controls' labels): each step is clicked from the default scenario, as a new user would, and must report
//   that its own check held on the run it started (the lifetime frontier's button states its cost first);
// - a screenshot of the tab at each width goes to test-artifacts/tab-<id>-<width>.png.
// - no Content-Security-Policy violation on the whole visit (every default view and lesson step; issue 30: the suite
//   runs the default views once), and each tab's first result time (browser_<id>_first_result_ms, measured);
// - where a model's own file has no test of its default run, what that run must show (DEFAULT_RUN below) is
//   checked here, on the tour's run, so the suite runs each default scenario once (issue 30).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import {
  useBrowser, newPage, artifact, recordMetrics, canvasInk, pinOf, savedLinks, admissionTable, admissionTableOf,
  lifetimeTable, lifetimeTableOf, releaseSolo, browserCpu, collectCsp,
} from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';

// the tour takes the suite's one measurement made alone (scripts/e2e-run.mjs): the default Oversubscription view's
// report time (issue 25), on its first tab, while the other browser files wait for releaseSolo
const env = useBrowser({ solo: true });
const SOLO = 'oversub';
const MODELS = [SOLO, 'placement', 'admission', 'lifetime', 'era'];
const CARD = { placement: '#frontier-card', admission: '#admission-card', oversub: '#oversub-card', lifetime: '#lifetime-card', era: '#era-card' };
const TOL = 1; // px of slack for antialiasing
/** A symbol each view's own controls label with a glossary term (plain words first, the symbol after them). */
const CONTROL_TERM = { placement: 'ρ', admission: 'ε', oversub: 'α', lifetime: 'A', era: 'κ_use' };
/** A term each view's results table glosses in its column headers, as the controls do. */
const HEADER_TERM = { placement: 'q', admission: 'utilization', oversub: 'S-Cores', lifetime: 'empty hosts', era: 'value efficiency' };
const NARROW = { width: 390, height: 844 };
const WIDE = { width: 1366, height: 900 };

/**
 * What a default run must show, by model, checked on the tour's run at 1366 px before the lesson's steps change
 * the scenario (moved here from the model's own file, which no longer runs its default view). `scenario`: the
 * tab's address on opening; `firstMs`, `allMs`: from the click to the first result (FIRST) and to the finished run;
 * `cpuS`: the browser's CPU seconds over the same time (helpers.mjs browserCpu).
 */
const DEFAULT_RUN = {
  // from admission.test.mjs ('opens the admission view and starts the default experiment', 'the default view tunes
  // every policy to a threshold that admits'): the default Admission control view (E0.1, C = 1,000 cores, 1,460 h,
  // 2 runs, 6 search steps, seed 1) tunes ZEROTH, FIRST and SECOND to thresholds that admit, equal to the CLI's pin
  admission: async (page, { scenario, firstMs, allMs }) => {
    const w = await loadWasm();
    assert.match(scenario, /#s=v2\.d\d+\./); // made under the newest frozen defaults set
    assert.deepEqual(w.scenario_from_link(scenario), { ...w.default_scenario(), model: 'admission' });
    assert.equal(await page.getAttribute('#tab-admission', 'aria-current'), 'page');
    assert.ok((await canvasInk(page, '#admission-canvas')) > 3000, 'frontier canvas is blank');
    assert.match(await page.textContent('#admission-data'), /Azure 2017/);
    const rows = await page.$$eval('#admission-rows tr', (trs) => trs.map((r) => ({
      label: r.dataset.label, status: r.dataset.status, threshold: Number(r.dataset.threshold),
      utilization: Number(r.dataset.utilization), admitted: Number(r.dataset.admitted), text: r.textContent,
    })));
    assert.deepEqual(rows.map((r) => [r.label, r.status]), [['ZEROTH', 'tuned'], ['FIRST', 'tuned'], ['SECOND', 'tuned'], ['UPPER_BOUND', 'bound']]);
    for (const r of rows.filter((x) => x.status === 'tuned')) {
      // a non-degenerate threshold: it admits deployments and the cluster is used
      assert.ok(r.admitted > 0 && r.utilization > 0, `${r.label} is tuned to a threshold that admits nothing: ${JSON.stringify(r)}`);
      assert.ok(Number.isFinite(r.threshold) && r.threshold > 0, r.label);
      assert.doesNotMatch(r.text, /cannot be tuned/);
    }
    // and the page equals the CLI, number for number: the saved default link's pinned `packlab run --link` (an older
    // defaults set, the same admission inputs; tests/integration/cli_pins.rs keeps the pin equal to the current CLI)
    const entry = savedLinks().find((e) => e.expect.model === 'admission' && Object.keys(e.expect).length === 1);
    const inputs = (sc) => ({ model: sc.model, seed: sc.seed, workload: sc.workload, admission: sc.admission });
    assert.deepEqual(inputs(w.scenario_from_link(entry.link)), inputs(w.scenario_from_link(scenario)));
    assert.deepEqual(await admissionTable(page), admissionTableOf(pinOf(entry.link)));
    // the run view of SECOND (the default arm) shows a run that admits deployments
    await page.waitForFunction(() => document.querySelector('#admission-series-card').dataset.ready);
    assert.equal(await page.inputValue('#admission-series-arm'), 'SECOND');
    const info = await page.textContent('#admission-series-info');
    const m = info.match(/(\d+) of (\d+) arrivals admitted/);
    assert.ok(m && Number(m[1]) > 0, info);
    assert.ok((await canvasInk(page, '#admission-series-canvas')) > 3000, 'series canvas is blank');
    assert.match(await page.textContent('#admission-status'), /4 policies tuned/);
    await page.screenshot({ path: artifact('playground-admission-default.png'), fullPage: true });
    recordMetrics({ browser_admission_first_policy_ms: firstMs, browser_admission_default_report_ms: allMs });
  },
  // from lifetime.test.mjs ('its default view runs the default scenario to the CLI's numbers'): the default Lifetime
  // view (share 0.2) gives the saved default link's pinned numbers (tests/pins/link-….json, `packlab run --link`,
  // kept equal to the current CLI by tests/integration/cli_pins.rs)
  lifetime: async (page, { scenario, firstMs, allMs }) => {
    const w = await loadWasm();
    assert.equal(await page.$('#tab-lifetime .soon'), null, 'no "soon" badge');
    assert.equal(await page.getAttribute('#tab-lifetime', 'aria-current'), 'page');
    assert.deepEqual(w.scenario_from_link(scenario), { ...w.default_scenario(), model: 'lifetime' });
    assert.ok((await canvasInk(page, '#lifetime-canvas')) > 3000, 'chart canvas is blank');
    assert.match(await page.textContent('#lifetime-data-statement'), /real Azure 2017 arrivals \(test split\), a pool's share of the tenant batches/);
    const entry = savedLinks().find((e) => e.expect.model === 'lifetime' && Object.keys(e.expect).length === 1);
    // the saved link is of an older defaults set: the lifetime model's inputs are the same (defaults set 11 changed
    // only the noisy predictor's estimate, which the default oracle predictor does not read)
    const inputs = (sc) => {
      assert.equal(sc.lifetime.predictor, 'oracle');
      const { noisy_estimate: _unused, ...lifetime } = sc.lifetime;
      return { model: sc.model, seed: sc.seed, workload: sc.workload, lifetime };
    };
    assert.deepEqual(inputs(w.scenario_from_link(entry.link)), inputs(w.scenario_from_link(scenario)));
    const pinned = pinOf(entry.link);
    assert.deepEqual(await lifetimeTable(page), lifetimeTableOf(pinned.results));
    assert.equal(await page.getAttribute('#lifetime-setup-list dd[data-hosts]', 'data-hosts'), String(pinned.hosts));
    // the spread note reads this run against the stored pools' paired differences (tests/e2e/lifetime-spread.test.mjs)
    const dp = Object.fromEntries(pinned.results.map((r) => [r.policy, r.empty_hosts_pp_vs_best_fit]));
    const gap = dp.lava - dp.nilas;
    const note = await page.textContent('#lifetime-spread');
    assert.ok(note.includes(`one pool of ${pinned.hosts} hosts`) && note.includes(`LAVA − NILAS ${gap < 0 ? '−' : '+'}${Math.abs(gap).toFixed(2)} pp (s.d. `), note);
    recordMetrics({
      browser_lifetime_default_first_result_ms: firstMs,
      browser_lifetime_default_first_result_in_page_ms: Number(await page.getAttribute('#lifetime-card', 'data-first-ms')),
      browser_lifetime_default_report_ms: allMs,
      browser_lifetime_default_report_in_page_ms: Number(await page.getAttribute('#lifetime-card', 'data-ms')),
    });
  },
  // from era.test.mjs: the default Reservations view (E4.3 beside real Azure load) shows a frontier with late jobs and revenue
  era: async (page, { scenario, firstMs, allMs }) => {
    const w = await loadWasm();
    assert.deepEqual(w.scenario_from_link(scenario), { ...w.default_scenario(), model: 'era' });
    const cells = await page.$$eval('#era-rows tr', (rows) => rows.map((r) => ({ policy: r.dataset.policy, late_pct: r.dataset.latePct, revenue: r.dataset.revenue })));
    assert.equal(cells.length, 30);
    // meaningful, not degenerate: more κ_use plans more (revenue grows) and leaves less spare (late jobs appear)
    const greedy = cells.filter((c) => c.policy === 'greedy');
    assert.ok(Number(greedy[4].revenue) > Number(greedy[0].revenue));
    assert.ok(Number(greedy[4].late_pct) > Number(greedy[0].late_pct));
    assert.ok(cells.some((c) => Number(c.late_pct) > 1), 'no late jobs at any κ_use');
    assert.ok((await canvasInk(page, '#era-frontier-canvas')) > 3000, 'frontier chart blank');
    recordMetrics({
      browser_era_default_first_cell_ms: firstMs,
      browser_era_default_report_ms: allMs,
      browser_era_default_report_in_page_ms: Number(await page.getAttribute('#era-card', 'data-ms')),
    });
  },
  // from oversub.test.mjs: the default Oversubscription view shows the bundled C2MARL beside the baselines without training
  // measured alone (SOLO: the other browser files wait), with the browser's CPU seconds and the load beside
  oversub: async (page, { scenario, firstMs, allMs, cpuS }) => {
    const w = await loadWasm();
    const sc = w.scenario_from_link(scenario);
    assert.equal(sc.model, 'oversub');
    // the bundled policy served the C2MARL arm: no training in the page
    assert.equal(await page.getAttribute('#oversub-card', 'data-mode'), 'bundled');
    assert.match(await page.textContent('#oversub-training-status'), new RegExp(`c2marl:0\\.95: episode ${sc.oversub.train_episodes} of ${sc.oversub.train_episodes} · λ .*the bundled policy`));
    assert.match(await page.textContent('#oversub-train-cost'), /1 arm × \d+ episodes on 500 PMs: about/);
    const rows = await page.$$eval('#oversub-rows tr', (trs) => trs.map((r) => ({ policy: r.dataset.policy, s_cores: r.dataset.sCores })));
    assert.deepEqual(rows.map((r) => r.policy), ['grid:0.2', 'grid:0.4', 'grid:0.6', 'ma', 'sl', 'peak:p95', 'gpa:0.95', 'c2marl:0.95']);
    // meaningful: Grid-x saves 1 − x of the cores, and the rates are drawn
    assert.equal(Number(rows.find((r) => r.policy === 'grid:0.4').s_cores).toFixed(6), '0.600000');
    for (const c of ['#oversub-frontier-canvas', '#oversub-training-canvas', '#oversub-rates-canvas']) {
      assert.ok((await canvasInk(page, c)) > 3000, `${c} blank`);
    }
    // the training-episodes placeholder is the engine's default, not a copy
    assert.equal(await page.getAttribute('#f-oversub-train_episodes', 'placeholder'), String(w.default_scenario().oversub.train_episodes));
    recordMetrics({
      browser_oversub_default_first_step_ms: firstMs,
      browser_oversub_default_report_ms: allMs,
      browser_oversub_default_report_in_page_ms: Number(await page.getAttribute('#oversub-card', 'data-ms')),
      browser_oversub_default_click_to_report_in_page_ms: Number(await page.getAttribute('#oversub-card', 'data-click-ms')),
      browser_oversub_default_compute_ms: Number(await page.getAttribute('#oversub-card', 'data-compute-ms')),
      browser_oversub_default_cpu_s: Number(cpuS.toFixed(2)),
      browser_oversub_default_load: Number(os.loadavg()[0].toFixed(2)),
    });
  },
};
/** When a view has its first result (the first-row or first-step time of DEFAULT_RUN), run in the page (a function:
 * the page's CSP refuses strings evaluated as code). */
const FIRST = {
  admission: () => document.querySelectorAll('#admission-rows tr').length >= 1,
  lifetime: () => document.querySelectorAll('#lifetime-rows tr').length >= 1,
  era: () => document.querySelectorAll('#era-rows tr').length >= 1,
  oversub: () => !!document.querySelector('#oversub-card')?.dataset.firstMs,
};

/** What a view shows while its default run goes on, after FIRST and before the run's end (a function run in the
 * page): admission's run controls estimate the time left from the fraction done. */
const DURING = {
  admission: () => /^about \d+ (s|min) left$/.test(document.querySelector('#admission-eta')?.textContent || ''),
};

/**
 * Problems still open (width, model, the message's pattern, why): none. Any problem fails the test, and so does
 * an entry that no longer occurs (remove it when its chart is fixed): the list can only shrink.
 * @type {Array<{ width: number, model: string, re: RegExp, why: string }>}
 */
const KNOWN = [];

/**
 * Installed before the page's scripts: every fillText's box, in canvas pixels, per canvas, since the canvas was last
 * cleared. Setting a canvas's width or height clears its pixels (every draw starts so, www/common/dom.js fitCanvas),
 * so it clears the canvas's record too: the record is what is on screen. (Without it, a draw that lands between the
 * record's clear and a resize, e.g. a side query's answer drawn at 390 px, left its texts beside the 1366 px draw's.)
 */
function recordText() {
  const orig = CanvasRenderingContext2D.prototype.fillText;
  window.__texts = new Map();
  for (const prop of ['width', 'height']) {
    const d = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, prop);
    Object.defineProperty(HTMLCanvasElement.prototype, prop, {
      ...d,
      set(v) { window.__texts.delete(this); d.set.call(this, v); },
    });
  }
  CanvasRenderingContext2D.prototype.fillText = function fillText(text, x, y, ...rest) {
    const m = this.measureText(text);
    const t = this.getTransform();
    const xs = [x - m.actualBoundingBoxLeft, x + m.actualBoundingBoxRight];
    const ys = [y - m.actualBoundingBoxAscent, y + m.actualBoundingBoxDescent];
    const pts = xs.flatMap((px) => ys.map((py) => [t.a * px + t.c * py + t.e, t.b * px + t.d * py + t.f]));
    const box = { text: String(text), x0: Math.min(...pts.map((p) => p[0])), x1: Math.max(...pts.map((p) => p[0])), y0: Math.min(...pts.map((p) => p[1])), y1: Math.max(...pts.map((p) => p[1])) };
    if (!window.__texts.has(this.canvas)) window.__texts.set(this.canvas, []);
    if (String(text).trim()) window.__texts.get(this.canvas).push(box);
    return orig.call(this, text, x, y, ...rest);
  };
}

/** Problems of the visible canvases' texts: outside the canvas, or overlapping another text. */
async function problems(page, id) {
  return page.evaluate(({ m, tol }) => {
    const out = [];
    for (const [canvas, boxes] of window.__texts) {
      if (!canvas.isConnected || !canvas.closest(`#view-${m}`) || canvas.offsetParent === null) continue;
      const name = canvas.id || canvas.closest('section')?.id || 'canvas';
      const seen = new Set();
      const uniq = boxes.filter((b) => { const k = `${b.text}|${b.x0.toFixed(1)}|${b.y0.toFixed(1)}`; if (seen.has(k)) return false; seen.add(k); return true; });
      for (const b of uniq) {
        if (b.x0 < -tol || b.y0 < -tol || b.x1 > canvas.width + tol || b.y1 > canvas.height + tol) out.push(`${name}: "${b.text}" outside the ${canvas.width}×${canvas.height} canvas (${b.x0.toFixed(0)}–${b.x1.toFixed(0)}, ${b.y0.toFixed(0)}–${b.y1.toFixed(0)})`);
      }
      for (let i = 0; i < uniq.length; i++) {
        for (let j = i + 1; j < uniq.length; j++) {
          const a = uniq[i];
          const b = uniq[j];
          const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
          const hgt = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
          if (w > tol && hgt > tol) out.push(`${name}: "${a.text}" overlaps "${b.text}"`);
        }
      }
    }
    return out;
  }, { m: id, tol: TOL });
}

/**
 * Redraw the view's charts with a clean record (a resize to `size`, or a resize event at the current size) and
 * return their text problems once every visible canvas of the view that held a chart has drawn again (a view
 * draws all its charts in one task after the resize's debounce; a canvas with no chart yet, e.g. a frontier not
 * run, stays blank).
 */
async function redrawnProblems(page, id, size) {
  await page.evaluate((m) => {
    window.__redraw = [...window.__texts.keys()].filter((c) => c.isConnected && c.closest(`#view-${m}`) && c.offsetParent !== null && window.__texts.get(c).length);
    window.__texts.clear();
  }, id);
  if (size) await page.setViewportSize(size);
  else await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  await page.waitForFunction(() => window.__redraw.length > 0 && window.__redraw.every((c) => (window.__texts.get(c) || []).length > 0), null, { timeout: 60_000 });
  return problems(page, id);
}

/** The problems of `found` not in KNOWN, and the KNOWN entries of (width, model) that no longer occur. */
function against(width, model, found) {
  const known = KNOWN.filter((k) => k.width === width && k.model === model);
  return {
    unexpected: found.filter((msg) => !known.some((k) => k.re.test(msg))),
    stale: known.filter((k) => !found.some((msg) => k.re.test(msg))).map((k) => `${k.model}: ${k.re}`),
  };
}

const top = (page) => page.evaluate(() => window.scrollTo(0, 0));

test('every tab, visited once at 390 px and at 1366 px: chart text, folding, the lesson and its steps, screenshots', async (t) => {
  const page = await newPage(env.browser, NARROW);
  await page.addInitScript(recordText);
  await collectCsp(page);
  await page.goto(env.server.url);
  assert.notEqual(await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content'), null, 'the CSP meta tag');
  await page.waitForSelector('#tab-placement');
  // the page opens on the placement tab and runs its default: done before the measured tab is opened
  await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD.placement, { timeout: 120_000 });
  const found = { 390: {}, 1366: {} };
  for (const id of MODELS) {
    await t.test(id, async () => {
      // 390 px: a new tab mounts folded (the lesson and the controls), its chart first
      await page.setViewportSize(NARROW);
      const cpu0 = browserCpu();
      const t0 = Date.now();
      await page.click(`#tab-${id}`);
      await page.waitForSelector(`#lesson-${id}`);
      const scenario = page.url();
      assert.equal(await page.getAttribute(`#lesson-${id}`, 'open'), null, `${id}: lesson folded`);
      if (FIRST[id]) await page.waitForFunction(FIRST[id], null, { timeout: 120_000 });
      const firstMs = Date.now() - t0;
      // from the tab click to the first result on display (issue 28's "first answer"; measured, not asserted)
      if (FIRST[id]) recordMetrics({ [`browser_${id}_first_result_ms`]: firstMs });
      if (DURING[id]) await page.waitForFunction(DURING[id], null, { timeout: 30_000 });
      await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD[id], { timeout: 300_000 });
      const allMs = Date.now() - t0;
      const cpuS = browserCpu() - cpu0;
      if (id === SOLO) releaseSolo();
      found[390][id] = await redrawnProblems(page, id);
      // every scrolling table of the view has the scroll cue (an edge shadow where columns go on), and at 390 px
      // at least one table of the view is wider than its box, so the cue matters
      const boxes = await page.$$eval(`#view-${id} .table-scroll`, (els) => els.map((el) => ({
        cue: getComputedStyle(el).backgroundImage.split('radial-gradient').length - 1, wider: el.scrollWidth > el.clientWidth })));
      assert.ok(boxes.length > 0 && boxes.every((b) => b.cue === 2), `${id}: scroll cues ${JSON.stringify(boxes)}`);
      assert.ok(boxes.some((b) => b.wider), `${id}: a table wider than its box at 390 px`);
      await top(page);
      await page.screenshot({ path: artifact(`tab-${id}-390.png`), fullPage: false });
      const toggle = `#controls-toggle-${id}`;
      assert.equal(await page.getAttribute(toggle, 'aria-expanded'), 'false');
      const field = `#view-${id} .sidebar [id^="f-${id}-"]`;
      assert.equal(await page.locator(field).first().isVisible(), false, `${id}: controls folded`);
      await page.click(toggle);
      assert.equal(await page.getAttribute(toggle, 'aria-expanded'), 'true');
      assert.equal(await page.locator(field).first().isVisible(), true, `${id}: controls shown`);

      // 1366 px: the same view, redrawn at the new width
      found[1366][id] = await redrawnProblems(page, id, WIDE);
      const at390 = against(390, id, found[390][id]);
      const at1366 = against(1366, id, found[1366][id]);
      assert.deepEqual({ 390: at390.unexpected, 1366: at1366.unexpected }, { 390: [], 1366: [] }, 'texts outside their canvas or overlapping');
      assert.deepEqual([...at390.stale, ...at1366.stale], [], 'fixed: remove these entries from KNOWN');
      if (DEFAULT_RUN[id]) await DEFAULT_RUN[id](page, { scenario, firstMs, allMs, cpuS });

      // the lesson: a picture, the findings link, a glossary term's meaning on keyboard focus (hidden on Escape)
      const lesson = page.locator(`#lesson-${id}`);
      await lesson.locator('summary').click();
      assert.equal(await page.getAttribute(`#lesson-${id}`, 'open'), '');
      assert.equal(await lesson.locator('svg[role="img"]').count(), 1, 'one picture');
      assert.match(await page.getAttribute(`#lesson-${id}-findings`, 'href'), /^\.\/findings\.html\?paper=00[0-4]$/);
      const term = lesson.locator('.lesson-terms .gloss').first();
      const tip = page.locator(`#${await term.getAttribute('aria-describedby')}`);
      assert.equal(await tip.isVisible(), false);
      await term.focus();
      assert.equal(await tip.isVisible(), true, 'focus shows the term\'s meaning');
      assert.ok((await tip.textContent()).length > 20);
      await page.keyboard.press('Escape');
      assert.equal(await tip.isVisible(), false);
      // and so does a symbol in the controls' own labels, while the words alone name the input
      const ctl = page.locator(`#view-${id} .sidebar .field .gloss[data-term="${CONTROL_TERM[id]}"]`);
      assert.equal(await ctl.count(), 1, `${id}: the controls gloss ${CONTROL_TERM[id]}`);
      const ctlTip = page.locator(`#${await ctl.getAttribute('aria-describedby')}`);
      await ctl.focus();
      assert.equal(await ctlTip.isVisible(), true, `${id}: focus shows ${CONTROL_TERM[id]}'s meaning`);
      await page.keyboard.press('Escape');
      const words = await ctl.evaluate((b) => b.closest('.label').querySelector('label').textContent);
      assert.ok(!words.includes(CONTROL_TERM[id]) && words.length > 5, `${id}: plain words label the input (${words})`);
      // and so does a results table's column header: its tip shows on focus, whole inside the window (not clipped
      // by the table's scroller), with the column's formula after the plain words
      const head = page.locator(`#view-${id} table.results thead .gloss[data-term="${HEADER_TERM[id]}"]`).first();
      await head.scrollIntoViewIfNeeded();
      await head.focus();
      const headTip = page.locator(`#${await head.getAttribute('aria-describedby')}`);
      assert.equal(await headTip.isVisible(), true, `${id}: focus shows the ${HEADER_TERM[id]} column's meaning`);
      const box = await headTip.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= WIDE.width && box.y >= 0 && box.y + box.height <= WIDE.height, `${id}: the header's tip inside the window: ${JSON.stringify(box)}`);
      await page.keyboard.press('Escape');
      await top(page);
      await page.screenshot({ path: artifact(`tab-${id}-1366.png`), fullPage: false });
      if (id === 'lifetime') {
        // the accuracy frontier's button states its cost before it is pressed: 6 runs (the view's run is the oracle's) × the last run's time
        assert.ok(Number(await page.getAttribute('#lifetime-card', 'data-ms')) > 0);
        assert.match(await page.textContent('#lifetime-accuracy-run-cost'), /^6 runs of this scenario, about [0-9.]+ (s|min) \(its last run took [0-9.]+ s\)\.$/);
      }
      // every "try this" step, from the default scenario: its own check holds on the run it started
      const steps = await lesson.locator('.lesson-step').count();
      assert.ok(steps >= 2 && steps <= 4, `${steps} steps`);
      for (let i = 1; i <= steps; i++) {
        const step = page.locator(`#lesson-${id}-step-${i}`);
        await step.locator('button.lesson-try').click();
        await page.waitForFunction((sel) => ['holds', 'fails'].includes(document.querySelector(sel).dataset.check), `#lesson-${id}-step-${i}`, { timeout: 240_000 });
        assert.equal(await step.getAttribute('data-check'), 'holds', `${id} step ${i}: ${await step.getAttribute('data-detail')}`);
      }
      assert.deepEqual(page.problems, []);
    });
    if (id === SOLO) releaseSolo(); // also when its test failed
  }
  // no Content-Security-Policy violation on the whole visit: every default view and lesson step ran to its end
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'CSP violations');
  recordMetrics({ chart_text_problems_1366: Object.fromEntries(Object.entries(found[1366]).map(([k, v]) => [k, v.length])), chart_text_problems_390: Object.fromEntries(Object.entries(found[390]).map(([k, v]) => [k, v.length])) });
  await page.context().close();
});

test('the cost of a run, a long run and a sweep: runs × the last run, in words', async () => {
  const { costText } = await import('../../www/common/cost.js');
  assert.equal(costText(6, 1100), '6 runs of this scenario, about 6.6 s (its last run took 1.1 s).');
  assert.equal(costText(7, 15_000), '7 runs of this scenario, about 105 s (its last run took 15 s).');
  assert.equal(costText(7, 60_000), '7 runs of this scenario, about 7 min (its last run took 60 s).');
  assert.equal(costText(7, NaN), '7 runs of this scenario (the time shows once the scenario has run).');
  assert.equal(costText(1, 2345), '1 run of this scenario, about 2.3 s.');
  assert.equal(costText(1, NaN), '1 run of this scenario (the time shows once the scenario has run).');
  const { sweepCostText } = await import('../../www/common/cost.js');
  assert.equal(sweepCostText(12, 1500), '12 cells, one run each: about 18 s if each takes as long as the scenario on display (1.5 s).');
  assert.equal(sweepCostText(1, NaN), '1 cell, one run each (the time shows once the scenario on display has run).');
  // a findings link's stored native time, before anything runs: the browser's range is 1–1.5× native
  const { linkCostText } = await import('../../www/common/cost.js');
  assert.equal(linkCostText(226), '1 run of this scenario, about 4–6 min in this browser (the stored run took 4 min natively).');
  assert.equal(linkCostText(3.2), '1 run of this scenario, about 3.2–4.8 s in this browser (the stored run took 3.2 s natively).');
  assert.equal(linkCostText(90), '1 run of this scenario, about 90 s–2 min in this browser (the stored run took 90 s natively).');
  assert.equal(linkCostText(NaN), '1 run of this scenario (the time shows once the scenario has run).');
  // with the planned run's units of work (E0.1: 4 arms × 10 search steps × 16 runs per threshold)
  assert.equal(linkCostText(226, 640, 'simulation runs'), '1 run of this scenario: 640 simulation runs, about 4–6 min in this browser (the stored run took 4 min natively).');
  assert.equal(linkCostText(NaN, 12000, 'frontier points'), '1 run of this scenario: 12,000 frontier points (the time shows once it has run).');
});
