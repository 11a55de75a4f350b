//! The one serde [`Scenario`] type that drives the CLI (`packlab run`), the browser and share links.
//!
//! A scenario names the model, the trace (a bundled id or an uploaded file by name and SHA-256), every
//! parameter and the seed. Share links carry it in the URL fragment as `#s=v2.d<k>.<payload>` where payload =
//! base64url (no padding) of the raw-DEFLATE (RFC 1951) compressed JSON of the values that differ from
//! **defaults set k**, and decoding merges them back onto that same set, so links stay short.
//!
//! Defaults sets make links independent of later changes of the engine's defaults
//! ([`Scenario::default`], `AdmitParams::default`, `PlacementParams::default`, ...): every released set of
//! defaults is frozen as JSON (`src/scenario/defaults-<k>.json`, listed in [`DEFAULTS_SETS`]) and a link
//! names the set it was made under, so an old link keeps its meaning after a default changes. A link from a
//! set this engine does not know is an error naming the field `defaults`, never a silent reinterpretation.
//! Links made before defaults sets were recorded (`#s=v1.<payload>`, engine 0.1.0) were made under set 1.
//! Fields added after set k take their current default when a set-k link is decoded (a new field's default
//! must reproduce the behaviour from before it existed).
//!
//! Changing a default therefore means freezing a new set: the unit test
//! `current_defaults_are_the_newest_frozen_set` fails until `src/scenario/defaults-<k+1>.json` (the JSON of
//! [`Scenario::default`] without `v` and `engine`) is added to [`DEFAULTS_SETS`]; frozen sets are never
//! edited. Adding a field: add it to the newest set only if its value also reproduces every older set's
//! behaviour, otherwise freeze a new set.

use crate::admit::params::{AdmitParams, Labelling, PolicyKind, PolicySpec};
use crate::admit::policy::LeadGrid;
use crate::admit::sim::{lead_grid, simulate_run, RunResult, SimCache};
use crate::admit::tuning::{
    bca_mean_ci, run_seed, summarise, tune, Evaluation, Preset, TuneResult,
};
use crate::placement::{FieldError, PlacementParams};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{Read, Write};

/// Scenario format version: the `v` field of a scenario (and of a link's JSON).
pub const SCENARIO_VERSION: u32 = 1;
/// Share-link format version this engine writes: `v2.d<k>.<payload>`, k = the defaults set. Version 1
/// (`v1.<payload>`, no defaults set: set 1) is still read.
pub const LINK_VERSION: u32 = 2;
/// The frozen defaults sets, oldest first: set k is `DEFAULTS_SETS[k - 1]`, the JSON of
/// [`Scenario::default`] (without `v` and `engine`) of the engine versions that wrote set-k links.
/// Append-only: a frozen set is never edited (see the module documentation).
pub const DEFAULTS_SETS: &[&str] = &[
    // engine 0.1.0 (placement and admission models); also every `v1.` link
    include_str!("scenario/defaults-1.json"),
];
/// The defaults set this engine writes into links (the newest frozen set).
pub const DEFAULTS_SET: u32 = DEFAULTS_SETS.len() as u32;
/// Largest share-link payload accepted, characters.
pub const MAX_LINK_CHARS: usize = 16_384;
/// Largest decompressed scenario JSON accepted, bytes.
pub const MAX_SCENARIO_BYTES: usize = 256 * 1024;

/// Which model a scenario runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Stochastic bin packing with GPA (seed 002).
    #[default]
    Placement,
    /// Cluster admission control with moment policies (seed 000, ALGORITHMS.md §2).
    Admission,
}

/// Where a scenario's trace comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum TraceRef {
    /// A bundled trace by id (see [`crate::trace::BUNDLED`]).
    Bundled(String),
    /// A user's upload: its name and SHA-256 (see [`crate::trace::upload_sha256`]); reproducing the
    /// scenario needs the same bytes.
    Upload {
        /// File or folder name as uploaded.
        name: String,
        /// Lower-case hex SHA-256 of the upload.
        sha256: String,
    },
}

impl Default for TraceRef {
    fn default() -> Self {
        TraceRef::Bundled(crate::trace::BUNDLED[0].id.to_string())
    }
}

/// A complete, reproducible experiment: model, trace, parameters and seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// Scenario format version ([`SCENARIO_VERSION`]).
    pub v: u32,
    /// Engine version that wrote it ([`crate::ENGINE_VERSION`]); informational.
    pub engine: String,
    /// The model to run.
    pub model: Model,
    /// The trace.
    pub trace: TraceRef,
    /// Seed of every random stream (resampled realisations). Kept below 2^53 so it crosses to JS exactly.
    pub seed: u64,
    /// Placement-model parameters (seed 002).
    pub placement: PlacementParams,
    /// Admission-model experiment (seed 000); ignored by the placement model. Absent in v1 placement links.
    pub admission: AdmissionScenario,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            v: SCENARIO_VERSION,
            engine: crate::ENGINE_VERSION.to_string(),
            model: Model::Placement,
            trace: TraceRef::default(),
            seed: 1,
            placement: PlacementParams::default(),
            admission: AdmissionScenario::default(),
        }
    }
}

/// Largest seed accepted (2^53 − 1, exact in a JS number).
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// An error decoding a scenario or a share link, naming the field where one is to blame.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioError {
    /// Offending field (dotted path) when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(x) => write!(f, "{x}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err(message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        field: None,
        message: message.into(),
    }
}

