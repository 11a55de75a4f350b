//! Importance sampling of runs (ALGORITHMS.md §2.9) and the weighted tuning (§2.8) on a small configuration
//! (C = 200 cores, 0.01 arrivals/h, 2,000 h: ≈ 20 deployments per run, a run takes about a millisecond), so the
//! whole file runs in seconds with `cargo test --release --test admit_is`. The recursion values of App. A.4 and
//! the simulated rejection scheme are unit tests in `src/models/admission/importance.rs`.
//! The variance reduction of the weighted failure-rate estimator against plain sampling is a report, not a test:
//! `cargo bench --bench admit_is`.

use packlab::models::admission::experiment::{run_preset, tune, tune_with_plan};
use packlab::models::admission::importance::{
    badness, build_plan, natural_bucket, ImportancePlan, BUCKETS, SPLIT_QUANTILES,
};
use packlab::models::admission::params::{AdmitParams, PolicyKind};
use packlab::models::admission::sim::{lead_grid, simulate_run, RunResult, SimCache};
use packlab::models::admission::tuning::{
    run_seed, summarise, summarise_weighted, Preset, RunPlan,
};

#[path = "../common/admit_small.rs"]
mod admit_small;
use admit_small::{never_cancel, small, zeroth};

/// Mean and standard error of x (plain) or of the ratio Σw·x/Σw (weighted, linearised).
fn mean_se(x: &[f64], w: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let sw: f64 = w.iter().sum();
    let m = x.iter().zip(w).map(|(x, w)| w * x).sum::<f64>() / sw;
    let v = x
        .iter()
        .zip(w)
        .map(|(x, w)| (w * (x - m)).powi(2))
        .sum::<f64>()
        * n
        / (n - 1.0);
    (m, v.sqrt() / sw)
}

/// The IS-weighted mean of functions of the run equals the plain mean within the combined standard error:
/// the failure count and utilization of a ZEROTH run, the indicator of a failing run, and BM itself.
#[test]
fn weighted_means_are_unbiased() {
    let p = small(20_000, 60);
    let mut cache = SimCache::new();
    let plan = build_plan(&p, 2500, 5, &mut cache, &mut never_cancel()).unwrap();
    // the pilots found failures and the plan over-samples the upper buckets
    let d = &plan.diagnostics;
    assert!(!d.nominal_fallback, "{d:?}");
    assert!(plan.rho[0] > 0.3 && plan.rho[2] == 0.0, "{:?}", plan.rho);
    assert!(
        plan.accept[2] > 5.0 * plan.p[2],
        "{:?} vs {:?}",
        plan.accept,
        plan.p
    );
    assert!(d.pilot_failures_per_run[2] > d.pilot_failures_per_run[0]);
    // bucket probabilities at the quantile splits, weights P_b/A_1(b)
    assert!(
        (plan.p[0] - SPLIT_QUANTILES[0]).abs() < 1e-3,
        "{:?}",
        plan.p
    );
    for (w, b) in plan.weights.iter().zip(&plan.buckets) {
        assert_eq!(*w, plan.p[*b] / plan.accept[*b]);
    }
    let grid = lead_grid(&p);
    let spec = zeroth(100.0);
    let f = |runs: &[RunResult], bm: &[f64]| -> Vec<Vec<f64>> {
        vec![
            runs.iter().map(|r| r.failures as f64).collect(),
            runs.iter().map(|r| r.utilization).collect(),
            runs.iter().map(|r| (r.failures > 0) as u8 as f64).collect(),
            bm.to_vec(),
        ]
    };
    let is_runs: Vec<RunResult> = plan
        .seeds
        .iter()
        .map(|&s| simulate_run(&p, spec, s, &grid, &mut cache))
        .collect();
    let plain_seeds: Vec<u64> = (0..5000).map(|r| run_seed(99, r)).collect();
    let plain_runs: Vec<RunResult> = plain_seeds
        .iter()
        .map(|&s| simulate_run(&p, spec, s, &grid, &mut cache))
        .collect();
    let plain_bm: Vec<f64> = plain_seeds.iter().map(|&s| badness(&p, s)).collect();
    let ones = vec![1.0; plain_runs.len()];
    let names = ["failures", "utilization", "failing run", "BM"];
    for (k, (xi, xp)) in f(&is_runs, &plan.badness)
        .iter()
        .zip(f(&plain_runs, &plain_bm))
        .enumerate()
    {
        let (mi, si) = mean_se(xi, &plan.weights);
        let (mp, sp) = mean_se(&xp, &ones);
        let z = (mi - mp) / (si * si + sp * sp).sqrt();
        eprintln!(
            "{:<12} IS {mi:.5} ± {si:.5}   plain {mp:.5} ± {sp:.5}   z {z:+.2}",
            names[k]
        );
        assert!(
            z.abs() < 4.0,
            "{}: IS {mi} ± {si} vs plain {mp} ± {sp}",
            names[k]
        );
    }
    // the weighted bucket frequencies recover P
    for b in 0..BUCKETS {
        let x: Vec<f64> = plan
            .buckets
            .iter()
            .map(|k| (*k == b) as u8 as f64)
            .collect();
        let (m, se) = mean_se(&x, &plan.weights);
        assert!(
            (m - plan.p[b]).abs() < 4.0 * se + 1e-9,
            "bucket {b}: {m} ± {se} vs {}",
            plan.p[b]
        );
    }
    // and the plain runs' BM buckets have the nominal frequencies (within binomial error)
    let n1 = plain_bm
        .iter()
        .filter(|b| natural_bucket(**b, &plan.bounds) == 0)
        .count() as f64
        / plain_bm.len() as f64;
    assert!((n1 - plan.p[0]).abs() < 4.0 * (0.09f64 / plain_bm.len() as f64).sqrt());
}

