//! Per-deployment sufficient statistics and the posterior update (ALGORITHMS.md §2.6.1–§2.6.2, seed 000 §4).

use super::moments::Gamma;
use serde::{Deserialize, Serialize};

/// Sufficient statistics of one deployment (ALGORITHMS.md §2.6.1), including pseudo-observations (§2.11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SuffStats {
    /// Observed single-core deaths D.
    pub deaths: f64,
    /// Core-hours of exposure E = ∫ n_d(s) ds (live cores right-censored at now).
    pub exposure: f64,
    /// Scale-out requests N_r (granted or failed).
    pub requests: f64,
    /// Hours of exposure of the scale-out process T_r (the deployment's age plus pseudo gaps).
    pub request_exposure: f64,
    /// Observed scale-out sizes N_s.
    pub sizes: f64,
    /// Sum of (K − 1) over observed sizes, Z (cores).
    pub extra_cores: f64,
    /// Age τ_a in hours (survival without a kill contributes exp(−λ τ_a/κ)).
    pub age: f64,
}

/// Posterior update variant (ALGORITHMS.md §2.6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum UpdateMode {
    /// Mean-field variational Bayes, η = 1 (canonical).
    #[default]
    Vb,
    /// λ from core deaths only (rate b_λ0 + E), ν from plug-in λ̄ (ablation).
    Decoupled,
}

/// Population priors (ALGORITHMS.md §2.1 table, defaults §2.13).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Priors {
    /// λ ~ Γ(a_λ0, b_λ0): per-core death rate, per hour.
    pub lambda: Gamma,
    /// ν ~ Γ(a_ν0, b_ν0): scale-outs per mean core lifetime.
    pub nu: Gamma,
    /// σ ~ Γ(a_σ0, b_σ0): extra cores per scale-out.
    pub sigma: Gamma,
    /// Kill factor κ: maximum lifetime ~ Exp(λ/κ), mean κ core lifetimes.
    pub kappa: f64,
}

impl Default for Priors {
    /// ALGORITHMS.md §2.13: λ ~ Γ(1.2, 60 h), ν ~ Γ(1.0, 0.5), σ ~ Γ(1.0, 0.2), κ = 20.
    fn default() -> Self {
        Priors {
            lambda: Gamma::new(1.2, 60.0),
            nu: Gamma::new(1.0, 0.5),
            sigma: Gamma::new(1.0, 0.2),
            kappa: 20.0,
        }
    }
}

/// Posterior Gamma factors `(q(λ), q(ν), q(σ))` from priors and statistics (ALGORITHMS.md §2.6.2).
/// VB: iterate the two conditionally conjugate updates until the relative change of ν̄ is < 1e−9 (≤ 10 times).
pub fn update(prior: &Priors, s: &SuffStats, mode: UpdateMode) -> (Gamma, Gamma, Gamma) {
    let a_l = prior.lambda.shape + s.deaths + s.requests;
    let a_n = prior.nu.shape + s.requests;
    let sig = Gamma::new(
        prior.sigma.shape + s.extra_cores,
        prior.sigma.rate + s.sizes,
    );
    match mode {
        UpdateMode::Vb => {
            let mut nu_bar = prior.nu.mean();
            let mut lam = Gamma::new(a_l, prior.lambda.rate);
            let mut nu = prior.nu;
            for _ in 0..10 {
                let b_l = prior.lambda.rate
                    + s.exposure
                    + s.age / prior.kappa
                    + nu_bar * s.request_exposure;
                lam = Gamma::new(a_l, b_l);
                let b_n = prior.nu.rate + lam.mean() * s.request_exposure;
                nu = Gamma::new(a_n, b_n);
                let nb = nu.mean();
                let done = ((nb - nu_bar) / nu_bar).abs() < 1e-9;
                nu_bar = nb;
                if done || s.request_exposure == 0.0 {
                    break;
                }
            }
            (lam, nu, sig)
        }
        UpdateMode::Decoupled => {
            let lam = Gamma::new(
                prior.lambda.shape + s.deaths,
                prior.lambda.rate + s.exposure,
            );
            let nu = Gamma::new(a_n, prior.nu.rate + lam.mean() * s.request_exposure);
            (lam, nu, sig)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_data_gives_prior() {
        let p = Priors::default();
        let (l, n, s) = update(&p, &SuffStats::default(), UpdateMode::Vb);
        assert_eq!((l, n, s), (p.lambda, p.nu, p.sigma));
    }
}
