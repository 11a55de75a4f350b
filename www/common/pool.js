// The pool of Web Workers that computes a run's jobs beside the engine worker (the experiment contract's
// jobs → compute → absorb; run-ops.js). The engine worker is the coordinator: it asks its run for the next
// step's jobs, hands them one at a time to whichever member is free, and absorbs the results in job order. Members are engine workers too (worker.js through EngineWorker), each
// holding a copy of the run planned from the same scenario and inputs, so a job's result is bit for bit the
// coordinator's own and the report is the one worker's (tests/e2e/pool.test.mjs). The coordinator computes
// nothing while members work: it stays free to hand the next job to whichever member finishes first and to
// see Cancel at once.
//
// Size: the number of members, `navigator.hardwareConcurrency` by default (at most MAX_WORKERS); the
// 'pool.size' operation sets another (1 = no pool: the engine worker steps runs itself), e.g. from the page's
// `?workers=N`. A run uses the pool only when a step done by the engine worker puts the rest above `minMs`
// (DEFAULT_MIN_MS) and what the members save on it above twice their set-up (a copy of the run each, planned anew:
// run-ops.js `poolWorth`); `minMs` 0 sends every run with jobs to the pool (the tests).

import { EngineWorker } from './worker-client.js';

/** A run goes to the pool only when its first step says the rest takes longer than this (ms). */
export const DEFAULT_MIN_MS = 1000;

/** Most members a pool has. */
export const MAX_WORKERS = 16;

/** Members a pool has by default: one per core the browser reports. */
export function defaultSize() {
  const n = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(MAX_WORKERS, n));
}

export class Pool {
  /** @param {WebAssembly.Module} [module] the compiled engine, shared with the members */
  constructor(module) {
    this.module = module;
    this.size = defaultSize();
    this.minMs = DEFAULT_MIN_MS;
    this.members = []; // { engine: EngineWorker, trace: sha256 | null, workload: key | null, copy: key | null }
    this.drops = 0; // members dropped after failures
    this.broken = null; // why members are no longer used (after repeated failures)
  }

  /** Sets the number of members (1 = no pool), ending surplus members. */
  resize(n) {
    this.size = Math.max(1, Math.min(MAX_WORKERS, Math.floor(Number(n)) || 1));
    const keep = this.size > 1 ? this.size : 0;
    while (this.members.length > keep) this.members.pop().engine.worker.terminate();
  }

  /** Members to use now (`size` of them, started on first use); none when the pool is broken. */
  ensure() {
    if (this.broken) return [];
    while (this.members.length < this.size) {
      const engine = new EngineWorker({ module: this.module, onStatus: () => {} });
      this.members.push({ engine, trace: null, workload: null, copy: null });
    }
    return this.members;
  }

  /**
   * Brings member `m` to a copy of the run `copy` = { key, scenario, files, trace, workload }: `trace` and
   * `workload` are the coordinator's loaded inputs ({ files, name, sha256 } / { files, key } of an upload),
   * replayed into the member when it holds others.
   */
  async prepare(m, copy) {
    const e = m.engine;
    if (copy.trace && m.trace !== copy.trace.sha256) {
      await e.loadTrace(copy.trace.files, { name: copy.trace.name }).promise;
      m.trace = copy.trace.sha256;
      m.copy = null;
    }
    if (copy.workload && m.workload !== copy.workload.key) {
      await e.loadWorkload(copy.workload.files).promise;
      m.workload = copy.workload.key;
      m.copy = null;
    }
    if (m.copy !== copy.key) {
      await e.request('copy.plan', { key: copy.key, scenario: copy.scenario, files: copy.files }).promise;
      m.copy = copy.key;
    }
  }

  /**
   * The results of `jobs` (JSON texts) in job order. Members take one job at a time as they become free
   * (the coordinator only hands out jobs, so it answers at once and Cancel is seen within 20 ms), first the
   * jobs whose `affinity` maps to them;
   * `isCancelled()` stops handing out jobs (throws { kind: 'cancelled' }). A member that fails for any reason
   * but the engine's own error is dropped and its job handed to another; jobs no member could compute are
   * computed here with `computeHere(job)`. An engine error (kind 'run' or 'scenario') is thrown. Afterwards
   * `helped` is the number of members that computed at least one job.
   */
  async compute(copy, jobs, { computeHere, isCancelled }) {
    const results = new Array(jobs.length);
    const helped = new Set();
    const members = this.ensure();
    // a job with an `affinity` goes to member affinity mod M (where its caches are warm); the others, and
    // the jobs of a member that failed, to whichever member is free; a member with nothing left takes the
    // last job of the longest queue
    const queues = members.map(() => []);
    const shared = [];
    jobs.forEach((job, i) => {
      const a = JSON.parse(job).affinity;
      if (Number.isInteger(a) && a >= 0 && members.length) queues[a % members.length].push(i);
      else shared.push(i);
    });
    for (const q of queues) q.reverse(); // taken from the end: in job order
    const retry = shared.reverse();
    let failure = null;
    const take = (k) => {
      if (failure || isCancelled()) return -1;
      if (queues[k].length) return queues[k].pop();
      if (retry.length) return retry.pop();
      const longest = queues.reduce((a, q) => (q.length > a.length ? q : a), []);
      return longest.length ? longest.shift() : -1;
    };
    const serve = async (m, k) => {
      try {
        await this.prepare(m, copy);
      } catch (e) {
        retry.push(...queues[k].splice(0));
        this.drop(m, e);
        return;
      }
      for (let i = take(k); i >= 0; i = take(k)) {
        try {
          results[i] = await m.engine.request('copy.compute', { key: copy.key, job: jobs[i] }).promise;
          helped.add(m);
        } catch (e) {
          if (e && (e.kind === 'run' || e.kind === 'scenario')) { failure = failure || e; return; }
          retry.push(i, ...queues[k].splice(0));
          this.drop(m, e);
          return;
        }
      }
    };
    const served = Promise.all(members.map(serve));
    let done = false;
    served.then(() => { done = true; });
    while (!done) {
      if (isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
      await Promise.race([served, new Promise((r) => setTimeout(r, 20))]);
    }
    if (failure) throw failure;
    if (isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
    // what no member computed (every member failed)
    for (let i = 0; i < jobs.length; i++) if (results[i] === undefined) results[i] = computeHere(jobs[i]);
    this.helped = helped.size;
    return results;
  }

  /** Stops using member `m` after a failure that is not the engine's own (e.g. the worker died). */
  drop(m, e) {
    const at = this.members.indexOf(m);
    if (at >= 0) this.members.splice(at, 1);
    try { m.engine.worker.terminate(); } catch { /* already gone */ }
    this.drops += 1;
    if (this.drops > 2 * MAX_WORKERS) this.broken = (e && e.message) || String(e);
  }
}
