// Time of the default admission experiment (E0.1 at the playground scale) in Chromium: first tuned policy,
// second, all; saves test-artifacts/playground-admission-default.png and merges the figures into metrics.json.
// Needs www/pkg (make wasm). Usage: node scripts/measure-admission-browser.mjs
import { startServer, launch, newPage, artifact, recordMetrics } from '../tests/e2e/helpers.mjs';
const server = await startServer();
const browser = await launch();
const page = await newPage(browser);
const t0 = Date.now();
await page.goto(server.url);
await page.click('#tab-admission');
await page.waitForSelector('#admission-card');
const t1 = Date.now();
await page.waitForFunction(() => document.querySelectorAll('#admission-rows tr').length >= 1, null, { timeout: 120000 });
const first = Date.now() - t1;
await page.waitForFunction(() => document.querySelectorAll('#admission-rows tr').length >= 2, null, { timeout: 120000 });
const second = Date.now() - t1;
await page.waitForFunction(() => document.querySelector('#admission-card').dataset.state === 'done', null, { timeout: 300000 });
const all = Date.now() - t1;
await page.waitForFunction(() => document.querySelector('#admission-series-card').dataset.ready);
await page.waitForTimeout(300);
await page.screenshot({ path: artifact('playground-admission-default.png'), fullPage: true });
const m = { browser_admission_default_first_policy_ms: first, browser_admission_default_second_policy_ms: second, browser_admission_default_all_ms: all, problems: page.problems };
console.log(JSON.stringify(m));
recordMetrics({ browser_admission_default_first_policy_ms: first, browser_admission_default_second_policy_ms: second, browser_admission_default_all_ms: all });
await browser.close();
server.stop();
