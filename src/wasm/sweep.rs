//! Sweeps in the playground ([`crate::sweep`]): the cells of a sweep file, and the results of the whole
//! sweep from the cells' reports, byte for byte what `packlab sweep` writes.

use super::convert::{error_obj, to_js, JsResult};
use crate::substrate::error::FieldError;
use crate::sweep::{self, Sweep};
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn sweep_error(e: FieldError) -> JsValue {
    error_obj("scenario", &e.to_string(), Some(&e.field))
}

fn parse(text: &str) -> JsResult<Sweep> {
    Sweep::parse(text).map_err(sweep_error)
}

/// A cell of a sweep as the page sees it.
#[derive(Serialize)]
struct CellJs {
    index: usize,
    values: Vec<serde_json::Value>,
    scenario: crate::scenario::Scenario,
    link: String,
}

/// The cells of the sweep file `text` (JSON): `{ fields, cells: [{ index, values, scenario, link }] }`, every
/// cell validated. Errors: `{ kind: "scenario", field, message }` naming the field (`axes[1].values[2]`, or
/// `cell 4` with the axis value and the scenario's complaint).
#[wasm_bindgen]
pub fn sweep_cells(text: &str) -> JsResult<JsValue> {
    #[derive(Serialize)]
    struct Out {
        fields: Vec<String>,
        cells: Vec<CellJs>,
    }
    let sw = parse(text)?;
    let cells = sw
        .cells()
        .map_err(sweep_error)?
        .into_iter()
        .map(|c| CellJs {
            link: c.scenario.to_link(),
            index: c.index,
            values: c.values,
            scenario: c.scenario,
        })
        .collect();
    to_js(&Out {
        fields: sw.fields(),
        cells,
    })
}

/// The results of the whole sweep `text` from its cells' reports (`reports`: each the JSON text of
/// `ExperimentRun.report_json`, in cell order): `{ json, csv }`, the texts of `results.json` and
/// `results.csv` as `packlab sweep` writes them. Errors: `{ kind: "scenario", field, message }`.
#[wasm_bindgen]
pub fn sweep_results(text: &str, reports: Vec<String>) -> JsResult<JsValue> {
    #[derive(Serialize)]
    struct Out {
        json: String,
        csv: String,
    }
    let r = sweep::whole_results(&parse(text)?, &reports).map_err(sweep_error)?;
    to_js(&Out {
        json: r.to_json(),
        csv: sweep::to_csv(&r),
    })
}
