//! C2MARL's hyperparameters ([`C2marlConfig`], ALGORITHMS.md §3.7), the credit choices and the size limits.

use crate::substrate::error::FieldError;
use serde::{Deserialize, Serialize};

/// How the TD loss assigns the reward to the agents (our choice; the paper's is [`Credit::Joint`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Credit {
    /// Seed 001 eq. 9–10 (ALGORITHMS.md §3.3): one TD error on `Q_tot = Q^c + Σ_i m^i Q^i` against the team
    /// reward `r_t + λ(c − C_c)`. One agent's action moves the team reward by ~1/N of its noise, so with 12
    /// agents the agents hardly learn (issue 25: 64.5% S-Cores after 800 episodes at λ = 0, optimum 80%).
    Joint,
    /// Ours: each unmasked agent i has its own TD error, `Q^i(o^i, a^i)` against `r^i_t − λC^i_t − r̄^i +
    /// γ·m'^i·Q̄^i(o'^i, argmax_a Q^i(o'^i, a))` with the environment's per-subscriber reward and cost share
    /// ([`MarlEnv::credit`](super::env::MarlEnv::credit)). This is not the paper's team Lagrangian: each agent-hour's reward is 1 − rate per
    /// requested core whatever its volume, so λ is on the agents' reward scale, not the paper's saved cores /
    /// Z. `Q^c` is not trained (it does not act).
    #[default]
    PerSubscriber,
}

/// Which step a cost share is credited to with [`Credit::PerSubscriber`] (ours; issue 25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostCredit {
    /// Each hour's cost share `C^i_t` ([`MarlEnv::credit`](super::env::MarlEnv::credit)) enters agent i's transition of that hour, and only
    /// if it has requests then: the cost of an earlier hour's oversubscription, paid over the VMs' lifetimes,
    /// is mostly lost. Defaults sets 7–10.
    Hourly,
    /// Each hot share is credited to the transition (agent, step) that created the VM, discounted by γ per
    /// hour since ([`MarlEnv::creation_cost`](super::env::MarlEnv::creation_cost)): the cost of an action is known when its episode ends. The
    /// default. An environment without [`MarlEnv::creation_cost`](super::env::MarlEnv::creation_cost) keeps the hourly shares.
    #[default]
    Creation,
}

