//! Stochastic bin packing with the Gaussian Percentile Approximation (seed 002; ALGORITHMS.md §4).
//!
//! An [`Instance`] is built from a [`UsageTrace`]: each VM is a task whose realisations are its usage samples
//! (VM units). Statistics come from the observation set O (the first ⌊ℓ·R⌋ columns; all columns when the
//! clairvoyance ℓ = 1) and quality is measured on the evaluation set E (the other columns; all when ℓ = 1).
//! Items are packed in trace order with a [`FitTest`] and a [`Rule`], optionally rebalanced, and evaluated
//! into the metrics of seed 002 §5.1: m_abs, m_norm, m = m_abs/m_norm and the overflow frequency q.
//! A [`Frontier`] sweeps each fit family's knob and marks the Pareto front of (m, q); [`FrontierRun`] computes
//! it on the experiment contract, and [`PlacementModel`] is the registry entry.

pub mod calibrate;
pub mod chart;
pub mod experiment;
pub mod fit;
mod instance;
pub mod packing;

pub use calibrate::Calibration;
pub use experiment::{run_frontier, FrontierRun, FrontierStep};
pub use fit::{BinLoad, Family, FitSpec, FitTest, Gpa, ItemStats};
pub use instance::{random_subset, Instance, MachineView, PackResult, SUBSET_STREAM};
pub use packing::{pack, rebalance, Packing, Rule};

use serde::{Deserialize, Serialize};

/// How realisations are formed from a trace (ALGORITHMS.md §4.1, "real data comes first").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Column t of every task is the same real interval, so the real cross-VM correlation is kept (default).
    #[default]
    Aligned,
    /// R realisations drawn independently per task from its empirical distribution (seed 002 §3.1), seeded.
    Resampled,
}

/// Rebalancing failures allowed before stopping (seed 002 Alg. 1, stated: 5).
pub const REBALANCE_MAX_FAILURES: usize = 5;

/// One fit family's sweep in a frontier: whether it is drawn and its knob grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySweep {
    /// The family.
    pub family: Family,
    /// Whether the family is part of the frontier.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Knob values (ρ for gpa, the target ρ for gpa-cal, f for av, p in percent for perc, b for cantelli; ignored for max).
    #[serde(default)]
    pub grid: Vec<f64>,
}

fn yes() -> bool {
    true
}

impl FamilySweep {
    /// The default sweep of `family`: gpa ρ ∈ {0.2 … 0.0005}, av f ∈ {1 … 3}, perc p ∈ {50 … 100},
    /// cantelli b ∈ {0.5 … 4.4} (ALGORITHMS.md §4.2, §4.5 values plus intermediate points), max; gpa-cal
    /// target ρ ∈ {0.1, 0.05, 0.01, 0.001} (E2.2's values), off by default (each point is up to 22 packings,
    /// and scenarios from before it existed keep their frontier).
    pub fn default_for(family: Family) -> Self {
        let grid = match family {
            Family::Gpa => vec![0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005],
            Family::GpaCal => vec![0.1, 0.05, 0.01, 0.001],
            Family::Av => vec![1.0, 1.25, 1.5, 2.0, 2.5, 3.0],
            Family::Perc => vec![50.0, 70.0, 80.0, 90.0, 95.0, 99.0, 100.0],
            Family::Cantelli => vec![0.5, 1.0, 1.7, 2.5, 4.4],
            Family::Max => vec![],
        };
        FamilySweep {
            family,
            enabled: family != Family::GpaCal,
            grid,
        }
    }
}

/// Parameters of the placement model: what the CLI flags, the playground controls and share links set.
/// Units: capacity c in VM units (1.0 = one VM's full CPU), clairvoyance ℓ as a fraction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlacementParams {
    /// Machine capacity c, VM units (> 0).
    pub capacity: f64,
    /// Packing rule.
    pub rule: Rule,
    /// Rebalancing on/off (seed 002 Alg. 1; on by default).
    pub rebalance: bool,
    /// Clairvoyance ℓ ∈ (0, 1]: O = first ⌊ℓ·R⌋ columns, E = the rest; ℓ = 1 means O = E = all.
    pub clairvoyance: f64,
    /// Realisation mode.
    pub mode: Mode,
    /// R, the realisations per task in `resampled` mode (ignored in `aligned` mode, where R = trace samples).
    pub realisations: usize,
    /// The single packing shown in the teaching view and by `packlab pack`.
    pub fit: FitSpec,
    /// The SLO ρ drawn as the reference line of the frontier.
    pub target_rho: f64,
    /// The families of the frontier and their grids.
    pub families: Vec<FamilySweep>,
}

