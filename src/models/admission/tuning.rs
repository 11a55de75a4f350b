//! Threshold tuning to the SLA by binary search with common random numbers, BCa bootstrap CIs, and the
//! named experiments E0.1–E0.4 (ALGORITHMS.md §2.8, §2.10, §2.12; seed 000 §5.2).

#[cfg(test)]
use super::component as comp;
use super::importance::{self, kish_ess, weighted_utilization, ImportancePlan};
use super::params::{AdmitParams, Labelling, PolicyKind, PolicySpec};
use super::policy::LeadTimeCounts;
use super::sim::{lead_grid, simulate_runs, MarginalCounts, RunResult, SimCache};
use crate::substrate::rng::mix64;
#[cfg(test)]
use crate::substrate::rng::stream;
pub use crate::substrate::stats::{bca_mean_ci, bca_weighted_mean_ci, poisson_upper};
#[cfg(test)]
use rand::RngExt;
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
/// [`super::params::Pricing::payment`]`(mean n0, mean V̂)` (the rule is linear).
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

/// The runs every threshold of a tuning is evaluated on (common random numbers): their seeds and weights,
/// and the importance-sampling plan they came from, if any.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// Run seeds (for `simulate_run`).
    pub seeds: Vec<u64>,
    /// Run weights (all 1 without importance sampling).
    pub weights: Vec<f64>,
    /// The importance-sampling plan (§2.9) when `params.importance.enabled`.
    pub importance: Option<ImportancePlan>,
}

impl RunPlan {
    /// Plain sampling: seeds [`run_seed`]`(seed, 0..runs)`, weights 1.
    pub fn plain(runs: usize, seed: u64) -> RunPlan {
        RunPlan {
            seeds: (0..runs).map(|r| run_seed(seed, r)).collect(),
            weights: vec![1.0; runs],
            importance: None,
        }
    }

    /// The plan of `p`: [`RunPlan::plain`] when importance sampling is off, else the seeds and weights of
    /// [`importance::build_plan`] (on [`importance::plan_params`]`(p)`, so every arm of a preset gets the same
    /// plan). `progress` sees (pilot runs done, [`RunPlan::setup_runs`]); false cancels ("cancelled").
    pub fn build(
        p: &AdmitParams,
        runs: usize,
        seed: u64,
        cache: &mut SimCache,
        progress: Progress,
    ) -> Result<RunPlan, String> {
        if !p.importance.enabled {
            return Ok(RunPlan::plain(runs, seed));
        }
        let plan = importance::build_plan(p, runs, seed, cache, progress)?;
        Ok(RunPlan {
            seeds: plan.seeds.clone(),
            weights: plan.weights.clone(),
            importance: Some(plan),
        })
    }

    /// Simulation runs [`RunPlan::build`] plans for its setup (the importance pilots; 0 when off).
    pub fn setup_runs(p: &AdmitParams) -> usize {
        importance::planned_pilot_runs(p)
    }
}

/// How the tuning of one arm ended (ALGORITHMS.md §2.8, §2.10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TuneStatus {
    /// The threshold is the most permissive one the search certified (failure-rate bound ≤ SLA).
    #[default]
    Tuned,
    /// No threshold the search evaluated was certified: the runs carry too few scale-out requests to certify
    /// the SLA at any threshold tried (this scale is too small), or every threshold tried broke the SLA. The
    /// reported threshold is the one the reason names, not a tuned one.
    Untunable,
    /// ACCEPT_IF_FITS: no threshold, the SLA ignored (the utilization upper bound of §2.10).
    Bound,
}

