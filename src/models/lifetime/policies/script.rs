//! A user's host score written in the policy language (issue 31; [`crate::script`], docs/policies.md): the
//! lifetime hook. For each VM to place (an arrival, or a migration's target), the engine visits the
//! schedulable hosts the VM fits in best-fit order (least slack first, ties by host id; of the empty hosts
//! only the first) and calls for each
//!
//! ```text
//! fn score(free_cores, free_mem_gb, free_gpus, cap_cores, cap_mem_gb, cap_gpus,
//!          vm_cores, vm_mem_gb, vm_gpus, vms, host_exit, vm_exit, now)   // → a number, lower is better
//! fn least()                                                              // optional: the least score
//! ```
//!
//! with the inputs of NILAS and LAVA (seed 003 §4.2–4.3; ALGORITHMS.md §5.1, §5.3):
//!
//! * `free_*`: the host's remaining capacity before the VM, cores, GB, GPUs (capacity minus its VMs' and
//!   migrating ghosts' shapes); `cap_*`: its capacity; `vm_*`: the VM's shape;
//! * `vms`: the VMs on the host (0: an empty host);
//! * `host_exit`: the host's predicted exit, NILAS's `host_exit(h)`, the latest repredicted exit of its VMs
//!   (`now` when it has none), cached as NILAS caches it (`refresh_s`); hours since the window's start;
//! * `vm_exit`: `now` plus the VM's predicted remaining lifetime (repredicted at its uptime), hours;
//! * `now`: the time, hours since the window's start.
//!
//! The VM goes to the host of least score; equal scores go to the host visited first (best fit, then host
//! id). When the script defines `least()`, the scan stops at the first host scoring at most that (NILAS stops
//! at temporal cost 0 the same way). A script that fails (a limit, a wrong type, NaN) places the rest of the
//! run by best fit and the row carries its first error ([`ScriptScore::run`]). Starters:
//! [`STARTERS`] (NILAS re-expressed bit for bit over a whole run, tested; one idea not in the paper).
//!
//! A scenario lists its scripts in `lifetime.scripts` ([`crate::script::ScriptPolicy`]); each is the row
//! `script:<name>` ([`crate::models::lifetime::params::Policy::Script`]).

pub use super::hook::{compile, HOOKS, RUN_OPERATIONS};
use crate::models::lifetime::host::Host;
use crate::models::lifetime::pool::DIMS;
use crate::script::{Script, ScriptError, ScriptRun};
use rhai::Dynamic;
use std::sync::Arc;

/// A compiled host score for one run (within the run's operation budget).
pub struct ScriptScore {
    script: Arc<Script>,
    /// The run's operation budget and first error.
    pub run: ScriptRun,
    /// `least()`, or −∞ when the script has none (every fitting host is scored).
    pub least: f64,
}

impl ScriptScore {
    /// The score of `script` (compiled by [`compile`]) with the run's budget ([`RUN_OPERATIONS`]).
    pub fn new(script: Arc<Script>) -> Self {
        Self::with_budget(script, RUN_OPERATIONS)
    }

    /// [`ScriptScore::new`] with a budget of `ops` operations (the fuzz target's smaller one). Calls
    /// `least()` once, when defined; its error is the run's.
    pub fn with_budget(script: Arc<Script>, ops: u64) -> Self {
        let run = ScriptRun::new(ops);
        let least = if script.defines("least", 0) {
            run.guard(0.0, || {
                match script.call_f64_in(run.budget(), "least", ()) {
                    Ok(x) if x.is_nan() => Err(nan("least")),
                    r => r,
                }
            })
        } else {
            f64::NEG_INFINITY
        };
        ScriptScore { script, run, least }
    }

    /// The score of `host` for a VM of `shape` exiting at `vm_exit` (hours), the host's predicted exit being
    /// `host_exit`, at `now`. Errors: the script's, or a NaN score.
    pub fn score(
        &self,
        host: &Host,
        shape: &[f64; DIMS],
        host_exit: f64,
        vm_exit: f64,
        now: f64,
    ) -> Result<f64, ScriptError> {
        let f = Dynamic::from_float;
        let args = vec![
            f(host.cap[0] - host.used[0]),
            f(host.cap[1] - host.used[1]),
            f(host.cap[2] - host.used[2]),
            f(host.cap[0]),
            f(host.cap[1]),
            f(host.cap[2]),
            f(shape[0]),
            f(shape[1]),
            f(shape[2]),
            f(host.vms.len() as f64),
            f(host_exit),
            f(vm_exit),
            f(now),
        ];
        let x = self.script.call_f64_in(self.run.budget(), "score", args)?;
        if x.is_nan() {
            return Err(nan("score"));
        }
        Ok(x)
    }
}

/// The error of a hook that returned NaN.
fn nan(name: &str) -> ScriptError {
    ScriptError::plain(format!(
        "'{name}' returned NaN; a number is needed (lower is better)"
    ))
}

/// The starter scripts of the lifetime hook: (name, source).
pub const STARTERS: [(&str, &str); 2] = [
    ("nilas", STARTER_NILAS),
    ("nilas-aligned", STARTER_NILAS_ALIGNED),
];

