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

/// Serialises a spec type by its name, for `#[serde(try_from = "String", into = "String")]`: reading goes through
/// `parse` (so a bad name's message is `parse`'s, which serde reports with the field's path) and writing through
/// `name` (the policy and fit-test specs of ALGORITHMS.md §2.7, §3.5 and §6.4; `name(parse(s))` is the canonical
/// spelling of `s`).
#[macro_export]
macro_rules! serde_by_name {
    ($t:ty, parse: $parse:path, name: $name:path) => {
        impl TryFrom<String> for $t {
            type Error = String;
            fn try_from(s: String) -> Result<Self, String> {
                $parse(&s)
            }
        }

        impl From<$t> for String {
            fn from(v: $t) -> String {
                $name(&v)
            }
        }
    };
}