impl Scenario {
    /// Validates every field, returning all problems (dotted field paths, e.g. `placement.capacity`).
    pub fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut errs = Vec::new();
        if self.v == 0 || self.v > SCENARIO_VERSION {
            errs.push(FieldError { field: "v".into(), message: format!("scenario version {} is not supported (this engine reads 1..={SCENARIO_VERSION})", self.v) });
        }
        if self.seed > MAX_SEED {
            errs.push(FieldError {
                field: "seed".into(),
                message: format!("seed must be at most {MAX_SEED}"),
            });
        }
        match &self.trace {
            TraceRef::Bundled(id) if crate::trace::bundled(id).is_none() => errs.push(FieldError {
                field: "trace.bundled".into(),
                message: format!("no bundled trace '{id}'"),
            }),
            TraceRef::Upload { sha256, .. }
                if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                errs.push(FieldError {
                    field: "trace.upload.sha256".into(),
                    message: "must be 64 hex digits".into(),
                })
            }
            _ => {}
        }
        errs.extend(self.placement.validate("placement."));
        if self.model == Model::Admission {
            errs.extend(self.admission.validate("admission."));
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs)
        }
    }

    /// Parses a full or partial scenario JSON, merging it onto the defaults; unknown fields are errors that
    /// name the field. Does not validate ranges (call [`Scenario::validate`]).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(err(format!(
                "scenario JSON is larger than {MAX_SCENARIO_BYTES} bytes"
            )));
        }
        let v: Value =
            serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
        Self::from_value(v)
    }

    fn from_value(v: Value) -> Result<Scenario, ScenarioError> {
        let base = serde_json::to_value(Scenario::default()).expect("default scenario serializes");
        Self::from_value_on(base, v)
    }

    /// `patch` (a JSON object) merged onto the full scenario JSON `base`, deserialized.
    fn from_value_on(mut base: Value, patch: Value) -> Result<Scenario, ScenarioError> {
        if !patch.is_object() {
            return Err(err("a scenario must be a JSON object"));
        }
        merge(&mut base, patch);
        serde_json::from_value(base).map_err(|e| err(format!("invalid scenario: {e}")))
    }

    /// The JSON of the values that differ from the newest defaults set ([`DEFAULTS_SET`]), what a link
    /// stores (`v` and `engine` always included).
    pub fn diff_json(&self) -> Value {
        LinkDefaults::engine().diff_json(self)
    }

    /// Encodes the share-link payload `v2.d<k>.<base64url(deflate(JSON of the values that differ from
    /// defaults set k))>` with k = [`DEFAULTS_SET`]; the URL fragment is `#s=` followed by it.
    pub fn to_link(&self) -> String {
        LinkDefaults::engine().encode(self)
    }

    /// Decodes a share link: accepts the payload, `s=<payload>`, `#s=<payload>` or a whole URL with that
    /// fragment; `v2.d<k>.` links are merged onto defaults set k, `v1.` links onto set 1. Bounded in size;
    /// any tampering gives an error, never a panic; an unknown defaults set is an error on the field
    /// `defaults`. The result is validated.
    pub fn from_link(link: &str) -> Result<Scenario, ScenarioError> {
        LinkDefaults::engine().decode(link)
    }
}

/// What link payloads are relative to: the engine's current defaults (for fields newer than a set) and
/// the frozen defaults sets. The engine uses [`LinkDefaults::engine`]; tests build others to simulate a
/// change of the defaults.
#[derive(Clone, Debug)]
struct LinkDefaults {
    /// JSON of the current [`Scenario::default`].
    current: Value,
    /// The frozen sets, oldest first (set k at index k − 1).
    sets: Vec<Value>,
}

fn defaults_err(message: String) -> ScenarioError {
    ScenarioError {
        field: Some("defaults".into()),
        message,
    }
}

impl LinkDefaults {
    /// The engine's defaults and its frozen [`DEFAULTS_SETS`].
    fn engine() -> LinkDefaults {
        LinkDefaults {
            current: serde_json::to_value(Scenario::default())
                .expect("default scenario serializes"),
            sets: DEFAULTS_SETS
                .iter()
                .map(|s| serde_json::from_str(s).expect("a frozen defaults set is valid JSON"))
                .collect(),
        }
    }

    /// The set new links are made under (the newest).
    fn newest(&self) -> u32 {
        self.sets.len() as u32
    }

    /// The full scenario JSON a link made under `set` is relative to: the current defaults overlaid with
    /// the frozen set (so only fields added after the set take their current default).
    fn base(&self, set: u32) -> Result<Value, ScenarioError> {
        let frozen = (set as usize)
            .checked_sub(1)
            .and_then(|i| self.sets.get(i))
            .ok_or_else(|| {
                defaults_err(if set == 0 {
                    "defaults set 0 does not exist (sets are numbered from 1)".into()
                } else {
                    format!(
                        "the link was made under defaults set {set}, which this engine ({}) does not know \
                         (it knows sets 1 to {}); open it with a newer packlab",
                        crate::ENGINE_VERSION,
                        self.newest()
                    )
                })
            })?;
        let mut base = self.current.clone();
        merge(&mut base, frozen.clone());
        Ok(base)
    }

    fn diff_json(&self, sc: &Scenario) -> Value {
        let mine = serde_json::to_value(sc).expect("scenario serializes");
        let base = self.base(self.newest()).expect("the newest set exists");
        let mut d = diff(&mine, &base).unwrap_or_else(|| Value::Object(Default::default()));
        if let Value::Object(m) = &mut d {
            m.insert("v".into(), Value::from(sc.v));
            m.insert("engine".into(), Value::from(sc.engine.clone()));
        }
        d
    }

    fn encode(&self, sc: &Scenario) -> String {
        let json = serde_json::to_vec(&self.diff_json(sc)).expect("scenario serializes");
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&json).expect("in-memory write");
        let bytes = enc.finish().expect("in-memory write");
        format!(
            "v{LINK_VERSION}.d{}.{}",
            self.newest(),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
        )
    }

    fn decode(&self, link: &str) -> Result<Scenario, ScenarioError> {
        let mut s = link.trim();
        if let Some(i) = s.find('#') {
            s = &s[i + 1..];
        }
        for part in s.split('&') {
            if let Some(p) = part.strip_prefix("s=") {
                s = p;
                break;
            }
        }
        if s.len() > MAX_LINK_CHARS {
            return Err(err(format!(
                "link is too long ({} characters; at most {MAX_LINK_CHARS})",
                s.len()
            )));
        }
        let Some((ver, rest)) = s.split_once('.') else {
            return Err(err(format!(
                "not a packlab link (expected s=v{LINK_VERSION}.d<set>.<data>)"
            )));
        };
        let ver: u32 = ver
            .strip_prefix('v')
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| err(format!("unknown link version '{ver}'")))?;
        let (set, payload) = match ver {
            // before defaults sets were recorded: made under set 1
            1 => (1, rest),
            2 => {
                let (d, payload) = rest.split_once('.').unwrap_or((rest, ""));
                let set = d
                    .strip_prefix('d')
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| {
                        defaults_err(format!(
                            "expected the defaults set 'd<number>' after 'v2.', found '{}'",
                            d.chars().take(12).collect::<String>()
                        ))
                    })?;
                let set: u32 = set.parse().map_err(|_| {
                    defaults_err(format!(
                        "defaults set number '{}' is out of range (this engine knows sets 1 to {})",
                        set.chars().take(12).collect::<String>(),
                        self.newest()
                    ))
                })?;
                (set, payload)
            }
            _ => {
                let m = format!("link version v{ver} is not supported (this engine reads v1 and v{LINK_VERSION})");
                return Err(err(m));
            }
        };
        let base = self.base(set)?;
        if payload.is_empty() {
            return Err(err("the link has no scenario data after its version"));
        }
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload.trim_end_matches('='))
            .map_err(|e| err(format!("link data is not base64url: {e}")))?;
        let mut json = Vec::new();
        flate2::read::DeflateDecoder::new(&bytes[..])
            .take(MAX_SCENARIO_BYTES as u64 + 1)
            .read_to_end(&mut json)
            .map_err(|e| err(format!("link data does not decompress: {e}")))?;
        if json.len() > MAX_SCENARIO_BYTES {
            return Err(err("link data decompresses to too much"));
        }
        let text = std::str::from_utf8(&json).map_err(|_| err("link data is not UTF-8 JSON"))?;
        let patch: Value =
            serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
        let sc = Scenario::from_value_on(base, patch)?;
        sc.validate().map_err(|e| {
            let first = &e[0];
            ScenarioError {
                field: Some(first.field.clone()),
                message: first.message.clone(),
            }
        })?;
        Ok(sc)
    }
}

