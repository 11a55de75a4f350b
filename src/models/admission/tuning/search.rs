//! The threshold binary search (ALGORITHMS.md §2.8): probes, bisection on certified evaluations and
//! the isotonic verdicts.

use super::result::*;
use super::stats::*;
use crate::models::admission::params::{AdmitParams, PolicyKind};
use crate::substrate::stats::poisson_upper;

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
        let log_space = p.threshold_in_log_space(kind);
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

    /// The evaluations recorded so far, by ascending threshold.
    pub fn evaluated(&self) -> Vec<Evaluation> {
        let mut sweep = self.sweep.clone();
        sweep.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
        sweep
    }

    /// The outcome once every evaluation is recorded (`None` before).
    pub fn finish(&self) -> Option<SearchOutcome> {
        if self.sweep.len() < self.evaluations() {
            return None;
        }
        let sweep = self.evaluated();
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
