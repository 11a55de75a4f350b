// Worker-side operations of the placement model (stochastic bin packing with GPA, seed 002): none of its own.
// Runs go through the shared 'run' operation (../common/run-ops.js, the engine's experiment contract) and the
// teaching view through 'run.query' with the run operation 'machine'.
export const placementOps = {};