/// Result of tuning one policy (one row of seed 000 Table 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneResult {
    /// Display name, e.g. "SECOND+MARGINAL".
    pub policy: String,
    /// Policy kind.
    pub kind: PolicyKind,
    /// MARGINAL heuristic on.
    pub marginal: bool,
    /// Tuned threshold (cores for ZEROTH/FIRST, Cantelli ratio for SECOND); when untunable, the threshold
    /// its reason names; 0 for ACCEPT_IF_FITS.
    pub threshold: f64,
    /// Evaluation at `threshold`.
    pub tuned: Evaluation,
    /// How the tuning ended.
    #[serde(default)]
    pub status: TuneStatus,
    /// Why the arm is untunable (the requests its runs carried against [`requests_to_certify`], or the
    /// failures of the least permissive threshold tried), or what an upper-bound arm is; empty when tuned.
    #[serde(default)]
    pub status_reason: String,
    /// 95% BCa CI of the utilization.
    pub utilization_ci: (f64, f64),
    /// All thresholds evaluated during the search (the frontier: utilization vs failure rate).
    pub sweep: Vec<Evaluation>,
}

/// Tune the threshold of `kind` to the SLA `p.sla` by binary search over R = `runs` common-random-number runs
/// (ALGORITHMS.md §2.8; [`ThresholdSearch`]): plain run seeds with weight 1, or, with `p.importance.enabled`,
/// the importance-sampled seeds and weights of §2.9 (set up once, reused for every threshold). A threshold is
/// certified when the upper 95% bound `failure_rate_upper` of [`summarise_weighted`] is ≤ SLA; the result says
/// whether one was ([`TuneStatus`]). ACCEPT_IF_FITS has no threshold and is evaluated once. The progress hook sees (runs done, runs planned), pilot runs included. Errors: invalid
/// parameters, `runs == 0`, or "cancelled" if the progress hook returned false.
pub fn tune(
    p: &AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    runs: usize,
    seed: u64,
    cache: &mut SimCache,
    progress: Progress,
) -> Result<TuneResult, String> {
    p.validate()?;
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    let setup = RunPlan::setup_runs(p);
    let total = setup + tuning_runs(p, kind, runs);
    let plan = RunPlan::build(p, runs, seed, cache, &mut |d, _| progress(d, total))?;
    tune_with_plan(p, kind, marginal, &plan, seed, cache, &mut |d, _| {
        progress(setup + d, total)
    })
}

/// Simulation runs of one tuning without its setup: R per search evaluation ([`ThresholdSearch::evaluations`]:
/// the iterations, or 1 for ACCEPT_IF_FITS).
fn tuning_runs(p: &AdmitParams, kind: PolicyKind, runs: usize) -> usize {
    runs * ThresholdSearch::new(p, kind).evaluations()
}

/// [`tune`] on given runs (`plan`, e.g. shared by the arms of a preset); `seed` seeds the bootstrap. The
/// utilization CI is the BCa CI of the weighted mean ([`bca_weighted_mean_ci`]). A one-arm admission
/// experiment driven to the end ([`crate::experiment::drive`]), the runs of each threshold on all cores.
pub fn tune_with_plan(
    p: &AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    plan: &RunPlan,
    seed: u64,
    cache: &mut SimCache,
    progress: Progress,
) -> Result<TuneResult, String> {
    p.validate()?;
    let runs = plan.seeds.len();
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    if plan.weights.len() != runs {
        return Err("run plan: one weight per seed needed".into());
    }
    let mut exp =
        super::experiment::AdmissionExperiment::for_arm(p, kind, marginal, plan.clone(), seed);
    exp.swap_cache(cache);
    let r = crate::experiment::drive(&mut exp, progress);
    exp.swap_cache(cache);
    r.map_err(|e| e.message)?;
    Ok(exp
        .tuner(0)
        .and_then(|t| t.result())
        .cloned()
        .expect("a finished arm has a result"))
}

/// How a [`ThresholdSearch`] ended: the status, its reason, the evaluation reported and every evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// Tuned, untunable or the upper bound.
    pub status: TuneStatus,
    /// Why untunable (empty when tuned).
    pub reason: String,
    /// Tuned: the most permissive certified threshold's evaluation. Untunable: the evaluation the reason
    /// names (the most permissive threshold without a failure, or else the least permissive one tried).
    /// ACCEPT_IF_FITS: its one evaluation.
    pub chosen: Evaluation,
    /// Every evaluation, by ascending threshold.
    pub sweep: Vec<Evaluation>,
}

