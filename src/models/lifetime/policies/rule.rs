//! What a placement policy decides and sees (ALGORITHMS.md §5.1): the pool takes the least key
//! `(tier, sub-tier, temporal cost, slack, host)` among the schedulable hosts a VM fits (scanning them in slack
//! order, or for a policy with host groups, [`PlacementRule::group`], walking the groups that can win); a policy
//! gives the `(tier, sub-tier)` of a host, whether NILAS's temporal cost enters, and (LAVA) how a host's
//! class and state move when VMs come and go.

use crate::models::lifetime::host::Host;
use crate::models::lifetime::params::Policy;
use crate::models::lifetime::pool::{Job, DIMS};

/// The VM being placed, as the policy sees it at the time of placement.
#[derive(Clone, Copy, Debug)]
pub struct VmNow {
    /// LAVA lifetime class of its (repredicted) remaining time.
    pub class: u8,
    /// LA-Binary's class: predicted long (`L̂ − u > 2 h`).
    pub long: bool,
}

/// The pool state a rule may read while scoring hosts.
#[derive(Clone, Copy)]
pub struct PoolView<'a> {
    /// Every job (arrival order).
    pub jobs: &'a [Job],
    /// `R̂_j(0)` per job, hours.
    pub r0: &'a [f64],
    /// The time, hours.
    pub now: f64,
}

/// One choice over a policy's host groups (the pool's [`crate::models::lifetime::tiers::TierIndex`]; LA-Binary's
/// and LAVA's `choose_grouped`): the hosts (LAVA's scan refreshes NILAS's host-exit cache in them), the pool as
/// the rule reads it, the VM and its shape `(cores, memory GB, GPUs)`, and `from`, the slack where best fit's scan
/// starts in the slack order (`CapRange::slack_floor`).
pub struct GroupScan<'a> {
    /// Every host, by id.
    pub hosts: &'a mut [Host],
    /// The jobs, their `R̂(0)` and the time.
    pub view: PoolView<'a>,
    /// The VM's demand per dimension.
    pub shape: &'a [f64; DIMS],
    /// The VM as the policy sees it.
    pub vm: &'a VmNow,
    /// The least slack a host the VM fits can have.
    pub from: f64,
}

/// How a host's LAVA deadline moves after an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeadlineAction {
    /// Unchanged.
    #[default]
    Keep,
    /// `now + 1.1 × upper bound of the host's class`.
    Reset,
    /// Moved out (never in) to cover a VM of this class placed now.
    Cover(u8),
    /// The host emptied: no deadline.
    Cancel,
}

/// A host's change after a placement, an exit or a deadline (LAVA; the other rules change nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostChange {
    /// The deadline's move.
    pub deadline: DeadlineAction,
    /// The class rose because a longer-class VM was placed.
    pub class_up_longer_vm: bool,
    /// A RECYCLING host's class dropped (its residual VMs are gone).
    pub class_down: bool,
    /// The deadline moved because a same-class VM joined an OPEN host (ours, not §5.4's ON_PLACE).
    pub open_move: bool,
}

/// A placement policy of §5.1, §5.3–5.5.
pub trait PlacementRule: Sync {
    /// The policy's name in scenarios.
    fn policy(&self) -> Policy;

    /// Whether NILAS's temporal cost is the key's third part (NILAS, LAVA).
    fn temporal(&self) -> bool {
        false
    }

    /// Whether hosts carry LAVA's classes, states and deadlines.
    fn host_states(&self) -> bool {
        false
    }

    /// The least key `(tier, sub-tier, cost)` a host can have for `vm`: the scan stops at a host with it.
    fn least(&self, _vm: &VmNow) -> (u8, u8, u8) {
        (0, 0, 0)
    }

    /// `(tier, sub-tier)` of a schedulable host `host` that `vm` fits (`empty`: no VMs and no ghosts).
    fn tier(&self, host: &Host, empty: bool, vm: &VmNow, view: &PoolView) -> (u8, u8);

    /// The number of host groups of the rule's index (the pool's `TierIndex`, issue 30); 0: the
    /// pool scans its hosts in slack order instead (best fit, NILAS: one tier).
    fn groups(&self) -> usize {
        0
    }

    /// The group of `host` at `view.now` in the rule's index (below [`PlacementRule::groups`]), read again
    /// whenever the host's VMs, ghosts, state or class change: what decides its `(tier, sub-tier)` for every
    /// VM apart from the VM's own class.
    fn group(&self, _host: &Host, _view: &PoolView) -> u8 {
        0
    }

    /// The tier of a placement in [`crate::models::lifetime::sampling::Diagnostics::by_tier`], from the chosen key.
    fn diag_tier(&self, key: (u8, u8, u8), _empty: bool) -> usize {
        key.0.min(3) as usize
    }

    /// Job `j` (class `vclass`) was just added to `host` (`was_empty` before); `res_epoch` is every job's
    /// residual epoch.
    fn on_place(
        &self,
        _host: &mut Host,
        _j: usize,
        _vclass: u8,
        _was_empty: bool,
        _res_epoch: &mut [u32],
    ) -> HostChange {
        HostChange::default()
    }

    /// Job `j` was just taken off `host`.
    fn on_remove(&self, _host: &mut Host, _j: usize, _res_epoch: &mut [u32]) -> HostChange {
        HostChange::default()
    }

    /// The host's deadline passed with VMs on it.
    fn on_deadline(&self, _host: &mut Host, _res_epoch: &mut [u32]) -> HostChange {
        HostChange::default()
    }
}
