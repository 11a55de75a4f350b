//! Unconstrained offered load of the admission model (ALGORITHMS.md §2.13, App. A.4 "offered load") and the
//! cluster share used to run the experiments on Azure-fitted parameters.
//!
//! With no admission control and no capacity limit, deployments arrive as a Poisson process of rate ρ (per
//! hour) and each evolves independently, so the expected number of active cores at time T is
//! `L(T) = ρ·∫_0^T E[X_s] ds`, where `E[X_s]` is the prior-integrated mean of a new deployment at age s
//! (§2.6.3, with absorption), averaged over the initial size n0. The 3-year average is `(1/T)∫_0^T L(t) dt`.
//! This mirrors `../shared/oracles/admit/offered_load.py`: for the §2.13 defaults it gives ≈ 27.5k cores
//! after 3 years and a 3-year average ≈ 21.3k cores at ρ = 1/h.

use super::moments::{
    posterior_moments_with, Belief, MomentConfig, MomentMode, NodeCache, TableLattice,
};
use super::params::{AdmitParams, InitialSize};
use serde::Serialize;

/// Offered load of a parameter set (cores).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OfferedLoad {
    /// Expected active cores at the horizon T with no admission control, `ρ·∫_0^T E[X_s] ds` (cores).
    pub at_horizon: f64,
    /// Its average over [0, T] (cores).
    pub average: f64,
    /// `at_horizon / C`: how far the unconstrained load exceeds the cluster.
    pub ratio_at_horizon: f64,
}

/// Initial-size distribution as (n0, probability) pairs: the empirical weights, or for `1 + Poisson(σ)` the
/// Poisson pmf at the prior mean of σ (the oracle's approximation: E[X] is linear in n0 except through
/// absorption), truncated where the pmf < 1e−5 and renormalised.
fn size_mix(p: &AdmitParams) -> Vec<(u32, f64)> {
    let mut v: Vec<(u32, f64)> = match &p.initial_size {
        InitialSize::Empirical { sizes, weights } => sizes
            .iter()
            .zip(weights)
            .filter(|(_, w)| **w > 0.0)
            .map(|(s, w)| (*s, *w))
            .collect(),
        InitialSize::OnePlusPoissonSigma => {
            let m = p.priors.sigma.mean();
            let mut out = Vec::new();
            let mut pk = libm::exp(-m);
            for k in 0..400u32 {
                if k > 0 {
                    pk *= m / k as f64;
                }
                if pk >= 1e-5 {
                    out.push((1 + k, pk));
                }
                if k as f64 > m && pk < 1e-12 {
                    break;
                }
            }
            out
        }
    };
    let tot: f64 = v.iter().map(|x| x.1).sum();
    v.iter_mut().for_each(|x| x.1 /= tot);
    v
}

