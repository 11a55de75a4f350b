//! Calibrated GPA, `gpa-cal:ρ` (issue 12; a correction of seed 002's GPA, ALGORITHMS.md §4.2, for tasks whose
//! sums are not Gaussian).
//!
//! GPA(ρ) assumes a machine's total is Gaussian; on skewed usage (PlanetLab 5-minute averages: median VM
//! skewness 1.2–1.8, few VMs per machine at c = 1) the Gaussian (1 − ρ) quantile is exceeded far more often
//! than ρ (results/002/tables.md, E2.2). Calibrated GPA keeps GPA's packing but chooses its knob from
//! the data: with the target ρ, it searches the knob ρ' whose packing overflows at most ρ of the time on
//! data held out of the statistics, all within the observation set O (the evaluation set E is never read).
//!
//! The split of O ([`Instance::pack_detailed`](super::Instance::pack_detailed)): the *fit half* (O's columns
//! 0, 2, 4, … counted from O's start) gives the means and variances GPA packs with; the *calibration half*
//! (columns 1, 3, 5, …) measures the packing's overflow frequency, exactly as q is measured on E
//! (ALGORITHMS.md §4.4). Calibrating on the samples that gave μ and σ would be optimistic, hence the held-out
//! half. Alternate columns rather than the first and second half of O, because a PlanetLab day is not
//! stationary (E2.5: the first 100 samples of a day predict the rest badly): alternate columns cover the same
//! hours; in resampled mode the columns are independent draws and any split is equivalent. The packing
//! returned is the one the search measured (fit-half statistics, knob ρ'), so its calibration-half overflow
//! frequency, [`Calibration::q_calibration`], is a measured fact about the packing used.
//!
//! The search ([`search`]) is on ln ρ' over [[`RHO_MIN`], [`RHO_MAX`]]: if the most permissive knob already
//! meets the target it is taken; if even the most conservative one does not, that one is used and the result
//! says so (`met = false`); otherwise [`STEPS`] bisection steps keep a bracket (lo meets, hi does not) and
//! return lo. The overflow frequency need not be monotone in ρ' (bin packing), so the result is *a* knob
//! that meets the target, at most a factor e^(ln(RHO_MAX/RHO_MIN)/2^STEPS) ≈ 1.00002 below a knob that does
//! not; it is deterministic and costs at most 2 + [`STEPS`] packings.

use serde::{Deserialize, Serialize};

/// The most conservative knob searched: ρ' = 10⁻¹⁰ (z ≈ 6.36).
pub const RHO_MIN: f64 = 1e-10;
/// The most permissive knob searched: ρ' = 0.5 (z = 0, a machine is filled up to its mean).
pub const RHO_MAX: f64 = 0.5;
/// Bisection steps on ln ρ' after the two end points (the bracket then spans ln(RHO_MAX/RHO_MIN)/2²⁰ ≈ 2.1e−5).
pub const STEPS: usize = 20;

/// How calibrated GPA chose its knob, reported with the packing (in `packlab pack`, frontier points and
/// the teaching view).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The target overflow frequency ρ (the spec's knob).
    pub target: f64,
    /// The knob ρ' GPA packed with.
    pub rho: f64,
    /// The packing's overflow frequency on the calibration half of O (machine-samples over c / (m_abs ·
    /// columns)); `None` when O has fewer than 2 columns.
    pub q_calibration: Option<f64>,
    /// Whether `q_calibration` ≤ `target`. `false`: no knob in [RHO_MIN, RHO_MAX] met the target, or O has
    /// fewer than 2 columns; `note` says which.
    pub met: bool,
    /// Columns of O in the fit half (statistics) and in the calibration half (overflow measured).
    pub fit_columns: usize,
    /// See `fit_columns`.
    pub calibration_columns: usize,
    /// Packings made by the search.
    pub packings: usize,
    /// Why the target was not met, when it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The result of [`search`]: the knob chosen, the measured value there, whether it meets the target and
/// how many evaluations were made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    /// The knob ρ'.
    pub rho: f64,
    /// `q(rho)`.
    pub q: f64,
    /// `q(rho)` ≤ target.
    pub met: bool,
    /// Calls of `q`.
    pub evaluations: usize,
}

/// Searches the largest-found knob ρ' ∈ [RHO_MIN, RHO_MAX] with `q(ρ') ≤ target` by bisection on ln ρ'
/// (module documentation). `q` is called at most 2 + STEPS times, first at RHO_MAX, then at RHO_MIN, then
/// at the bracket's geometric midpoints; the knob returned is always one `q` was called with, and the caller
/// may keep what it computed for the last call whose value it is told to keep (the `Found::rho`).
pub fn search(target: f64, mut q: impl FnMut(f64) -> f64) -> Found {
    let q_hi = q(RHO_MAX);
    if q_hi <= target {
        return Found {
            rho: RHO_MAX,
            q: q_hi,
            met: true,
            evaluations: 1,
        };
    }
    let q_lo = q(RHO_MIN);
    if q_lo > target {
        return Found {
            rho: RHO_MIN,
            q: q_lo,
            met: false,
            evaluations: 2,
        };
    }
    let (mut lo, mut hi) = (RHO_MIN.ln(), RHO_MAX.ln());
    let mut best = (RHO_MIN, q_lo);
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        let rho = mid.exp();
        let v = q(rho);
        if v <= target {
            lo = mid;
            best = (rho, v);
        } else {
            hi = mid;
        }
    }
    Found {
        rho: best.0,
        q: best.1,
        met: true,
        evaluations: 2 + STEPS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_function_is_bracketed() {
        // q jumps from 0 to 1 at ρ* = 0.003: the search must return ρ' < 0.003 within its bracket width
        let star = 0.003;
        let f = search(0.5, |r| if r >= star { 1.0 } else { 0.0 });
        assert!(f.met);
        assert!(f.rho < star);
        let width = (RHO_MAX / RHO_MIN).ln() / (1u64 << STEPS) as f64;
        assert!(f.rho > star * (-2.0 * width).exp(), "{}", f.rho);
        assert_eq!(f.evaluations, 2 + STEPS);
        assert_eq!(f.q, 0.0);
    }

    #[test]
    fn ends() {
        let all = search(0.1, |_| 0.05);
        assert_eq!((all.rho, all.met, all.evaluations), (RHO_MAX, true, 1));
        let none = search(0.1, |_| 0.2);
        assert_eq!((none.rho, none.met, none.evaluations), (RHO_MIN, false, 2));
        assert_eq!(none.q, 0.2);
    }
}
