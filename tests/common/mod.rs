//! Helpers shared by the integration tests (`mod common;` in a test file).

use packlab::trace::{Unit, UsageTrace};

/// A usage trace from integer CPU percentages, one row per VM (`vm0`, `vm1`, …), 300 s apart, in
/// [`Unit::Percent`], so hand-worked cases and independent recounts work in exact integers.
pub fn percent_trace(percent: &[Vec<i64>]) -> UsageTrace {
    let items = (0..percent.len()).map(|i| format!("vm{i}")).collect();
    let series = percent
        .iter()
        .map(|s| s.iter().map(|&p| p as f64).collect())
        .collect();
    UsageTrace::from_series_in("pct", items, series, 300.0, Unit::Percent).unwrap()
}
