//! GPA (seed 002's Gaussian percentile test applied to rates; the module documentation of [`super`]): the
//! smallest rate that keeps a full PM's hot probability at most `(1 − α)·δ` at every hour of the next
//! `gpa_horizon_h` hours ([`Estimates::gpa_rate`]), clipped to `[min_rate, 1]`.

use super::super::cluster::Cluster;
use super::super::params::OversubParams;
use super::super::profile::hour_of_day;
use super::estimates::Estimates;
use super::rule::RatePolicy;

/// GPA at safety level `alpha`.
#[derive(Clone, Copy, Debug)]
pub struct Gpa<'a> {
    /// α.
    pub alpha: f64,
    /// The section (β, δ, B, `gpa_horizon_h`, `min_rate`).
    pub params: &'a OversubParams,
    /// The fitted history (μ, s, κ by subscriber and hour of day).
    pub est: &'a Estimates,
}

impl RatePolicy for Gpa<'_> {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        let h = hour_of_day(cluster.hour());
        for (n, o) in out.iter_mut().enumerate() {
            *o = self
                .est
                .gpa_rate(self.params, n, h, self.alpha)
                .clamp(self.params.min_rate, 1.0);
        }
    }
}
