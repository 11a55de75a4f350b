// Main-thread side of the compute worker: request/response with ids, progress callbacks, cancel.
//
// Cancel is two-level. First cooperative: the worker checks a flag between steps (frontier points, files) and
// rejects with { kind: 'cancelled' } within one step. If the worker has not answered after `hardCancelMs`
// (a single huge step), the worker is terminated and a fresh one is started; the loaded trace and an uploaded
// workload survive because this client keeps the last successfully loaded files and replays them into the new
// worker (a bundled workload is fetched again when a run needs it).
//
// Pause is cooperative only: the worker holds a run between two steps until Resume (or Cancel), keeping its
// state; requests sent meanwhile wait behind the paused run. A pause sent after the run's last step has no
// effect.
//
// The same restart follows a worker that dies: an 'error' event (an exception nothing caught, a failed start)
// or a request answered with `fatal: true` (the wasm instance trapped: release wasm aborts on a panic). The
// pending requests are rejected with that error, a fresh worker is started with the inputs replayed, and
// onStatus reports ('restarting', reason) then ('ready', reason) so the page can say what happened. More than
// `maxCrashes` deaths within a minute stop the restarts (onStatus 'failed').

export class EngineWorker {
  /**
   * @param {object} opts
   * @param {WebAssembly.Module} [opts.module] compiled engine, shared with the worker (saves a compile)
   * @param {(state: string, reason?: string) => void} [opts.onStatus] 'restarting' | 'ready' | 'failed';
   *   `reason` is set when the worker died (not for a restart after Cancel)
   * @param {string} [opts.warm] a model id: the worker warms the engine up with a small run of it while idle
   *   after its start (worker.js warmUp; skipped or given up as soon as a request arrives)
   */
  constructor({ module, onStatus, warm } = {}) {
    this.module = module;
    this.warm = warm;
    this.onStatus = onStatus || (() => {});
    this.url = new URL('./worker.js', import.meta.url);
    this.pending = new Map();
    this.nextId = 1;
    this.traceFiles = null; // the last successfully loaded trace's files, replayed after a restart
    this.workloadFiles = null; // the last successfully loaded uploaded workload's files, likewise
    this.hardCancelMs = 2000;
    this.crashes = []; // times of recent deaths
    this.maxCrashes = 3;
    this.spawn();
  }

  spawn() {
    this.worker = new Worker(this.url, { type: 'module', name: 'packlab-engine' });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    const worker = this.worker;
    const died = (message) => {
      if (worker !== this.worker) return; // an old worker's last words
      this.crashed(message);
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      died(ev.message || 'the engine worker failed to start');
    };
    this.worker.onmessageerror = () => died('a message from the engine worker could not be read');
    this.ready = this.request('init', { module: this.module, warm: this.warm }).promise;
    return this.ready;
  }

  onMessage(msg) {
    const p = this.pending.get(msg.id);
    if (!p) return; // a request that was cancelled or belonged to a terminated worker
    if (msg.type === 'progress') {
      p.onProgress?.(msg);
      return;
    }
    this.pending.delete(msg.id);
    clearTimeout(p.hardTimer);
    if (msg.type === 'result') p.resolve(msg.result);
    else {
      p.reject(msg.error);
      if (msg.error && msg.error.fatal) this.crashed(msg.error.message || 'a fatal engine error', { rejected: true });
    }
  }

