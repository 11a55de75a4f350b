//! The small admission configuration shared by `tests/integration/admit_is.rs` and `benches/admit_is.rs` (C = 200 cores,
//! 0.01 arrivals/h, 2,000 h: about 20 deployments per run, a run takes about a millisecond).

use packlab::models::admission::params::{AdmitParams, ImportanceConfig, PolicyKind, PolicySpec};

/// The small configuration; importance sampling on with pilots of SECOND at θ2 = 0.01 (at the default
/// mid threshold 7.07e−5 SECOND admits nothing at this scale, see `default_pilot_threshold_falls_back`).
pub fn small(pre_draws: usize, pilots: usize) -> AdmitParams {
    let mut p = AdmitParams::default();
    p.capacity = 200.0;
    p.arrival_rate = 0.01;
    p.horizon_hours = 2000.0;
    p.importance = ImportanceConfig {
        enabled: true,
        pre_draws,
        pilot_runs_per_bucket: pilots,
        pilot_threshold: Some(0.01),
        mix: 0.5,
    };
    p
}

pub fn never_cancel() -> impl FnMut(usize, usize) -> bool {
    |_, _| true
}

pub fn zeroth(th: f64) -> PolicySpec {
    PolicySpec {
        kind: PolicyKind::Zeroth,
        threshold: th,
        marginal: false,
    }
}
