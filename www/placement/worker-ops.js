// Worker-side operations of the placement model (stochastic bin packing with GPA, seed 002).
// Registered into the generic worker (../common/worker.js) under the 'placement.' prefix.

/** Cache key of a run's instance: everything Instance::new and the packing depend on (not the fit, grids, target). */
function instanceKey(s) {
  const p = s.placement || {};
  return JSON.stringify([s.trace, s.seed, p.capacity, p.clairvoyance, p.mode, p.realisations, p.rule, p.rebalance]);
}

export const placementOps = {
  /**
   * Compute the scenario's frontier point by point: progress { done, total, point } after each point,
   * cooperative cancel between points. Result: { frontier, elapsed_ms }.
   */
  async 'placement.run'({ scenario }, ctx) {
    const { wasm, state } = ctx;
    if (!state.trace) throw { kind: 'input', message: 'no trace is loaded' };
    const t0 = performance.now();
    const run = new wasm.PlacementRun(state.trace, scenario); // throws { kind: 'scenario' | 'placement' }
    let keep = false;
    try {
      const total = run.total();
      ctx.progress({ done: 0, total });
      for (let k = 0; k < total; k++) {
        await ctx.yield();
        if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
        const point = run.step();
        ctx.progress({ done: k + 1, total, point });
      }
      const frontier = run.finish();
      const cache = state.models.placement;
      if (cache && cache.run) cache.run.free();
      state.models.placement = { key: instanceKey(scenario), run };
      keep = true;
      return { frontier, elapsed_ms: performance.now() - t0 };
    } finally {
      if (!keep) run.free();
    }
  },

  /** The teaching view of machine `machine` under fit `fit`: { fit, packing, view }. */
  async 'placement.machine'({ scenario, fit, machine }, ctx) {
    const { wasm, state } = ctx;
    if (!state.trace) throw { kind: 'input', message: 'no trace is loaded' };
    let cache = state.models.placement;
    if (!cache || cache.key !== instanceKey(scenario)) {
      if (cache && cache.run) cache.run.free();
      cache = state.models.placement = { key: instanceKey(scenario), run: new wasm.PlacementRun(state.trace, scenario) };
    }
    return cache.run.machine(fit, machine);
  },
};
