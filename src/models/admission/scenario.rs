//! The admission model's scenario section at work (seed 000, ALGORITHMS.md §2): the section's arms and its
//! validation (they resolve the experiment preset, [`super::tuning`], which imports [`super::params`], so they
//! cannot live beside the section in `params.rs`), the Azure-fitted option, and the report types a run
//! produces. The section itself ([`AdmissionScenario`], [`ParamSource`]) and its defaults are in
//! [`super::params`], re-exported here.

pub use super::params::{AdmissionScenario, ParamSource, MAX_ADMISSION_RUNS};
use super::params::{AdmitParams, Labelling, PolicyKind};
use super::policies::script::{call_operations, ArmScript};
use super::tuning::{Evaluation, Feasibility, Preset, TuneResult, TuneStatus};
use crate::substrate::error::{FieldError, FieldErrors};
use serde::{Deserialize, Serialize};

/// One arm of an admission experiment as run: label, the arm's parameters, policy and MARGINAL flag.
#[derive(Clone, Debug)]
pub struct AdmissionArmSpec {
    /// Arm label, e.g. "FIRST+MARGINAL m=5".
    pub label: String,
    /// The arm's parameters (the base with the arm's pseudo-observations and labelling).
    pub params: AdmitParams,
    /// Policy.
    pub kind: PolicyKind,
    /// MARGINAL heuristic.
    pub marginal: bool,
}

impl AdmissionScenario {
    /// The experiment preset (errors name the preset string).
    pub fn preset(&self) -> Result<Preset, String> {
        Preset::parse(&self.preset)
    }

    /// The arms to run, in preset order, filtered by [`AdmissionScenario::policies`], then one arm
    /// `script:<name>` per enabled script (kind [`PolicyKind::Script`], no MARGINAL, the base parameters
    /// with the compiled script). Errors: unknown preset, a label that is not an arm of the preset, a script
    /// that does not compile.
    pub fn arms(&self) -> Result<Vec<AdmissionArmSpec>, String> {
        let preset = self.preset()?;
        let all = preset.arms(&self.params);
        for l in &self.policies {
            if !all.iter().any(|a| &a.0 == l) {
                let names: Vec<&str> = all.iter().map(|a| a.0.as_str()).collect();
                return Err(format!(
                    "'{l}' is not a policy of {} (one of: {})",
                    preset.name(),
                    names.join(", ")
                ));
            }
        }
        let mut arms: Vec<AdmissionArmSpec> = all
            .into_iter()
            .filter(|a| self.policies.is_empty() || self.policies.contains(&a.0))
            .map(|(label, params, kind, marginal)| AdmissionArmSpec {
                label,
                params,
                kind,
                marginal,
            })
            .collect();
        for (k, sp) in self.scripts.iter().enumerate().filter(|(_, s)| s.enabled) {
            let lead_times = self.params.subhorizons.len() * self.params.steps;
            let script = ArmScript::new(&sp.name, &sp.source, call_operations(lead_times))
                .map_err(|e| format!("scripts[{k}].source: {e}"))?;
            arms.push(AdmissionArmSpec {
                label: sp.spec(),
                params: AdmitParams {
                    script: Some(script),
                    ..self.params.clone()
                },
                kind: PolicyKind::Script,
                marginal: false,
            });
        }
        Ok(arms)
    }