impl Default for PlacementParams {
    fn default() -> Self {
        PlacementParams {
            capacity: DEFAULT_CAPACITY,
            rule: Rule::BestFit,
            rebalance: true,
            clairvoyance: 1.0,
            mode: Mode::Aligned,
            realisations: 10_000,
            fit: FitSpec::Gpa(0.05),
            target_rho: 0.05,
            families: Family::ALL
                .iter()
                .map(|f| FamilySweep::default_for(*f))
                .collect(),
        }
    }
}

/// Default machine capacity c in VM units. With PlanetLab VMs (mean usage 0.093–0.124 VM per day) GPA places
/// 24–30 VMs on a 4-VM-unit machine, the regime of seed 002's 21–29 tasks per machine (1000 tasks over its
/// median m_abs 47 to 35, §5.6); figures from results/002/tables.md (E2.2 and "Reading the gaps"), in the README.
pub const DEFAULT_CAPACITY: f64 = 4.0;

pub use crate::substrate::error::FieldError;
use crate::substrate::error::FieldErrors;

/// Largest realisation count accepted in resampled mode.
pub const MAX_REALISATIONS: usize = 100_000;
/// Largest grid per family.
pub const MAX_GRID: usize = 200;

impl PlacementParams {
    /// Validates every field; errors are prefixed with `prefix` (e.g. `placement.`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        if !(self.capacity.is_finite() && self.capacity > 0.0) {
            errs.add(
                "capacity",
                format!(
                    "capacity must be a finite number > 0 (VM units), got {}",
                    self.capacity
                ),
            );
        }
        if !(self.clairvoyance.is_finite() && self.clairvoyance > 0.0 && self.clairvoyance <= 1.0) {
            errs.add(
                "clairvoyance",
                format!("clairvoyance must be in (0, 1], got {}", self.clairvoyance),
            );
        }
        if self.mode == Mode::Resampled && !(1..=MAX_REALISATIONS).contains(&self.realisations) {
            errs.add(
                "realisations",
                format!(
                    "realisations must be 1..={MAX_REALISATIONS}, got {}",
                    self.realisations
                ),
            );
        }
        if let Err(m) = self.fit.validate() {
            errs.add("fit", m);
        }
        if !(self.target_rho.is_finite() && self.target_rho > 0.0 && self.target_rho < 1.0) {
            errs.add(
                "target_rho",
                format!("target rho must be in (0, 1), got {}", self.target_rho),
            );
        }
        for (k, fs) in self.families.iter().enumerate() {
            if fs.grid.len() > MAX_GRID {
                errs.add(
                    &format!("families[{k}].grid"),
                    format!("at most {MAX_GRID} values"),
                );
            }
            if fs.family != Family::Max {
                for (g, v) in fs.grid.iter().enumerate() {
                    if let Err(m) = fs.family.spec(*v) {
                        errs.add(&format!("families[{k}].grid[{g}]"), m);
                    }
                }
            }
        }
        errs.into_vec()
    }
}

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

/// An error of the placement model (bad parameters or an instance that cannot be built).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacementError {
    /// The offending field, when one is to blame.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for PlacementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(x) => write!(f, "{x}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for PlacementError {}

