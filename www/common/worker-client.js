// Main-thread side of the compute worker: request/response with ids, progress callbacks, cancel.
//
// Cancel is two-level. First cooperative: the worker checks a flag between steps (frontier points, files) and
// rejects with { kind: 'cancelled' } within one step. If the worker has not answered after `hardCancelMs`
// (a single huge step), the worker is terminated and a fresh one is started; the loaded trace and an uploaded
// workload survive because this client keeps the last successfully loaded files and replays them into the new
// worker (a bundled workload is fetched again when a run needs it).

export class EngineWorker {
  /**
   * @param {object} opts
   * @param {WebAssembly.Module} [opts.module] compiled engine, shared with the worker (saves a compile)
   * @param {(state: string) => void} [opts.onStatus] 'restarting' | 'ready'
   */
  constructor({ module, onStatus } = {}) {
    this.module = module;
    this.onStatus = onStatus || (() => {});
    this.url = new URL('./worker.js', import.meta.url);
    this.pending = new Map();
    this.nextId = 1;
    this.traceFiles = null; // the last successfully loaded trace's files, replayed after a restart
    this.workloadFiles = null; // the last successfully loaded uploaded workload's files, likewise
    this.hardCancelMs = 2000;
    this.spawn();
  }

  spawn() {
    this.worker = new Worker(this.url, { type: 'module', name: 'packlab-engine' });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      const err = { kind: 'internal', fatal: true, message: `worker error: ${ev.message || 'failed to start'}` };
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.ready = this.request('init', { module: this.module }).promise;
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
      if (msg.error && msg.error.fatal) this.restart();
    }
  }

  /** Low-level request; returns { id, promise, cancel }. */
  request(op, payload, { onProgress } = {}) {
    const id = this.nextId++;
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    this.pending.set(id, { resolve, reject, onProgress, op });
    this.worker.postMessage({ id, op, payload });
    return { id, promise, cancel: () => this.cancel(id) };
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

  /** Terminate the worker (rejecting everything pending as cancelled) and start a fresh one with the trace. */
  async restart() {
    this.onStatus('restarting');
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
    this.restarting = Promise.all(replays).then(() => this.onStatus('ready'), (e) => this.onStatus('failed', e));
    return this.restarting;
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
