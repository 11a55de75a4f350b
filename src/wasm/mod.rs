//! The WebAssembly binding layer (wasm32 only): a thin wrapper over the engine's public API for the
//! browser playground (`www/`).
//!
//! Rules of this layer:
//! - every export returns `Result`; errors cross as plain JS objects `{ kind, message, ... }`
//!   (`kind`: `"trace"` with `file`, `line`, `column`; `"scenario"` with `field` and/or `errors: [{field,
//!   message}]`; `"placement"` with `field`; `"chart"`; `"input"`), so no panic is needed anywhere and the page
//!   can show each message next to its field. `console_error_panic_hook` reports anything unexpected.
//! - structured values cross with serde-wasm-bindgen in its JSON-compatible mode (maps become plain objects;
//!   u64 seeds are limited to 2^53 − 1 by [`crate::scenario::MAX_SEED`]).
//! - computing happens in a Web Worker ([`TraceBuilder`], [`Trace`], [`PlacementRun`]); drawing
//!   (`draw_*`, `*_svg`) happens on the page's main thread, because plotters measures text through
//!   `window.document` (../shared/TOOLCHAIN.md trap 2).
//!
//! An admission experiment (seed 000) is computed one simulation run at a time by [`AdmissionRun::step`]
//! (the worker reports progress and honours Cancel between runs); [`AdmissionRun::report`] equals
//! [`crate::admission::experiment::run_admission`] (and so `packlab run`) for the same scenario.
//!
//! A frontier is computed point by point by [`PlacementRun::step`] so the worker can report progress and
//! honour Cancel between points; [`PlacementRun::finish`] gives exactly what
//! [`crate::placement::run_frontier`] (and so `packlab run`) gives for the same scenario.

use crate::chart::{self, ChartPoint, FrontierChartOptions, HistogramChart, MachineChart};
use crate::placement::{
    frontier_specs, mark_pareto, FitSpec, FrontierPoint, Instance, PlacementError,
};
use crate::scenario::{Scenario, ScenarioError};
use crate::trace::{self, InputFile, TraceError, UsageTrace};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

type JsResult<T> = Result<T, JsValue>;

/// Installs the panic hook (runs when the module is instantiated).
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

fn to_js<T: Serialize + ?Sized>(v: &T) -> JsResult<JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| {
            error_obj(
                "internal",
                &format!("cannot convert a result for JavaScript: {e}"),
                None,
            )
        })
}

/// A plain JS error object `{ kind, message, field? }`.
fn error_obj(kind: &str, message: &str, field: Option<&str>) -> JsValue {
    #[derive(Serialize)]
    struct E<'a> {
        kind: &'a str,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        field: Option<&'a str>,
    }
    E {
        kind,
        message,
        field,
    }
    .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
    .unwrap_or_else(|_| JsValue::from_str(message))
}

fn trace_error(e: &TraceError) -> JsValue {
    #[derive(Serialize)]
    struct E<'a> {
        kind: &'static str,
        file: &'a str,
        line: Option<usize>,
        column: Option<usize>,
        message: &'a str,
        display: String,
    }
    to_js(&E {
        kind: "trace",
        file: &e.file,
        line: e.line,
        column: e.column,
        message: &e.message,
        display: e.to_string(),
    })
    .unwrap_or_else(|v| v)
}

fn scenario_error(e: &ScenarioError) -> JsValue {
    error_obj("scenario", &e.message, e.field.as_deref())
}

fn placement_error(e: &PlacementError) -> JsValue {
    error_obj("placement", &e.message, e.field.as_deref())
}

fn chart_error(e: chart::ChartError) -> JsValue {
    error_obj("chart", &e.0, None)
}

/// Converts a JS scenario object (full or partial) into a [`Scenario`], merged onto the defaults.
fn scenario_from_js(v: JsValue) -> JsResult<Scenario> {
    if v.is_undefined() || v.is_null() {
        return Ok(Scenario::default());
    }
    let json: serde_json::Value = serde_wasm_bindgen::from_value(v)
        .map_err(|e| error_obj("scenario", &format!("not a scenario object: {e}"), None))?;
    let text =
        serde_json::to_string(&json).map_err(|e| error_obj("scenario", &e.to_string(), None))?;
    Scenario::from_json(&text).map_err(|e| scenario_error(&e))
}