/// Upward probes of a [`ThresholdSearch`] after its bisection: evaluations at `hi + (b − hi)·4^(j−PROBES)`,
/// `j = 0..PROBES` (fractions 1/64, 1/16, 1/4 of the way from the smallest infeasible threshold `hi` to the
/// upper bound `b`, in the search space).
pub const PROBES: usize = 3;

/// The bisection of one policy's threshold to the SLA (ALGORITHMS.md §2.8) as a state machine over evaluated
/// thresholds: [`ThresholdSearch::next_threshold`] proposes the midpoint of the bracket (in log10 space for
/// SECOND's Cantelli ratio), [`ThresholdSearch::record`] takes its evaluation on the R runs, and after
/// `p.tune_iterations` bisection steps and [`PROBES`] upward probes [`ThresholdSearch::finish`] reports.
/// [`ArmTuner`] runs the simulations; this is the only implementation of the search's decisions.
///
/// A verdict ([`Evaluation::feasibility`]) moves the bracket:
/// * feasible: the lower end rises to it;
/// * too few requests (no failure, but fewer than [`requests_to_certify`] requests): the lower end rises to
///   it without making it a result. §2.8 treats "bound above the SLA" as infeasible and moves down; but
///   there a less permissive threshold admits less and sees even fewer requests, so it cannot be certified
///   either, and the search would walk down to thresholds that admit nothing. Such thresholds see no request,
///   and counting that as "no failure, feasible" (the bound used to be 0 there) tuned SECOND to an empty
///   cluster at the playground's scale. Feasibility is not monotone in the threshold (uncertifiable, then
///   feasible, then infeasible as it grows); the direction of the search is (up unless failures break the
///   SLA);
/// * infeasible (failures seen, bound above the SLA): the upper end falls to it.
///
/// Upward probes. §2.8 assumes the failure rate monotone in θ; its estimate on R common-random-number runs
/// is not: a small change of θ changes one admission and the whole later path of a run, and failures cluster
/// in a few congested runs, so one run can push the 95% bound of a single threshold over the SLA while
/// more permissive thresholds stay under it (seed 000 FIRST+MARGINAL m = 5 at C = 1,000: infeasible at 750,
/// feasible at 760, 770, 790, 810, 820; results/000/diagnostics/). One such verdict early in the bisection
/// discards everything above it. After the bisection the search therefore evaluates [`PROBES`] thresholds
/// above the smallest infeasible one `hi` (fractions 1/64, 1/16, 1/4 of the way to the upper bound; when
/// nothing was infeasible, further bisection steps instead), and decides on the monotone (isotonic) fit of the
/// failure rate over every evaluation ([`isotonic_verdicts`]), which is the §2.8 monotonicity assumption
/// applied to the estimates: the result is the most permissive certified threshold below the least permissive
/// infeasible one of that fit whose own evaluation is certified too. When the estimates are monotone the fit
/// equals them and the result is the bisection's.
///
/// The result is that threshold (status tuned), or, when none was certified, status untunable with a
/// reason; no threshold is evaluated twice and no extra evaluation follows the last one.
#[derive(Clone, Debug)]
pub struct ThresholdSearch {
    sla: f64,
    log_space: bool,
    bound: bool,
    iters: usize,
    lo: f64,
    hi: f64,
    /// Upper end of the search space (the first bracket's `hi`).
    top: f64,
    /// Whether some evaluation was infeasible (then `hi` is the smallest infeasible threshold).
    cut: bool,
    sweep: Vec<Evaluation>,
}

