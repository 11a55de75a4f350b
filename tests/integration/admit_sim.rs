//! Simulator (ALGORITHMS.md §2.1) against closed forms, posterior updates against hand values, determinism.

use packlab::models::admission::experiment::tune;
use packlab::models::admission::moments::{known_moments, AliveMode, Gamma, MomentMode};
use packlab::models::admission::params::{AdmitParams, PolicyKind, PolicySpec};
use packlab::models::admission::posterior::{update, Priors, SuffStats, UpdateMode};
use packlab::models::admission::sim::{
    lead_grid, simulate_deployment_moments, simulate_run, simulate_runs_on, DeploymentType,
    SimCache,
};
use packlab::models::admission::tuning::bca_mean_ci;

/// Tight priors make every deployment have (almost) the same known θ.
fn tight(p: &mut AdmitParams, lam: f64, nu: f64, sig: f64, kappa: f64) {
    let s = 1e7;
    p.priors = Priors {
        lambda: Gamma::new(s, s / lam),
        nu: Gamma::new(s, s / nu),
        sigma: Gamma::new(s, s / sig),
        kappa,
    };
}

#[test]
fn no_admission_control_mean_active_cores_matches_formula() {
    // Accept everything, capacity never binds: time-average active cores
    // = (ρ/T) ∫_0^T (T − s) E[X_s] ds with E[X_s] from §2.4(c) averaged over n0 = 1 + Poisson(σ).
    let (lam, nu, sig, kappa, rho, t_run) = (0.1, 1.0, 1.0, 5.0, 4.0, 3000.0);
    let mut p = AdmitParams::default();
    tight(&mut p, lam, nu, sig, kappa);
    p.capacity = 1e9;
    p.arrival_rate = rho;
    p.horizon_hours = t_run;
    p.month_hours = 730.0;
    let grid = lead_grid(&p);
    let mut cache = SimCache::new();
    let spec = PolicySpec {
        kind: PolicyKind::AcceptIfFits,
        threshold: 0.0,
        marginal: false,
    };
    let mut util = 0.0;
    let reps = 6;
    for r in 0..reps {
        let res = simulate_run(&p, spec, 100 + r, &grid, &mut cache);
        assert_eq!(res.failures, 0);
        util += res.utilization * p.capacity / reps as f64;
    }
    // formula
    let ds = 0.5;
    let ss: Vec<f64> = (0..((t_run / ds) as usize))
        .map(|i| (i as f64 + 0.5) * ds)
        .collect();
    let mut ex = vec![0.0; ss.len()];
    let mut w = (-sig as f64).exp();
    for n0 in 1..40u32 {
        // P(n0) = Poisson(σ) at n0 − 1
        if n0 > 1 {
            w *= sig / (n0 - 1) as f64;
        }
        let m = known_moments(
            n0,
            lam,
            nu,
            sig,
            kappa,
            &ss,
            AliveMode::Volterra,
            MomentMode::Canonical,
        );
        for (e, mm) in ex.iter_mut().zip(&m) {
            *e += w * mm.mean;
        }
    }
    let avg: f64 = ss
        .iter()
        .zip(&ex)
        .map(|(s, e)| (t_run - s) * e * ds)
        .sum::<f64>()
        * rho
        / t_run;
    let rel = (util - avg) / avg;
    eprintln!("simulated mean active cores {util:.3}, formula {avg:.3}, rel {rel:+.4}");
    assert!(rel.abs() < 0.03, "simulated {util} vs formula {avg}");
}

#[test]
fn deployment_simulator_matches_known_moments() {
    let th = DeploymentType {
        lambda: 0.2,
        nu: 3.0,
        sigma: 2.0,
    };
    let ts = [2.5, 10.0, 25.0];
    let sim = simulate_deployment_moments(4, th, 10.0, &ts, 40_000, 5);
    let f = known_moments(
        4,
        0.2,
        3.0,
        2.0,
        10.0,
        &ts,
        AliveMode::Volterra,
        MomentMode::Canonical,
    );
    for (s, m) in sim.iter().zip(&f) {
        assert!(
            (m.mean - s.0).abs() < 4.0 * s.2 + 0.01 * s.0,
            "mean {} vs sim {} ± {}",
            m.mean,
            s.0,
            s.2
        );
        assert!(
            (m.var - s.1).abs() < 4.0 * s.3 + 0.03 * s.1,
            "var {} vs sim {} ± {}",
            m.var,
            s.1,
            s.3
        );
    }
}