/// Like [`scenario_from_js`] and also validated: errors list every bad field.
fn valid_scenario(v: JsValue) -> JsResult<Scenario> {
    let s = scenario_from_js(v)?;
    s.validate().map_err(|errs| {
        #[derive(Serialize)]
        struct E<'a> {
            kind: &'static str,
            message: String,
            field: &'a str,
            errors: &'a [crate::placement::FieldError],
        }
        let first = &errs[0];
        to_js(&E {
            kind: "scenario",
            message: first.to_string(),
            field: &first.field,
            errors: &errs,
        })
        .unwrap_or_else(|v| v)
    })?;
    Ok(s)
}

// ---------------------------------------------------------------------------------------------------------
// engine facts, scenarios and share links

/// The engine (crate) version.
#[wasm_bindgen]
pub fn engine_version() -> String {
    crate::ENGINE_VERSION.to_string()
}

/// The bundled traces: `[{ id, path, format, title, attribution }]`.
#[wasm_bindgen]
pub fn bundled_traces() -> JsResult<JsValue> {
    to_js(trace::BUNDLED)
}

/// The default scenario as a plain object.
#[wasm_bindgen]
pub fn default_scenario() -> JsResult<JsValue> {
    to_js(&Scenario::default())
}

/// Merges a (partial) scenario onto the defaults and validates it: returns `{ scenario, errors }` where
/// `errors` is `[{ field, message }]` (empty when valid). Throws only when the object cannot be a scenario
/// at all (wrong types, unknown fields).
#[wasm_bindgen]
pub fn check_scenario(scenario: JsValue) -> JsResult<JsValue> {
    let s = scenario_from_js(scenario)?;
    let errors = s.validate().err().unwrap_or_default();
    #[derive(Serialize)]
    struct Checked<'a> {
        scenario: &'a Scenario,
        errors: Vec<crate::placement::FieldError>,
    }
    to_js(&Checked {
        scenario: &s,
        errors,
    })
}

/// The share-link payload `v2.d<set>.…` of a valid scenario (the fragment is `#s=` + it).
#[wasm_bindgen]
pub fn scenario_to_link(scenario: JsValue) -> JsResult<String> {
    Ok(valid_scenario(scenario)?.to_link())
}

/// Decodes a share link (payload, `#s=…` or a whole URL; `v2.d<set>.…` or the old `v1.…`) into a validated
/// scenario object. A link from a defaults set this engine does not know throws `{ field: "defaults" }`.
#[wasm_bindgen]
pub fn scenario_from_link(link: &str) -> JsResult<JsValue> {
    let s = Scenario::from_link(link).map_err(|e| scenario_error(&e))?;
    to_js(&s)
}

/// The scenario as pretty JSON, exactly what `packlab run scenario.json` reads.
#[wasm_bindgen]
pub fn scenario_json(scenario: JsValue) -> JsResult<String> {
    let s = valid_scenario(scenario)?;
    serde_json::to_string_pretty(&s).map_err(|e| error_obj("internal", &e.to_string(), None))
}

// ---------------------------------------------------------------------------------------------------------
// traces

/// Collects the files of an upload (or a bundled trace's bytes) one by one, then parses them.
#[wasm_bindgen]
#[derive(Default)]
pub struct TraceBuilder {
    files: Vec<InputFile>,
    bytes: usize,
}

#[wasm_bindgen]
impl TraceBuilder {
    #[wasm_bindgen(constructor)]
    pub fn new() -> TraceBuilder {
        TraceBuilder::default()
    }

    /// Adds one file: its name (a relative path for folder uploads, e.g. `20110303/vm1`) and bytes.
    /// Errors when the upload grows past [`trace::MAX_UPLOAD_BYTES`].
    pub fn add(&mut self, name: String, bytes: Vec<u8>) -> JsResult<()> {
        self.bytes += bytes.len();
        if self.bytes > trace::MAX_UPLOAD_BYTES {
            return Err(trace_error(&TraceError::new(
                &name,
                None,
                None,
                format!(
                    "the upload exceeds the limit of {} MiB",
                    trace::MAX_UPLOAD_BYTES >> 20
                ),
            )));
        }
        self.files.push(InputFile { name, bytes });
        Ok(())
    }

