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
//!    `λ ← min(λ_max, max(0, λ − η_λ·clip((c − Û)/c, −1, 1)))` (eq. 11 with a normalised gap, ours).
//!
//! The deviations from the printed algorithm (γ and `m'` in the target, standard Polyak) are those of
//! ALGORITHMS.md §3.3. Networks compute in `f32` ([`super::nn`]); rewards, targets, the loss and λ in `f64`.
//! Random draws come from seeded streams ([`component`]), one per (purpose, episode), so an episode's draws
//! depend only on the seed and the episode index, and training is bit for bit the same natively and in wasm.

use super::nn::{self, Adam, Mlp, MlpFile, Scratch};
use crate::substrate::error::FieldError;
use crate::substrate::rng::stream;
use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Random-stream component ids of C2MARL ([`crate::substrate::rng::stream`]`(seed, component, index)`).
pub mod component {
    /// Initial weights; index = agent `i` for `Q^i`, `n_agents` for `Q^c`.
    pub const INIT: u64 = 0xC201;
    /// ε-greedy exploration; index = episode.
    pub const EXPLORE: u64 = 0xC202;
    /// Minibatch sampling; index = episode.
    pub const REPLAY: u64 = 0xC203;
}

/// One step's outcome. `reward` = r_t (saved cores / Z, ALGORITHMS.md §3.1), `cost` = C_c(s_t) ∈ {0, 1} (cluster hot).
pub struct StepOutcome {
    /// r_t, the step's (unshaped) reward.
    pub reward: f64,
    /// C_c(s_t) ∈ {0, 1}.
    pub cost: f64,
    /// Whether this step ended the episode (no bootstrapping from the next state).
    pub done: bool,
}

/// The environment C2MARL trains on: N agents (subscribers), a discrete action set, hourly steps.
pub trait MarlEnv {
    /// Agents N.
    fn n_agents(&self) -> usize;
    /// Actions per agent (indices `0..n_actions`).
    fn n_actions(&self) -> usize;
    /// Entries of one agent's observation `o^i`.
    fn agent_obs_len(&self) -> usize;
    /// Entries of the cluster observation `s^c`.
    fn cluster_obs_len(&self) -> usize;
    /// Starts training episode `episode` (its workload and usage come from the environment's seed and this index).
    fn reset(&mut self, episode: u64);
    /// Observations of the current step (after the hour's deletions, with its new requests collected): `agent_obs`
    /// n_agents × agent_obs_len row-major, `cluster_obs` cluster_obs_len, `mask[i]` = agent i has requests now.
    fn observe(&self, agent_obs: &mut [f32], cluster_obs: &mut [f32], mask: &mut [bool]);
    /// Applies one action index per agent (masked agents' entries are ignored), allocates, samples usage, computes
    /// the hot flags, reward and cost, and advances to the next hour.
    fn step(&mut self, actions: &[usize]) -> StepOutcome;
    /// Per-subscriber credit of the last [`MarlEnv::step`] (used with [`Credit::PerSubscriber`]): `reward[i]`
    /// = agent i's own reward `r^i_t` and `cost[i]` = its share `C^i_t` of the cluster cost (Σ_i C^i_t should
    /// be C_c(s_t)). Both slices have `n_agents` entries.
    fn credit(&self, reward: &mut [f64], cost: &mut [f64]);
    /// Delayed cost credit (used with [`CostCredit::Creation`]; call once the episode is `done`): fills
    /// `cost[t·n_agents + i]` (`cost` has steps × n_agents entries) with the cost the action of agent i at
    /// step t caused over the episode, discounted by `gamma` per step after t (for the cluster: the hot
    /// shares of the VMs that step created, over their lifetimes). Returns false when the environment has no
    /// such credit (the default), and the hourly shares of [`MarlEnv::credit`] stay.
    fn creation_cost(&self, _gamma: f64, _cost: &mut [f64]) -> bool {
        false
    }
}

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
    /// ([`MarlEnv::credit`]). This is not the paper's team Lagrangian: each agent-hour's reward is 1 − rate per
    /// requested core whatever its volume, so λ is on the agents' reward scale, not the paper's saved cores /
    /// Z. `Q^c` is not trained (it does not act).
    #[default]
    PerSubscriber,
}

/// Which step a cost share is credited to with [`Credit::PerSubscriber`] (ours; issue 25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostCredit {
    /// Each hour's cost share `C^i_t` ([`MarlEnv::credit`]) enters agent i's transition of that hour, and only
    /// if it has requests then: the cost of an earlier hour's oversubscription, paid over the VMs' lifetimes,
    /// is mostly lost. Defaults sets 7–10.
    Hourly,
    /// Each hot share is credited to the transition (agent, step) that created the VM, discounted by γ per
    /// hour since ([`MarlEnv::creation_cost`]): the cost of an action is known when its episode ends. The
    /// default. An environment without [`MarlEnv::creation_cost`] keeps the hourly shares.
    #[default]
    Creation,
}

/// A [`FieldError`] for field `field`.
fn field_error(field: impl Into<String>, message: impl Into<String>) -> FieldError {
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
/// Largest policy file [`TrainedPolicy::from_json`] reads, in bytes.
pub const MAX_POLICY_BYTES: usize = 8 << 20;
/// Longest fingerprint of a policy file, in bytes.
pub const MAX_FINGERPRINT_BYTES: usize = 64 << 10;
/// Version of the policy file format ([`TrainedPolicy::version`]).
pub const POLICY_VERSION: u32 = 2;

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
    /// ([`C2marlConfig::constraint_gap`], in [−1, 1]): λ moves by at most η_λ per episode. Default 20 (ours;
    /// 2 in defaults sets 7–10): λ is on the agents' reward scale (a credited reward of at most 0.8 per
    /// agent-hour, a cost share of at most 1 per hot hour), so λ crosses [0, λ_max] in 50 episodes.
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
    /// episodes, one greedy episode per training episode once the dual steps run). Default 10 (ours).
    pub dual_window: usize,
    /// Where the per-subscriber cost shares are credited ([`CostCredit`]). Default creation (ours; hourly in
    /// defaults sets 7–10).
    pub cost_credit: CostCredit,
}

impl Default for C2marlConfig {
    fn default() -> Self {
        C2marlConfig {
            hidden: vec![64, 64],
            lr: 1e-3,
            eta_lambda: 20.0,
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
            dual_window: 10,
            cost_credit: CostCredit::Creation,
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
        let c = self.cost_target();
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
    fn sizes(&self, n_in: usize, n_out: usize) -> Vec<usize> {
        let mut s = Vec::with_capacity(self.hidden.len() + 2);
        s.push(n_in);
        s.extend_from_slice(&self.hidden);
        s.push(n_out);
        s
    }
}

/// The shapes of an environment ([`MarlEnv`]): what the networks and the policy file depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dims {
    /// Agents N.
    pub n_agents: usize,
    /// Actions per agent (output width of `Q^i`).
    pub n_actions: usize,
    /// Entries of one agent's observation `o^i` (input width of `Q^i`).
    pub agent_obs_len: usize,
    /// Entries of the cluster observation `s^c` (input width of `Q^c`).
    pub cluster_obs_len: usize,
}

impl Dims {
    /// The shapes of `env`.
    pub fn of<E: MarlEnv + ?Sized>(env: &E) -> Self {
        Dims {
            n_agents: env.n_agents(),
            n_actions: env.n_actions(),
            agent_obs_len: env.agent_obs_len(),
            cluster_obs_len: env.cluster_obs_len(),
        }
    }

    /// Every count ≥ 1 and within [`MAX_AGENTS`], [`MAX_ACTIONS`], [`MAX_OBS_LEN`]; errors name the field
    /// (`dims.<field>`).
    pub fn check(&self) -> Result<(), String> {
        for (field, v, hi) in [
            ("n_agents", self.n_agents, MAX_AGENTS),
            ("n_actions", self.n_actions, MAX_ACTIONS),
            ("agent_obs_len", self.agent_obs_len, MAX_OBS_LEN),
            ("cluster_obs_len", self.cluster_obs_len, MAX_OBS_LEN),
        ] {
            if v == 0 || v > hi {
                return Err(format!("dims.{field}: must be in [1, {hi}], got {v}"));
            }
        }
        Ok(())
    }
}

/// What one training episode did ([`Trainer::train_episode`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeLog {
    /// Episode index (0-based).
    pub episode: u64,
    /// Steps T of the episode.
    pub steps: u64,
    /// Σ_t cost_t: hot steps of the cluster.
    pub hot_steps: f64,
    /// Σ_t r_t (unshaped reward).
    pub reward_sum: f64,
    /// Σ_t r_t / T.
    pub mean_reward: f64,
    /// Σ_t cost_t / T, the (exploring) episode's hot fraction.
    pub mean_cost: f64,
    /// The hot fraction of the greedy (ε = 0) evaluation episode run after the updates, once the dual steps
    /// have started (`None` before, and in files written before it existed).
    #[serde(default)]
    pub greedy_cost: Option<f64>,
    /// λ after the episode's dual step.
    pub lambda: f64,
    /// ε of the episode.
    pub epsilon: f64,
    /// Mean over the episode's updates of the minibatch mean squared TD error (0 with `k_upd = 0`).
    pub mean_loss: f64,
}

