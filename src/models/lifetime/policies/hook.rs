//! The lifetime hook's signature (issue 31): `fn score(free_cores, free_mem_gb, free_gpus, cap_cores,
//! cap_mem_gb, cap_gpus, vm_cores, vm_mem_gb, vm_gpus, vms, host_exit, vm_exit, now)` and the optional
//! `fn least()`, their inputs documented in [`super::script`]. Apart from the script policy itself so that the
//! scenario's validation ([`super::super::params`]) compiles scripts without naming the pool.

use crate::script::{Hook, Limits, Script, ScriptError};

/// The lifetime hooks: `score` (required) and `least` (optional).
pub const HOOKS: [Hook; 2] = [
    Hook {
        name: "score",
        params: &[
            "free_cores",
            "free_mem_gb",
            "free_gpus",
            "cap_cores",
            "cap_mem_gb",
            "cap_gpus",
            "vm_cores",
            "vm_mem_gb",
            "vm_gpus",
            "vms",
            "host_exit",
            "vm_exit",
            "now",
        ],
        required: true,
    },
    Hook {
        name: "least",
        params: &[],
        required: false,
    },
];

/// Operations one lifetime run's script may spend: 2 billion, a hundred times the other models' run budget
/// (a run calls `score` for every host scanned for every VM: 82,679 VMs on the default pool of 341 hosts).
pub const RUN_OPERATIONS: u64 = 2_000_000_000;

/// Compiles a lifetime script with the default per-call limits and checks its hooks. Errors: the
/// language's ([`ScriptError`], at line and column), or a missing `score` function.
pub fn compile(source: &str) -> Result<Script, ScriptError> {
    Script::compile(source, &HOOKS, &Limits::default())
}