/// A [`FieldError`] for field `field`.
pub(super) fn field_error(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// The running mean reward of [`Credit::PerSubscriber`]'s reward centring averages the last ~this many
/// transitions of an agent (an exact mean until then).
pub const CENTRING_SPAN: u64 = 2_000;

/// Most agents, actions, and entries of one observation a trainer or policy file accepts.
pub const MAX_AGENTS: usize = 1024;
/// Most actions (see [`MAX_AGENTS`]).
pub const MAX_ACTIONS: usize = 1024;
/// Most entries of an agent's or the cluster's observation (see [`MAX_AGENTS`]).
pub const MAX_OBS_LEN: usize = 65_536;
/// Most `f32` values the replay buffer may hold (256 MB).
pub const MAX_REPLAY_FLOATS: usize = 64 << 20;
/// Largest policy file [`TrainedPolicy::from_json`](super::file::TrainedPolicy::from_json) reads, in bytes.
pub const MAX_POLICY_BYTES: usize = 8 << 20;
/// Longest fingerprint of a policy file, in bytes.
pub const MAX_FINGERPRINT_BYTES: usize = 64 << 10;
/// Version of the policy file format ([`TrainedPolicy::version`](super::file::TrainedPolicy::version)).
pub const POLICY_VERSION: u32 = 2;

/// What the dual step measures against its target (ours; issue 25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DualCost {
    /// The cluster surrogate of seed 001 eq. 11 (ALGORITHMS.md §3.3): Û = the greedy episodes' mean
    /// fraction of hours in which some machine is hot, against `c = (1 − α)·δ`. At 500 PMs no greedy policy
    /// the learner reaches meets c while its PMs stay far inside their budget, so λ climbs to its bound.
    Cluster,
    /// The PM-level quantity the paper evaluates (PM-Hot-R, ALGORITHMS.md §3.5): over the last
    /// `dual_window` greedy episodes, Û = max over machines k of the fraction of them with `hot_k ≥ δ`,
    /// against `1 − α` ([`MarlEnv::unsafe_machines`](super::env::MarlEnv::unsafe_machines)). An
    /// environment without machines keeps [`DualCost::Cluster`]. The default (defaults sets 15–16). At E1.1
    /// (500 PMs, W = 20) the window's maximum runs far above the evaluation's over 100 episodes, so λ
    /// over-tightens (issue 25: PM-Hot-R 1.4% at α = 0.95).
    #[default]
    Pm,
    /// [`DualCost::Pm`]'s statistic against a calibrated target instead of `1 − α` (ours, issue 25): `t_W` =
    /// the window's expected statistic at the per-machine risk where the evaluation's (the largest
    /// per-machine fraction of `dual_eval_episodes` episodes) is `1 − α`, for the environment's machines as
    /// iid and W the greedy episodes in the window so far ([`super::dual::window_target`]). At E1.1 the
    /// machines are far from iid and it overshoots α = 0.85's budget (results/001/issue25/NOTES.md).
    PmCalibrated,
    /// The evaluation's statistic itself, with lag, without assuming iid machines (ours, issue 25): Û = the
    /// largest over machines of the machine's exponentially weighted unsafe frequency over the greedy
    /// episodes since the dual's start, effective sample size `dual_eval_episodes` (E; β = 1 − 2/(E + 1),
    /// bias-corrected unless [`C2marlConfig::ewma_bias_correction`] is false), against `1 − α`
    /// ([`super::dual::UnsafeEwma`]). `dual_window` is unused. Opt-in; with the correction off and
    /// [`C2marlConfig::lambda_tail_fraction`] 0.5 it saves the most of the duals tried at E1.1 α = 0.95
    /// (results/001/issue25/dual-ewma-tail-nocorr).
    PmEwma,
}

