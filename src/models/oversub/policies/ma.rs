//! MA (Chen et al. 2018b; ALGORITHMS.md §3.4): the mean over the last `ma_window_h` hours of the subscriber's
//! 95th-percentile VM usage rate, over β, clipped to `[min_rate, 1]`; rate 1 when the window holds no VM.

use super::super::cluster::Cluster;
use super::super::profile::SubHour;
use super::rule::{Predictor, RatePolicy};

/// MA over a window of `window` hours.
#[derive(Clone, Copy, Debug)]
pub struct Ma {
    /// `ma_window_h`, hours.
    pub window: i32,
    /// Usage → rate.
    pub clip: Predictor,
}

impl RatePolicy for Ma {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        let (ep, t, w) = (cluster.episode(), cluster.hour(), self.window);
        for (n, o) in out.iter_mut().enumerate() {
            let mut s = 0.0;
            let mut k = 0;
            for tt in t - w..t {
                if let Some(p) = SubHour::percentile(&[ep.stat(tt, n)], 95.0) {
                    s += p;
                    k += 1;
                }
            }
            *o = if k == 0 {
                1.0
            } else {
                self.clip.rate(s / k as f64)
            };
        }
    }
}
