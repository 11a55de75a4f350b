//! Importance sampling of runs (seed 000 App. D, ALGORITHMS.md §2.9), an option of the threshold tuning
//! ([`crate::models::admission::params::ImportanceConfig`], off by default).
//!
//! Scale-out failures sit in the tail: few runs fail. Runs are therefore drawn from an importance distribution
//! that over-samples "bad" runs and are weighted by the likelihood ratio `w = P_b / A_1(b)`:
//!
//! 1. [`badness`]: the deterministic monthly sketch BM of a run seed (§2.9 step 1), from the run's own
//!    pre-drawn arrivals ([`crate::models::admission::sim::draw_arrival`]).
//! 2. Three buckets split at the 90% and 99% quantiles of BM over `pre_draws` pre-draws; the nominal bucket
//!    probabilities P_i are the pre-draw frequencies (step 2, [`split_bounds`]).
//! 3. The rejection scheme with a floor (step 3, [`rejection_accept`]) and its acceptance law A_j(i)
//!    (step 4, [`acceptance_matrix`]).
//! 4. ρ from pilot runs (step 5, [`target_masses`], [`solve_rho`]).
//! 5. [`build_plan`] puts it together: R accepted run seeds with their weights ([`ImportancePlan`]).
//! 6. Estimators (step 6): [`weighted_failure_rate`], [`weighted_utilization`].
//!
//! Arithmetic: transcendental functions come from `libm` (as in `crate::substrate::stats`), so the plan is bit-identical
//! natively and in WebAssembly.
//!
//! Random streams (ALGORITHMS.md §0): everything is drawn from the component
//! [`crate::models::admission::component::IMPORTANCE`] of the master seed, one stream per phase (pre-draw seeds,
//! extra pilot seeds, candidate seeds, rejection coins). No other stream is touched, so results without
//! importance sampling are unchanged, and a plan is a deterministic function of (parameters, R, master seed).
//!
//! Bias note: the weights use the *estimated* P_i, so the estimator is exactly unbiased only for the true
//! bucket probabilities of the (data-dependent) bounds. The relative error of the weights of buckets 2 and 3
//! is about `ρ_2/(1 − ρ_2·P_2/T_2) · se(P_2/T_2) + ρ_1/(1 − ρ_1·P_1) · se(P_1)`, with
//! `se(P_2/T_2) ≈ sqrt(0.09/(0.1·N_pre))` and `se(P_1) ≈ sqrt(0.09/N_pre)`: ≈ 1% at N_pre = 10⁴ for moderate
//! ρ, but ≈ 4% when ρ_2 ≈ 0.87. Example (small configuration of `tests/integration/admit_is.rs`, N_pre = 10⁴,
//! master seed 3, ρ = (0.64, 0.87, 0)): 2·10⁴ plain runs put the true probabilities of the bounds at
//! (0.899, 0.092, 0.0085) instead of (0.9, 0.09, 0.01), which biases the weighted failure rate by ≈ +2%.
//! [`ImportanceDiagnostics::p_se`] reports the standard errors; raise `pre_draws` to shrink them.

use super::component as comp;
use super::params::{AdmitParams, Labelling, PolicyKind, PolicySpec};
use super::sim::{draw_arrival, lead_grid, simulate_run, RunResult, SimCache};
pub use super::tuning::stats::{kish_ess, weighted_utilization};
use super::tuning::ThresholdSearch;
use crate::substrate::rng::stream;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Number of badness buckets (§2.9 step 2).
pub const BUCKETS: usize = 3;
/// Quantiles of BM over the pre-draws at which the buckets are split (§2.9 step 2, **[UNSTATED → default]**).
pub const SPLIT_QUANTILES: [f64; 2] = [0.90, 0.99];
/// δ_BM of the per-deployment Cantelli bound in the badness sketch (§2.9 step 1).
pub const DELTA_BM: f64 = 0.01;
/// Extra pilot draws (beyond the pre-draws) allowed to fill the buckets with pilot seeds, as a multiple of
/// `pre_draws`: at the default 10⁴ pre-draws the top bucket holds ≈ 100 of them, and 500 pilot seeds need
/// ≈ 4·10⁴ more draws.
pub const PILOT_EXTRA_FACTOR: usize = 10;
/// Candidate draws allowed per accepted run before the rejection scheme gives up (an error; it cannot
/// happen unless the top bucket's true probability is far below its estimate).
pub const MAX_CANDIDATES_PER_RUN: usize = 100_000;
/// Largest ρ used for a non-top bucket (ρ = 1 would leave the bucket unsampled and the estimator biased).
const RHO_MAX: f64 = 1.0 - 1e-9;

/// Stream indices (phases) inside the IMPORTANCE component.
const PHASE_PRE: u64 = 1;
const PHASE_PILOT: u64 = 2;
const PHASE_CANDIDATE: u64 = 3;
const PHASE_COIN: u64 = 4;

