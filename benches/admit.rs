//! One 3-year run of SECOND with the full 5 × 600 look-ahead (ALGORITHMS.md §2.7) on the §2.13 defaults.
//! Plain `harness = false` main. `ADMIT_BENCH_HOURS` shortens the run (default 26,280 h).

use packlab::admit::params::{AdmitParams, PolicyKind, PolicySpec};
use packlab::admit::sim::{lead_grid, simulate_run, SimCache};
use std::time::Instant;

fn main() {
    let mut p = AdmitParams::default();
    if let Ok(h) = std::env::var("ADMIT_BENCH_HOURS") {
        p.horizon_hours = h.parse().expect("ADMIT_BENCH_HOURS must be a number");
    }
    let grid = lead_grid(&p);
    let mut cache = SimCache::new();
    let spec = PolicySpec { kind: PolicyKind::Second, threshold: 0.01, marginal: false };
    let t0 = Instant::now();
    let r = simulate_run(&p, spec, 1, &grid, &mut cache);
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "admit SECOND {} h: {:.2} s  (utilization {:.4}, failures {}/{}, arrivals {}, curve refreshes {}, alive tables {}, events {})",
        p.horizon_hours, dt, r.utilization, r.failures, r.requests, r.arrivals, r.curve_refreshes, cache.lattice.len(), r.events
    );
}
