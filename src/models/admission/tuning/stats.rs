//! Evaluations of R runs at one threshold: the run seeds (common random numbers), the weighted
//! summary (failure rate with its exact Poisson upper bound, BCa CI of the utilization) and its verdict
//! against the SLA (ALGORITHMS.md §2.8, §2.10).

use crate::models::admission::lead_time::LeadTimeCounts;
use crate::models::admission::params::{AdmitParams, PolicySpec};
use crate::models::admission::sim::{
    lead_grid, simulate_runs, MarginalCounts, RunResult, SimCache,
};
use crate::substrate::rng::mix64;
use crate::substrate::stats::poisson_upper;
use serde::{Deserialize, Serialize};

/// Progress/cancel hook: called with (runs done, runs planned); return false to cancel.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// Seed of run `r` of an experiment with master seed `seed` (identical across policies and thresholds: CRN).
pub fn run_seed(seed: u64, r: usize) -> u64 {
    mix64(seed ^ mix64(r as u64 + 1))
}

/// Aggregate of R runs at one threshold (ALGORITHMS.md §2.8, §2.10). Runs carry weights: all 1 for plain
/// sampling, `P_b / A_1(b)` with importance sampling (§2.9); every mean and rate below is weighted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Threshold evaluated.
    pub threshold: f64,
    /// Weighted mean utilization over runs `Σ w·util / Σ w`.
    pub utilization: f64,
    /// Pooled scale-out failure rate `Σ w·fail / Σ w·req`.
    pub failure_rate: f64,
    /// Upper 95% bound of the failure rate used by the feasibility test of the tuning: the larger of
    /// `failure_rate_upper_delta` and `failure_rate_upper_exact` (see [`summarise_weighted`]).
    pub failure_rate_upper: f64,
    /// Upper end of the two-sided 95% delta-method CI over runs, `f + 1.96·se`.
    #[serde(default)]
    pub failure_rate_upper_delta: f64,
    /// One-sided 95% exact Poisson upper bound on the pooled failure count over the effective request count.
    #[serde(default)]
    pub failure_rate_upper_exact: f64,
    /// Kish effective number of runs `(Σw)²/Σw²` (R without importance sampling).
    #[serde(default)]
    pub effective_runs: f64,
    /// Effective scale-out request count of the exact bound, `Q_eff = (Σ w·req / Σ w)·n_eff` (the pooled
    /// request count without importance sampling).
    #[serde(default)]
    pub effective_requests: f64,
    /// Scale-out requests, pooled over the runs (unweighted count).
    #[serde(default)]
    pub requests: u64,
    /// Failed scale-out requests, pooled over the runs (unweighted count).
    #[serde(default)]
    pub failures: u64,
    /// Deployment arrivals, pooled over the runs (unweighted count).
    #[serde(default)]
    pub arrivals: u64,
    /// Admitted deployments, pooled over the runs (unweighted count).
    #[serde(default)]
    pub accepted: u64,
    /// Weighted mean over runs and months of the monthly failure rates.
    pub monthly_failure_rate: f64,
    /// Weighted fraction of runs with at least one failure.
    pub runs_with_failure: f64,
    /// Per-run utilizations (for bootstrap CIs).
    pub run_utilization: Vec<f64>,
    /// Per-run weights (all 1 without importance sampling).
    #[serde(default)]
    pub run_weights: Vec<f64>,
    /// Variance-based payments (ALGORITHMS.md §2.11) when the runs were priced (`AdmitParams.pricing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<PricingSummary>,
    /// MARGINAL policies: what the heuristic did, pooled over the runs ([`MarginalCounts::pooled`]; serialized
    /// flat as `marginal_candidates`, `marginal_accepts`, `marginal_closest`); all zero otherwise.
    #[serde(flatten)]
    pub marginal: MarginalCounts,
    /// FIRST/SECOND: the lead-time diagnostic pooled over the runs ([`LeadTimeCounts::pooled`], issue 32);
    /// omitted when no arrival was rejected by the moment test.
    #[serde(default, skip_serializing_if = "LeadTimeCounts::is_empty")]
    pub lead_time: LeadTimeCounts,
}

/// The runs' inputs to the variance-based payment rule of seed 000 §7.1 (ALGORITHMS.md §2.11), pooled over runs
/// with the run weights: means per deployment of the initial cores n0 and of the posterior-predictive variance
/// `V̂ = Var[X_t]` the provider priced it at (`t = pricing.lead_hours`). The mean per-hour payment is
/// [`crate::models::admission::params::Pricing::payment`]`(mean n0, mean V̂)` (the rule is linear).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PricingSummary {
    /// Arrivals priced (unweighted count over the runs).
    pub arrivals: u64,
    /// Weighted mean n0 of the arrivals (cores).
    pub arrival_mean_cores: f64,
    /// Weighted mean V̂ of the arrivals (cores²).
    pub arrival_mean_var: f64,
    /// Admitted deployments priced (unweighted count).
    pub admitted: u64,
    /// Weighted mean n0 of the admitted deployments (cores; 0 if none).
    pub admitted_mean_cores: f64,
    /// Weighted mean V̂ of the admitted deployments (cores²; 0 if none).
    pub admitted_mean_var: f64,
}

