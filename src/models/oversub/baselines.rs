//! The rate policies that need no training (ALGORITHMS.md §3.4 and two further baselines).
//!
//! A PM is hot when its usage reaches β·B, and a PM filled to `B` assigned cores at rate x holds `B/x`
//! requested cores, so a predicted usage fraction u keeps a full PM below the line iff `x ≥ u/β`. The
//! predictors below therefore give the rate `clip(prediction/β, min_rate, 1)` (`predictor_target` overrides
//! β here). ALGORITHMS.md §3.4 writes `clip(prediction)` without the `1/β` (`predictor_target` = 1); with it, a full
//! PM's predicted usage is its whole capacity, far above β·B: in the environment of defaults set 13 MA, SL and the
//! p95 peak predictor then save 74.6 / 64.9 / 65.1% at PM-Hot-R 21 / 14 / 20% (unsafe at α = 0.85 and 0.95;
//! results/001/tables.md, variants), while the paper reports MA and SL safe with about 49% saved cores, rates the
//! `1/β` reading gives.
//!
//! - **Grid-x**: every rate is `x`.
//! - **MA** (Chen et al. 2018b): the mean over the last `ma_window_h` hours of the subscriber's 95th-percentile
//!   VM usage rate, over β, clipped to `[min_rate, 1]`.
//! - **SL** (Kumbhare et al. 2021): the maximum over the history days of the subscriber's VM usage rates by
//!   hour of day (to the upper edge of its 1% bin), over β, clipped.
//! - **Peak predictor** (in the style of Google's overcommit simulator, which predicts a machine's peak from
//!   its tasks' recent usage): the p-th percentile, or mean + N·sd, of the subscriber's VM-hour usage rates
//!   over the last `peak_window_h` hours, over β, clipped.
//! - **GPA** (seed 002's Gaussian percentile test applied to rates; links the two papers): the smallest rate
//!   x such that a PM filled to `B` assigned cores with the subscriber's VMs (`B/x` requested cores) keeps
//!   `P(usage ≥ β·B) ≤ ρ` under the Gaussian approximation, at every hour of day of the next
//!   `gpa_horizon_h` hours: `μ·R + z·s·√(κ·R) ≤ β·B` with `R = B/x`, `κ = E[c²]/E[c]`,
//!   `z = Φ⁻¹(1 − ρ)` and `ρ = (1 − α)·δ` (per PM, hot probability ρ per hour gives an expected hot fraction
//!   ρ, so `P(hot_k ≥ δ) ≤ ρ/δ = 1 − α` by Markov's inequality, seed 001 Theorem 3). μ and s are the
//!   subscriber's VM-level usage mean and sd by hour of day, estimated on the history days.
//!
//! Windows that hold no VM give rate 1 (nothing is known, nothing is oversubscribed).

use super::profile::{hour_of_day, Episode, Profiles, SubHour};
use super::{component, OversubParams, Peak, Policy};
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

/// The rates of a policy without training at hour `t` of `ep` (one per subscriber). `C2marl*` policies are
/// not handled here (they give `None`).
pub fn rates(
    policy: &Policy,
    params: &OversubParams,
    est: &Estimates,
    ep: &Episode,
    t: i32,
    out: &mut [f64],
) -> Option<()> {
    let lo = params.min_rate;
    let target = if params.predictor_target > 0.0 {
        params.predictor_target
    } else {
        params.beta
    };
    // a predicted usage fraction u → the rate that keeps a full PM's usage at the target (β·B by default)
    let clip = |u: f64| (u / target).clamp(lo, 1.0);
    let h = hour_of_day(t);
    for (n, o) in out.iter_mut().enumerate() {
        *o = match policy {
            Policy::Grid(x) => *x,
            Policy::Ma => {
                let w = params.ma_window_h as i32;
                let mut s = 0.0;
                let mut k = 0;
                for tt in t - w..t {
                    if let Some(p) = SubHour::percentile(&[ep.stat(tt, n)], 95.0) {
                        s += p;
                        k += 1;
                    }
                }
                if k == 0 {
                    1.0
                } else {
                    clip(s / k as f64)
                }
            }
            Policy::Sl => clip(est.sl[n][h]),
            Policy::Peak(pk) => {
                let w = params.peak_window_h as i32;
                let hours: Vec<&SubHour> = (t - w..t).map(|tt| ep.stat(tt, n)).collect();
                match pk {
                    Peak::Percentile(p) => SubHour::percentile(&hours, *p).map_or(1.0, clip),
                    Peak::Sigma(k) => {
                        let c: f64 = hours.iter().map(|s| s.n as f64).sum();
                        if c == 0.0 {
                            1.0
                        } else {
                            let m = hours.iter().map(|s| s.sum).sum::<f64>() / c;
                            let v =
                                (hours.iter().map(|s| s.sum_sq).sum::<f64>() / c - m * m).max(0.0);
                            clip(m + k * v.sqrt())
                        }
                    }
                }
            }
            Policy::Gpa(alpha) => est.gpa_rate(params, n, h, *alpha).clamp(lo, 1.0),
            Policy::C2marl(_) | Policy::C2marlFile(_) => return None,
        };
    }
    Some(())
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

    #[test]
    fn grid_and_sl_rates() {
        let p = OversubParams::default();
        let e = est(0.2, 0.0, 8.0);
        let ep = Episode {
            vms: vec![],
            usage: vec![],
            hours: 2,
            stats: vec![
                SubHour {
                    hist: vec![0; super::super::profile::HIST_BINS],
                    ..Default::default()
                };
                50
            ],
            subs: 1,
        };
        let mut out = [0.0];
        rates(&Policy::Grid(0.4), &p, &e, &ep, 0, &mut out).unwrap();
        assert_eq!(out, [0.4]);
        rates(&Policy::Sl, &p, &e, &ep, 0, &mut out).unwrap();
        assert!((out[0] - 0.3 / 0.6).abs() < 1e-15); // the maximum usage 0.3 over β = 0.6
                                                     // No VM in the window: MA and the peak predictor give 1.
        rates(&Policy::Ma, &p, &e, &ep, 1, &mut out).unwrap();
        assert_eq!(out, [1.0]);
        rates(&Policy::Peak(Peak::Sigma(3.0)), &p, &e, &ep, 1, &mut out).unwrap();
        assert_eq!(out, [1.0]);
        assert!(rates(&Policy::C2marl(0.95), &p, &e, &ep, 1, &mut out).is_none());
    }
}
