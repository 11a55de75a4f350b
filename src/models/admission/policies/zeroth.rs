//! ZEROTH (seed 000 Def. 4.1, ALGORITHMS.md §2.7): accept iff `N + n0 < θ0`, the present state alone.

use super::rule::{AdmissionRule, DecisionContext};

/// ZEROTH: threshold θ0 in cores.
#[derive(Clone, Copy, Debug)]
pub struct Zeroth;

impl AdmissionRule for Zeroth {
    fn needs_curves(&self) -> bool {
        false
    }
    fn accepts_now(&self, c: &DecisionContext, threshold: f64) -> bool {
        c.active + (c.n0 as f64) < threshold
    }
}