    /// Validates every field with dotted paths under `prefix` (e.g. `admission.params.capacity`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = FieldErrors::new(prefix);
        let p = &self.params;
        crate::script::policy::validate_scripts(
            &self.scripts,
            super::policies::script::check,
            &mut errs,
        );
        if let Err(m) = self.preset() {
            errs.add("preset", m);
        } else if !errs.is_empty() {
            // a script's error is named above
        } else if let Err(m) = self.arms() {
            errs.add("policies", m);
        } else if self.arms().map(|a| a.is_empty()).unwrap_or(false) {
            errs.add("policies", "choose at least one policy".into());
        }
        if self.source == ParamSource::Azure && !AZURE_FIT_AVAILABLE {
            errs.add(
                "source",
                "Azure-fitted parameters are not available in this engine version".into(),
            );
        }
        if self.runs == 0 || self.runs > MAX_ADMISSION_RUNS {
            errs.add(
                "runs",
                format!("runs must be between 1 and {MAX_ADMISSION_RUNS}"),
            );
        }
        if self.series_run >= self.runs.max(1) {
            errs.add(
                "series_run",
                format!("the run shown must be below runs ({})", self.runs),
            );
        }
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !(pos(p.capacity) && p.capacity <= 1e7) {
            errs.add(
                "params.capacity",
                "capacity must be a number of cores in (0, 10,000,000]".into(),
            );
        }
        if !(pos(p.arrival_rate) && p.arrival_rate <= 1e4) {
            errs.add(
                "params.arrival_rate",
                "arrival rate must be in (0, 10,000] deployments per hour".into(),
            );
        }
        if !(pos(p.horizon_hours) && p.horizon_hours <= 262_800.0) {
            errs.add(
                "params.horizon_hours",
                "horizon must be in (0, 262,800] hours (30 years)".into(),
            );
        }
        if !(p.sla > 0.0 && p.sla < 1.0) {
            errs.add("params.sla", "SLA ε must be in (0, 1)".into());
        }
        if !(pos(p.priors.kappa) && p.priors.kappa <= 1e6) {
            errs.add("params.priors.kappa", "kill factor κ must be > 0".into());
        }
        if p.tune_iterations == 0 || p.tune_iterations > 60 {
            errs.add(
                "params.tune_iterations",
                "search iterations must be between 1 and 60".into(),
            );
        }
        if p.bootstrap > 1_000_000 {
            errs.add(
                "params.bootstrap",
                "at most 1,000,000 bootstrap resamples".into(),
            );
        }
        if errs.is_empty() {
            if let Err(m) = p.validate() {
                errs.add("params", m);
            }
        }
        errs.into_vec()
    }
}

/// Whether this engine can fit the admission parameters to the Azure 2017 arrivals (`packlab::models::admission::fit`).
pub const AZURE_FIT_AVAILABLE: bool = true;

/// Path of the bundled derived Azure 2017 arrivals, relative to the repository (served at `/static/...`).
pub const AZURE_ARRIVALS_PATH: &str = crate::data::AZURE2017_ARRIVALS.path;

/// Fits what the Azure 2017 arrivals identify ([`crate::models::admission::fit::fit_azure_arrivals`]: arrival rate per
/// hour, the empirical initial-size distribution, the core-lifetime prior λ ~ Γ) from the bundle `bytes`
/// (the gzip file at [`AZURE_ARRIVALS_PATH`]) and writes the values into `a.params` (scale-out rate and
/// size and κ keep their values), marking `a.source` as [`ParamSource::Azure`]. The arrival rate written is
/// this cluster's share of the region-wide fitted stream ([`crate::models::admission::load::cluster_share_rate`] for
/// `a.params.capacity`; a note in the returned fit gives both rates). The scenario then carries
/// the fitted values, so links and `packlab run` reproduce them without refitting. Errors: unreadable
/// bundle (file:line:column) or a failed fit.
pub fn apply_azure_fit(
    a: &mut AdmissionScenario,
    bytes: &[u8],
) -> Result<crate::models::admission::fit::AzureFit, String> {
    let data = crate::workload::azure::arrivals::read_arrivals_bundle(
        crate::data::AZURE2017_ARRIVALS.file_name(),
        bytes,
    )
    .map_err(|e| e.to_string())?;
    let mut fit = crate::models::admission::fit::fit_azure_arrivals(
        &data,
        &crate::models::admission::fit::FitOptions::default(),
    )?;
    fit.apply(&mut a.params);
    // the fitted stream is a whole region's: give this cluster its share (crate::models::admission::load)
    let fitted = a.params.arrival_rate;
    a.params.arrival_rate = crate::models::admission::load::cluster_share_rate(&a.params, 300);
    fit.notes.push(format!(
        "Arrival rate: the fitted {fitted:.1} deployments/h are the whole Azure region's stream; this cluster of \
         {} cores gets {:.4}/h ({:.3}% of it), the share that gives the ALGORITHMS.md §2.13 ratio of \
         unconstrained load to capacity (≈ 1.37 after 3 years).",
        a.params.capacity,
        a.params.arrival_rate,
        100.0 * a.params.arrival_rate / fitted
    ));
    a.source = ParamSource::Azure;
    Ok(fit)
}

