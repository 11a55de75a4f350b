//! ACCEPT_IF_FITS (ALGORITHMS.md §2.10): the upper bound of utilization, every arrival that fits (`N + n0 ≤ C`,
//! which the cluster checks for every rule) is accepted; no threshold.

use super::rule::AdmissionRule;

/// ACCEPT_IF_FITS: the rule itself accepts everything.
#[derive(Clone, Copy, Debug)]
pub struct AcceptIfFits;

impl AdmissionRule for AcceptIfFits {
    fn needs_curves(&self) -> bool {
        false
    }
}
