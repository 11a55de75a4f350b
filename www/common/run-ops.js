// Worker-side operations shared by every model: one experiment loop for all of them (the engine's experiment
// contract, wasm ExperimentRun), run operations (queries on the last run) and scenario-level model operations.
//
//   'run'        { scenario, key? }            plan the scenario's model run, step it one unit at a time with
//                                          progress { done, total, partial } after each step and cooperative
//                                          Cancel between steps; result { report, elapsed_ms }
//   'run.query'  { scenario, op, args, key? }  an operation on the model's last run if its key matches (key =
//                                          what the run's state depends on; default the whole scenario), else
//                                          on a newly planned run (e.g. the placement teaching view 'machine')
//   'model.call' { scenario, op, args, file? }  a scenario-level operation of the model (file = { name, bytes })

/** The scenario's model id (the engine's default model when the scenario names none). */
function modelOf(wasm, scenario) {
  return scenario.model || wasm.default_scenario().model;
}

/** Whether the scenario's model reads the loaded trace (from the engine's registry). */
function usesTrace(wasm, scenario) {
  const info = wasm.models().find((m) => m.id === modelOf(wasm, scenario));
  return !!(info && info.uses_trace);
}

function plan(ctx, scenario) {
  const { wasm, state } = ctx;
  if (!usesTrace(wasm, scenario)) return new wasm.ExperimentRun(scenario);
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
    const run = plan(ctx, scenario); // throws { kind: 'scenario' | 'run', field?, message }
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
      keep(wasm, state, scenario, key, plan(ctx, scenario));
      cache = state.models[model];
    }
    return cache.run.query(op, args);
  },

  async 'model.call'({ scenario, op, args, file }, ctx) {
    return ctx.wasm.model_call(scenario, op, args ?? null, file ? file.name : undefined, file ? file.bytes : undefined);
  },
};
