//! LAVA (seed 003 §4.3, Alg. 3; ALGORITHMS.md §5.4): lifetime classes by decades, host states (OPEN,
//! RECYCLING) and deadlines; a VM goes to a RECYCLING host of a longer class (the shortest such class first),
//! then an OPEN host of its class, then any non-empty host, then an empty host; NILAS's temporal cost then
//! best fit within a tier.

use super::rule::{DeadlineAction, GroupScan, HostChange, PlacementRule, PoolView, VmNow};
use crate::models::lifetime::host::{fits, Host, SlackKey, State};
use crate::models::lifetime::params::Policy;
use crate::models::lifetime::tiers::TierIndex;
use std::collections::BTreeSet;

/// LAVA's occupancy above which an OPEN host turns RECYCLING (seed 003 Alg. 3, stated: 90%).
pub const LAVA_RECYCLE_AT: f64 = 0.9;
/// LAVA's deadline factor: a host is expected to empty within 1.1 × its class's upper bound (stated).
pub const LAVA_DEADLINE_FACTOR: f64 = 1.1;
/// Highest lifetime class (classes continue by decades beyond 4, ALGORITHMS.md §5.10 [UNSTATED]).
pub const MAX_CLASS: u8 = 12;

/// LAVA lifetime class of a predicted lifetime `x` hours: 1 below 1 h, 2 in [1, 10) h, 3 in [10, 100) h, …
/// (seed 003 §4.3, stated to 4; by decades beyond, up to [`MAX_CLASS`]).
pub fn lifetime_class(x: f64) -> u8 {
    let (mut k, mut ub) = (1u8, 1.0);
    while x >= ub && k < MAX_CLASS {
        k += 1;
        ub *= 10.0;
    }
    k
}

/// Upper bound of lifetime class `k`, hours: `10^(k−1)`.
pub fn class_upper_bound(k: u8) -> f64 {
    10f64.powi(k as i32 - 1)
}

/// Every VM on `host` becomes residual (a new residual epoch).
fn res_all(host: &mut Host, res_epoch: &mut [u32]) {
    host.res_epoch = host.res_epoch.wrapping_add(1);
    host.res_count = host.vms.len() as u32;
    for &v in &host.vms {
        res_epoch[v as usize] = host.res_epoch;
    }
}

/// Only job `j` is residual on `host` (a new residual epoch).
fn res_only(host: &mut Host, j: usize, res_epoch: &mut [u32]) {
    host.res_epoch = host.res_epoch.wrapping_add(1);
    host.res_count = 1;
    res_epoch[j] = host.res_epoch;
}

/// LAVA's group of a RECYCLING host of class `k` (`0..=MAX_CLASS`).
pub fn group_recycling(k: u8) -> u8 {
    k
}
/// LAVA's group of an OPEN host of class `k` (`0..=MAX_CLASS`).
pub fn group_open(k: u8) -> u8 {
    MAX_CLASS + 1 + k
}
/// LAVA's group of a host with ghosts only (its state is empty, the host is not).
pub const GROUP_GHOSTS: u8 = 2 * (MAX_CLASS + 1);
/// LAVA's group of an empty host (no VMs, no ghosts).
pub const GROUP_EMPTY: u8 = GROUP_GHOSTS + 1;

/// The pool's choice under LAVA over its groups (the host the slack-order scan of `rule`'s tiers takes, `rule`
/// being the run's LAVA), with NILAS's temporal cost `cost(host)` computed for the same hosts as that scan
/// (its host-exit cache is part of the run's state). The scan computes a host's cost when no host before it in
/// slack order has a key at most `(its tier, sub-tier, 0)`: no host of a better (tier, sub-tier), none of its own
/// with cost 0. So the groups are walked best (tier, sub-tier) first, each up to the first host of a better one
/// (`bound`) and up to its first host of cost 0: RECYCLING hosts of a longer class, shortest first (tier 0), OPEN
/// hosts of the VM's class (1), the other non-empty hosts (2, in the slack order `order` of every host), the first
/// empty host (3). Returns the key `(tier, sub-tier, cost)` and the host, or `None` (no host fits).
pub fn choose_grouped(
    scan: GroupScan,
    tiers: &TierIndex,
    order: &BTreeSet<SlackKey>,
    rule: &dyn PlacementRule,
    mut cost: impl FnMut(&mut Host) -> u8,
) -> Option<((u8, u8, u8), usize)> {
    let mut best: Option<((u8, u8, u8), SlackKey)> = None;
    let mut bound: Option<SlackKey> = None;
    // walks one (tier, sub-tier) in slack order: `keys` are its hosts, or with `sieve` hosts of every tier
    // of which those of `tier` are taken (tier 2 is the rest of the non-empty hosts); `once`: only its
    // first fitting host (the empty hosts, all alike)
    let mut walk =
        |keys: &mut dyn Iterator<Item = SlackKey>, tier: (u8, u8), sieve: bool, once: bool| {
            let mut first = None;
            for k in keys {
                if bound.is_some_and(|b| k >= b) {
                    break;
                }
                let host = &mut scan.hosts[k.1 as usize];
                if host.draining || !fits(&host.used, &host.cap, scan.shape) {
                    continue;
                }
                if sieve && rule.tier(host, host.is_empty(), scan.vm, &scan.view) != tier {
                    continue;
                }
                first.get_or_insert(k);
                let key = (tier.0, tier.1, cost(host));
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, k));
                }
                if key.2 == 0 || once {
                    break;
                }
            }
            if let Some(f) = first {
                bound = Some(bound.map_or(f, |b| b.min(f)));
            }
        };
    for k in scan.vm.class.saturating_add(1)..=MAX_CLASS {
        let g = group_recycling(k);
        if tiers.len(g) > 0 {
            walk(&mut tiers.range(g, scan.from), (0, k), false, false);
        }
    }
    let g = group_open(scan.vm.class.min(MAX_CLASS));
    walk(&mut tiers.range(g, scan.from), (1, 0), false, false);
    let all = &mut order.range(SlackKey(scan.from, 0)..).copied();
    walk(all, (2, 0), true, false);
    walk(
        &mut tiers.range(GROUP_EMPTY, scan.from),
        (3, 0),
        false,
        true,
    );
    best.map(|(key, k)| (key, k.1 as usize))
}

