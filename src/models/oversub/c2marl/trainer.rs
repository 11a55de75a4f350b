//! The C2MARL trainer (seed 001 Algorithm 1; ALGORITHMS.md §3.3): episodes, TD updates, the dual step.

use super::super::nn::{self, Adam, Mlp, Scratch};
use super::config::{
    C2marlConfig, CostCredit, Credit, DualCost, CENTRING_SPAN, MAX_REPLAY_FLOATS, POLICY_VERSION,
};
use super::dual::UnsafeEwma;
use super::env::{Dims, MarlEnv};
use super::file::{argmax, TrainedPolicy};
use super::log::EpisodeLog;
use super::replay::{uniform_index, Replay, Transition};
use crate::substrate::rng::stream;
use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// Random-stream component ids of C2MARL ([`crate::substrate::rng::stream`]`(seed, component, index)`).
pub mod component {
    /// Initial weights; index = agent `i` for `Q^i`, `n_agents` for `Q^c`.
    pub const INIT: u64 = 0xC201;
    /// ε-greedy exploration; index = episode.
    pub const EXPLORE: u64 = 0xC202;
    /// Minibatch sampling; index = episode.
    pub const REPLAY: u64 = 0xC203;
}

/// Reusable buffers of a trainer (no allocation per step or update once warm).
#[derive(Clone, Debug)]
pub(super) struct Work {
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
    pub(super) agent_adam: Vec<Adam>,
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
    /// With [`DualCost::Pm`] / [`DualCost::PmCalibrated`]: the unsafe machines of the same greedy episodes
    /// (ring aligned with `greedy_costs`).
    greedy_unsafe: Vec<Vec<u32>>,
    greedy_next: usize,
    /// With [`DualCost::PmEwma`]: every greedy episode's unsafe machines since the dual's start, weighted.
    unsafe_ewma: UnsafeEwma,
    /// Σ λ after each dual step from [`C2marlConfig::lambda_tail_start`] on and their count (the mean λ is
    /// held from [`C2marlConfig::lambda_freeze`] on).
    lambda_sum: f64,
    lambda_steps: u64,
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
            greedy_unsafe: Vec::new(),
            greedy_next: 0,
            unsafe_ewma: UnsafeEwma::new(config.dual_eval_episodes, config.ewma_bias_correction),
            lambda_sum: 0.0,
            lambda_steps: 0,
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
        let frozen = episode >= self.config.lambda_freeze();
        if frozen && self.lambda_steps > 0 {
            self.lambda = self.lambda_sum / self.lambda_steps as f64;
        }
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
        let mut unsafe_pms = Vec::new();
        let greedy_cost = (episode >= self.config.dual_start() && !frozen).then(|| {
            let (g_steps, g_hot, _) = self.run_episode(env, episode, 0.0, false);
            g_hot / g_steps as f64
        });
        if let Some(g) = greedy_cost {
            let pm = match self.config.dual_cost {
                DualCost::Cluster => None,
                DualCost::Pm | DualCost::PmCalibrated | DualCost::PmEwma => {
                    env.unsafe_machines(&mut unsafe_pms)
                }
            };
            self.dual_step(g, pm.map(|k| (unsafe_pms, k)));
            if episode >= self.config.lambda_tail_start() {
                self.lambda_sum += self.lambda;
                self.lambda_steps += 1;
            }
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
    ///
    /// With `unsafe_pms` (the greedy episode's machines with `hot_k ≥ δ` and the number of machines K,
    /// [`DualCost::Pm`] / [`DualCost::PmCalibrated`]) the gap is the PM-level one instead: Û = max over
    /// machines of the fraction of the window's greedy episodes in which the machine was unsafe (the PM-Hot-R
    /// of ALGORITHMS.md §3.5 on those episodes), against `1 − α` ([`C2marlConfig::pm_constraint_gap`]) or
    /// against the calibrated target for K machines and the episodes in the window so far
    /// ([`C2marlConfig::pm_calibrated_gap`]); with [`DualCost::PmEwma`], Û is instead the largest
    /// per-machine exponentially weighted unsafe frequency of all greedy episodes so far
    /// ([`UnsafeEwma::statistic`]), against `1 − α` ([`C2marlConfig::pm_constraint_gap`]).
    fn dual_step(&mut self, greedy: f64, unsafe_pms: Option<(Vec<u32>, usize)>) {
        let w = self.config.dual_window;
        let slot = self.greedy_next;
        if self.greedy_costs.len() < w {
            self.greedy_costs.push(greedy);
        } else {
            self.greedy_costs[slot] = greedy;
        }
        self.greedy_next = (self.greedy_next + 1) % w;
        let gap = match unsafe_pms {
            Some((pms, _)) if self.config.dual_cost == DualCost::PmEwma => {
                self.unsafe_ewma.push(&pms);
                self.config.pm_constraint_gap(self.unsafe_ewma.statistic())
            }
            Some((pms, machines)) => {
                if self.greedy_unsafe.len() < w {
                    self.greedy_unsafe.push(pms);
                } else {
                    self.greedy_unsafe[slot] = pms;
                }
                let mut count = std::collections::BTreeMap::<u32, u32>::new();
                for &k in self.greedy_unsafe.iter().flatten() {
                    *count.entry(k).or_default() += 1;
                }
                let worst = count.values().copied().max().unwrap_or(0);
                let filled = self.greedy_unsafe.len();
                let u_hat = worst as f64 / filled as f64;
                match self.config.dual_cost {
                    DualCost::PmCalibrated => {
                        self.config.pm_calibrated_gap(machines, filled, u_hat)
                    }
                    _ => self.config.pm_constraint_gap(u_hat),
                }
            }
            None => {
                let u_hat = self.greedy_costs.iter().sum::<f64>() / self.greedy_costs.len() as f64;
                self.config.constraint_gap(u_hat)
            }
        };
        self.lambda = (self.lambda - self.config.eta_lambda * gap)
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
