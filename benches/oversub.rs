//! Timing of the oversubscription model's learner (seed 001, ALGORITHMS.md §3.3, §3.7), natively on one thread.
//! Plain `harness = false` main: `cargo bench --bench oversub` (or `make bench`); prints
//! * the forward + backward pass of the C2MARL network ([31, 64, 64, 6], batch 10) in f32 and in f64;
//! * one C2MARL training episode at the paper's shapes and defaults on a cheap stand-in environment (the
//!   learner alone; `node scripts/bench-oversub.mjs 3` times whole episodes, the cluster included, natively
//!   and in wasm).

use packlab::models::oversub::c2marl::{C2marlConfig, MarlEnv, StepOutcome, Trainer};
use packlab::models::oversub::nn::{Mlp, Real};
use packlab::substrate::rng::stream;
use rand::RngExt;

fn main() {
    f32_vs_f64();
    train_episode();
}

/// Forward + backward passes in f32 and f64 on the C2MARL network (why the learner runs in f32).
fn f32_vs_f64() {
    fn run<F: Real>() -> f64 {
        let mut net = Mlp::<F>::new(&[31, 64, 64, 6], &mut stream(1, 1, 0)).unwrap();
        let mut r = stream(1, 2, 0);
        let x: Vec<F> = (0..310).map(|_| F::from_f64(r.random::<f64>())).collect();
        let d: Vec<F> = (0..60)
            .map(|_| F::from_f64(r.random::<f64>() - 0.5))
            .collect();
        let mut s = net.scratch(10);
        let t0 = std::time::Instant::now();
        let reps = 20_000;
        for _ in 0..reps {
            net.forward_batch(&x, 10, &mut s);
            net.backward_batch(&d, &mut s);
        }
        std::hint::black_box(net.grad());
        t0.elapsed().as_secs_f64() / reps as f64
    }
    let (a, b) = (run::<f32>(), run::<f64>());
    println!(
        "[31, 64, 64, 6], batch 10, forward + backward: f32 {:.1} µs, f64 {:.1} µs (f64/f32 = {:.2})",
        a * 1e6,
        b * 1e6,
        b / a
    );
}

/// A cheap stand-in for the cluster environment with its shapes (12 agents, agent observation 31,
/// cluster observation 7·12 + 24 = 108, 6 actions, T = 120), for timing the learner.
struct Fake {
    t: usize,
    ep: u64,
}

impl MarlEnv for Fake {
    fn n_agents(&self) -> usize {
        12
    }
    fn n_actions(&self) -> usize {
        6
    }
    fn agent_obs_len(&self) -> usize {
        31
    }
    fn cluster_obs_len(&self) -> usize {
        108
    }
    fn reset(&mut self, episode: u64) {
        self.t = 0;
        self.ep = episode;
    }
    fn observe(&self, agent_obs: &mut [f32], cluster_obs: &mut [f32], mask: &mut [bool]) {
        let h = self.t % 24;
        for (k, v) in cluster_obs.iter_mut().enumerate() {
            *v = if k < 84 {
                ((k * 7 + self.t * 3) % 17) as f32 / 17.0
            } else if k - 84 == h {
                1.0
            } else {
                0.0
            };
        }
        for i in 0..12 {
            let o = &mut agent_obs[i * 31..(i + 1) * 31];
            o[..7].copy_from_slice(&cluster_obs[i * 7..i * 7 + 7]);
            o[7..].copy_from_slice(&cluster_obs[84..]);
            mask[i] = !(i + self.t).is_multiple_of(5);
        }
    }
    fn step(&mut self, actions: &[usize]) -> StepOutcome {
        self.t += 1;
        let s: usize = actions.iter().sum();
        StepOutcome {
            reward: s as f64 / 60.0,
            cost: if (self.t as u64 + self.ep).is_multiple_of(40) {
                1.0
            } else {
                0.0
            },
            done: self.t == 120,
        }
    }
    fn credit(&self, reward: &mut [f64], cost: &mut [f64]) {
        reward.fill(0.05);
        cost.fill(0.0);
    }
}

/// Time of one training episode at the paper's shapes and defaults, with the cheap environment above (the
/// learner alone).
fn train_episode() {
    let cfg = C2marlConfig::default();
    let mut env = Fake { t: 0, ep: 0 };
    let mut tr = Trainer::new(&cfg, &env, 1).unwrap();
    tr.train_episode(&mut env, 0);
    let n = 20;
    let t0 = std::time::Instant::now();
    for e in 1..=n {
        tr.train_episode(&mut env, e);
    }
    let per = t0.elapsed().as_secs_f64() / n as f64;
    println!(
        "C2MARL train_episode, 12 agents, obs 31/108, 6 actions, T = 120, k_upd 120, batch 10: {:.1} ms per episode; 1,800 episodes ≈ {:.0} s",
        per * 1e3,
        per * 1800.0
    );
    let p = tr.policy(String::new()).to_json().unwrap();
    println!("policy file: {} bytes", p.len());
}
