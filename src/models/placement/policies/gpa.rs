//! The GPA fit test (seed 002 §4; ALGORITHMS.md §4.2).

use super::fit_test::{BinLoad, FitTest, IndexKind, ItemStats};
use crate::substrate::stats::normal_quantile;

/// The GPA fit test (seed 002 §4): the bin's total is taken as Gaussian N(μ', σ'²) and the item fits iff the
/// (1 − ρ) quantile does not exceed c, i.e. μ' + z_{1−ρ}·σ' ≤ c; when σ' = 0, iff μ' ≤ c.
#[derive(Clone, Copy, Debug)]
pub struct Gpa {
    /// SLO ρ: the target overflow probability.
    pub rho: f64,
    /// z_{1−ρ}.
    pub z: f64,
}

impl Gpa {
    /// GPA with SLO `rho` ∈ (0, 1).
    pub fn new(rho: f64) -> Self {
        Gpa {
            rho,
            z: normal_quantile(1.0 - rho),
        }
    }
}

impl FitTest for Gpa {
    fn item_size(&self, mean: f64, _sd: f64, _sorted: &[f64]) -> f64 {
        mean
    }
    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool {
        let mu = bin.mean + item.mean;
        let sd = (bin.var + item.var).sqrt();
        if sd == 0.0 {
            mu <= c
        } else {
            mu + self.z * sd <= c
        }
    }
    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64 {
        let sd = (bin.var + item.var).sqrt();
        if sd == 0.0 {
            f64::INFINITY
        } else {
            (c - bin.mean - item.mean) / sd
        }
    }
    fn index(&self) -> IndexKind {
        if self.z >= 0.0 {
            IndexKind::Gpa { z: self.z }
        } else {
            IndexKind::Scan
        }
    }
    /// σ of the bin alone, √(Σ σ_i²).
    fn bin_bound(&self, bin: &BinLoad) -> f64 {
        bin.var.sqrt()
    }
    /// μ' + z·σ_bin > c with z ≥ 0: every step of `fits`' μ' + z·σ' is a rounded operation that does not
    /// decrease as σ' grows from σ_bin (σ'² = σ_bin² + σ_i² ≥ σ_bin²), so `fits` is false too (also when
    /// σ' = 0, as then σ_bin = 0 and μ' > c).
    #[inline]
    fn surely_not(&self, bin: &BinLoad, bound: f64, item: &ItemStats, c: f64) -> bool {
        self.z >= 0.0 && bin.mean + item.mean + self.z * bound > c
    }
}