/// Offered load of `p` over its horizon `p.horizon_hours` at its arrival rate (see the module doc).
/// `E[X_s]` is computed with the canonical moments (§2.6.3, quadrature 12 × 6 × 3 as the oracle) on `points`
/// log-spaced ages from 0.01 h to T (the oracle uses 3,000; 600 changes the result by < 0.1%) plus s = 0
/// (`E[X_0] = n0`), integrated by the trapezoid rule.
pub fn offered_load(p: &AdmitParams, points: usize) -> OfferedLoad {
    let h = p.horizon_hours;
    let n = points.max(16);
    let mut t = Vec::with_capacity(n + 1);
    t.push(0.0);
    let (lo, hi) = (libm::log(0.01), libm::log(h));
    for i in 0..n {
        t.push(libm::exp(lo + (hi - lo) * i as f64 / (n - 1) as f64));
    }
    let cfg = MomentConfig {
        mode: MomentMode::Canonical,
        j_tau: 12,
        j_nu: 6,
        j_sigma: 3,
        ..MomentConfig::default()
    };
    let mut lat = TableLattice::new();
    let mut nodes = NodeCache::default();
    let mut m = vec![0.0; t.len()];
    // Group the sizes by lattice rung (exact up to 12 cores, then a 1.25 ladder): E[X_s] is n0·L(κ'+1, s)
    // plus terms free of n0, minus the absorption correction, which is evaluated on the rung anyway (the
    // lattice tables). So one moment curve per rung at n0 = rung, shifted by (n̄ − rung)·L(κ'+1, s) for the
    // group's mean size n̄, equals the per-size sum up to the rung approximation of the correction. The
    // Azure fit has 519 distinct sizes and 36 rungs.
    let mut groups: Vec<(u32, f64, f64)> = Vec::new(); // (rung, Σ w·n0, Σ w)
    for (n0, w) in size_mix(p) {
        let r = TableLattice::n0_rung(n0);
        match groups.iter_mut().find(|g| g.0 == r) {
            Some(g) => {
                g.1 += w * n0 as f64;
                g.2 += w;
            }
            None => groups.push((r, w * n0 as f64, w)),
        }
    }
    let (a, b_l, kp1) = (
        p.priors.lambda.shape,
        p.priors.lambda.rate,
        1.0 / p.priors.kappa + 1.0,
    );
    for (rung, wn, w) in groups {
        let nbar = wn / w;
        let b = Belief {
            n0: rung,
            lambda: p.priors.lambda,
            nu: p.priors.nu,
            sigma: p.priors.sigma,
        };
        let e = posterior_moments_with(&b, p.priors.kappa, &t[1..], &cfg, &mut lat, &mut nodes);
        m[0] += wn;
        for ((mi, x), &s) in m[1..].iter_mut().zip(&e).zip(&t[1..]) {
            let l1 = libm::exp(-a * libm::log1p(kp1 * s / b_l));
            *mi += w * (x.mean + (nbar - rung as f64) * l1);
        }
    }
    // cumulative trapezoid: cum(t_i) = ∫_0^{t_i} E[X_s] ds, then the average of cum over [0, T]
    let mut cum = vec![0.0; t.len()];
    for i in 1..t.len() {
        cum[i] = cum[i - 1] + 0.5 * (m[i] + m[i - 1]) * (t[i] - t[i - 1]);
    }
    let mut avg = 0.0;
    for i in 1..t.len() {
        avg += 0.5 * (cum[i] + cum[i - 1]) * (t[i] - t[i - 1]);
    }
    let rho = p.arrival_rate;
    let at = rho * cum[cum.len() - 1];
    OfferedLoad {
        at_horizon: at,
        average: rho * avg / h,
        ratio_at_horizon: at / p.capacity,
    }
}

/// The arrival rate (per hour) that gives `p` the same unconstrained load-to-capacity ratio at its horizon as
/// the ALGORITHMS.md §2.13 defaults have (≈ 27.5k / 20k ≈ 1.37 at 1 arrival/h): `ρ = r*·C / L₁(T)` with
/// `L₁` the offered load of `p` at ρ = 1/h. Used to run a data-fitted parameter set (e.g. Azure, whose
/// arrival stream covers a whole region: 619 deployments/h) as one cluster of capacity `p.capacity`: the
/// fitted stream is thinned to this cluster's share.
pub fn cluster_share_rate(p: &AdmitParams, points: usize) -> f64 {
    let reference = offered_load(&AdmitParams::default(), points).ratio_at_horizon;
    let mut unit = p.clone();
    unit.arrival_rate = 1.0;
    let l1 = offered_load(&unit, points).at_horizon;
    reference * p.capacity / l1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ALGORITHMS.md App. A.4 (oracle offered_load.py with the §2.13 defaults): ≈ 27.5k cores after 3
    /// years, 3-year average ≈ 21.3k, at 1 arrival/h.
    #[test]
    fn defaults_match_the_oracle_offered_load() {
        let l = offered_load(&AdmitParams::default(), 600);
        assert!(
            (l.at_horizon / 27_500.0 - 1.0).abs() < 0.01,
            "load after 3 years {}",
            l.at_horizon
        );
        assert!(
            (l.average / 21_300.0 - 1.0).abs() < 0.01,
            "average {}",
            l.average
        );
    }

    /// The load is linear in ρ, so the share rate of the defaults is their own rate.
    #[test]
    fn share_rate_of_the_defaults_is_one_per_hour() {
        let r = cluster_share_rate(&AdmitParams::default(), 200);
        assert!((r - 1.0).abs() < 1e-12, "{r}");
        let mut p = AdmitParams::default();
        p.capacity = 5_000.0;
        let r = cluster_share_rate(&p, 200);
        assert!((r - 0.25).abs() < 1e-12, "{r}");
    }
}
