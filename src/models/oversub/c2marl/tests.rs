//! The learner's unit tests (toy environments with known optima).

use super::super::nn::Adam;
use super::dual::{calibrated_risk, expected_max_fraction, window_target, UnsafeEwma};
use super::file::fingerprint_difference;
use super::{
    C2marlConfig, CostCredit, Credit, Dims, DualCost, MarlEnv, StepOutcome, TrainedPolicy, Trainer,
    MAX_POLICY_BYTES,
};
use rand::RngExt;

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
    /// Delayed cost credit ([`MarlEnv::creation_cost`]): each step's cost share plus γ times the next
    /// step's (the action of hour t is charged for the hot share it leaves to hour t + 1), if set.
    creation: bool,
    /// The episode's cost shares so far (steps × n).
    shares: Vec<f64>,
    /// The machines [`MarlEnv::unsafe_machines`] reports after every episode, if set.
    unsafe_machines: Option<Vec<u32>>,
    /// The number of machines K [`MarlEnv::unsafe_machines`] reports.
    machines: usize,
    /// If set, [`MarlEnv::reset`] of episode e draws `unsafe_machines`: each of the `machines` machines
    /// unsafe independently with this probability (a seeded stream per episode).
    unsafe_risk: Option<f64>,
    /// If set with `unsafe_risk`, only machines below this index can be unsafe (the rest never are).
    risky_machines: Option<usize>,
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
            creation: false,
            shares: Vec::new(),
            unsafe_machines: None,
            machines: 1,
            unsafe_risk: None,
            risky_machines: None,
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
    fn reset(&mut self, episode: u64) {
        self.t = 0;
        self.shares.clear();
        if let Some(p) = self.unsafe_risk {
            let mut rng = crate::substrate::rng::stream(25, 0x25D, episode);
            self.unsafe_machines = Some(
                (0..self.machines as u32)
                    .filter(|&k| {
                        rng.random::<f64>() < p
                            && self.risky_machines.is_none_or(|r| (k as usize) < r)
                    })
                    .collect(),
            );
        }
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
        self.shares.extend(self.last.iter().map(|x| x.1));
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
    fn creation_cost(&self, gamma: f64, cost: &mut [f64]) -> bool {
        let n = self.n;
        for (k, c) in cost.iter_mut().enumerate() {
            *c = self.shares[k] + self.shares.get(k + n).map_or(0.0, |s| gamma * s);
        }
        self.creation
    }
    fn unsafe_machines(&self, out: &mut Vec<u32>) -> Option<usize> {
        let m = self.unsafe_machines.as_ref()?;
        out.clone_from(m);
        Some(self.machines)
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

/// 3 toy episodes with a dual step after each (dual_start_fraction 0) and the delayed cost credit:
/// (fingerprint of the networks and λ, λ after each episode).
fn pinned_training(cost_credit: CostCredit, eta_lambda: f64) -> (u64, Vec<f64>) {
    let cfg = C2marlConfig {
        dual_start_fraction: 0.0,
        dual_window: 2,
        cost_credit,
        eta_lambda,
        ..toy_config()
    };
    let mut env = Toy::new(3);
    env.creation = true;
    let mut tr = Trainer::new(&cfg, &env, 2).unwrap();
    let lambdas = (0..3)
        .map(|e| tr.train_episode(&mut env, e).lambda)
        .collect();
    (fingerprint_of(&tr), lambdas)
}

#[test]
fn training_is_pinned() {
    // Bit-level pin of 3 toy episodes (the same on every target: run it in wasm32 to check parity), with a
    // dual step after every episode and the delayed cost credit, so the pin moves if either changes.
    let (fp, lambdas) = pinned_training(CostCredit::Creation, 20.0);
    assert_eq!(fp, PINNED_TRAINING, "{fp:#x}");
    // the dual step ran: λ moved after every episode
    assert!(lambdas.iter().all(|&l| l > 0.0), "{lambdas:?}");
    // the pin sees both: hourly credit, or another dual step size, trains other networks
    assert_ne!(pinned_training(CostCredit::Hourly, 20.0).0, fp);
    assert_ne!(pinned_training(CostCredit::Creation, 10.0).0, fp);
}

const PINNED_TRAINING: u64 = 0xea6f_b302_a739_65fe;

#[test]
fn pm_dual_step_targets_one_minus_alpha_on_the_worst_machine() {
    // Û = max over machines of the fraction of the window's greedy episodes in which the machine was unsafe.
    let cfg = C2marlConfig {
        dual_start_fraction: 0.0,
        dual_window: 4,
        dual_cost: DualCost::Pm,
        alpha: 0.75,
        eta_lambda: 2.0,
        lambda_init: 10.0,
        ..toy_config()
    };
    assert_eq!(cfg.pm_constraint_gap(0.0), 1.0);
    assert!((cfg.pm_constraint_gap(0.5) - -1.0).abs() < 1e-12);
    assert!((cfg.pm_constraint_gap(0.125) - 0.5).abs() < 1e-12);
    // the cluster is hot every hour (the cluster dual would raise λ), but no machine is unsafe: λ falls by η
    let mut env = Toy::new(2);
    env.forced_cost = Some(1.0);
    env.unsafe_machines = Some(vec![]);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    let l: Vec<f64> = (0..3)
        .map(|e| tr.train_episode(&mut env, e).lambda)
        .collect();
    assert_eq!(l, [8.0, 6.0, 4.0]);
    // machine 7 unsafe in every episode: Û = 1 ≥ 2·(1 − α), λ rises by η; the cluster is never hot
    env.forced_cost = Some(0.0);
    env.unsafe_machines = Some(vec![3, 7]);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    let l: Vec<f64> = (0..2)
        .map(|e| tr.train_episode(&mut env, e).lambda)
        .collect();
    assert_eq!(l, [12.0, 14.0]);
    // one unsafe episode in a window of 4: Û = 0.25 = 1 − α, gap 0, λ stays
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    env.unsafe_machines = Some(vec![5]);
    tr.train_episode(&mut env, 0); // window [1]: Û = 1 → 12
    env.unsafe_machines = Some(vec![]);
    let l: Vec<f64> = (1..4)
        .map(|e| tr.train_episode(&mut env, e).lambda)
        .collect();
    // windows [1, 0]: Û = 0.5 → gap −1 → 14; [1, 0, 0]: Û = 1/3 → gap −1/3 → 14.667; [1, 0, 0, 0]: 0.25 → 14.667
    assert_eq!(l[0], 14.0);
    assert!((l[1] - (14.0 + 2.0 / 3.0)).abs() < 1e-12, "{l:?}");
    assert_eq!(l[2], l[1]);
    // an environment without machines keeps the cluster dual
    env.unsafe_machines = None;
    env.forced_cost = Some(0.0);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    assert_eq!(tr.train_episode(&mut env, 0).lambda, 8.0);
}

#[test]
fn lambda_freeze_holds_the_mean_of_the_dual_iterates() {
    // no machine unsafe: the dual steps give λ = 8, 6, 4 (episodes 0–2, from 10 by η = 2); from episode
    // ⌈0.75·4⌉ = 3 on λ is held at (8 + 6 + 4)/3 = 6 and no greedy episode runs
    let cfg = C2marlConfig {
        dual_start_fraction: 0.0,
        dual_window: 4,
        dual_cost: DualCost::Pm,
        alpha: 0.75,
        eta_lambda: 2.0,
        lambda_init: 10.0,
        episodes: 4,
        lambda_freeze_fraction: 0.75,
        lambda_tail_fraction: 1.0,
        ..toy_config()
    };
    assert_eq!(cfg.lambda_freeze(), 3);
    let mut env = Toy::new(2);
    env.forced_cost = Some(1.0);
    env.unsafe_machines = Some(vec![]);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    let logs: Vec<_> = (0..5).map(|e| tr.train_episode(&mut env, e)).collect();
    let l: Vec<f64> = logs.iter().map(|g| g.lambda).collect();
    assert_eq!(l, [8.0, 6.0, 4.0, 6.0, 6.0]);
    assert!(logs[2].greedy_cost.is_some() && logs[3].greedy_cost.is_none());
    // always written (so a defaults set records it), also at 1 = off, and read back; 1.5 is refused naming the
    // field
    let off = C2marlConfig {
        lambda_freeze_fraction: 1.0,
        ..cfg.clone()
    };
    let json = serde_json::to_string(&off).unwrap();
    assert!(json.contains("\"lambda_freeze_fraction\":1.0"), "{json}");
    assert_eq!(serde_json::from_str::<C2marlConfig>(&json).unwrap(), off);
    assert!(serde_json::to_string(&cfg)
        .unwrap()
        .contains("\"lambda_freeze_fraction\":0.75"));
    let bad = C2marlConfig {
        lambda_freeze_fraction: 1.5,
        ..toy_config()
    };
    assert!(
        bad.validate()
            .iter()
            .any(|e| e.contains("lambda_freeze_fraction")),
        "{:?}",
        bad.validate()
    );
}

#[test]
fn lambda_tail_fraction_holds_the_mean_of_the_last_dual_iterates() {
    // no machine unsafe: the dual steps of episodes 0–5 give λ = 18, 16, 14, 12, 10, 8 (from 20 by η = 2);
    // from episode ⌈0.75·8⌉ = 6 on λ is held. Tail 0.5: the last ⌈0.5·6⌉ = 3 iterates, (12 + 10 + 8)/3 = 10;
    // tail 0.4: the last ⌈2.4⌉ = 3, also 10; tail 0.3: the last ⌈1.8⌉ = 2, (10 + 8)/2 = 9; tail 1: all six,
    // 13 (the earlier behaviour)
    let cfg = |tail: f64| C2marlConfig {
        dual_start_fraction: 0.0,
        dual_window: 4,
        dual_cost: DualCost::Pm,
        alpha: 0.75,
        eta_lambda: 2.0,
        lambda_init: 20.0,
        episodes: 8,
        lambda_freeze_fraction: 0.75,
        lambda_tail_fraction: tail,
        ..toy_config()
    };
    let held = |tail: f64| {
        let mut env = Toy::new(2);
        env.unsafe_machines = Some(vec![]);
        let mut tr = Trainer::new(&cfg(tail), &env, 1).unwrap();
        let l: Vec<f64> = (0..8)
            .map(|e| tr.train_episode(&mut env, e).lambda)
            .collect();
        assert_eq!(l[..6], [18.0, 16.0, 14.0, 12.0, 10.0, 8.0]);
        assert_eq!(l[6], l[7]);
        l[6]
    };
    assert_eq!(cfg(0.5).lambda_tail_start(), 3);
    assert_eq!(cfg(0.3).lambda_tail_start(), 4);
    assert_eq!(cfg(1.0).lambda_tail_start(), 0);
    assert_eq!(held(0.5), 10.0);
    assert_eq!(held(0.4), 10.0);
    assert_eq!(held(0.3), 9.0);
    assert_eq!(held(1.0), 13.0);
    // the dual starting later: episodes 2–5 step (D = 4), tail 0.5 starts at 6 − 2 = 4
    let late = C2marlConfig {
        dual_start_fraction: 0.25,
        ..cfg(0.5)
    };
    assert_eq!((late.dual_start(), late.lambda_tail_start()), (2, 4));
    // a fraction outside (0, 1] is refused naming the field
    for bad in [0.0, 1.5, f64::NAN] {
        assert!(
            cfg(bad)
                .validate()
                .iter()
                .any(|e| e.contains("lambda_tail_fraction")),
            "{bad}"
        );
    }
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

#[test]
fn calibrated_window_target_known_answers() {
    // K = 1: the expected statistic is the risk itself, so p* = 1 − α and t_W = 1 − α for every W and E
    for (alpha, w, e) in [(0.95, 20, 100), (0.75, 1, 300), (0.85, 7, 13)] {
        let t = window_target(1, w, e, alpha);
        assert!(
            (t - (1.0 - alpha)).abs() < 1e-12,
            "α {alpha}, W {w}, E {e}: {t}"
        );
    }
    // W = E: t_W = 1 − α for every K (the window is the evaluation)
    for k in [2, 50, 500] {
        assert!((window_target(k, 100, 100, 0.95) - 0.05).abs() < 1e-12);
    }
    // K = 2 by hand at p = 1/2: Bin(2, ½) has F(0) = ¼, F(1) = ¾, so E[max of 2]/2 = ((1 − 1/16) + (1 − 9/16))/2
    // = 0.6875 = 1 − α for α = 0.3125; W = 1: 1 − (1 − p)² = 0.75; W = 3: F = ⅛, ½, ⅞, so
    // (3 − (1 + 16 + 49)/64)/3 = 0.65625
    assert_eq!(expected_max_fraction(2, 2, 0.5), 0.6875);
    assert!((calibrated_risk(2, 2, 0.6875) - 0.5).abs() < 1e-12);
    assert!((window_target(2, 1, 2, 0.3125) - 0.75).abs() < 1e-12);
    assert!((window_target(2, 3, 2, 0.3125) - 0.65625).abs() < 1e-12);
    // ends: a zero budget is a zero target, α = 0 a target of 1; the risk is 0 or 1 at the ends
    assert_eq!(window_target(500, 20, 100, 1.0), 0.0);
    assert_eq!(window_target(500, 20, 100, 0.0), 1.0);
    assert_eq!(expected_max_fraction(500, 20, 0.0), 0.0);
    assert_eq!(expected_max_fraction(500, 20, 1.0), 1.0);
    // E1.1's case (500 PMs, E = 100, α = 0.95): p* ≈ 0.96%, and the 20-episode maximum at that risk is expected
    // at ≈ 11.9% (independently: Σ_j 1 − F(j−1)^500 with F from math.comb in Python: 0.1191), not 5%
    let p = calibrated_risk(500, 100, 0.05);
    assert!((p - 0.00964).abs() < 5e-5, "{p}");
    assert!((window_target(500, 20, 100, 0.95) - 0.1191).abs() < 5e-4);
    // a large E stays finite and in range (the weights are built from the mode: no underflow)
    let t = window_target(500, 20, 10_000, 0.5);
    assert!(t > 0.5 && t < 1.0, "{t}");
}

/// The dual alone on [`Toy`] with 500 machines: the PM dual `dual_cost` at α = 0.95, E = 100, W = 20, η_λ = 1,
/// λ from `lambda_init`, stepping from the first episode and never held, no learning (`k_upd` 0).
fn dual_only_on_500_machines(
    dual_cost: DualCost,
    lambda_init: f64,
    episodes: u64,
) -> (C2marlConfig, Toy) {
    let cfg = C2marlConfig {
        dual_start_fraction: 0.0,
        lambda_freeze_fraction: 1.0,
        dual_window: 20,
        dual_eval_episodes: 100,
        dual_cost,
        alpha: 0.95,
        eta_lambda: 1.0,
        lambda_init,
        k_upd: 0,
        episodes,
        ..toy_config()
    };
    let mut env = Toy::new(2);
    env.machines = 500;
    (cfg, env)
}

/// λ after each of `episodes` episodes of the calibrated (or today's, `dual_cost`) PM dual on [`Toy`] with 500
/// machines each unsafe independently with probability `risk` per episode (α = 0.95, E = 100, W = 20, η_λ 1,
/// λ from `lambda_init`, no learning: the dual alone).
fn dual_on_iid_machines(
    dual_cost: DualCost,
    risk: f64,
    lambda_init: f64,
    episodes: u64,
) -> Vec<f64> {
    let (cfg, mut env) = dual_only_on_500_machines(dual_cost, lambda_init, episodes);
    env.unsafe_risk = Some(risk);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    (0..episodes)
        .map(|e| tr.train_episode(&mut env, e).lambda)
        .collect()
}

#[test]
fn calibrated_pm_dual_relaxes_below_the_calibrated_risk_and_tightens_above() {
    let p_star = calibrated_risk(500, 100, 0.05);
    // risk p*/2: the evaluation's PM-Hot-R would be expected well inside 5% (the window's statistic at 9.7%
    // against t_W = 11.9%: a mean gap of about +0.19), so λ falls from 10 to 0 and stays near it (measured: 0 in
    // 156 of the 300 episodes, mean 0.89 over the last 100)
    let slack = dual_on_iid_machines(DualCost::PmCalibrated, p_star / 2.0, 10.0, 300);
    let tail = &slack[200..];
    assert!(tail.iter().sum::<f64>() / 100.0 < 2.0, "{tail:?}");
    assert!(
        slack.iter().filter(|&&l| l == 0.0).count() >= 100,
        "{slack:?}"
    );
    // today's dual (target 1 − α on the 20-episode maximum over 500 machines) reads the same machines as too
    // hot: λ climbs (the issue-25 defect this dual fixes; measured 283 after 300 episodes)
    let old = dual_on_iid_machines(DualCost::Pm, p_star / 2.0, 10.0, 300);
    assert!(old[299] > 100.0, "{:?}", &old[290..]);
    // risk 2p*: too hot for the budget (the window's statistic at 16.0% against 11.9%), λ rises from 0 by
    // about a third of η_λ per episode (measured 99.5 after 300)
    let tight = dual_on_iid_machines(DualCost::PmCalibrated, 2.0 * p_star, 0.0, 300);
    assert!(tight[299] > 50.0, "{:?}", &tight[290..]);
}

#[test]
fn ewma_statistic_known_answers() {
    // E = 3: β = 1/2. Machine 0 unsafe, then nothing, then machine 1: u = (½), (¼), (⅛, ½) over 1 − β^n =
    // ½, ¾, ⅞, so Û = 1, 1/3, 4/7
    let mut u = UnsafeEwma::new(3, true);
    assert_eq!(u.statistic(), 0.0);
    u.push(&[0]);
    assert_eq!(u.statistic(), 1.0);
    u.push(&[]);
    assert!((u.statistic() - 1.0 / 3.0).abs() < 1e-15);
    u.push(&[1]);
    assert!((u.statistic() - 4.0 / 7.0).abs() < 1e-15);
    // E = 1: β = 0, the last episode alone
    let mut u = UnsafeEwma::new(1, true);
    u.push(&[4, 9]);
    assert_eq!(u.statistic(), 1.0);
    u.push(&[]);
    assert_eq!(u.statistic(), 0.0);
    // the weights' effective sample size is E: after a long clean run (β^n ≈ 0) one unsafe episode leaves
    // weights (1 − β)β^i, and Σ_i ((1 − β)β^i)² = (1 − β)/(1 + β) = 1/E
    let mut u = UnsafeEwma::new(100, true);
    for _ in 0..3000 {
        u.push(&[]);
    }
    u.push(&[2]);
    let mut sum_sq = 0.0;
    for _ in 0..3000 {
        sum_sq += u.statistic() * u.statistic();
        u.push(&[]);
    }
    assert!((sum_sq - 0.01).abs() < 1e-6, "{sum_sq}");
    // a machine unsafe in every 20th episode reads ≈ 5% after a long run, whatever the other machines do
    let mut u = UnsafeEwma::new(100, true);
    for n in 0..2000 {
        u.push(if n % 20 == 0 { &[7, 3] } else { &[] });
    }
    let s = u.statistic();
    assert!(s > 0.03 && s < 0.07, "{s}");
}

#[test]
fn ewma_statistic_without_bias_correction_starts_from_zero() {
    // E = 3 (β = ½), the sequence of `ewma_statistic_known_answers`: u = (½), (¼), (⅛, ½), so Û = max_k u_k =
    // ½, ¼, ½ (corrected: 1, 1/3, 4/7)
    let mut u = UnsafeEwma::new(3, false);
    assert_eq!(u.statistic(), 0.0);
    u.push(&[0]);
    assert_eq!(u.statistic(), 0.5);
    u.push(&[]);
    assert_eq!(u.statistic(), 0.25);
    u.push(&[1]);
    assert_eq!(u.statistic(), 0.5);
    // E = 100 (β = 99/101): a machine unsafe in every episode reads 1 − β^n, 1.98% after one episode, 1 − (99/101)^3
    // = 5.82% after three (the α = 0.95 budget is crossed at the third), and the corrected statistic 1 throughout
    let (mut u, mut c) = (UnsafeEwma::new(100, false), UnsafeEwma::new(100, true));
    let beta: f64 = 99.0 / 101.0;
    for n in 1..=3 {
        u.push(&[5]);
        c.push(&[5]);
        assert!((u.statistic() - (1.0 - beta.powi(n))).abs() < 1e-14, "{n}");
        assert!((c.statistic() - 1.0).abs() < 1e-14);
    }
    // after a long run both agree (β^n ≈ 0)
    for _ in 0..3000 {
        u.push(&[]);
        c.push(&[]);
    }
    u.push(&[2]);
    c.push(&[2]);
    assert!((u.statistic() - c.statistic()).abs() < 1e-15);
    assert!((u.statistic() - 2.0 / 101.0).abs() < 1e-15);
}

/// The risky machines' risk after each of `episodes` episodes of the PM dual `dual_cost` on [`Toy`] with
/// `risky` of 500 machines unsafe independently with risk `r(λ) = 0.3·10/(10 + λ)` per episode (the policy's
/// answer to λ, instantly) and the rest never (α = 0.95, E = 100, W = 20, η_λ = 1, λ from 0).
fn risk_under_the_pm_dual(dual_cost: DualCost, risky: usize, episodes: u64) -> Vec<f64> {
    let (cfg, mut env) = dual_only_on_500_machines(dual_cost, 0.0, episodes);
    env.risky_machines = Some(risky);
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    (0..episodes)
        .map(|e| {
            let r = 3.0 / (10.0 + tr.lambda());
            env.unsafe_risk = Some(r);
            tr.train_episode(&mut env, e);
            r
        })
        .collect()
}

#[test]
fn ewma_pm_dual_meets_the_budget_on_few_risky_machines_where_the_calibrated_dual_overshoots() {
    // the evaluation's expected statistic (100 episodes) at the mean risk of the last 1,500 of 2,000 episodes
    let settle = |dual, risky| {
        let r = risk_under_the_pm_dual(dual, risky, 2000);
        let mean = r[500..].iter().sum::<f64>() / 1500.0;
        (mean, expected_max_fraction(risky, 100, mean))
    };
    // 5 risky machines among 500: the budget (5%) is met at risk ≈ 3.4% per risky machine
    // (expected_max_fraction(5, 100, r) = 0.05); the exponentially weighted dual settles there (measured: risk
    // 2.8%, statistic 4.7%)
    let (r, stat) = settle(DualCost::PmEwma, 5);
    assert!(stat > 0.04 && stat < 0.06, "risk {r}, statistic {stat}");
    // the calibrated dual assumes 500 iid machines (window target 11.9% instead of ≈ 6.6% for 5) and
    // overshoots the budget (measured: risk 5.5%, statistic 8.3%)
    let (rc, stat_c) = settle(DualCost::PmCalibrated, 5);
    assert!(
        stat_c > 0.07 && rc > 1.4 * r,
        "risk {rc}, statistic {stat_c}"
    );
    // 500 iid machines (the calibrated dual's own case): both meet the budget (p* = 0.96%; measured: risk
    // 0.92% / 1.11%, statistic 4.9% / 5.4%)
    let (r, stat) = settle(DualCost::PmEwma, 500);
    assert!(stat > 0.04 && stat < 0.06, "risk {r}, statistic {stat}");
    let (r, stat) = settle(DualCost::PmCalibrated, 500);
    assert!(stat > 0.04 && stat < 0.06, "risk {r}, statistic {stat}");
}
