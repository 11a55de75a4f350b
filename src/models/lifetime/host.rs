//! A host of the lifetime pool (ALGORITHMS.md §5.1): capacity, the VMs on it, the state LAVA keeps per host
//! (§5.4) and NILAS's host-exit cache (§5.3); the fit test and the slack order best fit ranks hosts by.
//!
//! Hosts are identical or come from a node inventory; capacity is `(cores, memory GB, GPUs)`; a VM fits when
//! `used + shape ≤ cap` in every dimension.

use super::pool::{Job, DIMS};
use crate::substrate::des::TimerKey;

/// "No host" / "no epoch" marker in the pool's per-job vectors.
pub const NONE: u32 = u32::MAX;
/// Tolerance of the fit test and of the optimum's cover test, in the capacity's units.
pub const EPS: f64 = 1e-9;

/// LAVA's host state (seed 003 Alg. 3): empty, OPEN (takes same-class VMs) or RECYCLING (above
/// [`super::policies::lava::LAVA_RECYCLE_AT`], takes shorter VMs first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// No VMs.
    Empty,
    /// Open to VMs of its class.
    Open,
    /// Recycling: waiting for its residual VMs to exit.
    Recycling,
}

/// One host of the pool.
#[derive(Clone, Debug)]
pub struct Host {
    /// Capacity `(cores, memory GB, GPUs)`.
    pub cap: [f64; DIMS],
    /// Allocated capacity (VMs and ghosts).
    pub used: [f64; DIMS],
    /// The VMs on the host (job indices).
    pub vms: Vec<u32>,
    /// VMs migrating away: their shapes stay reserved here until the migration is done.
    pub ghosts: Vec<u32>,
    /// Being drained by the defragmentation: not schedulable.
    pub draining: bool,
    /// Drained once by a maintenance wave ([`super::lars::Defrag::maintenance`]).
    pub maintained: bool,
    /// [`slack`] of `used` (its key in the pool's slack order).
    pub slack: f64,
    /// LAVA: the host's state.
    pub state: State,
    /// LAVA: the host's lifetime class (0 when empty).
    pub class: u8,
    /// The host's timer key (LAVA deadlines).
    pub key: TimerKey,
    /// LAVA: the pending deadline, hours (meaningful while the host is non-empty).
    pub deadline: f64,
    /// LAVA: the epoch of the host's residual set (a VM is residual when its epoch equals this).
    pub res_epoch: u32,
    /// LAVA: residual VMs still on the host.
    pub res_count: u32,
    /// NILAS: the cached host exit, hours.
    pub exit_cache: f64,
    /// NILAS: when `exit_cache` was computed, hours.
    pub cache_at: f64,
    /// NILAS: whether `exit_cache` is still valid (no VM came or left since).
    pub cache_valid: bool,
}

impl Host {
    /// An empty host of capacity `cap` with timer key `key`.
    pub fn new(cap: [f64; DIMS], key: TimerKey) -> Host {
        Host {
            cap,
            used: [0.0; DIMS],
            vms: Vec::new(),
            ghosts: Vec::new(),
            draining: false,
            maintained: false,
            slack: slack(&[0.0; DIMS], &cap),
            state: State::Empty,
            class: 0,
            key,
            deadline: 0.0,
            res_epoch: 0,
            res_count: 0,
            exit_cache: 0.0,
            cache_at: 0.0,
            cache_valid: false,
        }
    }

    /// Whether the host holds neither VMs nor migrating ghosts.
    pub fn is_empty(&self) -> bool {
        self.vms.is_empty() && self.ghosts.is_empty()
    }
}

/// A host's used capacity, summed from its VMs and ghosts (recomputed, not decremented: exact whatever the
/// order of arrivals, exits and migrations).
pub fn used_of(host: &Host, jobs: &[Job]) -> [f64; DIMS] {
    let mut used = [0.0; DIMS];
    for &v in host.vms.iter().chain(&host.ghosts) {
        for (u, s) in used.iter_mut().zip(jobs[v as usize].shape) {
            *u += s;
        }
    }
    used
}

/// Whether `shape` fits beside `used` within `cap` in every dimension (within [`EPS`]).
pub fn fits(used: &[f64; DIMS], cap: &[f64; DIMS], shape: &[f64; DIMS]) -> bool {
    (0..DIMS).all(|r| used[r] + shape[r] <= cap[r] + EPS)
}