#[test]
fn vb_update_hand_values() {
    // prior λ ~ Γ(2, 20), ν ~ Γ(1.5, 1), σ ~ Γ(1, 0.2), κ = 10; D = 2, E = 90.9, N_r = 4, T_r = τ_a = 24
    let pr = Priors {
        lambda: Gamma::new(2.0, 20.0),
        nu: Gamma::new(1.5, 1.0),
        sigma: Gamma::new(1.0, 0.2),
        kappa: 10.0,
    };
    let s = SuffStats {
        deaths: 2.0,
        exposure: 90.9,
        requests: 4.0,
        request_exposure: 24.0,
        sizes: 4.0,
        extra_cores: 6.0,
        age: 24.0,
    };
    let (l, n, g) = update(&pr, &s, UpdateMode::Vb);
    // fixed point solved by hand: a_λ = 8, a_ν = 5.5; b_λ = 20 + 90.9 + 2.4 + ν̄·24, b_ν = 1 + λ̄·24
    assert_eq!(l.shape, 8.0);
    assert_eq!(n.shape, 5.5);
    let lbar = l.mean();
    let nbar = n.mean();
    assert!((l.rate / (113.3 + nbar * 24.0) - 1.0).abs() < 1e-4);
    assert!((n.rate / (1.0 + lbar * 24.0) - 1.0).abs() < 1e-4);
    // App. A.3 row (age 24, D 2, E 90.9, N_r 4): VB E[λ] = 0.04531, E[ν] = 2.6347
    assert!((lbar - 0.04531).abs() < 2e-4, "{lbar}");
    assert!((nbar - 2.6347).abs() < 5e-3, "{nbar}");
    // σ exactly conjugate: Γ(1 + 6, 0.2 + 4)
    assert_eq!((g.shape, g.rate), (7.0, 4.2));
}

#[test]
fn runs_are_deterministic_and_zeroth_respects_threshold() {
    let mut p = AdmitParams::default();
    p.capacity = 400.0;
    p.horizon_hours = 1500.0;
    p.arrival_rate = 0.2;
    let grid = lead_grid(&p);
    let mut c = SimCache::new();
    let spec = PolicySpec {
        kind: PolicyKind::Zeroth,
        threshold: 300.0,
        marginal: false,
    };
    let a = simulate_run(&p, spec, 7, &grid, &mut c);
    let b = simulate_run(&p, spec, 7, &grid, &mut c);
    assert_eq!(a, b);
    let loose = simulate_run(
        &p,
        PolicySpec {
            threshold: 400.0,
            ..spec
        },
        7,
        &grid,
        &mut c,
    );
    assert!(loose.accepted >= a.accepted);
    let second = PolicySpec {
        kind: PolicyKind::Second,
        threshold: 0.01,
        marginal: false,
    };
    let s1 = simulate_run(&p, second, 7, &grid, &mut c);
    let s2 = simulate_run(&p, second, 7, &grid, &mut SimCache::new());
    assert_eq!(s1.utilization.to_bits(), s2.utilization.to_bits());
    assert!(
        s1.arrivals == a.arrivals,
        "common random numbers: same arrival stream"
    );
}

/// Runs spread over threads give exactly the results of one thread, in seed order, and cancel cleanly.
#[test]
fn parallel_runs_are_bit_identical_to_sequential_ones() {
    let mut p = AdmitParams::default();
    p.capacity = 300.0;
    p.horizon_hours = 1200.0;
    p.arrival_rate = 0.15;
    let grid = lead_grid(&p);
    let spec = PolicySpec {
        kind: PolicyKind::Second,
        threshold: 0.01,
        marginal: false,
    };
    let seeds = [11u64, 3, 99, 42, 7];
    let seq = simulate_runs_on(
        1,
        &p,
        spec,
        &seeds,
        &grid,
        &mut SimCache::new(),
        &mut |_| true,
    )
    .unwrap();
    let mut cache = SimCache::new();
    let par = simulate_runs_on(3, &p, spec, &seeds, &grid, &mut cache, &mut |_| true).unwrap();
    assert_eq!(seq, par);
    for (r, &s) in par.iter().zip(&seeds) {
        assert_eq!(*r, simulate_run(&p, spec, s, &grid, &mut SimCache::new()));
    }
    // warm caches from the first call give the same results again
    let again = simulate_runs_on(3, &p, spec, &seeds, &grid, &mut cache, &mut |_| true).unwrap();
    assert_eq!(seq, again);
    // cancelling after the first finished run returns None
    let mut calls = 0;
    let cancelled = simulate_runs_on(2, &p, spec, &seeds, &grid, &mut cache, &mut |_| {
        calls += 1;
        false
    });
    assert!(cancelled.is_none());
    assert!(calls >= 1);
}

