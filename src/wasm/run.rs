//! Runs of any model through the experiment contract ([`crate::experiment`]) and the registry
//! ([`crate::models`]): the Web Worker plans an [`ExperimentRun`], calls [`ExperimentRun::step`] one unit at
//! a time (reporting progress and honouring Cancel between steps) and reads the report; the CLI drives the
//! very same stepper to the end. Input files a run reads by name (`Inputs::files`, e.g. a trained policy of
//! the oversubscription model), the loaded trace and the loaded workload are gathered in a [`RunInputs`] and
//! given to the one constructor, [`ExperimentRun::new`].

use super::convert::{error_obj, json_from_js, run_error, valid_scenario, JsResult};
use super::trace::{LoadedWorkload, Trace};
use crate::experiment::Steppable;
use crate::input::InputFile;
use crate::models::{AnyRun, Inputs};
use crate::trace::UsageTrace;
use crate::workload::Workload;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The shapes of the five models' reports for the TypeScript declarations (`packlab.d.ts`): `Report`,
/// `ModelReports` (by model id) and their parts, written in `reports.d.ts` beside this file and checked
/// against every pinned `packlab run` report by `scripts/check-report-types.mjs`; the steps' partial results
/// (`Step`, `ModelSteps`), whose keys `tests/integration/pool_jobs.rs` checks against real steps of every model.
#[wasm_bindgen(typescript_custom_section)]
const TS_REPORTS: &'static str = include_str!("reports.d.ts");

/// The serializer results cross with (JSON-compatible: maps become plain objects).
fn ser() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::json_compatible()
}

fn ser_err(e: serde_wasm_bindgen::Error) -> JsValue {
    error_obj(
        "internal",
        &format!("cannot convert a result for JavaScript: {e}"),
        None,
    )
}

/// An experiment in progress (any model). It keeps its state after the last step, for queries such as the
/// placement model's teaching view.
#[wasm_bindgen]
pub struct ExperimentRun {
    inner: AnyRun,
}

/// Most bytes the input files of a [`RunInputs`] hold (all files together).
pub const MAX_RUN_FILE_BYTES: usize = 64 << 20;

/// What a run reads besides its scenario (the engine's [`Inputs`]), gathered before
/// [`ExperimentRun::new`]: the loaded usage trace ([`RunInputs::use_trace`]), the loaded workload
/// ([`RunInputs::use_workload`]) and named input files ([`RunInputs::add`], e.g. `oversub`'s `c2marl:FILE`
/// policies). The trace and workload are shared, not copied; the run copies the files it needs while it is
/// planned. Which of them a model reads, the registry says (`uses_trace`, `uses_workload`).
#[wasm_bindgen]
#[derive(Default)]
pub struct RunInputs {
    files: Vec<InputFile>,
    bytes: usize,
    trace: Option<Rc<UsageTrace>>,
    workload: Option<Rc<Workload>>,
}

#[wasm_bindgen]
impl RunInputs {
    /// No inputs.
    #[wasm_bindgen(constructor)]
    pub fn new() -> RunInputs {
        RunInputs::default()
    }

    /// The run reads the loaded usage trace `trace`.
    pub fn use_trace(&mut self, trace: &Trace) {
        self.trace = Some(trace.shared());
    }

    /// The run replays the loaded workload `workload` (VM records).
    pub fn use_workload(&mut self, workload: &LoadedWorkload) {
        self.workload = Some(workload.shared());
    }

    /// Adds the input file `name` (replacing an earlier file of that name). Errors: `{ kind: "input", field:
    /// "files", message }` when the files together exceed [`MAX_RUN_FILE_BYTES`].
    pub fn add(&mut self, name: String, bytes: Vec<u8>) -> JsResult<()> {
        let old = self.files.iter().position(|f| f.name == name);
        let freed = old.map_or(0, |i| self.files[i].bytes.len());
        if self.bytes - freed + bytes.len() > MAX_RUN_FILE_BYTES {
            return Err(error_obj(
                "input",
                &format!(
                    "{name}: the input files of a run may hold at most {} MiB",
                    MAX_RUN_FILE_BYTES >> 20
                ),
                Some("files"),
            ));
        }
        self.bytes = self.bytes - freed + bytes.len();
        match old {
            Some(i) => self.files[i].bytes = bytes,
            None => self.files.push(InputFile { name, bytes }),
        }
        Ok(())
    }

    /// Input files held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no input file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[wasm_bindgen]
impl ExperimentRun {
    /// Validates `scenario` (once) and plans its model's run on `inputs` (none: a model that reads nothing
    /// but its scenario). Errors: `{ kind: "scenario", field, message, errors }` or `{ kind: "run", field?,
    /// message }` (e.g. a model that reads a trace given none).
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: JsValue, inputs: Option<RunInputs>) -> JsResult<ExperimentRun> {
        let s = valid_scenario(scenario)?;
        let given = inputs.unwrap_or_default();
        let inputs = Inputs {
            trace: given.trace.as_deref(),
            workload: given.workload.as_deref(),
            facts: None,
            files: &given.files,
            browser: true,
        };
        let inner = crate::scenario::start_valid(&s, &inputs).map_err(|e| run_error(&e))?;
        Ok(ExperimentRun { inner })
    }

    /// Units of work planned.
    pub fn total(&self) -> usize {
        self.inner.total()
    }

