//! The one experiment contract every model's runs implement.
//!
//! A run is **planned** (the model's constructor validates the scenario and knows how many units of work it
//! will do), **advanced** one step at a time ([`Experiment::step`]: a frontier point, one simulation run of a
//! tuning evaluation, one training episode, one simulated day), reports a **partial result** after every step,
//! and ends with a **report** ([`Experiment::report`]). Nothing else drives a model:
//! - the CLI runs a scenario to the end with [`run_to_end`], giving each step [`threads`] units so
//!   independent units run on all cores natively;
//! - the wasm binding (`ExperimentRun`) and the Web Worker call the very same `step`, one unit at a time,
//!   reporting progress and honouring Cancel between steps.
//!
//! Because every unit's result depends only on the scenario and its seed, a run gives bit-identical reports
//! whatever the units per step or the thread count (each model tests this).
//!
//! The model registry ([`crate::models`]) wraps the runs of all models in one generated enum (`AnyRun`)
//! without type erasure: partial results and reports are serialized with whatever serde serializer the
//! caller brings (`serde_json` in the CLI, `serde_wasm_bindgen` in the binding), so both see the same
//! numbers and no serialization code exists twice. [`Steppable`] is what a driver needs of a run.
//!
//! [`ModelDef`] is the model contract: what the registry needs of a model ([`ModelInfo`], its section, how a
//! run starts from the section, the seed and the [`Inputs`], its operations and charts).

use crate::input::InputFile;
use crate::substrate::error::FieldError;
use crate::trace::UsageTrace;
use crate::workload::{Workload, WorkloadFacts};
use serde::{de::DeserializeOwned, Serialize, Serializer};
use serde_json::Value;

/// An error of an experiment or a model operation: the field (dotted path) to blame when there is one, and a
/// message. Displays as `field: message`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunError {
    /// Offending field path (e.g. `admission.params.sla`), when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl RunError {
    /// An error without a field.
    pub fn msg(message: impl Into<String>) -> RunError {
        RunError {
            field: None,
            message: message.into(),
        }
    }

    /// An error on `field`.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> RunError {
        RunError {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// The error of an operation `op` that model `model` does not have ([`ModelDef::call`]).
    pub fn no_op(model: &str, op: &str) -> RunError {
        RunError::msg(format!("the {model} model has no operation '{op}'"))
    }

    /// The error of a run, operation or chart of model `model` in a build without its cargo feature
    /// (`model-<id>`; the page's first wasm module has placement only, issue 30).
    pub fn not_in_build(model: &str) -> RunError {
        RunError::msg(format!(
            "the {model} model is not in this build of the engine (cargo feature model-{model})"
        ))
    }

    /// The error a cancelled run ends with (message `cancelled`).
    pub fn cancelled() -> RunError {
        RunError::msg("cancelled")
    }
}