impl ThresholdSearch {
    /// The search of `kind`'s threshold under `p`: the bracket [`AdmitParams::threshold_bounds`], SECOND's
    /// ratio form in log10 space, `p.tune_iterations` bisection steps (at least 1) and [`PROBES`] probes;
    /// ACCEPT_IF_FITS: one evaluation at threshold 0, no search.
    pub fn new(p: &AdmitParams, kind: PolicyKind) -> ThresholdSearch {
        let (mut lo, mut hi) = p.threshold_bounds(kind);
        let log_space = kind == PolicyKind::Second
            && matches!(p.second_param, super::params::SecondParam::Ratio);
        if log_space {
            lo = libm::log10(lo);
            hi = libm::log10(hi);
        }
        let bound = kind == PolicyKind::AcceptIfFits;
        ThresholdSearch {
            sla: p.sla,
            log_space,
            bound,
            iters: if bound { 1 } else { p.tune_iterations.max(1) },
            lo,
            hi,
            top: hi,
            cut: false,
            sweep: Vec::new(),
        }
    }

    /// Evaluations the search makes (each on every run of the plan): the bisection steps and [`PROBES`], or 1
    /// for ACCEPT_IF_FITS.
    pub fn evaluations(&self) -> usize {
        if self.bound {
            1
        } else {
            self.iters + PROBES
        }
    }

    fn to_th(&self, x: f64) -> f64 {
        if self.log_space {
            libm::pow(10.0, x)
        } else {
            x
        }
    }

    /// The midpoint of the current bracket as a threshold (for a new search, its first threshold).
    pub fn midpoint(&self) -> f64 {
        self.to_th(0.5 * (self.lo + self.hi))
    }

    /// The search-space point of the next evaluation (evaluation `n` of the search).
    fn next_x(&self) -> f64 {
        let n = self.sweep.len();
        if n < self.iters || !self.cut {
            0.5 * (self.lo + self.hi)
        } else {
            let j = (n - self.iters) as i32;
            self.hi + (self.top - self.hi) * 4f64.powi(j - PROBES as i32)
        }
    }

    /// The threshold to evaluate next (the bracket's [`ThresholdSearch::midpoint`] during the bisection, then
    /// the probes), or `None` once every evaluation is recorded.
    pub fn next_threshold(&self) -> Option<f64> {
        (self.sweep.len() < self.evaluations()).then(|| self.to_th(self.next_x()))
    }

    /// Takes the evaluation of [`ThresholdSearch::next_threshold`] and, during the bisection (and the further
    /// bisection steps that replace the probes when nothing was infeasible), moves the bracket by its
    /// verdict. Ignored once the search is complete.
    pub fn record(&mut self, ev: Evaluation) {
        if self.sweep.len() >= self.evaluations() {
            return;
        }
        if !self.bound && (self.sweep.len() < self.iters || !self.cut) {
            let mid = 0.5 * (self.lo + self.hi);
            match ev.feasibility(self.sla) {
                Feasibility::Feasible | Feasibility::TooFewRequests => self.lo = mid,
                Feasibility::Infeasible => {
                    self.hi = mid;
                    self.cut = true;
                }
            }
        }
        self.sweep.push(ev);
    }

