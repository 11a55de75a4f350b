// The engine's compute worker (a module Web Worker). It owns the loaded trace and workload and runs every
// model's computations so the page never freezes. Protocol (see worker-client.js):
//   main → worker  { id, op, payload }            one request
//                  { op: 'cancel', target: id }   cooperative cancel of request `id`
//                  { op: 'pause' | 'resume', target: id }  hold request `id` between its steps / let it go on
//                                                 (runs check it between units, see run-ops.js; while a run is
//                                                 paused, later requests wait behind it, Cancel does not)
//   worker → main  { id, type: 'progress', ... } | { id, type: 'result', result } | { id, type: 'error', error }
// Errors are plain objects { kind, message, ... } (kind 'trace' carries file/line/column, 'scenario' carries
// errors: [{ field, message }], 'cancelled', 'hash', 'internal'). `fatal: true` means the wasm instance died
// (a trap) and the client must restart the worker.
//
// A fresh worker told a model at init ({ warm: id }) warms the engine up while it is idle (warmUp below).
//
// Charts are NOT drawn here: plotters measures text through window.document, which workers lack
// (../shared/TOOLCHAIN.md trap 2); the page draws with its own main-thread instance.

import init, * as wasm from '../pkg/packlab.js';
import { MODELS_WWW } from '../models.js';
import { runOps } from './run-ops.js';
import { inputOps, readFiles, wrongUpload } from './inputs.js';
import { Pool } from './pool.js';

const state = {
  /** the loaded trace (a wasm `Trace`), replaced only by a successful load */
  trace: null,
  /** the loaded workload of VM records: { key, ref, loaded: wasm `LoadedWorkload`, info } (inputs.js) */
  workload: null,
  /** bundled files' bytes by id, fetched once (inputs.js) */
  bundled: {},
  /** ids of requests asked to cancel */
  cancelled: new Set(),
  /** ids of requests asked to pause */
  paused: new Set(),
  /** the wake-up of a paused request, by id */
  waiting: new Map(),
  /** per-model caches */
  models: {},
  /** the files the loaded trace was read from ({ files, name, sha256 }), replayed into the pool's members */
  traceSource: null,
  /** likewise for an uploaded workload ({ files, key }) */
  workloadSource: null,
  /** the copy of a run this worker holds as a member of another worker's pool ({ key, run }) */
  copy: null,
};

/** The pool of workers that computes the jobs of runs planned here (pool.js), made on first use. */
let pool = null;
let poolModule = null;
function thePool() {
  if (!pool) pool = new Pool(poolModule);
  return pool;
}

let ready = null;

const coreOps = {
  /** Instantiate the engine from a compiled WebAssembly.Module sent by the page (or fetch it); `warm`: a model
   * id whose warm-up runs once this worker is idle (warmUp). */
  async init(payload, ctx) {
    if (payload && payload.module) poolModule = payload.module;
    if (!ready) {
      ready = payload && payload.module
        ? init({ module_or_path: payload.module })
        : init({ module_or_path: new URL('../pkg/packlab_bg.wasm', import.meta.url) });
    }
    await ready;
    if (payload && payload.warm && !warm) {
      warm = { model: String(payload.warm), state: 'queued', steps: 0, total: null, ms: null };
      // behind this init in the queue: it starts only when nothing was asked for after the init
      queue = queue.then(() => warmUp(ctx.seq));
    }
    return { version: wasm.engine_version() };
  },

  /** How the warm-up went: { model, state: 'queued' | 'running' | 'done' | 'skipped' | 'given up' | 'none' |
   * 'failed', steps, total, ms, error? } (steps: the run's steps done; ms: its time), or null without one. */
  async 'warm.status'() {
    return warm && { ...warm };
  },

  /**
   * Read and parse an upload or a bundled trace: payload { files: [{ name, data: File|Blob|ArrayBuffer|Uint8Array }],
   * name?: string (a bundled trace's id), expectSha256?: string }. Progress is reported per byte read, then 'parsing'. The current trace is replaced
   * only on success.
   */
  async 'trace.load'(payload, ctx) {
    const { state } = ctx;
    const builder = await readFiles(payload.files, ctx);
    const trace = builder.finish(payload.name || undefined); // consumes the builder; throws a structured TraceError
    // a link names its trace by content (the same data picked as files, a folder or a zip), an older one by
    // its files' hash
    if (payload.expectSha256 && !trace.is_named_by(payload.expectSha256)) {
      const got = trace.sha256();
      trace.free();
      throw wrongUpload(payload.files, 'trace', got, payload.expectSha256);
    }
    const info = { name: trace.name(), sha256: trace.sha256(), summary: trace.summary() };
    if (state.trace) state.trace.free();
    state.trace = trace;
    state.traceSource = { files: payload.files, name: payload.name, sha256: info.sha256 };
    state.models = {}; // caches depend on the trace
    return info;
  },

  /** The number of workers that compute the jobs of runs (the pool's members; 1 = no pool: this worker steps
   * runs itself) and the least work (ms, estimated from a run's first step) worth the pool: payload { size,
   * minMs? }; result { size, minMs }. Defaults: navigator.hardwareConcurrency (at most pool.js's MAX_WORKERS),
   * pool.js's DEFAULT_MIN_MS. */
  async 'pool.size'({ size, minMs }) {
    const p = thePool();
    if (size !== undefined && size !== null) p.resize(size);
    if (Number.isFinite(minMs) && minMs >= 0) p.minMs = minMs;
    return { size: p.size, minMs: p.minMs };
  },
};

