//! A user's quote rule written in the policy language (issue 31; [`crate::script`], docs/policies.md): the
//! reservation hook. For each request the engine calls
//!
//! ```text
//! fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full)   // → [start, price], or () for none
//! ```
//!
//! with the inputs of seed 004's policies (§3.1, §4; ALGORITHMS.md §6.3):
//!
//! * `s`, `d`: the request's window `[s, d)`, slots (integers); `t`: its duration, slots; `w`: its units per
//!   slot; `now`: the decision's slot (its arrival);
//! * `cap`: the planned capacity `κ_use·C`, units;
//! * `remaining`: `R(τ) = κ_use·C − L(τ)` for `τ` in `[s, d)`, an array of `d − s` numbers (units);
//! * `feasible`: for each start `x` in `[s, d − t]`, whether `R ≥ w` on `[x, x + t)`, an array of booleans;
//! * `p_fix`, `p_full`: the fixed and on-demand prices, dollars per unit-slot.
//!
//! The quote is computed without the request's value (truthfulness, §3.1); the scheduler accepts iff the
//! value is at least the price, as for every policy. A returned start must be a feasible one and the price a
//! number ≥ 0; anything else is an error. A script that fails quotes nothing from then on (every later
//! request rejected) and keeps its first error ([`ScriptQuote::run`]). Starters: [`STARTERS`]
//! (GREEDY_FIRSTFIT re-expressed, the same quotes bit for bit, tested; one idea not in the paper).
//!
//! A scenario lists its scripts in `era.scripts` ([`crate::script::ScriptPolicy`]); each is the policy
//! `script:<name>` ([`super::Algorithm::Script`], resolved in [`super::resolve`]), one cell per κ_use, whose
//! result carries the script's first error ([`crate::models::era::exec::CellResult::error`]).

pub use super::hook::{compile, HOOKS};
use super::quote::{Plan, Quote, QuoteDetail, QuotePolicy};
use crate::models::era::jobs::Request;
use crate::script::{Limits, Script, ScriptError, ScriptRun};
use rhai::{Array, Dynamic};
use std::sync::Arc;

/// A compiled quote rule for one run (within the run's operation budget).
pub struct ScriptQuote {
    script: Arc<Script>,
    /// Fixed price `p_fix`, dollars per unit-slot.
    pub p_fix: f64,
    /// On-demand price `p_full`, dollars per unit-slot.
    pub p_full: f64,
    /// The run's operation budget and first error.
    pub run: ScriptRun,
}

impl ScriptQuote {
    /// The rule of `script` (compiled by [`compile`]) at prices `p_fix`, `p_full`, with the default run budget.
    pub fn new(script: Arc<Script>, p_fix: f64, p_full: f64) -> Self {
        Self::with_budget(script, p_fix, p_full, Limits::default().run_operations)
    }

    /// [`ScriptQuote::new`] with a budget of `ops` operations (the fuzz target's smaller one).
    pub fn with_budget(script: Arc<Script>, p_fix: f64, p_full: f64, ops: u64) -> Self {
        ScriptQuote {
            script,
            p_fix,
            p_full,
            run: ScriptRun::new(ops),
        }
    }

