// Worker-side operations shared by every model: one experiment loop for all of them (the engine's experiment
// contract, wasm ExperimentRun), run operations (queries on the last run) and scenario-level model operations.
//
//   'run'        { scenario, key?, files?, reportJson?, transient? }  plan the scenario's model run, step it one unit at a time with
//                                          progress { done, total, partial } after each step and cooperative
//                                          Cancel and Pause between steps (a paused run reports progress
//                                          { stage: 'paused', done, total }, waits without losing its state and
//                                          goes on after Resume with { stage: 'resumed', … }); result
//                                          { report, elapsed_ms, workers } (workers: how many computed
//                                          part of it: the pool's members that took part, or 1;
//                                          report_json: the report as `packlab run` prints it, with reportJson). Models that replay VM records
//                                          (`uses_workload`) run on the scenario's workload (inputs.js: a bundled
//                                          one is loaded on first use, with progress { stage: 'workload' }, and
//                                          kept). `files` = [{ name, bytes }]: named input files the run reads
//                                          (the engine's Inputs.files, e.g. a trained oversub policy).
//                                          `transient`: the run is freed at its end and the model's last run
//                                          (which 'run.query' answers from) stays as it was (a view's side
//                                          runs, e.g. the lifetime view's accuracy frontier)
//   'run.size'   { scenario, files? }     the number of steps of the scenario's run (planned, not stepped): { total }
//   'run.query'  { scenario, op, args, key?, files? }  an operation on the model's last run if its key matches (key =
//                                          what the run's state depends on; default the whole scenario), else
//                                          on a newly planned run (e.g. the placement teaching view 'machine')
//   'model.call' { scenario, op, args, file? }  a scenario-level operation of the model (file = { name, bytes })
//   'copy.plan'  { key, scenario, files? }   (pool members, pool.js) plan a copy of the coordinator's run
//   'copy.compute' { key, job }             (pool members) compute one job of it; result its JSON text
//
// A run whose steps split into jobs (the engine's jobs/compute/absorb: frontier points, simulation runs of a
// tuning) has each step's jobs computed by the pool of workers (pool.js) and this worker together; the
// partial results and the report are those of stepping it here alone.

import { workloadFor, toBytes } from './inputs.js';

/** The scenario's model id (the engine's default model when the scenario names none). */
function modelOf(wasm, scenario) {
  return scenario.model || wasm.default_scenario().model;
}

/** The registry entry of the scenario's model ({ uses_trace, uses_workload, … }; {} when unknown). */
function infoOf(wasm, scenario) {
  return wasm.models().find((m) => m.id === modelOf(wasm, scenario)) || {};
}

/** Plan the scenario's run on the inputs its model reads (the registry says which: the loaded trace, the
 * scenario's workload) and the named input `files` ([{ name, bytes }]), gathered in the engine's RunInputs
 * for its one constructor (which validates the scenario). */
async function plan(ctx, scenario, files) {
  const { wasm, state } = ctx;
  const info = infoOf(wasm, scenario);
  const inputs = new wasm.RunInputs();
  try {
    if (info.uses_workload) {
      // the engine checks the reference (workload.bundled / workload.upload) before anything is fetched
      const checked = wasm.check_scenario(scenario);
      if (checked.errors.length) throw { kind: 'scenario', ...checked.errors[0], errors: checked.errors };
      inputs.use_workload(await workloadFor(ctx, checked.scenario.workload));
    }
    if (info.uses_trace) {
      if (!state.trace) throw { kind: 'input', message: 'no trace is loaded' };
      inputs.use_trace(state.trace);
    }
    for (const f of files || []) inputs.add(String(f.name), await toBytes(f.bytes));
  } catch (e) {
    inputs.free();
    throw e;
  }
  return new wasm.ExperimentRun(scenario, inputs); // takes the inputs (and frees them)
}

/**
 * Whether the rest of a run (`left` units of `unitMs` each, the mean of the steps done here: one dear unit, e.g.
 * one costly fit test among the frontier's, must not stand for the rest) is worth the pool:
 * more than `pool.minMs` of work, and what `pool.size` members save on it, rest × (1 − 1/size), more than twice
 * their set-up: each fresh member starts and plans a copy of the run, ~1.3 × this worker's `planMs` + 70 ms (a
 * fresh worker planned placement's resampled 60,000 frontier in 908 ms against 699–718 ms once warm, and started
 * and loaded the trace in 68 ms; the factor 2 covers a first step's overestimate of `unitMs` (the code's first run)).
 * Without the set-up term the placement frontier resampled 20,000 / 60,000 times took 2.6 / 6.6 s on 2 members
 * against 1.1 / 3.2 s on one worker: its plan (the resampling) is as dear as its points (results/bench/pool.txt).
 * `pool.minMs` 0 sends every run with jobs to the pool, whatever its set-up (the tests' setting).
 */
export function poolWorth(pool, unitMs, left, planMs) {
  if (unitMs === null) return false;
  const rest = unitMs * left;
  if (pool.minMs === 0) return rest > 0;
  const setupMs = 1.3 * planMs + 70;
  return rest > pool.minMs && rest * (1 - 1 / pool.size) > 2 * setupMs;
}

/** Jobs a step hands each worker of the pool (a step's partial results arrive when all its jobs are done). */
const JOBS_PER_WORKER = 2;

let copies = 0;

/** What the pool's members need to plan a copy of this run: the scenario, its input files and the loaded
 * inputs it reads (the trace; an uploaded workload), under a key unique to this run. */
