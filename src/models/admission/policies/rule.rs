//! What an admission rule sees and decides (ALGORITHMS.md §2.7 pseudo-code): the state at an arrival
//! ([`DecisionContext`]), a whole policy ([`AdmissionPolicy`]) and one rule of §2.7 ([`AdmissionRule`]).

use crate::models::admission::lookahead::LeadGrid;

/// Everything a policy sees at an arrival (ALGORITHMS.md §2.7 pseudo-code).
pub struct DecisionContext<'a> {
    /// Active cores N now.
    pub active: f64,
    /// Capacity C (cores).
    pub capacity: f64,
    /// Candidate's initial cores n0.
    pub n0: u32,
    /// Lead-time grid.
    pub grid: &'a LeadGrid,
    /// Σ_d μ_d on `grid.curve_t` (cores); empty when the policy needs no curves.
    pub sum_mean: &'a [f64],
    /// Σ_d v_d on `grid.curve_t` (cores²).
    pub sum_var: &'a [f64],
    /// Candidate's μ_c on `grid.curve_t`.
    pub cand_mean: &'a [f64],
    /// Candidate's v_c on `grid.curve_t`.
    pub cand_var: &'a [f64],
    /// Marginal constant ε_m (cores).
    pub marginal_eps: f64,
}

/// An admission policy: accept or reject one arriving deployment. Later models' policies mirror this trait.
pub trait AdmissionPolicy {
    /// Display name, e.g. "SECOND+MARGINAL".
    fn name(&self) -> String;
    /// True if [`DecisionContext`] must carry the moment curves.
    fn needs_curves(&self) -> bool;
    /// The policy's own test (the cluster additionally requires `N + n0 ≤ C`).
    fn accept(&self, ctx: &DecisionContext) -> bool;
}

/// One rule of §2.7 (one file each in this folder, resolved from the policy spec by
/// [`super::resolve::resolve`]): either a test of the present state (ZEROTH, ACCEPT_IF_FITS) or a condition
/// on the moments at every lead time of the look-ahead (FIRST, SECOND).
pub trait AdmissionRule {
    /// Whether the rule reads the moment curves, i.e. decides by [`AdmissionRule::holds`] at every lead time
    /// (FIRST, SECOND) rather than by [`AdmissionRule::accepts_now`].
    fn needs_curves(&self) -> bool;
    /// The test of an arrival on the present state (`N`, `n0`) with threshold `threshold`; true for rules
    /// that test the curves.
    fn accepts_now(&self, _c: &DecisionContext, _threshold: f64) -> bool {
        true
    }
    /// The condition at one lead time, with expected active cores `e` (cores) and their variance `v()`
    /// (cores², computed only when the rule reads it) against `threshold`; true for rules without curves.
    fn holds(
        &self,
        _c: &DecisionContext,
        _threshold: f64,
        _e: f64,
        _v: impl FnOnce() -> f64,
    ) -> bool {
        true
    }
}
