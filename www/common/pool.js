// The pool of Web Workers that computes a run's jobs beside the engine worker (the experiment contract's
// jobs → compute → absorb; run-ops.js). The engine worker is the coordinator: it asks its run for the next
// step's jobs, hands them one at a time to whichever member is free, computes jobs itself meanwhile, and
// absorbs the results in job order. Members are engine workers too (worker.js through EngineWorker), each
// holding a copy of the run planned from the same scenario and inputs, so a job's result is bit for bit the
// coordinator's own and the report is the one worker's (tests/e2e/pool.test.mjs).
//
// Size: `navigator.hardwareConcurrency` workers in all (the coordinator and size − 1 members), at most
// MAX_WORKERS; the 'pool.size' operation sets another size (1 = no pool), e.g. from the page's `?workers=N`.

import { EngineWorker } from './worker-client.js';

/** Most workers a pool uses (coordinator included). */
export const MAX_WORKERS = 16;

/** Workers the pool uses by default: every core the browser reports. */
export function defaultSize() {
  const n = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(MAX_WORKERS, n));
}

export class Pool {
  /** @param {WebAssembly.Module} [module] the compiled engine, shared with the members */
  constructor(module) {
    this.module = module;
    this.size = defaultSize();
    this.members = []; // { engine: EngineWorker, trace: sha256 | null, workload: key | null, copy: key | null, busy }
    this.drops = 0; // members dropped after failures
    this.broken = null; // why members are no longer used (after repeated failures)
  }

  /** Sets the number of workers (coordinator included), ending surplus members. */
  resize(n) {
    this.size = Math.max(1, Math.min(MAX_WORKERS, Math.floor(Number(n)) || 1));
    while (this.members.length > this.size - 1) this.members.pop().engine.worker.terminate();
  }

  /** Members to use now (size − 1 of them, started on first use); none when the pool is broken. */
  ensure() {
    if (this.broken) return [];
    while (this.members.length < this.size - 1) {
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
   * The results of `jobs` (JSON texts) in job order: members take one job at a time, `computeHere(job)`
   * computes jobs on the coordinator in between; `isCancelled()` stops handing out jobs (throws { kind:
   * 'cancelled' }). A member that fails for any reason but the engine's own error is dropped and its job
   * computed here; an engine error (kind 'run' or 'scenario') is thrown. Afterwards `helped` is the number of
   * members that computed at least one job.
   */
  async compute(copy, jobs, { computeHere, isCancelled, yieldNow }) {
    const results = new Array(jobs.length);
    const helped = new Set();
    let next = 0;
    let failure = null;
    const members = this.ensure();
    const take = () => (next < jobs.length && !failure && !isCancelled() ? next++ : -1);
    const serve = async (m) => {
      try {
        await this.prepare(m, copy);
      } catch (e) {
        this.drop(m, e);
        return;
      }
      for (let i = take(); i >= 0; i = take()) {
        try {
          results[i] = await m.engine.request('copy.compute', { key: copy.key, job: jobs[i] }).promise;
          helped.add(m);
        } catch (e) {
          if (e && (e.kind === 'run' || e.kind === 'scenario')) { failure = failure || e; return; }
          this.drop(m, e);
          results[i] = undefined;
          pending.push(i); // computed here instead
          return;
        }
      }
    };
    const pending = [];
    const served = Promise.all(members.map(serve));
    let allServed = false;
    served.then(() => { allServed = true; });
    // the coordinator computes jobs too, yielding between them so that members' answers are taken in
    for (;;) {
      if (failure) throw failure;
      if (isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
      let i = pending.length ? pending.pop() : take();
      if (i >= 0) {
        results[i] = computeHere(jobs[i]);
        await yieldNow();
        continue;
      }
      if (allServed) break;
      await Promise.race([served, new Promise((r) => setTimeout(r, 5))]);
    }
    await served;
    if (failure) throw failure;
    for (const i of pending.splice(0)) results[i] = computeHere(jobs[i]);
    if (isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
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