    /// SHA-256 of the files added so far ([`trace::upload_sha256`]), to check an upload against a link
    /// before parsing it.
    pub fn sha256(&self) -> String {
        trace::upload_sha256(&self.files)
    }

    /// Number of files added so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Detects the format and parses (see [`trace::read_upload`]); consumes the builder. The trace is
    /// called `name` when given (a bundled trace's id, as the CLI names it), else after the upload
    /// ([`trace::upload_name`]). Errors are `{ kind: "trace", file, line, column, message, display }`.
    pub fn finish(self, name: Option<String>) -> JsResult<Trace> {
        let sha256 = trace::upload_sha256(&self.files);
        let name = name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| trace::upload_name(&self.files));
        let t = trace::read_trace(&name, &self.files, None).map_err(|e| trace_error(&e))?;
        Ok(Trace { inner: t, sha256 })
    }
}

/// A parsed trace and the SHA-256 of the bytes it came from (what upload share links record).
#[wasm_bindgen]
pub struct Trace {
    inner: UsageTrace,
    sha256: String,
}

#[wasm_bindgen]
impl Trace {
    /// Trace name (file or folder name).
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Lower-case hex SHA-256 of the upload ([`trace::upload_sha256`]).
    pub fn sha256(&self) -> String {
        self.sha256.clone()
    }

    /// Number of VMs.
    pub fn vms(&self) -> usize {
        self.inner.items.len()
    }

    /// Samples per VM.
    pub fn samples(&self) -> usize {
        self.inner.samples
    }

    /// The trace summary (VMs, samples, mean, s.d., min, max, histogram).
    pub fn summary(&self) -> JsResult<JsValue> {
        to_js(&self.inner.summary())
    }
}

impl Trace {
    /// The engine's trace (for Rust callers and tests).
    pub fn usage_trace(&self) -> &UsageTrace {
        &self.inner
    }
}

// ---------------------------------------------------------------------------------------------------------
// the placement model

/// A frontier computation in progress, driven point by point from the worker; it keeps its
/// [`Instance`] afterwards for the teaching view.
#[wasm_bindgen]
pub struct PlacementRun {
    scenario: Scenario,
    instance: Instance,
    item_names: Vec<String>,
    specs: Vec<FitSpec>,
    points: Vec<FrontierPoint>,
}

#[wasm_bindgen]
impl PlacementRun {
    /// Validates `scenario` and builds the instance from `trace` (its placement parameters and seed).
    #[wasm_bindgen(constructor)]
    pub fn new(trace: &Trace, scenario: JsValue) -> JsResult<PlacementRun> {
        let scenario = valid_scenario(scenario)?;
        let instance = Instance::new(&trace.inner, &scenario.placement, scenario.seed)
            .map_err(|e| placement_error(&e))?;
        let specs = frontier_specs(&scenario.placement);
        Ok(PlacementRun {
            scenario,
            instance,
            item_names: trace.inner.items.clone(),
            specs,
            points: Vec::new(),
        })
    }

    /// Number of frontier points.
    pub fn total(&self) -> usize {
        self.specs.len()
    }

    /// Points computed so far.
    pub fn done(&self) -> usize {
        self.points.len()
    }

    /// Computes the next point and returns it (pareto not yet marked); errors when all are done.
    pub fn step(&mut self) -> JsResult<JsValue> {
        let Some(spec) = self.specs.get(self.points.len()) else {
            return Err(error_obj("input", "the frontier is complete", None));
        };
        let p = &self.scenario.placement;
        let point = self.instance.frontier_point(spec, p.rule, p.rebalance);
        let out = to_js(&point)?;
        self.points.push(point);
        Ok(out)
    }

    /// Marks the Pareto front and returns the whole frontier (all points must be done); the same record
    /// as [`crate::placement::run_frontier`].
    pub fn finish(&self) -> JsResult<JsValue> {
        if self.points.len() != self.specs.len() {
            return Err(error_obj(
                "input",
                &format!(
                    "the frontier is not complete ({} of {} points)",
                    self.points.len(),
                    self.specs.len()
                ),
                None,
            ));
        }
        let mut points = self.points.clone();
        mark_pareto(&mut points);
        to_js(&self.instance.frontier(&self.scenario.placement, points))
    }

