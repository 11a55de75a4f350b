//! The one serde [`Scenario`] type that drives the CLI (`packlab run`), the browser and share links.
//!
//! A scenario names the model, the trace (a bundled id or an uploaded file by name and SHA-256), every
//! parameter and the seed. Share links carry it in the URL fragment as `#s=v1.<payload>` where payload =
//! base64url (no padding) of the raw-DEFLATE (RFC 1951) compressed JSON of the values that differ from
//! [`Scenario::default`]; decoding merges them back onto the defaults, so links stay short and keep loading
//! when later versions add fields with defaults.

use crate::placement::{FieldError, PlacementParams};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{Read, Write};

/// Scenario format version written into links (`v1.`) and the `v` field.
pub const SCENARIO_VERSION: u32 = 1;
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
    ScenarioError { field: None, message: message.into() }
}

impl Scenario {
    /// Validates every field, returning all problems (dotted field paths, e.g. `placement.capacity`).
    pub fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut errs = Vec::new();
        if self.v == 0 || self.v > SCENARIO_VERSION {
            errs.push(FieldError { field: "v".into(), message: format!("scenario version {} is not supported (this engine reads 1..={SCENARIO_VERSION})", self.v) });
        }
        if self.seed > MAX_SEED {
            errs.push(FieldError { field: "seed".into(), message: format!("seed must be at most {MAX_SEED}") });
        }
        match &self.trace {
            TraceRef::Bundled(id) if crate::trace::bundled(id).is_none() => {
                errs.push(FieldError { field: "trace.bundled".into(), message: format!("no bundled trace '{id}'") })
            }
            TraceRef::Upload { sha256, .. } if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) => {
                errs.push(FieldError { field: "trace.upload.sha256".into(), message: "must be 64 hex digits".into() })
            }
            _ => {}
        }
        errs.extend(self.placement.validate("placement."));
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
            return Err(err(format!("scenario JSON is larger than {MAX_SCENARIO_BYTES} bytes")));
        }
        let v: Value = serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
        Self::from_value(v)
    }

    fn from_value(v: Value) -> Result<Scenario, ScenarioError> {
        if !v.is_object() {
            return Err(err("a scenario must be a JSON object"));
        }
        let mut base = serde_json::to_value(Scenario::default()).expect("default scenario serializes");
        merge(&mut base, v);
        serde_json::from_value(base).map_err(|e| err(format!("invalid scenario: {e}")))
    }

    /// The JSON of the values that differ from the defaults (`v` and `engine` always included).
    pub fn diff_json(&self) -> Value {
        let mine = serde_json::to_value(self).expect("scenario serializes");
        let base = serde_json::to_value(Scenario::default()).expect("default scenario serializes");
        let mut d = diff(&mine, &base).unwrap_or_else(|| Value::Object(Default::default()));
        if let Value::Object(m) = &mut d {
            m.insert("v".into(), Value::from(self.v));
            m.insert("engine".into(), Value::from(self.engine.clone()));
        }
        d
    }

    /// Encodes the share-link payload `v1.<base64url(deflate(JSON of non-default values))>`; the URL
    /// fragment is `#s=` followed by it.
    pub fn to_link(&self) -> String {
        let json = serde_json::to_vec(&self.diff_json()).expect("scenario serializes");
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&json).expect("in-memory write");
        let bytes = enc.finish().expect("in-memory write");
        format!("v{SCENARIO_VERSION}.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Decodes a share link: accepts the payload, `s=<payload>`, `#s=<payload>` or a whole URL with that
    /// fragment. Bounded in size; any tampering gives an error, never a panic. The result is validated.
    pub fn from_link(link: &str) -> Result<Scenario, ScenarioError> {
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
            return Err(err(format!("link is too long ({} characters; at most {MAX_LINK_CHARS})", s.len())));
        }
        let Some((ver, payload)) = s.split_once('.') else {
            return Err(err("not a packlab link (expected s=v1.<data>)"));
        };
        let ver: u32 = ver.strip_prefix('v').and_then(|x| x.parse().ok()).ok_or_else(|| err(format!("unknown link version '{ver}'")))?;
        if ver == 0 || ver > SCENARIO_VERSION {
            return Err(err(format!("link version v{ver} is newer than this engine (reads up to v{SCENARIO_VERSION})")));
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
        let sc = Self::from_json(text)?;
        sc.validate().map_err(|e| {
            let first = &e[0];
            ScenarioError { field: Some(first.field.clone()), message: first.message.clone() }
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
                    // `trace` is an externally tagged enum: a patch replaces it whole
                    Some(slot) if k != "trace" && slot.is_object() && v.is_object() => merge(slot, v),
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
        (Value::Object(x), Value::Object(y)) if !(x.contains_key("bundled") || x.contains_key("upload")) => {
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
        assert!(link.starts_with("v1.") && link.len() < 80, "{link}");
        assert_eq!(Scenario::from_link(&link).unwrap(), s);
        assert_eq!(Scenario::from_link(&format!("https://x/y/#s={link}")).unwrap(), s);
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
        s.trace = TraceRef::Upload { name: "my day.zip".into(), sha256: "ab".repeat(32) };
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
        let link = format!("v1.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(enc.finish().unwrap()));
        assert!(Scenario::from_link(&link).unwrap_err().message.contains("too much"));
    }
}
