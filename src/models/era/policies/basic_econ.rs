//! BASIC_ECON (seed 004 §3.1, Alg. 1; ALGORITHMS.md §6.3): block prices from the predicted demand curve
//! per slot of the window, the cheapest feasible start (ties to the earliest), optionally weighted by the
//! late-start penalty `exp(γ_pen·(x − s)/(d − s))`.

use super::quote::{Plan, Quote, QuoteDetail, QuotePolicy, TIE_REL};
use crate::models::era::demand::DemandPredictor;
use crate::models::era::jobs::Request;

/// BASIC_ECON with its demand predictor (§6.2) and penalty.
pub struct BasicEcon {
    /// The demand predictor whose curves price a slot.
    pub pricing: Box<dyn DemandPredictor>,
    /// Whether prices carry the late-start penalty.
    pub penalty: bool,
    /// γ_pen.
    pub gamma_pen: f64,
}

impl QuotePolicy for BasicEcon {
    fn quote(
        &mut self,
        plan: &Plan,
        r: &Request,
        now: i64,
        detail: Option<&mut QuoteDetail>,
    ) -> Option<Quote> {
        let ok = plan.feasible_starts(r);
        if !ok.iter().any(|&b| b) {
            if let Some(d) = detail {
                d.starts = vec![None; ok.len()];
                d.block = vec![None; (r.d - r.s) as usize];
            }
            return None;
        }
        let len = (r.d - r.s) as usize;
        let mut block = vec![f64::NAN; len];
        let pricing = &mut self.pricing;
        for (i, b) in block.iter_mut().enumerate() {
            let tau = r.s + i as i64;
            let rem = plan.remaining(tau);
            if rem < r.w {
                continue;
            }
            let curve = pricing.curve(tau, now);
            *b = curve.block_price(rem.floor(), r.w);
        }
        // sliding sums over [x, x + T)
        let mut prefix = Vec::with_capacity(len + 1);
        prefix.push(0.0f64);
        for b in &block {
            let last = *prefix.last().expect("non-empty");
            prefix.push(last + if b.is_nan() { 0.0 } else { *b });
        }
        let span = (r.d - r.s) as f64;
        // Equal prices must compare equal so that ties go to the earliest start (§6.3 step 5): window
        // sums are differences of prefix sums of block prices, themselves differences of a curve's
        // prefix sums, so equal sums differ by rounding of the order ε × (the largest prefix); a
        // start wins only when cheaper by more than TIE_REL of the window's total.
        let tol = TIE_REL * prefix.last().copied().unwrap_or(0.0).abs();
        let mut best: Option<Quote> = None;
        let mut starts = Vec::with_capacity(ok.len());
        for (i, &feasible) in ok.iter().enumerate() {
            if !feasible {
                starts.push(None);
                continue;
            }
            let sum = prefix[i + r.t as usize] - prefix[i];
            let pen = if self.penalty {
                libm::exp(self.gamma_pen * i as f64 / span)
            } else {
                1.0
            };
            let price = sum * pen;
            starts.push(Some(price));
            if best.is_none_or(|b| price < b.price - tol * pen) {
                best = Some(Quote {
                    start: r.s + i as i64,
                    price,
                });
            }
        }
        if let Some(d) = detail {
            d.block = block.iter().map(|b| (!b.is_nan()).then_some(*b)).collect();
            d.starts = starts;
        }
        best
    }
}
