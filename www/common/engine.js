// The page's own engine instance: compiled once, shared with the worker (a WebAssembly.Module is
// structured-cloneable), used on the main thread only for drawing charts, share links and validation.

import init, * as wasm from '../pkg/packlab.js';

let loading = null;

/** Compile and instantiate the engine; resolves to { wasm, module }. */
export function loadEngine() {
  if (!loading) {
    loading = (async () => {
      const url = new URL('../pkg/packlab_bg.wasm', import.meta.url);
      const module = await WebAssembly.compileStreaming(fetch(url));
      await init({ module_or_path: module });
      return { wasm, module };
    })();
  }
  return loading;
}

/** A readable one-line message of an engine error object. */
export function errorText(e) {
  if (!e) return 'unknown error';
  if (typeof e === 'string') return e;
  if (e.kind === 'trace') {
    let where = e.file || '';
    if (e.line != null) where += `:${e.line}`;
    if (e.line != null && e.column != null) where += `:${e.column}`;
    return where ? `${where}: ${e.message}` : e.message;
  }
  if (e.field && e.message) {
    // the field in words, not its dotted path (a field no control shows, e.g. from a link)
    const msg = String(e.message);
    const own = msg.startsWith(`${e.field}: `) ? msg.slice(e.field.length + 2) : msg;
    return NOT_A_SETTING.has(e.field) ? own : `${fieldWords(e.field)}: ${own}`;
  }
  return e.message || String(e);
}

/** Error fields that name a part of a link, not a setting: their message says it all. */
const NOT_A_SETTING = new Set(['defaults', 'v']);

/**
 * A setting's dotted path in the reader's words, for a field no control shows: 'era.bogus' → 'the Reservations
 * setting “bogus”' (the model's title from the engine's registry), 'seed' → 'the setting “seed”',
 * 'lifetime.host_cores' → 'the Lifetime setting “host cores”'.
 * @param {string} path
 */
export function fieldWords(path) {
  const parts = String(path).split('.');
  let model = null;
  try { model = wasm.models().find((m) => m.id === parts[0]); } catch { /* engine not loaded: the plain path */ }
  const name = (model ? parts.slice(1) : parts).join(' › ').replace(/_/g, ' ');
  if (!name) return model ? `the ${model.title} settings` : 'the scenario';
  return model ? `the ${model.title} setting “${name}”` : `the setting “${name}”`;
}
