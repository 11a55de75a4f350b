//! ERA's plan and `makeReservation` (seed 004 §2.3, §3.1; ALGORITHMS.md §6.1, §6.3): BASIC_ECON,
//! GREEDY_FIRSTFIT and ON_DEMAND behind one [`Scheduler`]. A quote (start and price) is computed without the
//! request's value; the value is used only in the final comparison `V ≥ price`, so the mechanism is
//! value-monotone (truthful in V).

use super::demand::{DemandPredictor, LinearTable, Periodic, Table};
use super::jobs::{Request, Setup};
use super::lp::{solve, spread_entries};
use super::policies::resolve::resolve;
use super::policies::{Algorithm, Policy, Predictor, QuotePolicy};
pub use super::policies::{Decision, Plan, Quote, QuoteDetail, TIE_REL};
use crate::experiment::RunError;
use serde::{Deserialize, Serialize};

/// Number of prediction periods the set-up spans (at least 2: the history and one scheduled period).
pub fn periods(setup: &Setup) -> i64 {
    ((setup.end + setup.period - 1) / setup.period).max(2)
}

/// The requests that arrived in period `k − 1` (the history of period `k`).
pub fn history(setup: &Setup, k: i64) -> Vec<&Request> {
    setup
        .requests
        .iter()
        .filter(|r| r.arrival.div_euclid(setup.period) == k - 1)
        .collect()
}

/// The LP predictor's entries for periods 1, 2, … (index k − 1: the LP of period k − 1's requests at a
/// capacity, `C` or `κ_use·C`, ALGORITHMS.md §6.2) and each LP's optimal value, dollars.
#[derive(Clone, Debug, Default)]
pub struct LpEntries {
    /// Entries per period.
    pub entries: Vec<Vec<super::lp::Entry>>,
    /// Optimal value per period.
    pub values: Vec<f64>,
}

/// Solves the LP of every period at capacity `capacity` units (`C`, or `κ_use·C` floored; on up to
/// `threads` threads; the same result on any number). Errors: an LP failure or size limit.
pub fn lp_entries(
    setup: &Setup,
    capacity: f64,
    bucket: i64,
    threads: usize,
) -> Result<LpEntries, RunError> {
    let ks: Vec<i64> = (1..periods(setup)).collect();
    let nb = setup.period / bucket;
    let out = crate::experiment::map_parallel(threads, &ks, |&k| {
        solve(&history(setup, k), capacity, bucket, nb)
    });
    let mut e = LpEntries::default();
    for r in out {
        let (entries, value) = r?;
        e.entries.push(entries);
        e.values.push(value);
    }
    Ok(e)
}

/// One policy's scheduler: the plan and the policy's quotes ([`super::policies`]).
pub struct Scheduler {
    /// The policy.
    pub policy: Policy,
    /// The plan.
    pub plan: Plan,
    /// The policy's quotes (BASIC_ECON's with its demand predictor).
    quoter: Box<dyn QuotePolicy>,
    /// Σ over periods of the LP's optimal value (LP predictor only), dollars.
    pub lp_value: f64,
}

