//! The shared substrate every model builds on: nothing here knows a model.
//!
//! - [`rng`]: seeded random streams (one per (seed, component, index); ALGORITHMS.md §0) and samplers;
//! - [`special`]: special functions (exponential integrals, incomplete Beta, Gauss–Laguerre, log-Gamma,
//!   digamma, trigamma);
//! - [`stats`]: estimators, the normal quantile/CDF (libm, bit-identical natively and in wasm), exact Poisson
//!   bounds and BCa bootstrap confidence intervals;
//! - [`exact`]: the decimal grid usage values lie on as written, and exact, order-independent decisions
//!   whether a sum of values exceeds a threshold (the overflow test of ALGORITHMS.md §4.4);
//! - [`error`]: errors that name a field path ([`error::FieldError`]) or a file:line:column
//!   ([`error::TraceError`]);
//! - [`des`]: the discrete-event kernel (ALGORITHMS.md §1.2);
//! - [`hash`]: a fast deterministic hasher for memo keys ([`hash::FxHashMap`]).

pub mod des;
pub mod error;
pub mod exact;
pub mod hash;
pub mod rng;
pub mod special;
pub mod stats;
