//! A user's admission rule written in the policy language (issue 31; [`crate::script`], docs/policies.md): the
//! admission hook. At each arrival the engine calls
//!
//! ```text
//! fn admit(active, capacity, n0, t, mean, variance, cand_mean, cand_var, threshold)   // → true: admit
//! ```
//!
//! with seed 000 §5's inputs (the cluster state and the belief's moments, ALGORITHMS.md §2.5–2.7):
//!
//! * `active`: active cores N now; `capacity`: C (cores); `n0`: the candidate's initial cores;
//! * `t`: the look-ahead's lead times (hours, the policy grid `LeadGrid::policy_t`), an array;
//! * `mean`, `variance`: at each lead time, Σ_d μ_d and Σ_d v_d over the deployments admitted and alive (cores,
//!   cores²) — the belief's moments of the active cores without the candidate;
//! * `cand_mean`, `cand_var`: the candidate's μ_c and v_c at each lead time (cores, cores²);
//! * `threshold`: the arm's threshold θ (its units are the rule's: cores for FIRST, a probability for SECOND).
//!
//! As for every rule, the cluster also requires `N + n0 ≤ C`. A script that fails (a limit, a wrong type)
//! rejects from then on and keeps its first error ([`ScriptAdmit::run`]). Starters: [`STARTERS`]
//! (FIRST and SECOND re-expressed, the same decisions as the built-ins bit for bit, tested; one idea not in
//! the papers). An optional second hook `fn threshold_scale()` returns `"cores"` (the default: θ searched in
//! [0, C] like FIRST's) or `"probability"` (θ searched in [1e−8, 1] in log10 space like SECOND's ratio form)
//! ([`ArmScript`]). In a scenario the scripts are `admission.scripts`, one arm `script:NAME` each.

use super::rule::{AdmissionPolicy, DecisionContext};
use crate::script::{Hook, Limits, Script, ScriptError, ScriptRun};
use rhai::{Array, Dynamic};
use std::sync::Arc;

/// The admission hooks: `admit` (required) and `threshold_scale` (optional, no arguments).
pub const HOOKS: [Hook; 2] = [
    Hook {
        name: "admit",
        params: &[
            "active",
            "capacity",
            "n0",
            "t",
            "mean",
            "variance",
            "cand_mean",
            "cand_var",
            "threshold",
        ],
        required: true,
    },
    Hook {
        name: "threshold_scale",
        params: &[],
        required: false,
    },
];

/// Compiles an admission script with the default limits and checks its hook.
pub fn compile(source: &str) -> Result<Script, ScriptError> {
    Script::compile(source, &HOOKS, &Limits::default())
}

/// How an arm's threshold θ is searched (ALGORITHMS.md §2.8), as the script's `threshold_scale()` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThresholdScale {
    /// `"cores"` (the default): θ in [0, C] cores, bisected linearly (FIRST's bracket).
    #[default]
    Cores,
    /// `"probability"`: θ in [1e−8, 1], bisected in log10 space (SECOND's ratio form's bracket).
    Probability,
}

/// A user's admission script compiled for an arm `script:NAME` (the simulation's rule when the arm's kind is
/// [`crate::models::admission::params::PolicyKind::Script`]), with its threshold scale.
#[derive(Clone)]
pub struct ArmScript {
    /// The script's name (the arm is `script:<name>`).
    pub name: String,
    /// How its threshold is searched.
    pub scale: ThresholdScale,
    /// The compiled script, shared by every run and thread.
    pub script: Arc<Script>,
}

impl std::fmt::Debug for ArmScript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArmScript")
            .field("name", &self.name)
            .field("scale", &self.scale)
            .finish_non_exhaustive()
    }
}

impl PartialEq for ArmScript {
    /// Same name, scale and compiled script (the one `Arc`).
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name && self.scale == o.scale && Arc::ptr_eq(&self.script, &o.script)
    }
}

impl ArmScript {
    /// Compiles `source` with `operations` per call (at least the default limit's; [`call_operations`])
    /// and reads its threshold scale ([`threshold_scale`]).
    pub fn new(name: &str, source: &str, operations: u64) -> Result<ArmScript, ScriptError> {
        let limits = Limits {
            operations: operations.max(Limits::default().operations),
            ..Limits::default()
        };
        let script = Script::compile(source, &HOOKS, &limits)?;
        Ok(ArmScript {
            name: name.to_string(),
            scale: threshold_scale(&script)?,
            script: Arc::new(script),
        })
    }
}