    /// The outcome once every evaluation is recorded (`None` before).
    pub fn finish(&self) -> Option<SearchOutcome> {
        if self.sweep.len() < self.evaluations() {
            return None;
        }
        let mut sweep = self.sweep.clone();
        sweep.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
        if self.bound {
            return Some(SearchOutcome {
                status: TuneStatus::Bound,
                reason:
                    "accept-if-fits has no threshold and ignores the SLA: the utilization upper \
                         bound of ALGORITHMS.md §2.10"
                        .into(),
                chosen: sweep[0].clone(),
                sweep,
            });
        }
        let iso = isotonic_verdicts(&sweep, self.sla);
        let below_cut = iso
            .iter()
            .position(|v| *v == Feasibility::Infeasible)
            .unwrap_or(sweep.len());
        // certified by the fit and by its own runs: a member of a certified block whose own bound exceeds the
        // SLA is not reported as tuned
        if let Some(i) = (0..below_cut).rev().find(|&i| {
            iso[i] == Feasibility::Feasible
                && sweep[i].feasibility(self.sla) == Feasibility::Feasible
        }) {
            return Some(SearchOutcome {
                status: TuneStatus::Tuned,
                reason: String::new(),
                chosen: sweep[i].clone(),
                sweep,
            });
        }
        let verdict = |e: &Evaluation| e.feasibility(self.sla);
        let show = |th: f64| {
            if self.log_space {
                format!("θ = {th:.3e}")
            } else {
                format!("θ = {th}")
            }
        };
        let runs = sweep[0].run_utilization.len();
        // below the first infeasible block of the isotonic fit, as a tuned result would be
        let (chosen, reason) = match sweep[..below_cut]
            .iter()
            .rposition(|e| verdict(e) == Feasibility::TooFewRequests)
        {
            Some(i) => {
                let e = &sweep[i];
                let mut r = format!(
                    "cannot be tuned at this scale: no threshold tried could be certified. The most \
                     permissive one without a failure, {}, admitted {} of {} arrivals and its {runs} runs \
                     carried {:.0} scale-out requests; certifying the SLA ε = {} with no failure needs \
                     {:.0} (95% bound 2.996/requests ≤ ε). More runs, a longer horizon or a larger \
                     cluster carry more requests.",
                    show(e.threshold),
                    e.accepted,
                    e.arrivals,
                    e.effective_requests,
                    self.sla,
                    requests_to_certify(self.sla).ceil(),
                );
                if let Some(n) = sweep.get(i + 1) {
                    r.push_str(&format!(
                        " The next more permissive threshold tried, {}, failed {} of {} scale-out requests.",
                        show(n.threshold),
                        n.failures,
                        n.requests
                    ));
                }
                (e.clone(), r)
            }
            None => {
                let e = &sweep[0];
                (
                    e.clone(),
                    format!(
                        "cannot be tuned: every threshold tried broke the SLA; even the least permissive, \
                         {}, failed {} of {} scale-out requests (95% bound {:.3e} > ε = {}).",
                        show(e.threshold),
                        e.failures,
                        e.requests,
                        e.failure_rate_upper,
                        self.sla
                    ),
                )
            }
        };
        Some(SearchOutcome {
            status: TuneStatus::Untunable,
            reason,
            chosen,
            sweep,
        })
    }
}

/// Verdicts of the isotonic (monotone non-decreasing in the threshold) fit of the failure rate over
/// evaluations sorted by ascending threshold (ALGORITHMS.md §2.8: the failure rate is assumed monotone in θ):
/// pool-adjacent-violators on the rates `f_i` with weights `Q_i` (the effective requests), then each pooled
/// block of thresholds is judged like one evaluation ([`Evaluation::feasibility`]) with the block's rate
/// `f_B = Σ f_i·Q_i / Σ Q_i`, the mean effective requests `Q̄` and the mean delta-method standard error `s̄e`
/// of its members: bound `max(f_B + 1.96·s̄e, min(1, poisson_upper(f_B·Q̄)/Q̄))` (1 if `Q̄ = 0`). The means,
/// not sums, because the members ran on the same runs (common random numbers), so pooling them adds no
/// independent requests. A block of one evaluation keeps that evaluation's own verdict. One verdict per
/// evaluation, in order.
pub fn isotonic_verdicts(sorted: &[Evaluation], sla: f64) -> Vec<Feasibility> {
    // blocks: (first index, end index, Σ f·Q, Σ Q)
    let mut blocks: Vec<(usize, usize, f64, f64)> = Vec::new();
    for (i, e) in sorted.iter().enumerate() {
        let q = e.effective_requests;
        blocks.push((i, i + 1, e.failure_rate * q, q));
        while blocks.len() > 1 {
            let (b, a) = (blocks[blocks.len() - 1], blocks[blocks.len() - 2]);
            let rate = |x: (usize, usize, f64, f64)| if x.3 > 0.0 { x.2 / x.3 } else { 0.0 };
            if rate(a) <= rate(b) {
                break;
            }
            blocks.pop();
            *blocks.last_mut().expect("two blocks") = (a.0, b.1, a.2 + b.2, a.3 + b.3);
        }
    }
    let mut out = Vec::with_capacity(sorted.len());
    for (from, to, fq, q) in blocks {
        let members = &sorted[from..to];
        let verdict = if members.len() == 1 {
            members[0].feasibility(sla)
        } else {
            let n = members.len() as f64;
            let f = if q > 0.0 { fq / q } else { 0.0 };
            let q_mean = q / n;
            let se = members
                .iter()
                .map(|e| (e.failure_rate_upper_delta - e.failure_rate) / 1.96)
                .sum::<f64>()
                / n;
            let exact = if q_mean > 0.0 {
                (poisson_upper(f * q_mean, EXACT_BOUND_LEVEL) / q_mean).min(1.0)
            } else {
                1.0
            };
            if (f + 1.96 * se).max(exact) <= sla {
                Feasibility::Feasible
            } else if members.iter().any(|e| e.failures > 0) {
                Feasibility::Infeasible
            } else {
                Feasibility::TooFewRequests
            }
        };
        out.extend(std::iter::repeat_n(verdict, to - from));
    }
    out
}