/// Months and arrivals per month of the badness sketch: `ceil(horizon_hours / month_hours)` month starts
/// (at least 1) and `round(arrival_rate · month_hours)` arrivals at each (730 at the defaults).
pub fn sketch_shape(p: &AdmitParams) -> (u64, u64) {
    let months = (p.horizon_hours / p.month_hours).ceil().max(1.0) as u64;
    let per_month = (p.arrival_rate * p.month_hours).round().max(0.0) as u64;
    (months, per_month)
}

/// Cantelli upper bound on the size of a deployment of known type at age `age` hours (§2.9 step 1):
/// `U = μ + sqrt(v·(1−δ_BM)/δ_BM)` with the un-absorbed moments (no kill)
/// `μ = n0·p + ν·m1·(1−p)`, `v = n0·p(1−p) + ν·m1·(1−p) + ½·ν·m2·(1−p²)`, `p = e^{−λ·age}`,
/// `m1 = 1+σ`, `m2 = σ(2+σ)`. Cores. At age 0 it is `n0`.
pub fn cantelli_size(n0: f64, lambda: f64, nu: f64, sigma: f64, age: f64) -> f64 {
    let p = libm::exp(-lambda * age);
    let m1 = 1.0 + sigma;
    let m2 = sigma * (2.0 + sigma);
    let mu = n0 * p + nu * m1 * (1.0 - p);
    let v = n0 * p * (1.0 - p) + nu * m1 * (1.0 - p) + 0.5 * nu * m2 * (1.0 - p * p);
    mu + (v.max(0.0) * (1.0 - DELTA_BM) / DELTA_BM).sqrt()
}

/// Badness measure BM of run `seed` (ALGORITHMS.md §2.9 step 1; dimensionless, a fraction of C).
///
/// Deterministic sketch over the run's own pre-drawn arrivals: at month start m (time m·month_hours,
/// m = 0 … [`sketch_shape`].0 − 1) the arrivals idx = m·K … m·K + K − 1 of the run (K = [`sketch_shape`].1,
/// `draw_arrival(p, seed, idx)`, true type known) are offered one by one and accepted iff
/// `Σ_{d ∈ cluster} U_d + U_new ≤ C`, with every U at its age at that month start ([`cantelli_size`]; a new
/// arrival has age 0, U = n0). A deployment that arrived at month start j with maximum lifetime M stays
/// until the end of month j + ⌊M / month_hours⌋ (it expires in that month; no zero-death). BM is the largest
/// `Σ U_d / C` over month starts, taken after that month's admissions (all deployments in the cluster at
/// the month start).
pub fn badness(p: &AdmitParams, seed: u64) -> f64 {
    struct Live {
        n0: f64,
        lambda: f64,
        nu: f64,
        sigma: f64,
        born: u64,
        last: u64,
    }
    let (months, per_month) = sketch_shape(p);
    let mut live: Vec<Live> = Vec::new();
    let mut bm = 0.0f64;
    for m in 0..months {
        live.retain(|d| d.last >= m);
        let mut sum = 0.0;
        for d in &live {
            let age = (m - d.born) as f64 * p.month_hours;
            sum += cantelli_size(d.n0, d.lambda, d.nu, d.sigma, age);
        }
        for k in 0..per_month {
            let a = draw_arrival(p, seed, m * per_month + k);
            let th = a.theta;
            let n0 = a.n0 as f64;
            let u = cantelli_size(n0, th.lambda, th.nu, th.sigma, 0.0);
            if sum + u <= p.capacity {
                sum += u;
                // `as u64` saturates (an infinite lifetime never leaves)
                let stay = (a.max_life / p.month_hours).floor() as u64;
                live.push(Live {
                    n0,
                    lambda: th.lambda,
                    nu: th.nu,
                    sigma: th.sigma,
                    born: m,
                    last: m.saturating_add(stay),
                });
            }
        }
        bm = bm.max(sum / p.capacity);
    }
    bm
}

/// Bucket bounds from pre-draw BMs (§2.9 step 2): the lower empirical quantiles at [`SPLIT_QUANTILES`],
/// `sorted[⌈q·N⌉ − 1]`, so that without ties exactly ⌈0.9·N⌉ pre-draws fall in bucket 1 (BM ≤ bound 0).
/// Bucket 1 is BM ≤ b0, bucket 2 is b0 < BM ≤ b1, bucket 3 is BM > b1. Empty input gives (+∞, +∞).
pub fn split_bounds(bm: &[f64]) -> [f64; 2] {
    if bm.is_empty() {
        return [f64::INFINITY; 2];
    }
    let mut s = bm.to_vec();
    crate::substrate::stats::sort_f64(&mut s);
    let n = s.len();
    SPLIT_QUANTILES.map(|q| s[((q * n as f64).ceil() as usize).clamp(1, n) - 1])
}

