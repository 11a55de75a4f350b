//! Conversions JS ↔ engine and the error objects every export returns (`{ kind, message, field? }`); the
//! export files import these, never the folder's `mod.rs`.

use crate::experiment::RunError;
use crate::input::TraceError;
use crate::scenario::{Scenario, ScenarioError, ValidScenario};
use crate::substrate::error::FieldError;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The shapes of the error objects the exports throw, for the TypeScript declarations (`packlab.d.ts`):
/// [`error_obj`], [`valid_scenario`]'s list of every bad field, [`trace_error`].
#[wasm_bindgen(typescript_custom_section)]
const TS_ERRORS: &'static str = r#"
/** What every export throws: `{ kind, message, field? }`; an invalid scenario lists every bad field
 * (`errors`), a file that cannot be read names its line and column. */
export type PacklabError =
    | { kind: "scenario" | "run" | "input" | "chart" | "internal"; message: string; field?: string }
    | { kind: "scenario"; message: string; field: string; errors: { field: string; message: string }[] }
    | { kind: "trace"; file: string; line: number | null; column: number | null; message: string; display: string };
"#;

/// What every export returns: a value, or a JS error object.
pub(crate) type JsResult<T> = Result<T, JsValue>;
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> JsResult<JsValue> {
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
pub(crate) fn error_obj(kind: &str, message: &str, field: Option<&str>) -> JsValue {
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

pub(crate) fn trace_error(e: &TraceError) -> JsValue {
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

pub(crate) fn scenario_error(e: &ScenarioError) -> JsValue {
    error_obj("scenario", &e.message, e.field.as_deref())
}

/// A run or model-operation error: `{ kind: "run", field?, message }`.
pub(crate) fn run_error(e: &RunError) -> JsValue {
    error_obj("run", &e.message, e.field.as_deref())
}

/// A JS value (object, array, number, …) as JSON (`undefined`/`null` give null).
pub(crate) fn json_from_js(v: JsValue, what: &str) -> JsResult<serde_json::Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(serde_json::Value::Null);
    }
    serde_wasm_bindgen::from_value(v)
        .map_err(|e| error_obj("input", &format!("{what} is not plain data: {e}"), None))
}

/// Converts a JS scenario object (full or partial) into a [`Scenario`], merged onto the defaults.
pub(crate) fn scenario_from_js(v: JsValue) -> JsResult<Scenario> {
    if v.is_undefined() || v.is_null() {
        return Ok(Scenario::default());
    }
    let json: serde_json::Value = serde_wasm_bindgen::from_value(v)
        .map_err(|e| error_obj("scenario", &format!("not a scenario object: {e}"), None))?;
    let text =
        serde_json::to_string(&json).map_err(|e| error_obj("scenario", &e.to_string(), None))?;
    Scenario::from_json(&text).map_err(|e| scenario_error(&e))
}

/// Like [`scenario_from_js`] and also validated, once ([`ValidScenario`]): errors list every bad field.
pub(crate) fn valid_scenario(v: JsValue) -> JsResult<ValidScenario> {
    scenario_from_js(v)?.into_valid().map_err(|errs| {
        #[derive(Serialize)]
        struct E<'a> {
            kind: &'static str,
            message: String,
            field: &'a str,
            errors: &'a [FieldError],
        }
        let first = &errs[0];
        to_js(&E {
            kind: "scenario",
            message: first.to_string(),
            field: &first.field,
            errors: &errs,
        })
        .unwrap_or_else(|v| v)
    })
}
