//! Model metrics of a lifetime predictor (seed 003 §6.4, §6.5, App. B, C; ALGORITHMS.md §5.8, E3.6 of §5.9) on
//! the VMs of a split:
//!
//! - **long-lived class** at a cutoff `c` hours: a VM is long if `T > c`. Its label is known when the exit was
//!   observed, or when a right-censored VM's age at the end already exceeds `c`; other censored VMs are left
//!   out. Predicted long iff the first prediction `L̂ > c`. Precision, recall and F1 of the long class. The
//!   paper's 168 h cannot be observed in the 5.7-day Azure window (nor learned from the 3.5-day training
//!   split), so the cutoff is a parameter (1 day in the stored results);
//! - **C-index** (Harrell's, censoring-aware): over the pairs whose order is known (the shorter observed time
//!   is an exit, strictly shorter, or tied with a censoring), the fraction ordered the same way by `L̂`
//!   (ties in `L̂` count ½);
//! - **|log10 error|** `|log10 L̂ − log10 T|` on the VMs with an observed exit (App. C), both floored at one
//!   lattice step (5 min, the data's resolution: the bin "0 s" would otherwise be −∞): median and mean;
//! - **F1 by uptime quantile** (§6.5, E3.6): for quantile `q = 0..19` the uptime is `u = (q/20)·T` and the
//!   prediction `u + R̂(u)` (`L̂` at `q = 0`); over the VMs with a known label, a censored long VM using its
//!   age at the end for `T` (a lower bound of its lifetime, so its uptimes are ones it did survive).

use super::hazard::STEP_H;
use super::learned::{LearnedModel, LearnedSpec};
use super::params::LifetimeParams;
use super::pool::{select, PoolJobs};
use super::predictor::{Distributional, LifetimeDist, LifetimePredictor};
use crate::experiment::RunError;
use crate::substrate::stats::{mean, percentile_sorted, sort_f64};
use crate::workload::WorkloadFacts;
use serde::Serialize;

/// Uptime quantiles of E3.6 (seed 003 §6.5: 20).
pub const UPTIME_QUANTILES: usize = 20;
/// Ages (hours) at which the learned distributions' calibration is reported.
pub const CALIBRATION_H: [f64; 5] = [1.0, 6.0, 24.0, 72.0, 120.0];

/// Calibration of the learned distributions at one age: the mean over the evaluated VMs of their predicted
/// `P(T > h)` against the Kaplan–Meier estimate of the evaluated VMs' own lifetimes (and of the training VMs').
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// Age, hours.
    pub h: f64,
    /// Mean predicted `P(T > h)` of the learned predictor.
    pub learned: f64,
    /// Kaplan–Meier `P(T > h)` of the evaluated VMs (what happened).
    pub kaplan_meier: f64,
    /// Kaplan–Meier `P(T > h)` of the training VMs (the distributional predictor's answer for every VM).
    pub training_kaplan_meier: f64,
}

/// The model metrics of one predictor (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictorMetrics {
    /// The predictor's name.
    pub predictor: String,
    /// VMs evaluated.
    pub vms: usize,
    /// Of which right-censored.
    pub censored: usize,
    /// Cutoff of the long class, hours.
    pub long_h: f64,
    /// VMs whose long/short label is known.
    pub labelled: usize,
    /// Long VMs among them.
    pub long: usize,
    /// VMs predicted long (among the labelled).
    pub predicted_long: usize,
    /// Long VMs predicted long.
    pub true_positive: usize,
    /// Precision of the long class (`None` when nothing is predicted long).
    pub precision: Option<f64>,
    /// Recall of the long class (`None` without long VMs).
    pub recall: Option<f64>,
    /// F1 of the long class (0 when precision or recall is undefined or both are 0).
    pub f1: f64,
    /// Threshold-free: the precision of the long class at the highest threshold on `L̂` whose recall reaches
    /// [`RECALL_TARGET`] (seed 003 §6.4 reports 99% precision at 70% recall for "> 7 days"; `None` without
    /// long VMs).
    pub precision_at_recall: Option<f64>,
    /// Harrell's C-index of `L̂` against the observed lifetimes (`None` without comparable pairs).
    pub c_index: Option<f64>,
    /// Comparable pairs behind the C-index.
    pub comparable_pairs: u64,
    /// Median `|log10 L̂ − log10 T|` over the VMs with an observed exit, decades.
    pub median_abs_log10_error: f64,
    /// Mean of the same, decades.
    pub mean_abs_log10_error: f64,
    /// VMs behind the error (observed exits).
    pub error_vms: usize,
    /// F1 of the long class at uptime quantile `q = 0..19`.
    pub f1_by_uptime_quantile: Vec<f64>,
}

