//! C2MARL acting (seed 001 §5.3, decentralised execution): each subscriber's agent takes the greedy action of
//! its trained `Q^i` on its own observation ([`Cluster::observe`]); the action indexes the section's rate set
//! (`actions`). Training is [`super::super::c2marl`]'s.

use super::super::c2marl::TrainedPolicy;
use super::super::cluster::{cluster_obs_len, Cluster, AGENT_OBS};
use super::super::nn::Scratch;
use super::rule::RatePolicy;

/// A trained C2MARL policy acting on rate set `actions`.
pub struct C2marl<'a> {
    policy: &'a TrainedPolicy,
    actions: &'a [f64],
    scratch: Scratch,
    agent: Vec<f32>,
    cluster: Vec<f32>,
}

impl<'a> C2marl<'a> {
    /// `policy` acting for `n` subscribers on the rate set `actions` (an action past its end takes the last).
    pub fn new(policy: &'a TrainedPolicy, actions: &'a [f64], n: usize) -> C2marl<'a> {
        C2marl {
            policy,
            actions,
            scratch: policy.scratch(),
            agent: vec![0.0; n * AGENT_OBS],
            cluster: vec![0.0; cluster_obs_len(n)],
        }
    }
}

impl RatePolicy for C2marl<'_> {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        cluster.observe(&mut self.agent, &mut self.cluster);
        for (i, x) in out.iter_mut().enumerate() {
            let obs = &self.agent[i * AGENT_OBS..(i + 1) * AGENT_OBS];
            let a = self.policy.act_with(i, obs, &mut self.scratch);
            *x = self.actions[a.min(self.actions.len() - 1)];
        }
    }
}
