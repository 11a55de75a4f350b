// Worker-side operations shared by every model: one experiment loop for all of them (the engine's experiment
// contract, wasm ExperimentRun), run operations (queries on the last run) and scenario-level model operations.
//
//   'run'        { scenario, key? }            plan the scenario's model run, step it one unit at a time with
//                                          progress { done, total, partial } after each step and cooperative
//                                          Cancel between steps; result { report, elapsed_ms }. Models that
//                                          replay VM records (`uses_workload`) run on the scenario's workload
//                                          (inputs.js: a bundled one is loaded on first use, with progress
//                                          { stage: 'workload' }, and kept)
//   'run.query'  { scenario, op, args, key? }  an operation on the model's last run if its key matches (key =
//                                          what the run's state depends on; default the whole scenario), else
//                                          on a newly planned run (e.g. the placement teaching view 'machine')
//   'model.call' { scenario, op, args, file? }  a scenario-level operation of the model (file = { name, bytes })

import { workloadFor } from './inputs.js';

/** The scenario's model id (the engine's default model when the scenario names none). */
function modelOf(wasm, scenario) {
  return scenario.model || wasm.default_scenario().model;
}

/** The registry entry of the scenario's model ({ uses_trace, uses_workload, … }; {} when unknown). */
function infoOf(wasm, scenario) {
  return wasm.models().find((m) => m.id === modelOf(wasm, scenario)) || {};
}

/** Plan the scenario's run on the inputs its model reads (the registry says which). */
async function plan(ctx, scenario) {
  const { wasm, state } = ctx;
  const info = infoOf(wasm, scenario);
  if (info.uses_workload) {
    // the engine checks the reference (workload.bundled / workload.upload) before anything is fetched
    const checked = wasm.check_scenario(scenario);
    if (checked.errors.length) throw { kind: 'scenario', ...checked.errors[0], errors: checked.errors };
    const workload = await workloadFor(ctx, checked.scenario.workload);
    return wasm.ExperimentRun.with_workload(workload, scenario);
  }
  if (!info.uses_trace) return new wasm.ExperimentRun(scenario);
  if (!state.trace) throw { kind: 'input', message: 'no trace is loaded' };
  return wasm.ExperimentRun.with_trace(state.trace, scenario);
}

/** Keep `run` as the model's last run under `key` (freeing the previous one). */
function keep(wasm, state, scenario, key, run) {
  const model = modelOf(wasm, scenario);
  const prev = state.models[model];
  if (prev && prev.run && prev.run !== run) prev.run.free();
  state.models[model] = { key: key ?? JSON.stringify(scenario), run };
}

export const runOps = {
  async run({ scenario, key }, ctx) {
    const t0 = performance.now();
    const run = await plan(ctx, scenario); // throws { kind: 'scenario' | 'run', field?, message }
    let kept = false;
    try {
      const total = run.total();
      ctx.progress({ done: 0, total });
      for (;;) {
        await ctx.yield();
        if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
        const partial = run.step();
        if (partial === null) break;
        ctx.progress({ done: run.done(), total, partial });
      }
      const report = run.report();
      keep(ctx.wasm, ctx.state, scenario, key, run);
      kept = true;
      return { report, elapsed_ms: performance.now() - t0 };
    } finally {
      if (!kept) run.free();
    }
  },

  async 'run.query'({ scenario, op, args, key }, ctx) {
    const { state, wasm } = ctx;
    const model = modelOf(wasm, scenario);
    let cache = state.models[model];
    if (!cache || cache.key !== (key ?? JSON.stringify(scenario))) {
      keep(wasm, state, scenario, key, await plan(ctx, scenario));
      cache = state.models[model];
    }
    return cache.run.query(op, args);
  },

  async 'model.call'({ scenario, op, args, file }, ctx) {
    return ctx.wasm.model_call(scenario, op, args ?? null, file ? file.name : undefined, file ? file.bytes : undefined);
  },
};