/// Operations one call of `admit` may spend on a look-ahead of `lead_times` policy lead times: 100 per lead
/// time (the starters' tests spend 20–45 per lead time: each statement, expression node and loop turn
/// counts), and at least the default per-call limit.
pub fn call_operations(lead_times: usize) -> u64 {
    (100 * lead_times as u64).max(Limits::default().operations)
}

/// The scale of a compiled script's threshold: its `threshold_scale()`, or cores when it defines none.
/// Errors: a `threshold_scale()` that fails or returns anything but `"cores"` or `"probability"`.
pub fn threshold_scale(script: &Script) -> Result<ThresholdScale, ScriptError> {
    if !script.defines("threshold_scale", 0) {
        return Ok(ThresholdScale::Cores);
    }
    let v = script.call("threshold_scale", ())?;
    match v.clone().into_string().as_deref() {
        Ok("cores") => Ok(ThresholdScale::Cores),
        Ok("probability") => Ok(ThresholdScale::Probability),
        _ => Err(ScriptError {
            line: None,
            column: None,
            message: format!("threshold_scale() must return \"cores\" or \"probability\", got {v}"),
        }),
    }
}

/// Compiles an admission script and checks its threshold scale: the check of `admission.scripts[k].source`.
pub fn check(source: &str) -> Result<Script, ScriptError> {
    let script = compile(source)?;
    threshold_scale(&script)?;
    Ok(script)
}

/// A compiled script as an [`AdmissionPolicy`] for one simulation run (within one run's operation budget),
/// with the arm's threshold θ.
pub struct ScriptAdmit {
    script: Arc<Script>,
    threshold: f64,
    /// The run's operation budget and first run-time error.
    pub run: ScriptRun,
}

impl ScriptAdmit {
    /// The policy of `script` (compiled by [`compile`]) at threshold `threshold`.
    pub fn new(script: Arc<Script>, threshold: f64) -> Self {
        Self::with_budget(script, threshold, Limits::default().run_operations)
    }

    /// [`ScriptAdmit::new`] with a budget of `ops` operations for the run (the fuzz target's smaller one).
    pub fn with_budget(script: Arc<Script>, threshold: f64, ops: u64) -> Self {
        ScriptAdmit {
            script,
            threshold,
            run: ScriptRun::new(ops),
        }
    }

    /// The script's decision on `c`.
    pub fn call(&self, c: &DecisionContext) -> Result<bool, ScriptError> {
        let g = c.grid;
        let at = |curve: &[f64]| -> Array {
            (0..g.policy_t.len())
                .map(|k| Dynamic::from_float(g.at(curve, k)))
                .collect()
        };
        let t: Array = g.policy_t.iter().map(|&x| Dynamic::from_float(x)).collect();
        let f = Dynamic::from_float;
        let args = vec![
            f(c.active),
            f(c.capacity),
            f(c.n0 as f64),
            Dynamic::from_array(t),
            Dynamic::from_array(at(c.sum_mean)),
            Dynamic::from_array(at(c.sum_var)),
            Dynamic::from_array(at(c.cand_mean)),
            Dynamic::from_array(at(c.cand_var)),
            f(self.threshold),
        ];
        self.script.call_bool_in(self.run.budget(), "admit", args)
    }
}

impl AdmissionPolicy for ScriptAdmit {
    fn name(&self) -> String {
        "script".into()
    }
    fn needs_curves(&self) -> bool {
        true
    }
    /// The script's decision; after an error, every arrival is rejected.
    fn accept(&self, c: &DecisionContext) -> bool {
        self.run.guard(false, || self.call(c))
    }
}

/// The starter scripts of the admission hook: (name, source).
pub const STARTERS: [(&str, &str); 3] = [
    ("first", STARTER_FIRST),
    ("second", STARTER_SECOND),
    ("gauss-horizon", STARTER_GAUSS_HORIZON),
];

/// FIRST re-expressed. The same decisions as the built-in FIRST (tested).
pub const STARTER_FIRST: &str = include_str!("../../../../examples/policies/admission-first.rhai");

