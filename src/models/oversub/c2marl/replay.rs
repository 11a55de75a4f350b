//! The replay memory of [`super::trainer::Trainer`]: a ring of transitions in flat arrays.

use super::env::Dims;
#[cfg(doc)]
use super::env::MarlEnv;
use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// The replay memory: a ring of `cap` transitions in flat arrays (row `k` of each array is transition `k`).
#[derive(Clone, Debug)]
pub(super) struct Replay {
    pub(super) cap: usize,
    pub(super) len: usize,
    pub(super) next: usize,
    pub(super) agent_obs: Vec<f32>,
    pub(super) cluster_obs: Vec<f32>,
    pub(super) next_agent_obs: Vec<f32>,
    pub(super) next_cluster_obs: Vec<f32>,
    pub(super) actions: Vec<usize>,
    pub(super) mask: Vec<bool>,
    pub(super) next_mask: Vec<bool>,
    pub(super) reward: Vec<f64>,
    pub(super) cost: Vec<f64>,
    /// Per agent: the credited reward and cost share ([`MarlEnv::credit`]), `cap × n`.
    pub(super) agent_reward: Vec<f64>,
    pub(super) agent_cost: Vec<f64>,
    pub(super) done: Vec<bool>,
}

/// One transition, borrowed, as [`Replay::push`] takes it.
pub(super) struct Transition<'a> {
    pub(super) agent_obs: &'a [f32],
    pub(super) cluster_obs: &'a [f32],
    pub(super) next_agent_obs: &'a [f32],
    pub(super) next_cluster_obs: &'a [f32],
    pub(super) actions: &'a [usize],
    pub(super) mask: &'a [bool],
    pub(super) next_mask: &'a [bool],
    pub(super) reward: f64,
    pub(super) cost: f64,
    pub(super) agent_reward: &'a [f64],
    pub(super) agent_cost: &'a [f64],
    pub(super) done: bool,
}

impl Replay {
    pub(super) fn new(cap: usize, d: &Dims) -> Self {
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
    pub(super) fn push(&mut self, t: Transition<'_>) {
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
pub(super) fn uniform_index(rng: &mut Pcg64Mcg, n: usize) -> usize {
    ((rng.random::<u64>() as u128 * n as u128) >> 64) as usize
}