/// Pool the runs' payment sums with their weights (`None` if no run was priced).
fn pricing_summary(runs: &[RunResult], w: &[f64]) -> Option<PricingSummary> {
    if runs.iter().all(|r| r.pricing.is_none()) {
        return None;
    }
    let (mut n, mut c, mut v, mut na, mut ca, mut va) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut arrivals, mut admitted) = (0, 0);
    for (r, w) in runs.iter().zip(w) {
        if let Some(p) = &r.pricing {
            arrivals += p.arrivals;
            admitted += p.admitted;
            n += w * p.arrivals as f64;
            c += w * p.arrival_cores;
            v += w * p.arrival_var;
            na += w * p.admitted as f64;
            ca += w * p.admitted_cores;
            va += w * p.admitted_var;
        }
    }
    let div = |x: f64, d: f64| if d > 0.0 { x / d } else { 0.0 };
    Some(PricingSummary {
        arrivals,
        arrival_mean_cores: div(c, n),
        arrival_mean_var: div(v, n),
        admitted,
        admitted_mean_cores: div(ca, na),
        admitted_mean_var: div(va, na),
    })
}

/// Evaluate `spec` on the runs `seeds` with weights `weights` (one per seed; all 1 without importance
/// sampling); `None` if cancelled.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    p: &AdmitParams,
    spec: PolicySpec,
    seeds: &[u64],
    weights: &[f64],
    cache: &mut SimCache,
    done: &mut usize,
    total: usize,
    progress: Progress,
) -> Option<Evaluation> {
    let grid = lead_grid(p);
    // natively the runs go to several threads (bit-identical to one after another; see simulate_runs)
    let base = *done;
    let runs = simulate_runs(p, spec, seeds, &grid, cache, &mut |k| {
        progress(base + k, total)
    })?;
    *done = base + runs.len();
    Some(summarise_weighted(spec.threshold, &runs, weights))
}

/// Summarise unweighted runs (all weights 1): [`summarise_weighted`].
pub fn summarise(threshold: f64, runs: &[RunResult]) -> Evaluation {
    summarise_weighted(threshold, runs, &vec![1.0; runs.len()])
}

/// Level of the one-sided exact Poisson bound in the feasibility test.
pub const EXACT_BOUND_LEVEL: f64 = 0.95;

