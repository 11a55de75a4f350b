// The page's own engine instance: compiled once, shared with the worker (a WebAssembly.Module is
// structured-cloneable), used on the main thread only for drawing charts, share links and validation.
//
// Two modules (issue 30, results/bench/wasm-size.md): the page starts on the first one (packlab_first_bg.wasm:
// placement without the other models and the script language; every model's scenario section, validation and
// links are in it) and loads the full one (packlab_bg.wasm) when something needs it: another model's view or a
// user script (fullEngine). Both are instantiated with the same JS (wasm-bindgen's packlab.js; the first module
// imports a subset of what the full one does, scripts/build-wasm.sh checks it), each in a module instance of its
// own; `wasm` here is a stand-in that calls whichever is current, so the views keep the object they were given.

import init, * as first from '../pkg/packlab.js';

let current = first;
/** The engine's exports: the full module's once it is loaded, the first module's before. */
const wasm = new Proxy({}, { get: (_, name) => current[name] });

let loading = null;
let loadingFull = null;

async function compile(file) {
  return WebAssembly.compileStreaming(fetch(new URL(`../pkg/${file}`, import.meta.url)));
}

/** Compile and instantiate the engine's first module; resolves to { wasm, module } (the module to give the
 * workers). */
export function loadEngine() {
  if (!loading) {
    loading = (async () => {
      const module = await compile('packlab_first_bg.wasm');
      await init({ module_or_path: module });
      return { wasm, module };
    })();
  }
  return loading;
}

/** The full module, loaded once (the main thread switches to it); resolves to { wasm, module }. */
export function fullEngine() {
  if (!loadingFull) {
    loadingFull = (async () => {
      const module = await compile('packlab_bg.wasm');
      const glue = await import('../pkg/packlab.js?full');
      await glue.default({ module_or_path: module });
      current = glue;
      return { wasm, module };
    })();
  }
  return loadingFull;
}

/** Whether the page runs on the full module. */
export function isFull() {
  return current !== first;
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
