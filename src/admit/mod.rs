//! Cluster admission control (seed 000, ALGORITHMS.md §2): deployments that scale out, Bayesian moment
//! policies tuned to a scale-out SLA.
//!
//! Units throughout: time in hours, rates per hour, capacity and sizes in cores.
//!
//! * [`moments`]: E[X_t], Var[X_t] for known parameters (§2.4) and Gamma posteriors (§2.6.3), alive tables
//!   (§2.5), the paper-style factorised and no-absorption ablations, and the lattice cache of §2.7.
//! * [`posterior`]: sufficient statistics and the VB update (§2.6.1–§2.6.2).
//! * [`policy`]: ZEROTH / FIRST / SECOND (+ MARGINAL) on the 5 × 600 look-ahead (§2.7).
//! * [`sim`]: the exact continuous-time cluster simulator on the shared [`crate::des`] kernel (§2.1, §2.10).
//! * [`tuning`]: threshold binary search with common random numbers, BCa CIs, presets E0.1–E0.4 (§2.8, §2.12).
//! * [`importance`]: importance sampling of runs (badness buckets, rejection scheme, weights; §2.9), an option.
//! * [`load`]: unconstrained offered load and the cluster share of a data-fitted arrival stream (§2.13).
//! * [`params`]: the serde parameter struct with the §2.13 defaults.
//! * [`rng`]: per-(seed, component) random streams (§0).

pub mod fit;
pub mod importance;
pub mod load;
pub mod moments;
pub mod params;
pub mod policy;
pub mod posterior;
pub mod rng;
pub mod sim;
pub mod special;
pub mod tuning;