  /** The worker died (`message` says how): reject what is pending with a fatal error and restart it, unless
   * it keeps dying. */
  crashed(message, { rejected = false } = {}) {
    const err = { kind: 'internal', fatal: true, message: `the engine stopped (${message}); it was restarted, try again` };
    if (!rejected) {
      for (const p of this.pending.values()) { clearTimeout(p.hardTimer); p.reject(err); }
      this.pending.clear();
    }
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < 60_000).concat(now);
    if (this.crashes.length > this.maxCrashes) {
      this.worker.terminate();
      this.onStatus('failed', message);
      return;
    }
    this.restart(message);
  }

  /** Low-level request; returns { id, promise, cancel, pause, resume }. */
  request(op, payload, { onProgress } = {}) {
    const id = this.nextId++;
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    this.pending.set(id, { resolve, reject, onProgress, op });
    this.worker.postMessage({ id, op, payload });
    return { id, promise, cancel: () => this.cancel(id), pause: () => this.pause(id), resume: () => this.resume(id) };
  }

  /** Ask request `id` (a run) to stop between two steps until `resume(id)`; its state is kept. */
  pause(id) {
    if (this.pending.has(id)) this.worker.postMessage({ op: 'pause', target: id });
  }

  /** Let the paused request `id` go on. */
  resume(id) {
    if (this.pending.has(id)) this.worker.postMessage({ op: 'resume', target: id });
  }

  /** Cancel request `id`: cooperative first, terminate + restart if the worker does not answer in time. */
  cancel(id) {
    const p = this.pending.get(id);
    if (!p) return;
    this.worker.postMessage({ op: 'cancel', target: id });
    p.hardTimer = setTimeout(() => {
      if (this.pending.has(id)) this.restart();
    }, this.hardCancelMs);
  }

  /** Terminate the worker (rejecting everything pending as cancelled) and start a fresh one with the trace;
   * `reason` (the worker died) is passed on to onStatus. */
  async restart(reason, { quiet = false } = {}) {
    if (!quiet) this.onStatus('restarting', reason);
    this.worker.terminate();
    for (const p of this.pending.values()) {
      clearTimeout(p.hardTimer);
      p.reject({ kind: 'cancelled', message: 'cancelled (the engine was restarted)' });
    }
    this.pending.clear();
    // init and the trace replay are queued first in the new worker, so later requests see the trace
    this.spawn();
    const replays = [this.ready];
    if (this.traceFiles) replays.push(this.request('trace.load', { files: this.traceFiles, name: this.traceName }).promise);
    if (this.workloadFiles) replays.push(this.request('workload.load', { files: this.workloadFiles }).promise);
    if (this.poolSize !== undefined) replays.push(this.request('pool.size', { size: this.poolSize, minMs: this.poolMinMs }).promise);
    this.restarting = Promise.all(replays).then(() => { if (!quiet) this.onStatus('ready', reason); },
      (e) => this.onStatus('failed', (e && e.message) || String(e)));
    return this.restarting;
  }

  /** Runs on the compiled engine `module` from now on (issue 30: the page's first module, placement without
   * scripts, gives way to the full one): a fresh worker with it, the trace and workload reloaded; what was
   * pending is cancelled as in a restart. Returns once the new worker is ready. */
  useModule(module) {
    if (module === this.module) return Promise.resolve();
    this.module = module;
    return this.restart(undefined, { quiet: true });
  }

  /** Sets the number of workers that compute runs (the engine worker's pool, pool.js; 1 = no pool: the engine
   * worker steps runs itself) and, with `minMs`, the least work worth the pool (pool.js), also after restarts. Returns the request's promise ({ size }). */
  setPoolSize(n, { minMs } = {}) {
    this.poolSize = n;
    this.poolMinMs = minMs;
    return this.request('pool.size', { size: n, minMs }).promise;
  }

  /** Load a trace; on success remember its files for restarts. Returns { id, promise, cancel }. */
  loadTrace(files, { name, expectSha256, onProgress } = {}) {
    const r = this.request('trace.load', { files, name, expectSha256 }, { onProgress });
    r.promise = r.promise.then((info) => {
      this.traceFiles = files;
      this.traceName = name;
      return info;
    });
    return r;
  }

  /** Load an uploaded workload (VM records); on success remember its files for restarts. Returns { id,
   * promise, cancel }; the promise resolves to { ref, name, sha256, summary }. */
  loadWorkload(files, { expectSha256, onProgress } = {}) {
    const r = this.request('workload.load', { files, expectSha256 }, { onProgress });
    r.promise = r.promise.then((info) => {
      this.workloadFiles = files;
      return info;
    });
    return r;
  }
}
