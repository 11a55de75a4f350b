//! The synthetic workloads of seed 003 against independent values (ALGORITHMS.md §5.7, §5.8, §5.9):
//!
//! - the §5.7 lifetime mixture against the paper's four anchors (§2.1, Fig. 2) by numerical integration of its
//!   density, and the generator's draws against them within a few standard errors; the shape mix, the arrival
//!   rate and the steady-state allocation against Little's law;
//! - App. G.2: on small synthetic pools that start empty (the "ideal" runs), oracle NILAS against the
//!   theoretical optimum of empty hosts (§5.8) and against best fit;
//! - App. E: the probability of a misprediction within an interval against the closed form, and NILAS with and
//!   without repredictions on the two-lifetime workload.
//!
//! Figures are printed (`cargo test --release --test lifetime_theory -- --nocapture`); the run behind the figures
//! of docs/lifetime.md is stored in `results/003/theory.txt`.

use packlab::experiment::run_to_end;
use packlab::models::lifetime::pool::select;
use packlab::models::lifetime::predictor::LifetimePredictor;
use packlab::models::lifetime::sim::{simulate, SimConfig};
use packlab::models::lifetime::{LifetimeParams, LifetimeRun, Policy, PredictorKind};
use packlab::scenario::{Scenario, WorkloadRef};
use packlab::substrate::rng::stream;
use packlab::workload::synthetic::{
    generate, mean_shape_vcpus, two_lifetime, SyntheticParams, SyntheticStart, TwoLifetimeParams,
    LIFETIME_MIXTURE, SHAPE_PROBS, SHAPE_VCPUS,
};
use std::f64::consts::PI;

/// The mixture's density, hours⁻¹, written out from ALGORITHMS.md §5.7 (not through the engine's closed forms).
/// The lifetime model's compact records of a generated workload.
fn facts(w: &packlab::workload::Workload) -> packlab::workload::WorkloadFacts {
    packlab::workload::WorkloadFacts::from_workload(w).expect("compact records")
}

fn density(t: f64) -> f64 {
    let comp = |w: f64, mu: f64, s: f64| {
        let z = (t.ln() - mu) / s;
        w * (-0.5 * z * z).exp() / (t * s * (2.0 * PI).sqrt())
    };
    comp(0.9243, -1.6488, 1.0) + comp(0.0757, 3.0014, 1.4729)
}

