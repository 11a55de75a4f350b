//! Stochastic bin packing with the Gaussian Percentile Approximation (seed 002; ALGORITHMS.md §4).
//!
//! An [`Instance`] is built from a [`UsageTrace`]: each VM is a task whose realisations are its usage samples
//! (VM units). Statistics come from the observation set O (the first ⌊ℓ·R⌋ columns; all columns when the
//! clairvoyance ℓ = 1) and quality is measured on the evaluation set E (the other columns; all when ℓ = 1).
//! Items are packed in trace order with a [`FitTest`] and a [`Rule`] (`policies/`, one file per test and rule), optionally rebalanced, and evaluated
//! into the metrics of seed 002 §5.1: m_abs, m_norm, m = m_abs/m_norm and the overflow frequency q.
//! A [`Frontier`] sweeps each fit family's knob and marks the Pareto front of (m, q); [`FrontierRun`] computes
//! it on the experiment contract, and [`PlacementModel`] is the registry entry.

pub mod calibrate;
pub mod chart;
pub mod experiment;
pub mod frontier;
mod index;
mod instance;
pub mod packing;
pub mod params;
pub mod policies;

pub use calibrate::Calibration;
pub use experiment::{run_frontier, FrontierRun, FrontierStep};
pub use instance::{random_subset, Instance, MachineView, PackResult, SUBSET_STREAM};
pub use packing::{pack, pack_scan, rebalance, Packing};
pub use policies::{BinLoad, Family, FitSpec, FitTest, Gpa, IndexKind, ItemStats, Rule};

pub use crate::substrate::error::FieldError;
pub use frontier::{frontier_specs, mark_pareto, Frontier, FrontierPoint};
pub use params::{
    FamilySweep, Mode, PlacementError, PlacementParams, ScriptPolicy, DEFAULT_CAPACITY, MAX_GRID,
    MAX_REALISATIONS, MAX_SCRIPTS, REBALANCE_MAX_FAILURES,
};

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
            error: None,
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
        // a failed script's point (m = q = 0) is off the front and dominates nothing
        p.push(FrontierPoint::failed("script:x".into(), 1, "boom".into()));
        mark_pareto(&mut p);
        let on: Vec<bool> = p.iter().map(|x| x.pareto).collect();
        assert_eq!(on, vec![true, true, false, true, true, true, false]);
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
        reads_facts: false,
        experiments: &[],
        charts: chart::CHARTS,
        ops: &["starters"],
        run_ops: &["machine"],
    };
    type Section = PlacementParams;
    type Run = FrontierRun;

    fn validate(section: &PlacementParams, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    /// Every problem in one message (as [`Instance::new`] reports them).
    fn check(section: &PlacementParams) -> Result<(), RunError> {
        let errs = section.validate("placement.");
        if errs.is_empty() {
            return Ok(());
        }
        Err(PlacementError::from(errs).into())
    }

    fn start(
        section: &PlacementParams,
        seed: u64,
        inputs: &Inputs,
    ) -> Result<FrontierRun, RunError> {
        let trace = inputs.need_trace()?;
        Ok(FrontierRun::new(trace, section, seed)?)
    }

    /// `starters`: the starter scripts of the playground's code box (issue 31), `[{ name, language, source }]`
    /// ([`policies::script::STARTERS`]).
    fn call<S: serde::Serializer>(
        _section: &PlacementParams,
        _seed: u64,
        op: &str,
        _args: &serde_json::Value,
        _inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        match op {
            "starters" => crate::experiment::serialize_to(
                &crate::script::policy::starters(&policies::script::STARTERS),
                ser,
            ),
            _ => Err(RunError::no_op(Self::INFO.id, op)),
        }
    }
}