impl EpisodeLog {
    /// The first non-finite number, by field name.
    fn non_finite(&self) -> Option<&'static str> {
        [
            ("hot_steps", self.hot_steps),
            ("reward_sum", self.reward_sum),
            ("mean_reward", self.mean_reward),
            ("mean_cost", self.mean_cost),
            ("lambda", self.lambda),
            ("epsilon", self.epsilon),
            ("mean_loss", self.mean_loss),
            ("greedy_cost", self.greedy_cost.unwrap_or(0.0)),
        ]
        .into_iter()
        .find(|(_, v)| !v.is_finite())
        .map(|(f, _)| f)
    }
}

/// The replay memory: a ring of `cap` transitions in flat arrays (row `k` of each array is transition `k`).
#[derive(Clone, Debug)]
struct Replay {
    cap: usize,
    len: usize,
    next: usize,
    agent_obs: Vec<f32>,
    cluster_obs: Vec<f32>,
    next_agent_obs: Vec<f32>,
    next_cluster_obs: Vec<f32>,
    actions: Vec<usize>,
    mask: Vec<bool>,
    next_mask: Vec<bool>,
    reward: Vec<f64>,
    cost: Vec<f64>,
    /// Per agent: the credited reward and cost share ([`MarlEnv::credit`]), `cap × n`.
    agent_reward: Vec<f64>,
    agent_cost: Vec<f64>,
    done: Vec<bool>,
}

/// One transition, borrowed, as [`Replay::push`] takes it.
struct Transition<'a> {
    agent_obs: &'a [f32],
    cluster_obs: &'a [f32],
    next_agent_obs: &'a [f32],
    next_cluster_obs: &'a [f32],
    actions: &'a [usize],
    mask: &'a [bool],
    next_mask: &'a [bool],
    reward: f64,
    cost: f64,
    agent_reward: &'a [f64],
    agent_cost: &'a [f64],
    done: bool,
}

impl Replay {
    fn new(cap: usize, d: &Dims) -> Self {
        let (na, nc, n) = (d.n_agents * d.agent_obs_len, d.cluster_obs_len, d.n_agents);
        Replay {
            cap,
            len: 0,
            next: 0,
            agent_obs: vec![0.0; cap * na],
            cluster_obs: vec![0.0; cap * nc],
            next_agent_obs: vec![0.0; cap * na],
            next_cluster_obs: vec![0.0; cap * nc],
            actions: vec![0; cap * n],
            mask: vec![false; cap * n],
            next_mask: vec![false; cap * n],
            reward: vec![0.0; cap],
            cost: vec![0.0; cap],
            agent_reward: vec![0.0; cap * n],
            agent_cost: vec![0.0; cap * n],
            done: vec![false; cap],
        }
    }

    /// Stores `t` over the oldest transition once full.
    fn push(&mut self, t: Transition<'_>) {
        fn put<T: Copy>(dst: &mut [T], k: usize, src: &[T]) {
            dst[k * src.len()..(k + 1) * src.len()].copy_from_slice(src);
        }
        let k = self.next;
        put(&mut self.agent_obs, k, t.agent_obs);
        put(&mut self.cluster_obs, k, t.cluster_obs);
        put(&mut self.next_agent_obs, k, t.next_agent_obs);
        put(&mut self.next_cluster_obs, k, t.next_cluster_obs);
        put(&mut self.actions, k, t.actions);
        put(&mut self.mask, k, t.mask);
        put(&mut self.next_mask, k, t.next_mask);
        put(&mut self.agent_reward, k, t.agent_reward);
        put(&mut self.agent_cost, k, t.agent_cost);
        self.reward[k] = t.reward;
        self.cost[k] = t.cost;
        self.done[k] = t.done;
        self.next = (k + 1) % self.cap;
        self.len = (self.len + 1).min(self.cap);
    }
}

/// A uniform index in `0..n` (n ≥ 1) from one 64-bit draw (multiply-shift; bias < n/2⁶⁴).
fn uniform_index(rng: &mut Pcg64Mcg, n: usize) -> usize {
    ((rng.random::<u64>() as u128 * n as u128) >> 64) as usize
}

/// The first index of the largest value (NaN never wins).
fn argmax(q: &[f32]) -> usize {
    let mut best = 0;
    for (a, &v) in q.iter().enumerate().skip(1) {
        if v > q[best] {
            best = a;
        }
    }
    best
}

/// Reusable buffers of a trainer (no allocation per step or update once warm).
#[derive(Clone, Debug)]
struct Work {
    agent_obs: Vec<f32>,
    cluster_obs: Vec<f32>,
    mask: Vec<bool>,
    next_agent_obs: Vec<f32>,
    next_cluster_obs: Vec<f32>,
    next_mask: Vec<bool>,
    actions: Vec<usize>,
    /// The last step's credit ([`MarlEnv::credit`]).
    credit_reward: Vec<f64>,
    credit_cost: Vec<f64>,
    /// The training episode so far, steps × n_agents: masks, credited rewards and cost shares (replaced by
    /// the delayed credit with [`CostCredit::Creation`] once it ends), and per step its replay slot.
    ep_mask: Vec<bool>,
    ep_reward: Vec<f64>,
    ep_cost: Vec<f64>,
    ep_slot: Vec<usize>,
    /// Batch-1 passes (acting).
    act: Scratch,
    /// Per agent: the online pass on `o` kept for the backward pass.
    agent: Vec<Scratch>,
    /// The online pass of `Q^c` on `s^c`, kept for the backward pass.
    cluster: Scratch,
    /// Passes without a backward pass (argmax and target values).
    eval: Scratch,
    /// Minibatch rows (replay indices).
    sample: Vec<usize>,
    /// Per agent: the minibatch rows where it is unmasked (`m^i = 1`).
    rows: Vec<Vec<usize>>,
    /// Minibatch rows entering a next-state term.
    next_rows: Vec<usize>,
    /// Gathered network inputs.
    input: Vec<f32>,
    /// dLoss/dOutput of one network.
    d_out: Vec<f32>,
    /// Per row: Q_tot(s, a) and the bootstrapped next-state value.
    q: Vec<f64>,
    next_q: Vec<f64>,
    /// Per row: dLoss/dQ_tot.
    g: Vec<f64>,
    /// Greedy next actions of the rows of `next_rows`.
    best: Vec<usize>,
}

/// The C2MARL learner (ALGORITHMS.md §3.3): online networks `Q^i` (one per agent, `agent_obs_len →
/// hidden → n_actions`) and `Q^c` (`cluster_obs_len → hidden → 1`), their Polyak targets, one Adam per
/// online network, the multiplier λ ≥ 0, the replay memory and the log of the episodes trained.
#[derive(Clone, Debug)]
pub struct Trainer {
    config: C2marlConfig,
    seed: u64,
    dims: Dims,
    agents: Vec<Mlp>,
    agent_targets: Vec<Mlp>,
    agent_adam: Vec<Adam>,
    cluster: Mlp,
    cluster_target: Mlp,
    cluster_adam: Adam,
    lambda: f64,
    /// Per agent: the running mean of its credited reward over the transitions stored while it was unmasked
    /// (its mean over the last ~[`CENTRING_SPAN`] of them), and their count ([`Credit::PerSubscriber`]).
    reward_mean: Vec<f64>,
    reward_seen: Vec<u64>,
    /// The hot fractions of the last `dual_window` greedy episodes (a ring, oldest overwritten).
    greedy_costs: Vec<f64>,
    greedy_next: usize,
    replay: Replay,
    log: Vec<EpisodeLog>,
    work: Work,
}

impl Trainer {
    /// A learner for environments shaped like `env`, with run seed `seed` (initial weights from stream
    /// [`component::INIT`]; targets start equal to the online networks, λ = 0, the replay memory empty).
    /// Errors: an invalid `config` (every field, `field: message`), invalid dimensions, a replay memory of
    /// more than [`MAX_REPLAY_FLOATS`] values.
    pub fn new<E: MarlEnv + ?Sized>(
        config: &C2marlConfig,
        env: &E,
        seed: u64,
    ) -> Result<Self, String> {
        Self::with_dims(config, Dims::of(env), seed)
    }

