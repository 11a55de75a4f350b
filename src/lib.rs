//! packlab: the engine of a browser playground for cloud resource management.
//!
//! One plain-Rust engine (no wasm types outside [`wasm`]) that runs natively as the `packlab` CLI and in the
//! browser as WebAssembly. ARCHITECTURE.md at the repository root draws the layers; in short:
//! - [`substrate`]: what every model shares (seeded RNG streams, special functions, statistics and the
//!   bootstrap, errors with field paths and file:line:column, the discrete-event kernel);
//! - [`input`]: what every reader of an uploaded or bundled file shares (input files, limits on untrusted
//!   input, bounded gunzip, lines and fields with positions);
//! - [`trace`] (usage series) and [`workload`] (VM/job/host records): the readers above it, and the
//!   bundled-data list ([`data`]);
//! - [`experiment`]: the one experiment contract (plan, step, partial results, report) every model's runs
//!   implement, the model contract (`ModelDef`: section, seed and inputs → run) and the driver the CLI uses;
//! - [`models`]: one folder per model behind the contract, and the model registry:
//!   [`models::placement`] (stochastic bin packing with GPA, seed 002, ALGORITHMS.md §4),
//!   [`models::admission`] (cluster admission control, seed 000, ALGORITHMS.md §2),
//!   [`models::lifetime`] (lifetime-aware VM allocation: NILAS, LAVA, LA-Binary; seed 003, §5),
//!   [`models::era`] (economic reservations and dynamic pricing, ERA; seed 004, §6) and
//!   [`models::oversub`] (chance-constrained oversubscription, C2MARL; seed 001, §3);
//! - [`scenario`]: the serde [`scenario::Scenario`] envelope that drives the CLI, the browser and share
//!   links, the link codec, and the start of a scenario's run ([`scenario::start`]: its model's section and
//!   seed);
//! - [`script`]: user policy scripts (a sandboxed language with limits) that a model calls at its hook;
//! - [`sweep`]: sweeps of a scenario over axes of values, their shards and the merge of the shards;
//! - [`chart`]: the shared chart frame (each model's charts live in its folder);
//! - [`wasm`]: the thin binding layer (wasm32 only).

pub mod chart;
pub mod data;
pub mod experiment;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod input;
pub mod models;
pub mod scenario;
pub mod script;
pub mod substrate;
pub mod sweep;
pub mod trace;
pub mod workload;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// Engine version recorded in every scenario and share link (the crate version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
