// Charts that read well: every chart a tab draws by default, at 1366 px and at 390 px, keeps each text inside
// its canvas and no two texts overlap. The charts are drawn by the engine (src/chart/, plotters) into canvases,
// so the test records every fillText call (text, position, font, alignment and the context's transform) and
// computes each text's box with the browser's own measureText.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, newPage, recordMetrics } from './helpers.mjs';

const env = useBrowser();
const MODELS = ['placement', 'admission', 'oversub', 'lifetime', 'era'];
const CARD = { placement: '#frontier-card', admission: '#admission-card', oversub: '#oversub-card', lifetime: '#lifetime-card', era: '#era-card' };
const TOL = 1; // px of slack for antialiasing

/**
 * Problems still open (width, model, the message's pattern, why). Any other problem fails the test, and so does
 * an entry that no longer occurs (remove it when its chart is fixed): the list can only shrink.
 */
const KNOWN = [
  { width: 1366, model: 'oversub', re: /^oversub-frontier-canvas: "[^"]+" overlaps "[^"]+"$/, why: 'policies land on almost the same point (grid:0.4 and ma, grid:0.6 beside peak:p95 and the bundled C2MARL); the point labels have no collision avoidance' },
  { width: 390, model: 'oversub', re: /^oversub-frontier-canvas: "[^"]+" overlaps "[^"]+"$/, why: 'as at 1366 px' },
  { width: 390, model: 'admission', re: /^admission-series-canvas: "failed scale-outs" outside the .*$/, why: 'the series legend\'s last entry runs past the right edge of a 340 px chart (seen after the shared run view landed)' },
  { width: 390, model: 'era', re: /^era-efficiency-canvas: "[^"]+" (overlaps "[^"]+"|outside the .*)$/, why: 'six policy names under six bars do not fit in 340 px; they need rotating or abbreviating' },
  { width: 390, model: 'era', re: /^era-request-canvas: "x\* = [^"]+" overlaps "block price b_τ of W units in slot τ"$/, why: 'the chosen start\'s label meets the price panel\'s caption on a narrow chart' },
  { width: 390, model: 'lifetime', re: /^lifetime-canvas: "warm-up" overlaps "best fit: [^"]+ measured"$/, why: 'the warm-up band\'s label meets the first curve\'s label at the top left' },
];

/** Installed before the page's scripts: every fillText's box, in canvas pixels, per canvas. */
function recordText() {
  const orig = CanvasRenderingContext2D.prototype.fillText;
  window.__texts = new Map();
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

for (const width of [1366, 390]) {
  test(`at ${width} px every default chart keeps its texts inside the canvas and apart`, async () => {
    const page = await newPage(env.browser, { width, height: 900 });
    await page.addInitScript(recordText);
    await page.goto(env.server.url);
    await page.waitForSelector('#tab-placement');
    const found = {};
    for (const id of MODELS) {
      if (id !== 'placement') await page.click(`#tab-${id}`);
      await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', CARD[id], { timeout: 180_000 });
      // redraw at this size with a clean record
      await page.evaluate(() => { window.__texts.clear(); window.dispatchEvent(new Event('resize')); });
      await page.waitForTimeout(800);
      found[id] = await problems(page, id);
    }
    recordMetrics({ [`chart_text_problems_${width}`]: Object.fromEntries(Object.entries(found).map(([k, v]) => [k, v.length])) });
    const known = KNOWN.filter((k) => k.width === width);
    const unexpected = Object.fromEntries(MODELS.map((m) => [m, found[m].filter((msg) => !known.some((k) => k.model === m && k.re.test(msg)))]));
    assert.deepEqual(unexpected, Object.fromEntries(MODELS.map((m) => [m, []])), 'texts outside their canvas or overlapping');
    const stale = known.filter((k) => !found[k.model].some((msg) => k.re.test(msg))).map((k) => `${k.model}: ${k.re}`);
    assert.deepEqual(stale, [], 'fixed: remove these entries from KNOWN');
    await page.context().close();
  });
}