/// C2MARL's hyperparameters (ALGORITHMS.md §3.7; seed 001 Table 4 where stated). Serialized with defaults for
/// missing fields and no unknown fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct C2marlConfig {
    /// Hidden layer widths of every `Q^i` and of `Q^c` (ReLU). Default `[64, 64]` (§3.7).
    pub hidden: Vec<usize>,
    /// Adam learning rate of the Q-networks. Default 1e-3 (§3.7).
    pub lr: f64,
    /// Dual step size η_λ (seed 001 eq. 11), per episode, on the normalised gap
    /// ([`C2marlConfig::constraint_gap`] or [`C2marlConfig::pm_constraint_gap`], in [−1, 1]): λ moves by at
    /// most η_λ per episode. Default 5 (ours; 2 in defaults sets 7–10, 20 in sets 11–14): λ is on the agents'
    /// reward scale (a credited reward of at most 0.8 per agent-hour, a cost share of at most 1 per hot hour);
    /// the PM dual's λ settles at 10–100 at E1.1 (results/001/issue25/freeze900).
    pub eta_lambda: f64,
    /// Gradient steps per episode K_upd. Default 120 (§3.7).
    pub k_upd: usize,
    /// Training episodes M; sets the ε schedule's length. Default 1800 (E1.1, §3.6).
    pub episodes: u64,
    /// ε at the first episode. Default 1.0 (§3.7).
    pub eps_start: f64,
    /// ε after the decay. Default 0.05 (§3.7).
    pub eps_end: f64,
    /// Fraction of `episodes` over which ε falls linearly from `eps_start` to `eps_end`. Default 0.5 (§3.7).
    pub eps_decay_fraction: f64,
    /// Replay capacity, transitions. Default 360 (stated, Table 4).
    pub replay: usize,
    /// Minibatch size, transitions. Default 10 (stated).
    pub batch: usize,
    /// Discount γ. Default 0.9 (stated).
    pub gamma: f64,
    /// Polyak rate τ. Default 0.001 (stated).
    pub tau: f64,
    /// Safety level α of the chance constraint (§3.2). Default 0.95.
    pub alpha: f64,
    /// Hot-fraction bound δ (§3.2). Default 1/40 (3 hot hours of 120).
    pub delta: f64,
    /// How the reward is credited to the agents. Default [`Credit::PerSubscriber`] (ours).
    pub credit: Credit,
    /// λ at the start (ours; 0 in Alg. 1). With `eta_lambda = 0`, λ stays here: the learner sanity tests fix it.
    pub lambda_init: f64,
    /// Upper bound of λ (ALGORITHMS.md §3.3 as corrected: "λ bounded"; the value is ours). Default 1,000 (100
    /// in defaults sets 7–10): a hot hour then outweighs 1,250 agent-hours at rate 0.2 instead of 1.0. At 100
    /// the bound held λ at E1.1 (20 PMs, results/001/issue25/alpha.md): making every subscriber safer costs
    /// 0.4 per agent-hour over ~10³ agent-hours per episode to avoid about one hot hour.
    pub lambda_max: f64,
    /// Fraction of `episodes` after which the dual steps start (ALGORITHMS.md §3.3: when exploration has
    /// decayed). Default 0.5 = where ε reaches `eps_end` at the default schedule.
    pub dual_start_fraction: f64,
    /// Greedy evaluation episodes whose mean hot fraction is Û (a running mean over the last `dual_window`
    /// episodes, one greedy episode per training episode once the dual steps run). Default 20 (ours; 10 in
    /// defaults sets 7–14).
    pub dual_window: usize,
    /// Where the per-subscriber cost shares are credited ([`CostCredit`]). Default creation (ours; hourly in
    /// defaults sets 7–10).
    pub cost_credit: CostCredit,
    /// What the dual step measures ([`DualCost`]). Default pm (ours, issue 25; cluster, seed 001 eq. 11, in
    /// defaults sets up to 14: λ at its bound at E1.1's 500 PMs).
    pub dual_cost: DualCost,
    /// Fraction of `episodes` from which λ is held at the mean of its values after the dual steps so far, and
    /// the dual steps (and their greedy episodes) stop (ours, issue 25: the averaged dual iterate). Default 0.8
    /// (1 in defaults sets up to 14: never, λ moves to the end and the trained policy is the last
    /// iterate's). With no dual step before it, λ stays where it is.
    pub lambda_freeze_fraction: f64,
    /// Evaluation episodes E the calibrated and exponentially weighted PM duals ([`DualCost::PmCalibrated`];
    /// [`DualCost::PmEwma`]: its effective sample size) aim at: the largest per-machine unsafe fraction of E
    /// episodes is to be `1 − α` on expectation. Default 100 (ours: the findings' evaluation, results/001; the paper evaluates
    /// 300). Unused by the other duals.
    pub dual_eval_episodes: usize,
    /// Whether [`DualCost::PmEwma`]'s statistic divides by `1 − β^n` ([`super::dual::UnsafeEwma`]; ours,
    /// issue 25). true in defaults set 16 (bias-corrected: while n ≪ E the statistic is a short window's
    /// maximum over machines, inflated, and λ climbs early); false: the frequencies start at 0. Unused by the
    /// other duals.
    pub ewma_bias_correction: bool,
    /// The share of the dual's iterates, the last ones, whose mean λ is held at from
    /// [`C2marlConfig::lambda_freeze`] on (tail averaging, ours, issue 25): in (0, 1], 1 = all of them
    /// (defaults sets 15–16), 0.5 = those of the later half of the dual's episodes
    /// ([`C2marlConfig::lambda_tail_start`]): λ's early climb, while the policy still learns the constraint,
    /// is left out.
    pub lambda_tail_fraction: f64,
}

