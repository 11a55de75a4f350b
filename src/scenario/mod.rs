//! The one serde [`Scenario`] envelope that drives the CLI (`packlab run`), the browser and share links, and
//! the share-link codec. It holds no model logic: each model's section type, validation and runs live in its
//! folder under `src/models/` and are reached through the registry ([`crate::models`]).
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
//! A field added after set k takes, when a set-k link is decoded, its value in the oldest frozen set that
//! records it (the value it was first frozen at, which must reproduce the behaviour from before it existed),
//! or its current default if no frozen set records it yet. So a default may change later (in a new set)
//! without moving older links. Scenario files carry no defaults set: their missing fields take the current
//! defaults.
//!
//! Changing a default therefore means freezing a new set: the unit test
//! `current_defaults_are_the_newest_frozen_set` fails until `src/scenario/defaults-<k+1>.json` (the JSON of
//! [`Scenario::default`] without `v` and `engine`) is added to [`DEFAULTS_SETS`]; frozen sets are never
//! edited. Adding a field: add it to the newest set only if its value also reproduces every older set's
//! behaviour, otherwise freeze a new set.

use crate::substrate::error::FieldError;
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
    include_str!("defaults-1.json"),
    // + the workload reference and the lifetime model (seed 003)
    include_str!("defaults-2.json"),
    // + the reservation model (seed 004)
    include_str!("defaults-3.json"),
    // + the oversubscription model (seed 001)
    include_str!("defaults-4.json"),
    // + the calibrated GPA family (gpa-cal, off) in the placement frontier's families
    include_str!("defaults-5.json"),
    // + the reservation model's horizon, E4.1 job source and capacity basis, E4.3 floor and LP-at-κ fields, all
    //   at their version-1 behaviour (issue 26)
    include_str!("defaults-6.json"),
    // + C2MARL's corrected dual step and per-subscriber credit (issue 25: η_λ per episode, λ_max, the dual
    //   warm-up and window, credit), the allocator's arrival order (default `subscriber`, as before)
    include_str!("defaults-7.json"),
    // + the reservation model's reference set-up: horizon no-arrivals, synthetic E4.1 jobs, runnable capacity;
    //   + greedy's E4.3 price apart from the floor (null = the floor, the version-1 behaviour) (issue 26)
    include_str!("defaults-8.json"),
    // + the lifetime model's noisy estimate (`noisy_estimate`; issue 27)
    include_str!("defaults-9.json"),
    // + the oversubscription model calibrated to seed 001 Table 5 (384 GB per PM, occupancy 0.4, mixed
    //   arrivals) and C2MARL's normalised dual step at η_λ = 2 per episode (issue 25)
    include_str!("defaults-10.json"),
    // + the lifetime model's noisy estimate `capped-mean`, ALGORITHMS.md §5.2's posterior mean with the wrong
    //   component capped at 14 days (issue 27; sets 9–10: `median`)
    include_str!("defaults-11.json"),
    // + C2MARL's delayed cost credit (`cost_credit: creation`), η_λ = 20, λ_max = 1,000 (issue 25)
    include_str!("defaults-12.json"),
    // + the oversubscription model calibrated at the paper's 500 PMs against seed 001 Tables 1 and 5 (424 GB per
    //   PM, occupancy 0.5; results/001/calibration.md; issue 25)
    include_str!("defaults-13.json"),
    // + the reservation model's E4.3 datacenter at 100,000 cores (the paper's 150,000 stays `packlab era run`'s
    //   default): the playground's default view answers in under 10 s (issue 28)
    include_str!("defaults-14.json"),
    // + C2MARL's PM-level dual step (`dual_cost: pm`, window 20, η_λ = 5) with λ held at the mean of its
    //   iterates from 0.8 of training (`lambda_freeze_fraction`); set 14 records the fields' earlier values
    //   (cluster, 1), added while it was the newest set (issue 25)
    include_str!("defaults-15.json"),
    // + the oversubscription model's warm-start rate (`warm_rate`, E1.2) and usage cap (`usage_cap`, E1.3),
    //   both at their earlier behaviour (1); results/001/calibration-e12.md (issue 25); C2MARL's
    //   `dual_eval_episodes` (100), added while it was the newest set: only the calibrated PM dual reads it
    include_str!("defaults-16.json"),
];
/// The defaults set this engine writes into links (the newest frozen set).
pub const DEFAULTS_SET: u32 = DEFAULTS_SETS.len() as u32;
/// Largest share-link payload accepted, characters.
pub const MAX_LINK_CHARS: usize = 16_384;
/// Largest decompressed scenario JSON accepted, bytes.
pub const MAX_SCENARIO_BYTES: usize = 256 * 1024;

