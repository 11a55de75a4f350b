//! The peak predictor (in the style of Google's overcommit simulator, which predicts a machine's peak from its
//! tasks' recent usage): the p-th percentile, or mean + N·sd, of the subscriber's VM-hour usage rates over the
//! last `peak_window_h` hours, over β, clipped; rate 1 when the window holds no VM.

use super::super::cluster::Cluster;
use super::super::profile::SubHour;
use super::rule::{Predictor, RatePolicy};
use super::spec::Peak;

/// The peak predictor over a window of `window` hours.
#[derive(Clone, Copy, Debug)]
pub struct PeakPredictor {
    /// The summary of the window's usage rates.
    pub peak: Peak,
    /// `peak_window_h`, hours.
    pub window: i32,
    /// Usage → rate.
    pub clip: Predictor,
}

impl RatePolicy for PeakPredictor {
    fn rates(&mut self, cluster: &Cluster<'_>, out: &mut [f64]) {
        let (ep, t, w) = (cluster.episode(), cluster.hour(), self.window);
        let clip = |u: f64| self.clip.rate(u);
        for (n, o) in out.iter_mut().enumerate() {
            let hours: Vec<&SubHour> = (t - w..t).map(|tt| ep.stat(tt, n)).collect();
            *o = match self.peak {
                Peak::Percentile(p) => SubHour::percentile(&hours, p).map_or(1.0, clip),
                Peak::Sigma(k) => {
                    let c: f64 = hours.iter().map(|s| s.n as f64).sum();
                    if c == 0.0 {
                        1.0
                    } else {
                        let m = hours.iter().map(|s| s.sum).sum::<f64>() / c;
                        let v = (hours.iter().map(|s| s.sum_sq).sum::<f64>() / c - m * m).max(0.0);
                        clip(m + k * v.sqrt())
                    }
                }
            };
        }
    }
}
