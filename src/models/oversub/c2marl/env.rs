//! The environment C2MARL trains on ([`MarlEnv`]) and its shapes ([`Dims`]).

#[cfg(doc)]
use super::config::{CostCredit, Credit};
use super::config::{MAX_ACTIONS, MAX_AGENTS, MAX_OBS_LEN};
use serde::{Deserialize, Serialize};

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
    /// The machines of the episode just ended whose hot fraction reached δ (`hot_k ≥ δ`, ALGORITHMS.md
    /// §3.5), as indices into `out` (cleared first), for the PM-level dual steps ([`DualCost::Pm`],
    /// [`DualCost::PmCalibrated`], [`DualCost::PmEwma`]). Returns the number of machines K the PM statistic is a
    /// maximum over (the calibrated target's K), or `None` when the environment has no machines (the default); the dual
    /// step then uses the cluster cost.
    ///
    /// [`DualCost::Pm`]: super::config::DualCost::Pm
    /// [`DualCost::PmCalibrated`]: super::config::DualCost::PmCalibrated
    /// [`DualCost::PmEwma`]: super::config::DualCost::PmEwma
    fn unsafe_machines(&self, _out: &mut Vec<u32>) -> Option<usize> {
        None
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
