//! packlab: the engine of a browser playground for cloud resource management.
//!
//! One plain-Rust engine (no wasm types outside [`wasm`]) that runs natively as the `packlab` CLI and in the
//! browser as WebAssembly. ARCHITECTURE.md at the repository root draws the layers; in short:
//! - [`substrate`]: what every model shares (seeded RNG streams, special functions, statistics and the
//!   bootstrap, errors with field paths and file:line:column, the discrete-event kernel);
//! - [`trace`] and [`workload`]: the workload layer (usage traces; VM/job records) and the bundled-data
//!   registry ([`data`]);
//! - [`experiment`]: the one experiment contract (plan, step, partial results, report) every model's runs
//!   implement, and the driver the CLI uses;
//! - [`models`]: one folder per model behind the contract, and the model registry:
//!   [`models::placement`] (stochastic bin packing with GPA, seed 002, ALGORITHMS.md §4) and
//!   [`models::admission`] (cluster admission control, seed 000, ALGORITHMS.md §2);
//! - [`scenario`]: the serde [`scenario::Scenario`] envelope that drives the CLI, the browser and share
//!   links, and the link codec;
//! - [`sweep`]: sweeps of a scenario over axes of values, their shards and the merge of the shards;
//! - [`chart`]: the shared chart frame (each model's charts live in its folder);
//! - [`wasm`]: the thin binding layer (wasm32 only).

pub mod chart;
pub mod data;
pub mod experiment;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod models;
pub mod scenario;
pub mod substrate;
pub mod sweep;
pub mod trace;
pub mod workload;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use models::{admission, placement};

/// Engine version recorded in every scenario and share link (the crate version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
