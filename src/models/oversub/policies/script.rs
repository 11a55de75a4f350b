//! A user's rate policy written in the policy language (issue 31; [`crate::script`], docs/policies.md): the
//! oversubscription hook. At each hour the engine calls, for every subscriber,
//!
//! ```text
//! fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target, min_rate)   // → the subscriber's rate x in [min_rate, 1]
//! ```
//!
//! with the inputs of MA, SL, the peak predictor and GPA (ALGORITHMS.md §3.4), usage rates as fractions of the
//! requested cores (0–1):
//!
//! * `h`: the hour of day (0–23) of the current hour;
//! * `sl`, `mu`, `sd`: the history days' estimates at hour of day `h` ([`Estimates`]): SL's maximum usage
//!   rate (to the upper edge of its 1% bin), the VM-level usage mean and s.d. (GPA's);
//! * `n`, `p95`, `mean`, `sd_u`: arrays over the last `ma_window_h` hours, oldest first: the subscriber's VMs
//!   alive, their 95th-percentile usage rate (upper edge of its 1% bin; 0 when no VM), their mean usage rate
//!   and its population s.d. (0 when no VM);
//! * `target`, `min_rate`: the predictors' clip ([`Predictor`]): a predicted usage u gives the rate
//!   `clip(u/target, min_rate, 1)`.
//!
//! The engine clips what the script returns to `[min_rate, 1]`. A script that fails (a limit, a wrong type)
//! gives rate 1 from then on (no oversubscription) and keeps its first error ([`ScriptRate::run`]).
//! Starters: [`STARTERS`] (SL and MA re-expressed bit for bit, tested; one idea not in the papers).
//!
//! A scenario lists its scripts in `oversub.scripts` ([`crate::script::ScriptPolicy`]); each is the row
//! `script:<name>` ([`super::spec::Policy::Script`]). A failing script's row carries its error and the other
//! rows are unaffected.

use super::super::cluster::Cluster;
use super::super::profile::{hour_of_day, SubHour};
use super::estimates::Estimates;
pub use super::hook::{compile, HOOKS};
use super::rule::{Predictor, RatePolicy};
use crate::script::{Limits, Script, ScriptError, ScriptRun};
use rhai::{Array, Dynamic};
use std::sync::Arc;

/// A compiled script as a [`RatePolicy`] for one episode (within one run's operation budget).
pub struct ScriptRate<'a> {
    script: Arc<Script>,
    est: &'a Estimates,
    window: i32,
    clip: Predictor,
    /// The episode's operation budget and first run-time error.
    pub run: ScriptRun,
}

impl<'a> ScriptRate<'a> {
    /// The policy of `script` (compiled by [`compile`]) on the history estimates `est`, with arrays over the
    /// last `window` hours (`ma_window_h`) and the predictors' `clip`.
    pub fn new(script: Arc<Script>, est: &'a Estimates, window: i32, clip: Predictor) -> Self {
        Self::with_budget(script, est, window, clip, Limits::default().run_operations)
    }

    /// [`ScriptRate::new`] with a budget of `ops` operations for the episode (the fuzz target's smaller one).
    pub fn with_budget(
        script: Arc<Script>,
        est: &'a Estimates,
        window: i32,
        clip: Predictor,
        ops: u64,
    ) -> Self {
        ScriptRate {
            script,
            est,
            window,
            clip,
            run: ScriptRun::new(ops),
        }
    }

    /// The script's rate for subscriber `n` at the cluster's hour.
    fn call(&self, cluster: &Cluster<'_>, n: usize) -> Result<f64, ScriptError> {
        let (ep, t) = (cluster.episode(), cluster.hour());
        let h = hour_of_day(t);
        let hours = t - self.window..t;
        let mut count = Array::new();
        let mut p95 = Array::new();
        let mut mean = Array::new();
        let mut sd = Array::new();
        for tt in hours {
            let s = ep.stat(tt, n);
            let (m, v) = if s.n == 0 {
                (0.0, 0.0)
            } else {
                let c = s.n as f64;
                let m = s.sum / c;
                (m, (s.sum_sq / c - m * m).max(0.0))
            };
            count.push(Dynamic::from_float(s.n as f64));
            p95.push(Dynamic::from_float(
                SubHour::percentile(&[s], 95.0).unwrap_or(0.0),
            ));
            mean.push(Dynamic::from_float(m));
            sd.push(Dynamic::from_float(v.sqrt()));
        }
        let f = Dynamic::from_float;
        let args = vec![
            f(h as f64),
            f(self.est.sl[n][h]),
            f(self.est.mu[n][h]),
            f(self.est.sd[n][h]),
            Dynamic::from_array(count),
            Dynamic::from_array(p95),
            Dynamic::from_array(mean),
            Dynamic::from_array(sd),
            f(self.clip.target),
            f(self.clip.lo),
        ];
        let x = self.script.call_f64_in(self.run.budget(), "rate", args)?;
        if x.is_nan() {
            return Err(ScriptError::plain(
                "'rate' returned NaN; a rate in [min_rate, 1] is needed",
            ));
        }
        Ok(x.clamp(self.clip.lo, 1.0))
    }
}

