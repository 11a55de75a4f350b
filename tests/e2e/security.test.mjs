// Safe to open from a stranger's link: the Content-Security-Policy (header of scripts/serve.py and the
// <meta http-equiv> of www/index.html) is strict (it holds while every model's default view runs: checked on the tab
// tour's visit, teaching.test.mjs), text from a link never becomes markup, and a worker that dies is restarted with the user's inputs reloaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, newPage, waitForRun, collectCsp, ROOT, DEVELOPER_WORDS } from './helpers.mjs';
import { loadWasm } from './wasm-node.mjs';
import { deflateRawSync } from 'node:zlib';


test('a link with a bad value, an unknown setting or a damaged payload: the engine says what is wrong in the reader\'s words', async () => {
  const w = await loadWasm();
  const link = (json) => `v2.d1.${deflateRawSync(Buffer.from(JSON.stringify(json))).toString('base64url')}`;
  const good = w.scenario_to_link(w.default_scenario());
  for (const [bad, field, words] of [
    [link({ seed: -1 }), 'seed', /^must be a whole number ≥ 0, got -1$/],
    [link({ placement: { capacity: 'four' } }), 'placement.capacity', /^must be a number, got string "four"$/],
    [link({ era: { bogus: 1 } }), 'era.bogus', /^'bogus' is not a setting here: remove it or correct its spelling \(the settings: preset, /],
    [link({ era: { horizon: 'never' } }), 'era.horizon', /^'never' is not one of the choices: open, no-arrivals, cut-windows$/],
    [`${good.slice(0, -1)}9`, undefined, /^the link is damaged: it was cut short or has extra characters at its end \(copy the whole link again\)$/],
    [`${good.slice(0, 12)}*${good.slice(12)}`, undefined, /^the link is damaged: character 6 of its scenario data \('\*'\) cannot appear in a link/],
  ]) {
    let e = null;
    try { w.scenario_from_link(bad); } catch (x) { e = x; }
    assert.ok(e, `${bad}: accepted`);
    assert.equal(e.field, field, JSON.stringify(e));
    assert.match(e.message.replace(`${field}: `, ''), words);
    assert.doesNotMatch(e.message, DEVELOPER_WORDS);
  }
});

const env = useBrowser();

/** A page that records CSP violations (securitypolicyviolation events, in the page and its workers' console). */
async function cspPage() {
  const page = await newPage(env.browser);
  await collectCsp(page);
  return page;
}

const directives = (csp) => Object.fromEntries(csp.split(';').map((d) => d.trim()).filter(Boolean)
  .map((d) => { const [k, ...v] = d.split(/\s+/); return [k, v.join(' ')]; }));

test('the CSP is sent as a header and stated in a meta tag, and it is strict', async () => {
  const res = await fetch(env.server.url);
  const header = res.headers.get('content-security-policy');
  assert.ok(header, 'no Content-Security-Policy header');
  const h = directives(header);
  assert.equal(h['default-src'], "'self'");
  assert.equal(h['script-src'], "'self' 'wasm-unsafe-eval'");
  assert.equal(h['object-src'], "'none'");
  assert.equal(h['base-uri'], "'none'");
  assert.equal(h['frame-ancestors'], "'none'");
  // nothing weaker than 'self' for scripts, workers, sheets and data; style attributes only (plotters' text
  // measurement, see scripts/serve.py)
  for (const [k, v] of Object.entries(h)) {
    if (k === 'style-src-attr') continue;
    const weak = k === 'img-src' ? /'unsafe|\*/ : /'unsafe-inline'|'unsafe-eval'|\*|data:|https?:/;
    assert.doesNotMatch(v, weak, k);
  }
  assert.equal(h['style-src-attr'], "'unsafe-inline'");

  const html = readFileSync(path.join(ROOT, 'www/index.html'), 'utf8');
  const m = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/);
  assert.ok(m, 'no CSP meta tag in www/index.html');
  const meta = directives(m[1]);
  const { 'frame-ancestors': _, ...headerLessFraming } = h;
  assert.deepEqual(meta, headerLessFraming, 'the meta tag states the header\'s policy (frame-ancestors: header only)');
  // no inline script, handler or style markup anywhere in the page
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
  assert.doesNotMatch(html, /\son[a-z]+=|\sstyle=/i);
});

// No CSP violation while every default view runs, and each tab's first result: checked on the tab tour's visit
// (tests/e2e/teaching.test.mjs), which runs them all to their end.

test('text from a link is shown as text, never as markup', async () => {
  const w = await loadWasm();
  const name = '<img src=x onerror="window.__pwned=1"><b id="injected">x</b>';
  const link = w.scenario_to_link({ trace: { upload: { name, sha256: 'ab'.repeat(32) } } });
  const page = await cspPage();
  await page.goto(`${env.server.url}#s=${link}`);
  await page.waitForSelector('#trace-request:not([hidden])');
  assert.ok((await page.textContent('#trace-request')).includes(name), 'the name is shown literally');
  assert.equal(await page.$('#injected'), null);
  assert.equal(await page.$('img[src="x"]'), null);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // a tampered link: a message, the default scenario, no crash
  await page.goto(`${env.server.url}#s=v2.d1.%3Cscript%3Ealert(1)%3C%2Fscript%3E`);
  await page.reload();
  await page.waitForSelector('#banner:not([hidden])');
  assert.match(await page.textContent('#banner'), /could not be opened/);
  assert.doesNotMatch(await page.textContent('#banner'), DEVELOPER_WORDS);
  await waitForRun(page);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  await page.context().close();
});

test('a worker that dies is restarted, the trace reloaded, and the user told', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url);
  let n = await waitForRun(page);
  const engine = page.workers().find((wk) => wk.url().endsWith('/common/worker.js'));
  assert.ok(engine, 'the engine worker');
  // an exception nothing catches kills it, as a wasm trap (panic = abort) would
  await engine.evaluate(() => { setTimeout(() => { throw new WebAssembly.RuntimeError('unreachable'); }); });
  await page.waitForFunction(() => /The engine stopped .* was restarted; your trace and workload were reloaded/
    .test(document.querySelector('#banner:not([hidden])')?.textContent || ''), null, { timeout: 30_000 });
  // the new worker has the trace: editing re-runs on it, to the same 1052 VMs
  await page.fill('#f-placement-capacity', '2');
  n = await waitForRun(page, n);
  assert.equal(await page.textContent('#trace-vms'), '1052');
  assert.ok(page.workers().filter((wk) => wk.url().endsWith('/common/worker.js')).length >= 1);
  // the crash itself is the only problem reported
  assert.ok(page.problems.every((p) => /unreachable|engine stopped/.test(p)), page.problems.join('\n'));
  await page.context().close();
});
