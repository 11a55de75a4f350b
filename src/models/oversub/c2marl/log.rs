//! What one training episode did ([`EpisodeLog`]): the training curve and the policy file's log.

use serde::{Deserialize, Serialize};

/// What one training episode did ([`Trainer::train_episode`](super::trainer::Trainer::train_episode)).
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
    pub(super) fn non_finite(&self) -> Option<&'static str> {
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
