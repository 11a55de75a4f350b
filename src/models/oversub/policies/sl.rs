//! SL (Kumbhare et al. 2021; ALGORITHMS.md §3.4): the maximum over the history days of the subscriber's VM
//! usage rates by hour of day (to the upper edge of its 1% bin), over β, clipped.

use super::super::cluster::Cluster;
use super::super::profile::hour_of_day;
use super::estimates::Estimates;
use super::rule::{Predictor, RatePolicy};

/// SL on the history days' estimates.
#[derive(Clone, Copy, Debug)]
pub struct Sl<'a> {
    /// The fitted history ([`Estimates::sl`]).
    pub est: &'a Estimates,
    /// Usage → rate.
    pub clip: Predictor,
}

impl RatePolicy for Sl<'_> {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        let h = hour_of_day(cluster.hour());
        for (n, o) in out.iter_mut().enumerate() {
            *o = self.clip.rate(self.est.sl[n][h]);
        }
    }
}