/// Bucket (0-based) of a BM value by the bounds alone (NaN counts as the top bucket).
pub fn natural_bucket(bm: f64, bounds: &[f64; 2]) -> usize {
    if bm <= bounds[0] {
        0
    } else if bm <= bounds[1] {
        1
    } else {
        2
    }
}

/// Bucket (0-based) used by the sampler: the natural bucket, moved down to the nearest bucket with a positive
/// nominal probability. An empty bucket can only be the top one (BM above every pre-draw, so its range held no
/// pre-draw) or one whose BM range is empty (tied bounds); merging it into the next lower non-empty bucket
/// keeps every candidate sampleable with a finite weight.
pub fn bucket_of(bm: f64, bounds: &[f64; 2], probs: &[f64]) -> usize {
    let mut b = natural_bucket(bm, bounds);
    while b > 0 && probs[b] <= 0.0 {
        b -= 1;
    }
    b
}

/// Acceptance law of the rejection scheme (ALGORITHMS.md §2.9 step 4): `a[j][i]` = A_j(i), the probability
/// that the accepted run is in bucket i when the floor is j (0-based), for i ≥ j (0 below):
/// `A_j(i) = [P_i(1−ρ_i) + Σ_{k=j+1}^{i} P_k ρ_k A_k(i)] / (T_j − P_j ρ_j)`, `T_j = Σ_{l≥j} P_l`.
/// A zero denominator (no non-empty bucket at or above j that is ever accepted) gives 0.
/// `p` need not be normalised; `rho` has the same length.
pub fn acceptance_matrix(p: &[f64], rho: &[f64]) -> Vec<Vec<f64>> {
    let k = p.len();
    assert_eq!(rho.len(), k, "one ρ per bucket");
    let mut t = vec![0.0; k + 1];
    for j in (0..k).rev() {
        t[j] = t[j + 1] + p[j];
    }
    let mut a = vec![vec![0.0; k]; k];
    for j in (0..k).rev() {
        let den = t[j] - p[j] * rho[j];
        for i in j..k {
            let mut num = p[i] * (1.0 - rho[i]);
            for l in j + 1..=i {
                num += p[l] * rho[l] * a[l][i];
            }
            a[j][i] = if den > 0.0 { num / den } else { 0.0 };
        }
    }
    a
}

/// A_1(i) for every bucket i: the importance distribution over buckets (floor at the lowest bucket).
pub fn acceptance(p: &[f64], rho: &[f64]) -> Vec<f64> {
    acceptance_matrix(p, rho).swap_remove(0)
}

/// Per-bucket weights `P_i / A_1(i)` (0 for a bucket that is never accepted).
pub fn bucket_weights(p: &[f64], a1: &[f64]) -> Vec<f64> {
    p.iter()
        .zip(a1)
        .map(|(p, a)| if *a > 0.0 { p / a } else { 0.0 })
        .collect()
}

/// Target bucket masses (§2.9 step 5): `Q_i = (1 − mix)·P_i g_i / Σ_k P_k g_k + mix·P_i` (Kahn–Marshall at
/// the bucket level, mixed with the nominal distribution). Falls back to `Q = P` when `Σ P·g` is not
/// positive and finite (e.g. no pilot run failed). Negative or non-finite g count as 0.
pub fn target_masses(p: &[f64], g: &[f64], mix: f64) -> Vec<f64> {
    let gg: Vec<f64> = g
        .iter()
        .map(|x| if x.is_finite() && *x > 0.0 { *x } else { 0.0 })
        .collect();
    let z: f64 = p.iter().zip(&gg).map(|(p, g)| p * g).sum();
    if !(z > 0.0 && z.is_finite()) {
        return p.to_vec();
    }
    p.iter()
        .zip(&gg)
        .map(|(p, g)| (1.0 - mix) * p * g / z + mix * p)
        .collect()
}