/// NILAS re-expressed: Alg. 2's temporal cost, `least()` 0. Bit-identical to the built-in `nilas` over a
/// whole run (tested).
pub const STARTER_NILAS: &str = include_str!("../../../../examples/policies/lifetime-nilas.rhai");

/// An idea not in the paper: NILAS, with the hosts the VM does not extend ranked by how soon after the VM
/// they exit (exit alignment) instead of by best fit.
pub const STARTER_NILAS_ALIGNED: &str =
    include_str!("../../../../examples/policies/lifetime-nilas-aligned.rhai");

#[cfg(test)]
mod tests {
    use super::super::super::experiment::LifetimeRun;
    use super::super::super::params::{LifetimeParams, Policy, PredictorKind};
    use super::super::super::sampling::PolicyResult;
    use super::*;
    use crate::experiment::run_to_end;
    use crate::script::ScriptPolicy;

    /// Best fit, NILAS and the scripts `scripts` on a 3% share of the bundled Azure 2017 arrivals with the
    /// noisy, repredicted predictor (so NILAS's host-exit cache and its refresh matter), warm-up included.
    fn run(scripts: Vec<ScriptPolicy>) -> Vec<PolicyResult> {
        let b = crate::data::AZURE2017_ARRIVALS;
        let w = b
            .read_facts_at(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
            .expect("the bundled arrivals");
        let p = LifetimeParams {
            share: 0.03,
            stranding_h: 12.0,
            predictor: PredictorKind::Noisy,
            accuracy: 0.7,
            alive_at_start: true,
            policies: vec![Policy::Nilas],
            scripts,
            ..LifetimeParams::default()
        };
        let mut r = LifetimeRun::new(&w, &p, 2).unwrap();
        run_to_end(&mut r, &mut |_, _| true).unwrap().results
    }

    /// The NILAS starter places every VM where the built-in NILAS does over a whole run: every metric,
    /// the hourly empty-host series and every host's state hour by hour are the same bits (and differ from
    /// best fit's, so the comparison is not between two best fits).
    #[test]
    fn starter_nilas_equals_builtin_nilas_over_a_whole_run() {
        let rs = run(vec![ScriptPolicy::new("nilas", STARTER_NILAS)]);
        let names: Vec<String> = rs.iter().map(|r| r.policy.name()).collect();
        assert_eq!(names, ["best-fit", "nilas", "script:nilas"]);
        let (bf, nilas, mine) = (&rs[0], &rs[1], &rs[2]);
        assert_eq!(mine.error, None);
        assert_ne!(nilas.timeline, bf.timeline);
        assert!(nilas.arrivals > 1000, "{}", nilas.arrivals);
        let same = PolicyResult {
            policy: Policy::Nilas,
            ..mine.clone()
        };
        assert_eq!(&same, nilas);
        let bits = |r: &PolicyResult| {
            r.empty_series
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(mine), bits(nilas));
        assert_eq!(
            mine.empty_hosts_pp_vs_best_fit.to_bits(),
            nilas.empty_hosts_pp_vs_best_fit.to_bits()
        );
    }

    /// A script that fails part-way (a string once the clock passes 60 h) gets its error in its row and the
    /// rest of its run placed by best fit; the other rows are those of a run without it.
    #[test]
    fn a_failing_script_fails_only_its_row() {
        let bad = "fn score(free_cores, free_mem_gb, free_gpus, cap_cores, cap_mem_gb, cap_gpus,\n\
                   vm_cores, vm_mem_gb, vm_gpus, vms, host_exit, vm_exit, now) {\n\
                   if now > 60.0 { \"late\" } else { -free_cores }\n}";
        let with = run(vec![ScriptPolicy::new("bad", bad)]);
        let without = run(vec![]);
        assert_eq!(with[..2], without[..]);
        let e = with[2].error.as_deref().unwrap();
        assert!(
            e.contains("'score' returned late") && e.contains("a number is needed"),
            "{e}"
        );
        assert!(with[2].arrivals == with[0].arrivals && with[2].samples > 0);
    }

    /// `least()` is read once; a script without it has −∞ (every host scored); a NaN score is an error.
    #[test]
    fn least_and_nan() {
        let s = ScriptScore::new(Arc::new(compile(STARTER_NILAS).unwrap()));
        assert_eq!((s.least, s.run.ok()), (0.0, true));
        let s = ScriptScore::new(Arc::new(compile(STARTER_NILAS_ALIGNED).unwrap()));
        assert_eq!(s.least, f64::NEG_INFINITY);
        let src = "fn score(a, b, c, d, e, f, g, h, i, j, k, l, m) { 0.0 / 0.0 }";
        let s = ScriptScore::new(Arc::new(compile(src).unwrap()));
        let host = crate::models::lifetime::host::Host::new(
            [4.0, 8.0, 0.0],
            crate::substrate::des::Des::<u8>::new().new_key(),
        );
        let e = s.score(&host, &[1.0, 1.0, 0.0], 1.0, 2.0, 0.5).unwrap_err();
        assert!(e.message.contains("NaN"), "{e}");
        assert!(compile("fn least() { 0 }")
            .unwrap_err()
            .message
            .contains("defines no 'score'"));
    }
}
