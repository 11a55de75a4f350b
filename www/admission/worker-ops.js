// Worker-side operations of the admission model (cluster admission control, seed 000, ALGORITHMS.md §2).
// Runs go through the shared 'run' operation (../common/run-ops.js): one simulation run per step, progress
// after every run, cooperative Cancel between runs. The run view uses 'model.call' with the operation
// 'series'. What is the model's own here: the 'azure_fit' operation on the bundled Azure arrivals (fetched once
// per worker by ../common/inputs.js).

import { bundledBytes } from '../common/inputs.js';

export const admissionOps = {
  /**
   * Fit the bundled Azure 2017 arrivals (the engine's bundled-data registry names the file) and write the
   * identified parameters into the scenario: { scenario, fit } (the engine answers the fitted section).
   */
  async 'admission.azure'({ scenario }, ctx) {
    const entry = ctx.wasm.bundled_data().find((d) => d.kind === 'azure-arrivals');
    if (!entry) throw { kind: 'input', field: 'admission.source', message: 'this engine bundles no Azure arrivals' };
    const file = await bundledBytes(ctx, entry.id, 'admission.source');
    const { admission, fit } = ctx.wasm.model_call(scenario, 'azure_fit', null, file.name, file.bytes);
    return { scenario: { ...scenario, admission }, fit };
  },
};