/// Rejection probabilities that make `A_1(i) = Q_i` (§2.9 step 5), bucket by bucket: ρ_1 in closed form
/// `(P_1 − Q_1)/(P_1(1 − Q_1))`, then ρ_i for i ≥ 2 by bisection on [0, 1) with ρ_1 … ρ_{i−1} fixed (A_1(i) is
/// decreasing in ρ_i and does not depend on ρ_{i+1}, …). The top non-empty bucket has ρ = 0 and gets the
/// remaining mass; empty buckets get ρ = 0. A target that rejection cannot reach (Q_i above what ρ_i = 0
/// gives: rejections only move mass upwards) gets ρ_i = 0; the achieved masses are [`acceptance`] of the
/// result. `p` is normalised internally; `q` should sum to 1.
pub fn solve_rho(p: &[f64], q: &[f64]) -> Vec<f64> {
    let k = p.len();
    let mut rho = vec![0.0; k];
    let tot: f64 = p.iter().sum();
    if !(tot > 0.0 && tot.is_finite()) {
        return rho;
    }
    let p: Vec<f64> = p.iter().map(|x| x / tot).collect();
    let Some(top) = (0..k).rev().find(|&i| p[i] > 0.0) else {
        return rho;
    };
    for i in 0..top {
        if p[i] <= 0.0 || !q[i].is_finite() {
            continue;
        }
        if i == 0 {
            rho[0] = if q[0] < 1.0 {
                ((p[0] - q[0]) / (p[0] * (1.0 - q[0]))).clamp(0.0, RHO_MAX)
            } else {
                0.0
            };
            continue;
        }
        let f = |r: f64, rho: &mut Vec<f64>| {
            rho[i] = r;
            acceptance(&p, rho)[i]
        };
        if f(0.0, &mut rho) <= q[i] {
            rho[i] = 0.0;
            continue;
        }
        if f(RHO_MAX, &mut rho) >= q[i] {
            rho[i] = RHO_MAX;
            continue;
        }
        let (mut lo, mut hi) = (0.0, RHO_MAX);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if f(mid, &mut rho) > q[i] {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo < 1e-15 {
                break;
            }
        }
        rho[i] = 0.5 * (lo + hi);
    }
    rho
}

/// The rejection scheme of §2.9 step 3, until one candidate is accepted. `next()` draws a fresh candidate and
/// returns it with its bucket (0-based); `coin` gives the uniforms of the redraw decisions (one per
/// candidate at or above the floor). The floor starts at the lowest bucket for every accepted run, so the
/// accepted runs are i.i.d. with bucket law A_1(·). Returns (candidate, bucket, candidates drawn), or None
/// after `max_draws` candidates without acceptance. `rho` of the top non-empty bucket must be 0.
pub fn rejection_accept<T, R: rand::Rng>(
    rho: &[f64],
    coin: &mut R,
    max_draws: usize,
    mut next: impl FnMut() -> (T, usize),
) -> Option<(T, usize, usize)> {
    let mut floor = 0usize;
    let mut draws = 0usize;
    while draws < max_draws {
        let (item, b) = next();
        draws += 1;
        if b < floor {
            continue;
        }
        if coin.random::<f64>() < rho[b] {
            floor = b;
            continue;
        }
        return Some((item, b, draws));
    }
    None
}

/// Weighted pooled failure rate `Σ w·fail / Σ w·req` (§2.9 step 6, §2.10); 0 without requests.
pub fn weighted_failure_rate(runs: &[RunResult], w: &[f64]) -> f64 {
    let req: f64 = runs.iter().zip(w).map(|(x, w)| w * x.requests as f64).sum();
    let fail: f64 = runs.iter().zip(w).map(|(x, w)| w * x.failures as f64).sum();
    if req > 0.0 {
        fail / req
    } else {
        0.0
    }
}

/// Diagnostics of an [`ImportancePlan`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportanceDiagnostics {
    /// Pre-draws N_pre.
    pub pre_draws: usize,
    /// Pre-draws per bucket (natural buckets).
    pub pre_draw_counts: [usize; BUCKETS],
    /// Binomial standard errors `sqrt(P_i(1−P_i)/N_pre)` of the estimated P_i.
    pub p_se: [f64; BUCKETS],
    /// Smallest BM over the pre-draws.
    pub bm_min: f64,
    /// Mean BM over the pre-draws.
    pub bm_mean: f64,
    /// Largest BM over the pre-draws.
    pub bm_max: f64,
    /// Pilot policy threshold (SECOND, in the parametrisation of `second_param`).
    pub pilot_threshold: f64,
    /// Pilot runs per bucket (fewer than asked if the extra draws did not find enough seeds of a bucket).
    pub pilot_runs: [usize; BUCKETS],
    /// Extra badness draws made (beyond the pre-draws) to find pilot seeds.
    pub pilot_extra_draws: usize,
    /// g_i: mean failed scale-outs per pilot run of bucket i (the quantity the ρ are fitted to).
    pub pilot_failures_per_run: [f64; BUCKETS],
    /// Pooled failure rate of the pilot runs of bucket i (failures / requests; information only).
    pub pilot_failure_rate: [f64; BUCKETS],
    /// True if every g_i was 0 (or no pilots ran): the plan fell back to the nominal distribution (ρ = 0).
    pub nominal_fallback: bool,
    /// Candidate runs drawn by the rejection scheme for the R accepted runs.
    pub candidates: usize,
    /// Kish effective sample size of the accepted runs' weights.
    pub effective_sample_size: f64,
}