/// Recall at which [`PredictorMetrics::precision_at_recall`] is read (seed 003 §6.4: 70%).
pub const RECALL_TARGET: f64 = 0.7;

/// The precision of the positives among `(score, positive)` at the highest threshold `t` (predicted positive
/// iff score ≥ t, so tied scores fall on the same side) whose recall reaches `recall`; `None` without
/// positives.
pub fn precision_at_recall(scored: &[(f64, bool)], recall: f64) -> Option<f64> {
    let actual = scored.iter().filter(|x| x.1).count();
    if actual == 0 {
        return None;
    }
    let mut v = scored.to_vec();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut tp, mut k) = (0usize, 0usize);
    while k < v.len() {
        // the whole group tied at this score
        let t = v[k].0;
        while k < v.len() && v[k].0.total_cmp(&t).is_eq() {
            tp += usize::from(v[k].1);
            k += 1;
        }
        if tp as f64 >= recall * actual as f64 {
            return Some(tp as f64 / k as f64);
        }
    }
    Some(tp as f64 / k as f64)
}

/// Precision, recall and F1 from counts (`None` for an undefined ratio; F1 0 then).
fn prf(tp: usize, predicted: usize, actual: usize) -> (Option<f64>, Option<f64>, f64) {
    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
    let (p, r) = (ratio(tp, predicted), ratio(tp, actual));
    let f1 = match (p, r) {
        (Some(p), Some(r)) if p + r > 0.0 => 2.0 * p * r / (p + r),
        _ => 0.0,
    };
    (p, r, f1)
}

