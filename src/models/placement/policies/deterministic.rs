//! The deterministic fit tests (Cantelli, av, perc, max; seed 002 §5.1, ALGORITHMS.md §4.2): each item gets
//! a size s_i by its test's rule ([`ItemSize`]) and fits iff ℓ_j + s_k ≤ c.

use super::fit_test::{BinLoad, FitTest, IndexKind, ItemStats};
use super::spec::FitSpec;

/// How a deterministic test sizes an item (VM units): one implementation per test file.
pub trait ItemSize {
    /// The size s_i of an item with mean `mean`, population s.d. `sd` and ascending-sorted observations
    /// `sorted_obs` (VM units).
    fn size(&self, mean: f64, sd: f64, sorted_obs: &[f64]) -> f64;
}

/// A deterministic fit test: the item sizes of `S`, fits iff ℓ_j + s_k ≤ c, Best Fit key c − ℓ_j − s_k.
#[derive(Clone, Copy, Debug)]
pub struct Deterministic<S> {
    spec: FitSpec,
    size: S,
}

impl<S: ItemSize> Deterministic<S> {
    /// The test of `spec` sizing items by `size`.
    pub fn new(spec: FitSpec, size: S) -> Self {
        Deterministic { spec, size }
    }
}

impl<S: ItemSize> FitTest for Deterministic<S> {
    fn reads_observations(&self) -> bool {
        matches!(self.spec, FitSpec::Perc(_) | FitSpec::Max)
    }
    fn item_size(&self, mean: f64, sd: f64, sorted: &[f64]) -> f64 {
        self.size.size(mean, sd, sorted)
    }
    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool {
        bin.size + item.size <= c
    }
    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64 {
        c - bin.size - item.size
    }
    fn index(&self) -> IndexKind {
        IndexKind::Size
    }
}
