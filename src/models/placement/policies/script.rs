//! A user's fit test written in the policy language (issue 31; [`crate::script`], docs/policies.md): the
//! placement hook. Seed 002 §4's inputs, all in VM units (1.0 = one VM's full CPU):
//!
//! ```text
//! fn fits(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k)   // required: true if item k may join the machine
//! fn score(c, n, mu, sigma2, load, mu_k, sigma2_k, s_k)  // optional: Best Fit key, smaller = tighter
//! fn size(mean, sd, obs)                           // optional: the item's deterministic size s_i
//! ```
//!
//! * `c`: machine capacity; `n`: items already on the machine; `mu` = Σ μ_i, `sigma2` = Σ σ_i² and
//!   `load` = Σ s_i over them (means and population variances over the observation set O; ALGORITHMS.md
//!   §4.1);
//! * `mu_k`, `sigma2_k`, `s_k`: the candidate item's mean, variance and size;
//! * `size`: `mean`, `sd` (population s.d.) and `obs` (the item's observations in O, ascending) → s_i;
//!   without it s_i = μ_i (as GPA's). Without `score` the key is the residual `c − load − s_k` (as the
//!   deterministic tests').
//!
//! A script that fails at run time (a limit, a wrong type) stops fitting anything; the packing's caller
//! reads the first error from [`ScriptFit::run`].

use super::fit_test::{BinLoad, FitTest, ItemStats};
use crate::script::{Hook, Limits, Script, ScriptError, ScriptRun};
use rhai::Dynamic;
use std::sync::Arc;

/// The machine-and-candidate arguments of `fits` and `score`, in order.
pub const FIT_ARGS: &[&str] = &["c", "n", "mu", "sigma2", "load", "mu_k", "sigma2_k", "s_k"];

/// The placement hooks: `fits` (required), `score` and `size` (optional).
pub const HOOKS: [Hook; 3] = [
    Hook {
        name: "fits",
        params: FIT_ARGS,
        required: true,
    },
    Hook {
        name: "score",
        params: FIT_ARGS,
        required: false,
    },
    Hook {
        name: "size",
        params: &["mean", "sd", "obs"],
        required: false,
    },
];

/// Compiles a placement script with the default limits and checks its hooks.
pub fn compile(source: &str) -> Result<Script, ScriptError> {
    Script::compile(source, &HOOKS, &Limits::default())
}

/// A compiled placement script as a [`FitTest`], for one packing (it keeps that packing's first error).
pub struct ScriptFit {
    script: Arc<Script>,
    has_score: bool,
    has_size: bool,
    /// The packing's operation budget and first run-time error.
    pub run: ScriptRun,
}

impl ScriptFit {
    /// The fit test of `script` (compiled by [`compile`]), for one packing within the default operation
    /// budget of a run ([`Limits::run_operations`]).
    pub fn new(script: Arc<Script>) -> Self {
        Self::with_budget(script, Limits::default().run_operations)
    }

    /// [`ScriptFit::new`] with a budget of `ops` operations over the packing's calls.
    pub fn with_budget(script: Arc<Script>, ops: u64) -> Self {
        ScriptFit {
            run: ScriptRun::new(ops),
            has_score: script.defines("score", FIT_ARGS.len()),
            has_size: script.defines("size", 3),
            script,
        }
    }

    fn args(bin: &BinLoad, item: &ItemStats, c: f64) -> [f64; 8] {
        [
            c,
            bin.n as f64,
            bin.mean,
            bin.var,
            bin.size,
            item.mean,
            item.var,
            item.size,
        ]
    }
}

impl FitTest for ScriptFit {
    fn reads_observations(&self) -> bool {
        self.has_size
    }

    fn item_size(&self, mean: f64, sd: f64, sorted_obs: &[f64]) -> f64 {
        if !self.has_size {
            return mean;
        }
        self.run.guard(mean, || {
            let obs: rhai::Array = sorted_obs.iter().map(|&x| Dynamic::from_float(x)).collect();
            let args = vec![
                Dynamic::from_float(mean),
                Dynamic::from_float(sd),
                Dynamic::from_array(obs),
            ];
            self.script.call_f64_in(self.run.budget(), "size", args)
        })
    }

    fn fits(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> bool {
        self.run.guard(false, || {
            let args = Self::args(bin, item, c);
            self.script.call_bool_in(self.run.budget(), "fits", args)
        })
    }

    fn best_fit_key(&self, bin: &BinLoad, item: &ItemStats, c: f64) -> f64 {
        if !self.has_score {
            return c - bin.size - item.size;
        }
        self.run.guard(f64::NAN, || {
            let args = Self::args(bin, item, c);
            self.script.call_f64_in(self.run.budget(), "score", args)
        })
    }
}

/// The starter scripts of the playground and docs/policies.md: (name, source).
pub const STARTERS: [(&str, &str); 2] = [
    ("gpa", STARTER_GPA),
    ("cantelli-total", STARTER_CANTELLI_TOTAL),
];

/// GPA (seed 002 §4) re-expressed: the machine's total as N(μ', σ'²), fits iff μ' + z_{1−ρ}·σ' ≤ c, Best
/// Fit key z = (c − μ')/σ'. Bit-identical to the built-in `gpa:0.05` (tested).
pub const STARTER_GPA: &str = include_str!("../../../../examples/policies/gpa.rhai");

/// An idea not in the papers: a distribution-free test on the machine's total. Cantelli's inequality
/// P(X − μ' ≥ t) ≤ σ'²/(σ'² + t²) holds for any distribution of the total X, so μ' + √((1 − ρ)/ρ)·σ' ≤ c
/// bounds the overflow probability by ρ without GPA's Gaussian assumption (seed 002's Cantelli test sizes
/// each item alone, μ_i + b·σ_i, and adds the sizes, which is more conservative).
pub const STARTER_CANTELLI_TOTAL: &str =
    include_str!("../../../../examples/policies/cantelli-total.rhai");
