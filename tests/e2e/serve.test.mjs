// The playground's static server (scripts/serve.py) sends text and the wasm module gzip-compressed to a
// client that accepts gzip, sends bundled .gz traces as they are, and answers a conditional request for an
// unchanged file with 304 and no body, so a reload transfers nothing but headers. A file's brotli copy (FILE.br,
// as fresh as FILE) is sent to a client that accepts br.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, writeFileSync, rmSync, utimesSync, mkdirSync } from 'node:fs';
import { gunzipSync, brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import path from 'node:path';
import { startServer, ROOT } from './helpers.mjs';

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

/** GET `p` with raw bytes (no automatic decompression): { status, headers, body }. */
function get(p, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get(new URL(p, server.url), { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test('text files are sent gzip-compressed to a client that accepts gzip, and decompress to the file', async () => {
  const file = readFileSync(path.join(ROOT, 'www/common/trace-panel.js'));
  const gz = await get('common/trace-panel.js', { 'Accept-Encoding': 'gzip, deflate' });
  assert.equal(gz.status, 200);
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(Number(gz.headers['content-length']), gz.body.length);
  assert.ok(gz.body.length < file.length, `compressed ${gz.body.length} B, file ${file.length} B`);
  assert.deepEqual(gunzipSync(gz.body), file);
  assert.match(gz.headers.vary, /Accept-Encoding/);

  const plain = await get('common/trace-panel.js');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.deepEqual(plain.body, file);
  assert.notEqual(plain.headers.etag, gz.headers.etag, 'the two encodings carry different validators');
});

test('a brotli copy as fresh as its file is sent to a client that accepts br; a stale one or q=0 gets gzip', async () => {
  // a scratch file in the build output folder (www/pkg/, not in git), removed after
  const file = path.join(ROOT, 'www/pkg/serve-test.txt');
  const text = Buffer.from('packlab serve test: a compressible line\n'.repeat(200));
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    writeFileSync(`${file}.br`, brotliCompressSync(text));
    const t = new Date('2026-01-02T00:00:00Z');
    utimesSync(file, t, t);
    utimesSync(`${file}.br`, t, t);
    const br = await get('pkg/serve-test.txt', { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(br.body, readFileSync(`${file}.br`));
    assert.deepEqual(brotliDecompressSync(br.body), text);
    const again = await get('pkg/serve-test.txt', { 'Accept-Encoding': 'gzip, deflate, br', 'If-None-Match': br.headers.etag });
    assert.equal(again.status, 304);

    const q0 = await get('pkg/serve-test.txt', { 'Accept-Encoding': 'gzip, br;q=0' });
    assert.equal(q0.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(q0.body), text);
    assert.notEqual(q0.headers.etag, br.headers.etag, 'the two encodings carry different validators');

    utimesSync(`${file}.br`, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const stale = await get('pkg/serve-test.txt', { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(stale.headers['content-encoding'], 'gzip', 'a copy older than its file is not sent');
    assert.deepEqual(gunzipSync(stale.body), text);
  } finally {
    rmSync(file, { force: true });
    rmSync(`${file}.br`, { force: true });
  }
});

test('bundled .gz traces are sent as they are, with their own length (the download progress reads it)', async () => {
  const rel = 'static/traces/planetlab-20110303.tsv.gz';
  const file = readFileSync(path.join(ROOT, rel));
  const r = await get(rel, { 'Accept-Encoding': 'gzip' });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-encoding'], undefined);
  assert.equal(Number(r.headers['content-length']), file.length);
  assert.deepEqual(r.body, file);
});

test('a conditional request for an unchanged file gets 304 and no body', async () => {
  for (const [p, h] of [['', {}], ['common/trace-panel.js', { 'Accept-Encoding': 'gzip' }]]) {
    const first = await get(p, h);
    assert.equal(first.status, 200);
    assert.ok(first.headers.etag, `no ETag for /${p}`);
    const again = await get(p, { ...h, 'If-None-Match': first.headers.etag });
    assert.equal(again.status, 304, `/${p}`);
    assert.equal(again.body.length, 0);
    const other = await get(p, { ...h, 'If-None-Match': '"not-this-one"' });
    assert.equal(other.status, 200);
    assert.deepEqual(other.body, first.body);
  }
});

test('a missing file is still a 404', async () => {
  assert.equal((await get('common/no-such-file.js')).status, 404);
});