/// `∫_a^b f(t)·g(t) dt` by Simpson's rule in `x = ln t` (20,000 panels).
fn integrate(a: f64, b: f64, g: impl Fn(f64) -> f64) -> f64 {
    let n = 20_000;
    let (la, lb) = (a.ln(), b.ln());
    let h = (lb - la) / n as f64;
    let f = |x: f64| {
        let t = x.exp();
        density(t) * g(t) * t
    };
    let mut s = f(la) + f(lb);
    for i in 1..n {
        s += f(la + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// The four anchors of seed 003 §2.1 / Fig. 2 by numerical integration of the density, and the engine's
/// closed forms against the same integrals.
#[test]
fn mixture_anchors_by_numerical_integration() {
    let (lo, hi) = (1e-9, 1e9);
    let mass = integrate(lo, hi, |_| 1.0);
    let below_1h = integrate(lo, 1.0, |_| 1.0);
    let mean = integrate(lo, hi, |t| t);
    let mrl = |u: f64| integrate(u, hi, |t| t - u) / integrate(u, hi, |_| 1.0);
    println!(
        "anchors by integration: mass {mass:.6}, P(T < 1 h) {below_1h:.4}, E[T] {:.4} d, E[T−1d|T>1d] {:.3} d, E[T−7d|T>7d] {:.3} d",
        mean / 24.0,
        mrl(24.0) / 24.0,
        mrl(168.0) / 24.0
    );
    assert!((mass - 1.0).abs() < 1e-9);
    // the paper's anchors (rounded to 2 figures there; the fit rounds its parameters to 4 decimals)
    assert!((below_1h - 0.88).abs() < 5e-4);
    assert!((mean / 24.0 - 0.2).abs() < 5e-4);
    assert!((mrl(24.0) / 24.0 - 4.0).abs() < 5e-3);
    assert!((mrl(168.0) / 24.0 - 10.0).abs() < 5e-3);
    // the engine's closed forms agree with the integrals
    let m = LIFETIME_MIXTURE;
    assert!((m.cdf(1.0) - below_1h).abs() < 1e-9);
    assert!((m.mean() - mean).abs() < 1e-7 * mean);
    for u in [0.5, 24.0, 168.0, 1000.0] {
        assert!((m.mean_residual(u) - mrl(u)).abs() < 1e-6 * mrl(u), "{u}");
        let ramp = (integrate(lo, u, |t| t) + u * integrate(u, hi, |_| 1.0)) / mean;
        assert!((m.ramp(u) - ramp).abs() < 1e-8, "{u}");
    }
}

/// Mean and standard error of `xs`.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

/// The generator's lifetime draws reproduce the anchors within 4 standard errors (a deterministic seed; for a
/// random one a 4-SE miss has probability 6e-5 per check). The sample is large: the tail makes the mean
/// residuals noisy (standard errors about 1.3 h at 1 d and 6 h at 7 d with 10⁶ draws).
#[test]
fn generator_draws_match_the_anchors() {
    let m = LIFETIME_MIXTURE;
    let mut r = stream(11, 1, 0);
    let t: Vec<f64> = (0..1_000_000).map(|_| m.sample(&mut r)).collect();
    let n = t.len() as f64;
    let p1 = t.iter().filter(|&&x| x < 1.0).count() as f64 / n;
    let se_p1 = (0.88 * 0.12 / n).sqrt();
    let (mean, se_mean) = mean_se(&t);
    let resid = |u: f64| {
        mean_se(
            &t.iter()
                .filter(|&&x| x > u)
                .map(|x| x - u)
                .collect::<Vec<_>>(),
        )
    };
    let (r1, se1) = resid(24.0);
    let (r7, se7) = resid(168.0);
    println!(
        "10^6 draws: P(T<1h) {p1:.4} ± {se_p1:.4}, E[T] {mean:.3} ± {se_mean:.3} h, E[T−1d|T>1d] {r1:.1} ± {se1:.1} h, E[T−7d|T>7d] {r7:.1} ± {se7:.1} h"
    );
    assert!((p1 - 0.88).abs() < 4.0 * se_p1);
    assert!((mean - 4.8).abs() < 4.0 * se_mean);
    assert!((r1 - 96.0).abs() < 4.0 * se1);
    assert!((r7 - 240.0).abs() < 4.0 * se7);
    // the steady state's remaining lifetimes: density P(T > r)/E[T], so E[R] = E[T²]/(2·E[T]) and
    // P(R > r) = E[(T − r)⁺]/E[T] = ramp complement; checked at 1 d
    let rr: Vec<f64> = (0..400_000).map(|_| m.sample_residual(&mut r)).collect();
    let frac = rr.iter().filter(|&&x| x > 24.0).count() as f64 / rr.len() as f64;
    let want = m.partial_mean_above(24.0) / m.mean() - 24.0 * m.survival(24.0) / m.mean();
    let se = (want * (1.0 - want) / rr.len() as f64).sqrt();
    println!(
        "steady-state remaining lifetimes: P(R > 1 d) {frac:.4}, closed form {want:.4} ± {se:.4}"
    );
    assert!((frac - want).abs() < 4.0 * se);
}

/// The workload: the shape mix, the arrival rate (Little's law) and the allocation in the steady state.
#[test]
fn workload_matches_the_shape_mix_rate_and_allocation() {
    let p = SyntheticParams {
        hosts: 2000,
        weeks: 1.0,
        ..SyntheticParams::default()
    };
    let w = generate(&p).unwrap();
    let lambda = p.arrival_rate();
    let end = p.duration_h();
    let initial: Vec<_> = w.vms.iter().filter(|v| v.created_s == 0.0).collect();
    let arrivals = w.vms.len() - initial.len();
    // arrivals: Poisson(λ·D)
    let want = lambda * end;
    println!(
        "2000 hosts, 1 week: {arrivals} arrivals (Poisson mean {want:.0} ± {:.0}), {} initial VMs (mean {:.0} ± {:.0})",
        want.sqrt(),
        initial.len(),
        lambda * LIFETIME_MIXTURE.mean(),
        (lambda * LIFETIME_MIXTURE.mean()).sqrt()
    );
    assert!((arrivals as f64 - want).abs() < 4.0 * want.sqrt());
    let n0 = lambda * LIFETIME_MIXTURE.mean();
    assert!((initial.len() as f64 - n0).abs() < 4.0 * n0.sqrt());
    // the shape mix: each shape's frequency within 4 binomial standard errors
    let n = w.vms.len() as f64;
    for (c, q) in SHAPE_VCPUS.iter().zip(SHAPE_PROBS) {
        let f = w.vms.iter().filter(|v| v.cores == *c).count() as f64 / n;
        assert!((f - q).abs() < 4.0 * (q * (1.0 - q) / n).sqrt(), "{c}: {f}");
    }
    // allocation at time 0 (steady start): compound Poisson, mean = target · pool cores, sd = √(λE[T]·E[c²])
    let pool = 2000.0 * 60.0;
    let cores0: f64 = initial.iter().map(|v| v.cores).sum();
    let ec2: f64 = SHAPE_VCPUS
        .iter()
        .zip(SHAPE_PROBS)
        .map(|(c, q)| c * c * q)
        .sum();
    let sd0 = (n0 * ec2).sqrt();
    println!(
        "allocation at time 0: {:.4} (target 0.8 ± {:.4})",
        cores0 / pool,
        sd0 / pool
    );
    assert!((cores0 - 0.8 * pool).abs() < 4.0 * sd0);
    assert_eq!(0.8 * pool, n0 * mean_shape_vcpus());
    // and averaged over the week, with every VM placed (the lifetime model's offered allocation): its sd is at
    // most √(λ·E[c²]·E[T²]/D) (the covariance of alive cores at lag h is λE[c²]E[(T − h)⁺], whose integral is
    // λE[c²]E[T²]/2); E[T²] = Σ w·exp(2μ + 2s²)
    let m = LIFETIME_MIXTURE;
    let et2: f64 = (0..2)
        .map(|i| m.weights[i] * (2.0 * m.mu[i] + 2.0 * m.sigma[i] * m.sigma[i]).exp())
        .sum();
    let sd_avg = (lambda * ec2 * et2 / end).sqrt() / pool;
    let params = LifetimeParams {
        split: String::new(),
        share: 1.0,
        warmup_h: 0.0,
        ..LifetimeParams::default()
    };
    let jobs = select(&facts(&w), &params, 1).unwrap();
    println!(
        "time-averaged offered allocation {:.4} (0.8 ± {sd_avg:.4}), {} hosts",
        jobs.setup.offered_allocation, jobs.setup.hosts
    );
    assert_eq!(jobs.setup.hosts, 2000);
    assert!((jobs.setup.offered_allocation - 0.8).abs() < 4.0 * sd_avg);
}

/// A scenario with a synthetic workload decodes, validates (errors name the field) and survives a share link.
#[test]
fn synthetic_workload_in_scenarios_and_links() {
    let sc = Scenario::from_json(
        r#"{"model":"lifetime","workload":{"synthetic":{"hosts":20,"weeks":0.5,"seed":4}},
            "lifetime":{"split":"","share":1,"stranding_h":0,"policies":["nilas"]}}"#,
    )
    .unwrap();
    sc.validate().unwrap();
    let WorkloadRef::Synthetic(p) = &sc.workload else {
        panic!("{:?}", sc.workload)
    };
    assert_eq!(
        (p.hosts, p.weeks, p.seed, p.start),
        (20, 0.5, 4, SyntheticStart::Steady)
    );
    let back = Scenario::from_link(&sc.to_link()).unwrap();
    assert_eq!(back, sc);
    let bad =
        Scenario::from_json(r#"{"workload":{"synthetic":{"hosts":0,"target_allocation":2}}}"#)
            .unwrap()
            .validate()
            .unwrap_err();
    let fields: Vec<&str> = bad.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "workload.synthetic.hosts",
            "workload.synthetic.target_allocation"
        ]
    );
    assert!(Scenario::from_json(r#"{"workload":{"synthetic":{"hostz":3}}}"#).is_err());
    // the run: the pool is the workload's 20 hosts
    let w = generate(p).unwrap();
    let mut run = LifetimeRun::new(&facts(&w), &sc.lifetime, sc.seed).unwrap();
    let rep = run_to_end(&mut run, &mut |_, _| true).unwrap();
    assert_eq!(rep.hosts, 20);
    assert_eq!(rep.pool_capacity, [1200.0, 4800.0, 0.0]);
    assert_eq!(rep.setup.vms, w.vms.len());
}

/// App. G.2: the "ideal" runs (pool starts empty, oracle lifetimes, no warm-up, NILAS the whole score) on
/// 100-host synthetic pools over 2 weeks, seeds 1–3: NILAS's empty hosts lie below the optimum (§5.8), above
/// best fit's, and within 3 pp of the optimum (measured gaps: see `results/003/theory.txt`).
#[test]
fn g2_ideal_nilas_comes_close_to_the_optimum() {
    let mut rows = Vec::new();
    for seed in 1..=3u64 {
        let w = generate(&SyntheticParams {
            hosts: 100,
            weeks: 2.0,
            start: SyntheticStart::Empty,
            seed,
            ..SyntheticParams::default()
        })
        .unwrap();
        let params = LifetimeParams {
            policies: vec![Policy::BestFit, Policy::Nilas],
            predictor: PredictorKind::Oracle,
            split: String::new(),
            share: 1.0,
            warmup_h: 0.0,
            stranding_h: 0.0,
            ..LifetimeParams::default()
        };
        let mut run = LifetimeRun::new(&facts(&w), &params, seed).unwrap();
        let rep = run_to_end(&mut run, &mut |_, _| true).unwrap();
        let (bf, nilas) = (&rep.results[0], &rep.results[1]);
        let opt = nilas.optimum_empty_hosts;
        println!(
            "G.2 seed {seed}: optimum {:.2}%, NILAS {:.2}% (gap {:.2} pp), best fit {:.2}% (gap {:.2} pp), allocation {:.1}%",
            100.0 * opt,
            100.0 * nilas.empty_hosts,
            100.0 * (opt - nilas.empty_hosts),
            100.0 * bf.empty_hosts,
            100.0 * (opt - bf.empty_hosts),
            100.0 * nilas.allocation
        );
        assert_eq!(bf.optimum_empty_hosts, opt); // same arrivals, no failures: the same optimum
        assert_eq!(nilas.failures, 0);
        rows.push((opt, nilas.empty_hosts, bf.empty_hosts));
    }
    for (opt, nilas, bf) in rows {
        assert!(nilas <= opt + 1e-12);
        assert!(nilas > bf, "NILAS {nilas} vs best fit {bf}");
        assert!(opt - nilas < 0.03, "gap {}", opt - nilas);
    }
}

/// App. E's predictor: the predicted class's lifetime (`S` or `L`); with learning, the truth once the job has
/// run `S` (App. E: "once a job has run for S units of time, we learn whether it is short or long").
/// A test-only predictor: the noisy predictor of App. G.1 draws log-normal errors and repredicts from a
/// log-normal, which is not App. E's two-class error model with exact learning after `S`.
struct TwoClass {
    life: Vec<f64>,
    predicted: Vec<f64>,
    short_h: f64,
    learn: bool,
}

impl LifetimePredictor for TwoClass {
    fn first(&self, j: usize) -> f64 {
        self.predicted[j]
    }
    fn remaining(&self, j: usize, u: f64) -> f64 {
        if self.learn && u >= self.short_h {
            (self.life[j] - u).max(0.0)
        } else {
            (self.predicted[j] - u).max(0.0)
        }
    }
}

fn app_e(scale: usize, eps: f64, seed: u64) -> TwoLifetimeParams {
    TwoLifetimeParams {
        short_h: 1.0,
        long_h: 100.0,
        rate_per_h: 20.0 * scale as f64,
        long_fraction: 0.1,
        misprediction_rate: eps,
        hours: 1500.0,
        hosts: 40 * scale,
        jobs_per_host: 10,
        seed,
    }
}

/// App. E, eq. (1): within an interval of length `x = 1/(ε ρ_L λ_a)` a misprediction of a long job occurs with
/// probability ≥ 1 − 1/e. With Poisson arrivals the count of mispredicted long jobs in the interval is
/// Poisson(ε ρ_L λ_a x = 1), so the probability is exactly `1 − e^{−1}`; given n long arrivals it is
/// `1 − (1 − ε)^n`, the paper's expression (1). Both against the generator's draws, within 4 standard errors.
#[test]
fn app_e_misprediction_probability_bound() {
    for eps in [0.05, 0.1, 0.3] {
        let p = TwoLifetimeParams {
            hours: 50_000.0,
            ..app_e(1, eps, 7)
        };
        let d = two_lifetime(&p).unwrap();
        let x = 1.0 / (eps * p.long_fraction * p.rate_per_h);
        let k = (p.hours / x) as usize;
        let (mut longs, mut wrong) = (vec![0usize; k], vec![0usize; k]);
        for (i, v) in d.workload.vms.iter().enumerate() {
            let b = (v.created_s / 3600.0 / x) as usize;
            if b < k && d.long[i] {
                longs[b] += 1;
                wrong[b] += usize::from(!d.predicted_long[i]);
            }
        }
        let frac = wrong.iter().filter(|&&w| w > 0).count() as f64 / k as f64;
        let exact = 1.0 - (-1.0f64).exp();
        let se = (exact * (1.0 - exact) / k as f64).sqrt();
        let paper = 1.0 - (1.0 - eps).powf(1.0 / eps);
        println!(
            "App. E ε = {eps}: x = {x:.2} h, {k} intervals, P(≥1 misprediction) {frac:.4}; Poisson exact 1 − 1/e = {exact:.4} ± {se:.4}; paper's (1) at the mean count 1 − (1−ε)^(1/ε) = {paper:.4}"
        );
        assert!((frac - exact).abs() < 4.0 * se);
        // the last step of the bound: (1 − ε)^(1/ε) ≤ 1/e
        assert!(paper >= exact);
        // given the count n of long arrivals: 1 − (1 − ε)^n
        for n in 0..=40 {
            let idx: Vec<usize> = (0..k).filter(|&b| longs[b] == n).collect();
            if idx.len() < 200 {
                continue;
            }
            let f = idx.iter().filter(|&&b| wrong[b] > 0).count() as f64 / idx.len() as f64;
            let q = 1.0 - (1.0 - eps).powi(n as i32);
            let se = (q * (1.0 - q) / idx.len() as f64).sqrt().max(1e-12);
            assert!(
                (f - q).abs() < 4.0 * se + 1e-12,
                "ε {eps}, n {n}: {f} vs {q}"
            );
        }
    }
}

/// Mean hosts in use (non-empty) of NILAS on the App. E workload, with and without learning after `S`.
fn hosts_in_use(p: &TwoLifetimeParams) -> (f64, f64, usize) {
    let d = two_lifetime(p).unwrap();
    let params = LifetimeParams {
        split: String::new(),
        share: 1.0,
        ..LifetimeParams::default()
    };
    let pool = select(&facts(&d.workload), &params, p.seed).unwrap();
    let life: Vec<f64> = pool
        .vms
        .iter()
        .map(|&i| if d.long[i] { p.long_h } else { p.short_h })
        .collect();
    let predicted: Vec<f64> = pool
        .vms
        .iter()
        .map(|&i| {
            if d.predicted_long[i] {
                p.long_h
            } else {
                p.short_h
            }
        })
        .collect();
    let cfg = SimConfig {
        policy: Policy::Nilas,
        hosts: p.hosts,
        cap: [p.jobs_per_host as f64, 4.0 * p.jobs_per_host as f64, 0.0],
        caps: None,
        warmup_h: 3.0 * p.long_h,
        end: pool.end,
        refresh_h: 60.0 / 3600.0,
        sample_h: 5.0 / 60.0,
        stranding_h: 0.0,
        seed: p.seed,
        defrag: None,
        baseline_jobs: 0,
        diagnostics: false,
        ablation: Default::default(),
        script: None,
    };
    let mut used = [0.0; 2];
    let mut failures = 0;
    for (k, learn) in [true, false].into_iter().enumerate() {
        let pred = TwoClass {
            life: life.clone(),
            predicted: predicted.clone(),
            short_h: p.short_h,
            learn,
        };
        let r = simulate(&pool.jobs, &pred, &cfg);
        used[k] = (1.0 - r.empty_hosts) * p.hosts as f64;
        failures += r.failures as usize;
    }
    (used[0], used[1], failures)
}

/// App. E, Theorem 1 (qualitative) with NILAS: the theorem's algorithm puts S-predicted jobs on S hosts, so a
/// long job predicted short pins an S host until repredictions reveal it; it predicts that repredictions save
/// hosts, Ω(m) of them. NILAS does not partition hosts by class: its temporal cost lets short jobs fill long
/// hosts (ΔT = 0), so a hidden long job mostly shares a host with other long jobs and is harmless. Measured
/// (`results/003/theory.txt`): with and without repredictions NILAS uses the same hosts to within 0.4 host
/// (≤ 1% of the pool), with either sign, at every ε and pool size tried — the theorem's separation is not
/// observed for NILAS on this workload. The test pins that finding: identical runs without mispredictions,
/// and differences below 2% of the pool otherwise.
#[test]
fn app_e_nilas_with_and_without_repredictions() {
    let mut rows = Vec::new();
    for eps in [0.0, 0.05, 0.1, 0.2] {
        rows.push((40, eps, hosts_in_use(&app_e(1, eps, 5))));
    }
    for scale in [2, 4] {
        rows.push((40 * scale, 0.1, hosts_in_use(&app_e(scale, 0.1, 5))));
    }
    for (m, eps, (learn, nolearn, fail)) in rows {
        println!(
            "App. E m = {m}, ε = {eps}: NILAS hosts in use with repredictions {learn:.2}, without {nolearn:.2}, difference {:.2} (failures {fail})",
            nolearn - learn
        );
        assert_eq!(fail, 0);
        if eps == 0.0 {
            assert_eq!(learn, nolearn);
        }
        assert!((nolearn - learn).abs() < 0.02 * m as f64);
    }
}

/// More regimes of App. E for the record (`--ignored`): S-heavy arrivals, L = 1000 S, denser pools.
#[test]
#[ignore]
fn app_e_explore() {
    for (name, base) in [
        (
            "B S-heavy",
            TwoLifetimeParams {
                short_h: 1.0,
                long_h: 100.0,
                rate_per_h: 200.0,
                long_fraction: 0.01,
                misprediction_rate: 0.1,
                hours: 1000.0,
                hosts: 60,
                jobs_per_host: 10,
                seed: 5,
            },
        ),
        (
            "C L=1000",
            TwoLifetimeParams {
                short_h: 1.0,
                long_h: 1000.0,
                rate_per_h: 20.0,
                long_fraction: 0.05,
                misprediction_rate: 0.1,
                hours: 5000.0,
                hosts: 80,
                jobs_per_host: 20,
                seed: 5,
            },
        ),
        (
            "D dense",
            TwoLifetimeParams {
                short_h: 1.0,
                long_h: 100.0,
                rate_per_h: 50.0,
                long_fraction: 0.1,
                misprediction_rate: 0.1,
                hours: 1000.0,
                hosts: 80,
                jobs_per_host: 10,
                seed: 5,
            },
        ),
        (
            "E half",
            TwoLifetimeParams {
                short_h: 1.0,
                long_h: 100.0,
                rate_per_h: 100.0,
                long_fraction: 0.02,
                misprediction_rate: 0.1,
                hours: 1000.0,
                hosts: 60,
                jobs_per_host: 10,
                seed: 5,
            },
        ),
    ] {
        for eps in [0.05, 0.1, 0.3] {
            let (l, n, f) = hosts_in_use(&TwoLifetimeParams {
                misprediction_rate: eps,
                ..base.clone()
            });
            println!(
                "{name} eps {eps}: learn {l:.2} nolearn {n:.2} diff {:.2} fail {f}",
                n - l
            );
        }
    }
}
