// Screenshots of every playground tab and the Findings page at 1366 px and 390 px wide (docs/screenshots/,
// linked from docs/playground.md): each model's default view once its run is done, the viewport only.
// Usage (after `make native wasm setup-web`): node scripts/screenshots.mjs [OUT_DIR]
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { startServer, launch, ROOT } from '../tests/e2e/helpers.mjs';

const OUT = path.resolve(process.argv[2] || path.join(ROOT, 'docs/screenshots'));
const WIDTHS = [[1366, 900], [390, 844]];
/** The tabs and the card whose `data-state` says the default run is done. */
const TABS = [['placement', '#frontier-card'], ['admission', '#admission-card'], ['oversub', '#oversub-card'],
  ['lifetime', '#lifetime-card'], ['era', '#era-card']];

mkdirSync(OUT, { recursive: true });
/** Save the page's viewport (not the whole page: 50–240 KB a PNG) as `name`. */
async function shot(page, name) {
  await page.screenshot({ path: path.join(OUT, name) });
  console.log(name);
}
const server = await startServer();
const browser = await launch();
try {
  for (const [width, height] of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await page.goto(server.url);
    for (const [id, card] of TABS) {
      await page.click(`#tab-${id}`);
      await page.waitForFunction((c) => document.querySelector(c)?.dataset.state === 'done', card, { timeout: 180_000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(300); // the charts redraw after the layout settles
      await shot(page, `${id}-${width}.png`);
    }
    await page.goto(`${server.url}findings.html?paper=003`);
    await page.waitForFunction(() => document.querySelector('#paper-003')?.dataset.state === 'done', null, { timeout: 60_000 });
    await shot(page, `findings-${width}.png`);
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}