/// Where a scenario's trace comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum TraceRef {
    /// A bundled trace by id (see [`crate::data::BUNDLED_DATA`]).
    Bundled(String),
    /// A user's upload: its name and SHA-256; reproducing the scenario needs the same data, picked any way
    /// (files, folder, zip).
    Upload {
        /// File or folder name as uploaded.
        name: String,
        /// Lower-case hex SHA-256 of the trace's content ([`crate::trace::UsageTrace::content_sha256`]), or,
        /// in links made before, of its files ([`crate::input::upload_sha256`]).
        sha256: String,
    },
}

/// Where a scenario's workload (VM/job records, [`crate::workload::Workload`]) comes from, for models with
/// [`crate::models::ModelInfo::uses_workload`]. Same shape as [`TraceRef`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum WorkloadRef {
    /// A bundled workload by id (a [`crate::data::BUNDLED_DATA`] entry whose kind holds VM records).
    Bundled(String),
    /// A user's upload: its name and SHA-256 (see [`crate::input::upload_sha256`]); the format is detected
    /// from the files ([`crate::workload::WorkloadFormat::detect`]).
    Upload {
        /// File or folder name as uploaded.
        name: String,
        /// Lower-case hex SHA-256 of the upload.
        sha256: String,
    },
    /// The synthetic pool workload of ALGORITHMS.md §5.7, generated from these parameters (hosts, weeks,
    /// target allocation, start, seed; [`crate::workload::synthetic::generate`]). Its node list is the pool, so
    /// the lifetime model simulates that pool with `lifetime.hosts` = 0; every VM is its own tenant batch, so
    /// run it with `lifetime.split` = "" and `lifetime.share` = 1.
    Synthetic(crate::workload::synthetic::SyntheticParams),
}

impl Default for WorkloadRef {
    fn default() -> Self {
        WorkloadRef::Bundled(
            crate::data::BUNDLED_DATA
                .iter()
                .find(|b| b.kind.is_workload())
                .expect("a bundled workload")
                .id
                .to_string(),
        )
    }
}

fn check_sha256(sha256: &str, field: &str, errs: &mut Vec<FieldError>) {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        errs.push(FieldError {
            field: field.into(),
            message: "must be 64 hex digits".into(),
        })
    }
}

impl Default for TraceRef {
    fn default() -> Self {
        TraceRef::Bundled(
            crate::data::BUNDLED_DATA
                .iter()
                .find(|b| b.kind == crate::data::DataKind::UsageTrace)
                .expect("a bundled usage trace")
                .id
                .to_string(),
        )
    }
}