    /// Runs all remaining points and returns the frontier (for tests and node).
    pub fn run_all(&mut self) -> JsResult<JsValue> {
        while self.points.len() < self.specs.len() {
            self.step()?;
        }
        self.finish()
    }

    /// The teaching view: packs with `fit` (e.g. `"gpa:0.05"`) under the run's rule and rebalancing and
    /// returns `{ fit, packing: { m_abs, m_norm, m, q, utilization, q_per_machine, items_per_machine },
    /// view: MachineView }` for machine `machine` (0-based).
    pub fn machine(&self, fit: &str, machine: usize) -> JsResult<JsValue> {
        let spec =
            FitSpec::parse(fit).map_err(|m| error_obj("placement", &m, Some("placement.fit")))?;
        let p = &self.scenario.placement;
        let packing = self.instance.pack(&spec, p.rule, p.rebalance);
        let result = self.instance.evaluate(&spec, &packing);
        let view = self
            .instance
            .machine_view(&packing, machine, &self.item_names)
            .map_err(|e| placement_error(&e))?;
        #[derive(Serialize)]
        struct Out<'a> {
            fit: String,
            packing: &'a crate::placement::PackResult,
            view: &'a crate::placement::MachineView,
        }
        to_js(&Out {
            fit: spec.to_string(),
            packing: &result,
            view: &view,
        })
    }
}

/// Runs the scenario's whole frontier on `trace` in one call with [`crate::placement::run_frontier`]
/// (what the CLI runs); used by tests and the node timing script.
#[wasm_bindgen]
pub fn run_frontier(trace: &Trace, scenario: JsValue) -> JsResult<JsValue> {
    let s = valid_scenario(scenario)?;
    let f = crate::placement::run_frontier(&trace.inner, &s.placement, s.seed, &mut |_, _| true)
        .map_err(|e| placement_error(&e))?;
    to_js(&f)
}

// ---------------------------------------------------------------------------------------------------------
// charts (main thread only)

fn chart_points(points: JsValue) -> JsResult<Vec<ChartPoint>> {
    serde_wasm_bindgen::from_value(points)
        .map_err(|e| error_obj("chart", &format!("bad chart points: {e}"), None))
}

fn chart_opts<T: serde::de::DeserializeOwned + Default>(opts: JsValue) -> JsResult<T> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(opts)
        .map_err(|e| error_obj("chart", &format!("bad chart options: {e}"), None))
}

fn canvas_area(
    canvas: HtmlCanvasElement,
) -> JsResult<plotters::drawing::DrawingArea<CanvasBackend, plotters::coord::Shift>> {
    CanvasBackend::with_canvas_object(canvas)
        .map(|b| b.into_drawing_area())
        .ok_or_else(|| error_obj("chart", "the canvas has no 2D context", None))
}

/// Draws a frontier (`points` = the frontier's points) into `canvas`; `opts` = `{ target_rho, highlight,
/// title, scale }`. Returns the layout `{ points: [[x, y]...], plot_area, zero_floor }` in canvas pixels.
#[wasm_bindgen]
pub fn draw_frontier(
    canvas: HtmlCanvasElement,
    points: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    let points = chart_points(points)?;
    let opts: FrontierChartOptions = chart_opts(opts)?;
    let area = canvas_area(canvas)?;
    let layout = chart::draw_frontier(&area, &points, &opts).map_err(chart_error)?;
    to_js(&layout)
}

/// The frontier chart as an SVG document (`width` × `height` px).
#[wasm_bindgen]
pub fn frontier_svg(points: JsValue, opts: JsValue, width: u32, height: u32) -> JsResult<String> {
    let points = chart_points(points)?;
    let opts: FrontierChartOptions = chart_opts(opts)?;
    chart::frontier_svg(
        &points,
        &opts,
        width.clamp(100, 8000),
        height.clamp(100, 8000),
    )
    .map_err(chart_error)
}