impl From<FieldError> for RunError {
    fn from(e: FieldError) -> Self {
        RunError {
            field: Some(e.field),
            message: e.message,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(x) if !self.message.starts_with(x.as_str()) => write!(f, "{x}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for RunError {}

/// A planned run advanced step by step (see the module documentation).
pub trait Experiment {
    /// What one step produced (e.g. the frontier points just computed).
    type Partial: Serialize + 'static;
    /// The final result.
    type Report: Serialize + 'static;

    /// Units of work planned.
    fn total(&self) -> usize;
    /// Units of work done so far.
    fn done(&self) -> usize;
    /// Advances by at most `units` (≥ 1) independent units of work (natively on up to [`threads`] threads)
    /// and returns what they produced; `None` once everything is done.
    fn step(&mut self, units: usize) -> Option<Self::Partial>;
    /// The report once every unit is done; `None` before.
    fn report(&self) -> Option<Self::Report>;
    /// Independent units available to the next step (e.g. the runs left at the current threshold); a
    /// native driver gives a step at least this many, so they run on all cores at once. 1 by default.
    fn batch(&self) -> usize {
        1
    }
    /// Why the run stopped before its report, when [`Experiment::step`] returned `None` early (e.g. a
    /// set-up that failed); `None` otherwise.
    fn error(&self) -> Option<RunError> {
        None
    }
    /// The next step's independent units as self-contained **jobs** (JSON), for the browser's pool of workers:
    /// any copy of this run planned from the same scenario and inputs computes a job with
    /// [`Experiment::compute`], and [`Experiment::absorb`] takes the results (in job order) and completes the
    /// step. A job's result depends only on the scenario and the job, so the report is bit for bit the one
    /// [`Experiment::step`] gives. At most `units` (≥ 1) jobs; an empty list when the run does not split its
    /// steps (the default) or cannot split the next one: the driver then calls [`Experiment::step`]. A job
    /// may carry an integer `affinity`: jobs with equal affinity (in this and later steps) run best on one
    /// worker (it keeps their caches warm); results never depend on it.
    fn jobs(&mut self, _units: usize) -> Vec<serde_json::Value> {
        Vec::new()
    }
    /// Computes one job of [`Experiment::jobs`] (on any copy of the run). Errors: a job this run did not
    /// issue (malformed, out of range), or a run that does not split.
    fn compute(&mut self, _job: &serde_json::Value) -> Result<serde_json::Value, RunError> {
        Err(RunError::msg("this experiment does not split its steps"))
    }
    /// Completes the step whose [`Experiment::jobs`] were computed: `results` in job order. Returns what the
    /// step produced, one partial result per part of the run it advanced (e.g. per admission arm). Errors:
    /// results that do not answer the jobs issued (the run is then unchanged).
    fn absorb(&mut self, _results: Vec<serde_json::Value>) -> Result<Vec<Self::Partial>, RunError> {
        Err(RunError::msg("this experiment does not split its steps"))
    }
    /// A question about the finished (or running) experiment, e.g. the placement model's teaching view
    /// (`"machine"`); `args` is a JSON object; the answer is serialized with `ser`. Errors: unknown operation,
    /// bad arguments.
    fn query<S: serde::Serializer>(
        &self,
        op: &str,
        _args: &serde_json::Value,
        _ser: S,
    ) -> Result<S::Ok, RunError> {
        Err(no_operation(op))
    }
}

/// The error of a run operation an experiment does not have.
fn no_operation(op: &str) -> RunError {
    RunError::msg(format!("this experiment has no operation '{op}'"))
}

/// What a driver needs of a run, whatever its result types (object-safe; implemented for every
/// [`Experiment`] and for the registry's `AnyRun`).
pub trait Steppable {
    /// See [`Experiment::total`].
    fn total(&self) -> usize;
    /// See [`Experiment::done`].
    fn done(&self) -> usize;
    /// [`Experiment::step`] without looking at the partial result: false once everything is done.
    fn advance(&mut self, units: usize) -> bool;
    /// See [`Experiment::batch`].
    fn batch(&self) -> usize;
    /// See [`Experiment::error`].
    fn error(&self) -> Option<RunError>;
}

impl<E: Experiment> Steppable for E {
    fn total(&self) -> usize {
        Experiment::total(self)
    }
    fn done(&self) -> usize {
        Experiment::done(self)
    }
    fn advance(&mut self, units: usize) -> bool {
        self.step(units).is_some()
    }
    fn batch(&self) -> usize {
        Experiment::batch(self)
    }
    fn error(&self) -> Option<RunError> {
        Experiment::error(self)
    }
}

/// A serializer error as a [`RunError`].
pub fn ser_error<E: std::fmt::Display>(e: E) -> RunError {
    RunError::msg(format!("cannot serialize the result: {e}"))
}

/// A policy as the playground's controls list it (the `policies` operation of lifetime and era): the name
/// the scenario's policy strings parse, the paper's title for it and one line on what it does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PolicyInfo {
    /// The name a scenario lists (parsed by the model's `Policy::parse`).
    pub name: String,
    /// The paper's name for it (e.g. `LA-Binary`, `BASIC_ECON`).
    pub title: String,
    /// One line on what it does, with the specification section.
    pub hint: &'static str,
}

/// Serializes `value` into `ser`, a serializer error as a [`RunError`] (the models' `call` operations).
pub fn serialize_to<T: Serialize + ?Sized, S: Serializer>(
    value: &T,
    ser: S,
) -> Result<S::Ok, RunError> {
    value.serialize(ser).map_err(ser_error)
}

/// Worker threads a native step may use: the `PACKLAB_THREADS` environment variable if set (≥ 1), else
/// `std::thread::available_parallelism()`; always 1 in wasm (no threads there; the browser parallelises by
/// workers instead).
pub fn threads() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::env::var("PACKLAB_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

/// `f` applied to every item, in item order, on up to `threads` threads natively (work taken item by item)
/// and one after another in wasm. Results do not depend on the thread count.
pub fn map_parallel<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    #[cfg(target_arch = "wasm32")]
    let threads = {
        let _ = threads;
        1
    };
    let threads = threads.min(items.len()).max(1);
    if threads == 1 {
        return items.iter().map(&f).collect();
    }
    #[cfg(target_arch = "wasm32")]
    {
        unreachable!("one thread in wasm")
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let next = AtomicUsize::new(0);
        let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
            for _ in 0..threads {
                let tx = tx.clone();
                let (next, f) = (&next, &f);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() || tx.send((i, f(&items[i]))).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for (i, r) in rx {
                out[i] = Some(r);
            }
        });
        out.into_iter()
            .map(|r| r.expect("every item was mapped"))
            .collect()
    }
}

/// The index argument `key` of a run operation ([`Experiment::query`]): a non-negative integer, 0 when absent
/// or null. Errors: any other value, naming `key`.
pub fn index_arg(args: &serde_json::Value, key: &str) -> Result<usize, RunError> {
    match args.get(key) {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .and_then(|x| usize::try_from(x).ok())
            .ok_or_else(|| RunError::field(key, "must be a non-negative integer")),
    }
}

/// The jobs ([`Experiment::jobs`]) of a run whose units are numbered: the indices of `next` as JSON numbers
/// (none when `next` is `None`).
pub fn index_jobs(next: Option<std::ops::Range<usize>>) -> Vec<serde_json::Value> {
    next.into_iter().flatten().map(Into::into).collect()
}

/// A job of [`index_jobs`] back as an index below `len`. Errors: anything else, naming `what` (e.g. "a point
/// of this frontier").
pub fn job_index(job: &serde_json::Value, len: usize, what: &str) -> Result<usize, RunError> {
    job.as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < len)
        .ok_or_else(|| RunError::msg(format!("{job} is not {what}")))
}

/// The results of a step's jobs ([`Experiment::absorb`]) decoded as `T`: exactly `expected` (≥ 1) of them.
/// Errors: another count, or a result that is not a `T`, naming `what` (e.g. "frontier point").
pub fn decode_results<T: serde::de::DeserializeOwned>(
    results: Vec<serde_json::Value>,
    expected: usize,
    what: &str,
) -> Result<Vec<T>, RunError> {
    if results.is_empty() || results.len() != expected {
        return Err(RunError::msg(format!(
            "{} results for {expected} jobs issued",
            results.len()
        )));
    }
    results
        .into_iter()
        .map(serde_json::from_value)
        .collect::<Result<Vec<T>, _>>()
        .map_err(|e| RunError::msg(format!("not a {what}: {e}")))
}

/// Drives `exp` until its last step: each step gets `max(threads(), exp.batch())` units (so independent
/// units run on all cores at once), and `progress(done, total)` is called for every unit done (after the step
/// that did it); returning false cancels (error `cancelled`). Errors: cancelled, or the experiment's own
/// [`Experiment::error`]. The one run loop of the native side.
pub fn drive(
    exp: &mut dyn Steppable,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<(), RunError> {
    let threads = threads();
    let mut seen = exp.done();
    loop {
        let units = threads.max(exp.batch());
        if !exp.advance(units) {
            break;
        }
        if !report_units(&mut seen, exp.done(), exp.total(), progress) {
            return Err(RunError::cancelled());
        }
    }
    match exp.error() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs `exp` to the end with [`drive`] and returns its report.
pub fn run_to_end<E: Experiment>(
    exp: &mut E,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<E::Report, RunError> {
    drive(exp, progress)?;
    exp.report()
        .ok_or_else(|| RunError::msg("the experiment ended without a report"))
}

/// Calls `progress` once per unit finished since `seen` (so its granularity does not depend on the units
/// per step); false as soon as one call returns false.
fn report_units(
    seen: &mut usize,
    done: usize,
    total: usize,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> bool {
    if done == *seen {
        return progress(done, total);
    }
    while *seen < done {
        *seen += 1;
        if !progress(*seen, total) {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------------------
// experiments made of independent cells

/// A model's experiment made of independent cells (a frontier point, a policy on the pool, a (policy, κ)
/// cell): its cells, what a step's partial result and the report are, and its run operations. A cell's
/// result depends only on the cells' set-up and its index. The lifecycle is [`CellRun`]'s, written once:
/// `CellRun<C>` is the model's [`Experiment`].
pub trait Cells: Sync + Sized {
    /// One cell's result (an element of the partial results; a job's result as JSON).
    type Result: Clone + Send + Serialize + DeserializeOwned;
    /// [`Experiment::Partial`].
    type Partial: Serialize + 'static;
    /// [`Experiment::Report`].
    type Report: Serialize + 'static;
    /// What a job is, for the error of a job that is not one (e.g. "a point of this frontier").
    const JOB: &'static str;
    /// What a job's result is, for the error of a result that is not one (e.g. "frontier point").
    const RESULT: &'static str;
    /// Number of cells.
    fn len(&self) -> usize;
    /// Whether there are no cells.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Prepares what the cells `range` share before they are computed (e.g. a predictor they read); nothing
    /// by default. Errors end the run.
    fn prepare(&mut self, _range: std::ops::Range<usize>) -> Result<(), RunError> {
        Ok(())
    }
    /// The result of cell `i` (< [`Cells::len`], prepared). Errors end the run.
    fn compute(&self, i: usize) -> Result<Self::Result, RunError>;
    /// The partial result of a step that computed the cells `first..first + results.len()`.
    fn partial(first: usize, results: Vec<Self::Result>) -> Self::Partial;
    /// The report from every cell's result, in cell order (called once all are computed).
    fn report(&self, results: &[Self::Result]) -> Self::Report;
    /// [`Experiment::query`] of `run`; no operation by default.
    fn answer<S: serde::Serializer>(
        _run: &CellRun<Self>,
        op: &str,
        _args: &serde_json::Value,
        _ser: S,
    ) -> Result<S::Ok, RunError> {
        Err(no_operation(op))
    }
}

/// The [`Experiment`] of a model made of independent [`Cells`], written once: units of work are cells in
/// order; a step computes its cells on [`threads`] threads ([`map_parallel`]); jobs are cell indices
/// ([`index_jobs`]) computed on any copy and absorbed in order; the first error ends the run.
pub struct CellRun<C: Cells> {
    cells: C,
    results: Vec<C::Result>,
    error: Option<RunError>,
}

impl<C: Cells> CellRun<C> {
    /// A run of `cells`, none computed.
    pub fn of(cells: C) -> Self {
        CellRun {
            cells,
            results: Vec::new(),
            error: None,
        }
    }

    /// The cells.
    pub fn cells(&self) -> &C {
        &self.cells
    }

    /// The results of the cells computed so far, in cell order.
    pub fn results(&self) -> &[C::Result] {
        &self.results
    }

    /// The next step's cells: at most `units` (at least 1) after the computed ones; `None` at the end or
    /// after an error.
    fn next(&self, units: usize) -> Option<std::ops::Range<usize>> {
        let first = self.results.len();
        (self.error.is_none() && first < self.cells.len())
            .then(|| first..(first + units.max(1)).min(self.cells.len()))
    }
}

impl<C: Cells> Experiment for CellRun<C> {
    type Partial = C::Partial;
    type Report = C::Report;

    /// The number of cells.
    fn total(&self) -> usize {
        self.cells.len()
    }

    /// The cells computed.
    fn done(&self) -> usize {
        self.results.len()
    }

    /// Computes the next `units` cells; `None` at the end or on an error (kept for [`Experiment::error`]).
    fn step(&mut self, units: usize) -> Option<C::Partial> {
        let next = self.next(units)?;
        if let Err(e) = self.cells.prepare(next.clone()) {
            self.error = Some(e);
            return None;
        }
        let first = next.start;
        let index: Vec<usize> = next.collect();
        let cells = &self.cells;
        let out = map_parallel(threads(), &index, |&i| cells.compute(i));
        let mut results = Vec::with_capacity(out.len());
        for r in out {
            match r {
                Ok(c) => results.push(c),
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
        self.results.extend(results.iter().cloned());
        Some(C::partial(first, results))
    }

    /// Every remaining cell is independent: the cells left.
    fn batch(&self) -> usize {
        self.cells.len() - self.results.len()
    }

    fn error(&self) -> Option<RunError> {
        self.error.clone()
    }

    /// A job is the index of a cell: the next `units` cells'.
    fn jobs(&mut self, units: usize) -> Vec<serde_json::Value> {
        index_jobs(self.next(units))
    }

    /// The result of the cell a job names, as JSON.
    fn compute(&mut self, job: &serde_json::Value) -> Result<serde_json::Value, RunError> {
        let i = job_index(job, self.cells.len(), C::JOB)?;
        self.cells.prepare(i..i + 1)?;
        serde_json::to_value(self.cells.compute(i)?).map_err(ser_error)
    }

    /// The results of the jobs of a step, in job order: one partial result.
    fn absorb(&mut self, results: Vec<serde_json::Value>) -> Result<Vec<C::Partial>, RunError> {
        let first = self.results.len();
        let expected = results.len().min(self.cells.len() - first);
        let cells: Vec<C::Result> = decode_results(results, expected, C::RESULT)?;
        self.results.extend(cells.iter().cloned());
        Ok(vec![C::partial(first, cells)])
    }

    fn report(&self) -> Option<C::Report> {
        (self.results.len() == self.cells.len()).then(|| self.cells.report(&self.results))
    }

    fn query<S: serde::Serializer>(
        &self,
        op: &str,
        args: &serde_json::Value,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        C::answer(self, op, args, ser)
    }
}

// ---------------------------------------------------------------------------------------------------------
// the model contract

/// Static facts of a model: what the CLI's `packlab models`, the wasm `models()` and the playground's tab
/// list show.
#[derive(Clone, Debug, Serialize)]
pub struct ModelInfo {
    /// Id: the scenario's `model` value and the name of its section, its `src/models/` and `www/` folders.
    pub id: &'static str,
    /// Tab title.
    pub title: &'static str,
    /// One line on what it does.
    pub hint: &'static str,
    /// The paper (seed number) and the specification section, e.g. "seed 002, ALGORITHMS.md §4".
    pub source: &'static str,
    /// Whether runs read a usage trace (the scenario's `trace`).
    pub uses_trace: bool,
    /// Whether runs read a workload of VM records (the scenario's `workload`, [`crate::workload::Workload`]).
    pub uses_workload: bool,
    /// Whether its runs read the workload only as compact records ([`crate::workload::WorkloadFacts`], issue 30):
    /// a caller may then read the workload so ([`Inputs::facts`]) and skip the VM records. Not sent to the page.
    #[serde(skip)]
    pub reads_facts: bool,
    /// The named experiments (presets) of its section, if any.
    pub experiments: &'static [&'static str],
    /// Its charts: names accepted by [`crate::models::draw_chart`] (prefixed with the id, e.g. `placement.frontier`),
    /// the table of the model folder's `chart.rs` (`chart_table!`, whose `draw` the registry calls).
    pub charts: &'static [&'static str],
    /// Scenario-level operations accepted by [`crate::scenario::call`] (e.g. `admission` `series`).
    pub ops: &'static [&'static str],
    /// Operations on a run accepted by [`crate::models::AnyRun::query`] (e.g. `placement` `machine`).
    pub run_ops: &'static [&'static str],
}

/// What a run may read besides its scenario: the loaded usage trace and named input files (e.g. a bundled
/// data file's bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs<'a> {
    /// The loaded usage trace, for models with [`ModelInfo::uses_trace`].
    pub trace: Option<&'a UsageTrace>,
    /// The loaded workload, for models with [`ModelInfo::uses_workload`].
    pub workload: Option<&'a Workload>,
    /// The loaded workload as the lifetime model's compact records, when the caller read it so (the CLI's
    /// `lifetime` command, issue 30); that model reads these before `workload`, converting it otherwise.
    pub facts: Option<&'a WorkloadFacts>,
    /// Further input files by name.
    pub files: &'a [InputFile],
    /// Whether the run is in the browser (one thread, a page waiting): models refuse set-ups too long for
    /// it, with a message pointing to the CLI.
    pub browser: bool,
}

impl<'a> Inputs<'a> {
    /// The loaded trace, or an error on the field `trace` when none is loaded.
    pub fn need_trace(&self) -> Result<&'a UsageTrace, RunError> {
        self.trace
            .ok_or_else(|| RunError::field("trace", "no trace is loaded"))
    }

    /// The loaded workload, or an error on the field `workload` when none is loaded.
    pub fn need_workload(&self) -> Result<&'a Workload, RunError> {
        self.workload
            .ok_or_else(|| RunError::field("workload", "no workload is loaded"))
    }

    /// The bytes of the input file `name`, or an error naming it.
    pub fn need_file(&self, name: &str) -> Result<&'a [u8], RunError> {
        self.files
            .iter()
            .find(|f| f.name == name)
            .map(|f| &f.bytes[..])
            .ok_or_else(|| RunError::msg(format!("the input file '{name}' was not given")))
    }
}

/// One model behind the experiment contract (see the module documentation).
pub trait ModelDef {
    /// Static facts.
    const INFO: ModelInfo;
    /// The model's scenario section (its field of [`crate::scenario::Scenario`] is named [`ModelInfo::id`]).
    type Section: Serialize + DeserializeOwned + Default + Clone + PartialEq + std::fmt::Debug;
    /// The model's run (its experiment stepper).
    type Run: Experiment;
    /// Every problem of the section, field paths prefixed with `prefix` (e.g. `placement.`).
    fn validate(section: &Self::Section, prefix: &str) -> Vec<FieldError>;
    /// The error a run of `section` fails with when the section is invalid (field paths prefixed with `<id>.`):
    /// by default its first problem. The CLI's per-model commands check their flags' section with it once; a
    /// scenario is checked whole ([`crate::scenario::Scenario::into_valid`]).
    fn check(section: &Self::Section) -> Result<(), RunError> {
        match Self::validate(section, &format!("{}.", Self::INFO.id))
            .into_iter()
            .next()
        {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
    /// Plans the run of a section validated once before ([`ModelDef::check`], or the scenario's validation)
    /// with the scenario's master `seed`; it does not validate the section again.
    fn start(section: &Self::Section, seed: u64, inputs: &Inputs) -> Result<Self::Run, RunError>;
    /// An operation of [`ModelInfo::ops`] on the section (and the scenario's `seed`) with JSON arguments; the
    /// answer is serialized with `ser`.
    fn call<S: Serializer>(
        _section: &Self::Section,
        _seed: u64,
        op: &str,
        _args: &Value,
        _inputs: &Inputs,
        _ser: S,
    ) -> Result<S::Ok, RunError> {
        Err(RunError::no_op(Self::INFO.id, op))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums 1..=n in steps: a toy experiment to check the driver and the stepping.
    struct Sum {
        n: usize,
        i: usize,
        acc: u64,
    }

    impl Experiment for Sum {
        type Partial = Vec<u64>;
        type Report = u64;
        fn total(&self) -> usize {
            self.n
        }
        fn done(&self) -> usize {
            self.i
        }
        fn step(&mut self, units: usize) -> Option<Vec<u64>> {
            if self.i == self.n {
                return None;
            }
            let k = units.min(self.n - self.i);
            let items: Vec<u64> = (self.i as u64 + 1..=(self.i + k) as u64).collect();
            let sq = map_parallel(3, &items, |x| x * x);
            self.acc += sq.iter().sum::<u64>();
            self.i += k;
            Some(sq)
        }
        fn report(&self) -> Option<u64> {
            (self.i == self.n).then_some(self.acc)
        }
    }

    #[test]
    fn driver_runs_to_the_end_and_cancels() {
        // Σ k² for k = 1..=10 = 10·11·21/6 = 385
        let mut s = Sum {
            n: 10,
            i: 0,
            acc: 0,
        };
        let mut calls = 0;
        assert_eq!(
            run_to_end(&mut s, &mut |_, _| {
                calls += 1;
                true
            })
            .unwrap(),
            385
        );
        assert!(calls >= 1);
        let mut s = Sum {
            n: 10,
            i: 0,
            acc: 0,
        };
        let e = run_to_end(&mut s, &mut |_, _| false).unwrap_err();
        assert_eq!(e.message, "cancelled");
        // one unit per step (the browser's way) gives the same report
        let mut s = Sum {
            n: 10,
            i: 0,
            acc: 0,
        };
        let mut partials = Vec::new();
        while let Some(p) = s.step(1) {
            partials.push(serde_json::to_string(&p).unwrap());
        }
        assert_eq!(partials.len(), 10);
        assert_eq!(partials[3], "[16]");
        assert_eq!(s.report(), Some(385));
        assert!(!s.advance(1));
        // an experiment that does not split its steps gives no jobs
        assert!(s.jobs(4).is_empty());
        assert!(s.compute(&serde_json::json!(0)).is_err());
        assert!(s.absorb(vec![]).is_err());
        let mut out = Vec::new();
        let q = s.query(
            "x",
            &serde_json::Value::Null,
            &mut serde_json::Serializer::new(&mut out),
        );
        assert!(q.is_err());
    }

    #[test]
    fn map_parallel_keeps_item_order() {
        let items: Vec<u64> = (0..97).collect();
        for t in [1, 2, 5, 200] {
            assert_eq!(
                map_parallel(t, &items, |x| x * 3 + 1),
                items.iter().map(|x| x * 3 + 1).collect::<Vec<_>>()
            );
        }
        assert!(map_parallel(4, &Vec::<u64>::new(), |x| *x).is_empty());
    }

    /// Cells `i ↦ i²` for `i < n`; cell `fail` (if any) fails. The report is Σ i² = (n−1)n(2n−1)/6.
    struct Squares {
        n: usize,
        fail: Option<usize>,
    }

    impl Cells for Squares {
        type Result = u64;
        type Partial = (usize, Vec<u64>);
        type Report = u64;
        const JOB: &'static str = "a square of this run";
        const RESULT: &'static str = "square";
        fn len(&self) -> usize {
            self.n
        }
        fn compute(&self, i: usize) -> Result<u64, RunError> {
            match self.fail {
                Some(f) if f == i => Err(RunError::field("cell", format!("cell {i} fails"))),
                _ => Ok((i * i) as u64),
            }
        }
        fn partial(first: usize, results: Vec<u64>) -> (usize, Vec<u64>) {
            (first, results)
        }
        fn report(&self, results: &[u64]) -> u64 {
            results.iter().sum()
        }
    }

    fn squares(n: usize, fail: Option<usize>) -> CellRun<Squares> {
        CellRun::of(Squares { n, fail })
    }

    #[test]
    fn cell_run_steps_jobs_and_errors() {
        // stepped two cells at a time: the partials name their first cell; the report only at the end
        let mut run = squares(5, None);
        assert_eq!((Experiment::total(&run), Experiment::batch(&run)), (5, 5));
        assert_eq!(run.step(2), Some((0, vec![0, 1])));
        assert_eq!(run.report(), None);
        assert_eq!(run.step(2), Some((2, vec![4, 9])));
        assert_eq!(run.step(2), Some((4, vec![16])));
        assert_eq!(
            (run.step(2), Experiment::done(&run), Experiment::error(&run)),
            (None, 5, None)
        );
        assert_eq!(run.report(), Some(4 * 5 * 9 / 6));
        // jobs computed on another copy, passed as JSON, absorbed in order
        let (mut main, mut other) = (squares(5, None), squares(5, None));
        let jobs = main.jobs(3);
        assert_eq!(jobs, vec![Value::from(0), Value::from(1), Value::from(2)]);
        let results: Vec<Value> = jobs.iter().map(|j| other.compute(j).unwrap()).collect();
        assert_eq!(main.absorb(results).unwrap(), vec![(0, vec![0, 1, 4])]);
        assert_eq!(Experiment::done(&main), 3);
        assert!(
            other.compute(&Value::from(5)).is_err(),
            "a cell out of range"
        );
        let bad = main.absorb(vec![Value::from("x")]);
        assert!(bad.is_err() && Experiment::done(&main) == 3, "{bad:?}");
        // a failing cell ends the run with its error; no report, no further jobs
        let mut failing = squares(5, Some(3));
        assert_eq!(failing.step(2), Some((0, vec![0, 1])));
        assert_eq!(failing.step(2), None);
        assert_eq!(Experiment::error(&failing).unwrap().message, "cell 3 fails");
        assert!(failing.jobs(2).is_empty() && failing.report().is_none());
        // no operations by default
        let q = run.query("x", &Value::Null, serde_json::value::Serializer);
        assert_eq!(
            q.unwrap_err().message,
            "this experiment has no operation 'x'"
        );
    }
}
