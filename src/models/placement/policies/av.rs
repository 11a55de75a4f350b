//! The scaled-average fit test (seed 002 §5.1): s_i = f·μ_i.

use super::deterministic::ItemSize;

/// The scaled average with factor f > 0.
#[derive(Clone, Copy, Debug)]
pub struct Av(pub f64);

impl ItemSize for Av {
    fn size(&self, mean: f64, _sd: f64, _sorted: &[f64]) -> f64 {
        self.0 * mean
    }
}