/// What one [`ArmTuner::step`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TunerStep {
    /// Simulation runs done in this step.
    pub runs: usize,
    /// A threshold whose runs all completed in this step.
    pub evaluated: Option<Evaluation>,
    /// Whether the arm is now finished (tuned, untunable or, for ACCEPT_IF_FITS, evaluated).
    pub finished: bool,
}

/// One policy's threshold search (ALGORITHMS.md §2.8) advanced a few simulation runs at a time: it simulates
/// the runs of the threshold its [`ThresholdSearch`] proposes and hands it the evaluation. [`tune_with_plan`],
/// [`run_preset`] and the admission experiment all drive it.
#[derive(Clone, Debug)]
pub struct ArmTuner {
    params: AdmitParams,
    kind: PolicyKind,
    marginal: bool,
    grid: crate::admission::policy::LeadGrid,
    search: ThresholdSearch,
    /// The threshold being evaluated and the runs done at it.
    current: Option<(f64, Vec<RunResult>)>,
    done: usize,
    result: Option<TuneResult>,
}

impl ArmTuner {
    /// A search for `kind` (+ MARGINAL) under `p` (validated by the caller).
    pub fn new(p: AdmitParams, kind: PolicyKind, marginal: bool) -> ArmTuner {
        ArmTuner {
            grid: lead_grid(&p),
            search: ThresholdSearch::new(&p, kind),
            params: p,
            kind,
            marginal,
            current: None,
            done: 0,
            result: None,
        }
    }

    /// The arm's parameters.
    pub fn params(&self) -> &AdmitParams {
        &self.params
    }

    /// Simulation runs this search plans on `runs` runs per threshold: R·iterations, or R for
    /// ACCEPT_IF_FITS.
    pub fn planned_runs(&self, runs: usize) -> usize {
        runs * self.search.evaluations()
    }

    /// Runs done so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The result once finished.
    pub fn result(&self) -> Option<&TuneResult> {
        self.result.as_ref()
    }

    /// Simulates up to `units` (≥ 1) of the remaining runs of the current threshold on `plan` (natively on
    /// up to [`crate::experiment::threads`] threads; a run's result depends only on its seed, so the outcome
    /// is the same for any `units`); the step that completes the last evaluation also finishes the arm.
    /// `seed` seeds the bootstrap CI. Does nothing once finished.
    pub fn step(
        &mut self,
        plan: &RunPlan,
        seed: u64,
        units: usize,
        cache: &mut SimCache,
    ) -> TunerStep {
        let Some((th, runs)) = self.pending(plan.seeds.len(), units) else {
            return TunerStep {
                finished: self.result.is_some(),
                ..TunerStep::default()
            };
        };
        let batch = super::sim::simulate_runs_on(
            crate::experiment::threads(),
            &self.params,
            self.policy(th),
            &plan.seeds[runs],
            &self.grid,
            cache,
            &mut |_| true,
        )
        .unwrap_or_default(); // runs without a cancel hook always finish
        self.absorb(batch, plan, seed)
    }

