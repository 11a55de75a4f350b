// Page weight (issue 30): what the first load of the playground transfers (bytes on the wire and requests,
// from Chromium's network events: headers plus the encoded body), that the wasm module arrives compressed,
// and that a reload transfers no body (every file answered 304 against its validator; Chromium revalidates with
// an ETag only over HTTP/1.1, hence scripts/serve.py speaks it). The figures go to
// test-artifacts/metrics.json (page_*).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, waitForRun, recordMetrics, ROOT } from './helpers.mjs';

const env = useBrowser();

/** Loads `go()` on `page` until the first placement run is done; resolves to the finished requests. */
async function load(page, go) {
  const pending = [];
  const onDone = (req) => pending.push((async () => {
    const res = await req.response();
    const sizes = await req.sizes();
    return {
      path: new URL(req.url()).pathname,
      status: res?.status(),
      encoding: (await res?.allHeaders())?.['content-encoding'],
      body: sizes.responseBodySize,
      headers: sizes.responseHeadersSize,
    };
  })());
  page.on('requestfinished', onDone);
  await go();
  await waitForRun(page);
  page.off('requestfinished', onDone);
  return (await Promise.all(pending)).filter((r) => r.status !== undefined);
}

test('the first load sends the wasm module compressed; a reload transfers no body (all 304)', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const first = await load(page, () => page.goto(env.server.url));
  // the placement tab's first load takes the first module only (issue 30: placement without scripts), not the full one
  const wasm = first.find((r) => r.path.endsWith('/pkg/packlab_first_bg.wasm'));
  assert.ok(wasm, `the first wasm module is among the first load's requests: ${first.map((r) => r.path).join(' ')}`);
  assert.ok(!first.some((r) => r.path.endsWith('/pkg/packlab_bg.wasm')), 'the full module waits until it is needed');
  const raw = statSync(path.join(ROOT, 'www/pkg/packlab_first_bg.wasm')).size;
  assert.equal(wasm.status, 200);
  // Chromium accepts br (also over plain http to 127.0.0.1): the build's brotli copy, byte for byte
  const br = statSync(path.join(ROOT, 'www/pkg/packlab_first_bg.wasm.br')).size;
  assert.equal(wasm.encoding, 'br');
  assert.equal(wasm.body, br, `wasm on the wire ${wasm.body} B, its brotli copy ${br} B`);
  assert.ok(br < raw / 2, `brotli copy ${br} B of ${raw} B`);

  const again = await load(page, () => page.reload());
  const bodies = again.filter((r) => r.body > 0);
  assert.deepEqual(bodies.map((r) => `${r.status} ${r.path} ${r.body} B`), [], 'a reload transfers no body');
  assert.ok(again.some((r) => r.path.endsWith('/pkg/packlab_first_bg.wasm')), 'the wasm is asked for again');

  const sum = (rs, f) => rs.reduce((a, r) => a + f(r), 0);
  recordMetrics({
    page_first_load_requests: first.length,
    page_first_load_bytes: sum(first, (r) => r.body + r.headers),
    page_first_load_body_bytes: sum(first, (r) => r.body),
    page_wasm_wire_bytes: wasm.body,
    page_wasm_raw_bytes: raw,
    page_reload_requests: again.length,
    page_reload_body_bytes: sum(again, (r) => r.body),
    page_reload_bytes: sum(again, (r) => r.body + r.headers),
  });
  await context.close();
});