#[test]
fn tuning_finds_feasible_threshold_and_cancels() {
    let mut p = AdmitParams::default();
    p.capacity = 300.0;
    p.horizon_hours = 1000.0;
    p.arrival_rate = 0.3;
    p.sla = 0.01;
    p.tune_iterations = 8;
    p.bootstrap = 500;
    let mut c = SimCache::new();
    let r = tune(&p, PolicyKind::Zeroth, false, 4, 3, &mut c, &mut |_, _| {
        true
    })
    .unwrap();
    assert!(r.tuned.failure_rate_upper <= p.sla, "{:?}", r.tuned);
    assert!(r.threshold > 0.0 && r.threshold < 300.0);
    assert!(r.utilization_ci.0 <= r.tuned.utilization && r.tuned.utilization <= r.utilization_ci.1);
    let e = tune(&p, PolicyKind::Zeroth, false, 4, 3, &mut c, &mut |d, _| {
        d < 3
    })
    .unwrap_err();
    assert_eq!(e, "cancelled");
}

#[test]
fn bca_interval_covers_known_mean() {
    // symmetric sample: BCa ≈ percentile ≈ mean ± 1.96 s.e.
    let x: Vec<f64> = (0..200)
        .map(|i| (i as f64 * 0.618_033_988_7).fract())
        .collect();
    let m = x.iter().sum::<f64>() / 200.0;
    let se = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 199.0 / 200.0).sqrt();
    let (lo, hi) = bca_mean_ci(&x, 4000, 0.95, 1);
    assert!(
        (lo - (m - 1.96 * se)).abs() < 0.25 * se && (hi - (m + 1.96 * se)).abs() < 0.25 * se,
        "{lo} {hi} {m} {se}"
    );
}

/// Issue 31: the starter scripts FIRST and SECOND (`examples/policies/admission-{first,second}.rhai`) as
/// arms `script:first`, `script:second` of an E0.1 scenario give the built-in FIRST and SECOND arms'
/// results bit for bit over a whole tuning (every threshold the search evaluated, the tuned threshold,
/// utilization and its CI, failures, admissions); a script that fails at run time ends only its own arm
/// (untunable, with the error at its line and column), the other arms as in the run without scripts.
#[test]
fn script_arms_equal_the_builtins_and_a_failing_script_fails_only_its_arm() {
    use packlab::models::admission::experiment::run_admission;
    use packlab::models::admission::policies::script::{STARTER_FIRST, STARTER_SECOND};
    use packlab::models::admission::scenario::AdmissionScenario;
    use packlab::models::admission::tuning::TuneStatus;
    use packlab::script::ScriptPolicy;
    let mut a = AdmissionScenario {
        runs: 2,
        policies: vec!["FIRST".into(), "SECOND".into()],
        ..AdmissionScenario::default()
    };
    // small and quick: 300 cores, 0.5 arrivals/h over 1,460 h, a 5 × 40-point look-ahead, 4 iterations, SLA 2%
    let p = &mut a.params;
    p.capacity = 300.0;
    p.arrival_rate = 0.5;
    p.steps = 40;
    p.tune_iterations = 4;
    p.bootstrap = 200;
    p.sla = 0.02;
    let plain = run_admission(&a, 3, &mut |_, _| true).unwrap();
    let bad = "fn admit(active, capacity, n0, t, mean, variance, cand_mean, cand_var, threshold) {\n  if active > 20.0 { let x = [1]; x[5] > 0 } else { true }\n}";
    a.scripts = vec![
        ScriptPolicy::new("first", STARTER_FIRST),
        ScriptPolicy::new("second", STARTER_SECOND),
        ScriptPolicy::new("bad", bad),
    ];
    let r = run_admission(&a, 3, &mut |_, _| true).unwrap();
    assert_eq!(r.arms.len(), 5);
    assert_eq!(
        &r.arms[..2],
        &plain.arms[..],
        "the built-in arms are as without scripts"
    );
    for (k, name) in [(0, "first"), (1, "second")] {
        let (b, s) = (&r.arms[k], &r.arms[2 + k]);
        assert_eq!(s.label, format!("script:{name}"));
        assert_eq!(s.policy, format!("script:{name}"));
        assert_eq!(s.kind, PolicyKind::Script);
        assert_eq!(s.error, None);
        assert_eq!(b.status, TuneStatus::Tuned, "{}", b.status_reason);
        // a search that moves: several thresholds, some admitting less than all arrivals
        assert!(b.sweep.len() >= 5 && b.sweep.iter().any(|e| e.accepted < b.arrivals));
        let same = packlab::models::admission::scenario::AdmissionArm {
            label: b.label.clone(),
            policy: b.policy.clone(),
            kind: b.kind,
            ..s.clone()
        };
        assert_eq!(&same, b, "script:{name} = {}", b.label);
    }
    let f = &r.arms[4];
    assert_eq!(f.status, TuneStatus::Untunable);
    let e = f.error.as_deref().unwrap();
    assert!(e.starts_with("line 2, column"), "{e}");
    assert!(f.status_reason.contains(e), "{}", f.status_reason);
}
