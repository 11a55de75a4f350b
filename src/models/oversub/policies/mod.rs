//! The rate policies (ALGORITHMS.md §3.4, two further baselines, and C2MARL acting with a trained policy):
//! one file per policy, each a [`RatePolicy`]; [`spec`] holds the names a scenario gives them, [`resolve`]
//! turns a name into a policy, [`estimates`] fits what SL and GPA learn from the history days.
//!
//! A policy that sets a rate per subscriber and hour from the subscriber's usage history (the episode's
//! [`SubHour`] statistics of the hours before `t`, `cluster.episode().stat(t, n)`) is a [`RatePolicy`] ([`rule`]) like these.
//!
//! A PM is hot when its usage reaches β·B, and a PM filled to `B` assigned cores at rate x holds `B/x`
//! requested cores, so a predicted usage fraction u keeps a full PM below the line iff `x ≥ u/β`. The
//! predictors below therefore give the rate `clip(prediction/β, min_rate, 1)` (`predictor_target` overrides
//! β here). ALGORITHMS.md §3.4 writes `clip(prediction)` without the `1/β` (`predictor_target` = 1); with it, a full
//! PM's predicted usage is its whole capacity, far above β·B: in the environment of defaults set 13 MA, SL and the
//! p95 peak predictor then save 74.6 / 64.9 / 65.1% at PM-Hot-R 21 / 14 / 20% (unsafe at α = 0.85 and 0.95;
//! results/001/tables.md, variants), while the paper reports MA and SL safe with about 49% saved cores, rates the
//! `1/β` reading gives.
//!
//! - **Grid-x**: every rate is `x`.
//! - **MA** (Chen et al. 2018b): the mean over the last `ma_window_h` hours of the subscriber's 95th-percentile
//!   VM usage rate, over β, clipped to `[min_rate, 1]`.
//! - **SL** (Kumbhare et al. 2021): the maximum over the history days of the subscriber's VM usage rates by
//!   hour of day (to the upper edge of its 1% bin), over β, clipped.
//! - **Peak predictor** (in the style of Google's overcommit simulator, which predicts a machine's peak from
//!   its tasks' recent usage): the p-th percentile, or mean + N·sd, of the subscriber's VM-hour usage rates
//!   over the last `peak_window_h` hours, over β, clipped.
//! - **GPA** (seed 002's Gaussian percentile test applied to rates; links the two papers): the smallest rate
//!   x such that a PM filled to `B` assigned cores with the subscriber's VMs (`B/x` requested cores) keeps
//!   `P(usage ≥ β·B) ≤ ρ` under the Gaussian approximation, at every hour of day of the next
//!   `gpa_horizon_h` hours: `μ·R + z·s·√(κ·R) ≤ β·B` with `R = B/x`, `κ = E[c²]/E[c]`,
//!   `z = Φ⁻¹(1 − ρ)` and `ρ = (1 − α)·δ` (per PM, hot probability ρ per hour gives an expected hot fraction
//!   ρ, so `P(hot_k ≥ δ) ≤ ρ/δ = 1 − α` by Markov's inequality, seed 001 Theorem 3). μ and s are the
//!   subscriber's VM-level usage mean and sd by hour of day, estimated on the history days.
//!
//! Windows that hold no VM give rate 1 (nothing is known, nothing is oversubscribed).

pub mod c2marl;
pub mod estimates;
pub mod gpa;
pub mod grid;
pub mod hook;
pub mod ma;
pub mod peak;
pub mod resolve;
pub mod rule;
pub mod script;
pub mod sl;
pub mod spec;

#[cfg(doc)]
use super::profile::SubHour;

pub use estimates::Estimates;
pub use resolve::resolve;
pub use rule::{Predictor, RatePolicy};