/// Run seeds drawn by importance sampling with their weights (ALGORITHMS.md §2.9), shared by every threshold
/// of a tuning (common random numbers) and by every arm of a preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportancePlan {
    /// Accepted run seeds (pass to `simulate_run`), in acceptance order.
    pub seeds: Vec<u64>,
    /// Weight `P_b / A_1(b)` of each run.
    pub weights: Vec<f64>,
    /// Bucket (0-based) of each run.
    pub buckets: Vec<usize>,
    /// BM of each run.
    pub badness: Vec<f64>,
    /// Bucket bounds on BM (bucket 1: BM ≤ bounds[0]; bucket 2: ≤ bounds[1]; bucket 3: above).
    pub bounds: [f64; 2],
    /// Nominal bucket probabilities P_i (pre-draw frequencies).
    pub p: [f64; BUCKETS],
    /// Target masses Q_i (after mixing with P).
    pub q: [f64; BUCKETS],
    /// Rejection probabilities ρ_i.
    pub rho: [f64; BUCKETS],
    /// Achieved importance masses A_1(i).
    pub accept: [f64; BUCKETS],
    /// Per-bucket weights P_i / A_1(i).
    pub bucket_weights: [f64; BUCKETS],
    /// Diagnostics (pre-draws, pilots, candidates, ESS).
    pub diagnostics: ImportanceDiagnostics,
}

/// The parameters an importance plan is built from: `p` with what does not change the arrivals and is not
/// the pilot's business normalised (pseudo-observations m = 0, labelled/unlabelled both "labelled" (same
/// true types), no time series, importance sampling itself off). Every arm of a preset (E0.2/E0.3 vary m,
/// E0.4 varies labelled/unlabelled) therefore gets the same plan whether it is tuned alone or in the preset.
pub fn plan_params(p: &AdmitParams) -> AdmitParams {
    let mut q = p.clone();
    q.pseudo_obs = 0;
    if q.labelling == Labelling::Unlabelled {
        q.labelling = Labelling::Labelled;
    }
    q.series_every_hours = 0.0;
    q.importance = Default::default();
    q
}

/// Threshold of the pilot SECOND policy: `p.importance.pilot_threshold`, or the first point of SECOND's
/// binary search ([`ThresholdSearch::midpoint`], §2.8: the log10-midpoint of [1e−8, 1] = 1e−4 for the
/// ratio form, C for the cores form).
pub fn pilot_threshold(p: &AdmitParams) -> f64 {
    if let Some(t) = p.importance.pilot_threshold {
        return t;
    }
    ThresholdSearch::new(p, PolicyKind::Second).midpoint()
}

/// Simulation runs the setup of [`build_plan`] plans (the pilot runs): `BUCKETS · pilot_runs_per_bucket`
/// when enabled, else 0. Fewer may run (empty buckets, too few seeds of a bucket found).
pub fn planned_pilot_runs(p: &AdmitParams) -> usize {
    if p.importance.enabled {
        BUCKETS * p.importance.pilot_runs_per_bucket
    } else {
        0
    }
}

fn check(progress: &mut dyn FnMut(usize, usize) -> bool, d: usize, t: usize) -> Result<(), String> {
    if progress(d, t) {
        Ok(())
    } else {
        Err("cancelled".into())
    }
}

