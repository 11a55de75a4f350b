//! The WebAssembly binding layer (wasm32 only): a thin, model-agnostic wrapper over the engine's public API
//! for the browser playground (`www/`). Nothing here names a model: runs, operations and charts go through
//! the model registry ([`crate::models`]), so a new model needs no edit in this layer.
//!
//! Split by concern:
//! - [`convert`]: conversions and the error objects every export returns;
//! - [`scenario`]: engine facts (version, the model registry, bundled data), scenarios and share links;
//! - [`trace`]: uploads and bundled usage traces ([`trace::TraceBuilder`], [`trace::Trace`]);
//! - [`run`]: [`run::ExperimentRun`], the experiment contract driven step by step from the Web Worker
//!   (progress and Cancel between steps), and model operations ([`run::model_call`]);
//! - [`sweep`]: a sweep file's cells and the whole sweep's results files;
//! - [`chart`]: every chart by name, on a canvas (main thread only: plotters measures text through
//!   `window.document`, ../shared/TOOLCHAIN.md trap 2) or as SVG.
//!
//! Rules of this layer:
//! - every export returns `Result`; errors cross as plain JS objects `{ kind, message, ... }`
//!   (`kind`: `"trace"` with `file`, `line`, `column`; `"scenario"` with `field` and/or `errors: [{field,
//!   message}]`; `"run"` with `field`; `"chart"`; `"input"`), so no panic is needed anywhere and the page
//!   can show each message next to its field. `console_error_panic_hook` reports anything unexpected.
//! - structured values cross with serde-wasm-bindgen in its JSON-compatible mode (maps become plain objects;
//!   u64 seeds are limited to 2^53 − 1 by [`crate::scenario::MAX_SEED`]).

pub mod chart;
pub mod convert;
pub mod run;
pub mod scenario;
pub mod sweep;
pub mod trace;

use wasm_bindgen::prelude::*;

/// Installs the panic hook (runs when the module is instantiated).
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

pub use chart::*;
pub use run::*;
pub use scenario::*;
pub use trace::*;
