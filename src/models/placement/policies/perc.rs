//! The percentile fit test (seed 002 §5.1): s_i = P_i(p), linear interpolation between the observations.

use super::deterministic::ItemSize;
use crate::substrate::stats::percentile_sorted;

/// The percentile p ∈ [0, 100] (percent).
#[derive(Clone, Copy, Debug)]
pub struct Perc(pub f64);

impl ItemSize for Perc {
    fn size(&self, _mean: f64, _sd: f64, sorted: &[f64]) -> f64 {
        percentile_sorted(sorted, self.0)
    }
}
