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
    this.ready = this.request('init', { module: this.module, warm: this.warm }, { direct: true }).promise;
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
    if (!rejected) this.dropSent(err);
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < 60_000).concat(now);
    if (this.crashes.length > this.maxCrashes) {
      this.worker.terminate();
      this.onStatus('failed', message);
      return;
    }
    this.restart(message);
  }

  /** Low-level request; returns { id, promise, cancel, pause, resume }. While the worker moves to another
   * module (useModule) it is held and sent to the new worker; `direct` (the client's own init and replays) sends
   * it to the current worker anyway. */
  request(op, payload, { onProgress, direct = false } = {}) {
    const id = this.nextId++;
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    const queued = !direct && !!this.outbox;
    this.pending.set(id, { resolve, reject, onProgress, op, queued });
    this.send({ id, op, payload }, queued);
    return { id, promise, cancel: () => this.cancel(id), pause: () => this.pause(id), resume: () => this.resume(id) };
  }

  /** Post `msg` to the worker, or hold it (in order) until a module switch is done. */
  send(msg, held = !!this.outbox) {
    if (held) this.outbox.push(msg);
    else this.worker.postMessage(msg);
  }

  /** Reject what was sent to the current worker with `err` (requests held for the next one stay). */
  dropSent(err) {
    for (const [id, p] of this.pending) {
      if (p.queued) continue;
      clearTimeout(p.hardTimer);
      p.reject(err);
      this.pending.delete(id);
    }
  }

  /** Ask request `id` (a run) to stop between two steps until `resume(id)`; its state is kept. */
  pause(id) {
    const p = this.pending.get(id);
    if (p) this.send({ op: 'pause', target: id }, p.queued);
  }

  /** Let the paused request `id` go on. */
  resume(id) {
    const p = this.pending.get(id);
    if (p) this.send({ op: 'resume', target: id }, p.queued);
  }

  /** Cancel request `id`: cooperative first, terminate + restart if the worker does not answer in time. A
   * request held during a module switch is dropped here, never sent. */
  cancel(id) {
    const p = this.pending.get(id);
    if (!p) return;
    if (p.queued) {
      this.outbox = this.outbox.filter((m) => m.id !== id && m.target !== id);
      this.pending.delete(id);
      p.reject({ kind: 'cancelled', message: 'cancelled' });
      return;
    }
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
    this.dropSent({ kind: 'cancelled', message: 'cancelled (the engine was restarted)' });
    // init and the trace replay are queued first in the new worker, so later requests see the trace
    this.spawn();
    const replays = [this.ready];
    const direct = { direct: true };
    if (this.traceFiles) replays.push(this.request('trace.load', { files: this.traceFiles, name: this.traceName }, direct).promise);
    if (this.workloadFiles) replays.push(this.request('workload.load', { files: this.workloadFiles }, direct).promise);
    if (this.poolSize !== undefined) replays.push(this.request('pool.size', { size: this.poolSize, minMs: this.poolMinMs }, direct).promise);
    this.restarting = Promise.all(replays).then(() => { if (!quiet) this.onStatus('ready', reason); },
      (e) => this.onStatus('failed', (e && e.message) || String(e)));
    return this.restarting;
  }

  /** Runs on the compiled engine `module` from now on (issue 30: the page's first module, placement without
   * scripts, gives way to the full one): what was sent to the worker finishes there first (a run in progress is
   * not lost; a paused one holds the switch as it holds every later request, until Resume or Cancel); requests
   * made meanwhile are held; then a fresh worker on `module`, with the trace, workload and pool size replayed,
   * takes the held requests in order. Resolves once the new worker is ready. */
  useModule(module) {
    if (module === this.module) return this.switching || Promise.resolve();
    this.module = module;
    this.outbox = this.outbox || [];
    this.switching = (async () => {
      const sent = () => [...this.pending.values()].some((p) => !p.queued);
      while (sent()) await new Promise((r) => setTimeout(r, 50));
      const held = this.outbox;
      this.outbox = null;
      this.switching = null;
      for (const p of this.pending.values()) p.queued = false;
      this.restart(undefined, { quiet: true }); // posts the init and the replays before the held requests
      for (const m of held) this.worker.postMessage(m);
      return this.restarting;
    })();
    return this.switching;
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