/// SECOND (ratio form) re-expressed. The same decisions as the built-in SECOND (tested).
pub const STARTER_SECOND: &str =
    include_str!("../../../../examples/policies/admission-second.rhai");

/// An idea not in the papers: a Gaussian overflow test whose allowed probability shrinks with the lead time.
pub const STARTER_GAUSS_HORIZON: &str =
    include_str!("../../../../examples/policies/admission-gauss-horizon.rhai");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::admission::lookahead::LeadGrid;
    use crate::models::admission::params::{PolicyKind, PolicySpec, SecondParam};
    use crate::models::admission::policies::MomentPolicy;
    use crate::substrate::rng::stream;
    use rand::RngExt;

    /// `n` random arrivals on a real look-ahead grid (interpolated curves), curves drawn around the
    /// threshold so both decisions occur; the script's decision must be the built-in's at every one.
    /// Returns (admitted, rejected).
    fn same_decisions(src: &str, kind: PolicyKind, threshold: f64, n: usize) -> (usize, usize) {
        let g = LeadGrid::new(&[2000.0, 200.0, 20.0, 1.0], 4, 6);
        let m = g.curve_t.len();
        let builtin = MomentPolicy {
            spec: PolicySpec {
                kind,
                threshold,
                marginal: false,
            },
            second: SecondParam::Ratio,
        };
        let mine = ScriptAdmit::new(Arc::new(compile(src).unwrap()), threshold);
        let mut r = stream(7, 0x31, kind as u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..n {
            let base: f64 = r.random_range(40.0..100.0);
            let curve = |r: &mut rand_pcg::Pcg64Mcg, lo: f64, hi: f64| -> Vec<f64> {
                (0..m).map(|_| r.random_range(lo..hi)).collect()
            };
            let sm: Vec<f64> = curve(&mut r, 0.0, 20.0).iter().map(|x| base + x).collect();
            let sv = curve(&mut r, 0.0, 400.0);
            let cm = curve(&mut r, 0.0, 8.0);
            let cv = curve(&mut r, 0.0, 30.0);
            let c = DecisionContext {
                active: base.floor(),
                capacity: 128.0,
                n0: 4,
                grid: &g,
                sum_mean: &sm,
                sum_var: &sv,
                cand_mean: &cm,
                cand_var: &cv,
                marginal_eps: 0.1,
            };
            let want = builtin.accept(&c);
            assert_eq!(mine.accept(&c), want);
            if want {
                yes += 1
            } else {
                no += 1
            }
        }
        assert_eq!(mine.run.take_error(), None);
        (yes, no)
    }

    #[test]
    fn starter_first_decides_as_builtin_first() {
        let (yes, no) = same_decisions(STARTER_FIRST, PolicyKind::First, 100.0, 400);
        assert!(yes > 50 && no > 50, "{yes} {no}");
    }

    #[test]
    fn starter_second_decides_as_builtin_second() {
        let (yes, no) = same_decisions(STARTER_SECOND, PolicyKind::Second, 0.25, 400);
        assert!(yes > 50 && no > 50, "{yes} {no}");
    }

    #[test]
    fn a_failing_script_rejects_and_keeps_its_error() {
        let g = LeadGrid::new(&[20.0, 1.0], 2, 0);
        let z = vec![0.0; g.curve_t.len()];
        let c = DecisionContext {
            active: 0.0,
            capacity: 10.0,
            n0: 1,
            grid: &g,
            sum_mean: &z,
            sum_var: &z,
            cand_mean: &z,
            cand_var: &z,
            marginal_eps: 0.1,
        };
        let src = "fn admit(active, capacity, n0, t, mean, variance, cand_mean, cand_var, threshold) {\n  t.len()\n}";
        let s = ScriptAdmit::new(Arc::new(compile(src).unwrap()), 1.0);
        assert!(!s.accept(&c));
        assert!(s
            .run
            .take_error()
            .unwrap()
            .message
            .contains("true or false is needed"));
        // the gauss-horizon idea admits an empty cluster's small candidate
        let s = ScriptAdmit::new(Arc::new(compile(STARTER_GAUSS_HORIZON).unwrap()), 0.05);
        assert!(s.accept(&c));
    }
}
