// The wasm module's brotli copy and its size against gzip (issue 30), with node's zlib (no other tool needed):
//   node scripts/brotli.mjs FILE [QUALITY]      writes FILE.br (default quality 11), via a temporary file renamed into
//                                              place, so scripts/serve.py never sends half a copy
//   node scripts/brotli.mjs --size QUALITY      prints the brotli bytes of stdin (scripts/wasm-size.py --brotli)
//   node scripts/brotli.mjs --table FILE Q...   prints FILE's bytes raw, gzip -9 and -6 (what serve.py sends without a
//                                              copy) and brotli at each quality Q, with the seconds each compression took
// Brotli settings: a 16 MiB window (lgwin 24, every current browser decodes it) and the input's size as a hint.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants as C } from 'node:zlib';

/** Brotli bytes of `data` at `quality` (0–11). */
export function brotli(data, quality) {
  return brotliCompressSync(data, {
    params: { [C.BROTLI_PARAM_QUALITY]: quality, [C.BROTLI_PARAM_LGWIN]: 24, [C.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
}

function quality(text) {
  const q = Number(text);
  if (!Number.isInteger(q) || q < 0 || q > 11) throw new Error(`brotli: quality must be an integer 0–11, got '${text}'`);
  return q;
}

const args = process.argv.slice(2);
try {
if (args[0] === '--size') {
  process.stdout.write(`${brotli(readFileSync(0), quality(args[1] ?? '11')).length}\n`);
} else if (args[0] === '--table') {
  const data = readFileSync(args[1]);
  const timed = (f) => { const t = process.hrtime.bigint(); const n = f().length; return [n, Number(process.hrtime.bigint() - t) / 1e9]; };
  console.log(`${args[1]}: ${data.length} B raw`);
  for (const level of [9, 6]) {
    const [n, s] = timed(() => gzipSync(data, { level }));
    console.log(`gzip -${level}      ${String(n).padStart(9)} B  ${(n / data.length * 100).toFixed(1)}% of raw  ${s.toFixed(1)} s`);
  }
  for (const q of args.slice(2).map(quality)) {
    const [n, s] = timed(() => brotli(data, q));
    console.log(`brotli ${String(q).padStart(2)}     ${String(n).padStart(9)} B  ${(n / data.length * 100).toFixed(1)}% of raw  ${s.toFixed(1)} s`);
  }
} else if (args.length >= 1 && !args[0].startsWith('--')) {
  const data = readFileSync(args[0]);
  writeFileSync(`${args[0]}.br.tmp`, brotli(data, quality(args[1] ?? '11')));
  renameSync(`${args[0]}.br.tmp`, `${args[0]}.br`);
} else {
  console.error('usage: node scripts/brotli.mjs FILE [QUALITY] | --size QUALITY < FILE | --table FILE QUALITY...');
  process.exit(2);
}
} catch (e) {
  console.error(e.message);
  process.exit(2);
}
