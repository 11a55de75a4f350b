//! Cluster admission control (seed 000, ALGORITHMS.md §2): deployments that scale out, Bayesian moment
//! policies tuned to a scale-out SLA.
//!
//! Units throughout: time in hours, rates per hour, capacity and sizes in cores.
//!
//! * [`moments`]: E[X_t], Var[X_t] for known parameters (§2.4) and Gamma posteriors (§2.6.3), alive tables
//!   (§2.5), the paper-style factorised and no-absorption ablations, and the lattice cache of §2.7.
//! * [`posterior`]: sufficient statistics and the VB update (§2.6.1–§2.6.2).
//! * [`policies`]: ZEROTH / FIRST / SECOND / ACCEPT_IF_FITS (+ MARGINAL), one file per rule (§2.7), on the
//!   5 × 600 look-ahead of [`lookahead`]; [`lead_time`]: where FIRST/SECOND rejections first fail.
//! * [`sim`]: the exact continuous-time cluster simulator on the shared [`crate::substrate::des`] kernel (§2.1, §2.10).
//! * [`tuning`]: threshold binary search with common random numbers, BCa CIs, presets E0.1–E0.4 (§2.8, §2.12).
//! * [`importance`]: importance sampling of runs (badness buckets, rejection scheme, weights; §2.9), an option.
//! * [`load`]: unconstrained offered load and the cluster share of a data-fitted arrival stream (§2.13).
//! * [`params`]: the serde parameter struct with the §2.13 defaults.
//! * [`scenario`]: the scenario section (preset, arms, parameters, Azure fit) and the report types.
//! * [`experiment`]: the experiment on the one contract ([`crate::experiment`]), `run_preset`, the run view.
//! * [`chart`]: the frontier and time-series charts.
//! * [`AdmissionModel`]: the registry entry ([`crate::models::ModelDef`]).
//! * [`component`]: the ids of the model's random streams (§0; streams from [`crate::substrate::rng`]).

pub mod chart;
pub mod component;
pub mod experiment;
pub mod fit;
pub mod importance;
pub mod lead_time;
pub mod load;
pub mod lookahead;
pub mod moments;
pub mod params;
pub mod policies;
pub mod posterior;
pub mod scenario;
pub mod sim;
pub mod tuning;

// ---------------------------------------------------------------------------------------------------------
// the registry entry

use crate::experiment::{ser_error, RunError};
use crate::experiment::{Inputs, ModelDef, ModelInfo};
use crate::substrate::error::FieldError;
use serde_json::Value;

/// The admission model in the registry ([`crate::models`]).
pub struct AdmissionModel;

#[derive(serde::Serialize)]
struct ArmInfo {
    label: String,
    kind: params::PolicyKind,
    marginal: bool,
    pseudo_obs: u32,
    labelling: params::Labelling,
}

/// Columns of one run's time series and its totals (what the run view shows).
#[derive(serde::Serialize)]
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

fn arg_f64(args: &Value, k: &str) -> Option<f64> {
    args.get(k).and_then(Value::as_f64)
}

fn arg_usize(args: &Value, k: &str, default: usize) -> usize {
    args.get(k)
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v as usize)
        .unwrap_or(default)
}

impl ModelDef for AdmissionModel {
    const INFO: ModelInfo = ModelInfo {
        id: "admission",
        title: "Admission control",
        hint: "Bayesian admission control with a scale-out SLA (seed 000)",
        source: "seed 000, ALGORITHMS.md §2",
        uses_trace: false,
        uses_workload: false,
        experiments: tuning::Preset::NAMES,
        charts: chart::CHARTS,
        ops: &["arms", "series", "azure_fit"],
        run_ops: &[],
    };
    type Section = scenario::AdmissionScenario;
    type Run = experiment::AdmissionExperiment;

    fn validate(section: &Self::Section, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(
        section: &scenario::AdmissionScenario,
        seed: u64,
        inputs: &Inputs,
    ) -> Result<experiment::AdmissionExperiment, RunError> {
        experiment::AdmissionExperiment::new(section, seed, inputs.browser)
    }

    /// `arms` (no args): every arm of the preset, `[{ label, kind, marginal, pseudo_obs, labelling }]`;
    /// `series` (`{ label, threshold, run, points }`): one run with its time series, `{ t (hours), active
    /// (cores), failures, accepted, rejected (cumulative counts), capacity, utilization, failure_rate,
    /// requests, failed, arrivals, admitted }`; `azure_fit` (input file [`crate::data::AZURE2017_ARRIVALS`], by its file name): `{ scenario,
    /// fit }` with the identified parameters written into the scenario ([`admission::scenario::apply_azure_fit`]).
    fn call<S: serde::Serializer>(
        section: &scenario::AdmissionScenario,
        seed: u64,
        op: &str,
        args: &Value,
        inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        use serde::Serialize;
        match op {
            "arms" => {
                let mut a = section.clone();
                a.policies.clear();
                let arms = a
                    .arms()
                    .map_err(|m| RunError::field("admission.preset", m))?;
                let out: Vec<ArmInfo> = arms
                    .into_iter()
                    .map(|a| ArmInfo {
                        label: a.label,
                        kind: a.kind,
                        marginal: a.marginal,
                        pseudo_obs: a.params.pseudo_obs,
                        labelling: a.params.labelling,
                    })
                    .collect();
                out.serialize(ser).map_err(ser_error)
            }
            "series" => {
                let label = args.get("label").and_then(Value::as_str).unwrap_or("");
                let threshold = arg_f64(args, "threshold").unwrap_or(f64::NAN);
                let r = experiment::admission_series(
                    section,
                    seed,
                    label,
                    threshold,
                    arg_usize(args, "run", 0),
                    arg_usize(args, "points", 400),
                )
                .map_err(|m| RunError::field("admission.series_arm", m))?;
                SeriesOut {
                    t: r.series.iter().map(|p| p.t).collect(),
                    active: r.series.iter().map(|p| p.active).collect(),
                    failures: r.series.iter().map(|p| p.failures as f64).collect(),
                    accepted: r.series.iter().map(|p| p.accepted as f64).collect(),
                    rejected: r.series.iter().map(|p| p.rejected as f64).collect(),
                    capacity: section.params.capacity,
                    utilization: r.utilization,
                    failure_rate: r.failure_rate(),
                    requests: r.requests,
                    failed: r.failures,
                    arrivals: r.arrivals,
                    admitted: r.accepted,
                }
                .serialize(ser)
                .map_err(ser_error)
            }
            "azure_fit" => {
                let bytes = inputs.need_file(crate::data::AZURE2017_ARRIVALS.file_name())?;
                let mut admission = section.clone();
                let fit = scenario::apply_azure_fit(&mut admission, bytes)
                    .map_err(|m| RunError::field("admission.source", m))?;
                #[derive(serde::Serialize)]
                struct Out {
                    admission: scenario::AdmissionScenario,
                    fit: fit::AzureFit,
                }
                Out { admission, fit }.serialize(ser).map_err(ser_error)
            }
            _ => Err(RunError::msg(format!(
                "the admission model has no operation '{op}'"
            ))),
        }
    }

    /// The charts of this model's table ([`chart::draw`]).
    fn draw<'de, DB: plotters::prelude::DrawingBackend, D: serde::Deserializer<'de>>(
        name: &str,
        area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        data: D,
        opts: D,
    ) -> Option<Result<Option<crate::chart::Layout>, crate::chart::ChartError>> {
        chart::draw(name, area, data, opts)
    }
}
