// Worker-side inputs shared by every model: reading files into the engine's TraceBuilder (uploads and bundled
// files alike, with progress and Cancel), the bundled files' bytes (fetched once per worker), and the loaded
// workload of VM records for models whose registry entry has `uses_workload` (see run-ops.js).
//
//   'workload.load' { files: [{ name, data }], expectSha256? }  parse an uploaded workload (VM records) and keep
//                   it as the worker's workload; result { ref: { upload: { name, sha256 } }, name, sha256, summary }

/** Bytes of a file payload (File, Blob, ArrayBuffer or Uint8Array). */
export async function toBytes(d) {
  if (d instanceof Uint8Array) return d;
  if (d instanceof ArrayBuffer) return new Uint8Array(d);
  if (d && typeof d.arrayBuffer === 'function') return new Uint8Array(await d.arrayBuffer());
  throw { kind: 'internal', message: 'unsupported file payload' };
}

function byteSize(d) {
  if (!d) return 0;
  if (typeof d.size === 'number') return d.size; // Blob / File
  return d.byteLength || 0;
}

/** The error of an upload that is not the one a link names (`got`: the hash of what was given). */
export function wrongUpload(files, what, got, expected) {
  return {
    kind: 'hash',
    file: files.length === 1 ? files[0].name : `${files.length} files`,
    message: `this is not the ${what} the link was made with: its SHA-256 is ${got}, the link expects ${expected}`,
  };
}

/**
 * A TraceBuilder holding `files` ([{ name, data }]), added one by one with progress { stage: 'reading', done,
 * total } (bytes) and Cancel between files, checked against `expectSha256` (the files' hash) when given, then
 * progress { stage: 'parsing' }. Throws the engine's errors, { kind: 'cancelled' } or { kind: 'hash' }; the
 * caller owns the builder (its `finish…` consumes it). A usage trace is named by its content instead (the
 * caller checks the parsed trace: 'trace.load').
 */
export async function readFiles(files, ctx, { expectSha256, what = 'trace' } = {}) {
  if (!files || !files.length) throw { kind: 'trace', file: 'upload', line: null, column: null, message: 'no files given' };
  const total = files.reduce((s, f) => s + byteSize(f.data), 0);
  const builder = new ctx.wasm.TraceBuilder();
  try {
    let done = 0;
    ctx.progress({ stage: 'reading', done: 0, total });
    let lastPost = 0;
    for (const f of files) {
      if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
      const bytes = await toBytes(f.data);
      builder.add(f.name, bytes);
      done += bytes.byteLength;
      const now = performance.now();
      if (now - lastPost > 50 || done === total) {
        ctx.progress({ stage: 'reading', done, total });
        lastPost = now;
        await ctx.yield();
      }
    }
    if (expectSha256) {
      const sha256 = builder.sha256();
      if (expectSha256 !== sha256) throw wrongUpload(files, what, sha256, expectSha256);
    }
    ctx.progress({ stage: 'parsing', done: total, total });
    await ctx.yield();
    return builder;
  } catch (e) {
    builder.free();
    throw e;
  }
}

/** The bytes of the bundled data file `id` (the engine's bundled-data registry names its path), fetched once
 * per worker and kept. */
export async function bundledBytes(ctx, id, field) {
  const { state, wasm } = ctx;
  const entry = wasm.bundled_data().find((d) => d.id === id);
  if (!entry) throw { kind: 'input', field, message: `this engine bundles no '${id}'` };
  state.bundled = state.bundled || {};
  if (!state.bundled[id]) {
    // the worker is www/common/worker.js; static/ is served beside www/
    const resp = await fetch(new URL(`../${entry.path}`, self.location.href));
    if (!resp.ok) throw { kind: 'input', field, message: `${entry.path.split('/').pop()} could not be loaded (HTTP ${resp.status})` };
    state.bundled[id] = new Uint8Array(await resp.arrayBuffer());
  }
  return { name: entry.path.split('/').pop(), bytes: state.bundled[id] };
}

/** Parse the files of `builder` as a workload and keep it as the worker's workload under `ref`. */
function keepWorkload(ctx, builder, ref, name) {
  const { state } = ctx;
  const w = builder.finish_workload(name); // consumes the builder; throws a structured TraceError
  const info = { name: w.name(), sha256: w.sha256(), summary: w.summary() };
  const full = ref.upload ? { upload: { name: info.name, sha256: info.sha256 } } : ref;
  if (state.workload) state.workload.loaded.free();
  state.workload = { key: JSON.stringify(full), ref: full, loaded: w, info };
  return state.workload;
}

/**
 * The loaded workload a scenario's `workload` reference names: a bundled one is fetched and parsed on first
 * use (progress { stage: 'workload' }) and kept; an upload must have been loaded with 'workload.load'.
 */
export async function workloadFor(ctx, ref) {
  const { state } = ctx;
  const key = JSON.stringify(ref);
  if (state.workload && state.workload.key === key) return state.workload.loaded;
  if (ref && ref.bundled) {
    ctx.progress({ stage: 'workload', name: ref.bundled, done: 0, total: 0 });
    const file = await bundledBytes(ctx, ref.bundled, 'workload.bundled');
    await ctx.yield();
    const builder = new ctx.wasm.TraceBuilder();
    let consumed = false;
    try {
      builder.add(file.name, file.bytes);
      consumed = true;
      return keepWorkload(ctx, builder, ref, ref.bundled).loaded;
    } finally {
      if (!consumed) builder.free();
    }
  }
  if (ref && ref.synthetic) {
    throw {
      kind: 'input',
      field: 'workload.synthetic',
      message: 'synthetic workloads (ALGORITHMS.md §5.7) are generated by the CLI only for now: packlab run SCENARIO or packlab lifetime --workload synthetic:hosts=…,weeks=…',
    };
  }
  const up = (ref && ref.upload) || {};
  throw {
    kind: 'input',
    field: 'workload',
    message: `this scenario replays the uploaded workload '${up.name || '?'}' (SHA-256 ${String(up.sha256 || '').slice(0, 12)}…): load that file first`,
  };
}

export const inputOps = {
  async 'workload.load'({ files, expectSha256 }, ctx) {
    const builder = await readFiles(files, ctx, { expectSha256, what: 'workload' });
    const kept = keepWorkload(ctx, builder, { upload: {} }, undefined);
    ctx.state.workloadSource = { files, key: kept.key }; // replayed into the pool's members (pool.js)
    return { ref: kept.ref, ...kept.info };
  },
};
