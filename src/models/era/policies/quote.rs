//! What a reservation policy sees and gives (seed 004 §3.1; ALGORITHMS.md §6.3): the plan ([`Plan`]), the
//! quote ([`Quote`]: start and price, computed without the request's value) and the trait every policy
//! implements ([`QuotePolicy`]).

use crate::models::era::jobs::Request;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The plan: committed load `L(τ)` per slot against the planned capacity `κ_use·C` (units, floored to an
/// integer).
#[derive(Clone, Debug)]
pub struct Plan {
    /// `κ_use·C`, units.
    pub cap: f64,
    /// `L(τ)` for `τ` in `0..load.len()`.
    pub load: Vec<f64>,
}

impl Plan {
    /// Remaining capacity `R(τ) = κ_use·C − L(τ)`.
    pub fn remaining(&self, t: i64) -> f64 {
        self.cap - self.load.get(t as usize).copied().unwrap_or(0.0)
    }

    /// Commits `w` units on `[x, x + t)`.
    pub fn commit(&mut self, x: i64, t: i64, w: f64) {
        let end = (x + t) as usize;
        if self.load.len() < end {
            self.load.resize(end, 0.0);
        }
        for l in &mut self.load[x as usize..end] {
            *l += w;
        }
    }

    /// Feasible starts of `r` (ALGORITHMS.md §6.3 step 1): `x ∈ [s, d − T]` with `R(τ) ≥ W` on `[x, x + T)`,
    /// by a sliding-window minimum over `[s, d)` (O(d − s)).
    pub fn feasible_starts(&self, r: &Request) -> Vec<bool> {
        let n = (r.d - r.t - r.s + 1).max(0) as usize;
        let mut out = vec![false; n];
        let mut q: VecDeque<i64> = VecDeque::new();
        for tau in r.s..r.d {
            let rem = self.remaining(tau);
            while q.back().is_some_and(|&b| self.remaining(b) >= rem) {
                q.pop_back();
            }
            q.push_back(tau);
            let x = tau - r.t + 1;
            if x >= r.s {
                while q.front().is_some_and(|&f| f < x) {
                    q.pop_front();
                }
                let min = self.remaining(*q.front().expect("non-empty"));
                out[(x - r.s) as usize] = min >= r.w;
            }
        }
        out
    }
}

/// A quote: the start `x*` and the price `P_j` (dollars).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quote {
    /// Start slot.
    pub start: i64,
    /// Price, dollars.
    pub price: f64,
}

/// The outcome of `makeReservation`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Accepted?
    pub accept: bool,
    /// The quote (absent when no start is feasible).
    pub quote: Option<Quote>,
}

/// Per-slot detail of a BASIC_ECON quote (the teaching view).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QuoteDetail {
    /// Block price `b_τ` per slot of the window (`None` where `R(τ) < W`).
    pub block: Vec<Option<f64>>,
    /// `price(x)` per start `x` of `[s, d − T]` (`None` where infeasible).
    pub starts: Vec<Option<f64>>,
}

/// Relative tolerance under which two BASIC_ECON start prices count as equal (a tie goes to the earliest
/// start, ALGORITHMS.md §6.3 step 5); far above the rounding of the prefix-sum differences, far below any
/// price difference that matters ($1e-9 per $1 of the window's block prices).
pub const TIE_REL: f64 = 1e-9;

/// A reservation policy's quote (ALGORITHMS.md §6.3 steps 1–5): one implementation per policy file,
/// resolved from the policy's spec ([`super::resolve`]).
pub trait QuotePolicy {
    /// The quote of `r` at slot `now` under `plan` — computed without `r.value`. `None` when no start is
    /// feasible. With `detail`, the per-slot prices (BASIC_ECON).
    fn quote(
        &mut self,
        plan: &Plan,
        r: &Request,
        now: i64,
        detail: Option<&mut QuoteDetail>,
    ) -> Option<Quote>;

    /// A user's script's first run-time error ("line L, column C: …" where known), taken once; `None` for
    /// the built-in policies, which cannot fail.
    fn take_error(&mut self) -> Option<String> {
        None
    }
}
