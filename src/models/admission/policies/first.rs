//! FIRST (seed 000 Def. 4.2, ALGORITHMS.md §2.7): accept iff `∀k: E_k < θ1`, the expected active cores at every
//! lead time of the look-ahead with the candidate (threshold in cores).

use super::rule::{AdmissionRule, DecisionContext};

/// FIRST: threshold θ1 in cores.
#[derive(Clone, Copy, Debug)]
pub struct First;

impl AdmissionRule for First {
    fn needs_curves(&self) -> bool {
        true
    }
    fn holds(
        &self,
        _c: &DecisionContext,
        threshold: f64,
        e: f64,
        _v: impl FnOnce() -> f64,
    ) -> bool {
        e < threshold
    }
}