/// Build the importance-sampling plan of ALGORITHMS.md §2.9 for R = `runs` runs with master seed `seed`
/// (parameters `p`, see [`plan_params`]; `p.importance` gives N_pre, the pilot count and threshold, and the
/// mix; `enabled` itself is not looked at). Deterministic for given (p, runs, seed).
///
/// Steps: (1) BM of N_pre pre-draw seeds; (2) bucket bounds at the 90%/99% quantiles, P_i; (3) pilot seeds per
/// bucket, the pre-draws first, then extra draws (at most [`PILOT_EXTRA_FACTOR`]·N_pre) until every non-empty
/// bucket has `pilot_runs_per_bucket`; pilot runs are real [`simulate_run`] calls with SECOND (no MARGINAL) at
/// [`pilot_threshold`]; g_i = mean *failure count* per pilot run; (4) `Q` by [`target_masses`], `ρ` by
/// [`solve_rho`]; (5) R runs accepted by [`rejection_accept`] from fresh candidate seeds, weight `P_b/A_1(b)`.
///
/// Why g is the failure count and not the per-run failure rate: the tuned quantity is the pooled ratio
/// `Σ w·fail / Σ w·req`, whose variance is that of its numerator `Σ w·fail` (requests per run vary little,
/// and are not rare). The Kahn–Marshall optimum for that sum is q ∝ p·fail, so `g_i = E[fail | i]`; the
/// per-run rate would also give weight to runs that have few requests, which contribute little to the pooled
/// ratio. (The paper says "scale-out failure probability"; at similar request counts per run the two rank
/// buckets the same way. The variance-optimal bucket masses for a g that varies inside buckets would be
/// ∝ P_i·sqrt(E[fail²|i]); §2.9 uses E[fail|i].)
///
/// `progress` sees (pilot runs done, [`planned_pilot_runs`]) and is also polled (with the same count) during
/// the badness draws; returning false cancels (error "cancelled"). Errors: `runs == 0`, invalid parameters,
/// a rejection scheme that does not accept within [`MAX_CANDIDATES_PER_RUN`] draws.
pub fn build_plan(
    p: &AdmitParams,
    runs: usize,
    seed: u64,
    cache: &mut SimCache,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<ImportancePlan, String> {
    if runs == 0 {
        return Err("runs must be ≥ 1".into());
    }
    p.validate()?;
    let cfg = p.importance.clone();
    let pp = plan_params(p);
    let n_pre = cfg.pre_draws.max(1);
    let planned = BUCKETS * cfg.pilot_runs_per_bucket;
    let mut done = 0usize;
    check(progress, done, planned)?;

    // (1)–(2) pre-draws, bounds, nominal probabilities
    let mut pre_rng = stream(seed, comp::IMPORTANCE, PHASE_PRE);
    let mut pre: Vec<(u64, f64)> = Vec::with_capacity(n_pre);
    for i in 0..n_pre {
        let s = pre_rng.random::<u64>();
        pre.push((s, badness(&pp, s)));
        if i % 256 == 255 {
            check(progress, done, planned)?;
        }
    }
    let bms: Vec<f64> = pre.iter().map(|x| x.1).collect();
    let bounds = split_bounds(&bms);
    let mut counts = [0usize; BUCKETS];
    for &b in &bms {
        counts[natural_bucket(b, &bounds)] += 1;
    }
    let probs: [f64; BUCKETS] = counts.map(|c| c as f64 / n_pre as f64);
    let p_se = probs.map(|q| (q * (1.0 - q) / n_pre as f64).sqrt());

    // (3) pilot seeds and runs
    let need = cfg.pilot_runs_per_bucket;
    let mut pilot_seeds: [Vec<u64>; BUCKETS] = Default::default();
    for &(s, b) in &pre {
        let k = bucket_of(b, &bounds, &probs);
        if pilot_seeds[k].len() < need {
            pilot_seeds[k].push(s);
        }
    }
    let lacking =
        |ps: &[Vec<u64>; BUCKETS]| (0..BUCKETS).any(|k| probs[k] > 0.0 && ps[k].len() < need);
    let mut extra = 0usize;
    let mut pilot_rng = stream(seed, comp::IMPORTANCE, PHASE_PILOT);
    while lacking(&pilot_seeds) && extra < PILOT_EXTRA_FACTOR * n_pre {
        let s = pilot_rng.random::<u64>();
        let k = bucket_of(badness(&pp, s), &bounds, &probs);
        if pilot_seeds[k].len() < need {
            pilot_seeds[k].push(s);
        }
        extra += 1;
        if extra % 256 == 0 {
            check(progress, done, planned)?;
        }
    }
    let pilot_th = pilot_threshold(p);
    let spec = PolicySpec {
        kind: PolicyKind::Second,
        threshold: pilot_th,
        marginal: false,
    };
    let grid = lead_grid(&pp);
    let mut g = [0.0; BUCKETS];
    let mut g_rate = [0.0; BUCKETS];
    let mut n_pilot = [0usize; BUCKETS];
    for k in 0..BUCKETS {
        let (mut fail, mut req) = (0u64, 0u64);
        for &s in &pilot_seeds[k] {
            let r = simulate_run(&pp, spec, s, &grid, cache);
            fail += r.failures;
            req += r.requests;
            n_pilot[k] += 1;
            done += 1;
            check(progress, done, planned)?;
        }
        if n_pilot[k] > 0 {
            g[k] = fail as f64 / n_pilot[k] as f64;
        }
        if req > 0 {
            g_rate[k] = fail as f64 / req as f64;
        }
    }
    if done < planned {
        // report the setup's share of the progress as complete
        check(progress, planned, planned)?;
    }

    // (4) targets and rejection probabilities
    let q = target_masses(&probs, &g, cfg.mix);
    let fallback = q == probs.to_vec();
    let rho = solve_rho(&probs, &q);
    let a1 = acceptance(&probs, &rho);
    let bw = bucket_weights(&probs, &a1);

    // (5) the R accepted runs
    let mut cand_rng = stream(seed, comp::IMPORTANCE, PHASE_CANDIDATE);
    let mut coin = stream(seed, comp::IMPORTANCE, PHASE_COIN);
    let mut seeds = Vec::with_capacity(runs);
    let mut weights = Vec::with_capacity(runs);
    let mut buckets = Vec::with_capacity(runs);
    let mut badness_v = Vec::with_capacity(runs);
    let mut candidates = 0usize;
    for _ in 0..runs {
        let (item, b, d) = rejection_accept(&rho, &mut coin, MAX_CANDIDATES_PER_RUN, || {
            let s = cand_rng.random::<u64>();
            let bm = badness(&pp, s);
            ((s, bm), bucket_of(bm, &bounds, &probs))
        })
        .ok_or_else(|| {
            format!(
                "importance sampling: no run accepted in {MAX_CANDIDATES_PER_RUN} candidate draws \
                 (P = {probs:?}, ρ = {rho:?})"
            )
        })?;
        candidates += d;
        seeds.push(item.0);
        badness_v.push(item.1);
        buckets.push(b);
        weights.push(bw[b]);
        check(progress, planned, planned)?;
    }
    let to3 = |v: &[f64]| [v[0], v[1], v[2]];
    let ess = kish_ess(&weights);
    Ok(ImportancePlan {
        seeds,
        weights,
        buckets,
        badness: badness_v,
        bounds,
        p: probs,
        q: to3(&q),
        rho: to3(&rho),
        accept: to3(&a1),
        bucket_weights: to3(&bw),
        diagnostics: ImportanceDiagnostics {
            pre_draws: n_pre,
            pre_draw_counts: counts,
            p_se,
            bm_min: bms.iter().cloned().fold(f64::INFINITY, f64::min),
            bm_mean: bms.iter().sum::<f64>() / n_pre as f64,
            bm_max: bms.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            pilot_threshold: pilot_th,
            pilot_runs: n_pilot,
            pilot_extra_draws: extra,
            pilot_failures_per_run: g,
            pilot_failure_rate: g_rate,
            nominal_fallback: fallback,
            candidates,
            effective_sample_size: ess,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: [f64; 3] = [0.90, 0.08, 0.02];
    const RHO: [f64; 3] = [0.7, 0.3, 0.0];

    /// ALGORITHMS.md App. A.4, row "Importance-sampling acceptance recursion".
    #[test]
    fn acceptance_recursion_matches_appendix_a4() {
        let a1 = acceptance(&P, &RHO);
        let r5 = |x: f64| (x * 1e5).round() / 1e5;
        assert_eq!(
            a1.iter().map(|x| r5(*x)).collect::<Vec<_>>(),
            vec![0.72973, 0.19915, 0.07112]
        );
        let w = bucket_weights(&P, &a1);
        let r3 = |x: f64| (x * 1e3).round() / 1e3;
        assert_eq!(
            w.iter().map(|x| r3(*x)).collect::<Vec<_>>(),
            vec![1.233, 0.402, 0.281]
        );
        assert!((a1.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        // by hand: A_1(1) = 0.27/0.37, A_2(2) = 0.056/0.076, A_3(3) = 1
        let a = acceptance_matrix(&P, &RHO);
        assert!((a[0][0] - 0.27 / 0.37).abs() < 1e-15);
        assert!((a[1][1] - 0.056 / 0.076).abs() < 1e-15);
        assert!((a[2][2] - 1.0).abs() < 1e-15);
        assert_eq!(a[1][0], 0.0);
    }

    /// The rejection scheme, simulated with 4·10⁵ accepted draws, has the bucket law A_1 (App. A.4 did the
    /// same in Python: (0.72945, 0.19944, 0.07111)); tolerance 4 binomial standard errors.
    #[test]
    fn rejection_scheme_simulation_matches_recursion() {
        let a1 = acceptance(&P, &RHO);
        let mut coin = stream(11, comp::IMPORTANCE, 99);
        let mut src = stream(12, comp::IMPORTANCE, 98);
        let n = 400_000;
        let mut counts = [0usize; 3];
        let mut draws = 0usize;
        for _ in 0..n {
            let (_, b, d) = rejection_accept(&RHO, &mut coin, 1000, || {
                let u = src.random::<f64>();
                let b = if u < P[0] {
                    0
                } else if u < P[0] + P[1] {
                    1
                } else {
                    2
                };
                ((), b)
            })
            .unwrap();
            counts[b] += 1;
            draws += d;
        }
        for i in 0..3 {
            let f = counts[i] as f64 / n as f64;
            let se = (a1[i] * (1.0 - a1[i]) / n as f64).sqrt();
            assert!(
                (f - a1[i]).abs() < 4.0 * se,
                "bucket {i}: simulated {f} vs A_1 {} ± {se}",
                a1[i]
            );
        }
        // the weighted bucket frequencies recover P (the importance identity)
        let w = bucket_weights(&P, &a1);
        for i in 0..3 {
            let est = w[i] * counts[i] as f64 / n as f64;
            let se = w[i] * (a1[i] * (1.0 - a1[i]) / n as f64).sqrt();
            assert!(
                (est - P[i]).abs() < 4.0 * se,
                "bucket {i}: {est} vs {}",
                P[i]
            );
        }
        assert!(draws > n);
    }

    #[test]
    fn solve_rho_reaches_targets_and_closed_form() {
        // A.4 backwards: the masses A_1 of ρ = (0.7, 0.3, 0) give back that ρ
        let q = acceptance(&P, &RHO);
        let rho = solve_rho(&P, &q);
        assert!(
            (rho[0] - 0.7).abs() < 1e-12 && (rho[1] - 0.3).abs() < 1e-9 && rho[2] == 0.0,
            "{rho:?}"
        );
        // closed form ρ_1 = (P_1 − Q_1)/(P_1(1 − Q_1)), and every target reached
        let q = target_masses(&P, &[0.0, 2.0, 30.0], 0.5);
        assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let rho = solve_rho(&P, &q);
        assert!((rho[0] - (P[0] - q[0]) / (P[0] * (1.0 - q[0]))).abs() < 1e-15);
        let a = acceptance(&P, &rho);
        for i in 0..3 {
            assert!((a[i] - q[i]).abs() < 1e-9, "{a:?} vs {q:?}");
        }
        // mixing with P bounds every weight by 1/mix
        let w = bucket_weights(&P, &a);
        assert!(w.iter().all(|w| *w <= 2.0 + 1e-9), "{w:?}");
    }

    #[test]
    fn degenerate_targets_and_buckets_do_not_panic() {
        // all g = 0: nominal (ρ = 0, weights 1)
        let q = target_masses(&P, &[0.0, 0.0, 0.0], 0.5);
        assert_eq!(q, P.to_vec());
        let rho = solve_rho(&P, &q);
        assert_eq!(rho, vec![0.0; 3]);
        assert!(bucket_weights(&P, &acceptance(&P, &rho))
            .iter()
            .all(|w| (w - 1.0).abs() < 1e-12));
        // NaN / negative g are ignored
        assert_eq!(target_masses(&P, &[f64::NAN, -1.0, 0.0], 0.5), P.to_vec());
        // an empty middle bucket, an empty top bucket, a single bucket, nothing
        for p in [
            [0.99, 0.0, 0.01],
            [0.9, 0.1, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
        ] {
            let q = target_masses(&p, &[1.0, 5.0, 50.0], 0.5);
            let rho = solve_rho(&p, &q);
            let a = acceptance(&p, &rho);
            if let Some(t) = (0..3).rev().find(|&i| p[i] > 0.0) {
                assert_eq!(rho[t], 0.0);
                assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?} {a:?}");
                for i in 0..3 {
                    assert_eq!(a[i] > 0.0, p[i] > 0.0, "{p:?} {a:?}");
                }
            }
            assert!(rho.iter().all(|r| (0.0..1.0).contains(r)));
        }
        // a target above what rejection allows for bucket 1 (failures concentrated there): ρ_1 = 0
        let q = target_masses(&P, &[100.0, 0.0, 0.0], 0.5);
        assert!(q[0] > P[0]);
        assert_eq!(solve_rho(&P, &q)[0], 0.0);
        // bounds: ties and tiny samples
        assert_eq!(split_bounds(&[1.0; 10]), [1.0, 1.0]);
        assert_eq!(split_bounds(&[3.0]), [3.0, 3.0]);
        assert_eq!(bucket_of(5.0, &[1.0, 1.0], &[1.0, 0.0, 0.0]), 0);
        let b = split_bounds(&(0..1000).map(|i| i as f64).collect::<Vec<_>>());
        assert_eq!(b, [899.0, 989.0]);
    }

    #[test]
    fn badness_is_deterministic_and_reacts_to_arrivals() {
        let mut p = AdmitParams::default();
        p.capacity = 200.0;
        p.arrival_rate = 0.05;
        p.horizon_hours = 4000.0;
        let a = badness(&p, 5);
        assert_eq!(a.to_bits(), badness(&p, 5).to_bits());
        assert!(a > 0.0 && a.is_finite());
        // by hand: age 0 gives n0; the Cantelli bound grows with age
        assert_eq!(cantelli_size(3.0, 0.1, 2.0, 1.0, 0.0), 3.0);
        assert!(cantelli_size(3.0, 0.1, 2.0, 1.0, 10.0) > 3.0);
        // with no arrivals BM = 0
        p.arrival_rate = 1e-6;
        assert_eq!(badness(&p, 5), 0.0);
        // sketch shape: 730 arrivals per month, 36 months at the defaults
        assert_eq!(sketch_shape(&AdmitParams::default()), (36, 730));
    }

    #[test]
    fn weighted_estimators() {
        let run = |u: f64, req: u64, fail: u64| RunResult {
            utilization: u,
            requests: req,
            failures: fail,
            ..Default::default()
        };
        let runs = vec![run(0.5, 100, 0), run(0.7, 200, 10)];
        assert_eq!(weighted_failure_rate(&runs, &[1.0, 1.0]), 10.0 / 300.0);
        assert_eq!(weighted_failure_rate(&runs, &[3.0, 1.0]), 10.0 / 500.0);
        assert_eq!(weighted_utilization(&runs, &[3.0, 1.0]), (1.5 + 0.7) / 4.0);
        assert_eq!(weighted_utilization(&[], &[]), 0.0);
        assert_eq!(kish_ess(&[1.0; 7]), 7.0);
        assert_eq!(kish_ess(&[2.0, 0.0]), 1.0);
    }
}
