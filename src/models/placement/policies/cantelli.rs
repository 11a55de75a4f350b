//! The Cantelli fit test (seed 002 §5.1): s_i = μ_i + b·σ_i.

use super::deterministic::ItemSize;

/// Cantelli's size with factor b ≥ 0.
#[derive(Clone, Copy, Debug)]
pub struct Cantelli(pub f64);

impl ItemSize for Cantelli {
    fn size(&self, mean: f64, sd: f64, _sorted: &[f64]) -> f64 {
        mean + self.0 * sd
    }
}
