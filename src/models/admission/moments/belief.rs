//! The inputs of the posterior moments (ALGORITHMS.md §2.6.3): a deployment's belief (current cores and Gamma
//! posteriors over λ, ν, σ), the moment formula and the quadrature settings.

use super::alive::AliveMode;
use serde::{Deserialize, Serialize};

/// Which moment formula is used (ALGORITHMS.md §2.6.3, App. A.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum MomentMode {
    /// Closed form + absorption corrections by Gauss–Laguerre quadrature (canonical).
    #[default]
    Canonical,
    /// Seed 000 Prop. 4.3 / App. C style: separately integrated factors, alive fraction at posterior means.
    PaperFactorised,
    /// Ignore absorption at zero cores (un-absorbed closed form only; overestimates E by up to +446%).
    NoAbsorption,
}

/// A Gamma distribution, shape `a` and **rate** `b` (mean a/b), ALGORITHMS.md §0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gamma {
    /// Shape a (> 0).
    pub shape: f64,
    /// Rate b (> 0).
    pub rate: f64,
}

impl Gamma {
    /// Γ(shape, rate).
    pub const fn new(shape: f64, rate: f64) -> Gamma {
        Gamma { shape, rate }
    }
    /// Mean a/b.
    pub fn mean(&self) -> f64 {
        self.shape / self.rate
    }
    /// Second raw moment a(a+1)/b².
    pub fn second(&self) -> f64 {
        self.shape * (self.shape + 1.0) / (self.rate * self.rate)
    }
    /// True if shape and rate are finite and positive.
    pub fn is_valid(&self) -> bool {
        self.shape.is_finite() && self.rate.is_finite() && self.shape > 0.0 && self.rate > 0.0
    }
}

/// Belief about one deployment: current cores and independent Gamma posteriors over (λ per hour, ν, σ)
/// (ALGORITHMS.md §2.6.3 inputs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Belief {
    /// Current active cores n0 (0 = dead: all moments 0).
    pub n0: u32,
    /// Posterior of the per-core death rate λ (per hour).
    pub lambda: Gamma,
    /// Posterior of the normalised scale-out rate ν (scale-outs per mean core lifetime).
    pub nu: Gamma,
    /// Posterior of the scale-out size parameter σ (extra cores).
    pub sigma: Gamma,
}

/// The posterior moments of the scale-out terms that §2.6.3's closed forms share (ALGORITHMS.md §2.6.3:
/// `ν̄`, `E[ν²]`, `m̄1 = 1 + σ̄`, `m̄2 = 2σ̄ + E[σ²]`, `E[m1²] = 1 + 2σ̄ + E[σ²]`), with `n0` as a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaleOutMoments {
    /// Current active cores n0.
    pub n0: f64,
    /// ν̄ = a_ν/b_ν.
    pub nu: f64,
    /// E[ν²] = a_ν(a_ν+1)/b_ν².
    pub nu2: f64,
    /// m̄1 = 1 + σ̄.
    pub m1: f64,
    /// m̄2 = 2σ̄ + E[σ²].
    pub m2: f64,
    /// E[m1²] = 1 + 2σ̄ + E[σ²].
    pub m1_sq: f64,
}

impl Belief {
    /// The scale-out moments of this belief ([`ScaleOutMoments`]).
    pub fn scale_out_moments(&self) -> ScaleOutMoments {
        let es = self.sigma.mean();
        let es2 = self.sigma.second();
        ScaleOutMoments {
            n0: self.n0 as f64,
            nu: self.nu.mean(),
            nu2: self.nu.second(),
            m1: 1.0 + es,
            m2: 2.0 * es + es2,
            m1_sq: 1.0 + 2.0 * es + es2,
        }
    }
}

/// Quadrature and interpolation settings of §2.6.3. Defaults `(J_τ, J_ν, J_σ) = (16, 8, 4)`, 64 log-spaced
/// lead times for the absorption corrections.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MomentConfig {
    /// Moment formula (canonical / paper-style factorised / no absorption).
    pub mode: MomentMode,
    /// S1 method.
    pub alive: AliveMode,
    /// Gauss–Laguerre nodes over τ = λt.
    pub j_tau: usize,
    /// Nodes over ν.
    pub j_nu: usize,
    /// Nodes over σ.
    pub j_sigma: usize,
    /// Number of log-spaced lead times at which the absorption corrections Δ1, Δ2 are computed when more than
    /// this many lead times are requested (interpolated linearly in ln t, Δ(0) = 0).
    pub n_interp: usize,
}

impl Default for MomentConfig {
    fn default() -> Self {
        MomentConfig {
            mode: MomentMode::Canonical,
            alive: AliveMode::Volterra,
            j_tau: 16,
            j_nu: 8,
            j_sigma: 4,
            n_interp: 64,
        }
    }
}

impl MomentConfig {
    /// The "fast" quadrature preset (8, 4, 2) of §2.6.3 (|rel. error of E| ≤ 4.5%).
    pub fn fast() -> Self {
        MomentConfig {
            j_tau: 8,
            j_nu: 4,
            j_sigma: 2,
            ..Default::default()
        }
    }
}