impl Scheduler {
    /// The scheduler of `policy` at capacity fraction `kappa` on `setup`; fits the spreading predictor, or
    /// takes the LP predictor's entries per period from `lp` (index k − 1 for period k: [`lp_entries`]).
    /// With `horizon_aware`, the predictor predicts no arrivals at or after `setup.end`
    /// ([`super::Horizon::NoArrivals`]). A script policy runs `script`, its compiled source. Errors: the
    /// linear predictor without known distributions, missing LP entries, a script policy without its source.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        setup: &Setup,
        policy: Policy,
        kappa: f64,
        bucket: i64,
        gamma_pen: f64,
        lp: Option<&LpEntries>,
        horizon_aware: bool,
        script: Option<std::sync::Arc<crate::script::Script>>,
    ) -> Result<Scheduler, RunError> {
        if policy.algorithm == Algorithm::Script && script.is_none() {
            return Err(RunError::field(
                "era.policies",
                format!("'{}' names no script of era.scripts", policy.name()),
            ));
        }
        let end = horizon_aware.then_some(setup.end);
        let cap = (kappa * setup.capacity + 1e-9).floor();
        let horizon = setup.requests.iter().map(|r| r.d).max().unwrap_or(0) + 1;
        let period = setup.period;
        let nb = period / bucket;
        let (p_min, p_max) = (setup.prices.p_min, setup.prices.p_max);
        let mut lp_value = 0.0;
        let periodic = |tables: Vec<Option<Table>>| -> Option<Box<dyn DemandPredictor>> {
            Some(Box::new(Periodic { period, tables }))
        };
        let pricing: Option<Box<dyn DemandPredictor>> = match (policy.algorithm, policy.predictor) {
            (Algorithm::BasicEcon, Predictor::Linear) => {
                let dist = setup.dist.as_ref().ok_or_else(|| {
                    RunError::field(
                        "era.policies",
                        "the linear predictor needs E4.3's known job distributions",
                    )
                })?;
                Some(Box::new(LinearTable::new(dist, p_min, p_max).with_end(end)))
            }
            (Algorithm::BasicEcon, Predictor::Lp) => {
                let lp = lp
                    .ok_or_else(|| RunError::msg("the LP predictor's entries were not computed"))?;
                lp_value = lp.values.iter().sum();
                periodic(
                    lp.entries
                        .iter()
                        .map(|e| Some(Table::new(e, bucket, nb, p_min, p_max).with_end(end)))
                        .collect(),
                )
            }
            (Algorithm::BasicEcon, Predictor::Spread) => periodic(
                (1..periods(setup))
                    .map(|k| {
                        Some(
                            Table::new(
                                &spread_entries(&history(setup, k), bucket),
                                bucket,
                                nb,
                                p_min,
                                p_max,
                            )
                            .with_end(end),
                        )
                    })
                    .collect(),
            ),
            _ => None,
        };
        let quoter = resolve(&policy, setup.prices, pricing, gamma_pen, script);
        Ok(Scheduler {
            policy,
            plan: Plan {
                cap,
                load: vec![0.0; horizon as usize],
            },
            quoter,
            lp_value,
        })
    }

    /// The script policy's first run-time error, taken once (`None` for a built-in policy).
    pub fn take_error(&mut self) -> Option<String> {
        self.quoter.take_error()
    }

    /// Feasible starts of `r` ([`Plan::feasible_starts`]).
    pub fn feasible_starts(&self, r: &Request) -> Vec<bool> {
        self.plan.feasible_starts(r)
    }

    /// The quote of `r` at slot `now` — computed without `r.value` (never read here). `None` when no start
    /// is feasible (or, for on-demand, the current slot lacks room). With `detail`, the per-slot prices.
    pub fn quote(
        &mut self,
        r: &Request,
        now: i64,
        detail: Option<&mut QuoteDetail>,
    ) -> Option<Quote> {
        self.quoter.quote(&self.plan, r, now, detail)
    }

    /// The decision on `r` at `now` without committing: the quote, then accept iff `V_j ≥ P_j`.
    pub fn decide(&mut self, r: &Request, now: i64) -> Decision {
        let quote = self.quote(r, now, None);
        Decision {
            accept: quote.is_some_and(|q| r.value >= q.price),
            quote,
        }
    }

    /// `makeReservation(j)` (§6.1): [`Scheduler::decide`], committing `W_j` on `[x*, x* + T_j)` when
    /// accepted.
    pub fn make_reservation(&mut self, r: &Request, now: i64) -> Decision {
        let d = self.decide(r, now);
        if let (true, Some(q)) = (d.accept, d.quote) {
            self.plan.commit(q.start, r.t, r.w);
        }
        d
    }
}

