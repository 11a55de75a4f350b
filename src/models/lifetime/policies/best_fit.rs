//! Best fit, the baseline scorer (ALGORITHMS.md §5.1 [UNSTATED → multi-dimensional best fit]): one tier, the
//! least slack first.

use super::rule::{PlacementRule, PoolView, VmNow};
use crate::models::lifetime::host::Host;
use crate::models::lifetime::params::Policy;

/// Multi-dimensional best fit.
#[derive(Clone, Copy, Debug)]
pub struct BestFit;

impl PlacementRule for BestFit {
    fn policy(&self) -> Policy {
        Policy::BestFit
    }

    fn tier(&self, _host: &Host, _empty: bool, _vm: &VmNow, _view: &PoolView) -> (u8, u8) {
        (0, 0)
    }

    fn diag_tier(&self, _key: (u8, u8, u8), empty: bool) -> usize {
        if empty {
            3
        } else {
            0
        }
    }
}