/// Harrell's C-index of `score` (higher = predicted to live longer) against observed `time` with `event`
/// (false = right-censored), in `O(n log n)`: pair `(i, j)` is comparable when `i` is an event and
/// `time_i < time_j`, or `time_i = time_j` with `j` censored; it is concordant when `score_i < score_j` and
/// counts ½ when the scores tie. Returns the index (`None` without comparable pairs) and the pair count.
/// Slices of unequal length are cut to the shortest.
pub fn harrell_c(time: &[f64], event: &[bool], score: &[f64]) -> (Option<f64>, u64) {
    let n = time.len().min(event.len()).min(score.len());
    // score ranks (ties share a rank)
    let mut sorted: Vec<f64> = score[..n].to_vec();
    sort_f64(&mut sorted);
    sorted.dedup_by(|a, b| a.total_cmp(b).is_eq());
    let rank = |s: f64| sorted.partition_point(|x| x.total_cmp(&s).is_lt());
    // Fenwick tree of counts by score rank over the items with a longer time
    let m = sorted.len();
    let mut tree = vec![0u64; m + 1];
    let add = |tree: &mut Vec<u64>, r: usize| {
        let mut i = r + 1;
        while i <= m {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    };
    let below = |tree: &Vec<u64>, r: usize| {
        // items with rank < r
        let (mut i, mut s) = (r, 0u64);
        while i > 0 {
            s += tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| time[b].total_cmp(&time[a]).then(a.cmp(&b)));
    let (mut inserted, mut pairs, mut twice_concordant) = (0u64, 0u64, 0u64);
    let mut g = 0;
    while g < n {
        let t = time[order[g]];
        let mut e = g;
        while e < n && time[order[e]].total_cmp(&t).is_eq() {
            e += 1;
        }
        let group = &order[g..e];
        // a censoring tied with an event counts as longer: insert the group's censored items first
        for &i in group.iter().filter(|&&i| !event[i]) {
            add(&mut tree, rank(score[i]));
            inserted += 1;
        }
        for &i in group.iter().filter(|&&i| event[i]) {
            let r = rank(score[i]);
            let lower = below(&tree, r);
            let not_above = below(&tree, r + 1);
            let higher = inserted - not_above;
            let ties = not_above - lower;
            pairs += inserted;
            twice_concordant += 2 * higher + ties;
        }
        for &i in group.iter().filter(|&&i| event[i]) {
            add(&mut tree, rank(score[i]));
            inserted += 1;
        }
        g = e;
    }
    (
        (pairs > 0).then(|| twice_concordant as f64 / (2.0 * pairs as f64)),
        pairs,
    )
}

/// What was observed of each job of `pool`: `(hours, censored)`, the lifetime, or for a right-censored job its
/// age at the end of the window (a lower bound).
pub fn observed(pool: &PoolJobs) -> Vec<(f64, bool)> {
    pool.jobs
        .iter()
        .map(|j| {
            if j.censored {
                ((pool.end - j.start).max(0.0), true)
            } else {
                (j.exit - j.start, false)
            }
        })
        .collect()
}

/// The prediction of job `j` at uptime `u` hours: `L̂` at 0, else `u + R̂(u)`.
fn predicted_at(pred: &dyn LifetimePredictor, j: usize, u: f64) -> f64 {
    if u <= 0.0 {
        pred.first(j)
    } else {
        u + pred.remaining(j, u)
    }
}

/// The metrics of `pred` on the jobs of `pool` (all of a split: see [`model_metrics`]) with the long class
/// beyond `long_h` hours.
pub fn evaluate(
    pool: &PoolJobs,
    pred: &dyn LifetimePredictor,
    name: &str,
    long_h: f64,
) -> PredictorMetrics {
    let jobs = &pool.jobs;
    let obs = observed(pool);
    let time: Vec<f64> = obs.iter().map(|o| o.0).collect();
    let event: Vec<bool> = obs.iter().map(|o| !o.1).collect();
    let first: Vec<f64> = (0..jobs.len()).map(|j| pred.first(j)).collect();
    // labels: Some(long) when known
    let label: Vec<Option<bool>> = (0..jobs.len())
        .map(|j| {
            if time[j] > long_h {
                Some(true)
            } else if event[j] {
                Some(false)
            } else {
                None
            }
        })
        .collect();
    let counts = |u_of: &dyn Fn(usize) -> f64| {
        let (mut tp, mut predicted, mut actual) = (0, 0, 0);
        for (j, l) in label.iter().enumerate() {
            let Some(long) = *l else { continue };
            let p = predicted_at(pred, j, u_of(j)) > long_h;
            tp += usize::from(p && long);
            predicted += usize::from(p);
            actual += usize::from(long);
        }
        (tp, predicted, actual)
    };
    let (tp, predicted, actual) = counts(&|_| 0.0);
    let (precision, recall, f1) = prf(tp, predicted, actual);
    let scored: Vec<(f64, bool)> = label
        .iter()
        .enumerate()
        .filter_map(|(j, l)| l.map(|long| (first[j], long)))
        .collect();
    let precision_at_recall = precision_at_recall(&scored, RECALL_TARGET);
    let f1_by_uptime_quantile = (0..UPTIME_QUANTILES)
        .map(|q| {
            let (tp, pr, ac) = counts(&|j| q as f64 / UPTIME_QUANTILES as f64 * time[j]);
            prf(tp, pr, ac).2
        })
        .collect();
    let (c_index, comparable_pairs) = harrell_c(&time, &event, &first);
    let mut err: Vec<f64> = (0..jobs.len())
        .filter(|&j| event[j])
        .map(|j| (libm::log10(first[j].max(STEP_H)) - libm::log10(time[j].max(STEP_H))).abs())
        .collect();
    sort_f64(&mut err);
    PredictorMetrics {
        predictor: name.to_string(),
        vms: jobs.len(),
        censored: event.iter().filter(|&&e| !e).count(),
        long_h,
        labelled: label.iter().filter(|l| l.is_some()).count(),
        long: actual,
        predicted_long: predicted,
        true_positive: tp,
        precision,
        recall,
        f1,
        precision_at_recall,
        c_index,
        comparable_pairs,
        median_abs_log10_error: percentile_sorted(&err, 50.0),
        mean_abs_log10_error: mean(&err),
        error_vms: err.len(),
        f1_by_uptime_quantile,
    }
}

/// The model metrics of the learned and the Kaplan–Meier (distributional) predictors on one split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelMetricsReport {
    /// Workload name.
    pub workload: String,
    /// The split evaluated (every VM of it, no pool share).
    pub split: String,
    /// Training VMs (the workload's VMs outside the split).
    pub training_vms: usize,
    /// Feature groups the learned model used.
    pub features: Vec<String>,
    /// Segments of its feature effects: upper bounds, hours (empty = one segment, proportional hazards).
    pub segment_bounds_h: Vec<f64>,
    /// The learned model's fit.
    pub fit: super::hazard::FitInfo,
    /// Distinct feature combinations (= distributions) among the evaluated VMs.
    pub learned_distributions: usize,
    /// Cutoff of the long class, hours.
    pub long_h: f64,
    /// The learned predictor's metrics.
    pub learned: PredictorMetrics,
    /// The feature-free Kaplan–Meier predictor's metrics (the baseline).
    pub distributional: PredictorMetrics,
    /// Calibration of the learned distributions at [`CALIBRATION_H`].
    pub calibration: Vec<Calibration>,
}

/// Trains the learned predictor (`spec`) on the VMs outside `params.split` and evaluates it and the
/// Kaplan–Meier predictor on every VM of the split (the pool share and the pool size do not apply).
/// `phase` is told when each phase ends (`"prepared"`, `"trained"`, `"evaluated"`), e.g. to time them.
/// Errors: as [`select`] and [`LearnedModel::train`]; a cutoff that is not a positive number (naming
/// `long_h`).
pub fn model_metrics(
    w: &WorkloadFacts,
    params: &LifetimeParams,
    long_h: f64,
    spec: &LearnedSpec,
    phase: &mut dyn FnMut(&'static str),
) -> Result<ModelMetricsReport, RunError> {
    if let Some(e) = params.validate("lifetime.").into_iter().next() {
        return Err(e.into());
    }
    if !(long_h.is_finite() && long_h > 0.0) {
        return Err(RunError::field(
            "long_h",
            format!("the long-class cutoff must be a positive number of hours, got {long_h}"),
        ));
    }
    let all = LifetimeParams {
        share: 1.0,
        hosts: 1,
        ..params.clone()
    };
    let pool = select(w, &all, 0)?;
    let feats = super::features::extract(w);
    phase("prepared");
    let model = LearnedModel::train(w, &feats, &pool.training, spec)?;
    phase("trained");
    let learned = model.predictor(&feats, &pool.vms);
    let km = Distributional::new(pool.dist.clone());
    let own = LifetimeDist::kaplan_meier(&observed(&pool));
    let n = pool.jobs.len().max(1) as f64;
    let calibration = CALIBRATION_H
        .iter()
        .map(|&h| Calibration {
            h,
            learned: (0..pool.jobs.len())
                .map(|j| learned.survival(j, h))
                .sum::<f64>()
                / n,
            kaplan_meier: own.as_ref().map_or(0.0, |d| d.survival(h)),
            training_kaplan_meier: pool.dist.survival(h),
        })
        .collect();
    let report = ModelMetricsReport {
        workload: w.name.clone(),
        split: params.split.clone(),
        training_vms: pool.training.len(),
        features: super::features::GROUP_NAMES
            .iter()
            .zip(spec.groups)
            .filter(|(_, on)| *on)
            .map(|(n, _)| n.to_string())
            .collect(),
        segment_bounds_h: spec
            .hazard
            .segment_bounds
            .iter()
            .map(|&b| b as f64 * STEP_H)
            .collect(),
        fit: model.info().clone(),
        learned_distributions: learned.distributions(),
        long_h,
        learned: evaluate(&pool, &learned, "learned", long_h),
        distributional: evaluate(&pool, &km, "distributional", long_h),
        calibration,
    };
    phase("evaluated");
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Harrell's C by brute force over all pairs (the definition), for the fast version.
    fn brute(time: &[f64], event: &[bool], score: &[f64]) -> (f64, u64) {
        let (mut pairs, mut conc) = (0u64, 0.0);
        for i in 0..time.len() {
            for j in 0..time.len() {
                if i == j || !event[i] {
                    continue;
                }
                if time[i] < time[j] || (time[i] == time[j] && !event[j]) {
                    pairs += 1;
                    conc += if score[i] < score[j] {
                        1.0
                    } else if score[i] == score[j] {
                        0.5
                    } else {
                        0.0
                    };
                }
            }
        }
        (conc / pairs as f64, pairs)
    }

    #[test]
    fn c_index_by_hand() {
        // times 1, 2, 3 (censored), 4; scores 1, 3, 2, 4.
        // comparable pairs (event first): (1,2) (1,3c) (1,4) (2,3c) (2,4); 3 is censored, so not (3,4).
        // concordant: (1,2) 1<3 yes; (1,3) 1<2 yes; (1,4) yes; (2,3) 3<2 no; (2,4) 3<4 yes → 4/5
        let (c, n) = harrell_c(
            &[1.0, 2.0, 3.0, 4.0],
            &[true, true, false, true],
            &[1.0, 3.0, 2.0, 4.0],
        );
        assert_eq!(n, 5);
        assert!((c.unwrap() - 0.8).abs() < 1e-15);
        // tied scores count ½; a censoring tied with an event is longer; tied events are not comparable
        // pairs: (a=1 ev, b=1 cens) tie in score → ½; (a, c=2) score 5 vs 5 → ½; (b is censored);
        // (a, d=1 ev) tied events → not comparable; (d, b) ½ ... d score 1 vs b 5 → 1; (d, c) 1 vs 5 → 1
        let (c, n) = harrell_c(
            &[1.0, 1.0, 2.0, 1.0],
            &[true, false, true, true],
            &[5.0, 5.0, 5.0, 1.0],
        );
        assert_eq!(n, 4);
        assert!((c.unwrap() - 3.0 / 4.0).abs() < 1e-15);
        // a constant predictor scores ½; nothing comparable → None
        let (c, _) = harrell_c(&[1.0, 2.0, 3.0], &[true, true, true], &[7.0; 3]);
        assert_eq!(c, Some(0.5));
        assert_eq!(
            harrell_c(&[1.0, 2.0], &[false, false], &[1.0, 2.0]),
            (None, 0)
        );
        assert_eq!(harrell_c(&[], &[], &[]), (None, 0));
    }

    #[test]
    fn c_index_matches_the_definition_on_random_data() {
        use rand::RngExt;
        let mut r = crate::substrate::rng::stream(5, 3, 0);
        let n = 300;
        let time: Vec<f64> = (0..n).map(|_| (r.random::<f64>() * 20.0).floor()).collect();
        let event: Vec<bool> = (0..n).map(|_| r.random::<f64>() < 0.7).collect();
        let score: Vec<f64> = time
            .iter()
            .map(|t| (t + r.random::<f64>() * 10.0).floor())
            .collect();
        let (c, pairs) = harrell_c(&time, &event, &score);
        let (want, want_pairs) = brute(&time, &event, &score);
        assert_eq!(pairs, want_pairs);
        assert!((c.unwrap() - want).abs() < 1e-12);
    }

    /// By hand: scores 9, 8, 8, 5, 3, 1 with positives at 9, one of the 8s, 3 and 1 (4 positives). 70% recall
    /// needs 3 of them: thresholds 9 (1/4), 8 (2/4, the tie counted whole), 5 (2/4), 3 (3/4 ≥ 0.7) → precision
    /// 3/5. At recall 1: all six, 4/6; at 0.25: the top one, 1/1. No positives: None.
    #[test]
    fn precision_at_recall_by_hand() {
        let s = [
            (8.0, false),
            (9.0, true),
            (1.0, true),
            (8.0, true),
            (5.0, false),
            (3.0, true),
        ];
        assert_eq!(precision_at_recall(&s, 0.7), Some(0.6));
        assert_eq!(precision_at_recall(&s, 1.0), Some(4.0 / 6.0));
        assert_eq!(precision_at_recall(&s, 0.25), Some(1.0));
        assert_eq!(precision_at_recall(&[(1.0, false)], 0.7), None);
    }

    #[test]
    fn precision_recall_f1() {
        assert_eq!(prf(0, 0, 5), (None, Some(0.0), 0.0));
        let (p, r, f) = prf(3, 4, 6);
        assert_eq!((p, r), (Some(0.75), Some(0.5)));
        assert!((f - 0.6).abs() < 1e-15);
    }
}
