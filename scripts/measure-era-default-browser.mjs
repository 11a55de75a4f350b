// The reservation tab's default view (E4.3, 30 cells) in Chromium at the default's 100,000 datacenter cores
// (defaults set 14: the tab's click) and at the paper's 150,000 (the link `packlab era run --print-link` prints),
// alternated twice: tab click (or link) to the complete report. Needs www/pkg (make wasm) and target/release/packlab.
// Usage: node scripts/measure-era-default-browser.mjs   (output stored in results/004/bench-default.txt)
// `node scripts/measure-era-default-browser.mjs links` instead opens every saved reservation link
// (tests/links) once in a fresh context, link to complete report (output in results/bench/era-links.txt).
import { execFileSync } from 'node:child_process';
import { startServer, launch, newPage, savedLinks, ROOT } from '../tests/e2e/helpers.mjs';
const done = () => { const c = document.querySelector('#era-card'); return c && c.dataset.state === 'done' && Number(c.dataset.runs) > 0; };
if (process.argv[2] === 'links') {
  const server = await startServer();
  const browser = await launch();
  for (const e of savedLinks().filter((x) => x.expect.model === 'era')) {
    const page = await newPage(browser);
    const t0 = Date.now();
    await page.goto(`${server.url}/#s=${e.link}`);
    await page.waitForFunction(done, null, { timeout: 300000 });
    console.log(`Chromium, ${e.note.slice(0, 70)}…: report ${Date.now() - t0} ms (in page ${await page.getAttribute('#era-card', 'data-ms')} ms)`);
    await page.context().close();
  }
  await browser.close();
  server.stop();
  process.exit(0);
}
const paper = execFileSync('target/release/packlab', ['era', 'run', '--print-link'], { cwd: ROOT, encoding: 'utf8' }).trim();
const server = await startServer();
const browser = await launch();
for (const rep of [1, 2]) {
  for (const name of ['150000', '100000']) {
    const page = await newPage(browser);
    await page.goto(server.url);
    await page.waitForSelector('#tab-era:not([disabled])');
    const t0 = Date.now();
    if (name === '100000') await page.click('#tab-era');
    else await page.goto(`${server.url}#s=${paper}`);
    await page.waitForFunction(done, null, { timeout: 200000 });
    const cells = await page.$$eval('#era-rows tr', (r) => r.length);
    console.log(`Chromium, ${name} cores (repeat ${rep}): report ${Date.now() - t0} ms (in page ${await page.getAttribute('#era-card', 'data-ms')} ms), ${cells} cells`);
    await page.context().close();
  }
}
await browser.close();
server.stop();
