//! The max fit test (seed 002 §5.1): s_i = the largest observation over O (the percentile 100).

use super::deterministic::ItemSize;
use crate::substrate::stats::percentile_sorted;

/// The largest observation.
#[derive(Clone, Copy, Debug)]
pub struct Max;

impl ItemSize for Max {
    fn size(&self, _mean: f64, _sd: f64, sorted: &[f64]) -> f64 {
        percentile_sorted(sorted, 100.0)
    }
}
