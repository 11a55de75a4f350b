//! Importance sampling of runs (ALGORITHMS.md §2.9, seed 000 App. D): the variance of the weighted failure-rate
//! estimator against plain sampling at the same number of runs R = 4,000, on the small configuration of
//! `tests/integration/admit_is.rs` (ZEROTH θ0 = 100, 60, 40 and SECOND θ2 = 0.01). Plain `harness = false` main:
//! `cargo bench --bench admit_is` (about a minute natively).

#[path = "../tests/common/admit_small.rs"]
mod admit_small;
use admit_small::{never_cancel, small, zeroth};
use packlab::models::admission::importance::build_plan;
use packlab::models::admission::params::{PolicyKind, PolicySpec};
use packlab::models::admission::sim::{lead_grid, simulate_run, RunResult, SimCache};
use packlab::models::admission::tuning::{summarise, summarise_weighted, RunPlan};

/// Variance of the pooled failure-rate estimator with importance sampling against plain sampling at the same
/// number of runs R, from the linearised (delta-method) standard errors of `summarise_weighted`, for two
/// policies. Prints a table.
fn main() {
    let r = 4000;
    let p = small(20_000, 200);
    let mut cache = SimCache::new();
    let t = std::time::Instant::now();
    let plan = build_plan(&p, r, 11, &mut cache, &mut never_cancel()).unwrap();
    let d = &plan.diagnostics;
    eprintln!(
        "plan ({:.1?}): P {:?} bounds {:?}\n  pilot g {:?} (failure rate {:?})\n  Q {:?} rho {:?} A_1 {:?} bucket weights {:?}\n  ESS {:.0} of {r}, {} candidates",
        t.elapsed(), plan.p, plan.bounds, d.pilot_failures_per_run, d.pilot_failure_rate, plan.q, plan.rho,
        plan.accept, plan.bucket_weights, d.effective_sample_size, d.candidates
    );
    let grid = lead_grid(&p);
    let plain = RunPlan::plain(r, 11);
    let second = |th: f64| PolicySpec {
        kind: PolicyKind::Second,
        threshold: th,
        marginal: false,
    };
    for spec in [zeroth(100.0), zeroth(60.0), zeroth(40.0), second(0.01)] {
        let run = |seeds: &[u64], c: &mut SimCache| -> Vec<RunResult> {
            seeds
                .iter()
                .map(|&s| simulate_run(&p, spec, s, &grid, c))
                .collect()
        };
        let ri = run(&plan.seeds, &mut cache);
        let rp = run(&plain.seeds, &mut cache);
        let ei = summarise_weighted(spec.threshold, &ri, &plan.weights);
        let ep = summarise(spec.threshold, &rp);
        let se_i = (ei.failure_rate_upper_delta - ei.failure_rate) / 1.96;
        let se_p = (ep.failure_rate_upper_delta - ep.failure_rate) / 1.96;
        eprintln!(
            "{:?} θ={}: failure rate IS {:.4e} ± {:.2e}, plain {:.4e} ± {:.2e}; variance ratio plain/IS {:.2}; \
             failing runs IS {:.0}% (weighted {:.1}%), plain {:.1}%",
            spec.kind, spec.threshold, ei.failure_rate, se_i, ep.failure_rate, se_p, (se_p / se_i).powi(2),
            100.0 * ri.iter().filter(|x| x.failures > 0).count() as f64 / r as f64,
            100.0 * ei.runs_with_failure, 100.0 * ep.runs_with_failure
        );
    }
}