const ops = { ...coreOps, ...inputOps, ...runOps };
/** Each model's own operations (www/<model>/worker-ops.js, listed in www/models.js), loaded once. */
const modelOpsLoaded = Promise.all(Object.values(MODELS_WWW).map(async (m) => {
  if (!m.workerOps) return;
  const mod = await m.workerOps();
  for (const v of Object.values(mod)) if (v && typeof v === 'object') Object.assign(ops, v);
}));

/** Yield to the event loop so 'cancel' messages get through between steps. */
function yieldNow() {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(0);
  });
}

function normalizeError(e) {
  if (e && typeof e === 'object' && !(e instanceof Error) && typeof e.kind === 'string') return e;
  if (e instanceof WebAssembly.RuntimeError) {
    return { kind: 'internal', fatal: true, message: `the engine stopped (${e.message}); it was restarted` };
  }
  if (e instanceof Error) return { kind: 'internal', message: e.message };
  return { kind: 'internal', message: String(e) };
}

// Requests run one at a time, in arrival order (a run queued behind a trace load sees the new trace);
// only 'cancel' bypasses the queue, so it reaches a running request at its next yield.
let queue = Promise.resolve();
/** Requests received so far (control messages aside). */
let received = 0;
/** The warm-up's state ('warm.status'), once init named a model. */
let warm = null;
/** Wakes the warm-up when a request arrives while it waits for its inputs. */
let wakeWarmUp = () => {};

self.onmessage = (ev) => {
  const msg = ev.data || {};
  if (msg.op === 'cancel' || msg.op === 'pause' || msg.op === 'resume') {
    if (msg.op === 'cancel') state.cancelled.add(msg.target);
    if (msg.op === 'pause') state.paused.add(msg.target);
    else state.paused.delete(msg.target);
    if (msg.op !== 'pause') wake(msg.target);
    return;
  }
  if (msg.op !== 'warm.status') {
    received += 1; // asking how the warm-up goes does not stop it
    wakeWarmUp();
  }
  const seq = received;
  queue = queue.then(() => handle(msg, seq));
};

/**
 * The warm-up (issue 30). V8 compiles a wasm function with its baseline compiler when it is first called and
 * optimises it in the background only after it has run a while, the optimised code serving from its next call,
 * so a fresh engine's first run costs up to ~3× the next (results/bench/warm-engine.txt). This steps a small run
 * of the model `warm.model` names (www/<model>/warm-up.js: a scenario and the throwaway inputs it makes) while
 * the worker is idle: skipped when any request arrived after the init (`asOf`: the init's number among the
 * requests received), given up at the next step boundary when one arrives while it runs (that request waits at
 * most one step). It reads and changes none of the worker's state (its own trace, run and inputs are freed at its
 * end) and the engine keeps nothing from run to run that a result depends on, so every result is the same with
 * or without it; a failure is only recorded in `warm` (state 'failed').
 */
