//! packlab: the engine of a browser playground for cloud resource management.
//!
//! One plain-Rust engine (no wasm types outside [`wasm`]) that runs natively as the `packlab` CLI and in the
//! browser as WebAssembly. Models, each specified in `ALGORITHMS.md`:
//! - [`placement`]: stochastic bin packing with the Gaussian Percentile Approximation (seed 002, ALGORITHMS.md §4);
//! - [`admit`]: cluster admission control with Bayesian moment policies (seed 000, ALGORITHMS.md §2).
//!
//! Shared pieces: [`trace`] readers, [`stats`] estimators, [`des`] discrete-event kernel (ALGORITHMS.md §1.2),
//! and the serde [`scenario::Scenario`] that drives the CLI, the browser and share links.

pub mod admit;
pub mod chart;
pub mod des;
pub mod placement;
pub mod scenario;
pub mod stats;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// Engine version recorded in every scenario and share link (the crate version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
