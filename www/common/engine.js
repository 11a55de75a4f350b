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
  if (e.field && e.message && !String(e.message).startsWith(e.field)) return `${e.field}: ${e.message}`;
  return e.message || String(e);
}
