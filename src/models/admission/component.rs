//! Component ids of the admission model's random streams (§0; streams from [`crate::substrate::rng`]).

/// Arrival times of the run.
pub const ARRIVAL_TIMES: u64 = 1;
/// Per-arrival deployment type (θ, n0, max lifetime, user types).
pub const ARRIVAL_TYPE: u64 = 2;
/// Per-deployment event stream (core deaths, scale-outs, sizes).
pub const DEPLOYMENT: u64 = 3;
/// Per-arrival pseudo-observations (§2.11).
pub const PSEUDO_OBS: u64 = 4;
/// Bootstrap resampling.
pub const BOOTSTRAP: u64 = crate::substrate::rng::BOOTSTRAP;
/// Importance-sampling pre-draws and rejection.
pub const IMPORTANCE: u64 = 6;