    /// The script's quote of `r` at `now` under `plan`. Errors: the script's, a value that is neither `()`
    /// nor `[start, price]`, an infeasible start, a negative or non-finite price.
    pub fn call(&self, plan: &Plan, r: &Request, now: i64) -> Result<Option<Quote>, ScriptError> {
        let ok = plan.feasible_starts(r);
        let remaining: Array = (r.s..r.d)
            .map(|tau| Dynamic::from_float(plan.remaining(tau)))
            .collect();
        let feasible: Array = ok.iter().map(|&b| Dynamic::from_bool(b)).collect();
        let (f, i) = (Dynamic::from_float, Dynamic::from_int);
        let args = vec![
            i(r.s),
            i(r.d),
            i(r.t),
            f(r.w),
            i(now),
            f(plan.cap),
            Dynamic::from_array(remaining),
            Dynamic::from_array(feasible),
            f(self.p_fix),
            f(self.p_full),
        ];
        let v = self.script.call_in(self.run.budget(), "quote", args)?;
        if v.is_unit() {
            return Ok(None);
        }
        let bad = || {
            ScriptError::plain(format!(
                "'quote' returned {v}; [start, price] or () is needed"
            ))
        };
        let a = v.clone().into_array().map_err(|_| bad())?;
        let [x, p] = a.as_slice() else {
            return Err(bad());
        };
        let start = x.as_int().map_err(|_| bad())?;
        let price = p
            .as_float()
            .or_else(|_| p.as_int().map(|k| k as f64))
            .map_err(|_| bad())?;
        let k = start - r.s;
        if !(k >= 0 && (k as usize) < ok.len() && ok[k as usize]) {
            return Err(ScriptError::plain(format!(
                "'quote' returned start {start}, not a feasible start of [{}, {}]",
                r.s,
                r.d - r.t
            )));
        }
        if !(price.is_finite() && price >= 0.0) {
            return Err(ScriptError::plain(format!(
                "'quote' returned price {price}; a number ≥ 0 is needed"
            )));
        }
        Ok(Some(Quote { start, price }))
    }
}

impl QuotePolicy for ScriptQuote {
    fn quote(
        &mut self,
        plan: &Plan,
        r: &Request,
        now: i64,
        _: Option<&mut QuoteDetail>,
    ) -> Option<Quote> {
        self.run.guard(None, || self.call(plan, r, now))
    }

    fn take_error(&mut self) -> Option<String> {
        self.run.take_error().map(|e| e.to_string())
    }
}

/// The starter scripts of the reservation hook: (name, source).
pub const STARTERS: [(&str, &str); 2] =
    [("greedy", STARTER_GREEDY), ("scarcity", STARTER_SCARCITY)];

/// GREEDY_FIRSTFIT re-expressed. The same quotes as the built-in `greedy`, bit for bit (tested).
pub const STARTER_GREEDY: &str = include_str!("../../../../examples/policies/era-greedy.rhai");

/// An idea not in the paper: the earliest feasible start at `p_fix·W·T·(1 + u²)`, `u` the plan's highest
/// committed fraction over the start's slots once the request is in.
pub const STARTER_SCARCITY: &str = include_str!("../../../../examples/policies/era-scarcity.rhai");

#[cfg(test)]
mod tests {
    use super::super::greedy::Greedy;
    use super::*;
    use crate::substrate::rng::stream;
    use rand::RngExt;

    fn request(s: i64, d: i64, t: i64, w: f64) -> Request {
        Request {
            id: 0,
            arrival: s,
            w,
            t,
            s,
            d,
            value: 1.0,
            class: 0,
        }
    }

    /// 400 random requests on a plan filled as they are accepted: the greedy starter's quote is the
    /// built-in GREEDY_FIRSTFIT's at every one, bit for bit, quotes and refusals both occurring.
    #[test]
    fn starter_greedy_quotes_as_builtin_greedy() {
        let mut plan = Plan {
            cap: 10.0,
            load: vec![0.0; 200],
        };
        let mut builtin = Greedy { p_fix: 0.37 };
        let mut mine = ScriptQuote::new(Arc::new(compile(STARTER_GREEDY).unwrap()), 0.37, 1.3);
        let mut r = stream(7, 0x31, 4);
        let (mut some, mut none) = (0, 0);
        for _ in 0..400 {
            let s = r.random_range(0..150i64);
            let t = r.random_range(1..8i64);
            let d = s + t + r.random_range(0..30i64);
            let w = r.random_range(1..6i64) as f64;
            let q = request(s, d.min(200), t, w);
            if q.d - q.s < q.t {
                continue;
            }
            let want = builtin.quote(&plan, &q, s, None);
            let got = mine.quote(&plan, &q, s, None);
            assert_eq!(mine.run.take_error(), None);
            assert_eq!(
                got.map(|g| (g.start, g.price.to_bits())),
                want.map(|g| (g.start, g.price.to_bits()))
            );
            match want {
                Some(g) => {
                    some += 1;
                    plan.commit(g.start, q.t, q.w);
                }
                None => none += 1,
            }
        }
        assert!(some > 50 && none > 50, "{some} quotes, {none} refusals");
    }

