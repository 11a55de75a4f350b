//! The oversubscription hook's signature (issue 31): `fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target,
//! min_rate)`, its inputs documented in [`super::script`]. Apart from the script policy itself so that the
//! scenario's validation ([`super::super::params`]) compiles scripts without naming the cluster the policy runs on.

use crate::script::{Hook, Limits, Script, ScriptError};

/// The oversubscription hook: `rate` (required).
pub const HOOKS: [Hook; 1] = [Hook {
    name: "rate",
    params: &[
        "h", "sl", "mu", "sd", "n", "p95", "mean", "sd_u", "target", "min_rate",
    ],
    required: true,
}];

/// Compiles an oversubscription script with the default limits and checks its hook. Errors: the language's
/// ([`ScriptError`], at line and column), or a missing `rate` function.
pub fn compile(source: &str) -> Result<Script, ScriptError> {
    Script::compile(source, &HOOKS, &Limits::default())
}