/// Summarise weighted runs (ALGORITHMS.md §2.8 steps 5–6, §2.9 step 6, §2.10); `weights[r]` belongs to
/// `runs[r]`. With all weights 1 every field except the upper bounds is bit-identical to the unweighted
/// summary of earlier versions (tested).
///
/// Feasibility bound `failure_rate_upper = max(delta, exact)`:
/// * `delta`: `f + 1.96·se` with the ratio-estimator (delta-method) standard error over runs,
///   `se = sqrt(R/(R−1) · Σ_r w_r²(fail_r − f·req_r)²) / Σ_r w_r·req_r` (0 for one run). It accounts for
///   failures clustering within runs, but needs many failing runs: with 0 failures, or 1 run, it is `f`.
/// * `exact`: the one-sided 95% exact Poisson bound [`poisson_upper`] on the pooled failure count over the
///   effective request count: `Q_eff = (Σ w·req / Σ w) · n_eff` with the Kish `n_eff = (Σw)²/Σw²` (= total
///   requests without weights), `F_eff = f · Q_eff`, bound `min(1, poisson_upper(F_eff)/Q_eff)` (a rate is
///   at most 1). With 0 failures in Q requests it is 2.9957/Q, so "no failure seen" is feasible only if
///   enough requests were seen ([`requests_to_certify`]). It treats requests as independent, which failures
///   are not (they cluster in congested months); the delta term covers that once several runs fail. Without
///   any request the failure rate is unknown: the exact bound is 1 (the delta bound 0), so a threshold that
///   admits nothing is never certified ([`Evaluation::feasibility`]).
pub fn summarise_weighted(threshold: f64, runs: &[RunResult], weights: &[f64]) -> Evaluation {
    assert_eq!(runs.len(), weights.len(), "one weight per run");
    let w = weights;
    let r = runs.len().max(1) as f64;
    let req: f64 = runs.iter().zip(w).map(|(x, w)| w * x.requests as f64).sum();
    let fail: f64 = runs.iter().zip(w).map(|(x, w)| w * x.failures as f64).sum();
    let f = if req > 0.0 { fail / req } else { 0.0 };
    let mean_req = req / r;
    let var = if runs.len() > 1 {
        runs.iter()
            .zip(w)
            .map(|(x, w)| (w * (x.failures as f64 - f * x.requests as f64)).powi(2))
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
    let sw: f64 = w.iter().sum();
    let n_eff = kish_ess(w);
    let q_eff = if sw > 0.0 { req / sw * n_eff } else { 0.0 };
    let upper_exact = if q_eff > 0.0 {
        (poisson_upper(f * q_eff, EXACT_BOUND_LEVEL) / q_eff).min(1.0)
    } else {
        1.0
    };
    let upper_delta = f + 1.96 * se;
    let mut months = 0.0;
    let mut msum = 0.0;
    for (x, wr) in runs.iter().zip(w) {
        for m in &x.months {
            if m.requests > 0 {
                msum += wr * (m.failures as f64 / m.requests as f64);
            }
            months += wr;
        }
    }
    let with_failure: f64 = runs
        .iter()
        .zip(w)
        .filter(|(x, _)| x.failures > 0)
        .fold(0.0, |a, (_, w)| a + w); // +0.0 when no run failed, as the old count did
    Evaluation {
        threshold,
        utilization: weighted_utilization(runs, w),
        failure_rate: f,
        failure_rate_upper: upper_delta.max(upper_exact),
        failure_rate_upper_delta: upper_delta,
        failure_rate_upper_exact: upper_exact,
        effective_runs: n_eff,
        effective_requests: q_eff,
        requests: runs.iter().map(|x| x.requests).sum(),
        failures: runs.iter().map(|x| x.failures).sum(),
        arrivals: runs.iter().map(|x| x.arrivals).sum(),
        accepted: runs.iter().map(|x| x.accepted).sum(),
        monthly_failure_rate: if months > 0.0 { msum / months } else { 0.0 },
        runs_with_failure: if sw > 0.0 { with_failure / sw } else { 0.0 },
        run_utilization: runs.iter().map(|x| x.utilization).collect(),
        run_weights: w.to_vec(),
        pricing: pricing_summary(runs, w),
        marginal: MarginalCounts::pooled(runs.iter().map(|x| &x.marginal)),
        lead_time: LeadTimeCounts::pooled(runs.iter().map(|x| &x.lead_time)),
    }
}

/// Effective scale-out requests needed to certify the SLA `sla` (a failure rate) when none fails: with no
/// failure the exact bound of [`summarise_weighted`] is `−ln(1 − 0.95)/Q_eff`, which is ≤ `sla` from
/// `Q_eff = −ln(0.05)/sla` on (2,995.7 requests for ε = 1e−3). Runs with fewer requests cannot certify the
/// SLA at any threshold (ALGORITHMS.md §2.8 step 6).
pub fn requests_to_certify(sla: f64) -> f64 {
    poisson_upper(0.0, EXACT_BOUND_LEVEL) / sla
}

/// The verdict of the feasibility test on one evaluated threshold (ALGORITHMS.md §2.8 step 6), with "too
/// few requests to tell" kept apart from "infeasible" ([`Evaluation::feasibility`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feasibility {
    /// The upper 95% bound of the failure rate is ≤ the SLA: the threshold is certified.
    Feasible,
    /// Failures were seen and the bound exceeds the SLA: evidence that the threshold breaks it.
    Infeasible,
    /// No failure was seen, yet the bound exceeds the SLA: the runs carried fewer than
    /// [`requests_to_certify`] effective scale-out requests (none at all when nothing was admitted). This
    /// says nothing against the threshold; more permissive thresholds admit more and see more requests.
    TooFewRequests,
}

impl Evaluation {
    /// This evaluation's verdict against the SLA `sla` (ALGORITHMS.md §2.8 step 6): feasible when
    /// `failure_rate_upper ≤ sla`; otherwise infeasible when at least one scale-out failed, and too few
    /// requests when none did (with no failure the delta bound is 0 and the exact bound `2.9957/Q_eff`, or 1
    /// without requests, so the bound exceeds `sla` exactly when `Q_eff <` [`requests_to_certify`]`(sla)`).
    pub fn feasibility(&self, sla: f64) -> Feasibility {
        if self.failure_rate_upper <= sla {
            Feasibility::Feasible
        } else if self.failures > 0 {
            Feasibility::Infeasible
        } else {
            Feasibility::TooFewRequests
        }
    }
}

/// Weighted mean utilization `Σ w·util / Σ w` (§2.9 step 6, §2.10); 0 for no runs.
pub fn weighted_utilization(runs: &[RunResult], w: &[f64]) -> f64 {
    let sw: f64 = w.iter().take(runs.len()).sum();
    let su: f64 = runs.iter().zip(w).map(|(x, w)| w * x.utilization).sum();
    if sw > 0.0 {
        su / sw
    } else {
        0.0
    }
}

/// Kish effective sample size `(Σw)² / Σw²` (R for equal weights; 0 for none).
pub fn kish_ess(w: &[f64]) -> f64 {
    let s: f64 = w.iter().sum();
    let s2: f64 = w.iter().map(|x| x * x).sum();
    if s2 > 0.0 {
        s * s / s2
    } else {
        0.0
    }
}
