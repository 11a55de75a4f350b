//! The placement frontier on the experiment contract (seed 002 §5, ALGORITHMS.md §4): the instance is built
//! when the run is planned, each unit of work is one frontier point (one fit test packed and evaluated), the
//! report is the whole [`Frontier`] with its Pareto front. The CLI ([`run_frontier`] for `packlab placement
//! frontier`, `packlab run`), the wasm binding and the Web Worker all drive this one stepper; natively a step computes its points on all
//! cores (points are independent, so the frontier is the same for any number of threads).

use super::frontier::{frontier_specs, mark_pareto, Frontier, FrontierPoint};
use super::instance::{Instance, MachineView, PackResult};
use super::params::{PlacementError, PlacementParams};
use super::policies::FitSpec;
use crate::experiment::{ser_error, CellRun, Cells, RunError};
use crate::script::Script;
use crate::trace::UsageTrace;
use serde::Serialize;
use std::sync::Arc;

/// What one step computed: the frontier points `first..first + points.len()` (Pareto flags not yet set).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontierStep {
    /// Index of the first point in the frontier.
    pub first: usize,
    /// The points.
    pub points: Vec<FrontierPoint>,
}

/// A frontier computation in progress; it keeps its [`Instance`] for the teaching view afterwards.
pub type FrontierRun = CellRun<FrontierCells>;

/// The frontier's cells: one point per fit test of [`frontier_specs`] on the instance, then one per enabled
/// script of `placement.scripts` (issue 31).
pub struct FrontierCells {
    /// The trace's item names (for the teaching view).
    item_names: Vec<String>,
    params: PlacementParams,
    instance: Instance,
    specs: Vec<FitSpec>,
    /// The enabled scripts, compiled, with their index in `params.scripts`.
    scripts: Vec<(usize, Arc<Script>)>,
}

impl FrontierCells {
    /// The compiled script named `name` and its index in `params.scripts`.
    fn script(&self, name: &str) -> Option<&(usize, Arc<Script>)> {
        self.scripts
            .iter()
            .find(|(k, _)| self.params.scripts[*k].name == name)
    }
}

impl Cells for FrontierCells {
    type Result = FrontierPoint;
    type Partial = FrontierStep;
    type Report = Frontier;
    const JOB: &'static str = "a point of this frontier";
    const RESULT: &'static str = "frontier point";

    fn len(&self) -> usize {
        self.specs.len() + self.scripts.len()
    }

    /// A script's run-time error fails only its point ([`FrontierPoint::failed`]: the error, with line
    /// and column); no error fails the run.
    fn compute(&self, i: usize) -> Result<FrontierPoint, RunError> {
        let p = &self.params;
        let Some((k, script)) = i.checked_sub(self.specs.len()).map(|j| &self.scripts[j]) else {
            return Ok(self
                .instance
                .frontier_point(&self.specs[i], p.rule, p.rebalance));
        };
        let spec = p.scripts[*k].spec();
        Ok(self
            .instance
            .script_point(script, spec.clone(), p.rule, p.rebalance)
            .unwrap_or_else(|e| FrontierPoint::failed(spec, self.instance.m_norm(), e.to_string())))
    }

    fn partial(first: usize, points: Vec<FrontierPoint>) -> FrontierStep {
        FrontierStep { first, points }
    }

    fn report(&self, points: &[FrontierPoint]) -> Frontier {
        let mut points = points.to_vec();
        mark_pareto(&mut points);
        self.instance.frontier(&self.params, points)
    }

    /// `machine` with `{ fit, machine }`: see [`FrontierRun::machine`].
    fn answer<S: serde::Serializer>(
        run: &FrontierRun,
        op: &str,
        args: &serde_json::Value,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        match op {
            "machine" => {
                let fit = args.get("fit").and_then(|v| v.as_str()).unwrap_or("");
                let machine = args
                    .get("machine")
                    .and_then(|v| v.as_f64())
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| RunError::field("machine", "a machine index ≥ 0 is needed"))?;
                let a = run.machine(fit, machine as usize).map_err(RunError::from)?;
                a.serialize(ser).map_err(ser_error)
            }
            _ => Err(RunError::msg(format!(
                "the placement run has no operation '{op}'"
            ))),
        }
    }
}

