//! Learner sanity tests of C2MARL on the cluster environment (issue 25 item 4), on cases with a known
//! optimum, through the registry like a user's run: with λ fixed at 0 every hot hour is free and the best
//! policy is rate 0.2 everywhere (S-Cores 80%); with λ fixed very large, on a cluster where any
//! oversubscription makes a full PM hot, the best policy is rate 1 (S-Cores 0%). Small (20 PMs, 60 training
//! episodes): about a second each in release. The learner of before issue 25 (joint TD on the reward of all
//! live VMs over B·K, observations over B·K) fails the first: 55% S-Cores after 100 episodes at λ = 0.

use packlab::experiment::{run_to_end, Experiment};
use packlab::models::oversub::c2marl::C2marlConfig;
use packlab::models::oversub::{OversubModel, OversubParams, OversubReport, Policy};
use packlab::models::{Inputs, ModelDef};
use packlab::scenario::{Model, Scenario};

/// E1.1 on 20 PMs, C2MARL (α = 0.95, irrelevant with λ fixed) trained 60 episodes with λ fixed at `lambda`,
/// evaluated on 5 episodes; `hot` makes any oversubscription of a full PM hot (usage ≈ 0.55–0.65, β = 0.9).
fn report(lambda: f64, hot: bool) -> OversubReport {
    let mut p = OversubParams {
        pms: 20,
        eval_episodes: 5,
        train_episodes: 60,
        policies: vec![Policy::C2marl(0.95)],
        c2marl: C2marlConfig {
            eta_lambda: 0.0,
            lambda_init: lambda,
            lambda_max: lambda.max(1.0),
            ..C2marlConfig::default()
        },
        ..OversubParams::default()
    };
    if hot {
        p.base = [0.55, 0.6];
        p.amplitude = [0.0, 0.05];
        p.beta = 0.9;
    }
    let sc = Scenario {
        model: Model::Oversub,
        seed: 1,
        oversub: p,
        ..Scenario::default()
    };
    let mut run = OversubModel::start(&sc.oversub, sc.seed, &Inputs::default()).unwrap();
    run_to_end(&mut run, &mut |_, _| true).unwrap()
}

/// The mean over subscriber-hours of the greedy rates of the (only) row's rate map.
fn mean_rate(rep: &OversubReport) -> f64 {
    let rates: Vec<f64> = rep.rows[0]
        .rates
        .rates
        .iter()
        .flatten()
        .flatten()
        .copied()
        .collect();
    assert!(!rates.is_empty());
    rates.iter().sum::<f64>() / rates.len() as f64
}

#[test]
fn with_lambda_zero_the_learner_finds_rate_0_2_everywhere() {
    for hot in [false, true] {
        let rep = report(0.0, hot);
        let r = &rep.rows[0];
        // Optimum: rate 0.2 for every subscriber at every hour, S-Cores = 0.8.
        assert!(r.s_cores >= 0.78, "hot {hot}: S-Cores {}", r.s_cores);
        assert!(
            mean_rate(&rep) <= 0.22,
            "hot {hot}: mean rate {}",
            mean_rate(&rep)
        );
        // With λ = 0 the dual steps never move λ.
        let log = &rep.training[0].log;
        assert!(log.iter().all(|e| e.lambda == 0.0));
    }
}

#[test]
fn with_lambda_very_large_the_learner_stops_oversubscribing() {
    // Rate 1 never makes a PM hot here, any rate below 1 on a full PM does: the optimum is rate 1 (S-Cores 0).
    let rep = report(100.0, true);
    let r = &rep.rows[0];
    assert!(r.s_cores <= 0.12, "S-Cores {}", r.s_cores);
    // Not exactly 1 at every subscriber-hour after 60 episodes: a mean rate of 0.83 (seed 1).
    assert!(mean_rate(&rep) >= 0.8, "mean rate {}", mean_rate(&rep));
    assert!(rep.training[0].log.iter().all(|e| e.lambda == 100.0));
}
