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
//! * [`params`]: the serde parameter struct with the §2.13 defaults, and the scenario section (preset, arms,
//!   parameters) with its playground defaults.
//! * [`scenario`]: the section's arms and validation (they resolve the preset in [`tuning`]), the Azure fit
//!   and the report types.
//! * [`experiment`]: the experiment on the one contract ([`crate::experiment`]), `run_preset`, the run view.
//! * [`chart`]: the frontier and time-series charts.
//! * [`AdmissionModel`]: the registry entry ([`crate::experiment::ModelDef`]).
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

impl ModelDef for AdmissionModel {
    const INFO: ModelInfo = ModelInfo {
        id: "admission",
        title: "Admission control",
        hint: "Bayesian admission control with a scale-out SLA (seed 000)",
        source: "seed 000, ALGORITHMS.md §2",
        uses_trace: false,
        uses_workload: false,
        reads_facts: false,
        experiments: tuning::Preset::NAMES,
        charts: chart::CHARTS,
        ops: &["arms", "series", "azure_fit", "starters"],
        run_ops: &[],
    };
    type Section = params::AdmissionScenario;
    type Run = experiment::AdmissionExperiment;

    fn validate(section: &Self::Section, prefix: &str) -> Vec<FieldError> {
        section.validate(prefix)
    }

    fn start(
        section: &params::AdmissionScenario,
        seed: u64,
        inputs: &Inputs,
    ) -> Result<experiment::AdmissionExperiment, RunError> {
        experiment::AdmissionExperiment::planned(section, seed, inputs.browser)
    }

    /// `arms` (no args): every arm of the preset, `[{ label, kind, marginal, pseudo_obs, labelling }]`;
    /// `series` (`{ label, threshold, run, points }`): one run with its time series, `{ t (hours), active
    /// (cores), failures, accepted, rejected (cumulative counts), capacity, utilization, failure_rate,
    /// requests, failed, arrivals, admitted }`; `azure_fit` (input file [`crate::data::AZURE2017_ARRIVALS`], by its file name): `{ scenario,
    /// fit }` with the identified parameters written into the scenario ([`admission::scenario::apply_azure_fit`]);
    /// `starters` (no args): the starter scripts of the admit hook (issue 31), `[{ name, language, enabled,
    /// source }]`.
    fn call<S: serde::Serializer>(
        section: &params::AdmissionScenario,
        seed: u64,
        op: &str,
        args: &Value,
        inputs: &Inputs,
        ser: S,
    ) -> Result<S::Ok, RunError> {
        use serde::Serialize;
        match op {
            "arms" => scenario::arm_infos(section)?
                .serialize(ser)
                .map_err(ser_error),
            "series" => experiment::series_op(section, seed, args)?
                .serialize(ser)
                .map_err(ser_error),
            "starters" => crate::script::policy::starters(&policies::script::STARTERS)
                .serialize(ser)
                .map_err(ser_error),
            "azure_fit" => {
                let bytes = inputs.need_file(crate::data::AZURE2017_ARRIVALS.file_name())?;
                let mut admission = section.clone();
                let fit = scenario::apply_azure_fit(&mut admission, bytes)
                    .map_err(|m| RunError::field("admission.source", m))?;
                #[derive(serde::Serialize)]
                struct Out {
                    admission: params::AdmissionScenario,
                    fit: fit::AzureFit,
                }
                Out { admission, fit }.serialize(ser).map_err(ser_error)
            }
            _ => Err(RunError::msg(format!(
                "the admission model has no operation '{op}'"
            ))),
        }
    }
}