/// LAVA: RECYCLING longer class (0, by class), OPEN same class (1), other non-empty (2), empty (3).
#[derive(Clone, Copy, Debug)]
pub struct Lava;

impl PlacementRule for Lava {
    fn policy(&self) -> Policy {
        Policy::Lava
    }

    fn temporal(&self) -> bool {
        true
    }

    fn host_states(&self) -> bool {
        true
    }

    fn least(&self, vm: &VmNow) -> (u8, u8, u8) {
        (0, vm.class.saturating_add(1), 0)
    }

    fn groups(&self) -> usize {
        GROUP_EMPTY as usize + 1
    }

    /// By state and class: [`group_recycling`], [`group_open`], [`GROUP_GHOSTS`], [`GROUP_EMPTY`].
    fn group(&self, host: &Host, _view: &PoolView) -> u8 {
        match host.state {
            State::Recycling => group_recycling(host.class.min(MAX_CLASS)),
            State::Open => group_open(host.class.min(MAX_CLASS)),
            State::Empty if host.is_empty() => GROUP_EMPTY,
            State::Empty => GROUP_GHOSTS,
        }
    }

    fn tier(&self, host: &Host, empty: bool, vm: &VmNow, _view: &PoolView) -> (u8, u8) {
        match host.state {
            State::Recycling if host.class > vm.class => (0, host.class),
            State::Open if host.class == vm.class => (1, 0),
            _ if !empty => (2, 0),
            _ => (3, 0),
        }
    }

    /// An empty host opens in the VM's class; a same-class VM on an OPEN host joins its residual set and
    /// moves the deadline with it (issue 27: without this, OPEN hosts outlive their deadline with correct
    /// predictions, spurious class raises); a longer-class VM raises the class; otherwise the deadline is
    /// moved out to cover the VM (a same-class VM on a RECYCLING host is residual too: the class drops only
    /// once it is gone, "all remaining VMs are of the next-shorter class", §4.3). An OPEN host above
    /// [`LAVA_RECYCLE_AT`] of its cores or memory turns RECYCLING.
    fn on_place(
        &self,
        host: &mut Host,
        j: usize,
        vclass: u8,
        was_empty: bool,
        res_epoch: &mut [u32],
    ) -> HostChange {
        let mut change = HostChange::default();
        if was_empty {
            host.state = State::Open;
            host.class = vclass;
            res_only(host, j, res_epoch);
            change.deadline = DeadlineAction::Reset;
        } else if host.state == State::Open && vclass == host.class {
            host.res_count += 1;
            res_epoch[j] = host.res_epoch;
            change.deadline = DeadlineAction::Reset;
            change.open_move = true;
        } else if vclass > host.class {
            change.class_up_longer_vm = true;
            host.class = vclass;
            res_only(host, j, res_epoch);
            change.deadline = DeadlineAction::Reset;
        } else {
            if host.state == State::Recycling && vclass == host.class {
                host.res_count += 1;
                res_epoch[j] = host.res_epoch;
            }
            change.deadline = DeadlineAction::Cover(vclass);
        }
        let cap = host.cap;
        if host.state == State::Open
            && (host.used[0] > LAVA_RECYCLE_AT * cap[0] || host.used[1] > LAVA_RECYCLE_AT * cap[1])
        {
            host.state = State::Recycling;
            res_all(host, res_epoch);
        }
        change
    }

    /// A host left empty has no class; a RECYCLING host whose residual VMs are gone drops a class (not
    /// below 1) and its remaining VMs become residual.
    fn on_remove(&self, host: &mut Host, j: usize, res_epoch: &mut [u32]) -> HostChange {
        let mut change = HostChange::default();
        if res_epoch[j] == host.res_epoch {
            host.res_count = host.res_count.saturating_sub(1);
        }
        if host.vms.is_empty() {
            host.state = State::Empty;
            host.class = 0;
            change.deadline = DeadlineAction::Cancel;
        } else if host.state == State::Recycling && host.res_count == 0 {
            change.class_down = true;
            host.class = host.class.saturating_sub(1).max(1);
            res_all(host, res_epoch);
            change.deadline = DeadlineAction::Reset;
        }
        change
    }

    /// A host that outlived its deadline (an under-prediction seen) rises a class (up to [`MAX_CLASS`]).
    fn on_deadline(&self, host: &mut Host, res_epoch: &mut [u32]) -> HostChange {
        host.class = (host.class + 1).min(MAX_CLASS);
        res_all(host, res_epoch);
        HostChange {
            deadline: DeadlineAction::Reset,
            ..HostChange::default()
        }
    }
}