impl Default for C2marlConfig {
    fn default() -> Self {
        C2marlConfig {
            hidden: vec![64, 64],
            lr: 1e-3,
            eta_lambda: 5.0,
            k_upd: 120,
            episodes: 1800,
            eps_start: 1.0,
            eps_end: 0.05,
            eps_decay_fraction: 0.5,
            replay: 360,
            batch: 10,
            gamma: 0.9,
            tau: 0.001,
            alpha: 0.95,
            delta: 1.0 / 40.0,
            credit: Credit::PerSubscriber,
            lambda_init: 0.0,
            lambda_max: 1000.0,
            dual_start_fraction: 0.5,
            dual_window: 20,
            cost_credit: CostCredit::Creation,
            dual_cost: DualCost::Pm,
            lambda_freeze_fraction: 0.8,
            dual_eval_episodes: 100,
            ewma_bias_correction: true,
            lambda_tail_fraction: 1.0,
        }
    }
}

impl C2marlConfig {
    /// The expected-cost target `c = (1 − α)·δ` (Theorem 3, ALGORITHMS.md §3.2): 1.25e-3 at the defaults.
    pub fn cost_target(&self) -> f64 {
        (1.0 - self.alpha) * self.delta
    }

    /// The normalised constraint gap of the dual step: `clip((c − Û)/c, −1, 1)` for a greedy hot fraction
    /// `u_hat` (−1 when `c = 0` and Û > 0, 0 when both are 0).
    pub fn constraint_gap(&self, u_hat: f64) -> f64 {
        Self::normalised_gap(self.cost_target(), u_hat)
    }

    /// The normalised gap of the PM-level dual step ([`DualCost::Pm`]): `clip((t − Û)/t, −1, 1)` with
    /// `t = 1 − α` and Û the window's largest per-machine unsafe fraction.
    pub fn pm_constraint_gap(&self, u_hat: f64) -> f64 {
        Self::normalised_gap(1.0 - self.alpha, u_hat)
    }

    /// The normalised gap of the calibrated PM dual ([`DualCost::PmCalibrated`]): `clip((t_W − Û)/t_W, −1,
    /// 1)` with `t_W` = [`super::dual::window_target`]`(machines, window, dual_eval_episodes, α)` and Û the
    /// window's largest per-machine unsafe fraction over `window` greedy episodes.
    pub fn pm_calibrated_gap(&self, machines: usize, window: usize, u_hat: f64) -> f64 {
        let t = super::dual::window_target(machines, window, self.dual_eval_episodes, self.alpha);
        Self::normalised_gap(t, u_hat)
    }

    /// `clip((c − u)/c, −1, 1)`; −1 when `c = 0` and u > 0, 0 when both are 0.
    fn normalised_gap(c: f64, u_hat: f64) -> f64 {
        if c > 0.0 {
            ((c - u_hat) / c).clamp(-1.0, 1.0)
        } else if u_hat > 0.0 {
            -1.0
        } else {
            0.0
        }
    }

    /// The first episode with a dual step: `⌈dual_start_fraction·episodes⌉`.
    pub fn dual_start(&self) -> u64 {
        (self.dual_start_fraction * self.episodes as f64).ceil() as u64
    }

    /// The first episode with λ held at its mean ([`C2marlConfig::lambda_freeze_fraction`]):
    /// `⌈lambda_freeze_fraction·episodes⌉`.
    pub fn lambda_freeze(&self) -> u64 {
        (self.lambda_freeze_fraction * self.episodes as f64).ceil() as u64
    }

    /// The first episode whose dual iterate enters the held mean of λ: the last
    /// `⌈lambda_tail_fraction·D⌉` of the D = `lambda_freeze − dual_start` episodes with a dual step, i.e.
    /// `lambda_freeze − ⌈lambda_tail_fraction·D⌉` (`dual_start` at fraction 1; D = 0 when the freeze comes
    /// first).
    pub fn lambda_tail_start(&self) -> u64 {
        let (start, freeze) = (self.dual_start(), self.lambda_freeze());
        let d = freeze.saturating_sub(start);
        let tail = ((self.lambda_tail_fraction * d as f64).ceil() as u64).min(d);
        start.max(freeze.saturating_sub(tail))
    }