impl From<Vec<FieldError>> for PlacementError {
    fn from(errs: Vec<FieldError>) -> Self {
        PlacementError {
            field: errs.first().map(|e| e.field.clone()),
            message: errs
                .iter()
                .map(|e| e.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
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
/// with at least one strictly smaller. Equal points are both on the front.
pub fn mark_pareto(points: &mut [FrontierPoint]) {
    let mq: Vec<(f64, f64)> = points.iter().map(|p| (p.m, p.q)).collect();
    for (i, p) in points.iter_mut().enumerate() {
        let (m, q) = mq[i];
        p.pareto = !mq
            .iter()
            .any(|&(m2, q2)| m2 <= m && q2 <= q && (m2 < m || q2 < q));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(m: f64, q: f64) -> FrontierPoint {
        FrontierPoint {
            family: Family::Gpa,
            param: None,
            spec: String::new(),
            m_abs: 0,
            m_norm: 1,
            m,
            q,
            utilization: 0.0,
            pareto: false,
            calibration: None,
        }
    }

    #[test]
    fn pareto_by_hand() {
        let mut p = vec![
            pt(1.0, 0.1),
            pt(1.2, 0.01),
            pt(1.2, 0.05),
            pt(1.5, 0.0),
            pt(1.5, 0.0),
            pt(0.9, 0.2),
        ];
        mark_pareto(&mut p);
        let on: Vec<bool> = p.iter().map(|x| x.pareto).collect();
        assert_eq!(on, vec![true, true, false, true, true, true]);
    }

    #[test]
    fn validation_names_fields() {
        let mut p = PlacementParams::default();
        assert!(p.validate("placement.").is_empty());
        p.capacity = f64::NAN;
        p.clairvoyance = 0.0;
        p.target_rho = 1.0;
        p.families[0].grid.push(1.5);
        let e = p.validate("placement.");
        let fields: Vec<&str> = e.iter().map(|x| x.field.as_str()).collect();
        assert_eq!(
            fields,
            vec![
                "placement.capacity",
                "placement.clairvoyance",
                "placement.target_rho",
                "placement.families[0].grid[9]"
            ]
        );
    }

    #[test]
    fn default_specs() {
        let s = frontier_specs(&PlacementParams::default());
        assert_eq!(s.len(), 9 + 6 + 7 + 5 + 1);
        assert_eq!(s[0], FitSpec::Gpa(0.2));
        assert_eq!(*s.last().unwrap(), FitSpec::Max);
    }
}

// ---------------------------------------------------------------------------------------------------------
// the registry entry

use crate::experiment::RunError;
use crate::experiment::{Inputs, ModelDef, ModelInfo};

/// The placement model in the registry ([`crate::models`]).
pub struct PlacementModel;

impl ModelDef for PlacementModel {
    const INFO: ModelInfo = ModelInfo {
        id: "placement",
        title: "Placement",
        hint: "stochastic bin packing with GPA (seed 002)",
        source: "seed 002, ALGORITHMS.md §4",
        uses_trace: true,
        uses_workload: false,
        experiments: &[],
        charts: &["placement.frontier", "placement.machine"],
        ops: &[],
        run_ops: &["machine"],
    };
    type Section = PlacementParams;
    type Run = FrontierRun;

    fn validate(section: &PlacementParams, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(section: &PlacementParams, seed: u64, inputs: &Inputs) -> Result<FrontierRun, RunError> {
        let trace = inputs.need_trace()?;
        Ok(FrontierRun::new(trace, section, seed)?)
    }

    /// `placement.frontier`: data = the frontier's points (`[{ family, spec, m, q, pareto }]`), opts =
    /// `{ target_rho, highlight, title, scale }`, returns the layout `{ points: [[x, y]...], plot_area,
    /// zero_floor }` in backend pixels; `placement.machine`: data = a `MachineView`, opts = `{ scale }`.
    fn draw<'de, DB: plotters::prelude::DrawingBackend, D: serde::Deserializer<'de>>(
        name: &str,
        area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        data: D,
        opts: D,
    ) -> Option<Result<Option<crate::chart::Layout>, crate::chart::ChartError>> {
        use crate::chart::decode_draw;
        Some(match name {
            "placement.frontier" => decode_draw(
                data,
                opts,
                "chart points",
                |d: Vec<chart::ChartPoint>, o: chart::FrontierChartOptions| {
                    chart::draw_frontier(area, &d, &o)
                },
            ),
            "placement.machine" => chart::machine_chart(data, opts)
                .and_then(|m| chart::draw_machine(area, &m))
                .map(|_| None),
            _ => return None,
        })
    }
}