    /// [`Trainer::new`] for an environment of shapes `d` (before one exists).
    pub fn with_dims(config: &C2marlConfig, d: Dims, seed: u64) -> Result<Self, String> {
        let errs = config.validate();
        if !errs.is_empty() {
            return Err(errs.join("; "));
        }
        d.check()?;
        let floats = config.replay as u128
            * 2
            * (d.n_agents as u128 * d.agent_obs_len as u128 + d.cluster_obs_len as u128);
        if floats > MAX_REPLAY_FLOATS as u128 {
            return Err(format!(
                "replay: {} transitions of these observations need {floats} values, more than {MAX_REPLAY_FLOATS}",
                config.replay
            ));
        }
        let agent_sizes = config.sizes(d.agent_obs_len, d.n_actions);
        let cluster_sizes = config.sizes(d.cluster_obs_len, 1);
        let agents = (0..d.n_agents)
            .map(|i| Mlp::new(&agent_sizes, &mut stream(seed, component::INIT, i as u64)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("agent network: {e}"))?;
        let cluster = Mlp::new(
            &cluster_sizes,
            &mut stream(seed, component::INIT, d.n_agents as u64),
        )
        .map_err(|e| format!("cluster network: {e}"))?;
        let b = config.batch;
        let work = Work {
            agent_obs: vec![0.0; d.n_agents * d.agent_obs_len],
            cluster_obs: vec![0.0; d.cluster_obs_len],
            mask: vec![false; d.n_agents],
            next_agent_obs: vec![0.0; d.n_agents * d.agent_obs_len],
            next_cluster_obs: vec![0.0; d.cluster_obs_len],
            next_mask: vec![false; d.n_agents],
            actions: vec![0; d.n_agents],
            credit_reward: vec![0.0; d.n_agents],
            credit_cost: vec![0.0; d.n_agents],
            ep_mask: Vec::new(),
            ep_reward: Vec::new(),
            ep_cost: Vec::new(),
            ep_slot: Vec::new(),
            act: agents[0].scratch(1),
            agent: (0..d.n_agents).map(|_| agents[0].scratch(b)).collect(),
            cluster: cluster.scratch(b),
            eval: agents[0].scratch(b),
            sample: Vec::with_capacity(b),
            rows: vec![Vec::with_capacity(b); d.n_agents],
            next_rows: Vec::with_capacity(b),
            input: Vec::with_capacity(b * d.agent_obs_len.max(d.cluster_obs_len)),
            d_out: Vec::with_capacity(b * d.n_actions.max(1)),
            q: vec![0.0; b],
            next_q: vec![0.0; b],
            g: vec![0.0; b],
            best: Vec::with_capacity(b),
        };
        Ok(Trainer {
            agent_adam: agents.iter().map(|n| Adam::new(n, config.lr)).collect(),
            agent_targets: agents.clone(),
            cluster_adam: Adam::new(&cluster, config.lr),
            cluster_target: cluster.clone(),
            agents,
            cluster,
            lambda: config.lambda_init,
            reward_mean: vec![0.0; d.n_agents],
            reward_seen: vec![0; d.n_agents],
            greedy_costs: Vec::with_capacity(config.dual_window),
            greedy_next: 0,
            replay: Replay::new(config.replay, &d),
            log: Vec::new(),
            config: config.clone(),
            seed,
            dims: d,
            work,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &C2marlConfig {
        &self.config
    }

    /// The environment's shapes.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The Lagrange multiplier λ ≥ 0.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Agent `i`'s online network `Q^i` (`agent_obs_len → n_actions`).
    pub fn agent_net(&self, i: usize) -> &Mlp {
        &self.agents[i]
    }

    /// The online cluster network `Q^c` (`cluster_obs_len → 1`).
    pub fn cluster_net(&self) -> &Mlp {
        &self.cluster
    }

    /// The log of the episodes trained so far, in order.
    pub fn log(&self) -> &[EpisodeLog] {
        &self.log
    }

    /// Agent `i`'s greedy action for observation `obs` (`agent_obs_len` values): `argmax_a Q^i(obs, a)`,
    /// the lowest index on ties.
    pub fn greedy_action(&mut self, i: usize, obs: &[f32]) -> usize {
        argmax(self.agents[i].forward(obs, &mut self.work.act))
    }

    /// Runs training episode `episode` on `env` (Alg. 1's episode body, module documentation): acts until
    /// `done`, `k_upd` updates, then (from episode [`C2marlConfig::dual_start`] on) one greedy evaluation
    /// episode and one dual step. Appends to and returns the log. `env` must have this trainer's [`Dims`]
    /// (panics otherwise) and must end its episodes.
    pub fn train_episode<E: MarlEnv + ?Sized>(&mut self, env: &mut E, episode: u64) -> EpisodeLog {
        assert_eq!(
            Dims::of(env),
            self.dims,
            "Trainer::train_episode: environment of other dimensions"
        );
        let eps = self.config.epsilon(episode);
        let (steps, hot, reward_sum) = self.run_episode(env, episode, eps, true);
        let mut rng = stream(self.seed, component::REPLAY, episode);
        let tau = self.config.tau as f32;
        let mut loss_sum = 0.0;
        for _ in 0..self.config.k_upd {
            loss_sum += self.update(&mut rng);
            if self.config.credit == Credit::Joint {
                nn::polyak(&mut self.cluster_target, &self.cluster, tau);
            }
            for (t, o) in self.agent_targets.iter_mut().zip(&self.agents) {
                nn::polyak(t, o, tau);
            }
        }
        let greedy_cost = (episode >= self.config.dual_start()).then(|| {
            let (g_steps, g_hot, _) = self.run_episode(env, episode, 0.0, false);
            g_hot / g_steps as f64
        });
        if let Some(g) = greedy_cost {
            self.dual_step(g);
        }
        let log = EpisodeLog {
            episode,
            steps,
            hot_steps: hot,
            reward_sum,
            mean_reward: reward_sum / steps as f64,
            mean_cost: hot / steps as f64,
            greedy_cost,
            lambda: self.lambda,
            epsilon: eps,
            mean_loss: if self.config.k_upd > 0 {
                loss_sum / self.config.k_upd as f64
            } else {
                0.0
            },
        };
        self.log.push(log.clone());
        log
    }

    /// The dual step of seed 001 eq. 11 as ALGORITHMS.md §3.3 corrects it, with the constraint gap measured
    /// in units of the target c and clipped (normalised, ours): with `greedy` the hot fraction of the latest
    /// greedy episode, Û = the mean over the last `dual_window` ones, and
    /// `λ ← min(λ_max, max(0, λ − η_λ·clip((c − Û)/c, −1, 1)))`.
    /// Eq. 11's plain gap `c − Û` is at most c (1.25e-3 at α = 0.95) when the policy is safe and up to 1 when
    /// not, so λ only ratchets up; in units of c a safe greedy policy (Û = 0) lowers λ by η_λ and one more
    /// than twice too hot raises it by η_λ, so λ settles where Û crosses c.
    fn dual_step(&mut self, greedy: f64) {
        let w = self.config.dual_window;
        if self.greedy_costs.len() < w {
            self.greedy_costs.push(greedy);
        } else {
            self.greedy_costs[self.greedy_next] = greedy;
        }
        self.greedy_next = (self.greedy_next + 1) % w;
        let u_hat = self.greedy_costs.iter().sum::<f64>() / self.greedy_costs.len() as f64;
        self.lambda = (self.lambda - self.config.eta_lambda * self.config.constraint_gap(u_hat))
            .max(0.0)
            .min(self.config.lambda_max);
    }

    /// Acts through one episode, ε-greedily, filling the replay memory when `learn` (a greedy evaluation
    /// episode passes `eps = 0`, `learn = false`: no exploration draws, nothing stored). Returns (steps,
    /// Σ cost, Σ reward).
    fn run_episode<E: MarlEnv + ?Sized>(
        &mut self,
        env: &mut E,
        episode: u64,
        eps: f64,
        learn: bool,
    ) -> (u64, f64, f64) {
        let d = self.dims;
        let (n, l) = (d.n_agents, d.agent_obs_len);
        let mut rng = stream(self.seed, component::EXPLORE, episode);
        let w = &mut self.work;
        env.reset(episode);
        env.observe(&mut w.agent_obs, &mut w.cluster_obs, &mut w.mask);
        let (mut steps, mut hot, mut reward_sum) = (0u64, 0.0, 0.0);
        loop {
            for i in 0..n {
                w.actions[i] = if !w.mask[i] {
                    0
                } else if eps > 0.0 && rng.random::<f64>() < eps {
                    uniform_index(&mut rng, d.n_actions)
                } else {
                    argmax(self.agents[i].forward(&w.agent_obs[i * l..(i + 1) * l], &mut w.act))
                };
            }
            let out = env.step(&w.actions);
            env.observe(
                &mut w.next_agent_obs,
                &mut w.next_cluster_obs,
                &mut w.next_mask,
            );
            if learn {
                env.credit(&mut w.credit_reward, &mut w.credit_cost);
                w.ep_mask.extend_from_slice(&w.mask);
                w.ep_reward.extend_from_slice(&w.credit_reward);
                w.ep_cost.extend_from_slice(&w.credit_cost);
                w.ep_slot.push(self.replay.next);
                self.replay.push(Transition {
                    agent_obs: &w.agent_obs,
                    cluster_obs: &w.cluster_obs,
                    next_agent_obs: &w.next_agent_obs,
                    next_cluster_obs: &w.next_cluster_obs,
                    actions: &w.actions,
                    mask: &w.mask,
                    next_mask: &w.next_mask,
                    reward: out.reward,
                    cost: out.cost,
                    agent_reward: &w.credit_reward,
                    agent_cost: &w.credit_cost,
                    done: out.done,
                });
            }
            steps += 1;
            hot += out.cost;
            reward_sum += out.reward;
            std::mem::swap(&mut w.agent_obs, &mut w.next_agent_obs);
            std::mem::swap(&mut w.cluster_obs, &mut w.next_cluster_obs);
            std::mem::swap(&mut w.mask, &mut w.next_mask);
            if out.done {
                if learn {
                    self.end_learning_episode(env);
                }
                return (steps, hot, reward_sum);
            }
        }
    }

    /// After a training episode: with [`CostCredit::Creation`] (and [`Credit::PerSubscriber`]) replaces the
    /// hourly cost shares of its transitions still in the replay memory by the environment's delayed credit
    /// ([`MarlEnv::creation_cost`]), then moves the agents' reward centring over its transitions in order.
    fn end_learning_episode<E: MarlEnv + ?Sized>(&mut self, env: &E) {
        let n = self.dims.n_agents;
        let w = &mut self.work;
        let steps = w.ep_slot.len();
        if self.config.cost_credit == CostCredit::Creation
            && self.config.credit == Credit::PerSubscriber
        {
            let mut delayed = vec![0.0; steps * n];
            if env.creation_cost(self.config.gamma, &mut delayed) {
                w.ep_cost.copy_from_slice(&delayed);
                // The last `replay` transitions of the episode are still stored.
                for t in steps.saturating_sub(self.replay.cap)..steps {
                    let k = w.ep_slot[t];
                    self.replay.agent_cost[k * n..(k + 1) * n]
                        .copy_from_slice(&delayed[t * n..(t + 1) * n]);
                }
            }
        }
        for t in 0..steps {
            for i in (0..n).filter(|&i| w.ep_mask[t * n + i]) {
                self.reward_seen[i] += 1;
                let k = self.reward_seen[i].min(CENTRING_SPAN) as f64;
                let shaped = w.ep_reward[t * n + i] - self.lambda * w.ep_cost[t * n + i];
                self.reward_mean[i] += (shaped - self.reward_mean[i]) / k;
            }
        }
        w.ep_mask.clear();
        w.ep_reward.clear();
        w.ep_cost.clear();
        w.ep_slot.clear();
    }

    /// One gradient step on a minibatch drawn from `rng` (Alg. 1's, or per agent with
    /// [`Credit::PerSubscriber`]); returns the minibatch's mean squared TD error (before the step).
    fn update(&mut self, rng: &mut Pcg64Mcg) -> f64 {
        match self.config.credit {
            Credit::Joint => self.update_joint(rng),
            Credit::PerSubscriber => self.update_per_subscriber(rng),
        }
    }

    /// [`Credit::PerSubscriber`]: for each agent i with rows in the minibatch (`m^i = 1`), one TD error per
    /// row, `Q^i(o^i, a^i) − (r^i − λC^i − r̄^i + γ(1−done)·m'^i·Q̄^i(o'^i, argmax_a Q^i(o'^i, a)))`, and one
    /// Adam step on its mean square. `r̄^i` is the agent's running mean of its shaped reward `r^i − λC^i`
    /// (reward centring, ours; it absorbs the constant `λc/N` of the Lagrangian:
    /// it shifts every action's value alike, so the greedy policy is unchanged, but keeps the values near 0;
    /// without it they climb towards `r̄/(1−γ)` during training, the rarely taken actions' values lag behind
    /// and the argmax sticks to early choices, and a masked next step, bootstrapped as 0, adds a variance of
    /// ~`(γ·r̄/(1−γ))²` to the target). Agents without rows take no step. Returns the mean over the agents with
    /// rows of their mean squared TD errors.
    fn update_per_subscriber(&mut self, rng: &mut Pcg64Mcg) -> f64 {
        let d = self.dims;
        let (n, na, l) = (d.n_agents, d.n_actions, d.agent_obs_len);
        let bsz = self.config.batch;
        let (gamma, lambda) = (self.config.gamma, self.lambda);
        let rp = &self.replay;
        let w = &mut self.work;
        w.sample.clear();
        w.sample
            .extend((0..bsz).map(|_| uniform_index(rng, rp.len)));
        let (mut loss_sum, mut agents_with_rows) = (0.0, 0usize);
        for i in 0..n {
            let rows = &mut w.rows[i];
            rows.clear();
            rows.extend((0..bsz).filter(|&b| rp.mask[w.sample[b] * n + i]));
            let m = rows.len();
            if m == 0 {
                continue;
            }
            // Bootstrapped next values (0 when done or masked next).
            w.next_q[..m].fill(0.0);
            w.next_rows.clear();
            w.next_rows.extend((0..m).filter(|&r| {
                let k = w.sample[rows[r]];
                !rp.done[k] && rp.next_mask[k * n + i]
            }));
            if !w.next_rows.is_empty() {
                w.input.clear();
                for &r in &w.next_rows {
                    let o = (w.sample[rows[r]] * n + i) * l;
                    w.input.extend_from_slice(&rp.next_agent_obs[o..o + l]);
                }
                let k = w.next_rows.len();
                let out = self.agents[i].forward_batch(&w.input, k, &mut w.eval);
                w.best.clear();
                w.best.extend(out.chunks_exact(na).map(argmax));
                let out = self.agent_targets[i].forward_batch(&w.input, k, &mut w.eval);
                for (j, &r) in w.next_rows.iter().enumerate() {
                    w.next_q[r] = out[j * na + w.best[j]] as f64;
                }
            }
            w.input.clear();
            for &b in rows.iter() {
                let o = (w.sample[b] * n + i) * l;
                w.input.extend_from_slice(&rp.agent_obs[o..o + l]);
            }
            let out = self.agents[i].forward_batch(&w.input, m, &mut w.agent[i]);
            w.d_out.clear();
            w.d_out.resize(m * na, 0.0);
            let mut loss = 0.0;
            for (r, &b) in rows.iter().enumerate() {
                let k = w.sample[b];
                let a = rp.actions[k * n + i];
                let y = rp.agent_reward[k * n + i]
                    - lambda * rp.agent_cost[k * n + i]
                    - self.reward_mean[i]
                    + gamma * w.next_q[r];
                let diff = out[r * na + a] as f64 - y;
                loss += diff * diff;
                w.d_out[r * na + a] = (2.0 * diff / m as f64) as f32;
            }
            let net = &mut self.agents[i];
            net.zero_grad();
            net.backward_batch(&w.d_out, &mut w.agent[i]);
            self.agent_adam[i].step(net);
            loss_sum += loss / m as f64;
            agents_with_rows += 1;
        }
        if agents_with_rows == 0 {
            0.0
        } else {
            loss_sum / agents_with_rows as f64
        }
    }

    /// Alg. 1's gradient step ([`Credit::Joint`]) on a minibatch drawn from `rng`: one TD error on `Q_tot`
    /// per row; an Adam step on `Q^c` and on every agent with rows (none for agents without: their gradient is
    /// 0, but Adam's decaying moments would still move them). Returns the mean squared TD error.
    fn update_joint(&mut self, rng: &mut Pcg64Mcg) -> f64 {
        let d = self.dims;
        let (n, na, l, lc) = (d.n_agents, d.n_actions, d.agent_obs_len, d.cluster_obs_len);
        let bsz = self.config.batch;
        let (gamma, c, lambda) = (self.config.gamma, self.config.cost_target(), self.lambda);
        let rp = &self.replay;
        let w = &mut self.work;
        w.sample.clear();
        w.sample
            .extend((0..bsz).map(|_| uniform_index(rng, rp.len)));
        w.q.fill(0.0);
        w.next_q.fill(0.0);

        // Cluster term: Q^c(s^c; θ^c) (kept for backward) and Q^c(s'^c; θ̄^c) for rows not done.
        w.input.clear();
        for &k in &w.sample {
            w.input
                .extend_from_slice(&rp.cluster_obs[k * lc..(k + 1) * lc]);
        }
        let out = self.cluster.forward_batch(&w.input, bsz, &mut w.cluster);
        for (q, &v) in w.q.iter_mut().zip(out) {
            *q += v as f64;
        }
        w.next_rows.clear();
        w.next_rows
            .extend((0..bsz).filter(|&b| !rp.done[w.sample[b]]));
        if !w.next_rows.is_empty() {
            w.input.clear();
            for &b in &w.next_rows {
                let k = w.sample[b];
                w.input
                    .extend_from_slice(&rp.next_cluster_obs[k * lc..(k + 1) * lc]);
            }
            let out = self
                .cluster_target
                .forward_batch(&w.input, w.next_rows.len(), &mut w.eval);
            for (&b, &v) in w.next_rows.iter().zip(out) {
                w.next_q[b] += v as f64;
            }
        }

        // Agent terms.
        for i in 0..n {
            // Next state: m'^i·Q^i(o'^i, argmax_a Q^i(o'^i, a; θ^i); θ̄^i) for rows not done.
            w.next_rows.clear();
            w.next_rows.extend(
                (0..bsz).filter(|&b| !rp.done[w.sample[b]] && rp.next_mask[w.sample[b] * n + i]),
            );
            if !w.next_rows.is_empty() {
                let m = w.next_rows.len();
                w.input.clear();
                for &b in &w.next_rows {
                    let k = w.sample[b];
                    let o = (k * n + i) * l;
                    w.input.extend_from_slice(&rp.next_agent_obs[o..o + l]);
                }
                let out = self.agents[i].forward_batch(&w.input, m, &mut w.eval);
                w.best.clear();
                w.best.extend(out.chunks_exact(na).map(argmax));
                let out = self.agent_targets[i].forward_batch(&w.input, m, &mut w.eval);
                for (r, &b) in w.next_rows.iter().enumerate() {
                    w.next_q[b] += out[r * na + w.best[r]] as f64;
                }
            }
            // Current state: m^i·Q^i(o^i, a^i; θ^i), kept for backward.
            let rows = &mut w.rows[i];
            rows.clear();
            rows.extend((0..bsz).filter(|&b| rp.mask[w.sample[b] * n + i]));
            if !rows.is_empty() {
                w.input.clear();
                for &b in rows.iter() {
                    let k = w.sample[b];
                    let o = (k * n + i) * l;
                    w.input.extend_from_slice(&rp.agent_obs[o..o + l]);
                }
                let out = self.agents[i].forward_batch(&w.input, rows.len(), &mut w.agent[i]);
                for (r, &b) in rows.iter().enumerate() {
                    let a = rp.actions[w.sample[b] * n + i];
                    w.q[b] += out[r * na + a] as f64;
                }
            }
        }

        // TD targets, loss and dLoss/dQ_tot = 2(Q_tot − y)/B.
        let mut loss = 0.0;
        for b in 0..bsz {
            let k = w.sample[b];
            let not_done = if rp.done[k] { 0.0 } else { 1.0 };
            let y = rp.reward[k] + lambda * (c - rp.cost[k]) + gamma * not_done * w.next_q[b];
            let diff = w.q[b] - y;
            loss += diff * diff;
            w.g[b] = 2.0 * diff / bsz as f64;
        }

        // Backward passes and one Adam step on every online network.
        self.cluster.zero_grad();
        w.d_out.clear();
        w.d_out.extend(w.g.iter().map(|&g| g as f32));
        self.cluster.backward_batch(&w.d_out, &mut w.cluster);
        self.cluster_adam.step(&mut self.cluster);
        for i in 0..n {
            let rows = &w.rows[i];
            if rows.is_empty() {
                continue;
            }
            let net = &mut self.agents[i];
            net.zero_grad();
            w.d_out.clear();
            w.d_out.resize(rows.len() * na, 0.0);
            for (r, &b) in rows.iter().enumerate() {
                let a = rp.actions[w.sample[b] * n + i];
                w.d_out[r * na + a] = w.g[b] as f32;
            }
            net.backward_batch(&w.d_out, &mut w.agent[i]);
            self.agent_adam[i].step(net);
        }
        loss / bsz as f64
    }

    /// The exportable policy: the configuration, the shapes, the agents' online networks, the log, and the
    /// caller's `fingerprint` (the scenario settings the policy was trained for).
    pub fn policy(&self, fingerprint: String) -> TrainedPolicy {
        TrainedPolicy {
            version: POLICY_VERSION,
            fingerprint,
            config: self.config.clone(),
            dims: self.dims,
            agents: self.agents.clone(),
            log: self.log.clone(),
        }
    }
}

/// A trained C2MARL policy, the exportable file: the agents' online networks `Q^i` (decentralised
/// execution: each agent acts greedily on its own observation), with what produced them. JSON via serde;
/// loading ([`TrainedPolicy::from_json`] or any serde deserializer) checks the version, the configuration,
/// the shapes of every network against `dims` and `config.hidden`, finite parameters and log values, and
/// fails with a message naming the offending field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PolicyFile")]
pub struct TrainedPolicy {
    /// File format version, [`POLICY_VERSION`].
    pub version: u32,
    /// The caller's description of what the policy was trained for (scenario settings).
    pub fingerprint: String,
    /// The training configuration.
    pub config: C2marlConfig,
    /// The environment's shapes.
    pub dims: Dims,
    /// `Q^i` for each agent i (`agent_obs_len → config.hidden → n_actions`).
    pub agents: Vec<Mlp>,
    /// The training log, one entry per episode.
    pub log: Vec<EpisodeLog>,
}

/// The unchecked file form of a [`TrainedPolicy`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    version: u32,
    fingerprint: String,
    config: C2marlConfig,
    dims: Dims,
    agents: Vec<MlpFile<f32>>,
    log: Vec<EpisodeLog>,
}

impl TryFrom<PolicyFile> for TrainedPolicy {
    type Error = String;

    fn try_from(f: PolicyFile) -> Result<Self, String> {
        if f.version != POLICY_VERSION {
            return Err(format!(
                "version: this engine reads C2MARL policy files of version {POLICY_VERSION}, got {}",
                f.version
            ));
        }
        let n = f.agents.len();
        let mut agents = Vec::with_capacity(n);
        for (i, a) in f.agents.into_iter().enumerate() {
            agents
                .push(Mlp::from_parts(a.sizes, a.params).map_err(|e| format!("agents[{i}].{e}"))?);
        }
        let p = TrainedPolicy {
            version: f.version,
            fingerprint: f.fingerprint,
            config: f.config,
            dims: f.dims,
            agents,
            log: f.log,
        };
        p.check()?;
        Ok(p)
    }
}

impl TrainedPolicy {
    /// Checks what loading guarantees (listed in the documentation of [`TrainedPolicy`]).
    pub fn check(&self) -> Result<(), String> {
        if self.version != POLICY_VERSION {
            return Err(format!(
                "version: expected {POLICY_VERSION}, got {}",
                self.version
            ));
        }
        if self.fingerprint.len() > MAX_FINGERPRINT_BYTES {
            return Err(format!(
                "fingerprint: {} bytes, more than {MAX_FINGERPRINT_BYTES}",
                self.fingerprint.len()
            ));
        }
        if let Some(e) = self.config.validate().first() {
            return Err(format!("config.{e}"));
        }
        self.dims.check()?;
        if self.agents.len() != self.dims.n_agents {
            return Err(format!(
                "agents: {} networks for dims.n_agents = {}",
                self.agents.len(),
                self.dims.n_agents
            ));
        }
        let want = self
            .config
            .sizes(self.dims.agent_obs_len, self.dims.n_actions);
        for (i, a) in self.agents.iter().enumerate() {
            if a.sizes() != want.as_slice() {
                return Err(format!(
                    "agents[{i}].sizes: {:?}, but dims and config.hidden give {want:?}",
                    a.sizes()
                ));
            }
            if let Some(k) = a.params().iter().position(|p| !p.is_finite()) {
                return Err(format!("agents[{i}].params[{k}]: not finite"));
            }
        }
        for (k, e) in self.log.iter().enumerate() {
            if let Some(field) = e.non_finite() {
                return Err(format!("log[{k}].{field}: not finite"));
            }
        }
        Ok(())
    }

    /// Checks that the policy's shapes are those of the environment it is to act in (`want`, e.g.
    /// `Dims::of(env)`): a file can be well formed and still be for other shapes, and acting with it would
    /// index past its networks. Errors name the field (`dims.<field>`) with both values.
    pub fn check_dims(&self, want: &Dims) -> Result<(), String> {
        let d = &self.dims;
        for (field, got, need) in [
            ("n_agents", d.n_agents, want.n_agents),
            ("n_actions", d.n_actions, want.n_actions),
            ("agent_obs_len", d.agent_obs_len, want.agent_obs_len),
            ("cluster_obs_len", d.cluster_obs_len, want.cluster_obs_len),
        ] {
            if got != need {
                return Err(format!(
                    "dims.{field}: the policy is for {got}, this scenario needs {need}"
                ));
            }
        }
        Ok(())
    }

    /// Reads a policy file (JSON, at most [`MAX_POLICY_BYTES`]). Errors name the offending field, or the
    /// line and column of a syntax error.
    pub fn from_json(bytes: &[u8]) -> Result<TrainedPolicy, String> {
        if bytes.len() > MAX_POLICY_BYTES {
            return Err(format!(
                "policy file of {} bytes exceeds the limit of {MAX_POLICY_BYTES} bytes",
                bytes.len()
            ));
        }
        serde_json::from_slice(bytes).map_err(|e| format!("policy file: {e}"))
    }

    /// The policy as JSON. Errors: a policy that would not load back ([`TrainedPolicy::check`]: e.g. a
    /// diverged training's non-finite values, which JSON cannot hold).
    pub fn to_json(&self) -> Result<String, String> {
        self.check()?;
        let s = serde_json::to_string(self).map_err(|e| e.to_string())?;
        if s.len() > MAX_POLICY_BYTES {
            return Err(format!(
                "policy file of {} bytes exceeds the limit of {MAX_POLICY_BYTES} bytes",
                s.len()
            ));
        }
        Ok(s)
    }

    /// A scratch space for [`TrainedPolicy::act_with`].
    pub fn scratch(&self) -> Scratch {
        self.agents
            .first()
            .map(|a| a.scratch(1))
            .unwrap_or_default()
    }

    /// Agent `agent`'s greedy action `argmax_a Q^i(obs, a)` (lowest index on ties) for its observation `obs`
    /// (`dims.agent_obs_len` values). Panics if `agent` or `obs.len()` do not fit `dims`.
    pub fn act(&self, agent: usize, obs: &[f32]) -> usize {
        self.act_with(agent, obs, &mut self.scratch())
    }

    /// [`TrainedPolicy::act`] with a reusable scratch space (no allocation).
    pub fn act_with(&self, agent: usize, obs: &[f32], scratch: &mut Scratch) -> usize {
        argmax(self.agents[agent].forward(obs, scratch))
    }
}

/// At most [`FINGERPRINT_SHOWN`] characters of `s`, with `…` when cut.
fn clip(s: &str) -> String {
    match s.char_indices().nth(FINGERPRINT_SHOWN) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Characters of one fingerprint value (or of a whole fingerprint) a message shows: a file's fingerprint can
/// be 64 KiB ([`MAX_FINGERPRINT_BYTES`]).
const FINGERPRINT_SHOWN: usize = 100;

/// What differs between a policy file's fingerprint and the scenario's, as `key: file value ≠ scenario value`
/// for each differing key (the whole fingerprints when the file's is not a JSON object); each value is cut
/// to [`FINGERPRINT_SHOWN`] characters, and at most 5 keys are listed (then how many more differ).
pub fn fingerprint_difference(file: &str, scenario: &str) -> String {
    let (a, b) = match (
        serde_json::from_str::<serde_json::Value>(file),
        serde_json::from_str::<serde_json::Value>(scenario),
    ) {
        (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) => (a, b),
        _ => {
            return format!(
                "trained for {}; this scenario is {}",
                clip(file),
                clip(scenario)
            )
        }
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let null = serde_json::Value::Null;
    let differ: Vec<&String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    let mut out = differ
        .iter()
        .take(5)
        .map(|k| {
            format!(
                "{}: {} in the file, {} here",
                clip(k),
                clip(&a.get(*k).unwrap_or(&null).to_string()),
                clip(&b.get(*k).unwrap_or(&null).to_string())
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    if differ.len() > 5 {
        out.push_str(&format!("; and {} more", differ.len() - 5));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy environment with a known optimum. 24 hourly steps; observations: the hour one-hot (24) for
    /// every agent and for the cluster. Agent i's best action at hour h is `(h + i) % 2`; action 2 is
    /// "risky": it earns `risky_reward` (0.5 by default: between the best action's 1 and the other's 0) and
    /// makes the step hot (cost 1). Agent 1 has requests only at hours h with h % 4 ≠ 3 (masked otherwise). Reward = the sum
    /// of the unmasked agents' terms / n_agents.
    struct Toy {
        n: usize,
        t: usize,
        /// Cost every step regardless of actions (for the dual tests), if set.
        forced_cost: Option<f64>,
        /// Agent 1 always masked.
        agent1_masked: bool,
        /// Reward term of the risky action.
        risky_reward: f64,
        /// The last step's per-agent reward terms and cost shares.
        last: Vec<(f64, f64)>,
    }

    impl Toy {
        fn new(n: usize) -> Self {
            Toy {
                n,
                t: 0,
                forced_cost: None,
                agent1_masked: false,
                risky_reward: 0.5,
                last: vec![(0.0, 0.0); n],
            }
        }
        fn active(&self, i: usize, h: usize) -> bool {
            !(i == 1 && (self.agent1_masked || h % 4 == 3))
        }
    }

    impl MarlEnv for Toy {
        fn n_agents(&self) -> usize {
            self.n
        }
        fn n_actions(&self) -> usize {
            3
        }
        fn agent_obs_len(&self) -> usize {
            24
        }
        fn cluster_obs_len(&self) -> usize {
            24
        }
        fn reset(&mut self, _episode: u64) {
            self.t = 0;
        }
        fn observe(&self, agent_obs: &mut [f32], cluster_obs: &mut [f32], mask: &mut [bool]) {
            let h = self.t % 24;
            agent_obs.fill(0.0);
            cluster_obs.fill(0.0);
            cluster_obs[h] = 1.0;
            for i in 0..self.n {
                agent_obs[i * 24 + h] = 1.0;
                mask[i] = self.active(i, h);
            }
        }
        fn step(&mut self, actions: &[usize]) -> StepOutcome {
            let h = self.t % 24;
            let (mut reward, mut cost) = (0.0, 0.0);
            for (i, &a) in actions.iter().enumerate() {
                self.last[i] = (0.0, 0.0);
                if !self.active(i, h) {
                    continue;
                }
                let r = match a {
                    2 => {
                        cost = 1.0;
                        self.last[i].1 = 1.0;
                        self.risky_reward
                    }
                    a if a == (h + i) % 2 => 1.0,
                    _ => 0.0,
                };
                self.last[i].0 = r;
                reward += r;
            }
            // Cost shares: the risky agents split the cost (or all agents a forced one).
            let cost = self.forced_cost.unwrap_or(cost);
            let takers = self.last.iter().filter(|x| x.1 > 0.0).count();
            for x in &mut self.last {
                x.1 = match (self.forced_cost, takers) {
                    (Some(f), _) => f / self.n as f64,
                    (None, 0) => 0.0,
                    (None, k) => x.1 / k as f64,
                };
            }
            self.t += 1;
            StepOutcome {
                reward: reward / self.n as f64,
                cost,
                done: self.t == 24,
            }
        }
        fn credit(&self, reward: &mut [f64], cost: &mut [f64]) {
            for (i, &(r, c)) in self.last.iter().enumerate() {
                reward[i] = r;
                cost[i] = c;
            }
        }
    }

    fn toy_config() -> C2marlConfig {
        C2marlConfig {
            hidden: vec![32],
            episodes: 80,
            tau: 0.01,
            ..C2marlConfig::default()
        }
    }

    fn one_hot(h: usize) -> Vec<f32> {
        let mut o = vec![0.0; 24];
        o[h] = 1.0;
        o
    }

    #[test]
    fn fingerprint_differences_are_short_whatever_the_file_holds() {
        let here = r#"{"pms":20,"preset":"E1.1"}"#;
        assert_eq!(
            fingerprint_difference(r#"{"pms":21,"preset":"E1.1"}"#, here),
            "pms: 21 in the file, 20 here"
        );
        // a 60 KB value, a 60 KB non-object, 1,000 extra keys: each message stays under 1,000 characters
        let long = format!(r#"{{"pms":"{}","preset":"E1.1"}}"#, "x".repeat(60_000));
        let m = fingerprint_difference(&long, here);
        assert!(
            m.starts_with(r#"pms: "xxx"#) && m.contains("… in the file, 20 here"),
            "{m}"
        );
        assert!(m.len() < 1000, "{} bytes", m.len());
        let m = fingerprint_difference(&"y".repeat(60_000), here);
        assert!(m.starts_with("trained for yyy") && m.len() < 1000, "{m}");
        let many: String = (0..1000).map(|k| format!(r#","k{k}":{k}"#)).collect();
        let m = fingerprint_difference(&format!(r#"{{"pms":20,"preset":"E1.1"{many}}}"#), here);
        assert!(m.ends_with("; and 995 more") && m.len() < 1000, "{m}");
    }

    #[test]
    fn learns_the_known_optimum_of_the_toy_environment() {
        // c = (1 − 0)·1 = 1 ≥ Û: λ stays 0, and the risky action is simply worse than the best one.
        let cfg = C2marlConfig {
            alpha: 0.0,
            delta: 1.0,
            ..toy_config()
        };
        let mut env = Toy::new(3);
        let mut tr = Trainer::new(&cfg, &env, 11).unwrap();
        for e in 0..cfg.episodes {
            tr.train_episode(&mut env, e);
        }
        assert_eq!(tr.lambda(), 0.0);
        let pol = tr.policy("toy".into());
        for h in 0..24 {
            for i in 0..3 {
                if env.active(i, h) {
                    assert_eq!(pol.act(i, &one_hot(h)), (h + i) % 2, "agent {i} hour {h}");
                }
            }
        }
        // The last episodes (ε = 0.05) are nearly optimal.
        let last = tr.log().last().unwrap();
        assert_eq!(last.epsilon, 0.05);
        assert!(last.mean_reward > 0.8, "{last:?}");
    }

    #[test]
    fn the_constraint_steers_the_policy_away_from_a_tempting_risky_action() {
        // The risky action now earns 1.5 > 1. Unconstrained (c = 1), the greedy policy takes it at every
        // hour; with the default target c = 0.00125, λ rises and the greedy policy never takes it.
        let greedy_risky = |cfg: &C2marlConfig, seed: u64| -> (usize, f64) {
            let mut env = Toy::new(3);
            env.risky_reward = 1.5;
            let mut tr = Trainer::new(cfg, &env, seed).unwrap();
            for e in 0..cfg.episodes {
                tr.train_episode(&mut env, e);
            }
            let pol = tr.policy(String::new());
            let risky = (0..24)
                .flat_map(|h| (0..3).map(move |i| (h, i)))
                .filter(|&(h, i)| env.active(i, h) && pol.act(i, &one_hot(h)) == 2)
                .count();
            (risky, tr.lambda())
        };
        let free = C2marlConfig {
            alpha: 0.0,
            delta: 1.0,
            ..toy_config()
        };
        assert_eq!(greedy_risky(&free, 3), (3 * 24 - 6, 0.0));
        // The risky action pays 0.5 more and carries a cost share of at least 1/3: λ must pass 1.5.
        let constrained = C2marlConfig {
            eta_lambda: 0.2,
            dual_start_fraction: 0.25,
            ..toy_config()
        };
        let (risky, lambda) = greedy_risky(&constrained, 3);
        assert_eq!(risky, 0);
        assert!(
            lambda > 1.5 && lambda < constrained.lambda_max,
            "λ = {lambda}"
        );
    }

    #[test]
    fn epsilon_schedule() {
        let cfg = C2marlConfig::default();
        assert_eq!(cfg.epsilon(0), 1.0);
        assert!((cfg.epsilon(450) - 0.525).abs() < 1e-12);
        assert!((cfg.epsilon(900) - 0.05).abs() < 1e-12);
        assert_eq!(cfg.epsilon(1799), 0.05);
        assert_eq!(cfg.cost_target(), (1.0 - 0.95) * 0.025);
    }

    #[test]
    fn dual_variable_steps_once_per_episode_on_the_greedy_cost_after_the_warm_up() {
        // 80 episodes, dual steps from episode 20; Û = the mean of the last 2 greedy episodes.
        let cfg = C2marlConfig {
            eta_lambda: 0.05,
            dual_start_fraction: 0.25,
            dual_window: 2,
            lambda_max: 0.12,
            ..toy_config()
        };
        assert_eq!(cfg.dual_start(), 20);
        let mut env = Toy::new(2);
        env.forced_cost = Some(1.0);
        let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
        let log = tr.train_episode(&mut env, 19);
        // Before the warm-up ends: no greedy episode, no dual step, whatever the cost.
        assert_eq!(
            (log.mean_cost, log.greedy_cost, log.lambda),
            (1.0, None, 0.0)
        );
        assert_eq!(log.hot_steps, 24.0);
        // Û = 1, c = 0.05·0.025 = 0.00125: gap (c − Û)/c = −799, clipped to −1: λ = 0 + 0.05.
        let log = tr.train_episode(&mut env, 20);
        assert_eq!(log.greedy_cost, Some(1.0));
        assert!((tr.lambda() - 0.05).abs() < 1e-15, "{}", tr.lambda());
        assert_eq!(log.lambda, tr.lambda());
        // Cost 0 now: Û = (1 + 0)/2 = 0.5, still clipped: λ = 0.10.
        env.forced_cost = Some(0.0);
        tr.train_episode(&mut env, 21);
        assert!((tr.lambda() - 0.1).abs() < 1e-15, "{}", tr.lambda());
        // Û = 0: gap +1, λ goes down by η_λ (eq. 11's plain gap would lower it by only 0.05·c = 6.25e-5).
        tr.train_episode(&mut env, 22);
        assert!((tr.lambda() - 0.05).abs() < 1e-15, "{}", tr.lambda());
        // λ is bounded by lambda_max = 0.12.
        env.forced_cost = Some(1.0);
        for e in 23..30 {
            tr.train_episode(&mut env, e);
        }
        assert_eq!(tr.lambda(), 0.12);
        // Fixed λ (η = 0) stays at lambda_init.
        let fixed = C2marlConfig {
            eta_lambda: 0.0,
            lambda_init: 3.0,
            lambda_max: 5.0,
            dual_start_fraction: 0.0,
            ..toy_config()
        };
        let mut tr = Trainer::new(&fixed, &env, 1).unwrap();
        assert_eq!(tr.train_episode(&mut env, 0).lambda, 3.0);
    }

    #[test]
    fn constraint_gap_is_in_units_of_the_target_and_clipped() {
        let cfg = C2marlConfig::default(); // c = 0.05 · 0.025 = 0.00125
        assert_eq!(cfg.constraint_gap(0.0), 1.0);
        assert!((cfg.constraint_gap(0.0025) - -1.0).abs() < 1e-12);
        assert!((cfg.constraint_gap(0.000625) - 0.5).abs() < 1e-12);
        assert!((cfg.constraint_gap(0.001875) - -0.5).abs() < 1e-12);
        assert_eq!(cfg.constraint_gap(0.5), -1.0);
        let free = C2marlConfig {
            alpha: 1.0,
            ..C2marlConfig::default()
        };
        assert_eq!(
            (free.constraint_gap(0.0), free.constraint_gap(0.1)),
            (0.0, -1.0)
        );
    }

    #[test]
    fn dual_variable_stays_at_zero_when_always_safe() {
        let mut env = Toy::new(2);
        env.forced_cost = Some(0.0);
        let cfg = C2marlConfig {
            dual_start_fraction: 0.0,
            ..toy_config()
        };
        let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
        for e in 0..3 {
            let log = tr.train_episode(&mut env, e);
            assert_eq!((log.lambda, log.greedy_cost), (0.0, Some(0.0)));
        }
    }

    #[test]
    fn masked_agents_receive_no_gradient_and_no_optimiser_step() {
        for credit in [Credit::PerSubscriber, Credit::Joint] {
            let cfg = C2marlConfig {
                credit,
                ..toy_config()
            };
            let mut env = Toy::new(3);
            env.agent1_masked = true;
            let fresh = Trainer::new(&cfg, &env, 5).unwrap();
            let mut tr = Trainer::new(&cfg, &env, 5).unwrap();
            for e in 0..3 {
                tr.train_episode(&mut env, e);
            }
            assert_eq!(tr.agent_net(1), fresh.agent_net(1));
            assert_ne!(tr.agent_net(0), fresh.agent_net(0));
            assert_ne!(tr.agent_net(2), fresh.agent_net(2));
            // Agents 0 and 2 have rows in every minibatch (all unmasked), agent 1 in none: 0 Adam steps.
            let steps: Vec<u64> = tr.agent_adam.iter().map(Adam::steps).collect();
            assert_eq!(steps, vec![3 * 120, 0, 3 * 120], "{credit:?}");
            // Q^c learns only in Alg. 1's joint loss.
            assert_eq!(
                tr.cluster_net() == fresh.cluster_net(),
                credit == Credit::PerSubscriber
            );
        }
    }

    #[test]
    fn an_agent_with_rows_in_some_minibatches_steps_only_on_those() {
        // Agent 1 is masked at hours h % 4 == 3. With batch 1, a minibatch holds one row, so agent 1 steps on
        // exactly the minibatches whose row has it unmasked; agent 0 on every one.
        let cfg = C2marlConfig {
            batch: 1,
            ..toy_config()
        };
        let mut env = Toy::new(2);
        let mut tr = Trainer::new(&cfg, &env, 5).unwrap();
        tr.train_episode(&mut env, 0);
        let (s0, s1) = (tr.agent_adam[0].steps(), tr.agent_adam[1].steps());
        assert_eq!(s0, 120);
        // 1/4 of the 24 stored transitions have agent 1 masked: 120 draws give 90 ± 3σ (σ = 4.7).
        assert!(s1 < 120 && (76..=104).contains(&s1), "{s1}");
    }

    #[test]
    fn one_seed_gives_bit_identical_training() {
        let cfg = toy_config();
        let run = |seed| {
            let mut env = Toy::new(3);
            let mut tr = Trainer::new(&cfg, &env, seed).unwrap();
            for e in 0..4 {
                tr.train_episode(&mut env, e);
            }
            tr
        };
        let (a, b, c) = (run(9), run(9), run(10));
        assert_eq!(a.policy("x".into()), b.policy("x".into()));
        for i in 0..3 {
            let bits = |t: &Trainer| -> Vec<u32> {
                t.agent_net(i)
                    .params()
                    .iter()
                    .map(|p| p.to_bits())
                    .collect()
            };
            assert_eq!(bits(&a), bits(&b));
        }
        assert_eq!(a.cluster_net(), b.cluster_net());
        assert_eq!(a.lambda().to_bits(), b.lambda().to_bits());
        assert_ne!(a.agent_net(0), c.agent_net(0));
        // with_dims is new without an environment.
        let d = Dims::of(&Toy::new(3));
        let fresh = Trainer::with_dims(&cfg, d, 9).unwrap();
        assert_eq!(
            fresh.agent_net(2),
            Trainer::new(&cfg, &Toy::new(3), 9).unwrap().agent_net(2)
        );
        let bad = Dims { n_actions: 0, ..d };
        assert_eq!(
            Trainer::with_dims(&cfg, bad, 9).unwrap_err(),
            "dims.n_actions: must be in [1, 1024], got 0"
        );
    }

    /// FNV-1a over the bits of every online network's parameters and λ.
    fn fingerprint_of(tr: &Trainer) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        for i in 0..tr.dims().n_agents {
            tr.agent_net(i)
                .params()
                .iter()
                .for_each(|p| eat(p.to_bits() as u64));
        }
        tr.cluster_net()
            .params()
            .iter()
            .for_each(|p| eat(p.to_bits() as u64));
        eat(tr.lambda().to_bits());
        h
    }

    #[test]
    fn training_is_pinned() {
        // Bit-level pin of 3 toy episodes (the same on every target: run it in wasm32 to check parity).
        let mut env = Toy::new(3);
        let mut tr = Trainer::new(&toy_config(), &env, 2).unwrap();
        for e in 0..3 {
            tr.train_episode(&mut env, e);
        }
        assert_eq!(
            fingerprint_of(&tr),
            0xf84e_7576_af1c_a7f2,
            "{:#x}",
            fingerprint_of(&tr)
        );
    }

    fn trained_policy() -> TrainedPolicy {
        let cfg = C2marlConfig {
            hidden: vec![8, 8],
            k_upd: 10,
            ..toy_config()
        };
        let mut env = Toy::new(2);
        let mut tr = Trainer::new(&cfg, &env, 3).unwrap();
        for e in 0..2 {
            tr.train_episode(&mut env, e);
        }
        tr.policy("toy, 2 agents".into())
    }

    #[test]
    fn policy_file_round_trips_bit_exact() {
        let p = trained_policy();
        let json = p.to_json().unwrap();
        let back = TrainedPolicy::from_json(json.as_bytes()).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.fingerprint, "toy, 2 agents");
        for (a, b) in back.agents.iter().zip(&p.agents) {
            assert!(a
                .params()
                .iter()
                .zip(b.params())
                .all(|(x, y)| x.to_bits() == y.to_bits()));
        }
        for h in 0..24 {
            assert_eq!(back.act(1, &one_hot(h)), p.act(1, &one_hot(h)));
        }
    }

    #[test]
    fn tampered_policy_files_are_refused_with_messages() {
        let p = trained_policy();
        let json = p.to_json().unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let tamper = |f: &dyn Fn(&mut serde_json::Value)| -> String {
            let mut v = v.clone();
            f(&mut v);
            TrainedPolicy::from_json(v.to_string().as_bytes()).unwrap_err()
        };
        let cases: Vec<(String, &str)> = vec![
            (
                tamper(&|v| v["dims"]["n_agents"] = 3.into()),
                "agents: 2 networks for dims.n_agents = 3",
            ),
            (
                tamper(&|v| v["dims"]["agent_obs_len"] = 25.into()),
                "agents[0].sizes: [24, 8, 8, 3], but dims and config.hidden give [25, 8, 8, 3]",
            ),
            (
                tamper(&|v| v["config"]["hidden"] = serde_json::json!([8])),
                "agents[0].sizes",
            ),
            (
                tamper(&|v| v["dims"]["n_actions"] = 0.into()),
                "dims.n_actions: must be in [1, 1024], got 0",
            ),
            (
                tamper(&|v| {
                    v["agents"][1]["params"].as_array_mut().unwrap().pop();
                }),
                "agents[1].params: layer sizes [24, 8, 8, 3] need 299 parameters, got 298",
            ),
            (
                tamper(&|v| v["config"]["gamma"] = 1.5.into()),
                "config.gamma: must be in [0, 1)",
            ),
            (
                tamper(&|v| v["version"] = 1.into()),
                "version: this engine reads",
            ),
            (tamper(&|v| v["extra"] = 1.into()), "unknown field `extra`"),
            (
                tamper(&|v| {
                    v["log"][0].as_object_mut().unwrap().remove("lambda");
                }),
                "missing field `lambda`",
            ),
        ];
        for (err, want) in &cases {
            assert!(err.contains(want), "{err:?} lacks {want:?}");
        }
        // Non-finite numbers: JSON has no NaN; an overflowing literal is refused too.
        let nan = json.replacen("\"params\":[", "\"params\":[NaN,", 1);
        assert!(TrainedPolicy::from_json(nan.as_bytes()).is_err());
        let big = json.replacen("\"params\":[", "\"params\":[1e39,", 1);
        let err = TrainedPolicy::from_json(big.as_bytes()).unwrap_err();
        assert!(err.starts_with("policy file:"), "{err}");
        // Truncated files.
        for cut in [1, json.len() / 3, json.len() - 1] {
            let err = TrainedPolicy::from_json(&json.as_bytes()[..cut]).unwrap_err();
            assert!(err.contains("EOF"), "{err}");
        }
        // Too large.
        let huge = vec![b' '; MAX_POLICY_BYTES + 1];
        assert!(TrainedPolicy::from_json(&huge)
            .unwrap_err()
            .contains("exceeds the limit"));
        // A diverged policy is refused on save.
        let mut bad = p.clone();
        bad.agents[0].params_mut()[5] = f32::NAN;
        assert_eq!(
            bad.to_json().unwrap_err(),
            "agents[0].params[5]: not finite"
        );
        let mut bad = p;
        bad.log[1].mean_loss = f64::INFINITY;
        assert_eq!(bad.to_json().unwrap_err(), "log[1].mean_loss: not finite");
    }

    #[test]
    fn policies_for_other_shapes_are_refused_naming_the_field() {
        let p = trained_policy();
        assert_eq!(p.check_dims(&p.dims), Ok(()));
        for (field, change) in [
            (
                "n_agents",
                Dims {
                    n_agents: 3,
                    ..p.dims
                },
            ),
            (
                "n_actions",
                Dims {
                    n_actions: 4,
                    ..p.dims
                },
            ),
            (
                "agent_obs_len",
                Dims {
                    agent_obs_len: 25,
                    ..p.dims
                },
            ),
            (
                "cluster_obs_len",
                Dims {
                    cluster_obs_len: 7,
                    ..p.dims
                },
            ),
        ] {
            let err = p.check_dims(&change).unwrap_err();
            assert!(
                err.starts_with(&format!("dims.{field}: the policy is for ")),
                "{err}"
            );
        }
        assert_eq!(
            p.check_dims(&Dims {
                n_agents: 3,
                ..p.dims
            })
            .unwrap_err(),
            "dims.n_agents: the policy is for 2, this scenario needs 3"
        );
    }

    /// A hostile file declaring huge layers is refused by the declared sizes, before anything of that size
    /// is allocated (the parameter count is checked with overflow-checked arithmetic first).
    #[test]
    fn huge_declared_layer_sizes_are_refused_before_allocating() {
        let p = trained_policy();
        let mut v: serde_json::Value = serde_json::from_str(&p.to_json().unwrap()).unwrap();
        v["config"]["hidden"] = serde_json::json!([4_000_000_000u64, 4_000_000_000u64]);
        v["agents"][0]["sizes"] = serde_json::json!([24, 4_000_000_000u64, 4_000_000_000u64, 3]);
        let err = TrainedPolicy::from_json(v.to_string().as_bytes()).unwrap_err();
        assert!(
            err.contains("agents[0].sizes: layer sizes [24, 4000000000, 4000000000, 3] give more than 1000000 parameters"),
            "{err}"
        );
        v["agents"][0]["sizes"] = serde_json::json!([24, usize::MAX, 3]);
        let err = TrainedPolicy::from_json(v.to_string().as_bytes()).unwrap_err();
        assert!(err.contains("agents[0].sizes: layer sizes"), "{err}");
        v["agents"][0]["sizes"] = serde_json::json!(vec![8; 17]);
        let err = TrainedPolicy::from_json(v.to_string().as_bytes()).unwrap_err();
        assert!(
            err.contains("agents[0].sizes: a network needs 2 to 16 layer sizes"),
            "{err}"
        );
    }

    #[test]
    fn config_validation_names_fields() {
        let bad = C2marlConfig {
            lr: 0.0,
            gamma: 1.0,
            batch: 0,
            hidden: vec![64, 0],
            delta: f64::NAN,
            ..C2marlConfig::default()
        };
        let errs = bad.validate();
        assert_eq!(
            errs,
            vec![
                "lr: must be in (0, 100], got 0",
                "gamma: must be in [0, 1), got 1",
                "delta: must be in (0, 1], got NaN",
                "batch: must be an integer in [1, 4096], got 0",
                "hidden[1]: a width in [1, 4096], got 0",
            ]
        );
        assert!(C2marlConfig::default().validate().is_empty());
        let cfg: C2marlConfig = serde_json::from_str(r#"{"alpha": 0.75}"#).unwrap();
        assert_eq!(cfg.k_upd, 120);
        assert!((cfg.cost_target() - 0.00625).abs() < 1e-15);
        assert!(serde_json::from_str::<C2marlConfig>(r#"{"alfa": 0.75}"#).is_err());
        let env = Toy::new(2);
        assert!(Trainer::new(&bad, &env, 0).unwrap_err().starts_with("lr: "));
    }
}