function copyOf(ctx, scenario, files) {
  const { state, wasm } = ctx;
  const info = infoOf(wasm, scenario);
  copies += 1;
  return {
    key: `run-${copies}`,
    scenario,
    files,
    trace: info.uses_trace ? state.traceSource : null,
    workload: info.uses_workload && state.workload && state.workload.ref.upload ? state.workloadSource : null,
  };
}

/** Free the model's last run. */
function forget(wasm, state, scenario) {
  const model = modelOf(wasm, scenario);
  const prev = state.models[model];
  if (prev && prev.run) prev.run.free();
  delete state.models[model];
}

/** Keep `run` as the model's last run under `key` (freeing the previous one). */
function keep(wasm, state, scenario, key, run) {
  const model = modelOf(wasm, scenario);
  const prev = state.models[model];
  if (prev && prev.run && prev.run !== run) prev.run.free();
  state.models[model] = { key: key ?? JSON.stringify(scenario), run };
}

export const runOps = {
  async run({ scenario, key, files, reportJson, transient }, ctx) {
    const t0 = performance.now();
    // the model's last run is freed first, so that what it leaves for the next run (e.g. the admission
    // model's alive tables) reaches this one; a run.query planned anew answers the same
    if (!transient) forget(ctx.wasm, ctx.state, scenario);
    const p0 = performance.now();
    const run = await plan(ctx, scenario, files); // throws { kind: 'scenario' | 'run', field?, message }
    const planMs = performance.now() - p0;
    let kept = false;
    let pausedMs = 0;
    let copy = null; // what the pool's members plan their copies of this run from
    let workers = 1; // workers that computed part of the run
    let hereMs = 0; // time of the steps done here
    let hereUnits = 0; // units of work they did
    try {
      const total = run.total();
      ctx.progress({ done: 0, total });
      for (;;) {
        await ctx.yield();
        if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
        if (ctx.isPaused()) {
          const p0 = performance.now();
          ctx.progress({ stage: 'paused', done: run.done(), total });
          await ctx.untilResumed(); // also ends on Cancel
          pausedMs += performance.now() - p0;
          if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
          ctx.progress({ stage: 'resumed', done: run.done(), total });
        }
        // a step split into jobs goes to the pool of workers once a step done here says the rest is worth it;
        // any other step is done here (poolWorth)
        const pool = ctx.pool && ctx.pool.size > 1 && (copy !== null || poolWorth(ctx.pool, hereUnits > 0 ? hereMs / hereUnits : null, total - run.done(), planMs)) ? ctx.pool : null;
        const jobs = pool ? run.jobs(pool.size * JOBS_PER_WORKER) : [];
        let partials;
        if (jobs.length) {
          copy = copy || copyOf(ctx, scenario, files);
          const results = await pool.compute(copy, jobs, {
            computeHere: (job) => run.compute(job),
            isCancelled: ctx.isCancelled,
          });
          partials = run.absorb(results);
          workers = Math.max(workers, pool.helped);
        } else {
          const s0 = performance.now();
          const before = run.done();
          const partial = run.step();
          if (partial === null) break;
          hereMs += performance.now() - s0;
          hereUnits += run.done() - before;
          partials = [partial];
        }
        for (const partial of partials) ctx.progress({ done: run.done(), total, partial });
      }
      const report = run.report();
      const json = reportJson ? run.report_json() : undefined;
      if (!transient) {
        keep(ctx.wasm, ctx.state, scenario, key, run);
        kept = true;
      }
      return { report, report_json: json, elapsed_ms: performance.now() - t0 - pausedMs, paused_ms: pausedMs, workers };
    } finally {
      if (!kept) run.free();
    }
  },

  async 'run.query'({ scenario, op, args, key, files }, ctx) {
    const { state, wasm } = ctx;
    const model = modelOf(wasm, scenario);
    let cache = state.models[model];
    if (!cache || cache.key !== (key ?? JSON.stringify(scenario))) {
      keep(wasm, state, scenario, key, await plan(ctx, scenario, files));
      cache = state.models[model];
    }
    return cache.run.query(op, args);
  },

  /** How many units of work (steps) the scenario's run is made of: planned, counted and freed, nothing
   * computed; result { total }. The cost a findings link states before Run (run-view.js). */
  async 'run.size'({ scenario, files }, ctx) {
    const run = await plan(ctx, scenario, files);
    try {
      return { total: run.total() };
    } finally {
      run.free();
    }
  },

  /** Pool member: plan a copy of a run under `key` (replacing the previous copy); result { total }. */
  async 'copy.plan'({ key, scenario, files }, ctx) {
    const { state } = ctx;
    if (!state.copy || state.copy.key !== key) {
      // the previous copy is freed first: what it leaves (e.g. alive tables) reaches the new one
      if (state.copy) state.copy.run.free();
      state.copy = null;
      state.copy = { key, run: await plan(ctx, scenario, files) };
    }
    return { total: state.copy.run.total() };
  },

  /** Pool member: compute one job (JSON text) on the copy `key`; result the job's result (JSON text). */
  async 'copy.compute'({ key, job }, ctx) {
    const { state } = ctx;
    if (!state.copy || state.copy.key !== key) throw { kind: 'internal', message: `no copy of run ${key} here` };
    return state.copy.run.compute(job);
  },

  async 'model.call'({ scenario, op, args, file }, ctx) {
    return ctx.wasm.model_call(scenario, op, args ?? null, file ? file.name : undefined, file ? file.bytes : undefined);
  },
};
