// The placement tab's default run in Chromium, first and second run of a visit, over three visits that share
// one browser profile (a persistent user-data dir): visit 1 with an empty cache, visit 2 in a new tab of the
// same browser, visit 3 after restarting the browser. Chromium keeps the wasm module's optimised code in its
// code cache once it has been tiered up (the module comes from WebAssembly.compileStreaming and the server sends
// validators, scripts/serve.py), so from visit 2 on the first run should cost no more than the second.
// The run times are the page's own (#frontier-card data-ms). A measurement, not a test.
// Needs www/pkg (make wasm). Usage: node scripts/measure-warm-browser.mjs [VISITS=3]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM, CHROMIUM_ARGS, waitForRun } from '../tests/e2e/helpers.mjs';

const server = await startServer();
const profile = mkdtempSync(path.join(tmpdir(), 'packlab-warm-'));
const open = () => chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: { width: 1440, height: 1000 } });
const ms = (page) => page.getAttribute('#frontier-card', 'data-ms').then(Number);

async function visit(ctx, label) {
  const page = await ctx.newPage();
  await page.goto(server.url);
  const n = await waitForRun(page, 0, 120_000);
  const first = await ms(page);
  await page.click('#rerun');
  await waitForRun(page, n, 120_000);
  const second = await ms(page);
  console.log(`${label.padEnd(36)} first run ${first} ms, second ${second} ms, first/second ${(first / second).toFixed(2)}`);
  // V8 writes a module's code cache a while after its tier-up (a timeout of about 2 s): stay that long
  await page.waitForTimeout(4000);
  await page.close();
}

let ctx = await open();
await visit(ctx, 'visit 1 (empty cache)');
await visit(ctx, 'visit 2 (new tab, same browser)');
await ctx.close();
ctx = await open();
await visit(ctx, 'visit 3 (browser restarted)');
await ctx.close();
server.stop();
