//! Grid-x (ALGORITHMS.md §3.4): every subscriber's rate is `x` at every hour.

use super::super::cluster::Cluster;
use super::rule::RatePolicy;

/// Grid-x: the fixed rate `x`.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// The rate, in (0, 1].
    pub x: f64,
}

impl RatePolicy for Grid {
    fn rates(&mut self, _cluster: &Cluster<'_>, out: &mut [f64]) {
        out.fill(self.x);
    }
}
