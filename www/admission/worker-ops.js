// Worker-side operations of the admission model (cluster admission control, seed 000, ALGORITHMS.md §2).
// Runs go through the shared 'run' operation (../common/run-ops.js): one simulation run per step, progress
// after every run, cooperative Cancel between runs. The run view uses 'model.call' with the operation
// 'series'. What is the model's own here: fetching the bundled Azure arrivals for the 'azure_fit' operation.

export const admissionOps = {
  /**
   * Fit the bundled Azure 2017 arrivals (the engine's bundled-data registry names the file; fetched once) and
   * write the identified parameters into the scenario: { scenario, fit }.
   */
  async 'admission.azure'({ scenario }, ctx) {
    const { state, wasm } = ctx;
    const entry = wasm.bundled_data().find((d) => d.kind === 'azure-arrivals');
    if (!entry) throw { kind: 'input', field: 'admission.source', message: 'this engine bundles no Azure arrivals' };
    const name = entry.path.split('/').pop();
    if (!state.azureBytes) {
      // the worker is www/common/worker.js; static/ is served beside www/
      const resp = await fetch(new URL(`../${entry.path}`, self.location.href));
      if (!resp.ok) throw { kind: 'input', field: 'admission.source', message: `the Azure arrivals could not be loaded (HTTP ${resp.status})` };
      state.azureBytes = new Uint8Array(await resp.arrayBuffer());
    }
    return wasm.model_call(scenario, 'azure_fit', null, name, state.azureBytes);
  },
};