    /// The runs the next step simulates: the threshold being evaluated (the search proposes one when none
    /// is) and the indices of up to `units` (≥ 1) of its remaining runs among `runs` per threshold. `None`
    /// once finished or when the search proposes nothing.
    pub fn pending(&mut self, runs: usize, units: usize) -> Option<(f64, std::ops::Range<usize>)> {
        if self.result.is_some() {
            return None;
        }
        if self.current.is_none() {
            let th = self.search.next_threshold()?;
            self.current = Some((th, Vec::with_capacity(runs)));
        }
        let (th, done_runs) = self.current.as_ref()?;
        let from = done_runs.len();
        Some((*th, from..(from + units.max(1)).min(runs)))
    }

    /// The arm's policy at threshold `th`.
    pub fn policy(&self, th: f64) -> PolicySpec {
        PolicySpec {
            kind: self.kind,
            threshold: th,
            marginal: self.marginal,
        }
    }

    /// One simulation run of the arm's policy at threshold `th` with run seed `seed` (a unit of
    /// [`ArmTuner::pending`], on any copy of the arm).
    pub fn simulate(&self, th: f64, seed: u64, cache: &mut SimCache) -> RunResult {
        super::sim::simulate_run(&self.params, self.policy(th), seed, &self.grid, cache)
    }

    /// Hands the results of the runs [`ArmTuner::pending`] gave (in run order) to the current evaluation;
    /// the batch that completes the last evaluation also finishes the arm (`seed` seeds the bootstrap CI).
    pub fn absorb(&mut self, batch: Vec<RunResult>, plan: &RunPlan, seed: u64) -> TunerStep {
        let mut out = TunerStep::default();
        let runs = plan.seeds.len();
        let Some((_, done_runs)) = self.current.as_mut() else {
            out.finished = self.result.is_some();
            return out;
        };
        out.runs = batch.len();
        self.done += batch.len();
        done_runs.extend(batch);
        if done_runs.len() < runs {
            return out;
        }
        if let Some((th, done_runs)) = self.current.take() {
            let ev = summarise_weighted(th, &done_runs, &plan.weights);
            out.evaluated = Some(ev.clone());
            self.search.record(ev);
        }
        if let Some(o) = self.search.finish() {
            let ci = bca_weighted_mean_ci(
                &o.chosen.run_utilization,
                &o.chosen.run_weights,
                self.params.bootstrap,
                0.95,
                seed,
            );
            let mut name = self.kind.name().to_string();
            if self.marginal {
                name.push_str("+MARGINAL");
            }
            self.result = Some(TuneResult {
                policy: name,
                kind: self.kind,
                marginal: self.marginal,
                threshold: o.chosen.threshold,
                tuned: o.chosen,
                status: o.status,
                status_reason: o.reason,
                utilization_ci: ci,
                sweep: o.sweep,
            });
            out.finished = true;
        }
        out
    }
}

/// Named experiment presets of ALGORITHMS.md §2.12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Preset {
    /// E0.1 baseline vs moment policies (ZEROTH, FIRST, SECOND; plus the accept-if-fits upper bound).
    E01,
    /// E0.2 value of prior information: m ∈ {0, 1, 5, 50} × {FIRST, SECOND} with MARGINAL.
    E02,
    /// E0.3 MARGINAL ablation (seed 000 App. E): FIRST and SECOND, m ∈ {1, 5, 50}, each with and without MARGINAL.
    E03,
    /// E0.4 labelling: labelled vs unlabelled, SECOND, m = 1 per type.
    E04,
}

