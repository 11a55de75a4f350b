//! ON_DEMAND (seed 004 §4; ALGORITHMS.md §6.3): accept iff the current slot has room, at the on-demand price
//! `p_full·W·T`.

use super::quote::{Plan, Quote, QuoteDetail, QuotePolicy};
use crate::models::era::jobs::Request;

/// ON_DEMAND with the on-demand price `p_full` (dollars per unit-slot).
#[derive(Clone, Copy, Debug)]
pub struct OnDemand {
    /// `p_full`.
    pub p_full: f64,
}

impl QuotePolicy for OnDemand {
    fn quote(
        &mut self,
        plan: &Plan,
        r: &Request,
        now: i64,
        _: Option<&mut QuoteDetail>,
    ) -> Option<Quote> {
        (plan.remaining(now) >= r.w).then_some(Quote {
            start: now,
            price: self.p_full * r.work(),
        })
    }
}