// ---------------------------------------------------------------------------------------------------------
// the admission model (seed 000, ALGORITHMS.md §2)

/// Where the admission parameters come from (informational for the playground: the values are always in
/// [`AdmissionScenario::params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ParamSource {
    /// The documented defaults of ALGORITHMS.md §2.13 (priors, κ, rates), at the playground's scale.
    #[default]
    Defaults,
    /// Values edited by the user.
    Custom,
    /// Fitted to the Azure 2017 arrivals (arrival rate, initial sizes, core-lifetime prior; seed 000 App. B).
    Azure,
}

/// The admission-control experiment of a scenario: an experiment preset (its policy arms), the model
/// parameters, the runs per threshold and the run shown in the time-series view. The seed is
/// [`Scenario::seed`]. Defaults are the playground's quick scale (not §2.13's full scale, see
/// [`AdmissionScenario::default`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdmissionScenario {
    /// Experiment preset "E0.1" … "E0.4" (ALGORITHMS.md §2.12): which policy arms are tuned.
    pub preset: String,
    /// Where `params` came from.
    pub source: ParamSource,
    /// Runs R per threshold (common random numbers across policies and thresholds), 1..=1000.
    pub runs: usize,
    /// Labels of the preset's arms to run (e.g. "ZEROTH", "SECOND+MARGINAL m=5"); empty = all arms.
    pub policies: Vec<String>,
    /// Arm whose tuned threshold drives the time-series view ("" = the first arm run).
    pub series_arm: String,
    /// Run index (0-based, < runs) shown in the time-series view.
    pub series_run: usize,
    /// Model and tuning parameters (capacity in cores, rates per hour, horizon in hours, SLA ε, …).
    pub params: AdmitParams,
}

/// Largest runs per threshold accepted in a scenario.
pub const MAX_ADMISSION_RUNS: usize = 1000;

impl Default for AdmissionScenario {
    /// The playground's quick scale, chosen so a whole E0.1 finishes in well under a minute in a browser:
    /// C = 1,000 cores, 2 months (1,460 h), R = 2 runs, 6 binary-search iterations, 1,000 bootstrap
    /// resamples. Every other parameter keeps the §2.13 default of [`AdmitParams::default`].
    fn default() -> Self {
        AdmissionScenario {
            preset: "E0.1".into(),
            source: ParamSource::Defaults,
            runs: 2,
            policies: Vec::new(),
            series_arm: String::new(),
            series_run: 0,
            params: AdmitParams {
                capacity: 1000.0,
                horizon_hours: 1460.0,
                tune_iterations: 6,
                bootstrap: 1000,
                ..AdmitParams::default()
            },
        }
    }
}

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

    /// The arms to run, in preset order, filtered by [`AdmissionScenario::policies`].
    /// Errors: unknown preset or a label that is not an arm of the preset.
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
        Ok(all
            .into_iter()
            .filter(|a| self.policies.is_empty() || self.policies.contains(&a.0))
            .map(|(label, params, kind, marginal)| AdmissionArmSpec {
                label,
                params,
                kind,
                marginal,
            })
            .collect())
    }

    /// Validates every field with dotted paths under `prefix` (e.g. `admission.params.capacity`).
    pub fn validate(&self, prefix: &str) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let mut e = |f: &str, m: String| {
            errs.push(FieldError {
                field: format!("{prefix}{f}"),
                message: m,
            })
        };
        let p = &self.params;
        if let Err(m) = self.preset() {
            e("preset", m);
        } else if let Err(m) = self.arms() {
            e("policies", m);
        } else if self.arms().map(|a| a.is_empty()).unwrap_or(false) {
            e("policies", "choose at least one policy".into());
        }
        if self.source == ParamSource::Azure && !AZURE_FIT_AVAILABLE {
            e(
                "source",
                "Azure-fitted parameters are not available in this engine version".into(),
            );
        }
        if self.runs == 0 || self.runs > MAX_ADMISSION_RUNS {
            e(
                "runs",
                format!("runs must be between 1 and {MAX_ADMISSION_RUNS}"),
            );
        }
        if self.series_run >= self.runs.max(1) {
            e(
                "series_run",
                format!("the run shown must be below runs ({})", self.runs),
            );
        }
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !(pos(p.capacity) && p.capacity <= 1e7) {
            e(
                "params.capacity",
                "capacity must be a number of cores in (0, 10,000,000]".into(),
            );
        }
        if !(pos(p.arrival_rate) && p.arrival_rate <= 1e4) {
            e(
                "params.arrival_rate",
                "arrival rate must be in (0, 10,000] deployments per hour".into(),
            );
        }
        if !(pos(p.horizon_hours) && p.horizon_hours <= 262_800.0) {
            e(
                "params.horizon_hours",
                "horizon must be in (0, 262,800] hours (30 years)".into(),
            );
        }
        if !(p.sla > 0.0 && p.sla < 1.0) {
            e("params.sla", "SLA ε must be in (0, 1)".into());
        }
        if !(pos(p.priors.kappa) && p.priors.kappa <= 1e6) {
            e("params.priors.kappa", "kill factor κ must be > 0".into());
        }
        if p.tune_iterations == 0 || p.tune_iterations > 60 {
            e(
                "params.tune_iterations",
                "search iterations must be between 1 and 60".into(),
            );
        }
        if p.bootstrap > 1_000_000 {
            e(
                "params.bootstrap",
                "at most 1,000,000 bootstrap resamples".into(),
            );
        }
        if errs.is_empty() {
            if let Err(m) = p.validate() {
                errs.push(FieldError {
                    field: format!("{prefix}params"),
                    message: m,
                });
            }
        }
        errs
    }
}

/// Whether this engine can fit the admission parameters to the Azure 2017 arrivals (`packlab::admit::fit`).
pub const AZURE_FIT_AVAILABLE: bool = true;

/// Path of the bundled derived Azure 2017 arrivals, relative to the repository (served at `/static/...`).
pub const AZURE_ARRIVALS_PATH: &str = "static/traces/azure2017-arrivals.txt.gz";

