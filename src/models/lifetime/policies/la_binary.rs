//! LA-Binary (seed 003 §2.4, §5.3; ALGORITHMS.md §5.5 as corrected): VMs and hosts are short or long at a 2 h
//! cutoff of the one-shot prediction `L̂ = R̂(0)` counted down (never repredicted); a VM goes to a non-empty
//! host of its class first, then of the other class, then to an empty host; best fit within a tier.

use super::rule::{PlacementRule, PoolView, VmNow};
use crate::models::lifetime::host::Host;
use crate::models::lifetime::params::Policy;
use crate::models::lifetime::pool::Job;

/// LA-Binary's cutoff between short and long VMs, hours (seed 003 §5.3, stated: 2 h).
pub const LA_BINARY_CUTOFF_H: f64 = 2.0;

/// Whether a VM with one-shot prediction `r0` hours is long at uptime `u` hours: `r0 − u > 2 h`.
pub fn is_long(r0: f64, u: f64) -> bool {
    r0 - u > LA_BINARY_CUTOFF_H
}

/// LA-Binary's host class: long when the longest remaining one-shot predicted time of its VMs,
/// `max_v (L̂_v − u_v)` with `L̂_v = R̂_v(0)` (`r0`, the same model NILAS and LAVA see, §5.3), exceeds
/// [`LA_BINARY_CUTOFF_H`] at `now`; short otherwise (an empty host has no class: the callers check emptiness
/// first). Dynamic: a host whose long VMs near their predicted end turns short.
pub fn host_is_long(host: &Host, jobs: &[Job], r0: &[f64], now: f64) -> bool {
    host.vms.iter().any(|&v| {
        let j = v as usize;
        is_long(r0[j], now - jobs[j].start)
    })
}

/// LA-Binary's group of a host holding a long VM at the last look ([`LaBinary::group`]; it may have turned
/// short since: the class only falls while the host's VMs stay, so the pool checks it where it matters).
pub const GROUP_LONG: u8 = 0;
/// LA-Binary's group of a non-empty short host.
pub const GROUP_SHORT: u8 = 1;
/// LA-Binary's group of an empty host (no VMs, no ghosts).
pub const GROUP_EMPTY: u8 = 2;

/// LA-Binary: same class (0), other class (1), empty (2).
#[derive(Clone, Copy, Debug)]
pub struct LaBinary;

impl PlacementRule for LaBinary {
    fn policy(&self) -> Policy {
        Policy::LaBinary
    }

    fn groups(&self) -> usize {
        3
    }

    fn group(&self, host: &Host, view: &PoolView) -> u8 {
        if host.is_empty() {
            GROUP_EMPTY
        } else if host_is_long(host, view.jobs, view.r0, view.now) {
            GROUP_LONG
        } else {
            GROUP_SHORT
        }
    }

    fn tier(&self, host: &Host, empty: bool, vm: &VmNow, view: &PoolView) -> (u8, u8) {
        if empty {
            (2, 0)
        } else if host_is_long(host, view.jobs, view.r0, view.now) == vm.long {
            (0, 0)
        } else {
            (1, 0)
        }
    }
}
