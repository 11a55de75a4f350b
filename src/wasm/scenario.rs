//! Engine facts (version, the model registry, bundled data), scenarios and share links.

use super::convert::{
    error_obj, scenario_error, scenario_from_js, to_js, valid_scenario, JsResult,
};
use crate::scenario::Scenario;
use crate::substrate::error::FieldError;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The engine (crate) version.
#[wasm_bindgen]
pub fn engine_version() -> String {
    crate::ENGINE_VERSION.to_string()
}

/// The model registry: `[{ id, title, hint, source, uses_trace, experiments, charts, ops, run_ops }]`, in
/// tab order (the playground's tab list comes from it).
#[wasm_bindgen]
pub fn models() -> JsResult<JsValue> {
    to_js(crate::models::MODELS)
}

/// Every bundled data file: `[{ id, path, kind, models, format?, title, attribution }]`.
#[wasm_bindgen]
pub fn bundled_data() -> JsResult<JsValue> {
    to_js(crate::data::BUNDLED_DATA)
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
        errors: Vec<FieldError>,
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
    serde_json::to_string_pretty(&*s).map_err(|e| error_obj("internal", &e.to_string(), None))
}