/// The teaching view of one request (the run operation `request`): the plan around its window, the
/// per-slot block prices, the price of each start, the decision, and the truthfulness check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestView {
    /// The policy's name.
    pub policy: String,
    /// κ_use.
    pub kappa: f64,
    /// The request.
    pub request: Option<Request>,
    /// Its index among the scheduled requests.
    pub index: usize,
    /// Slot of the decision (= arrival).
    pub now: i64,
    /// First slot shown (the window start).
    pub from: i64,
    /// Planned capacity `κ_use·C`, units.
    pub cap: f64,
    /// `C`, units.
    pub capacity: f64,
    /// Committed load `L(τ)` per slot from `from` (before the decision).
    pub load: Vec<f64>,
    /// Per-slot prices and the price of each start.
    pub detail: QuoteDetail,
    /// The decision.
    pub decision: Option<Decision>,
    /// The same request at other stated values (multiples of its value): `(multiple, accepted, price)` —
    /// raising the value never rejects and never changes the price.
    pub truthful: Vec<(f64, bool, Option<f64>)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::era::jobs::{test_request as req, test_setup};

    /// Periods of 4 slots, capacity `cap`; the history (period 0) holds one request of 2 units × 2 slots over
    /// [0, 4) at $5 per unit-slot: spread, 1 unit per slot at $5 in every slot of a period.
    fn setup(cap: f64, requests: Vec<Request>) -> Setup {
        let mut all = vec![req(0, 0, 2.0, 2, 4, 20.0)];
        all.extend(requests);
        test_setup(all, 4, 12, cap, Vec::new())
    }

    fn sched(s: &Setup, name: &str) -> Scheduler {
        Scheduler::new(
            s,
            Policy::parse(name).unwrap(),
            1.0,
            1,
            0.5,
            None,
            false,
            None,
        )
        .unwrap()
    }

    /// Hand-worked BASIC_ECON prices: with 2 units free the 1st extra unit displaces rank 2 of a predicted
    /// demand of 1 unit (price 0); with 1 unit free it displaces the predicted $5 unit.
    #[test]
    fn basic_econ_prices_by_hand() {
        let r = req(1, 4, 1.0, 2, 8, 100.0);
        let s = setup(2.0, vec![r.clone()]);
        let mut sc = sched(&s, "basic-econ:spread");
        assert_eq!(
            sc.quote(&r, 4, None),
            Some(Quote {
                start: 4,
                price: 0.0
            })
        );
        let s = setup(1.0, vec![r.clone()]);
        let mut sc = sched(&s, "basic-econ:spread");
        // 2 slots × $5
        assert_eq!(
            sc.quote(&r, 4, None),
            Some(Quote {
                start: 4,
                price: 10.0
            })
        );
        // slot 4 taken: the cheapest feasible start is 5
        sc.plan.commit(4, 1, 1.0);
        assert_eq!(
            sc.quote(&r, 4, None),
            Some(Quote {
                start: 5,
                price: 10.0
            })
        );
        // a request arriving later sees less predicted demand: at now = 6 the history entries of lag < 2 have
        // arrived before now's bucket and no longer count at slots 6 and 7 (δ = 0, 1)
        let late = req(2, 6, 1.0, 2, 8, 100.0);
        let d = sc.quote(&late, 6, None).unwrap();
        assert_eq!(d.start, 6);
        // slot 6: δ = 0 → only the lag-2 entry (bucket 2 ≡ 6 mod 4, lag 2 > 0: excluded) → price 0;
        // slot 7: δ = 1 → the lag-3 entry is excluded too → price 0
        assert_eq!(d.price, 0.0);
        // the exponential penalty multiplies price(x) by exp(γ·(x − s)/(d − s)): start 5 of [4, 8) → e^{0.125}
        let s = setup(1.0, vec![r.clone()]);
        let mut sc = sched(&s, "basic-econ:spread:penalty");
        sc.plan.commit(4, 1, 1.0);
        let q = sc.quote(&r, 4, None).unwrap();
        assert_eq!(q.start, 5);
        assert!(
            (q.price - 10.0 * (0.5f64 * 0.25).exp()).abs() < 1e-12,
            "{q:?}"
        );
    }

    /// Ties go to the earliest start despite rounding (§6.3 step 5): with a floor of $0.65 (not a dyadic
    /// fraction) and no predicted demand at the ranks a 3-unit job displaces, every block costs 3 × 0.65 and
    /// every start of a 7-slot job costs 7 × 3 × 0.65 = 13.65 by hand; the free units differ per slot (earlier
    /// commitments), so the sums round differently, and the earliest start must still win.
    #[test]
    fn equal_prices_go_to_the_earliest_start() {
        let r = req(1, 4, 3.0, 7, 204, 100.0);
        let mut s = setup(60.0, vec![r.clone()]);
        s.prices.p_min = 0.65;
        let mut sc = sched(&s, "basic-econ:spread");
        for x in 4..204 {
            // 0..=9 units taken: 50..=60 free, all ranks displaced ≥ 48 > the predicted 1 unit
            sc.plan.commit(x, 1, ((x * 7) % 10) as f64);
        }
        let mut detail = QuoteDetail::default();
        let q = sc.quote(&r, 4, Some(&mut detail)).unwrap();
        let starts: Vec<f64> = detail.starts.iter().map(|p| p.unwrap()).collect();
        assert!(
            starts.iter().all(|p| (p - 13.65).abs() < 1e-9),
            "{starts:?}"
        );
        // the rounding does differ between starts (else this test would not test the tolerance)
        assert!(starts.iter().any(|p| *p != starts[0]), "{starts:?}");
        assert_eq!(q.start, 4, "{q:?}");
        assert!((q.price - 13.65).abs() < 1e-9);
    }

    /// Greedy takes the earliest feasible start at the fixed price; on-demand looks at the current slot only.
    #[test]
    fn greedy_and_on_demand_by_hand() {
        let r = req(1, 4, 2.0, 2, 10, 1.0);
        let s = setup(3.0, vec![r.clone()]);
        let mut g = sched(&s, "greedy");
        g.plan.commit(4, 2, 2.0); // slots 4, 5 have 1 unit left
        let q = g.quote(&r, 4, None).unwrap();
        assert_eq!(
            q,
            Quote {
                start: 6,
                price: 0.5 * 4.0
            }
        );
        // value 1 < price 2: rejected, nothing committed
        let d = g.make_reservation(&r, 4);
        assert!(!d.accept);
        assert_eq!(g.plan.remaining(6), 3.0);
        let mut o = sched(&s, "on-demand");
        o.plan.commit(4, 1, 2.0);
        assert_eq!(o.quote(&r, 4, None), None);
        assert_eq!(
            o.quote(&r, 5, None),
            Some(Quote {
                start: 5,
                price: 4.0
            })
        );
        // feasible starts: window [4, 10), T = 2 → starts 4..=8
        assert_eq!(g.feasible_starts(&r), vec![false, false, true, true, true]);
    }

    proptest::proptest! {
        /// Value monotonicity (truthfulness in V, seed 004 §3.1): on any plan, stating a higher value never
        /// turns an accept into a reject, and the quote (start and price) never depends on the value.
        #[test]
        fn higher_values_never_reject_or_reprice(
            loads in proptest::collection::vec((4i64..40, 1i64..6, 1.0f64..3.0), 0..12),
            a in 4i64..30, w in 1.0f64..3.0, t in 1i64..5, slack in 0i64..10,
            v in 0.0f64..50.0, m in 1.0f64..10.0, policy in 0usize..5, horizon: bool,
        ) {
            let names = ["greedy", "on-demand", "basic-econ:spread", "basic-econ:spread:penalty", "basic-econ:lp"];
            let r = req(1, a, w.floor(), t, a + t + slack, v);
            let s = setup(3.0, vec![r.clone()]);
            let lp = lp_entries(&s, s.capacity, 1, 1).unwrap();
            let mut sc = Scheduler::new(&s, Policy::parse(names[policy]).unwrap(), 1.0, 1, 0.5, Some(&lp), horizon, None).unwrap();
            for (x, len, u) in loads {
                sc.plan.commit(x, len, u.floor());
            }
            let lo = sc.decide(&r, a);
            let hi = sc.decide(&Request { value: v * m, ..r.clone() }, a);
            proptest::prop_assert_eq!(lo.quote, hi.quote);
            proptest::prop_assert!(!lo.accept || hi.accept);
        }
    }
}
