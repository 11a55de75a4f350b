//! MARGINAL (seed 000 Def. 6.1, ALGORITHMS.md §2.7 pseudo-code line 8): a heuristic on top of FIRST or SECOND;
//! a lead time where the rule's condition fails still passes when the candidate's mean there is below ε_m.

use super::rule::DecisionContext;

/// Whether MARGINAL lets a failing lead time pass: the candidate's mean `μ_c(t_k)` (cores) is below ε_m.
pub fn passes(c: &DecisionContext, candidate_mean: f64) -> bool {
    candidate_mean < c.marginal_eps
}

/// Whether the candidate is marginal somewhere on the look-ahead: `min_k μ_c(t_k) < ε_m` (false without
/// curves). Only such candidates can be accepted by MARGINAL alone.
pub fn somewhere(c: &DecisionContext) -> bool {
    !c.cand_mean.is_empty()
        && (0..c.grid.policy_t.len()).any(|k| passes(c, c.grid.at(c.cand_mean, k)))
}