    /// Units of work done so far.
    pub fn done(&self) -> usize {
        self.inner.done()
    }

    /// Advances by one unit of work and returns the model's partial result (e.g. `{ first, points }` for a
    /// frontier, `{ done, total, arm, label, evaluated, finished }` for an admission tuning), or `null` when
    /// everything is done. Errors: the experiment's own (e.g. a set-up that failed), `{ kind: "run", ... }`.
    #[wasm_bindgen(unchecked_return_type = "Step | null")]
    pub fn step(&mut self) -> JsResult<JsValue> {
        match self.inner.step(1, &ser()) {
            Some(p) => p.map_err(ser_err),
            None => match self.inner.error() {
                Some(e) => Err(run_error(&e)),
                None => Ok(JsValue::NULL),
            },
        }
    }

    /// The next step's jobs for the pool of workers ([`crate::experiment::Experiment::jobs`]), at most
    /// `units`, each as JSON text: computed by [`ExperimentRun::compute`] on any copy of this run (planned
    /// from the same scenario and inputs), then given back in order to [`ExperimentRun::absorb`]. Empty when
    /// the run does not split its next step: call [`ExperimentRun::step`] instead.
    pub fn jobs(&mut self, units: usize) -> Vec<String> {
        self.inner
            .jobs(units)
            .iter()
            .map(|j| j.to_string())
            .collect()
    }

    /// Computes one job of [`ExperimentRun::jobs`] (JSON text) and returns its result as JSON text (exact:
    /// numbers round-trip bit for bit). Errors: `{ kind: "run", message }` for a job this run did not issue.
    pub fn compute(&mut self, job: &str) -> JsResult<String> {
        let job: serde_json::Value = serde_json::from_str(job)
            .map_err(|e| error_obj("run", &format!("a job must be JSON: {e}"), None))?;
        self.inner
            .compute(&job)
            .map(|r| r.to_string())
            .map_err(|e| run_error(&e))
    }

    /// Completes the step of the last [`ExperimentRun::jobs`] with their results (JSON text, in job order)
    /// and returns its partial results (an array: one per part of the run advanced, e.g. per admission arm,
    /// each as [`ExperimentRun::step`] gives it). Errors: `{ kind: "run", message }` when the results do not
    /// answer the jobs (the run is then unchanged).
    #[wasm_bindgen(unchecked_return_type = "Step[]")]
    pub fn absorb(&mut self, results: Vec<String>) -> JsResult<js_sys::Array> {
        let results = results
            .iter()
            .map(|r| serde_json::from_str(r))
            .collect::<Result<Vec<serde_json::Value>, _>>()
            .map_err(|e| error_obj("run", &format!("a job's result must be JSON: {e}"), None))?;
        let s = ser();
        let parts = self
            .inner
            .absorb(results, || &s)
            .map_err(|e| run_error(&e))?;
        Ok(parts.into_iter().collect())
    }

    /// The report (what `packlab run` prints for the same scenario; its shape by model: `ModelReports`); an
    /// error before the last step.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn report(&self) -> JsResult<JsValue> {
        match self.inner.report(&ser()) {
            Some(r) => r.map_err(ser_err),
            None => Err(error_obj(
                "input",
                &format!(
                    "the experiment is not complete ({} of {} units)",
                    self.inner.done(),
                    self.inner.total()
                ),
                None,
            )),
        }
    }

    /// The report as the JSON text `packlab run` prints (exact: what a sweep's results are assembled from);
    /// an error before the last step.
    pub fn report_json(&self) -> JsResult<String> {
        let mut out = Vec::new();
        match self
            .inner
            .report(&mut serde_json::Serializer::new(&mut out))
        {
            Some(Ok(())) => Ok(String::from_utf8_lossy(&out).into_owned()),
            Some(Err(e)) => Err(error_obj("internal", &e.to_string(), None)),
            None => self.report().map(|_| String::new()),
        }
    }

    /// Runs every remaining step and returns the report (for tests and timing).
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn run_all(&mut self) -> JsResult<JsValue> {
        while !self.step()?.is_null() {}
        self.report()
    }

    /// A run operation of the model's `run_ops` (e.g. `machine` with `{ fit, machine }`).
    pub fn query(&self, op: &str, args: JsValue) -> JsResult<JsValue> {
        let args = json_from_js(args, "the arguments")?;
        self.inner
            .query(op, &args, &ser())
            .map_err(|e| run_error(&e))
    }
}

/// A scenario-level operation of the scenario's model (its `ops`, e.g. admission `series` with `{ label,
/// threshold, run, points }`, or `azure_fit` with the bundled arrivals as the input file `file_name` /
/// `file_bytes`).
#[wasm_bindgen]
pub fn model_call(
    scenario: JsValue,
    op: &str,
    args: JsValue,
    file_name: Option<String>,
    file_bytes: Option<Vec<u8>>,
) -> JsResult<JsValue> {
    let s = super::convert::scenario_from_js(scenario)?;
    let args = json_from_js(args, "the arguments")?;
    let files: Vec<InputFile> = match (file_name, file_bytes) {
        (Some(name), Some(bytes)) => vec![InputFile { name, bytes }],
        _ => Vec::new(),
    };
    let inputs = Inputs {
        trace: None,
        workload: None,
        facts: None,
        files: &files,
        browser: true,
    };
    crate::scenario::call(&s, op, &args, &inputs, &ser()).map_err(|e| run_error(&e))
}