/// Fits what the Azure 2017 arrivals identify ([`crate::admit::fit::fit_azure_arrivals`]: arrival rate per
/// hour, the empirical initial-size distribution, the core-lifetime prior λ ~ Γ) from the bundle `bytes`
/// (the gzip file at [`AZURE_ARRIVALS_PATH`]) and writes the values into `a.params` (scale-out rate and
/// size and κ keep their values), marking `a.source` as [`ParamSource::Azure`]. The arrival rate written is
/// this cluster's share of the region-wide fitted stream ([`crate::admit::load::cluster_share_rate`] for
/// `a.params.capacity`; a note in the returned fit gives both rates). The scenario then carries
/// the fitted values, so links and `packlab run` reproduce them without refitting. Errors: unreadable
/// bundle (file:line:column) or a failed fit.
pub fn apply_azure_fit(
    a: &mut AdmissionScenario,
    bytes: &[u8],
) -> Result<crate::admit::fit::AzureFit, String> {
    let data = crate::trace::azure::read_arrivals_bundle("azure2017-arrivals.txt.gz", bytes)
        .map_err(|e| e.to_string())?;
    let mut fit =
        crate::admit::fit::fit_azure_arrivals(&data, &crate::admit::fit::FitOptions::default())?;
    fit.apply(&mut a.params);
    // the fitted stream is a whole region's: give this cluster its share (crate::admit::load)
    let fitted = a.params.arrival_rate;
    a.params.arrival_rate = crate::admit::load::cluster_share_rate(&a.params, 300);
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
    /// Tuned threshold.
    pub threshold: f64,
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

fn arm_result(spec: &AdmissionArmSpec, r: &TuneResult) -> AdmissionArm {
    AdmissionArm {
        label: spec.label.clone(),
        policy: r.policy.clone(),
        kind: r.kind,
        marginal: r.marginal,
        pseudo_obs: spec.params.pseudo_obs,
        labelling: spec.params.labelling,
        threshold: r.threshold,
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
            .map(|e| SweepPoint {
                threshold: e.threshold,
                utilization: e.utilization,
                failure_rate: e.failure_rate,
                failure_rate_upper: e.failure_rate_upper,
            })
            .collect(),
    }
}

fn report(sc: &Scenario, mut arms: Vec<AdmissionArm>) -> AdmissionReport {
    // as tuning::run_preset: gain relative to the ZEROTH arm's utilization
    if let Some(z) = arms
        .iter()
        .find(|a| a.kind == PolicyKind::Zeroth)
        .map(|a| a.utilization)
    {
        for a in &mut arms {
            if z > 0.0 {
                a.gain_vs_zeroth = Some(a.utilization / z - 1.0);
            }
        }
    }
    let a = &sc.admission;
    AdmissionReport {
        model: "admission".into(),
        preset: a
            .preset()
            .map(|p| p.name().to_string())
            .unwrap_or_else(|_| a.preset.clone()),
        runs: a.runs,
        seed: sc.seed,
        capacity: a.params.capacity,
        horizon_hours: a.params.horizon_hours,
        sla: a.params.sla,
        arms,
    }
}

/// Runs an admission scenario with the engine's tuning ([`crate::admit::tuning::tune`], one shared
/// [`SimCache`], as [`crate::admit::tuning::run_preset`] does): what `packlab run` prints. `progress`
/// sees (runs done, runs planned); returning false cancels. Errors: invalid scenario, "cancelled".
pub fn run_admission(
    sc: &Scenario,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<AdmissionReport, String> {
    if let Some(e) = sc.admission.validate("admission.").first() {
        return Err(e.to_string());
    }
    let a = &sc.admission;
    let arms = a.arms()?;
    let per_arm: Vec<usize> = arms.iter().map(|s| planned_runs(s, a.runs)).collect();
    let total: usize = per_arm.iter().sum();
    let mut cache = SimCache::new();
    let mut offset = 0usize;
    let mut out = Vec::new();
    for (i, s) in arms.iter().enumerate() {
        let off = offset;
        let mut hook = |d: usize, _t: usize| progress(off + d, total);
        let r = tune(
            &s.params, s.kind, s.marginal, a.runs, sc.seed, &mut cache, &mut hook,
        )?;
        offset += per_arm[i];
        out.push(arm_result(s, &r));
    }
    Ok(report(sc, out))
}

fn planned_runs(s: &AdmissionArmSpec, runs: usize) -> usize {
    runs * if s.kind == PolicyKind::AcceptIfFits {
        1
    } else {
        s.params.tune_iterations + 1
    }
}

/// State of one arm's binary search in an [`AdmissionRun`] (mirrors `tuning::tune` step by step).
struct ArmRun {
    spec: AdmissionArmSpec,
    grid: LeadGrid,
    iters: usize,
    iter: usize,
    lo: f64,
    hi: f64,
    log_space: bool,
    best: Option<Evaluation>,
    sweep: Vec<Evaluation>,
    /// The threshold being evaluated and the runs done at it.
    current: Option<(f64, Vec<RunResult>)>,
    result: Option<TuneResult>,
}

impl ArmRun {
    fn to_th(&self, x: f64) -> f64 {
        if self.log_space {
            libm::pow(10f64, x)
        } else {
            x
        }
    }
}

/// What one [`AdmissionRun::step`] did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdmissionStep {
    /// Runs done so far (of [`AdmissionRun::total`]).
    pub done: usize,
    /// Runs planned.
    pub total: usize,
    /// Index of the arm worked on.
    pub arm: usize,
    /// Its label.
    pub label: String,
    /// A threshold whose runs just completed, if any.
    pub evaluated: Option<SweepPoint>,
    /// The arm's result if it just completed.
    pub finished: Option<AdmissionArm>,
}

/// An admission experiment driven one simulation run at a time (for the browser's worker, which checks
/// Cancel and reports progress between steps). Gives exactly what [`run_admission`] gives (tested).
pub struct AdmissionRun {
    scenario: Scenario,
    arms: Vec<ArmRun>,
    seeds: Vec<u64>,
    cache: SimCache,
    done: usize,
    total: usize,
}

impl AdmissionRun {
    /// Validates the scenario's admission section and plans the runs. Errors: the first invalid field.
    pub fn new(sc: &Scenario) -> Result<AdmissionRun, FieldError> {
        if let Some(e) = sc.admission.validate("admission.").into_iter().next() {
            return Err(e);
        }
        let a = &sc.admission;
        if a.params.importance.enabled {
            // the §2.9 set-up alone is 10⁴ badness sketches and 3 × 500 pilot runs: a CLI job
            return Err(FieldError {
                field: "admission.params.importance.enabled".into(),
                message: "importance sampling of runs (ALGORITHMS.md §2.9) runs in the CLI only \
                          (`packlab run` on this scenario, or `packlab admit --importance`); \
                          the playground tunes with plain runs"
                    .into(),
            });
        }
        let arms = a.arms().map_err(|m| FieldError {
            field: "admission.policies".into(),
            message: m,
        })?;
        let total = arms.iter().map(|s| planned_runs(s, a.runs)).sum();
        let arms = arms
            .into_iter()
            .map(|spec| {
                let (mut lo, mut hi) = spec.params.threshold_bounds(spec.kind);
                let log_space = spec.kind == PolicyKind::Second
                    && matches!(
                        spec.params.second_param,
                        crate::admit::params::SecondParam::Ratio
                    );
                if log_space {
                    lo = libm::log10(lo);
                    hi = libm::log10(hi);
                }
                let iters = if spec.kind == PolicyKind::AcceptIfFits {
                    0
                } else {
                    spec.params.tune_iterations
                };
                ArmRun {
                    grid: lead_grid(&spec.params),
                    spec,
                    iters,
                    iter: 0,
                    lo,
                    hi,
                    log_space,
                    best: None,
                    sweep: Vec::new(),
                    current: None,
                    result: None,
                }
            })
            .collect();
        Ok(AdmissionRun {
            seeds: (0..a.runs).map(|r| run_seed(sc.seed, r)).collect(),
            scenario: sc.clone(),
            arms,
            cache: SimCache::new(),
            done: 0,
            total,
        })
    }

    /// Runs planned (simulation runs over all arms and thresholds).
    pub fn total(&self) -> usize {
        self.total
    }

    /// Runs done (or skipped because the tuned threshold was already evaluated).
    pub fn done(&self) -> usize {
        self.done
    }

    /// True when every arm is tuned.
    pub fn is_finished(&self) -> bool {
        self.arms.iter().all(|a| a.result.is_some())
    }

    /// Simulates the next run (or finalises an arm whose tuned threshold was already evaluated) and says
    /// what happened; `None` when everything is done.
    pub fn step(&mut self) -> Option<AdmissionStep> {
        let seed = self.scenario.seed;
        let runs = self.seeds.len();
        let i = self.arms.iter().position(|a| a.result.is_none())?;
        let arm = &mut self.arms[i];
        let mut evaluated = None;
        let mut finished_eval: Option<Evaluation> = None;
        if arm.current.is_none() {
            if arm.iter < arm.iters {
                let th = arm.to_th(0.5 * (arm.lo + arm.hi));
                arm.current = Some((th, Vec::with_capacity(runs)));
            } else {
                let th = arm.to_th(arm.lo);
                match &arm.best {
                    Some(b) if b.threshold == th => {
                        self.done += runs;
                        finished_eval = Some(b.clone());
                    }
                    _ => arm.current = Some((th, Vec::with_capacity(runs))),
                }
            }
        }
        if finished_eval.is_none() {
            let (th, done_runs) = arm
                .current
                .as_mut()
                .expect("a threshold is being evaluated");
            let spec = PolicySpec {
                kind: arm.spec.kind,
                threshold: *th,
                marginal: arm.spec.marginal,
            };
            let r = simulate_run(
                &arm.spec.params,
                spec,
                self.seeds[done_runs.len()],
                &arm.grid,
                &mut self.cache,
            );
            done_runs.push(r);
            self.done += 1;
            if done_runs.len() == runs {
                let (th, done_runs) = arm.current.take().expect("current");
                let ev = summarise(th, &done_runs);
                evaluated = Some(SweepPoint {
                    threshold: ev.threshold,
                    utilization: ev.utilization,
                    failure_rate: ev.failure_rate,
                    failure_rate_upper: ev.failure_rate_upper,
                });
                if arm.iter < arm.iters {
                    let mid = 0.5 * (arm.lo + arm.hi);
                    if ev.failure_rate_upper <= arm.spec.params.sla {
                        arm.lo = mid;
                        arm.best = Some(ev.clone());
                    } else {
                        arm.hi = mid;
                    }
                    arm.sweep.push(ev);
                    arm.iter += 1;
                } else {
                    arm.sweep.push(ev.clone());
                    finished_eval = Some(ev);
                }
            }
        }
        let mut finished = None;
        if let Some(tuned) = finished_eval {
            let ci = bca_mean_ci(
                &tuned.run_utilization,
                arm.spec.params.bootstrap,
                0.95,
                seed,
            );
            let mut name = arm.spec.kind.name().to_string();
            if arm.spec.marginal {
                name.push_str("+MARGINAL");
            }
            let mut sweep = std::mem::take(&mut arm.sweep);
            sweep.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
            let r = TuneResult {
                policy: name,
                kind: arm.spec.kind,
                marginal: arm.spec.marginal,
                threshold: arm.to_th(arm.lo),
                tuned,
                utilization_ci: ci,
                sweep,
            };
            finished = Some(arm_result(&arm.spec, &r));
            arm.result = Some(r);
        }
        Some(AdmissionStep {
            done: self.done,
            total: self.total,
            arm: i,
            label: arm.spec.label.clone(),
            evaluated,
            finished,
        })
    }

    /// The report once every arm is tuned (identical to [`run_admission`]); `None` before.
    pub fn report(&self) -> Option<AdmissionReport> {
        let arms: Option<Vec<AdmissionArm>> = self
            .arms
            .iter()
            .map(|a| a.result.as_ref().map(|r| arm_result(&a.spec, r)))
            .collect();
        Some(report(&self.scenario, arms?))
    }
}

/// One simulated run with its time series, for the playground's run view: arm `label` of the scenario
/// (or its first arm when empty) at `threshold`, run index `run` (the experiment's run seed, so the run is
/// one of those the tuning used), sampled `points` times over the horizon (2..=5000). Errors: unknown arm,
/// invalid scenario.
pub fn admission_series(
    sc: &Scenario,
    label: &str,
    threshold: f64,
    run: usize,
    points: usize,
) -> Result<RunResult, String> {
    if let Some(e) = sc.admission.validate("admission.").first() {
        return Err(e.to_string());
    }
    let arms = sc.admission.preset()?.arms(&sc.admission.params);
    let arm = if label.is_empty() {
        arms.first()
    } else {
        arms.iter().find(|a| a.0 == label)
    }
    .ok_or_else(|| format!("'{label}' is not a policy of {}", sc.admission.preset))?;
    if !threshold.is_finite() {
        return Err("the threshold must be a finite number".into());
    }
    let mut p = arm.1.clone();
    p.series_every_hours = p.horizon_hours / points.clamp(2, 5000) as f64;
    let spec = PolicySpec {
        kind: arm.2,
        threshold,
        marginal: arm.3,
    };
    Ok(simulate_run(
        &p,
        spec,
        run_seed(sc.seed, run),
        &lead_grid(&p),
        &mut SimCache::new(),
    ))
}

/// Deep-merges `patch` into `base` (objects recursively; anything else replaces).
fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    // `trace` is an externally tagged enum: a patch replaces it whole
                    Some(slot) if k != "trace" && slot.is_object() && v.is_object() => {
                        merge(slot, v)
                    }
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, p) => *b = p,
    }
}