/// Importance sampling off: `tune` is exactly the tuning on plain seeds with weights 1, and the weighted
/// summary with unit weights is the unweighted one.
#[test]
fn weights_of_one_reproduce_plain_tuning() {
    let mut p = small(100, 5);
    p.importance.enabled = false;
    p.tune_iterations = 5;
    p.bootstrap = 300;
    p.sla = 0.01;
    let mut c = SimCache::new();
    let a = tune(
        &p,
        PolicyKind::Zeroth,
        false,
        6,
        3,
        &mut c,
        &mut never_cancel(),
    )
    .unwrap();
    let plan = RunPlan::plain(6, 3);
    assert_eq!(plan.weights, vec![1.0; 6]);
    assert_eq!(
        plan.seeds,
        (0..6).map(|r| run_seed(3, r)).collect::<Vec<_>>()
    );
    let b = tune_with_plan(
        &p,
        PolicyKind::Zeroth,
        false,
        &plan,
        3,
        &mut SimCache::new(),
        &mut never_cancel(),
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(
        RunPlan::build(&p, 6, 3, &mut c, &mut never_cancel()).unwrap(),
        plan
    );
    let grid = lead_grid(&p);
    let runs: Vec<RunResult> = plan
        .seeds
        .iter()
        .map(|&s| simulate_run(&p, zeroth(a.threshold), s, &grid, &mut c))
        .collect();
    assert_eq!(summarise(a.threshold, &runs), a.tuned);
    assert_eq!(summarise_weighted(a.threshold, &runs, &[1.0; 6]), a.tuned);
}

/// Tuning with importance sampling is deterministic, feasible by the sound bound, shares one plan across the
/// arms of a preset and across thresholds, and reports it.
#[test]
fn importance_tuning_is_deterministic_and_shared() {
    let mut p = small(1000, 8);
    p.tune_iterations = 5;
    p.bootstrap = 300;
    p.sla = 0.02;
    let mut c = SimCache::new();
    let mut seen = Vec::new();
    let a = tune(&p, PolicyKind::Zeroth, false, 40, 7, &mut c, &mut |d, t| {
        seen.push((d, t));
        true
    })
    .unwrap();
    // 3 buckets × 8 pilot runs, then 40 runs at each of the 5 bisection steps and the 3 upward probes of the
    // search (no extra evaluation)
    assert_eq!(packlab::models::admission::tuning::PROBES, 3);
    let total = 3 * 8 + 40 * (5 + 3);
    assert!(seen.iter().all(|x| x.1 == total) && seen.last() == Some(&(total, total)));
    let b = tune(
        &p,
        PolicyKind::Zeroth,
        false,
        40,
        7,
        &mut SimCache::new(),
        &mut never_cancel(),
    )
    .unwrap();
    assert_eq!(a, b);
    assert!(a.tuned.failure_rate_upper <= p.sla, "{:?}", a.tuned);
    assert!(a.tuned.run_weights.iter().any(|w| *w != 1.0));
    assert!(a.tuned.effective_runs < 40.0);
    assert!(a.utilization_ci.0 <= a.tuned.utilization && a.tuned.utilization <= a.utilization_ci.1);
    // every threshold of the sweep used the same weights (common random numbers)
    assert!(a.sweep.iter().all(|e| e.run_weights == a.tuned.run_weights));
    // the preset builds the plan once: every arm has the same one, equal to tuning the arm alone
    let mut p2 = p.clone();
    p2.tune_iterations = 1;
    let res = run_preset(Preset::E02, &p2, 4, 7, &mut never_cancel()).unwrap();
    let plans: Vec<&ImportancePlan> = res
        .arms
        .iter()
        .map(|x| x.importance.as_ref().unwrap())
        .collect();
    assert!(plans.windows(2).all(|w| w[0] == w[1]));
    let arm = &res.arms[3]; // FIRST+MARGINAL m=1
    assert_eq!(arm.pseudo_obs, 1);
    let mut pa = p2.clone();
    pa.pseudo_obs = 1;
    let alone = tune(
        &pa,
        arm.result.kind,
        true,
        4,
        7,
        &mut SimCache::new(),
        &mut never_cancel(),
    )
    .unwrap();
    assert_eq!(alone, arm.result);
    // cancellation during the pilots
    let e = tune(&p, PolicyKind::Zeroth, false, 40, 7, &mut c, &mut |d, _| {
        d < 5
    })
    .unwrap_err();
    assert_eq!(e, "cancelled");
}

/// Degenerate cases give a usable plan instead of a panic.
#[test]
fn degenerate_plans_do_not_panic() {
    let mut c = SimCache::new();
    // SECOND at the default mid threshold admits nothing here: no pilot fails, g = 0 → nominal, weights 1
    let mut p = small(500, 10);
    p.importance.pilot_threshold = None;
    let plan = build_plan(&p, 20, 1, &mut c, &mut never_cancel()).unwrap();
    assert!(plan.diagnostics.nominal_fallback);
    // the first point of SECOND's search: the log10-midpoint of [1e−8, 1], 10^−4
    assert!((plan.diagnostics.pilot_threshold - 1e-4).abs() < 1e-18);
    assert_eq!(plan.rho, [0.0; 3]);
    assert!(plan.weights.iter().all(|w| (w - 1.0).abs() < 1e-12));
    assert_eq!(plan.diagnostics.candidates, 20);
    // one pre-draw: bucket 1 only (P = 1, 0, 0)
    let p = small(1, 10);
    let plan = build_plan(&p, 10, 1, &mut c, &mut never_cancel()).unwrap();
    assert_eq!(plan.p, [1.0, 0.0, 0.0]);
    assert!(plan.buckets.iter().all(|b| *b == 0) && plan.weights.iter().all(|w| *w == 1.0));
    // no arrivals at all: every BM is 0 (tied bounds, empty upper buckets)
    let mut p = small(200, 3);
    p.arrival_rate = 1e-6;
    let plan = build_plan(&p, 5, 1, &mut c, &mut never_cancel()).unwrap();
    assert_eq!(plan.bounds, [0.0, 0.0]);
    assert_eq!(plan.p, [1.0, 0.0, 0.0]);
    // no pilots: plain sampling from the importance stream
    let p = small(300, 0);
    let plan = build_plan(&p, 5, 1, &mut c, &mut never_cancel()).unwrap();
    assert!(plan.diagnostics.nominal_fallback && plan.weights.iter().all(|w| *w == 1.0));
    assert_eq!(plan.diagnostics.pilot_runs, [0; 3]);
    // a top bucket with few pre-draws (2 of 200): extra draws fill the pilots (up to 10 × pre-draws)
    let p = small(200, 5);
    let plan = build_plan(&p, 5, 2, &mut c, &mut never_cancel()).unwrap();
    assert_eq!(plan.diagnostics.pilot_runs, [5, 5, 5]);
    assert!(plan.diagnostics.pilot_extra_draws > 0);
    // runs = 0 is an error, not a panic
    assert!(build_plan(&p, 0, 1, &mut c, &mut never_cancel()).is_err());
}

/// The parameter is invisible while it has its default (share links, frozen defaults), round-trips when set,
/// and bad values name the field.
#[test]
fn importance_config_serde_and_validation() {
    let d = serde_json::to_value(AdmitParams::default()).unwrap();
    assert!(d.get("importance").is_none());
    let p: AdmitParams = serde_json::from_str(r#"{"importance":{"enabled":true}}"#).unwrap();
    assert!(p.importance.enabled);
    assert_eq!(p.importance.pre_draws, 10_000);
    assert_eq!(p.importance.pilot_runs_per_bucket, 500);
    assert_eq!(p.importance.mix, 0.5);
    assert_eq!(p.importance.pilot_threshold, None);
    let v = serde_json::to_value(&p).unwrap();
    assert_eq!(v["importance"]["enabled"], true);
    assert_eq!(serde_json::from_value::<AdmitParams>(v).unwrap(), p);
    let mut q = p.clone();
    q.importance.mix = 0.0;
    assert!(q.validate().unwrap_err().contains("importance.mix"));
    let mut q = p.clone();
    q.importance.pre_draws = 0;
    assert!(q.validate().unwrap_err().contains("importance.pre_draws"));
    let mut q = p.clone();
    q.importance.pilot_threshold = Some(f64::NAN);
    assert!(q
        .validate()
        .unwrap_err()
        .contains("importance.pilot_threshold"));
}

/// `packlab admit --importance` reports the plan per policy in its JSON; the IS flags need --importance.
#[test]
fn cli_reports_importance_diagnostics() {
    let bin = env!("CARGO_BIN_EXE_packlab");
    let base = [
        "admit",
        "--preset",
        "E0.1",
        "--runs",
        "6",
        "--seed",
        "2",
        "--capacity",
        "200",
        "--arrival-rate",
        "0.01",
        "--hours",
        "2000",
        "--iterations",
        "2",
        "--bootstrap",
        "100",
        "--json",
    ];
    let out = std::process::Command::new(bin)
        .args(base)
        .args(["--importance", "--is-pilot", "4", "--is-predraws", "300"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let arms = v["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 4);
    for a in arms {
        let is = &a["importance"];
        assert_eq!(is["pre_draws"], 300);
        assert_eq!(is["p"].as_array().unwrap().len(), 3);
        assert_eq!(is["rho"].as_array().unwrap().len(), 3);
        assert_eq!(is["run_weights"].as_array().unwrap().len(), 6);
        assert!(is["effective_sample_size"].as_f64().unwrap() > 0.0);
        assert!(a["failure_rate_upper95_exact"].is_number());
    }
    // without --importance there is no "importance" key
    let out = std::process::Command::new(bin).args(base).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["arms"][0].get("importance").is_none());
    let out = std::process::Command::new(bin)
        .args(base)
        .args(["--is-pilot", "4"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--importance"));
}