/// A host's slack `Σ_r (cap_r − used_r)/cap_r` over the dimensions with capacity. The baseline scorer
/// (ALGORITHMS.md §5.1, multi-dimensional best fit) `Σ_r (cap_r − used_r − shape_r)/cap_r` is the slack minus
/// a term of the VM alone, so best fit ranks hosts by slack (lower is better, ties by host id) and the pool
/// keeps its hosts ordered by it.
pub fn slack(used: &[f64; DIMS], cap: &[f64; DIMS]) -> f64 {
    (0..DIMS)
        .filter(|&r| cap[r] > 0.0)
        .map(|r| (cap[r] - used[r]) / cap[r])
        .sum()
}

/// A host in the slack order: (slack, host id), totally ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlackKey(pub f64, pub u32);

impl Eq for SlackKey {}
impl PartialOrd for SlackKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for SlackKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Per dimension, the least and the largest positive capacity among a pool's hosts (0 where no host has the
/// dimension): what [`CapRange::slack_floor`] needs to bound the slack of every host a VM fits.
#[derive(Clone, Copy, Debug, Default)]
pub struct CapRange {
    lo: [f64; DIMS],
    hi: [f64; DIMS],
}

impl CapRange {
    /// The range of `caps` (`(cores, memory GB, GPUs)` per host).
    pub fn of(caps: &[[f64; DIMS]]) -> CapRange {
        let mut r = CapRange::default();
        for c in caps {
            for ((lo, hi), &x) in r.lo.iter_mut().zip(r.hi.iter_mut()).zip(c) {
                if x > 0.0 {
                    *lo = if *lo > 0.0 { lo.min(x) } else { x };
                    *hi = hi.max(x);
                }
            }
        }
        r
    }

    /// A lower bound of the [`slack`] of every host that `shape` [`fits`]: such a host has
    /// `cap_r − used_r ≥ shape_r − EPS` in every dimension, so each of its slack's terms is at least
    /// `(shape_r − EPS)/cap_r`, itself at least `(shape_r − EPS)/hi_r` when positive and `(shape_r − EPS)/lo_r`
    /// when not (a dimension the host lacks holds only VMs of `shape_r ≤ EPS`: a term ≤ 0 in the bound); less
    /// 1e−9 for the rounding of the sums. Best fit's scan starts here: the hosts below cannot take the VM.
    pub fn slack_floor(&self, shape: &[f64; DIMS]) -> f64 {
        let mut b = 0.0;
        for ((&lo, &hi), &x) in self.lo.iter().zip(&self.hi).zip(shape) {
            if hi > 0.0 {
                let d = x - EPS;
                b += if d >= 0.0 { d / hi } else { d / lo };
            }
        }
        b - 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::substrate::rng::mix64;

    #[test]
    fn every_host_a_vm_fits_has_at_least_the_slack_floor() {
        // heterogeneous hosts (one without GPUs), used capacity on a coarse grid so that exact fits occur
        let caps = [[32.0, 128.0, 0.0], [64.0, 256.0, 4.0], [48.0, 384.0, 8.0]];
        let range = CapRange::of(&caps);
        let mut x = 7u64;
        let mut next = |n: u64| {
            x = mix64(x);
            (x % n) as f64
        };
        let mut fitted = 0;
        for _ in 0..20_000 {
            let cap = caps[next(3) as usize];
            let used = [0, 1, 2].map(|r| (cap[r] * next(9) / 8.0).min(cap[r]));
            let shape = [
                next(17),
                next(65),
                if next(4) == 0.0 { next(3) } else { 0.0 },
            ];
            if fits(&used, &cap, &shape) {
                fitted += 1;
                let s = slack(&used, &cap);
                let floor = range.slack_floor(&shape);
                assert!(
                    s >= floor,
                    "slack {s} below the floor {floor}: {used:?} {cap:?} {shape:?}"
                );
            }
        }
        assert!(fitted > 2_000, "{fitted} fits");
        // the bound is tight for a host of the largest capacity in every dimension that the VM fills exactly
        let big = [64.0, 384.0, 8.0];
        let range = CapRange::of(&[big, [32.0, 128.0, 0.0]]);
        let shape = [12.0, 100.0, 2.0];
        let used = [52.0, 284.0, 6.0];
        assert!(fits(&used, &big, &shape));
        let gap = slack(&used, &big) - range.slack_floor(&shape);
        assert!(gap > 0.0 && gap < 2e-9, "{gap}");
    }
}