    /// ε of episode `episode` (0-based): linear from `eps_start` at episode 0 to `eps_end` at episode
    /// `eps_decay_fraction·episodes`, then constant.
    pub fn epsilon(&self, episode: u64) -> f64 {
        let span = self.eps_decay_fraction * self.episodes as f64;
        let f = if span > 0.0 {
            (episode as f64 / span).min(1.0)
        } else {
            1.0
        };
        self.eps_start * (1.0 - f) + self.eps_end * f
    }

    /// The invalid fields, each `field: message` (field names as in the JSON). Empty when valid.
    pub fn validate(&self) -> Vec<String> {
        self.validate_fields()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// [`C2marlConfig::validate`] as [`FieldError`]s (fields relative to this section; prefix them with
    /// [`crate::substrate::error::prefixed`]).
    pub fn validate_fields(&self) -> Vec<FieldError> {
        let mut e = Vec::new();
        let mut real = |field: &str, v: f64, lo: f64, lo_open: bool, hi: f64, hi_open: bool| {
            let ok = v.is_finite()
                && if lo_open { v > lo } else { v >= lo }
                && if hi_open { v < hi } else { v <= hi };
            if !ok {
                e.push(field_error(
                    field,
                    format!(
                        "must be in {}{lo}, {hi}{}, got {v}",
                        if lo_open { "(" } else { "[" },
                        if hi_open { ")" } else { "]" }
                    ),
                ));
            }
        };
        real("lr", self.lr, 0.0, true, 100.0, false);
        real("eta_lambda", self.eta_lambda, 0.0, false, 1e6, false);
        real("eps_start", self.eps_start, 0.0, false, 1.0, false);
        real("eps_end", self.eps_end, 0.0, false, 1.0, false);
        real(
            "eps_decay_fraction",
            self.eps_decay_fraction,
            0.0,
            false,
            1.0,
            false,
        );
        real("gamma", self.gamma, 0.0, false, 1.0, true);
        real("tau", self.tau, 0.0, false, 1.0, false);
        real("alpha", self.alpha, 0.0, false, 1.0, false);
        real("delta", self.delta, 0.0, true, 1.0, false);
        real("lambda_max", self.lambda_max, 0.0, false, 1e9, false);
        real(
            "lambda_init",
            self.lambda_init,
            0.0,
            false,
            self.lambda_max.max(0.0),
            false,
        );
        real(
            "dual_start_fraction",
            self.dual_start_fraction,
            0.0,
            false,
            1.0,
            false,
        );
        real(
            "lambda_freeze_fraction",
            self.lambda_freeze_fraction,
            0.0,
            false,
            1.0,
            false,
        );
        real(
            "lambda_tail_fraction",
            self.lambda_tail_fraction,
            0.0,
            true,
            1.0,
            false,
        );
        let mut int = |field: &str, v: u64, lo: u64, hi: u64| {
            if v < lo || v > hi {
                e.push(field_error(
                    field,
                    format!("must be an integer in [{lo}, {hi}], got {v}"),
                ));
            }
        };
        int("k_upd", self.k_upd as u64, 0, 100_000);
        int("episodes", self.episodes, 1, 10_000_000);
        int("replay", self.replay as u64, 1, 1_000_000);
        int("batch", self.batch as u64, 1, 4096);
        int("dual_window", self.dual_window as u64, 1, 100_000);
        int(
            "dual_eval_episodes",
            self.dual_eval_episodes as u64,
            1,
            10_000,
        );
        if self.hidden.len() > 8 {
            e.push(field_error(
                "hidden",
                format!("at most 8 hidden layers, got {}", self.hidden.len()),
            ));
        }
        if let Some(k) = self.hidden.iter().position(|&w| w == 0 || w > 4096) {
            e.push(field_error(
                format!("hidden[{k}]"),
                format!("a width in [1, 4096], got {}", self.hidden[k]),
            ));
        }
        e
    }

    /// Layer sizes of a network with `n_in` inputs and `n_out` outputs.
    pub(super) fn sizes(&self, n_in: usize, n_out: usize) -> Vec<usize> {
        let mut s = Vec::with_capacity(self.hidden.len() + 2);
        s.push(n_in);
        s.extend_from_slice(&self.hidden);
        s.push(n_out);
        s
    }
}
