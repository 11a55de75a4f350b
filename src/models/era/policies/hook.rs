//! The reservation hook's signature (issue 31): `fn quote(s, d, t, w, now, cap, remaining, feasible,
//! p_fix, p_full)`, its inputs documented in [`super::script`]. Apart from the script policy itself so that a
//! scenario's validation can compile scripts without naming the scheduler.

use crate::script::{Hook, Limits, Script, ScriptError};

/// The reservation hook: `quote` (required).
pub const HOOKS: [Hook; 1] = [Hook {
    name: "quote",
    params: &[
        "s",
        "d",
        "t",
        "w",
        "now",
        "cap",
        "remaining",
        "feasible",
        "p_fix",
        "p_full",
    ],
    required: true,
}];

/// Compiles a reservation script with the default limits and checks its hook. Errors: the language's
/// ([`ScriptError`], at line and column), or a missing `quote` function.
pub fn compile(source: &str) -> Result<Script, ScriptError> {
    Script::compile(source, &HOOKS, &Limits::default())
}
