//! Moments of a deployment's future active cores `X_t` (ALGORITHMS.md §2.3–§2.6.3, seed 000 §4).
//!
//! * [`alive`]: the dimensionless alive probability `S1(u)` (λ = 1) by S1-VOLTERRA / S1-RESCUE
//!   (canonical) or S1-HAZARD, and its convolutions `Φ1, Φ2` (ALGORITHMS.md §2.5).
//! * [`known`]: `E[X_t]`, `Var[X_t]` for known (λ, ν, σ) (§2.4(d)).
//! * [`belief`]: a deployment's Gamma beliefs, the moment formula ([`MomentMode`]) and quadrature settings.
//! * [`lattice`]: exact or memoised alive tables (§2.7 caching) and Gauss–Laguerre nodes.
//! * [`absorption`]: the absorption corrections Δ1, Δ2 and the un-absorbed closed form (§2.6.3).
//! * [`curve`]: posterior-integrated moments for independent Gamma beliefs (§2.6.3), with the paper-style
//!   factorised approximation and the no-absorption form as ablations, and their cached curves (§2.7).
//!
//! Units: t in hours, λ per hour, ν scale-outs per mean core lifetime (scale-out rate ν·λ per hour, η = 1),
//! σ extra cores per scale-out (size `1 + Poisson(σ)`), κ mean core lifetimes of maximum deployment lifetime.

pub mod absorption;
pub mod alive;
pub mod belief;
pub mod curve;
pub mod known;
pub mod lattice;
#[cfg(test)]
mod tests;

pub use absorption::{
    absorption_corrections, absorption_corrections_lattice, absorption_corrections_lattice_into,
    unabsorbed_posterior,
};
pub use alive::{AliveMode, AliveTable, GridMemo, A_RESCUE, U_MAX};
pub use belief::{Belief, Gamma, MomentConfig, MomentMode, ScaleOutMoments};
pub use curve::{posterior_moments, posterior_moments_with, CurveBasis, CurvePlan, LogGrid};
pub use known::{known_moments, Moment};
pub use lattice::{
    psi_grid_tau, ExactTables, NodeCache, PsiSource, TableLattice, PSI_GRID_HI, PSI_GRID_LO,
    PSI_GRID_N,
};
