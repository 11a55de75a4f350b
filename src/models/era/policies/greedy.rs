//! GREEDY_FIRSTFIT (seed 004 §4; ALGORITHMS.md §6.3): the earliest feasible start at the fixed price
//! `p_fix·W·T`.

use super::quote::{Plan, Quote, QuoteDetail, QuotePolicy};
use crate::models::era::jobs::Request;

/// GREEDY_FIRSTFIT with the fixed price `p_fix` (dollars per unit-slot).
#[derive(Clone, Copy, Debug)]
pub struct Greedy {
    /// `p_fix`.
    pub p_fix: f64,
}

impl QuotePolicy for Greedy {
    fn quote(
        &mut self,
        plan: &Plan,
        r: &Request,
        _now: i64,
        _: Option<&mut QuoteDetail>,
    ) -> Option<Quote> {
        let ok = plan.feasible_starts(r);
        ok.iter().position(|&b| b).map(|i| Quote {
            start: r.s + i as i64,
            price: self.p_fix * r.work(),
        })
    }
}
