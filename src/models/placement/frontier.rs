//! The frontier of (m, q) over the fit families' knobs and its Pareto front (seed 002 §5.1).

use super::calibrate::Calibration;
use super::params::PlacementParams;
use super::policies::Rule;
use super::policies::{Family, FitSpec};
use serde::{Deserialize, Serialize};

/// One point of a frontier: a fit spec and its metrics (seed 002 §5.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontierPoint {
    /// Family of the fit test.
    pub family: Family,
    /// Knob value (`None` for max).
    pub param: Option<f64>,
    /// The spec, e.g. `gpa:0.05`.
    pub spec: String,
    /// Machines used (non-empty bins).
    pub m_abs: usize,
    /// ⌈Σ true means / c⌉ (at least 1).
    pub m_norm: usize,
    /// Normalized machines m_abs / m_norm.
    pub m: f64,
    /// Overflow frequency over E averaged over machines.
    pub q: f64,
    /// Mean utilization: total usage over E / (m_abs · c · |E|).
    pub utilization: f64,
    /// On the Pareto front of (m, q) among all points (both minimised).
    pub pareto: bool,
    /// Calibrated GPA only: the knob ρ' used and how it was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
    /// A user's script that failed at run time (issue 31): its error, with line and column. The point's
    /// `m_abs`, `m`, `q` and `utilization` are then 0 and mean nothing; it is left off the chart and the
    /// Pareto front, and every other point is unaffected. Absent when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl FrontierPoint {
    /// The point of a script `spec` that failed with `error` on an instance of `m_norm` ([`Self::error`]).
    pub fn failed(spec: String, m_norm: usize, error: String) -> Self {
        FrontierPoint {
            family: Family::Script,
            param: None,
            spec,
            m_abs: 0,
            m_norm,
            m: 0.0,
            q: 0.0,
            utilization: 0.0,
            pareto: false,
            calibration: None,
            error: Some(error),
        }
    }
}

/// A frontier: all points of a sweep plus the parameters that made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    /// Trace name.
    pub trace: String,
    /// Number of items (VMs).
    pub items: usize,
    /// Realisations R per item.
    pub realisations: usize,
    /// |O| and |E|.
    pub observations: usize,
    /// |E|.
    pub evaluations: usize,
    /// Capacity c, VM units.
    pub capacity: f64,
    /// Packing rule.
    pub rule: Rule,
    /// Rebalancing.
    pub rebalance: bool,
    /// The SLO reference line.
    pub target_rho: f64,
    /// The points, in sweep order (family order, then grid order).
    pub points: Vec<FrontierPoint>,
}

/// The fit specs of a frontier sweep, in order: enabled families in `params.families` order, grid order
/// (max contributes one point). Invalid grid values are skipped (validate first to report them).
pub fn frontier_specs(params: &PlacementParams) -> Vec<FitSpec> {
    let mut out = Vec::new();
    for fs in params.families.iter().filter(|f| f.enabled) {
        if fs.family == Family::Max {
            out.push(FitSpec::Max);
        } else {
            out.extend(fs.grid.iter().filter_map(|v| fs.family.spec(*v).ok()));
        }
    }
    out
}

/// Marks the Pareto front of (m, q), both minimised: a point is on it iff no other point has m ≤ and q ≤
/// with at least one strictly smaller. Equal points are both on the front. A failed script's point
/// ([`FrontierPoint::error`]) is neither on it nor dominates.
pub fn mark_pareto(points: &mut [FrontierPoint]) {
    let mq: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.error.is_none())
        .map(|p| (p.m, p.q))
        .collect();
    for p in points.iter_mut() {
        let (m, q) = (p.m, p.q);
        p.pareto = p.error.is_none()
            && !mq
                .iter()
                .any(|&(m2, q2)| m2 <= m && q2 <= q && (m2 < m || q2 < q));
    }
}