/// Defines the [`Scenario`] envelope with one section per registered model (invoked with the registry's
/// list by `crate::models::for_each_model!`, so a new model's section appears here without an edit).
macro_rules! define_scenario {
    ($( $(#[$doc:meta])* $field:ident : $variant:ident => $def:ty $(where $feat:literal)? ),+ $(,)?) => {
        /// A complete, reproducible experiment: the envelope (format version, engine, model, trace, seed) and
        /// one section per model of the registry ([`crate::models`]); only the section of `model` is used and
        /// validated, the others ride along so a link keeps them.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Scenario {
            /// Scenario format version ([`SCENARIO_VERSION`]).
            pub v: u32,
            /// Engine version that wrote it ([`crate::ENGINE_VERSION`]); informational.
            pub engine: String,
            /// The model to run.
            pub model: Model,
            /// The trace (models that read a usage trace; see [`crate::models::ModelInfo::uses_trace`]).
            pub trace: TraceRef,
            /// The workload (models that replay VM records; see [`crate::models::ModelInfo::uses_workload`]).
            /// Absent in links of engines before the lifetime model (the default then applies).
            pub workload: WorkloadRef,
            /// Seed of every random stream. Kept below 2^53 so it crosses to JS exactly.
            pub seed: u64,
            $( $(#[$doc])* pub $field: <$def as crate::models::ModelDef>::Section, )+
        }

        impl Default for Scenario {
            fn default() -> Self {
                Scenario {
                    v: SCENARIO_VERSION,
                    engine: crate::ENGINE_VERSION.to_string(),
                    model: Model::default(),
                    trace: TraceRef::default(),
                    workload: WorkloadRef::default(),
                    seed: 1,
                    $( $field: Default::default(), )+
                }
            }
        }

        impl Scenario {
            /// The field errors of the section of `self.model` (paths prefixed with the section name).
            fn validate_model_section(&self) -> Vec<FieldError> {
                match self.model {
                    $( Model::$variant => <$def as crate::models::ModelDef>::validate(
                        &self.$field,
                        concat!(stringify!($field), "."),
                    ), )+
                }
            }
        }

        /// Validates `sc` and plans its model's run from its section and seed (see
        /// [`crate::models::ModelDef::start`]). Errors: the first invalid field. A scenario validated
        /// already goes to [`start_valid`].
        pub fn start(sc: &Scenario, inputs: &crate::models::Inputs) -> Result<crate::models::AnyRun, crate::experiment::RunError> {
            if let Err(errs) = sc.validate() {
                return Err(errs.into_iter().next().expect("at least one error").into());
            }
            plan(sc, inputs)
        }

        /// Plans the run of a scenario validated once ([`Scenario::into_valid`]) without validating it again.
        pub fn start_valid(sc: &ValidScenario, inputs: &crate::models::Inputs) -> Result<crate::models::AnyRun, crate::experiment::RunError> {
            plan(&sc.0, inputs)
        }

        fn plan(sc: &Scenario, inputs: &crate::models::Inputs) -> Result<crate::models::AnyRun, crate::experiment::RunError> {
            match sc.model {
                $( Model::$variant => $crate::if_model_built!([$($feat)?]
                    <$def as crate::models::ModelDef>::start(&sc.$field, sc.seed, inputs)
                        .map(crate::models::AnyRun::$variant),
                    Err(crate::experiment::RunError::not_in_build(stringify!($field)))), )+
            }
        }

        /// Operation `op` of `sc`'s model on its section ([`crate::models::ModelDef::call`]), the answer
        /// serialized with `ser`.
        pub fn call<S: serde::Serializer>(
            sc: &Scenario,
            op: &str,
            args: &serde_json::Value,
            inputs: &crate::models::Inputs,
            ser: S,
        ) -> Result<S::Ok, crate::experiment::RunError> {
            match sc.model {
                $( Model::$variant => $crate::if_model_built!([$($feat)?]
                    <$def as crate::models::ModelDef>::call(&sc.$field, sc.seed, op, args, inputs, ser),
                    { let _ = (op, args, inputs, ser); Err(crate::experiment::RunError::not_in_build(stringify!($field))) }), )+
            }
        }
    };
}
crate::for_each_model!(define_scenario);

pub use crate::models::Model;

/// A scenario whose fields passed [`Scenario::validate`] ([`Scenario::into_valid`]): what [`start_valid`]
/// plans, so a run's scenario is validated once on its way from the binding or the CLI (issue 29).
#[derive(Clone, Debug)]
pub struct ValidScenario(Scenario);

impl ValidScenario {
    /// The scenario.
    pub fn into_inner(self) -> Scenario {
        self.0
    }
}

impl std::ops::Deref for ValidScenario {
    type Target = Scenario;
    fn deref(&self) -> &Scenario {
        &self.0
    }
}

impl Scenario {
    /// This scenario, validated ([`Scenario::validate`]). Errors: every invalid field, in order.
    pub fn into_valid(self) -> Result<ValidScenario, Vec<FieldError>> {
        self.validate()?;
        Ok(ValidScenario(self))
    }

    /// [`Scenario::from_link`], which validates the scenario, as a [`ValidScenario`].
    pub fn from_link_valid(link: &str) -> Result<ValidScenario, ScenarioError> {
        Scenario::from_link(link).map(ValidScenario)
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
            TraceRef::Bundled(id) if crate::data::bundled_trace(id).is_none() => {
                errs.push(FieldError {
                    field: "trace.bundled".into(),
                    message: format!("no bundled trace '{id}'"),
                })
            }
            TraceRef::Upload { sha256, .. } => {
                check_sha256(sha256, "trace.upload.sha256", &mut errs)
            }
            _ => {}
        }
        match &self.workload {
            WorkloadRef::Bundled(id)
                if !crate::data::bundled(id).is_some_and(|b| b.kind.is_workload()) =>
            {
                errs.push(FieldError {
                    field: "workload.bundled".into(),
                    message: format!("no bundled workload '{id}'"),
                })
            }
            WorkloadRef::Upload { sha256, .. } => {
                check_sha256(sha256, "workload.upload.sha256", &mut errs)
            }
            WorkloadRef::Synthetic(p) => errs.extend(p.validate("workload.synthetic.")),
            _ => {}
        }
        errs.extend(self.validate_model_section());
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
        // Deserialized from pretty JSON text, where every member and element has a line of its own: an error's
        // line and column then name the field ([`json_path_at`]). One deserializer of the scenario type and no
        // path-tracking wrapper around it (issue 30: the wrapper instantiated every section's deserializer a
        // second time, ~180 KB of the wasm).
        let text = serde_json::to_string_pretty(&base).expect("a JSON value prints");
        serde_json::from_str(&text).map_err(|e| {
            let at = text
                .split_inclusive('\n')
                .take(e.line().saturating_sub(1))
                .map(str::len)
                .sum::<usize>()
                + e.column();
            let path = json_path_at(&text, at);
            // the message says what is wrong in serde's words (without serde_json's position, which is in our
            // text, not the user's), with its JSON type names put the way the form shows them (a boolean is
            // true or false)
            let full = e.to_string();
            let position = format!(" at line {} column {}", e.line(), e.column());
            let message = plain_words(full.strip_suffix(&position).unwrap_or(&full));
            if path.is_empty() {
                err(message)
            } else {
                ScenarioError {
                    field: Some(path),
                    message,
                }
            }
        })
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
    /// the frozen sets from the newest down to `set` (so a field added after `set` takes the value of the
    /// oldest set that records it, the value that reproduced the behaviour before it existed).
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
        for later in self.sets[set as usize..].iter().rev() {
            merge(&mut base, later.clone());
        }
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
            .map_err(|e| err(damaged_link(&e)))?;
        let mut json = Vec::new();
        let mut inflate = flate2::read::DeflateDecoder::new(&bytes[..]);
        (&mut inflate)
            .take(MAX_SCENARIO_BYTES as u64 + 1)
            .read_to_end(&mut json)
            .map_err(|_| {
                err("the link is damaged: its scenario data is incomplete or altered (copy the whole link again)")
            })?;
        if json.len() > MAX_SCENARIO_BYTES {
            return Err(err("link data decompresses to too much"));
        }
        // the compressed scenario ends where its data ends: bytes after it are characters added to the link
        if (inflate.total_in() as usize) < bytes.len() {
            return Err(err(
                "the link is damaged: it has extra characters at its end (copy the whole link again)",
            ));
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

/// Deep-merges `patch` into `base` (objects recursively; anything else replaces).
fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(&k) {
                    // `trace` and `workload` are externally tagged enums: a patch replaces them whole
                    Some(slot)
                        if k != "trace" && k != "workload" && slot.is_object() && v.is_object() =>
                    {
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

/// The dotted path (`lifetime.defrag`, `era.kappa[1]`; empty at the top level) of the member or element of the
/// JSON text `text` that byte offset `at` lies in: the innermost key or array element that started before `at`
/// and has not been closed. Made for the pretty-printed text of [`Scenario::from_value_on`], where serde_json
/// reports an error just after the offending key or value (or at the closing brace for a missing field).
fn json_path_at(text: &str, at: usize) -> String {
    enum Frame {
        Object { key: Option<String>, want_key: bool },
        Array { next: usize, current: Option<usize> },
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < at.min(b.len()) {
        match b[i] {
            b' ' | b'\n' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b',' | b':' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = b[i] == b',';
                }
                i += 1;
                continue;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
                continue;
            }
            _ => {}
        }
        // a key or a value starts at i
        if let Some(Frame::Array { next, current }) = stack.last_mut() {
            *current = Some(*next);
            *next += 1;
        }
        match b[i] {
            b'{' => {
                stack.push(Frame::Object {
                    key: None,
                    want_key: true,
                });
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array {
                    next: 0,
                    current: None,
                });
                i += 1;
            }
            b'"' => {
                let mut end = i + 1;
                while end < b.len() && b[end] != b'"' {
                    end += if b[end] == b'\\' { 2 } else { 1 };
                }
                end = (end + 1).min(b.len());
                if let Some(Frame::Object {
                    key,
                    want_key: true,
                }) = stack.last_mut()
                {
                    *key = Some(serde_json::from_str(&text[i..end]).unwrap_or_default());
                }
                i = end;
            }
            _ => {
                while i < b.len() && !b",}] \n\t\r".contains(&b[i]) {
                    i += 1;
                }
            }
        }
    }
    let mut path = String::new();
    for f in &stack {
        match f {
            Frame::Object { key: Some(k), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Frame::Array {
                current: Some(i), ..
            } => path.push_str(&format!("[{i}]")),
            _ => {}
        }
    }
    path
}

/// serde's message about a scenario value in a reader's words (what is wrong, what would be right, the value
/// given): Rust type names become "a whole number ≥ 0", "a number", "true or false"; an unknown field or variant
/// says what to do and lists the known names; anything else is kept as serde wrote it.
fn plain_words(serde: &str) -> String {
    fn kind(expected: &str) -> String {
        match expected.trim() {
            "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number ≥ 0".into(),
            "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
            "f32" | "f64" => "a number".into(),
            "a boolean" => "true or false".into(),
            "a string" => "text".into(),
            "a sequence" => "a list".into(),
            "a map" => "an object of settings".into(),
            e => e.to_string(),
        }
    }
    let names = |list: &str| list.replace('`', "");
    if let Some(rest) = serde.strip_prefix("unknown field `") {
        if let Some((name, known)) = rest.split_once("`, expected one of ") {
            return format!("'{name}' is not a setting here: remove it or correct its spelling (the settings: {})", names(known));
        }
        if let Some((name, known)) = rest.split_once("`, expected ") {
            return format!("'{name}' is not a setting here: remove it or correct its spelling (the setting: {})", names(known));
        }
    }
    if let Some(rest) = serde.strip_prefix("unknown variant `") {
        if let Some((name, known)) = rest.split_once("`, expected one of ") {
            return format!("'{name}' is not one of the choices: {}", names(known));
        }
        if let Some((name, known)) = rest.split_once("`, expected ") {
            return format!("'{name}' is not one of the choices: {}", names(known));
        }
    }
    for prefix in ["invalid value: ", "invalid type: "] {
        if let Some(rest) = serde.strip_prefix(prefix) {
            if let Some((got, expected)) = rest.rsplit_once(", expected ") {
                let got = got
                    .replace("integer `", "")
                    .replace("floating point `", "")
                    .replace('`', "");
                return format!("must be {}, got {got}", kind(expected));
            }
        }
    }
    if let Some(rest) = serde.strip_prefix("missing field `") {
        return format!("the setting '{}' is missing", rest.trim_end_matches('`'));
    }
    serde.to_string()
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

/// The user's words for a share link whose payload is not base64url (`Scenario::from_link`): where the
/// damage is, counted in characters after the `v2.d<k>.` prefix, and what to do.
fn damaged_link(e: &base64::DecodeError) -> String {
    use base64::DecodeError as E;
    match e {
        E::InvalidByte(at, b) => format!(
            "the link is damaged: character {} of its scenario data ('{}') cannot appear in a link (copy the whole link again)",
            at + 1,
            char::from(*b).escape_default()
        ),
        _ => "the link is damaged: it was cut short or has extra characters at its end (copy the whole link again)"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::placement::{FitSpec, Rule};

    /// json_path_at on a hand-made pretty text: the innermost key or element open at each offset.
    #[test]
    fn json_path_at_names_the_open_member() {
        let text = "{\n  \"a\": {\n    \"b\": [\n      1,\n      \"x\"\n    ],\n    \"c\": true\n  },\n  \"d\": 2\n}";
        let at = |needle: &str| text.find(needle).unwrap() + needle.len();
        assert_eq!(json_path_at(text, 0), "");
        assert_eq!(json_path_at(text, at("\"a\"")), "a");
        assert_eq!(json_path_at(text, at("1")), "a.b[0]");
        assert_eq!(json_path_at(text, at("\"x\"")), "a.b[1]");
        assert_eq!(json_path_at(text, at("true")), "a.c");
        // past the end of `a`'s object: its key is the path until the next key is read
        assert_eq!(json_path_at(text, at("true\n  }")), "a");
        assert_eq!(json_path_at(text, at("\"d\"")), "d");
        assert_eq!(json_path_at(text, text.len()), "");
    }

    #[test]
    fn into_valid_lists_every_bad_field_and_start_valid_plans_like_start() {
        use crate::experiment::Steppable;
        let mut bad = Scenario::default();
        bad.model = Model::Era;
        bad.era.period_h = f64::NAN;
        bad.era.kappa = vec![0.5, 1.5];
        let fields: Vec<String> = bad
            .into_valid()
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, ["era.kappa[1]", "era.period_h"]);
        let mut sc = Scenario::default();
        sc.model = Model::Admission;
        let inputs = crate::models::Inputs::default();
        let a = start(&sc, &inputs).expect("plans").total();
        let b = start_valid(&sc.clone().into_valid().expect("valid"), &inputs)
            .expect("plans")
            .total();
        assert_eq!(a, b);
        let link = sc.to_link();
        assert_eq!(
            Scenario::from_link_valid(&link)
                .expect("valid link")
                .into_inner(),
            sc
        );
    }

    #[test]
    fn default_link_is_short_and_round_trips() {
        let s = Scenario::default();
        let link = s.to_link();
        assert!(
            link.starts_with(&format!("v2.d{DEFAULTS_SET}.")) && link.len() < 80,
            "{link}"
        );
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
        assert_eq!(e.field.as_deref(), Some("placement.capacty"), "{e}");
        // a value of the wrong type names its dotted path, also inside a list
        let e = Scenario::from_json(r#"{"lifetime":{"defrag":"yes"}}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("lifetime.defrag"), "{e}");
        assert_eq!(
            e.to_string(),
            "lifetime.defrag: must be true or false, got string \"yes\""
        );
        let e = Scenario::from_json(r#"{"era":{"kappa":[1, "x"]}}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("era.kappa[1]"), "{e}");
        // inside an externally tagged enum (a section a patch replaces whole)
        let e = Scenario::from_json(r#"{"workload":{"synthetic":{"hosts":"x"}}}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("workload.synthetic.hosts"), "{e}");
        assert_eq!(e.message, "must be a whole number ≥ 0, got string \"x\"");
        // serde's words become the reader's: a negative seed, an unknown setting, an unknown choice
        let e = Scenario::from_json(r#"{"seed":-1}"#).unwrap_err();
        assert_eq!(e.to_string(), "seed: must be a whole number ≥ 0, got -1");
        let e = Scenario::from_json(r#"{"era":{"days":1,"bogus":1}}"#).unwrap_err();
        assert!(
            e.message.starts_with("'bogus' is not a setting here: remove it or correct its spelling (the settings: preset, policies, kappa,"),
            "{e}"
        );
        let e = Scenario::from_json(r#"{"era":{"horizon":"never"}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "era.horizon: 'never' is not one of the choices: open, no-arrivals, cut-windows"
        );
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

    const V1_LINKS: &str = include_str!("../../tests/links/v1.jsonl");
    const V1_DECODED: &str = include_str!("../../tests/links/v1.decoded.jsonl");
    const V2_LINKS: &str = include_str!("../../tests/links/v2.jsonl");

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

    /// The saved `v2.` links keep loading; those made under the newest defaults set re-encode to themselves
    /// (same bytes), older ones re-encode under the newest set to a link of the same scenario.
    #[test]
    fn saved_v2_links_load_and_re_encode_identically() {
        let links = saved_links(V2_LINKS);
        assert!(links.len() >= 4);
        let newest = format!("v2.d{DEFAULTS_SET}.");
        assert!(links.iter().any(|(_, l, _)| l.starts_with(&newest)));
        for (note, link, expect) in &links {
            assert!(link.starts_with("v2.d"), "{note}: {link}");
            let s = Scenario::from_link(link).unwrap_or_else(|e| panic!("{note}: {e}"));
            assert!(
                contains(&to_json(&s), expect),
                "{note}: does not contain {expect}"
            );
            if link.starts_with(&newest) {
                assert_eq!(&s.to_link(), link, "{note}");
            } else {
                assert_eq!(Scenario::from_link(&s.to_link()).unwrap(), s, "{note}");
            }
        }
    }

    /// A field added after a set decodes, for that set's links, to the value it was first frozen at, not to
    /// a later default: the reservation model's horizon, job source and capacity basis were frozen in set 6 at
    /// their version-1 values (open, swim, arrivals), kept in set 7 (C2MARL's set) and changed in set 8;
    /// greedy's E4.3 price was added in set 8 as null (= the floor, version 1). Values read from the frozen
    /// JSON files by hand.
    #[test]
    fn later_fields_decode_to_their_first_frozen_value() {
        let d = LinkDefaults::engine();
        let era = |k: u32| d.base(k).unwrap()["era"].clone();
        for k in 3..=7 {
            assert_eq!(era(k)["horizon"], "open", "set {k}");
            assert_eq!(era(k)["jobs"], "swim", "set {k}");
            assert_eq!(era(k)["capacity_basis"], "arrivals", "set {k}");
            assert_eq!(era(k)["e43_greedy_price"], Value::Null, "set {k}");
        }
        assert_eq!(era(8)["horizon"], "no-arrivals");
        assert_eq!(era(8)["jobs"], "synthetic");
        assert_eq!(era(8)["capacity_basis"], "runnable");
        // a set-6 link that changes nothing of the reservation model keeps the version-1 set-up
        let s: Scenario = serde_json::from_value(d.base(6).unwrap()).unwrap();
        assert_eq!(s.era.horizon, crate::models::era::Horizon::Open);
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
        let next = today.sets.len() as u32 + 1;
        let future = LinkDefaults {
            current: future_defaults.clone(),
            sets: today.sets.iter().cloned().chain([set2.clone()]).collect(),
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

        // links of the future engine: `v2.d<next>.`, its defaults are short again and mean its values...
        let fut_default: Scenario = serde_json::from_value(future.base(next).unwrap()).unwrap();
        let link = future.encode(&fut_default);
        assert!(link.starts_with(&format!("v2.d{next}.")), "{link}");
        // (the payloads are as short; the prefixes differ when the set number gains a digit)
        let today_link = today.encode(&Scenario::default());
        assert_eq!(
            link.len() - format!("v2.d{next}.").len(),
            today_link.len() - format!("v2.d{DEFAULTS_SET}.").len()
        );
        assert_eq!(future.decode(&link).unwrap().placement.capacity, 8.0);
        // ...a future link with the old value stores it explicitly
        let mut four = fut_default.clone();
        four.placement.capacity = 4.0;
        assert_eq!(future.decode(&future.encode(&four)).unwrap(), four);
        // ...and this engine refuses them, naming the field, instead of reading them with set 1
        let e = today.decode(&link).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("defaults"), "{e}");
        assert!(
            e.message.contains(&format!("defaults set {next}"))
                && e.message.contains("newer packlab"),
            "{e}"
        );
        let e = Scenario::from_link(&format!("https://x/#s={link}")).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("defaults"), "{e}");

        // a field added after set 1 (simulated: set 1 without `bootstrap`) takes its current default
        let mut sets = today.sets.clone();
        for set in &mut sets {
            set["admission"]["params"]
                .as_object_mut()
                .unwrap()
                .remove("bootstrap");
        }
        let mut cur = today.current.clone();
        cur["admission"]["params"]["bootstrap"] = serde_json::json!(777);
        let added = LinkDefaults { current: cur, sets };
        let a = added.decode(&old_links[old_links.len() - 1].1).unwrap();
        assert_eq!(a.admission.params.bootstrap, 777);
        assert_eq!(a.admission.params.capacity, 1000.0);
    }

    /// Tampered version or defaults-set markers are errors with a message (and the field `defaults` where
    /// A link with characters added at its end is refused as damaged, whatever its length modulo 4 (before, one
    /// that completed a base64 group decoded to a byte after the deflate stream, which the decoder ignored, so
    /// the altered link opened as if whole).
    #[test]
    fn links_with_added_characters_are_damaged() {
        let mut tails = 0u32;
        for seed in [1u64, 12, 123, 1234, 12345, 123456] {
            let sc = Scenario {
                seed,
                ..Scenario::default()
            };
            let good = sc.to_link();
            assert_eq!(Scenario::from_link(&good).unwrap(), sc);
            for extra in ["A", "9", "_", "AA", "Qw"] {
                let bad = format!("{good}{extra}");
                let e = Scenario::from_link(&bad).unwrap_err().to_string();
                assert!(
                    e.contains("the link is damaged") && e.contains("extra characters"),
                    "{bad}: {e}"
                );
            }
            let payload = good.rsplit('.').next().unwrap();
            tails |= 1 << (payload.len() % 4);
        }
        // among them the case that was accepted: 3 characters into a base64 group, one more completes it
        assert!(tails & (1 << 3) != 0, "payload lengths mod 4: {tails:b}");
    }

    /// the set is to blame), never panics.
    #[test]
    fn tampered_or_unknown_defaults_sets_are_clear_errors() {
        let good = Scenario::default().to_link();
        let payload = good.strip_prefix(&format!("v2.d{DEFAULTS_SET}.")).unwrap();
        let next = DEFAULTS_SET + 1;
        for (bad, field, needle) in [
            (
                format!("v2.d{next}.{payload}"),
                Some("defaults"),
                &format!("defaults set {next}")[..],
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
            ("v2.d1.AAAA".into(), None, "incomplete or altered"),
            (
                "v2.d1.!!!".into(),
                None,
                "character 1 of its scenario data ('!')",
            ),
            (
                format!("v2.d1.d1.{payload}"),
                None,
                "character 3 of its scenario data ('.')",
            ),
            (
                format!("v1.d1.{payload}"),
                None,
                "character 3 of its scenario data ('.')",
            ),
            (
                format!("v2.d1.{}", &payload[..payload.len() - 1]),
                None,
                "the link is damaged",
            ),
            (
                "v2.d1.AAAAA".into(),
                None,
                "cut short or has extra characters",
            ),
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
            Scenario::from_link(&format!("v2.d1.{payload}")).unwrap()
        );
    }

    /// A placement scenario's scripts travel in its link (issue 31); a scenario without scripts encodes
    /// without the key; a link whose script was tampered into a syntax error is refused naming the field,
    /// line and column.
    #[test]
    fn scripts_travel_in_links_and_tampering_names_the_line() {
        use crate::models::placement::policies::script::STARTER_GPA;
        use crate::models::placement::ScriptPolicy;
        assert!(!Scenario::default()
            .diff_json()
            .to_string()
            .contains("scripts"));
        let mut sc = Scenario::default();
        sc.placement.scripts = vec![ScriptPolicy::new("gpa", STARTER_GPA)];
        let back = Scenario::from_link(&sc.to_link()).unwrap();
        assert_eq!(back.placement.scripts, sc.placement.scripts);
        sc.placement.scripts[0].source =
            STARTER_GPA.replacen("let m = mu + mu_k;", "let m = mu +* mu_k;", 1);
        let e = Scenario::from_link(&sc.to_link()).unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("placement.scripts[0].source"),
            "{e}"
        );
        assert!(e.message.starts_with("line 6, column "), "{e}");
    }

    /// An era scenario's quote scripts travel in its link beside the policy list naming one (issue 31); the
    /// default era section writes no `scripts` key (old links decode unchanged); a tampered script is refused
    /// naming `era.scripts[0].source`, line and column.
    #[test]
    fn era_scripts_travel_in_links_and_tampering_names_the_field() {
        use crate::models::era::policies::script::STARTER_GREEDY;
        use crate::models::era::Policy;
        use crate::script::ScriptPolicy;
        let mut sc = Scenario {
            model: Model::Era,
            ..Scenario::default()
        };
        assert!(!sc.diff_json().to_string().contains("scripts"));
        sc.era.policies = vec![
            Policy::parse("greedy").unwrap(),
            Policy::parse("script:greedy").unwrap(),
        ];
        sc.era.scripts = vec![ScriptPolicy::new("greedy", STARTER_GREEDY)];
        let back = Scenario::from_link(&sc.to_link()).unwrap();
        assert_eq!(back.era.scripts, sc.era.scripts);
        assert_eq!(back.era.policies, sc.era.policies);
        assert_eq!(
            back.era
                .policy_list()
                .iter()
                .map(Policy::name)
                .collect::<Vec<_>>(),
            ["greedy", "script:greedy"]
        );
        sc.era.scripts[0].source = STARTER_GREEDY.replacen("return [", "return [[", 1);
        let e = Scenario::from_link(&sc.to_link()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("era.scripts[0].source"), "{e}");
        assert!(e.message.starts_with("line "), "{e}");
    }
}