fn machine_chart(view: JsValue, scale: f64) -> JsResult<MachineChart> {
    #[derive(serde::Deserialize)]
    struct View {
        machine: usize,
        totals: Vec<f64>,
        mean: f64,
        sd: f64,
        capacity: f64,
        empirical_overflow: f64,
        gaussian_overflow: f64,
        #[serde(default)]
        items: Vec<String>,
    }
    let v: View = serde_wasm_bindgen::from_value(view)
        .map_err(|e| error_obj("chart", &format!("bad machine view: {e}"), None))?;
    Ok(MachineChart {
        totals: v.totals,
        mean: v.mean,
        sd: v.sd,
        capacity: v.capacity,
        p_empirical: v.empirical_overflow,
        p_gaussian: v.gaussian_overflow,
        title: Some(format!(
            "machine {} ({} VMs): total usage over the evaluation samples E",
            v.machine,
            v.items.len()
        )),
        scale: Some(scale),
    })
}

/// Draws the teaching view (`view` = a `MachineView`) into `canvas`.
#[wasm_bindgen]
pub fn draw_machine(canvas: HtmlCanvasElement, view: JsValue, scale: f64) -> JsResult<()> {
    let m = machine_chart(view, scale)?;
    let area = canvas_area(canvas)?;
    chart::draw_machine(&area, &m).map_err(chart_error)
}

/// The teaching view as an SVG document.
#[wasm_bindgen]
pub fn machine_svg(view: JsValue, width: u32, height: u32) -> JsResult<String> {
    let m = machine_chart(view, 1.0)?;
    chart::machine_svg(&m, width.clamp(100, 8000), height.clamp(100, 8000)).map_err(chart_error)
}

fn histogram_chart(summary: JsValue, scale: f64) -> JsResult<HistogramChart> {
    #[derive(serde::Deserialize)]
    struct Bin {
        lo: f64,
        hi: f64,
        count: u64,
    }
    #[derive(serde::Deserialize)]
    struct Summary {
        histogram: Vec<Bin>,
    }
    let s: Summary = serde_wasm_bindgen::from_value(summary)
        .map_err(|e| error_obj("chart", &format!("bad trace summary: {e}"), None))?;
    let (Some(first), Some(last)) = (s.histogram.first(), s.histogram.last()) else {
        return Err(error_obj("chart", "the summary has no histogram", None));
    };
    Ok(HistogramChart {
        lo: first.lo,
        hi: last.hi,
        counts: s.histogram.iter().map(|b| b.count).collect(),
        x_label: Some("usage per VM sample (VM units)".into()),
        title: None,
        scale: Some(scale),
    })
}

/// Draws a trace summary's histogram with its CDF into `canvas`.
#[wasm_bindgen]
pub fn draw_trace_histogram(
    canvas: HtmlCanvasElement,
    summary: JsValue,
    scale: f64,
) -> JsResult<()> {
    let h = histogram_chart(summary, scale)?;
    let area = canvas_area(canvas)?;
    chart::draw_histogram(&area, &h).map_err(chart_error)
}

// ---------------------------------------------------------------------------------------------------------
// the admission model (seed 000)

/// Whether the Azure-fitted admission parameters are available in this engine.
#[wasm_bindgen]
pub fn azure_fit_available() -> bool {
    crate::admission::scenario::AZURE_FIT_AVAILABLE
}

/// Fits the Azure 2017 arrivals (`bytes` = the bundled `static/traces/azure2017-arrivals.txt.gz`) and writes
/// the identified parameters into the scenario ([`crate::admission::scenario::apply_azure_fit`]): returns `{ scenario,
/// fit }` with `fit` = the engine's `AzureFit` report (estimates with standard errors, defaults kept, notes).
#[wasm_bindgen]
pub fn admission_azure_fit(bytes: Vec<u8>, scenario: JsValue) -> JsResult<JsValue> {
    let mut s = scenario_from_js(scenario)?;
    let fit = crate::admission::scenario::apply_azure_fit(&mut s.admission, &bytes)
        .map_err(|m| error_obj("input", &m, Some("admission.source")))?;
    #[derive(Serialize)]
    struct Out<'a> {
        scenario: &'a Scenario,
        fit: &'a crate::admission::fit::AzureFit,
    }
    to_js(&Out {
        scenario: &s,
        fit: &fit,
    })
}

