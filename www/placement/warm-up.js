// The placement model's warm-up (issue 30; run by ../common/worker.js after the engine starts, while the worker
// is idle): the default scenario on a synthetic usage trace of WARM_VMS VMs × 288 five-minute samples in
// packlab's wide format, gzipped as the bundled traces are, so V8 has compiled the trace reader, the fit tests
// and the frontier, and optimised the hot ones, before the page's first run. Throwaway: the trace is made
// here and freed with the run; nothing of it reaches a result.

/** VMs of the synthetic trace: a whole warm-up (~0.2 s) fits in the ~0.35 s the page's worker is idle before the
 * bundled trace arrives; one as large as the PlanetLab day (1,052) would warm more but does not fit and delays the
 * first frontier (results/bench/warm-engine.txt, `node scripts/measure-warm-browser.mjs compare|worker`). */
export const WARM_VMS = 250;

/** Samples per VM (one day of five-minute samples, as the bundled PlanetLab day). */
const SAMPLES = 288;

/**
 * The synthetic trace's bytes (UTF-8 text): each VM a mean load of 5–45 % with uniform noise of ±15 points,
 * clipped to 0–100, from a fixed 32-bit linear congruential generator (the same bytes every time).
 * @param {number} vms
 * @returns {Uint8Array}
 */
export function syntheticTrace(vms = WARM_VMS) {
  const head = new TextEncoder().encode('#packlab-wide v1 unit=percent interval_s=300 source=warm-up\n');
  const out = new Uint8Array(head.length + vms * (16 + 4 * SAMPLES));
  out.set(head);
  let at = head.length;
  const ascii = (text) => { for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i); };
  let x = 0x2545f491;
  const next = () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x / 2 ** 32; };
  for (let v = 0; v < vms; v++) {
    ascii(`warm-${v}\t`);
    const mean = 5 + 40 * next();
    for (let s = 0; s < SAMPLES; s++) {
      const u = Math.max(0, Math.min(100, Math.round(mean + 30 * (next() - 0.5))));
      if (u >= 100) out[at++] = 49;
      if (u >= 10) out[at++] = 48 + (Math.floor(u / 10) % 10);
      out[at++] = 48 + (u % 10);
      out[at++] = s + 1 < SAMPLES ? 44 : 10; // ',' or a newline
    }
  }
  return out.subarray(0, at);
}

/** `bytes` gzipped (CompressionStream, where the runtime has it; else the bytes as they are). */
async function gzip(bytes) {
  if (typeof CompressionStream === 'undefined') return { name: 'warm-up.tsv', bytes };
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return { name: 'warm-up.tsv.gz', bytes: new Uint8Array(await new Response(stream).arrayBuffer()) };
}

/**
 * The warm-up's run: the engine's default placement scenario on the synthetic trace's files, twice (the second pass
 * on the first one's optimised code: ../common/worker.js warmUp).
 * @param {object} wasm the engine (www/pkg)
 * @returns {Promise<{ scenario: object, trace: { name: string, bytes: Uint8Array }[], passes: number }>}
 */
export async function warmUp(wasm) {
  const scenario = { ...wasm.default_scenario(), model: 'placement' };
  return { scenario, trace: [await gzip(syntheticTrace())], passes: 2 };
}