impl FrontierRun {
    /// Builds the instance from `trace` with validated `params` ([`crate::experiment::ModelDef::start`]) and `seed`
    /// and plans one point per fit test of [`frontier_specs`]. Errors: an empty observation set.
    pub fn new(
        trace: &UsageTrace,
        params: &PlacementParams,
        seed: u64,
    ) -> Result<FrontierRun, PlacementError> {
        let instance = Instance::planned(trace, params, seed)?;
        Ok(CellRun::of(FrontierCells {
            item_names: trace.items.clone(),
            params: params.clone(),
            instance,
            specs: frontier_specs(params),
            scripts: params.compiled_scripts()?,
        }))
    }

    /// The instance (for the teaching view and tests).
    pub fn instance(&self) -> &Instance {
        &self.cells().instance
    }

    /// The teaching view: packs with `fit` under the run's rule and rebalancing and returns the packing's
    /// metrics and machine `machine` (0-based). `fit` may name an enabled script, `script:<name>`.
    /// Errors: a bad fit spec (field `placement.fit`), a script's run-time error (its `source` field) or a
    /// bad machine.
    pub fn machine(&self, fit: &str, machine: usize) -> Result<MachineAnswer, PlacementError> {
        if let Some(name) = fit.trim().strip_prefix("script:") {
            let cells = self.cells();
            let (k, script) = cells.script(name.trim()).ok_or_else(|| PlacementError {
                field: Some("placement.fit".into()),
                message: format!(
                    "no enabled script is named '{}' in placement.scripts",
                    name.trim()
                ),
            })?;
            let p = &cells.params;
            let (packing, result) = self
                .instance()
                .pack_script(script, p.scripts[*k].spec(), p.rule, p.rebalance)
                .map_err(|e| PlacementError {
                    field: Some(format!("placement.scripts[{k}].source")),
                    message: e.to_string(),
                })?;
            let view = self
                .instance()
                .machine_view(&packing, machine, &self.cells().item_names)?;
            return Ok(MachineAnswer {
                fit: result.spec.clone(),
                packing: result,
                view,
            });
        }
        let spec = FitSpec::parse(fit).map_err(|m| PlacementError {
            field: Some("placement.fit".into()),
            message: m,
        })?;
        let (p, instance) = (&self.cells().params, self.instance());
        let (packing, result) = instance.pack_and_evaluate(&spec, p.rule, p.rebalance);
        let view = instance.machine_view(&packing, machine, &self.cells().item_names)?;
        Ok(MachineAnswer {
            fit: spec.to_string(),
            packing: result,
            view,
        })
    }
}

/// The answer of the teaching view ([`FrontierRun::machine`]).
#[derive(Clone, Debug, Serialize)]
pub struct MachineAnswer {
    /// The fit spec, normalised (e.g. `gpa:0.05`).
    pub fit: String,
    /// Metrics of the packing.
    pub packing: PackResult,
    /// The machine.
    pub view: MachineView,
}

impl From<PlacementError> for RunError {
    fn from(e: PlacementError) -> Self {
        RunError {
            field: e.field,
            message: e.message,
        }
    }
}

/// Runs a whole frontier through [`FrontierRun`] on all cores. `progress(done, total)` is called after each
/// step; returning `false` cancels (the error message is then `cancelled`).
pub fn run_frontier(
    trace: &UsageTrace,
    params: &PlacementParams,
    seed: u64,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Frontier, PlacementError> {
    let mut run = FrontierRun::new(trace, params, seed)?;
    if !progress(0, crate::experiment::Experiment::total(&run)) {
        return Err(PlacementError {
            field: None,
            message: "cancelled".into(),
        });
    }
    crate::experiment::run_to_end(&mut run, progress).map_err(|e| PlacementError {
        field: e.field,
        message: e.message,
    })
}
