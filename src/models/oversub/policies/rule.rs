//! The trait every rate policy implements ([`RatePolicy`]) and the predictors' usage → rate clip
//! ([`Predictor`]).

use super::super::cluster::Cluster;
use super::super::params::OversubParams;

/// A rate policy: at each hour it gives every subscriber's oversubscription rate (ALGORITHMS.md §3.1).
pub trait RatePolicy {
    /// The rates at the cluster's current hour (`cluster.hour()`, after the hour's deletions, with its new
    /// requests collected), one per subscriber into `out` (`out.len()` = subscribers), each in
    /// `[min_rate, 1]`. What the policy may read: the episode's usage statistics of the hours before the
    /// current one (`cluster.episode().stat(t, n)`) and the observations of [`Cluster::observe`].
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]);
}

/// A predicted usage fraction u → the rate that keeps a full PM's usage at the target (β·B by default,
/// `predictor_target` when set): `clip(u/target, min_rate, 1)` (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct Predictor {
    /// `min_rate`.
    pub lo: f64,
    /// `predictor_target`, or β.
    pub target: f64,
}

impl Predictor {
    /// The predictor's clip of `params` (`min_rate`; `predictor_target` if > 0, else β).
    pub fn of(params: &OversubParams) -> Predictor {
        let target = if params.predictor_target > 0.0 {
            params.predictor_target
        } else {
            params.beta
        };
        Predictor {
            lo: params.min_rate,
            target,
        }
    }

    /// The rate for predicted usage fraction `u`.
    pub fn rate(&self, u: f64) -> f64 {
        (u / self.target).clamp(self.lo, 1.0)
    }
}
