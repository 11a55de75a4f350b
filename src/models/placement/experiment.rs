//! The placement frontier on the experiment contract (seed 002 §5, ALGORITHMS.md §4): the instance is built
//! when the run is planned, each unit of work is one frontier point (one fit test packed and evaluated), the
//! report is the whole [`Frontier`] with its Pareto front. The CLI ([`run_frontier`] for `packlab placement
//! frontier`, `packlab run`), the wasm binding and the Web Worker all drive this one stepper; natively a step computes its points on all
//! cores (points are independent, so the frontier is the same for any number of threads).

use super::{
    frontier_specs, mark_pareto, FitSpec, Frontier, FrontierPoint, Instance, PlacementError,
    PlacementParams,
};
use crate::experiment::{
    decode_results, index_jobs, job_index, map_parallel, ser_error, threads, Experiment, RunError,
};
use crate::trace::UsageTrace;
use serde::Serialize;

/// What one step computed: the frontier points `first..first + points.len()` (Pareto flags not yet set).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontierStep {
    /// Index of the first point in the frontier.
    pub first: usize,
    /// The points.
    pub points: Vec<FrontierPoint>,
}

/// A frontier computation in progress; it keeps its [`Instance`] for the teaching view afterwards.
pub struct FrontierRun {
    params: PlacementParams,
    instance: Instance,
    item_names: Vec<String>,
    specs: Vec<FitSpec>,
    points: Vec<FrontierPoint>,
}

impl FrontierRun {
    /// Builds the instance from `trace` with `params` and `seed` and plans one point per fit test of
    /// [`frontier_specs`]. Errors: invalid parameters (naming the field), an empty observation set.
    pub fn new(
        trace: &UsageTrace,
        params: &PlacementParams,
        seed: u64,
    ) -> Result<FrontierRun, PlacementError> {
        let instance = Instance::new(trace, params, seed)?;
        Ok(FrontierRun {
            params: params.clone(),
            instance,
            item_names: trace.items.clone(),
            specs: frontier_specs(params),
            points: Vec::new(),
        })
    }

    /// The instance (for the teaching view and tests).
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// The teaching view: packs with `fit` under the run's rule and rebalancing and returns the packing's
    /// metrics and machine `machine` (0-based). Errors: a bad fit spec (field `placement.fit`) or machine.
    pub fn machine(&self, fit: &str, machine: usize) -> Result<MachineAnswer, PlacementError> {
        let spec = FitSpec::parse(fit).map_err(|m| PlacementError {
            field: Some("placement.fit".into()),
            message: m,
        })?;
        let p = &self.params;
        let (packing, result) = self.instance.pack_and_evaluate(&spec, p.rule, p.rebalance);
        let view = self
            .instance
            .machine_view(&packing, machine, &self.item_names)?;
        Ok(MachineAnswer {
            fit: spec.to_string(),
            packing: result,
            view,
        })
    }
}

impl FrontierRun {
    /// The plan indices of the next at most `units` (≥ 1) points; `None` once every point is done.
    fn next(&self, units: usize) -> Option<std::ops::Range<usize>> {
        let first = self.points.len();
        (first < self.specs.len()).then(|| first..(first + units.max(1)).min(self.specs.len()))
    }

    /// One frontier point: `spec` packed and evaluated under the run's rule and rebalancing.
    fn point(&self, spec: &FitSpec) -> FrontierPoint {
        let p = &self.params;
        self.instance.frontier_point(spec, p.rule, p.rebalance)
    }

    /// Appends the next points.
    fn take(&mut self, points: Vec<FrontierPoint>) -> FrontierStep {
        let first = self.points.len();
        self.points.extend(points.iter().cloned());
        FrontierStep { first, points }
    }
}

/// The answer of the teaching view ([`FrontierRun::machine`]).
#[derive(Clone, Debug, Serialize)]
pub struct MachineAnswer {
    /// The fit spec, normalised (e.g. `gpa:0.05`).
    pub fit: String,
    /// Metrics of the packing.
    pub packing: super::PackResult,
    /// The machine.
    pub view: super::MachineView,
}

impl Experiment for FrontierRun {
    type Partial = FrontierStep;
    type Report = Frontier;

    fn total(&self) -> usize {
        self.specs.len()
    }

    fn done(&self) -> usize {
        self.points.len()
    }

    fn step(&mut self, units: usize) -> Option<FrontierStep> {
        let next = self.next(units)?;
        let points = map_parallel(threads(), &self.specs[next], |spec| self.point(spec));
        Some(self.take(points))
    }

    /// A job is the index of a frontier point (a fit test of the plan).
    fn jobs(&mut self, units: usize) -> Vec<serde_json::Value> {
        index_jobs(self.next(units))
    }

    fn compute(&mut self, job: &serde_json::Value) -> Result<serde_json::Value, RunError> {
        let i = job_index(job, self.specs.len(), "a point of this frontier")?;
        serde_json::to_value(self.point(&self.specs[i])).map_err(ser_error)
    }

    fn absorb(&mut self, results: Vec<serde_json::Value>) -> Result<Vec<FrontierStep>, RunError> {
        let expected = self.next(results.len()).map_or(0, |r| r.len());
        let points = decode_results(results, expected, "frontier point")?;
        Ok(vec![self.take(points)])
    }

    /// Every remaining point is independent: a native step may compute them all at once.
    fn batch(&self) -> usize {
        self.specs.len() - self.points.len()
    }

    fn report(&self) -> Option<Frontier> {
        if self.points.len() != self.specs.len() {
            return None;
        }
        let mut points = self.points.clone();
        mark_pareto(&mut points);
        Some(self.instance.frontier(&self.params, points))
    }

    /// `machine` with `{ fit, machine }`: see [`FrontierRun::machine`].
    fn query<S: serde::Serializer>(
        &self,
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
                let a = self
                    .machine(fit, machine as usize)
                    .map_err(RunError::from)?;
                a.serialize(ser).map_err(ser_error)
            }
            _ => Err(RunError::msg(format!(
                "the placement run has no operation '{op}'"
            ))),
        }
    }
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
    if !progress(0, run.specs.len()) {
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