/// The arms of a scenario's admission preset (all of them, ignoring `admission.policies`):
/// `[{ label, kind, marginal, pseudo_obs, labelling }]`. Errors: unknown preset.
#[wasm_bindgen]
pub fn admission_arms(scenario: JsValue) -> JsResult<JsValue> {
    let mut s = scenario_from_js(scenario)?;
    s.admission.policies.clear();
    let arms = s
        .admission
        .arms()
        .map_err(|m| error_obj("scenario", &m, Some("admission.preset")))?;
    #[derive(Serialize)]
    struct Arm<'a> {
        label: &'a str,
        kind: crate::admission::params::PolicyKind,
        marginal: bool,
        pseudo_obs: u32,
        labelling: crate::admission::params::Labelling,
    }
    let out: Vec<Arm> = arms
        .iter()
        .map(|a| Arm {
            label: &a.label,
            kind: a.kind,
            marginal: a.marginal,
            pseudo_obs: a.params.pseudo_obs,
            labelling: a.params.labelling,
        })
        .collect();
    to_js(&out)
}

/// An admission experiment in progress, driven one simulation run per [`AdmissionRun::step`] from the
/// worker (wraps [`crate::scenario::AdmissionRun`]).
#[wasm_bindgen]
pub struct AdmissionRun {
    inner: crate::scenario::AdmissionRun,
}

#[wasm_bindgen]
impl AdmissionRun {
    /// Validates the scenario (model must be "admission") and plans the runs. Errors:
    /// `{ kind: "scenario", field, message, errors? }`.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: JsValue) -> JsResult<AdmissionRun> {
        let s = valid_scenario(scenario)?;
        if s.model != crate::scenario::Model::Admission {
            return Err(error_obj(
                "scenario",
                "the scenario's model is not \"admission\"",
                Some("model"),
            ));
        }
        let inner = crate::scenario::AdmissionRun::new(&s)
            .map_err(|e| error_obj("scenario", &e.message, Some(&e.field)))?;
        Ok(AdmissionRun { inner })
    }

    /// Simulation runs planned over all arms and thresholds.
    pub fn total(&self) -> usize {
        self.inner.total()
    }

    /// Runs done so far.
    pub fn done(&self) -> usize {
        self.inner.done()
    }

    /// Simulates the next run; returns `{ done, total, arm, label, evaluated: SweepPoint | null,
    /// finished: AdmissionArm | null }`, or `null` when everything is done.
    pub fn step(&mut self) -> JsResult<JsValue> {
        match self.inner.step() {
            Some(st) => to_js(&st),
            None => Ok(JsValue::NULL),
        }
    }

    /// The whole report (`AdmissionReport`, as `packlab run` prints it); errors before the last step.
    pub fn report(&self) -> JsResult<JsValue> {
        match self.inner.report() {
            Some(r) => to_js(&r),
            None => Err(error_obj(
                "input",
                &format!(
                    "the experiment is not complete ({} of {} runs)",
                    self.inner.done(),
                    self.inner.total()
                ),
                None,
            )),
        }
    }

    /// Runs every remaining step and returns the report (for tests and timing).
    pub fn run_all(&mut self) -> JsResult<JsValue> {
        while self.inner.step().is_some() {}
        self.report()
    }
}

/// Columns of one run's time series and its totals (what the run view shows).
#[derive(Serialize)]
struct SeriesOut {
    t: Vec<f64>,
    active: Vec<f64>,
    failures: Vec<f64>,
    accepted: Vec<f64>,
    rejected: Vec<f64>,
    capacity: f64,
    utilization: f64,
    failure_rate: f64,
    requests: u64,
    failed: u64,
    arrivals: u64,
    admitted: u64,
}

