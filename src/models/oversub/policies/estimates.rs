//! What the SL and GPA policies learn from the history days ([`Estimates`]).

use super::super::params::{component, OversubParams};
use super::super::profile::{hour_of_day, Episode, Profiles, SubHour};
use crate::substrate::stats::normal_quantile;
use serde::Serialize;

/// What the SL and GPA policies learn from the history days (episodes of their own seeds, hours `0..T`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimates {
    /// `sl[n][h]`: the maximum over the history hours at hour of day h of subscriber n's VM usage rates.
    pub sl: Vec<[f64; 24]>,
    /// `mu[n][h]`: mean VM usage rate at hour of day h.
    pub mu: Vec<[f64; 24]>,
    /// `sd[n][h]`: standard deviation of the VM usage rate at hour of day h.
    pub sd: Vec<[f64; 24]>,
    /// `κ_n = Σ c² / Σ c` over the subscriber's VMs created in the history.
    pub kappa: Vec<f64>,
}

impl Estimates {
    /// Fits the estimates on `params.history_days` episodes of the history stream.
    pub fn fit(
        profiles: &Profiles,
        params: &OversubParams,
        means: &[[f64; 24]],
        seed: u64,
    ) -> Estimates {
        let n = profiles.subscribers.len();
        let mut sl = vec![[0.0f64; 24]; n];
        let mut cnt = vec![[0.0f64; 24]; n];
        let mut sum = vec![[0.0f64; 24]; n];
        let mut sum_sq = vec![[0.0f64; 24]; n];
        let mut c1 = vec![0.0f64; n];
        let mut c2 = vec![0.0f64; n];
        for d in 0..params.history_days {
            let ep = Episode::generate(profiles, params, means, seed, component::HISTORY, d as u64);
            for t in 0..ep.hours {
                let h = hour_of_day(t);
                for i in 0..n {
                    let s = ep.stat(t, i);
                    if let Some(top) = SubHour::percentile(&[s], 100.0) {
                        sl[i][h] = sl[i][h].max(top);
                    }
                    cnt[i][h] += s.n as f64;
                    sum[i][h] += s.sum;
                    sum_sq[i][h] += s.sum_sq;
                }
            }
            for v in ep.vms.iter().filter(|v| v.start >= 0) {
                c1[v.sub as usize] += v.cores;
                c2[v.sub as usize] += v.cores * v.cores;
            }
        }
        let mut mu = vec![[0.0f64; 24]; n];
        let mut sd = vec![[0.0f64; 24]; n];
        for i in 0..n {
            for h in 0..24 {
                if cnt[i][h] > 0.0 {
                    let m = sum[i][h] / cnt[i][h];
                    mu[i][h] = m;
                    sd[i][h] = (sum_sq[i][h] / cnt[i][h] - m * m).max(0.0).sqrt();
                } else {
                    // Never seen at this hour: assume the worst (full usage).
                    mu[i][h] = 1.0;
                }
            }
        }
        let kappa = (0..n)
            .map(|i| {
                if c1[i] > 0.0 {
                    c2[i] / c1[i]
                } else {
                    params.pm_cores
                }
            })
            .collect();
        Estimates { sl, mu, sd, kappa }
    }

    /// GPA's rate for subscriber `n` at hour of day `h` (see the module documentation), unclipped below.
    pub fn gpa_rate(&self, params: &OversubParams, n: usize, h: usize, alpha: f64) -> f64 {
        let rho = (1.0 - alpha) * params.delta;
        let z = normal_quantile(1.0 - rho);
        let cap = params.beta * params.pm_cores;
        let mut x: f64 = 0.0;
        for k in 0..params.gpa_horizon_h as usize {
            let hh = (h + k) % 24;
            let (m, s) = (self.mu[n][hh], self.sd[n][hh]);
            let b = z * s * self.kappa[n].sqrt();
            // Largest R with m·R + b·√R ≤ cap: y = √R solves m·y² + b·y − cap = 0.
            let r_max = if m > 0.0 {
                let y = (-b + (b * b + 4.0 * m * cap).sqrt()) / (2.0 * m);
                y * y
            } else if b > 0.0 {
                (cap / b) * (cap / b)
            } else {
                f64::INFINITY
            };
            x = x.max(params.pm_cores / r_max);
        }
        x.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(mu: f64, sd: f64, kappa: f64) -> Estimates {
        Estimates {
            sl: vec![[0.3; 24]],
            mu: vec![[mu; 24]],
            sd: vec![[sd; 24]],
            kappa: vec![kappa],
        }
    }
    #[test]
    fn gpa_rate_solves_the_gaussian_bound() {
        let p = OversubParams::default();
        // s = 0: the mean alone must stay below β·B: μ·B/x ≤ β·B → x = μ/β = 0.12/0.6 = 0.2.
        let e = est(0.12, 0.0, 8.0);
        assert!((e.gpa_rate(&p, 0, 0, 0.95) - 0.2).abs() < 1e-12);
        // s > 0: at the returned x the bound holds with equality: μR + z·s·√(κR) = βB, R = B/x.
        let e = est(0.2, 0.06, 8.0);
        let x = e.gpa_rate(&p, 0, 5, 0.95);
        let r = 48.0 / x;
        let z = normal_quantile(1.0 - 0.05 / 40.0);
        let lhs = 0.2 * r + z * 0.06 * (8.0 * r).sqrt();
        assert!((lhs - 0.6 * 48.0).abs() < 1e-9, "{lhs}");
        // A higher α asks for a larger (safer) rate.
        assert!(e.gpa_rate(&p, 0, 5, 0.99) > x);
    }
}
