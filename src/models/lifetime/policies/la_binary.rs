//! LA-Binary (seed 003 §2.4, §5.3; ALGORITHMS.md §5.5 as corrected): VMs and hosts are short or long at a 2 h
//! cutoff of the one-shot prediction `L̂ = R̂(0)` counted down (never repredicted); a VM goes to a non-empty
//! host of its class first, then of the other class, then to an empty host; best fit within a tier.

use super::rule::{GroupScan, PlacementRule, PoolView, VmNow};
use crate::models::lifetime::host::{fits, Host};
use crate::models::lifetime::params::Policy;
use crate::models::lifetime::pool::Job;
use crate::models::lifetime::tiers::TierIndex;

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

/// The pool's choice under LA-Binary over its groups (the host the slack-order scan of [`LaBinary`]'s tiers
/// takes): the first host the VM fits, in slack order, of its own class, else of the other class, else the first
/// empty one. A host in the long group may have turned short since it was grouped (its long VMs near their
/// predicted end; never the other way while its VMs stay): it is checked where it could be chosen, and moved to
/// the short group in `tiers` when short. Returns the key `(tier, 0, 0)` and the host, or `None` (no host fits).
pub fn choose_grouped(scan: GroupScan, tiers: &mut TierIndex) -> Option<((u8, u8, u8), usize)> {
    let fit = |h: u32| {
        let host = &scan.hosts[h as usize];
        !host.draining && fits(&host.used, &host.cap, scan.shape)
    };
    let long_now = |h: u32| {
        host_is_long(
            &scan.hosts[h as usize],
            scan.view.jobs,
            scan.view.r0,
            scan.view.now,
        )
    };
    let first = |g: u8| tiers.range(g, scan.from).find(|k| fit(k.1));
    // the fitting hosts of the long group that turned short (in slack order)
    let mut turned = Vec::new();
    let chosen = if scan.vm.long {
        let mut same = None;
        for k in tiers.range(GROUP_LONG, scan.from) {
            if fit(k.1) {
                if long_now(k.1) {
                    same = Some(k);
                    break;
                }
                turned.push(k);
            }
        }
        match same {
            Some(k) => Some((0, k)),
            None => {
                let other = match (first(GROUP_SHORT), turned.first()) {
                    (Some(a), Some(&b)) => Some(a.min(b)),
                    (a, b) => a.or(b.copied()),
                };
                other
                    .map(|k| (1, k))
                    .or_else(|| first(GROUP_EMPTY).map(|k| (2, k)))
            }
        }
    } else {
        let short = first(GROUP_SHORT);
        let mut other = None;
        for k in tiers.range(GROUP_LONG, scan.from) {
            if short.is_some_and(|a| k >= a) {
                break;
            }
            if fit(k.1) {
                if long_now(k.1) {
                    other.get_or_insert(k);
                } else {
                    turned.push(k);
                    break;
                }
            }
        }
        match turned.last().copied().or(short) {
            Some(k) => Some((0, k)),
            None => other
                .map(|k| (1, k))
                .or_else(|| first(GROUP_EMPTY).map(|k| (2, k))),
        }
    };
    for k in turned {
        tiers.set(k.1 as usize, GROUP_SHORT, k);
    }
    chosen.map(|(t, k)| ((t, 0, 0), k.1 as usize))
}

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