/// Simulates run `run` of the scenario's arm `label` ("" = first arm) at `threshold` with `points` samples
/// of the time series ([`crate::admission::experiment::admission_series`]): `{ t (hours), active (cores), failures,
/// accepted, rejected (cumulative counts), capacity, utilization, failure_rate, requests, failed, arrivals,
/// admitted }`.
#[wasm_bindgen]
pub fn admission_series(
    scenario: JsValue,
    label: &str,
    threshold: f64,
    run: usize,
    points: usize,
) -> JsResult<JsValue> {
    let s = valid_scenario(scenario)?;
    let r = crate::admission::experiment::admission_series(&s, label, threshold, run, points)
        .map_err(|m| error_obj("scenario", &m, Some("admission.series_arm")))?;
    let out = SeriesOut {
        t: r.series.iter().map(|p| p.t).collect(),
        active: r.series.iter().map(|p| p.active).collect(),
        failures: r.series.iter().map(|p| p.failures as f64).collect(),
        accepted: r.series.iter().map(|p| p.accepted as f64).collect(),
        rejected: r.series.iter().map(|p| p.rejected as f64).collect(),
        capacity: s.admission.params.capacity,
        utilization: r.utilization,
        failure_rate: r.failure_rate(),
        requests: r.requests,
        failed: r.failures,
        arrivals: r.arrivals,
        admitted: r.accepted,
    };
    to_js(&out)
}

/// Runs a whole admission scenario with the engine's tuning in one call
/// ([`crate::admission::experiment::run_admission`], what the CLI runs); for tests and timing.
#[wasm_bindgen]
pub fn run_admission(scenario: JsValue) -> JsResult<JsValue> {
    let s = valid_scenario(scenario)?;
    let r = crate::admission::experiment::run_admission(&s, &mut |_, _| true)
        .map_err(|m| error_obj("scenario", &m, None))?;
    to_js(&r)
}

/// CSS colour of admission arm `i` (matches the charts).
#[wasm_bindgen]
pub fn arm_color(i: usize) -> String {
    chart::arm_color_hex(i)
}

fn admission_curves(curves: JsValue) -> JsResult<Vec<chart::AdmissionCurve>> {
    serde_wasm_bindgen::from_value(curves)
        .map_err(|e| error_obj("chart", &format!("bad admission curves: {e}"), None))
}

fn series_chart(series: JsValue) -> JsResult<chart::AdmissionSeriesChart> {
    serde_wasm_bindgen::from_value(series)
        .map_err(|e| error_obj("chart", &format!("bad time series: {e}"), None))
}

/// Draws the admission frontier into `canvas`: `curves` = `[{ label, points: [[utilization, failure_rate]...],
/// tuned: [u, f] | null }]`, `opts` = `{ sla, title, scale }`.
#[wasm_bindgen]
pub fn draw_admission_frontier(
    canvas: HtmlCanvasElement,
    curves: JsValue,
    opts: JsValue,
) -> JsResult<()> {
    let curves = admission_curves(curves)?;
    let opts: chart::AdmissionChartOptions = chart_opts(opts)?;
    let area = canvas_area(canvas)?;
    chart::draw_admission_frontier(&area, &curves, &opts).map_err(chart_error)
}

/// The admission frontier as an SVG document.
#[wasm_bindgen]
pub fn admission_frontier_svg(
    curves: JsValue,
    opts: JsValue,
    width: u32,
    height: u32,
) -> JsResult<String> {
    let curves = admission_curves(curves)?;
    let opts: chart::AdmissionChartOptions = chart_opts(opts)?;
    chart::admission_frontier_svg(
        &curves,
        &opts,
        width.clamp(100, 8000),
        height.clamp(100, 8000),
    )
    .map_err(chart_error)
}

/// Draws one run's time series (`series` = `{ t, active, failures, accepted, rejected, capacity, title?,
/// scale? }`) into `canvas`.
#[wasm_bindgen]
pub fn draw_admission_series(canvas: HtmlCanvasElement, series: JsValue) -> JsResult<()> {
    let c = series_chart(series)?;
    let area = canvas_area(canvas)?;
    chart::draw_admission_series(&area, &c).map_err(chart_error)
}

/// One run's time series as an SVG document.
#[wasm_bindgen]
pub fn admission_series_svg(series: JsValue, width: u32, height: u32) -> JsResult<String> {
    let c = series_chart(series)?;
    chart::admission_series_svg(&c, width.clamp(100, 8000), height.clamp(100, 8000))
        .map_err(chart_error)
}
