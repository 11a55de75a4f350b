//! User policy scripts (issue 31; docs/policies.md): a small sandboxed language a model calls at its hook
//! (placement: the fit test, `src/models/placement/policies/script.rs`), the same natively and in wasm.
//!
//! The language is Rhai (`rhai` crate) with limits: a script is compiled once ([`Script::compile`]) and its
//! functions are then called with numbers ([`Script::call`]). A script can read only its arguments: there is
//! no I/O, no clock, no modules, no `eval`, and `print`/`debug` go nowhere. Every call is bounded
//! ([`Limits`]): operations (an endless loop stops with a message), call depth (deep recursion), expression
//! depth, string and array sizes (memory); a model's run keeps its operation budget and first error in one
//! [`ScriptRun`] (all five models' script policies). Errors carry the 1-based line and column ([`ScriptError`]); none
//! panics. The math functions (`exp`, `ln`, `log`, `sin`, `cos`, `tan`, `pow`) are the `libm` crate's here, so
//! a script's numbers are bit-identical natively and in wasm; `normal_quantile(p)` is the engine's own
//! (`substrate::stats`), so a script re-expressing GPA gets its z exactly.
//!
//! Determinism: Rhai hashes function names with ahash; its seed is fixed here ([`HASH_SEED`]) before any
//! engine is made, so no build or run draws a random one (Rhai's published crate ignores a build-time seed).

mod lang;
pub mod policy;
mod run;

pub use lang::*;
pub use policy::ScriptPolicy;
pub use run::ScriptRun;