    /// The era scenario (E4.3 at its defaults: real Azure non-ERA load, the five κ_use) with `policies`
    /// and `scripts`, run to its report's cells.
    fn era_run(
        policies: &[&str],
        scripts: Vec<crate::script::ScriptPolicy>,
    ) -> Vec<crate::models::era::exec::CellResult> {
        use crate::models::era::{EraParams, EraRun, Policy};
        let b = crate::data::AZURE2017_ARRIVALS;
        let w = b
            .read_workload_at(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path))
            .expect("the bundled arrivals");
        let p = EraParams {
            policies: policies.iter().map(|n| Policy::parse(n).unwrap()).collect(),
            scripts,
            ..EraParams::default()
        };
        let mut r = EraRun::new(&w, &p, 1).unwrap();
        crate::experiment::run_to_end(&mut r, &mut |_, _| true)
            .unwrap()
            .cells
    }

    /// The greedy starter as the policy `script:greedy` of a whole E4.3 run: at every κ_use its cell is the
    /// built-in GREEDY_FIRSTFIT's, every metric and count the same bits (and GREEDY_FIRSTFIT both accepts and
    /// rejects, so the comparison is not between two empty plans).
    #[test]
    fn starter_greedy_equals_builtin_greedy_over_a_whole_run() {
        use crate::script::ScriptPolicy;
        let cs = era_run(
            &["greedy", "script:greedy"],
            vec![ScriptPolicy::new("greedy", STARTER_GREEDY)],
        );
        assert_eq!(cs.len(), 10);
        let (builtin, mine) = cs.split_at(5);
        for (g, m) in builtin.iter().zip(mine) {
            assert_eq!(
                (g.policy.as_str(), m.policy.as_str()),
                ("greedy", "script:greedy")
            );
            assert_eq!(m.error, None);
            assert!(g.accepted > 100 && g.accepted < g.requests, "{g:?}");
            let json = |c: &crate::models::era::exec::CellResult| {
                serde_json::to_value(crate::models::era::exec::CellResult {
                    policy: String::new(),
                    ..c.clone()
                })
                .unwrap()
            };
            assert_eq!(json(m), json(g), "κ_use {}", g.kappa);
            for (a, b) in [
                (m.value_efficiency, g.value_efficiency),
                (m.revenue, g.revenue),
                (m.late_pct, g.late_pct),
                (m.utilization, g.utilization),
                (m.mean_unit_price, g.mean_unit_price),
            ] {
                assert_eq!(a.to_bits(), b.to_bits(), "κ_use {}", g.kappa);
            }
        }
    }

    /// Hostile scripts in a run beside greedy and BASIC_ECON's spreading predictor: an endless loop, a huge
    /// allocation and a deep recursion each fail at run time with a message, in their own cells only (every
    /// later request rejected); the built-in cells are bit for bit those of a run without them. Syntax
    /// garbage is refused by validation, naming the field and its line and column.
    #[test]
    fn hostile_scripts_fail_only_their_own_cells() {
        use crate::script::ScriptPolicy;
        let head = "fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full)";
        let hostile = [
            (
                "spin",
                format!("{head} {{ loop {{ }} }}"),
                "operation limit",
            ),
            (
                "hog",
                format!("{head} {{ let a = []; loop {{ a.push(remaining); }} }}"),
                "",
            ),
            (
                "deep",
                format!("fn f(n) {{ f(n + 1) }}\n{head} {{ f(0) }}"),
                "",
            ),
        ];
        let built = ["greedy", "basic-econ:spread"];
        let alone = era_run(&built, Vec::new());
        let scripts: Vec<ScriptPolicy> = hostile
            .iter()
            .map(|(n, src, _)| ScriptPolicy::new(n, src))
            .collect();
        let all = era_run(&built, scripts);
        assert_eq!(all.len(), alone.len() + 3 * 5);
        assert_eq!(&all[..alone.len()], &alone[..]);
        for (k, (n, _, needle)) in hostile.iter().enumerate() {
            for c in &all[alone.len() + 5 * k..alone.len() + 5 * (k + 1)] {
                assert_eq!(c.policy, format!("script:{n}"));
                let e = c
                    .error
                    .as_deref()
                    .unwrap_or_else(|| panic!("{n}: no error"));
                assert!(e.contains(needle), "{n}: {e}");
                assert_eq!(c.accepted, 0, "{n}: {e}");
            }
        }
        // the messages say what went wrong
        let msg = |k: usize| all[alone.len() + 5 * k].error.clone().unwrap();
        assert!(
            msg(1).contains("array") || msg(1).contains("size") || msg(1).contains("operation"),
            "{}",
            msg(1)
        );
        assert!(
            msg(2).contains("deep") || msg(2).contains("call") || msg(2).contains("stack"),
            "{}",
            msg(2)
        );
        // syntax garbage: refused before any run, naming the field, line and column
        let sc = crate::scenario::Scenario {
            model: crate::scenario::Model::Era,
            era: crate::models::era::EraParams {
                scripts: vec![ScriptPolicy::new("junk", "fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full) {\n  [s, @@ ]\n}")],
                ..Default::default()
            },
            ..Default::default()
        };
        let errs = sc.validate().unwrap_err();
        assert_eq!(errs[0].field, "era.scripts[0].source", "{errs:?}");
        assert!(errs[0].message.starts_with("line 2, column "), "{errs:?}");
        // a listed script:NAME that names no script of era.scripts is refused naming the policy list
        let sc = crate::scenario::Scenario {
            model: crate::scenario::Model::Era,
            era: crate::models::era::EraParams {
                policies: vec![crate::models::era::Policy::parse("script:nope").unwrap()],
                ..Default::default()
            },
            ..Default::default()
        };
        let errs = sc.validate().unwrap_err();
        assert_eq!(errs[0].field, "era.policies", "{errs:?}");
        assert!(errs[0].message.contains("script:nope"), "{errs:?}");
    }

    /// The scarcity starter by hand: 4 of 10 units committed, a 2-unit request → u = 0.6, price
    /// p_fix·W·T·1.36; an infeasible start or a bad value is an error and quotes nothing from then on.
    #[test]
    fn scarcity_by_hand_and_errors() {
        let mut plan = Plan {
            cap: 10.0,
            load: vec![0.0; 10],
        };
        plan.commit(0, 10, 4.0);
        let mut s = ScriptQuote::new(Arc::new(compile(STARTER_SCARCITY).unwrap()), 0.5, 1.0);
        let q = s.quote(&plan, &request(2, 8, 3, 2.0), 2, None).unwrap();
        assert_eq!(q.start, 2);
        assert_eq!(q.price, 0.5 * 6.0 * (1.0 + 0.6 * 0.6));
        let src = "fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full) { [d, 1.0] }";
        let mut bad = ScriptQuote::new(Arc::new(compile(src).unwrap()), 0.5, 1.0);
        assert_eq!(bad.quote(&plan, &request(2, 8, 3, 2.0), 2, None), None);
        let e = bad.run.take_error().unwrap();
        assert!(e.message.contains("not a feasible start"), "{e}");
        let src = "fn quote(s, d, t, w, now, cap, remaining, feasible, p_fix, p_full) { \"x\" }";
        let mut bad = ScriptQuote::new(Arc::new(compile(src).unwrap()), 0.5, 1.0);
        assert_eq!(bad.quote(&plan, &request(2, 8, 3, 2.0), 2, None), None);
        assert!(bad
            .run
            .take_error()
            .unwrap()
            .message
            .contains("[start, price] or ()"));
    }
}