/// The relative utilization gain of every arm over the (first) ZEROTH arm, `u / u_ZEROTH − 1`, from
/// (policy, status, utilization) in arm order. `None` for untunable arms, and for all without a tuned
/// ZEROTH arm of positive utilization.
pub fn gains_vs_zeroth(arms: &[(PolicyKind, TuneStatus, f64)]) -> Vec<Option<f64>> {
    let z = arms
        .iter()
        .find(|a| a.0 == PolicyKind::Zeroth)
        .filter(|a| a.1 == TuneStatus::Tuned)
        .map(|a| a.2)
        .filter(|z| *z > 0.0);
    arms.iter()
        .map(|a| {
            z.filter(|_| a.1 != TuneStatus::Untunable)
                .map(|z| a.2 / z - 1.0)
        })
        .collect()
}

impl SweepPoint {
    /// The frontier point of evaluation `e`, with its verdict against the SLA `sla`
    /// ([`Evaluation::feasibility`]).
    pub fn of(e: &Evaluation, sla: f64) -> Self {
        SweepPoint {
            threshold: e.threshold,
            utilization: e.utilization,
            failure_rate: e.failure_rate,
            failure_rate_upper: e.failure_rate_upper,
            accepted: e.accepted,
            requests: e.requests,
            failures: e.failures,
            verdict: e.feasibility(sla),
        }
    }
}

/// One evaluated threshold of an arm (a point of the frontier).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Threshold (cores for ZEROTH/FIRST, Cantelli ratio for SECOND).
    pub threshold: f64,
    /// Mean utilization over the runs (fraction of C·T).
    pub utilization: f64,
    /// Pooled scale-out failure rate (failed / requested scale-outs).
    pub failure_rate: f64,
    /// Upper end of the 95% CI of the failure rate (what the tuning compares with the SLA).
    pub failure_rate_upper: f64,
    /// Admitted deployments, pooled over the runs.
    #[serde(default)]
    pub accepted: u64,
    /// Scale-out requests, pooled over the runs.
    #[serde(default)]
    pub requests: u64,
    /// Failed scale-out requests, pooled over the runs.
    #[serde(default)]
    pub failures: u64,
    /// Feasible, infeasible or too few requests to tell (ALGORITHMS.md §2.8 step 6).
    pub verdict: Feasibility,
}

/// The result of one arm: tuned threshold, utilization with its 95% BCa CI, failure rate, and every
/// threshold the search evaluated (ALGORITHMS.md §2.8, §2.10).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdmissionArm {
    /// Arm label.
    pub label: String,
    /// Policy display name, e.g. "SECOND+MARGINAL".
    pub policy: String,
    /// Policy kind.
    pub kind: PolicyKind,
    /// MARGINAL heuristic on.
    pub marginal: bool,
    /// Pseudo-observations m.
    pub pseudo_obs: u32,
    /// Labelling mode.
    pub labelling: Labelling,
    /// Tuned (certified) threshold, or when `status` is untunable the threshold its reason names.
    pub threshold: f64,
    /// `tuned`, `untunable` (no threshold could be certified: see `status_reason`) or `bound` (ACCEPT_IF_FITS).
    pub status: TuneStatus,
    /// Why the arm is untunable, or what a bound is; empty when tuned.
    pub status_reason: String,
    /// Admitted deployments at `threshold`, pooled over the runs.
    pub accepted: u64,
    /// Deployment arrivals, pooled over the runs.
    pub arrivals: u64,
    /// Scale-out requests at `threshold`, pooled over the runs.
    pub requests: u64,
    /// Failed scale-out requests at `threshold`, pooled over the runs.
    pub failures: u64,
    /// Mean utilization at the tuned threshold.
    pub utilization: f64,
    /// 95% BCa bootstrap CI of the utilization (lo, hi).
    pub utilization_ci: (f64, f64),
    /// Pooled failure rate at the tuned threshold.
    pub failure_rate: f64,
    /// Upper end of its 95% CI.
    pub failure_rate_upper95: f64,
    /// Mean of the monthly failure rates.
    pub monthly_failure_rate: f64,
    /// Fraction of runs with at least one failure.
    pub runs_with_failure: f64,
    /// Relative utilization gain over the ZEROTH arm (when ZEROTH was run).
    pub gain_vs_zeroth: Option<f64>,
    /// Every threshold evaluated, ascending.
    pub sweep: Vec<SweepPoint>,
    /// A script arm's run-time error (issue 31; "line L, column C: …"): the arm stopped there and is
    /// untunable; the other arms are as without it. Omitted when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The results of an admission scenario: what `packlab run` prints and the playground shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdmissionReport {
    /// Always "admission".
    pub model: String,
    /// Preset name.
    pub preset: String,
    /// Runs per threshold.
    pub runs: usize,
    /// Master seed.
    pub seed: u64,
    /// Capacity C (cores).
    pub capacity: f64,
    /// Run length (hours).
    pub horizon_hours: f64,
    /// SLA ε.
    pub sla: f64,
    /// One entry per arm run.
    pub arms: Vec<AdmissionArm>,
}