impl Preset {
    /// The names of every preset, in order ([`Preset::name`]).
    pub const NAMES: &'static [&'static str] = &["E0.1", "E0.2", "E0.3", "E0.4"];

    /// Parse "E0.1" … "E0.4" (also "e01", "1" …).
    pub fn parse(s: &str) -> Result<Preset, String> {
        match s
            .trim()
            .to_ascii_uppercase()
            .replace(['.', '_'], "")
            .as_str()
        {
            "E01" | "1" => Ok(Preset::E01),
            "E02" | "2" => Ok(Preset::E02),
            "E03" | "3" => Ok(Preset::E03),
            "E04" | "4" => Ok(Preset::E04),
            o => Err(format!(
                "unknown preset '{o}' (expected E0.1, E0.2, E0.3 or E0.4)"
            )),
        }
    }
    /// Canonical name "E0.1" … "E0.4".
    pub fn name(&self) -> &'static str {
        Preset::NAMES[*self as usize]
    }
    /// The experiment's arms: (label, params, policy, marginal).
    pub fn arms(&self, base: &AdmitParams) -> Vec<(String, AdmitParams, PolicyKind, bool)> {
        let with = |m: u32, l: Labelling| {
            let mut p = base.clone();
            p.pseudo_obs = m;
            p.labelling = l;
            p
        };
        match self {
            Preset::E01 => vec![
                ("ZEROTH".into(), base.clone(), PolicyKind::Zeroth, false),
                ("FIRST".into(), base.clone(), PolicyKind::First, false),
                ("SECOND".into(), base.clone(), PolicyKind::Second, false),
                (
                    "UPPER_BOUND".into(),
                    base.clone(),
                    PolicyKind::AcceptIfFits,
                    false,
                ),
            ],
            Preset::E02 => {
                let mut v = vec![(
                    "ZEROTH".to_string(),
                    base.clone(),
                    PolicyKind::Zeroth,
                    false,
                )];
                for m in [0u32, 1, 5, 50] {
                    for k in [PolicyKind::First, PolicyKind::Second] {
                        v.push((
                            format!("{}+MARGINAL m={m}", k.name()),
                            with(m, Labelling::Off),
                            k,
                            true,
                        ));
                    }
                }
                v
            }
            Preset::E03 => {
                // seed 000 App. E ablates MARGINAL for both moment policies (issue 32)
                let mut v = Vec::new();
                for k in [PolicyKind::First, PolicyKind::Second] {
                    for m in [1u32, 5, 50] {
                        for mg in [false, true] {
                            let name = if mg {
                                format!("{}+MARGINAL m={m}", k.name())
                            } else {
                                format!("{} m={m}", k.name())
                            };
                            v.push((name, with(m, Labelling::Off), k, mg));
                        }
                    }
                }
                v
            }
            Preset::E04 => vec![
                (
                    "SECOND labelled".into(),
                    with(0, Labelling::Labelled),
                    PolicyKind::Second,
                    false,
                ),
                (
                    "SECOND unlabelled".into(),
                    with(0, Labelling::Unlabelled),
                    PolicyKind::Second,
                    false,
                ),
            ],
        }
    }
}

/// One arm of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmResult {
    /// Arm label, e.g. "FIRST+MARGINAL m=5".
    pub label: String,
    /// Pseudo-observations m.
    pub pseudo_obs: u32,
    /// Labelling mode.
    pub labelling: Labelling,
    /// Tuning result.
    pub result: TuneResult,
    /// Relative utilization gain vs the ZEROTH arm of the same experiment, if present.
    pub gain_vs_zeroth: Option<f64>,
    /// The importance-sampling plan the arm was tuned on (§2.9), when enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<ImportancePlan>,
}

/// Output of [`run_preset`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// Preset name.
    pub preset: String,
    /// Runs per threshold.
    pub runs: usize,
    /// Master seed.
    pub seed: u64,
    /// Parameters used (base).
    pub params: AdmitParams,
    /// One entry per arm.
    pub arms: Vec<ArmResult>,
}

pub use super::experiment::run_preset;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::sim::MonthStats;

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
