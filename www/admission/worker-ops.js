// Worker-side operations of the admission model (cluster admission control, seed 000, ALGORITHMS.md §2).
// Registered into the generic worker (../common/worker.js) under the 'admission.' prefix.
//
// An experiment runs one simulation run per step (wasm AdmissionRun.step): progress after every run,
// cooperative Cancel between runs (a run takes well under a second at the playground's scale; the client's
// kill-and-restart fallback covers anything longer).

export const admissionOps = {
  /**
   * Tune every selected arm of the scenario's preset. Progress { done, total, step } after each run, where
   * step = { arm, label, evaluated, finished } (see AdmissionRun.step). Result: { report, elapsed_ms }.
   */
  async 'admission.run'({ scenario }, ctx) {
    const { wasm } = ctx;
    const t0 = performance.now();
    const run = new wasm.AdmissionRun(scenario); // throws { kind: 'scenario', field, message }
    try {
      const total = run.total();
      ctx.progress({ done: 0, total });
      for (;;) {
        await ctx.yield();
        if (ctx.isCancelled()) throw { kind: 'cancelled', message: 'cancelled' };
        const step = run.step();
        if (step === null) break;
        ctx.progress({ done: step.done, total: step.total, step });
      }
      return { report: run.report(), elapsed_ms: performance.now() - t0 };
    } finally {
      run.free();
    }
  },

  /**
   * Fit the bundled Azure 2017 arrivals (static/traces/azure2017-arrivals.txt.gz, fetched once) and write the
   * identified parameters into the scenario: { scenario, fit }.
   */
  async 'admission.azure'({ scenario }, ctx) {
    const { state } = ctx;
    if (!state.azureBytes) {
      const resp = await fetch(new URL('../static/traces/azure2017-arrivals.txt.gz', self.location.href) /* the worker is www/common/worker.js; static/ is served beside www/ */);
      if (!resp.ok) throw { kind: 'input', field: 'admission.source', message: `the Azure arrivals could not be loaded (HTTP ${resp.status})` };
      state.azureBytes = new Uint8Array(await resp.arrayBuffer());
    }
    return ctx.wasm.admission_azure_fit(state.azureBytes, scenario);
  },

  /** One run with its time series: { t, active, failures, accepted, rejected, capacity, utilization, ... }. */
  async 'admission.series'({ scenario, label, threshold, run, points }, ctx) {
    return ctx.wasm.admission_series(scenario, label || '', threshold, run || 0, points || 400);
  },
};
