//! NILAS, non-invasive lifetime-aware scoring (seed 003 §4.2, Alg. 2; ALGORITHMS.md §5.3): the temporal cost
//! of a host, how far the VM would extend the host's predicted exit, ranks ahead of best fit.

use super::rule::{PlacementRule, PoolView, VmNow};
use crate::models::lifetime::host::Host;
use crate::models::lifetime::params::{CostScale, Policy};
use crate::models::lifetime::pool::Job;
use crate::models::lifetime::predictor::LifetimePredictor;

/// NILAS temporal-cost bounds, hours (seed 003 Alg. 2, stated): 0, 30 min, 60 min, 90 min, 2 h, 3 h, 4 h, 6 h,
/// 12 h, 24 h, 168 h.
pub const NILAS_BOUNDS_H: [f64; 11] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 12.0, 24.0, 168.0];

/// NILAS temporal cost of a lifetime extension `dt` hours: `max{i : dt ≥ bounds[i]}` (seed 003 Alg. 2; e.g.
/// 70 min → 2).
pub fn temporal_cost(dt: f64) -> u8 {
    NILAS_BOUNDS_H.iter().rposition(|&b| dt >= b).unwrap_or(0) as u8
}

/// The temporal cost of `dt` hours on `scale` ([`CostScale::Stated`] is [`temporal_cost`]).
pub fn temporal_cost_on(scale: CostScale, dt: f64) -> u8 {
    match scale {
        CostScale::Stated => temporal_cost(dt),
        CostScale::Fine => (8.0 * (1.0 + dt * 60.0).log2()).ceil().clamp(0.0, 255.0) as u8,
        CostScale::Binary => u8::from(dt > 0.0),
    }
}

/// `host_exit(h)` of NILAS (seed 003 Alg. 2): the latest repredicted exit of its VMs (`now` when empty), from
/// the host's cache when it is still valid (§5.3: recomputed when VMs change, when the cached exit passes and
/// every `refresh` hours).
pub fn host_exit_of(
    host: &mut Host,
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    refresh: f64,
    now: f64,
) -> f64 {
    if host.vms.is_empty() {
        return now;
    }
    if host.cache_valid && refresh > 0.0 && now < host.exit_cache && now - host.cache_at < refresh {
        return host.exit_cache;
    }
    let exit = host
        .vms
        .iter()
        .map(|&v| {
            let j = v as usize;
            now + pred.remaining(j, now - jobs[j].start)
        })
        .fold(now, f64::max);
    host.exit_cache = exit;
    host.cache_at = now;
    host.cache_valid = true;
    exit
}

/// NILAS: one tier; the temporal cost, then best fit.
#[derive(Clone, Copy, Debug)]
pub struct Nilas;

impl PlacementRule for Nilas {
    fn policy(&self) -> Policy {
        Policy::Nilas
    }

    fn temporal(&self) -> bool {
        true
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
