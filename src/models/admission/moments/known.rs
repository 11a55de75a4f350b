//! Moments of `X_t` for known parameters (λ, ν, σ) (ALGORITHMS.md §2.4(d), η = 1).

use super::alive::{AliveMode, AliveTable};
use super::belief::MomentMode;
use serde::{Deserialize, Serialize};

/// First two moments of `X_t` at one lead time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    /// Lead time t (hours).
    pub t: f64,
    /// `E[X_t]` (cores).
    pub mean: f64,
    /// `Var[X_t]` (cores²).
    pub var: f64,
}

/// Known-parameter moments of `X_t` (ALGORITHMS.md §2.4(d), η = 1) at lead times `t` (hours):
/// `n0` current cores, `lambda` per-core death rate (per hour), `nu` normalised scale-out rate (scale-out rate
/// `ν·λ` per hour), `sigma` size parameter, `kappa` kill factor (max lifetime `Exp(λ/κ)`).
/// `mode` = NoAbsorption gives §2.4(b); PaperFactorised is treated as Canonical here (no posterior).
pub fn known_moments(
    n0: u32,
    lambda: f64,
    nu: f64,
    sigma: f64,
    kappa: f64,
    t: &[f64],
    alive: AliveMode,
    mode: MomentMode,
) -> Vec<Moment> {
    let n0f = n0 as f64;
    let m1 = 1.0 + sigma;
    let m2 = sigma * (2.0 + sigma);
    let table = if n0 == 0 || mode == MomentMode::NoAbsorption {
        None
    } else {
        Some(AliveTable::new(n0, nu, sigma, alive))
    };
    t.iter()
        .map(|&tt| {
            let tau = lambda * tt.max(0.0);
            let p = libm::exp(-tau);
            let q = libm::exp(-tau / kappa);
            let one_m_p = -libm::expm1(-tau);
            let (p1, p2) = match &table {
                Some(tb) => tb.phi(tau),
                None => {
                    if n0 == 0 {
                        (0.0, 0.0)
                    } else {
                        (one_m_p, -0.5 * libm::expm1(-2.0 * tau))
                    }
                }
            };
            let e = q * (n0f * p + nu * m1 * p1);
            let e2 = q
                * (n0f * p * one_m_p
                    + n0f * n0f * p * p
                    + 2.0 * n0f * p * nu * m1 * one_m_p
                    + nu * m1 * p1
                    + nu * m2 * p2
                    + 2.0 * nu * nu * m1 * m1 * (p1 - p2));
            Moment {
                t: tt,
                mean: e,
                var: (e2 - e * e).max(0.0),
            }
        })
        .collect()
}