pub(crate) fn arm_result(spec: &AdmissionArmSpec, r: &TuneResult) -> AdmissionArm {
    AdmissionArm {
        label: spec.label.clone(),
        policy: r.policy.clone(),
        kind: r.kind,
        marginal: r.marginal,
        pseudo_obs: spec.params.pseudo_obs,
        labelling: spec.params.labelling,
        threshold: r.threshold,
        status: r.status,
        status_reason: r.status_reason.clone(),
        accepted: r.tuned.accepted,
        arrivals: r.tuned.arrivals,
        requests: r.tuned.requests,
        failures: r.tuned.failures,
        utilization: r.tuned.utilization,
        utilization_ci: r.utilization_ci,
        failure_rate: r.tuned.failure_rate,
        failure_rate_upper95: r.tuned.failure_rate_upper,
        monthly_failure_rate: r.tuned.monthly_failure_rate,
        runs_with_failure: r.tuned.runs_with_failure,
        gain_vs_zeroth: None,
        sweep: r
            .sweep
            .iter()
            .map(|e| SweepPoint::of(e, spec.params.sla))
            .collect(),
        error: r.error.clone(),
    }
}

pub(crate) fn report(
    a: &AdmissionScenario,
    seed: u64,
    mut arms: Vec<AdmissionArm>,
) -> AdmissionReport {
    let utils: Vec<(PolicyKind, TuneStatus, f64)> = arms
        .iter()
        .map(|a| (a.kind, a.status, a.utilization))
        .collect();
    for (a, g) in arms.iter_mut().zip(gains_vs_zeroth(&utils)) {
        a.gain_vs_zeroth = g;
    }
    AdmissionReport {
        model: "admission".into(),
        preset: a
            .preset()
            .map(|p| p.name().to_string())
            .unwrap_or_else(|_| a.preset.clone()),
        runs: a.runs,
        seed,
        capacity: a.params.capacity,
        horizon_hours: a.params.horizon_hours,
        sla: a.params.sla,
        arms,
    }
}

/// One arm of a preset as the run view lists it (the model operation `arms`).
#[derive(Serialize)]
pub struct ArmInfo {
    /// The arm's label.
    pub label: String,
    /// Its rule.
    pub kind: PolicyKind,
    /// Whether it adds MARGINAL.
    pub marginal: bool,
    /// Pseudo-observations of the prior.
    pub pseudo_obs: u32,
    /// The labelling of failures.
    pub labelling: Labelling,
}

/// Every arm of `a`'s preset (its `policies` and `scripts` ignored), for the model operation `arms`. Errors: an
/// unknown preset, naming `admission.preset`.
pub fn arm_infos(a: &AdmissionScenario) -> Result<Vec<ArmInfo>, crate::experiment::RunError> {
    let mut a = a.clone();
    a.policies.clear();
    a.scripts.clear(); // the preset's arms only: the page lists scripts in their own box
    let arms = a
        .arms()
        .map_err(|m| crate::experiment::RunError::field("admission.preset", m))?;
    Ok(arms
        .into_iter()
        .map(|a| ArmInfo {
            label: a.label,
            kind: a.kind,
            marginal: a.marginal,
            pseudo_obs: a.params.pseudo_obs,
            labelling: a.params.labelling,
        })
        .collect())
}