const GIVEN_UP = Symbol('given up');

async function warmUp(asOf) {
  const t0 = performance.now();
  const since = () => received > asOf;
  const entry = MODELS_WWW[warm.model];
  if (!entry || !entry.warmUp) {
    warm.state = 'none';
    return;
  }
  if (since()) {
    warm.state = 'skipped';
    return;
  }
  warm.state = 'running';
  let trace = null;
  let run = null;
  try {
    // making the inputs awaits (the module, a compression stream): a request arriving meanwhile ends the wait
    const arrived = new Promise((resolve) => { wakeWarmUp = () => resolve(GIVEN_UP); });
    const recipe = await Promise.race([entry.warmUp().then((m) => m.warmUp(wasm)), arrived]);
    if (recipe === GIVEN_UP || since()) throw GIVEN_UP;
    if (recipe.trace) {
      const builder = new wasm.TraceBuilder();
      for (const f of recipe.trace) builder.add(f.name, f.bytes);
      trace = builder.finish('warm-up');
    }
    // `passes` runs of the scenario (the recipe's, default 1): V8 optimises a function once it has run a while,
    // the optimised code serving from its next call, so a second pass runs on the first pass's optimised code and
    // gets the rest optimised (placement: 250 VMs twice gave first/second 0.78–1.01 in node, once 1.14–1.35;
    // results/bench/warm-engine.txt)
    const passes = recipe.passes || 1;
    for (let pass = 0; pass < passes; pass++) {
      const inputs = new wasm.RunInputs();
      if (trace) inputs.use_trace(trace);
      run = new wasm.ExperimentRun(recipe.scenario, inputs); // takes the inputs
      const total = run.total();
      warm.total = total * passes;
      for (;;) {
        await yieldNow();
        if (since()) throw GIVEN_UP;
        if (run.step() === null) break;
        warm.steps = pass * total + run.done();
      }
      run.report();
      run.free();
      run = null;
    }
    warm.state = 'done';
  } catch (e) {
    warm.state = e === GIVEN_UP ? 'given up' : 'failed';
    if (e !== GIVEN_UP) warm.error = normalizeError(e).message;
  } finally {
    wakeWarmUp = () => {};
    if (run) run.free();
    if (trace) trace.free();
    warm.ms = Math.round(performance.now() - t0);
  }
}

/** Wake the paused request `id` (on Resume or Cancel). */
function wake(id) {
  const w = state.waiting.get(id);
  if (w) {
    state.waiting.delete(id);
    w();
  }
}

/** Handle request { id, op, payload }, the `seq`-th received. */
async function handle({ id, op, payload }, seq) {
  const ctx = {
    seq,
    wasm,
    state,
    progress: (p) => self.postMessage({ id, type: 'progress', ...p }),
    isCancelled: () => state.cancelled.has(id),
    isPaused: () => state.paused.has(id),
    /** Resolves when request `id` is resumed or cancelled (at once when it is not paused). */
    untilResumed: () => new Promise((resolve) => {
      if (!state.paused.has(id) || state.cancelled.has(id)) resolve();
      else state.waiting.set(id, resolve);
    }),
    yield: yieldNow,
    get pool() { return thePool(); },
  };
  try {
    await modelOpsLoaded;
    if (!ops[op]) throw { kind: 'internal', message: `unknown operation ${op}` };
    if (state.cancelled.has(id)) throw { kind: 'cancelled', message: 'cancelled' };
    if (op !== 'init') await coreOps.init({}, ctx);
    const result = await ops[op](payload || {}, ctx);
    self.postMessage({ id, type: 'result', result });
  } catch (e) {
    self.postMessage({ id, type: 'error', error: normalizeError(e) });
  } finally {
    state.cancelled.delete(id);
    state.paused.delete(id);
    state.waiting.delete(id);
  }
}
