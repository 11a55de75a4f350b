//! Threshold tuning to the SLA by binary search with common random numbers, BCa bootstrap CIs, and the
//! named experiments E0.1–E0.4 (ALGORITHMS.md §2.8, §2.10, §2.12; seed 000 §5.2): the evaluation of a
//! threshold's runs ([`stats`]), the runs they share ([`plan`]), the search ([`search`]), one arm's tuner
//! ([`tuner`]), the presets ([`presets`]) and the results ([`result`]). Driving a tuning to the end is the
//! experiment's ([`super::experiment::tune`], [`super::experiment::run_preset`]).

pub mod plan;
pub mod presets;
pub mod result;
pub mod search;
pub mod stats;
pub mod tuner;

pub use crate::substrate::stats::{bca_mean_ci, bca_weighted_mean_ci, poisson_upper};
pub use plan::RunPlan;
pub use presets::{ArmResult, ExperimentResult, Preset};
pub use result::{TuneResult, TuneStatus};
pub use search::{isotonic_verdicts, SearchOutcome, ThresholdSearch, PROBES};
pub use stats::{
    evaluate, requests_to_certify, run_seed, summarise, summarise_weighted, Evaluation,
    Feasibility, PricingSummary, Progress, EXACT_BOUND_LEVEL,
};
pub use tuner::{ArmTuner, TunerStep};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission::component as comp;
    use crate::models::admission::params::{AdmitParams, PolicyKind};
    use crate::models::admission::sim::MonthStats;
    use crate::models::admission::sim::RunResult;
    use crate::substrate::rng::stream;
    use rand::RngExt;

    /// `summarise` as it was before runs carried weights (verbatim), the reference for bit-identity.
    fn summarise_unweighted_reference(runs: &[RunResult]) -> (f64, f64, f64, f64, f64, f64) {
        let r = runs.len().max(1) as f64;
        let req: f64 = runs.iter().map(|x| x.requests as f64).sum();
        let fail: f64 = runs.iter().map(|x| x.failures as f64).sum();
        let f = if req > 0.0 { fail / req } else { 0.0 };
        let mean_req = req / r;
        let var = if runs.len() > 1 {
            runs.iter()
                .map(|x| (x.failures as f64 - f * x.requests as f64).powi(2))
                .sum::<f64>()
                / (r - 1.0)
        } else {
            0.0
        };
        let se = if mean_req > 0.0 {
            (var / r).sqrt() / mean_req
        } else {
            0.0
        };
        let mut months = 0.0;
        let mut msum = 0.0;
        for x in runs {
            for m in &x.months {
                if m.requests > 0 {
                    msum += m.failures as f64 / m.requests as f64;
                }
                months += 1.0;
            }
        }
        (
            runs.iter().map(|x| x.utilization).sum::<f64>() / r,
            f,
            f + 1.96 * se,
            if months > 0.0 { msum / months } else { 0.0 },
            runs.iter().filter(|x| x.failures > 0).count() as f64 / r,
            se,
        )
    }

    /// `bca_mean_ci` as it was before it delegated to the weighted version (verbatim).
    fn bca_mean_ci_reference(x: &[f64], b: usize, level: f64, seed: u64) -> (f64, f64) {
        let n = x.len();
        let mean = x.iter().sum::<f64>() / n.max(1) as f64;
        if n < 2 || b == 0 || x.iter().all(|v| *v == x[0]) {
            return (mean, mean);
        }
        let mut r = stream(seed, comp::BOOTSTRAP, 0);
        let mut boots: Vec<f64> = (0..b)
            .map(|_| {
                (0..n)
                    .map(|_| x[(r.random::<u64>() % n as u64) as usize])
                    .sum::<f64>()
                    / n as f64
            })
            .collect();
        boots.sort_by(|a, c| a.total_cmp(c));
        let below = boots.iter().filter(|v| **v < mean).count() as f64;
        let prop = ((below + 0.5 * boots.iter().filter(|v| **v == mean).count() as f64) / b as f64)
            .clamp(1e-6, 1.0 - 1e-6);
        let z0 = crate::substrate::stats::normal_quantile(prop);
        let sum: f64 = x.iter().sum();
        let jack: Vec<f64> = x.iter().map(|v| (sum - v) / (n - 1) as f64).collect();
        let jm = jack.iter().sum::<f64>() / n as f64;
        let num: f64 = jack.iter().map(|j| (jm - j).powi(3)).sum();
        let den: f64 = jack
            .iter()
            .map(|j| (jm - j).powi(2))
            .sum::<f64>()
            .powi(3)
            .sqrt();
        let a = if den > 0.0 { num / (6.0 * den) } else { 0.0 };
        let q = |alpha: f64| {
            let z = crate::substrate::stats::normal_quantile(alpha);
            let adj = crate::substrate::stats::normal_cdf(z0 + (z0 + z) / (1.0 - a * (z0 + z)));
            let idx = ((adj * b as f64).floor() as isize).clamp(0, b as isize - 1) as usize;
            boots[idx]
        };
        let al = (1.0 - level) / 2.0;
        (q(al), q(1.0 - al))
    }

    fn fake_runs(n: usize, seed: u64) -> Vec<RunResult> {
        let mut r = stream(seed, 77, 0);
        (0..n)
            .map(|_| {
                let months: Vec<MonthStats> = (0..4)
                    .map(|_| {
                        let req = r.random::<u64>() % 50;
                        MonthStats {
                            core_hours: r.random::<f64>() * 1e5,
                            requests: req,
                            failures: if r.random::<f64>() < 0.3 {
                                r.random::<u64>() % (req + 1)
                            } else {
                                0
                            },
                        }
                    })
                    .collect();
                RunResult {
                    utilization: r.random::<f64>(),
                    requests: months.iter().map(|m| m.requests).sum(),
                    failures: months.iter().map(|m| m.failures).sum(),
                    months,
                    ..Default::default()
                }
            })
            .collect()
    }

    #[test]
    fn unit_weights_reproduce_the_unweighted_summary_bit_for_bit() {
        for (n, seed) in [(0, 1), (1, 2), (2, 3), (7, 4), (40, 5), (5, 6)] {
            let mut runs = fake_runs(n, seed);
            if seed == 6 {
                // no failing run
                for r in &mut runs {
                    r.failures = 0;
                    r.months.iter_mut().for_each(|m| m.failures = 0);
                }
            }
            let e = summarise(0.5, &runs);
            let (u, f, upper_delta, mf, rwf, _) = summarise_unweighted_reference(&runs);
            if n == 0 {
                // the empty sum is −0.0 in the old code; both are 0
                assert_eq!(e.utilization, u);
            } else {
                assert_eq!(e.utilization.to_bits(), u.to_bits(), "n = {n}");
            }
            assert_eq!(e.failure_rate.to_bits(), f.to_bits());
            assert_eq!(e.failure_rate_upper_delta.to_bits(), upper_delta.to_bits());
            assert_eq!(e.monthly_failure_rate.to_bits(), mf.to_bits());
            assert_eq!(e.runs_with_failure.to_bits(), rwf.to_bits());
            assert_eq!(
                e.run_utilization,
                runs.iter().map(|x| x.utilization).collect::<Vec<_>>()
            );
            assert_eq!(e.effective_runs, n as f64);
            assert!(e.failure_rate_upper >= upper_delta);
            let x: Vec<f64> = runs.iter().map(|x| x.utilization).collect();
            let a = bca_mean_ci_reference(&x, 2000, 0.95, seed);
            let b = bca_mean_ci(&x, 2000, 0.95, seed);
            if n == 0 {
                assert_eq!(a, b); // −0.0 == 0.0
            } else {
                assert_eq!(
                    (a.0.to_bits(), a.1.to_bits()),
                    (b.0.to_bits(), b.1.to_bits())
                );
            }
        }
    }

    /// Exact Poisson upper bounds (one-sided 95%): the root U of P(Poisson(U) ≤ x) = 0.05 for integer x and of
    /// P(Γ(x+1, 1) ≤ U) = 0.95 for fractional x, computed independently in Python (standard library only:
    /// the Poisson CDF / the lower regularised gamma series, bisection to 1e-15).
    #[test]
    fn poisson_upper_bound_matches_independent_values() {
        let cases = [
            (0.0, 2.995732273553991),
            (1.0, 4.743864518390578),
            (2.0, 6.295793621871989),
            (3.0, 7.753656527932726),
            (5.0, 10.513034908741531),
            (10.0, 16.9622192357219),
            (50.0, 63.287074095747165),
            (2.5, 7.033570224670102),
            (3.7, 8.738403701834851),
        ];
        for (x, want) in cases {
            let got = poisson_upper(x, 0.95);
            assert!((got - want).abs() < 1e-9 * want, "x = {x}: {got} vs {want}");
        }
        // closed form for no event: −ln(1 − level)
        assert!((poisson_upper(0.0, 0.95) + (0.05f64).ln()).abs() < 1e-15);
    }

    fn run(req: u64, fail: u64) -> RunResult {
        RunResult {
            utilization: 0.5,
            requests: req,
            failures: fail,
            ..Default::default()
        }
    }

    #[test]
    fn feasibility_bound_is_sound_for_small_counts() {
        // zero failures in 3 × 1000 requests: delta bound 0, exact 2.9957/3000
        let e = summarise(1.0, &[run(1000, 0), run(1000, 0), run(1000, 0)]);
        assert_eq!(e.failure_rate, 0.0);
        assert_eq!(e.failure_rate_upper_delta, 0.0);
        assert!((e.failure_rate_upper - 2.995732273553991 / 3000.0).abs() < 1e-15);
        // a single run: se = 0, the exact bound with 2 failures in 500 requests: 6.2958/500
        let e = summarise(1.0, &[run(500, 2)]);
        assert_eq!(e.failure_rate_upper_delta, 2.0 / 500.0);
        assert!((e.failure_rate_upper - 6.295793621871989 / 500.0).abs() < 1e-12);
        // many failing runs: the delta bound (over-dispersion between runs) dominates
        let runs: Vec<RunResult> = (0..20)
            .map(|i| run(1000, if i % 2 == 0 { 100 } else { 0 }))
            .collect();
        let e = summarise(1.0, &runs);
        assert!(e.failure_rate_upper_delta > e.failure_rate_upper_exact);
        assert_eq!(e.failure_rate_upper, e.failure_rate_upper_delta);
        // weights: Kish n_eff = (Σw)²/Σw² = 16/10 = 1.6 runs of mean weighted requests 1000 → Q_eff = 1600
        let e = summarise_weighted(1.0, &[run(1000, 0), run(1000, 0)], &[1.0, 3.0]);
        assert!((e.effective_runs - 1.6).abs() < 1e-12);
        assert!((e.failure_rate_upper - 2.995732273553991 / 1600.0).abs() < 1e-15);
        // no requests at all: the failure rate is unknown, the bound is the trivial 1 (not 0, which used to
        // certify thresholds that admit nothing), and so is a bound above 1 (2.9957/1 for one request)
        let e = summarise(1.0, &[run(0, 0)]);
        assert_eq!(e.failure_rate_upper, 1.0);
        assert_eq!(e.feasibility(0.5), Feasibility::TooFewRequests);
        assert_eq!(summarise(1.0, &[run(1, 0)]).failure_rate_upper, 1.0);
    }

    /// The verdicts around the request count needed to certify ε = 1e−3 with no failure: −ln(0.05)/1e−3 =
    /// 2995.73 requests (`python3 -c "import math; print(-math.log(0.05)/1e-3)"`).
    #[test]
    fn verdicts_separate_too_few_requests_from_infeasible() {
        assert!((requests_to_certify(1e-3) - 2995.732273553991).abs() < 1e-9);
        let v = |runs: &[RunResult]| summarise(1.0, runs).feasibility(1e-3);
        assert_eq!(v(&[run(1500, 0), run(1500, 0)]), Feasibility::Feasible); // 3000 requests
        assert_eq!(
            v(&[run(1495, 0), run(1495, 0)]),
            Feasibility::TooFewRequests
        ); // 2990
        assert_eq!(v(&[run(0, 0), run(0, 0)]), Feasibility::TooFewRequests); // nothing admitted
        assert_eq!(v(&[run(100, 1), run(100, 0)]), Feasibility::Infeasible);
        // one failure in 10,000 requests of one run: exact bound 4.7439/10,000 (delta bound 1e−4)
        assert_eq!(v(&[run(10_000, 1)]), Feasibility::Feasible);
        // one failure in 4,000: 4.7439/4,000 = 1.19e−3 > ε, and a failure was seen
        assert_eq!(v(&[run(4_000, 1)]), Feasibility::Infeasible);
    }

    /// Two runs whose pooled counts are (accepted, requests, failures), split evenly.
    fn two_runs(accepted: u64, requests: u64, failures: u64) -> Vec<RunResult> {
        (0..2)
            .map(|_| RunResult {
                utilization: accepted as f64 / 1000.0,
                requests: requests / 2,
                failures: failures / 2,
                arrivals: 1000,
                accepted: accepted / 2,
                ..Default::default()
            })
            .collect()
    }

    /// Drives a search of `kind` under `p` with the hand-made evaluation `f`; returns the thresholds in the
    /// order evaluated and the outcome.
    fn drive_search(
        p: &AdmitParams,
        kind: PolicyKind,
        f: impl Fn(f64) -> Vec<RunResult>,
    ) -> (Vec<f64>, SearchOutcome) {
        let mut s = ThresholdSearch::new(p, kind);
        let mut path = Vec::new();
        while let Some(th) = s.next_threshold() {
            path.push(th);
            s.record(summarise(th, &f(th)));
        }
        (path, s.finish().expect("complete"))
    }

    fn search_params() -> AdmitParams {
        AdmitParams {
            capacity: 1000.0,
            sla: 1e-3,
            tune_iterations: 6,
            ..AdmitParams::default()
        }
    }

    /// A hand-constructed feasibility that is not monotone in the threshold (the playground's situation):
    /// below 300 nothing is admitted (no request), on [300, 600) 1,000 requests without failure (too few to
    /// certify ε = 1e−3, which needs 2,996), on [600, 800) 5,000 requests without failure (certified: bound
    /// 2.9957/5000 = 6.0e−4), from 800 on 20 failures in 5,000 (infeasible). Bisection of [0, 1000] by hand:
    /// 500 too few → [500, 1000]; 750 feasible → [750, 1000]; 875 infeasible → [750, 875]; 812.5 infeasible
    /// → [750, 812.5]; 781.25 feasible; 796.875 feasible: tuned to 796.875, the most permissive certified
    /// threshold. (Counting "bound above the SLA" as infeasible, as before, walked 500 → 250 → 375 → 312.5 →
    /// 281.25 → 296.875 and reported 296.875, which admits nothing, as tuned.)
    /// The thresholds both searches below evaluate (`search_params`, bracket [500, 1000]): the bisection with
    /// 812.5 its smallest infeasible point, then the 3 probes at 812.5 + 187.5·(1/64, 1/16, 1/4).
    const CLIMB_PAST_812_5: [f64; 9] = [
        500.0,
        750.0,
        875.0,
        812.5,
        781.25,
        796.875,
        815.4296875,
        824.21875,
        859.375,
    ];

    #[test]
    fn search_climbs_past_thresholds_with_too_few_requests() {
        let f = |th: f64| {
            if th < 300.0 {
                two_runs(0, 0, 0)
            } else if th < 600.0 {
                two_runs(40, 1000, 0)
            } else if th < 800.0 {
                two_runs(80, 5000, 0)
            } else {
                two_runs(90, 5000, 20)
            }
        };
        let (path, o) = drive_search(&search_params(), PolicyKind::Zeroth, f);
        // then the probes above hi = 812.5: 812.5 + 187.5·(1/64, 1/16, 1/4), all infeasible
        assert_eq!(path, CLIMB_PAST_812_5);
        assert_eq!(o.status, TuneStatus::Tuned);
        assert_eq!(o.chosen.threshold, 796.875);
        assert_eq!(o.chosen.accepted, 80);
        assert!(o.reason.is_empty());
        let th: Vec<f64> = o.sweep.iter().map(|e| e.threshold).collect();
        assert_eq!(
            th,
            [
                500.0,
                750.0,
                781.25,
                796.875,
                812.5,
                815.4296875,
                824.21875,
                859.375,
                875.0
            ]
        );
    }

    /// No window of certified thresholds: [300, 800) carries 1,000 requests without failure, 800 and above
    /// fail. By hand: 500 too few, 750 too few, 875 infeasible, 812.5 infeasible, 781.25 too few, 796.875
    /// too few: untunable, naming 796.875 (the most permissive threshold without a failure, 1,000
    /// requests against the 2,996 needed) and 812.5 (20 failures in 5,000).
    #[test]
    fn search_reports_untunable_when_no_threshold_carries_enough_requests() {
        let f = |th: f64| {
            if th < 300.0 {
                two_runs(0, 0, 0)
            } else if th < 800.0 {
                two_runs(40, 1000, 0)
            } else {
                two_runs(90, 5000, 20)
            }
        };
        let (path, o) = drive_search(&search_params(), PolicyKind::First, f);
        assert_eq!(path, CLIMB_PAST_812_5);
        assert_eq!(o.status, TuneStatus::Untunable);
        assert_eq!(o.chosen.threshold, 796.875);
        assert!(o.reason.contains("θ = 796.875"), "{}", o.reason);
        assert!(
            o.reason.contains("carried 1000 scale-out requests"),
            "{}",
            o.reason
        );
        assert!(o.reason.contains("needs 2996"), "{}", o.reason);
        assert!(
            o.reason.contains("θ = 812.5, failed 20 of 5000 scale-out"),
            "{}",
            o.reason
        );
        // every threshold fails: untunable, naming the least permissive one tried (1000/64 = 15.625)
        let (path, o) = drive_search(&search_params(), PolicyKind::Zeroth, |_| {
            two_runs(10, 5000, 20)
        });
        // probes above hi = 15.625: 15.625 + 984.375·(1/64, 1/16, 1/4)
        assert_eq!(
            path,
            [
                500.0,
                250.0,
                125.0,
                62.5,
                31.25,
                15.625,
                31.005859375,
                77.1484375,
                261.71875
            ]
        );
        assert_eq!(o.status, TuneStatus::Untunable);
        assert_eq!(o.chosen.threshold, 15.625);
        assert!(
            o.reason.contains("every threshold tried broke the SLA"),
            "{}",
            o.reason
        );
    }

    /// SECOND's Cantelli ratio is bisected in log10 over [1e−8, 1] (ALGORITHMS.md §2.7: the ratio lies in
    /// [0, 1) and θ2 → 1 is FIRST at C; see `AdmitParams::threshold_bounds`): with every threshold feasible
    /// the exponents are −4, −2, −1, −0.5, −0.25, −0.125, and, nothing being infeasible, three further
    /// bisection steps replace the probes: −0.0625, −0.03125, −0.015625.
    #[test]
    fn second_is_searched_in_log_space_up_to_one() {
        let (path, o) = drive_search(&search_params(), PolicyKind::Second, |_| {
            two_runs(80, 5000, 0)
        });
        let want = [
            -4.0, -2.0, -1.0, -0.5, -0.25, -0.125, -0.0625, -0.03125, -0.015625,
        ];
        assert_eq!(path.len(), want.len());
        for (x, w) in path.iter().zip(want) {
            assert!((x / 10f64.powf(w) - 1.0).abs() < 1e-14, "{x} vs 10^{w}");
        }
        assert_eq!(o.status, TuneStatus::Tuned);
        assert_eq!(o.chosen.threshold, path[8]);
        // accept-if-fits: one evaluation, no search
        let (path, o) = drive_search(&search_params(), PolicyKind::AcceptIfFits, |_| {
            two_runs(90, 5000, 20)
        });
        assert_eq!(path, [0.0]);
        assert_eq!(o.status, TuneStatus::Bound);
    }

    /// Feasibility not monotone in the threshold, as the stored scan of seed 000 FIRST+MARGINAL m = 5 shows
    /// (results/000/diagnostics/): every threshold below 745 and from 755 to 850 is certified, but a spike on
    /// [745, 755) (4 failures in 5,000 requests: exact bound poisson_upper(4)/5000 = 9.1535/5000 = 1.83e−3 > ε)
    /// is infeasible; from 850 on 40 failures in 5,000. Below 745: 5,000 requests, no failure; [755, 850):
    /// 10,000 requests, no failure. By hand, the bisection of [0, 1000]: 500 F, 750 I (the spike), 625 F,
    /// 687.5 F, 718.75 F, 734.375 F; it used to stop there, tuned to 734.375. The probes above hi = 750:
    /// 750 + 250·(1/64, 1/16, 1/4) = 753.90625 (spike, I), 765.625 (F), 812.5 (F). Isotonic fit: the rates
    /// 4/5000 at 750 and 753.90625 exceed 0 at 765.625 and 812.5, so the four pool into one block of rate
    /// 8/30,000 with mean requests 7,500: bound poisson_upper(2)/7500 = 6.2958/7500 = 8.39e−4 ≤ ε (the delta
    /// bound is the rate, 2.67e−4: both runs fail alike), so the block is certified and the search is tuned to
    /// 812.5, the most permissive threshold tried below the first infeasible block (there is none).
    #[test]
    fn probes_and_the_isotonic_fit_see_past_a_lone_infeasible_threshold() {
        let f = |th: f64| {
            if (745.0..755.0).contains(&th) {
                two_runs(80, 5000, 4)
            } else if th < 755.0 {
                two_runs(80, 5000, 0)
            } else if th < 850.0 {
                two_runs(90, 10_000, 0)
            } else {
                two_runs(95, 5000, 40)
            }
        };
        assert_eq!(
            summarise(750.0, &f(750.0)).feasibility(1e-3),
            Feasibility::Infeasible
        );
        let (path, o) = drive_search(&search_params(), PolicyKind::First, f);
        assert_eq!(
            path,
            [500.0, 750.0, 625.0, 687.5, 718.75, 734.375, 753.90625, 765.625, 812.5]
        );
        assert_eq!(o.status, TuneStatus::Tuned);
        assert_eq!(o.chosen.threshold, 812.5);
        let iso = isotonic_verdicts(&o.sweep, 1e-3);
        assert!(iso.iter().all(|v| *v == Feasibility::Feasible), "{iso:?}");
        // the block's bound by hand: 6.2958/7500 (poisson_upper(2) as in feasibility_bound_is_sound…)
        assert!((6.295793621871989_f64 / 7500.0 - 8.394e-4).abs() < 1e-7);
        // with a spike of 40 failures the pooled block (80/30,000 = 2.7e−3) stays infeasible: 734.375
        let g = |th: f64| {
            if (745.0..755.0).contains(&th) {
                two_runs(80, 5000, 40)
            } else {
                f(th)
            }
        };
        let (_, o) = drive_search(&search_params(), PolicyKind::First, g);
        assert_eq!(o.chosen.threshold, 734.375);
    }

    #[test]
    fn weighted_bca_covers_the_weighted_mean_and_is_reproducible() {
        let x: Vec<f64> = (0..300)
            .map(|i| (i as f64 * 0.618_033_988_7).fract())
            .collect();
        let w: Vec<f64> = (0..300)
            .map(|i| if i % 3 == 0 { 0.4 } else { 1.3 })
            .collect();
        let m = x.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>() / w.iter().sum::<f64>();
        let a = bca_weighted_mean_ci(&x, &w, 3000, 0.95, 9);
        assert_eq!(a, bca_weighted_mean_ci(&x, &w, 3000, 0.95, 9));
        assert!(a.0 < m && m < a.1, "{a:?} {m}");
        // linearised s.e. of the ratio: sqrt(Σ w²(x − m)²)/Σw
        let sw: f64 = w.iter().sum();
        let se = x
            .iter()
            .zip(&w)
            .map(|(x, w)| (w * (x - m)).powi(2))
            .sum::<f64>()
            .sqrt()
            / sw;
        assert!(
            (a.1 - a.0 - 2.0 * 1.96 * se).abs() < 0.15 * 2.0 * 1.96 * se,
            "{a:?} {se}"
        );
    }
}
