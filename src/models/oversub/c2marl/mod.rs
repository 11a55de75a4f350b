//! C2MARL, chance-constrained multi-agent reinforcement learning (seed 001 §5.3, Algorithm 1; ALGORITHMS.md
//! §3.3): value decomposition with a cluster term,
//!
//! ```text
//! Q_tot(s_t, a_t) = Q^c(s^c_t; θ^c) + Σ_i m_t^i · Q^i(o_t^i, a_t^i; θ^i)
//! ```
//!
//! trained by double-Q TD learning on the Lagrangian-shaped reward `r_t + λ·(c − C_c(s_t))`, with one dual
//! step on λ per episode on the greedy policy's cost (ALGORITHMS.md §3.3 as corrected). Generic over the
//! environment ([`MarlEnv`]); the cluster environment of ALGORITHMS.md §3.1 implements it elsewhere.
//!
//! One episode ([`Trainer::train_episode`]):
//! 1. act ε-greedily for the agents with requests (`m^i = 1`) until the environment says `done`, pushing
//!    `(s, a, r, cost, s', m, m', done)` and the per-agent credit (`r^i`, `C^i`, [`MarlEnv::credit`]) into a
//!    ring buffer of `replay` transitions; once `done`, with [`CostCredit::Creation`] (the default) the
//!    episode's cost shares are replaced by the environment's delayed credit ([`MarlEnv::creation_cost`]);
//! 2. `k_upd` times: a minibatch of `batch` transitions, drawn uniformly **with replacement** [UNSTATED →
//!    chosen], one gradient step ([`Credit::PerSubscriber`], the default, ours: per agent on
//!    `r^i − λC^i`; [`Credit::Joint`], Alg. 1: on `Q_tot` with `y = r + λ(c − cost) + γ(1−done)[Q^c(s';
//!    θ̄^c) + Σ_i m'^i Q^i(o'^i, argmax_a Q^i(o'^i, a; θ^i); θ̄^i)]`); Adam steps only for networks with
//!    rows; Polyak averaging of the targets;
//! 3. from episode [`C2marlConfig::dual_start`] on (ε decayed): one greedy episode (ε = 0, nothing stored),
//!    Û = the mean hot fraction of the last `dual_window` greedy episodes, and the dual step
//!    `λ ← min(λ_max, max(0, λ − η_λ·clip((c − Û)/c, −1, 1)))` (eq. 11 with a normalised gap, ours); with
//!    [`DualCost::Pm`] / [`DualCost::PmCalibrated`] (ours) Û is the largest per-machine unsafe fraction of
//!    the window and c is `1 − α` / the calibrated `t_W` ([`dual`]); with [`DualCost::PmEwma`] (ours)
//!    Û is the largest per-machine exponentially weighted unsafe frequency (effective sample size E, the
//!    evaluation's statistic with lag) and c is `1 − α`.
//!
//! The deviations from the printed algorithm (γ and `m'` in the target, standard Polyak) are those of
//! ALGORITHMS.md §3.3. Networks compute in `f32` ([`super::nn`]); rewards, targets, the loss and λ in `f64`.
//! Random draws come from seeded streams ([`component`]), one per (purpose, episode), so an episode's draws
//! depend only on the seed and the episode index, and training is bit for bit the same natively and in wasm.
//!
//! Files: [`env`] (the environment trait and shapes), [`config`] (hyperparameters, credit choices, limits),
//! [`dual`] (the calibrated target of the PM dual), [`replay`] (the replay memory), [`trainer`] (episodes, TD updates, the dual step), [`file`] (the trained
//! policy and its file format), [`log`] (what one training episode did).

pub mod config;
pub mod dual;
pub mod env;
pub mod file;
pub mod log;
pub mod replay;
pub mod trainer;

pub use config::{
    C2marlConfig, CostCredit, Credit, DualCost, CENTRING_SPAN, MAX_ACTIONS, MAX_AGENTS,
    MAX_FINGERPRINT_BYTES, MAX_OBS_LEN, MAX_POLICY_BYTES, MAX_REPLAY_FLOATS, POLICY_VERSION,
};
pub use env::{Dims, MarlEnv, StepOutcome};
pub use file::{fingerprint_difference, TrainedPolicy};
pub use log::EpisodeLog;
pub use trainer::{component, Trainer};

#[cfg(test)]
mod tests;