impl RatePolicy for ScriptRate<'_> {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        for (n, o) in out.iter_mut().enumerate() {
            *o = self.run.guard(1.0, || self.call(cluster, n));
        }
    }
}

/// The starter scripts of the oversubscription hook: (name, source).
pub const STARTERS: [(&str, &str); 3] = [
    ("sl", STARTER_SL),
    ("ma", STARTER_MA),
    ("sl-recent", STARTER_SL_RECENT),
];

/// SL re-expressed: `clip(sl/target)`. Bit-identical to the built-in `sl` (tested).
pub const STARTER_SL: &str = include_str!("../../../../examples/policies/oversub-sl.rhai");

/// MA re-expressed over the `p95` array. Bit-identical to the built-in `ma` (tested).
pub const STARTER_MA: &str = include_str!("../../../../examples/policies/oversub-ma.rhai");

/// An idea not in the papers: SL that also takes the window's highest 95th-percentile usage, so a
/// subscriber whose load grew past its history's hour-of-day maximum is oversubscribed less at once.
pub const STARTER_SL_RECENT: &str =
    include_str!("../../../../examples/policies/oversub-sl-recent.rhai");

#[cfg(test)]
mod tests {
    use super::super::super::params::{component, OversubParams};
    use super::super::super::profile::{Episode, Profiles};
    use super::super::ma::Ma;
    use super::super::sl::Sl;
    use super::*;
    use std::borrow::Cow;

    /// Steps one evaluation episode with `builtin`'s rates and, at every hour, asks the script for its rates
    /// on the same cluster: they must be the same bits. Returns the number of rates compared below 1 (so
    /// the comparison is not only over clipped ones).
    fn same_rates(
        src: &str,
        mut builtin: impl FnMut(&Estimates, Predictor) -> Box<dyn RatePolicy + '_>,
    ) -> usize {
        let params = OversubParams {
            pms: 20,
            hours: 48,
            ..OversubParams::default()
        };
        let profiles = Profiles::of(&params, 1).unwrap();
        let means = profiles.arrival_means(&params);
        let est = Estimates::fit(&profiles, &params, &means, 1);
        let ep = Episode::generate(&profiles, &params, &means, 1, component::EVAL, 0);
        let clip = Predictor::of(&params);
        let mut mine = ScriptRate::new(
            Arc::new(compile(src).unwrap()),
            &est,
            params.ma_window_h as i32,
            clip,
        );
        let mut theirs = builtin(&est, clip);
        let n = ep.subs;
        let mut c = Cluster::new(&params, Cow::Borrowed(&ep), false);
        let (mut a, mut b) = (vec![1.0; n], vec![1.0; n]);
        let mut below = 0;
        loop {
            theirs.rates(&c, &mut a);
            mine.rates(&c, &mut b);
            assert_eq!(mine.run.take_error(), None);
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.to_bits(), y.to_bits(), "hour {}: {x} vs {y}", c.hour());
                below += usize::from(*x < 1.0);
            }
            if c.step(&a).done {
                break;
            }
        }
        below
    }

    #[test]
    fn starter_sl_equals_builtin_sl_bit_for_bit() {
        let below = same_rates(STARTER_SL, |est, clip| Box::new(Sl { est, clip }));
        assert!(below > 100, "{below}");
    }

    #[test]
    fn starter_ma_equals_builtin_ma_bit_for_bit() {
        let below = same_rates(STARTER_MA, |_, clip| Box::new(Ma { window: 24, clip }));
        assert!(below > 100, "{below}");
    }

    #[test]
    fn a_failing_script_gives_rate_one_and_its_error() {
        let est = Estimates {
            sl: vec![[0.3; 24]],
            mu: vec![[0.2; 24]],
            sd: vec![[0.0; 24]],
            kappa: vec![8.0],
        };
        let p = OversubParams::default();
        let ep = Episode::empty(1, 2);
        let c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        let src = "fn rate(h, sl, mu, sd, n, p95, mean, sd_u, target, min_rate) {\n  \"x\"\n}";
        let mut s = ScriptRate::new(Arc::new(compile(src).unwrap()), &est, 24, Predictor::of(&p));
        let mut out = [0.0];
        s.rates(&c, &mut out);
        assert_eq!(out, [1.0]);
        assert!(s
            .run
            .take_error()
            .unwrap()
            .message
            .contains("a number is needed"));
        // SL re-expressed on the same inputs: 0.3 / β
        let mut s = ScriptRate::new(
            Arc::new(compile(STARTER_SL).unwrap()),
            &est,
            24,
            Predictor::of(&p),
        );
        s.rates(&c, &mut out);
        assert_eq!(out[0].to_bits(), (0.3 / p.beta).to_bits());
    }
}