/// The parts of `a` that differ from `b` (objects recursively; arrays and scalars whole), or None if equal.
fn diff(a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::Object(x), Value::Object(y))
            if !(x.contains_key("bundled") || x.contains_key("upload")) =>
        {
            let mut out = serde_json::Map::new();
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = diff(v, w) {
                            out.insert(k.clone(), d);
                        }
                    }
                    None => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            if out.is_empty() {
                None
            } else {
                Some(Value::Object(out))
            }
        }
        _ if a == b => None,
        _ => Some(a.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::{FitSpec, Rule};

    #[test]
    fn default_link_is_short_and_round_trips() {
        let s = Scenario::default();
        let link = s.to_link();
        assert!(link.starts_with("v2.d1.") && link.len() < 80, "{link}");
        assert_eq!(Scenario::from_link(&link).unwrap(), s);
        assert_eq!(
            Scenario::from_link(&format!("https://x/y/#s={link}")).unwrap(),
            s
        );
    }

    #[test]
    fn non_default_values_round_trip() {
        let mut s = Scenario::default();
        s.seed = 42;
        s.placement.capacity = 1.0;
        s.placement.rule = Rule::FirstFit;
        s.placement.fit = FitSpec::Perc(95.0);
        s.placement.families[0].grid = vec![0.1, 0.01];
        s.placement.families[3].enabled = false;
        s.trace = TraceRef::Upload {
            name: "my day.zip".into(),
            sha256: "ab".repeat(32),
        };
        let d = s.diff_json();
        assert_eq!(d["placement"]["capacity"], 1.0);
        assert!(d["placement"].get("rebalance").is_none());
        assert_eq!(Scenario::from_link(&s.to_link()).unwrap(), s);
    }

    #[test]
    fn tampered_links_are_errors_not_panics() {
        let good = Scenario::default().to_link();
        for bad in [
            "".to_string(),
            "v1".into(),
            "v9.abc".into(),
            "vx.abc".into(),
            "v1.!!!!".into(),
            "v1.AAAA".into(),
            format!("{}x", &good[..good.len() - 3]),
            format!("v1.{}", "A".repeat(MAX_LINK_CHARS + 10)),
        ] {
            assert!(Scenario::from_link(&bad).is_err(), "{bad}");
        }
        // valid deflate of a bad value names the field
        let mut s = Scenario::default();
        s.placement.capacity = -1.0;
        let e = Scenario::from_link(&s.to_link()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("placement.capacity"));
        // unknown field
        let e = Scenario::from_json(r#"{"placement":{"capacty":2}}"#).unwrap_err();
        assert!(e.message.contains("capacty"), "{e}");
        // a deflate bomb is bounded
        let zeros = vec![b' '; MAX_SCENARIO_BYTES * 4];
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&zeros).unwrap();
        let link = format!(
            "v1.{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(enc.finish().unwrap())
        );
        assert!(Scenario::from_link(&link)
            .unwrap_err()
            .message
            .contains("too much"));
    }

    // -----------------------------------------------------------------------------------------------------
    // defaults sets: links keep their meaning when the engine's defaults change

    /// The saved links of `tests/links/<file>` as (note, link, expect).
    fn saved_links(corpus: &str) -> Vec<(String, String, Value)> {
        corpus
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let e: Value = serde_json::from_str(l).unwrap();
                (
                    e["note"].as_str().unwrap().to_string(),
                    e["link"].as_str().unwrap().to_string(),
                    e["expect"].clone(),
                )
            })
            .collect()
    }

    const V1_LINKS: &str = include_str!("../tests/links/v1.jsonl");
    const V1_DECODED: &str = include_str!("../tests/links/v1.decoded.jsonl");
    const V2_LINKS: &str = include_str!("../tests/links/v2.jsonl");

    /// `want` ⊆ `got`: objects by key (fields added later may appear in `got`), arrays element-wise with the
    /// same length, everything else equal (numbers by value).
    fn contains(got: &Value, want: &Value) -> bool {
        match (got, want) {
            (Value::Object(g), Value::Object(w)) => w
                .iter()
                .all(|(k, v)| g.get(k).is_some_and(|gv| contains(gv, v))),
            (Value::Array(g), Value::Array(w)) => {
                g.len() == w.len() && g.iter().zip(w).all(|(a, b)| contains(a, b))
            }
            (g, w) => g == w || (g.is_number() && g.as_f64() == w.as_f64()),
        }
    }

    fn to_json(s: &Scenario) -> Value {
        serde_json::to_value(s).unwrap()
    }

    /// Every saved `v1.` link decodes to exactly the scenario engine 0.1.0 decoded it to before links
    /// recorded their defaults set (`tests/links/v1.decoded.jsonl`, written by that engine: every field, the
    /// defaults included), and contains its `expect`.
    #[test]
    fn saved_v1_links_decode_to_the_same_scenarios_as_before() {
        let links = saved_links(V1_LINKS);
        let decoded: Vec<Value> = V1_DECODED
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(links.len() >= 8);
        assert_eq!(
            links.len(),
            decoded.len(),
            "one decoded scenario per saved link"
        );
        for ((note, link, expect), before) in links.iter().zip(&decoded) {
            let got = to_json(&Scenario::from_link(link).unwrap_or_else(|e| panic!("{note}: {e}")));
            assert!(
                contains(&got, before),
                "{note}: {got}\n  differs from {before}"
            );
            assert!(
                contains(&got, expect),
                "{note}: {got} does not contain {expect}"
            );
            // replayed as a whole URL too
            let url = format!("http://127.0.0.1:8000/#s={link}");
            assert_eq!(to_json(&Scenario::from_link(&url).unwrap()), got, "{note}");
        }
    }

    /// The saved `v2.` links keep loading and re-encode to themselves (same defaults set, same bytes).
    #[test]
    fn saved_v2_links_load_and_re_encode_identically() {
        let links = saved_links(V2_LINKS);
        assert!(links.len() >= 4);
        for (note, link, expect) in &links {
            assert!(link.starts_with("v2.d1."), "{note}: {link}");
            let s = Scenario::from_link(link).unwrap_or_else(|e| panic!("{note}: {e}"));
            assert!(
                contains(&to_json(&s), expect),
                "{note}: does not contain {expect}"
            );
            assert_eq!(&s.to_link(), link, "{note}");
        }
    }

    /// The guard: the engine's defaults equal the newest frozen set. When this fails a default was changed
    /// (or a field added): freeze the new defaults as the next set instead of editing a frozen one.
    #[test]
    fn current_defaults_are_the_newest_frozen_set() {
        let mut cur = to_json(&Scenario::default());
        let m = cur.as_object_mut().unwrap();
        m.remove("v");
        m.remove("engine");
        let newest: Value = serde_json::from_str(DEFAULTS_SETS.last().unwrap()).unwrap();
        assert!(
            cur == newest,
            "the scenario defaults differ from the newest frozen defaults set {DEFAULTS_SET}: changed in the \
             engine {}, frozen {}. Old links must keep their meaning: add the JSON of Scenario::default() \
             (without v and engine) as src/scenario/defaults-{}.json to DEFAULTS_SETS; never edit a frozen set \
             (see the module documentation).",
            diff(&cur, &newest).unwrap_or(Value::Null),
            diff(&newest, &cur).unwrap_or(Value::Null),
            DEFAULTS_SET + 1
        );
        // every frozen set is a complete, valid scenario (as the base of its links)
        let d = LinkDefaults::engine();
        for k in 1..=d.newest() {
            let s: Scenario = serde_json::from_value(d.base(k).unwrap()).unwrap();
            assert!(s.validate().is_ok(), "defaults set {k}");
        }
        assert_eq!(DEFAULTS_SET, DEFAULTS_SETS.len() as u32);
    }

    /// A future engine whose defaults changed (frozen as set 2) still reads every old link with the set-1
    /// values; an engine that had merged old links onto its current defaults (the behaviour before defaults
    /// sets) would not; a set-2 link opened by this engine is a clear error.
    #[test]
    fn old_links_keep_their_meaning_when_the_defaults_change() {
        let today = LinkDefaults::engine();
        // the future defaults: capacity 4 → 8, the GPA grid, E0.1 → E0.2, C 1,000 → 2,000, SLA 0.001 → 0.01
        let mut future_defaults = today.current.clone();
        future_defaults["placement"]["capacity"] = serde_json::json!(8.0);
        future_defaults["placement"]["families"][0]["grid"] = serde_json::json!([0.1, 0.01]);
        future_defaults["admission"]["preset"] = serde_json::json!("E0.2");
        future_defaults["admission"]["params"]["capacity"] = serde_json::json!(2000.0);
        future_defaults["admission"]["params"]["sla"] = serde_json::json!(0.01);
        let mut set2 = future_defaults.clone();
        set2.as_object_mut().unwrap().remove("v");
        set2.as_object_mut().unwrap().remove("engine");
        let future = LinkDefaults {
            current: future_defaults.clone(),
            sets: vec![today.sets[0].clone(), set2.clone()],
        };
        // the pre-defaults-sets behaviour: payloads merged onto whatever the current defaults are
        let naive = LinkDefaults {
            current: future_defaults,
            sets: vec![set2],
        };

        let mut old_links: Vec<(String, String)> = saved_links(V1_LINKS)
            .into_iter()
            .chain(saved_links(V2_LINKS))
            .map(|(n, l, _)| (n, l))
            .collect();
        old_links.push((
            "default, made today".into(),
            today.encode(&Scenario::default()),
        ));
        let adm = Scenario {
            model: Model::Admission,
            ..Scenario::default()
        };
        old_links.push(("admission default, made today".into(), today.encode(&adm)));
        let mut naive_changed = 0;
        for (note, link) in &old_links {
            let now = today.decode(link).unwrap_or_else(|e| panic!("{note}: {e}"));
            let later = future
                .decode(link)
                .unwrap_or_else(|e| panic!("{note}: {e}"));
            assert_eq!(later, now, "{note}: a defaults change altered an old link");
            if naive.decode(link).map_or(true, |n| n != now) {
                naive_changed += 1;
            }
        }
        assert_eq!(
            naive_changed,
            old_links.len(),
            "every old link relies on a changed default"
        );

        // the set-1 values, explicitly, for the default links
        let d = future.decode(&old_links[old_links.len() - 2].1).unwrap();
        assert_eq!(d.placement.capacity, 4.0);
        assert_eq!(d.placement.families[0].grid.len(), 9);
        let a = future.decode(&old_links[old_links.len() - 1].1).unwrap();
        assert_eq!(a.model, Model::Admission);
        assert_eq!(
            (
                a.admission.preset.as_str(),
                a.admission.params.capacity,
                a.admission.params.sla
            ),
            ("E0.1", 1000.0, 0.001)
        );

        // links of the future engine: `v2.d2.`, its defaults are short again and mean its values...
        let fut_default: Scenario = serde_json::from_value(future.base(2).unwrap()).unwrap();
        let link = future.encode(&fut_default);
        assert!(link.starts_with("v2.d2."), "{link}");
        assert_eq!(link.len(), today.encode(&Scenario::default()).len());
        assert_eq!(future.decode(&link).unwrap().placement.capacity, 8.0);
        // ...a future link with the old value stores it explicitly
        let mut four = fut_default.clone();
        four.placement.capacity = 4.0;
        assert_eq!(future.decode(&future.encode(&four)).unwrap(), four);
        // ...and this engine refuses them, naming the field, instead of reading them with set 1
        let e = today.decode(&link).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("defaults"), "{e}");
        assert!(
            e.message.contains("defaults set 2") && e.message.contains("newer packlab"),
            "{e}"
        );
        let e = Scenario::from_link(&format!("https://x/#s={link}")).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("defaults"), "{e}");

        // a field added after set 1 (simulated: set 1 without `bootstrap`) takes its current default
        let mut set1 = today.sets[0].clone();
        set1["admission"]["params"]
            .as_object_mut()
            .unwrap()
            .remove("bootstrap");
        let mut cur = today.current.clone();
        cur["admission"]["params"]["bootstrap"] = serde_json::json!(777);
        let added = LinkDefaults {
            current: cur,
            sets: vec![set1],
        };
        let a = added.decode(&old_links[old_links.len() - 1].1).unwrap();
        assert_eq!(a.admission.params.bootstrap, 777);
        assert_eq!(a.admission.params.capacity, 1000.0);
    }

    /// Tampered version or defaults-set markers are errors with a message (and the field `defaults` where
    /// the set is to blame), never panics.
    #[test]
    fn tampered_or_unknown_defaults_sets_are_clear_errors() {
        let good = Scenario::default().to_link();
        let payload = good.strip_prefix("v2.d1.").unwrap();
        for (bad, field, needle) in [
            (
                format!("v2.d2.{payload}"),
                Some("defaults"),
                "defaults set 2",
            ),
            (
                format!("v2.d99.{payload}"),
                Some("defaults"),
                "defaults set 99",
            ),
            (format!("v2.d0.{payload}"), Some("defaults"), "set 0"),
            (
                format!("v2.d99999999999999999999.{payload}"),
                Some("defaults"),
                "out of range",
            ),
            (format!("v2.d-1.{payload}"), Some("defaults"), "d<number>"),
            (format!("v2.d.{payload}"), Some("defaults"), "d<number>"),
            (format!("v2.x1.{payload}"), Some("defaults"), "d<number>"),
            (format!("v2.{payload}"), Some("defaults"), "d<number>"),
            ("v2.d1".into(), None, "no scenario data"),
            ("v2.d1.".into(), None, "no scenario data"),
            ("v1.".into(), None, "no scenario data"),
            ("v2.d1.AAAA".into(), None, "decompress"),
            ("v2.d1.!!!".into(), None, "base64url"),
            (format!("v2.d1.d1.{payload}"), None, "base64url"),
            (format!("v1.d1.{payload}"), None, "base64url"),
            (format!("v3.d1.{payload}"), None, "v3 is not supported"),
            (format!("v0.{payload}"), None, "v0 is not supported"),
            (
                format!("v99999999999.{payload}"),
                None,
                "unknown link version",
            ),
            (format!("x2.d1.{payload}"), None, "unknown link version"),
        ] {
            let e = Scenario::from_link(&bad).unwrap_err();
            assert_eq!(e.field.as_deref(), field, "{bad}: {e}");
            assert!(
                e.to_string().contains(needle),
                "{bad}: '{e}' lacks '{needle}'"
            );
        }
        // a v1 link's payload is the same JSON as v2.d1's: both forms decode alike
        assert_eq!(
            Scenario::from_link(&format!("v1.{payload}")).unwrap(),
            Scenario::from_link(&good).unwrap()
        );
    }

    fn tiny_admission() -> Scenario {
        let mut s = Scenario {
            model: Model::Admission,
            seed: 3,
            ..Scenario::default()
        };
        s.admission.runs = 2;
        s.admission.params.capacity = 200.0;
        s.admission.params.horizon_hours = 240.0;
        s.admission.params.tune_iterations = 3;
        s.admission.params.bootstrap = 200;
        s.admission.params.subhorizons = vec![240.0, 24.0];
        s.admission.params.steps = 20;
        s
    }

    #[test]
    fn admission_stepper_equals_engine_tuning_and_run_preset() {
        let s = tiny_admission();
        let native = run_admission(&s, &mut |_, _| true).unwrap();
        let mut run = AdmissionRun::new(&s).unwrap();
        let mut last = 0;
        while let Some(st) = run.step() {
            assert!(st.done > last && st.done <= st.total);
            last = st.done;
        }
        assert_eq!(last, run.total());
        assert_eq!(run.report().unwrap(), native);
        let a = &s.admission;
        let pre = crate::admit::tuning::run_preset(
            a.preset().unwrap(),
            &a.params,
            a.runs,
            s.seed,
            &mut |_, _| true,
        )
        .unwrap();
        assert_eq!(pre.arms.len(), native.arms.len());
        for (x, y) in pre.arms.iter().zip(&native.arms) {
            assert_eq!(x.label, y.label);
            assert_eq!(x.result.threshold, y.threshold);
            assert_eq!(x.result.tuned.utilization, y.utilization);
            assert_eq!(x.result.utilization_ci, y.utilization_ci);
            assert_eq!(x.result.tuned.failure_rate, y.failure_rate);
            assert_eq!(x.gain_vs_zeroth, y.gain_vs_zeroth);
            assert_eq!(x.result.sweep.len(), y.sweep.len());
        }
        // a subset of arms, and the time series of one run
        let mut sub = s.clone();
        sub.admission.policies = vec!["SECOND".into()];
        let r = run_admission(&sub, &mut |_, _| true).unwrap();
        assert_eq!(r.arms.len(), 1);
        assert_eq!(r.arms[0], native.arms[2].clone().with_gain(None));
        let ts = admission_series(&s, "SECOND", native.arms[2].threshold, 1, 50).unwrap();
        assert!(
            ts.series.len() >= 40 && ts.series.len() <= 51,
            "{}",
            ts.series.len()
        );
    }

    impl AdmissionArm {
        fn with_gain(mut self, g: Option<f64>) -> Self {
            self.gain_vs_zeroth = g;
            self
        }
    }

    #[test]
    fn admission_links_round_trip_and_validate() {
        let mut s = tiny_admission();
        s.admission.preset = "E0.3".into();
        s.admission.policies = vec!["SECOND m=5".into()];
        let link = s.to_link();
        assert_eq!(Scenario::from_link(&link).unwrap(), s);
        let d = s.diff_json();
        assert_eq!(d["model"], "admission");
        assert!(d["admission"]["params"].get("sla").is_none());
        let mut bad = s.clone();
        bad.admission.params.sla = 2.0;
        assert_eq!(
            Scenario::from_link(&bad.to_link())
                .unwrap_err()
                .field
                .as_deref(),
            Some("admission.params.sla")
        );
        bad = s.clone();
        bad.admission.policies = vec!["NOPE".into()];
        assert_eq!(bad.validate().unwrap_err()[0].field, "admission.policies");
        bad = s.clone();
        bad.admission.source = ParamSource::Azure;
        assert_eq!(bad.validate().is_err(), !AZURE_FIT_AVAILABLE);
        // placement scenarios ignore the admission section
        let mut p = Scenario::default();
        p.admission.runs = 0;
        assert!(p.validate().is_ok());
    }

    #[test]
    fn azure_fit_writes_the_identified_parameters() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(AZURE_ARRIVALS_PATH);
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let mut a = AdmissionScenario::default();
        let fit = apply_azure_fit(&mut a, &bytes).unwrap();
        assert_eq!(a.source, ParamSource::Azure);
        // the cluster's share of the region-wide stream: the §2.13 load-to-capacity ratio
        assert!(a.params.arrival_rate < 0.01 * fit.arrival_rate.value);
        let ratio = crate::admit::load::offered_load(&a.params, 300).ratio_at_horizon;
        let reference =
            crate::admit::load::offered_load(&AdmitParams::default(), 300).ratio_at_horizon;
        assert!(
            (ratio / reference - 1.0).abs() < 1e-9,
            "{ratio} vs {reference}"
        );
        assert!(fit.notes.iter().any(|n| n.contains("share")));
        assert!(matches!(
            a.params.initial_size,
            crate::admit::params::InitialSize::Empirical { .. }
        ));
        assert_eq!(a.params.priors.kappa, AdmitParams::default().priors.kappa);
        let s = Scenario {
            model: Model::Admission,
            admission: a,
            ..Scenario::default()
        };
        assert!(s.validate().is_ok(), "{:?}", s.validate());
        assert_eq!(Scenario::from_link(&s.to_link()).unwrap(), s);
    }
}
