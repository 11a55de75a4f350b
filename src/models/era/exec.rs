//! The execution layer and the metrics (seed 004 §2.3.2, §4; ALGORITHMS.md §6.3 "Execution layer", §6.4).
//! Each slot the cloud serves up to the actual capacity `C_act(τ)`: first the jobs due by the plan (inside
//! their planned run, or delayed), in order of earliest deadline, then — work-conserving — accepted jobs
//! ahead of their planned start, again by deadline. A job takes at most `W_j` units per slot; an under-served
//! job keeps its remaining work; a job is late if it completes after `d_j`.

use super::jobs::Setup;
use super::params::{EraParams, Policy};
use super::sched::{Decision, LpEntries, QuoteDetail, RequestView, Scheduler};
use crate::experiment::RunError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One (policy, κ_use) cell: the metrics of §6.4 and what explains them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// The policy's name.
    pub policy: String,
    /// κ_use.
    pub kappa: f64,
    /// Requests scheduled.
    pub requests: usize,
    /// Requests accepted.
    pub accepted: usize,
    /// Value efficiency: Σ V of accepted jobs completed by their deadline / Σ V of all requests.
    pub value_efficiency: f64,
    /// Accepted revenue Σ P_j, dollars.
    pub revenue: f64,
    /// Late jobs, percent of accepted.
    pub late_pct: f64,
    /// Late jobs.
    pub late: usize,
    /// Accepted jobs planned to start at their last feasible start `d − T` although their window had slack
    /// (`d − s > T`): zero slack left against any shortfall of the actual capacity.
    pub zero_slack_starts: usize,
    /// Σ allocated / Σ C over the scheduled window.
    pub utilization: f64,
    /// Σ allocated over the whole run, unit-slots (the total allocation of §6.4).
    pub total_allocation: f64,
    /// Σ W·T of the accepted jobs, unit-slots (equals `total_allocation`: every accepted job completes).
    pub accepted_work: f64,
    /// Mean price per accepted unit-slot, dollars.
    pub mean_unit_price: f64,
    /// Per class (E4.1: fb-0 … fb-5; E4.3: one): accepted requests.
    pub accepted_by_class: Vec<usize>,
    /// Per class: share of the class's value completed on time.
    pub efficiency_by_class: Vec<f64>,
    /// Σ of the LP's optimal values over the periods (LP predictor), dollars.
    pub lp_value: f64,
    /// Requests checked for truthfulness (every 25th: the same request at 0.5×, 2× and 10× its value on the
    /// same plan).
    pub truthful_checks: usize,
    /// Checks where a higher value rejected or changed the price (0 for a value-monotone mechanism).
    pub truthful_violations: usize,
    /// A `script:NAME` policy's first run-time error ("line L, column C: …" where known; issue 31): it quoted
    /// nothing from then on, so every later request was rejected; the other cells are as without it. Absent
    /// when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `r` stating `value` instead.
fn with_value(r: &super::jobs::Request, value: f64) -> super::jobs::Request {
    super::jobs::Request { value, ..r.clone() }
}

struct Live {
    request: usize,
    w: f64,
    rem: f64,
    x: i64,
    d: i64,
}

/// The cloud side of ERA (seed 004 §2.3.2): the accepted jobs with their planned starts and remaining work,
/// the actual capacity (`update`) and the service of each slot (`get_current_allocation`).
#[derive(Default)]
pub struct Cloud {
    live: Vec<Live>,
    active: BTreeSet<(i64, usize)>,
    capacity: f64,
}

/// A job that completed in the slot just served.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Completion {
    /// The request's id.
    pub request: usize,
    /// Whether it completed after its deadline.
    pub late: bool,
}

impl Cloud {
    /// An accepted request enters execution with its planned start `start`.
    pub fn admit(&mut self, r: &super::jobs::Request, start: i64) {
        self.active.insert((r.d, self.live.len()));
        self.live.push(Live {
            request: r.id,
            w: r.w,
            rem: r.work(),
            x: start,
            d: r.d,
        });
    }

    /// `update(state)`: the actual capacity `C_act` of the coming slot, units.
    pub fn update(&mut self, actual_capacity: f64) {
        self.capacity = actual_capacity;
    }

    /// True while an accepted job has work left.
    pub fn busy(&self) -> bool {
        !self.active.is_empty()
    }

    /// `getCurrentAllocation(τ)`: serves slot τ up to the actual capacity — first the jobs due by the plan
    /// (`τ ≥ x_j`), by earliest deadline, then jobs ahead of their start (work-conserving), each at most `W_j`
    /// units — and returns `(request id, units)` per served job, with the jobs that completed (at τ + 1).
    pub fn get_current_allocation(&mut self, tau: i64) -> (Vec<(usize, f64)>, Vec<Completion>) {
        let mut cap = self.capacity;
        let mut alloc = Vec::new();
        let mut done = Vec::new();
        for early in [false, true] {
            for &(_, i) in self.active.iter() {
                if cap <= 0.0 {
                    break;
                }
                let j = &mut self.live[i];
                if j.rem <= 1e-9 || (tau < j.x) != early {
                    continue;
                }
                let u = j.w.min(j.rem).min(cap);
                j.rem -= u;
                cap -= u;
                alloc.push((j.request, u));
                if j.rem <= 1e-9 {
                    done.push(i);
                }
            }
        }
        let completions = done
            .into_iter()
            .map(|i| {
                let j = &self.live[i];
                self.active.remove(&(j.d, i));
                Completion {
                    request: j.request,
                    late: tau >= j.d,
                }
            })
            .collect();
        (alloc, completions)
    }
}

/// Simulates one cell: requests arriving in the scheduled periods get `makeReservation` at their arrival
/// slot, the execution layer serves every slot until all accepted jobs complete. `lp`: the LP predictor's
/// entries (needed by `basic-econ:lp` only); a `script:NAME` policy's source is `params.scripts`'. With
/// `stop_at = Some(k)`,
/// returns the teaching view of the k-th scheduled request instead (the plan just before it).
pub fn run_cell(
    setup: &Setup,
    params: &EraParams,
    policy: Policy,
    kappa: f64,
    lp: Option<&LpEntries>,
    stop_at: Option<usize>,
) -> Result<(CellResult, Option<RequestView>), RunError> {
    let bucket = params.lp_bucket_min.round() as i64;
    let script = params.script_of(&policy);
    let mut sch = Scheduler::new(
        setup,
        policy.clone(),
        kappa,
        bucket,
        params.gamma_pen,
        lp,
        params.horizon == super::Horizon::NoArrivals,
        script,
    )?;
    let sched: Vec<&super::jobs::Request> = setup
        .requests
        .iter()
        .filter(|r| r.arrival >= setup.period)
        .collect();
    let nclass = sched
        .iter()
        .map(|r| r.class as usize + 1)
        .max()
        .unwrap_or(1);
    let mut res = CellResult {
        policy: policy.name(),
        kappa,
        requests: sched.len(),
        accepted_by_class: vec![0; nclass],
        lp_value: sch.lp_value,
        ..CellResult::default()
    };
    let total_value: f64 = sched.iter().map(|r| r.value).sum();
    let mut class_value = vec![0.0; nclass];
    for r in &sched {
        class_value[r.class as usize] += r.value;
    }
    let mut class_done = vec![0.0; nclass];
    let mut cloud = Cloud::default();
    let (mut on_time_value, mut window_served) = (0.0, 0.0);
    let mut next = 0usize;
    let mut tau = setup.period;
    let limit = setup.requests.iter().map(|r| r.d).max().unwrap_or(0) + 2 * super::MAX_SLOTS;
    while next < sched.len() || cloud.busy() {
        while next < sched.len() && sched[next].arrival <= tau {
            let r = sched[next];
            if stop_at == Some(next) {
                let mut detail = QuoteDetail::default();
                let from = r.s;
                let load = (from..r.d.max(from + 1))
                    .map(|t| sch.plan.cap - sch.plan.remaining(t))
                    .collect();
                let quote = sch.quote(r, tau, Some(&mut detail));
                let decision = Decision {
                    accept: quote.is_some_and(|q| r.value >= q.price),
                    quote,
                };
                let truthful = [0.5, 1.0, 2.0, 10.0]
                    .iter()
                    .map(|&m| {
                        let d = sch.decide(&with_value(r, r.value * m), tau);
                        (m, d.accept, d.quote.map(|q| q.price))
                    })
                    .collect();
                return Ok((
                    res,
                    Some(RequestView {
                        policy: policy.name(),
                        kappa,
                        request: Some(r.clone()),
                        index: next,
                        now: tau,
                        from,
                        cap: sch.plan.cap,
                        capacity: setup.capacity,
                        load,
                        detail,
                        decision: Some(decision),
                        truthful,
                    }),
                ));
            }
            if next % 25 == 0 {
                // the same request stating other values, on the same plan: the price never moves and a higher
                // value never turns an accept into a reject
                res.truthful_checks += 1;
                let base = sch.decide(r, tau);
                let mut ok = true;
                for m in [0.5, 2.0, 10.0] {
                    let d = sch.decide(&with_value(r, r.value * m), tau);
                    ok &= d.quote.map(|q| q.price) == base.quote.map(|q| q.price)
                        && d.quote.map(|q| q.start) == base.quote.map(|q| q.start)
                        && !(m > 1.0 && base.accept && !d.accept);
                }
                if !ok {
                    res.truthful_violations += 1;
                }
            }
            let dec = sch.make_reservation(r, tau);
            if let (true, Some(q)) = (dec.accept, dec.quote) {
                res.accepted += 1;
                res.accepted_by_class[r.class as usize] += 1;
                res.revenue += q.price;
                res.accepted_work += r.work();
                if q.start == r.d - r.t && r.d - r.s > r.t {
                    res.zero_slack_starts += 1;
                }
                cloud.admit(r, q.start);
            }
            next += 1;
        }
        // serve slot τ
        cloud.update(setup.actual_at(tau));
        let (alloc, completions) = cloud.get_current_allocation(tau);
        let served: f64 = alloc.iter().map(|a| a.1).sum();
        for c in completions {
            let r = &setup.requests[c.request];
            if c.late {
                res.late += 1;
            } else {
                on_time_value += r.value;
                class_done[r.class as usize] += r.value;
            }
        }
        res.total_allocation += served;
        if tau < setup.end {
            window_served += served;
        }
        tau += 1;
        if tau > limit {
            return Err(RunError::msg(
                "the execution layer did not finish (no capacity)",
            ));
        }
    }
    let window = (setup.end - setup.period) as f64 * setup.capacity;
    res.value_efficiency = on_time_value / total_value.max(1e-300);
    res.late_pct = if res.accepted > 0 {
        100.0 * res.late as f64 / res.accepted as f64
    } else {
        0.0
    };
    res.utilization = window_served / window.max(1e-300);
    res.mean_unit_price = if res.accepted_work > 0.0 {
        res.revenue / res.accepted_work
    } else {
        0.0
    };
    res.efficiency_by_class = class_done
        .iter()
        .zip(&class_value)
        .map(|(d, v)| if *v > 0.0 { d / v } else { 0.0 })
        .collect();
    res.error = sch.take_error();
    Ok((res, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::era::jobs::{test_setup, Request};

    /// By hand: capacity 2, actual capacity 1 in slots 4 and 5. Greedy accepts A (2 units × 2 slots in
    /// [4, 6)) at 4 and B (1 × 1 in [4, 10)) at its earliest free slot 6. Slots 4, 5: A gets 1 unit each (B is
    /// ahead of its start, nothing left); slot 6: EDF serves A (deadline 6) first, 2 units — it completes at
    /// 7 > 6, late; slot 7: B, on time. Allocation 1 + 1 + 2 + 1 = 5 = the accepted work.
    #[test]
    fn execution_under_shortage_by_hand() {
        let r = |id, w, t, d| Request {
            id,
            arrival: 4,
            w,
            t,
            s: 4,
            d,
            value: 100.0,
            class: 0,
        };
        let setup = test_setup(
            vec![r(0, 2.0, 2, 6), r(1, 1.0, 1, 10)],
            4,
            8,
            2.0,
            vec![2.0, 2.0, 2.0, 2.0, 1.0, 1.0],
        );
        let p = EraParams {
            lp_bucket_min: 1.0,
            period_h: 4.0 / 60.0,
            ..EraParams::default()
        };
        let (c, _) = run_cell(
            &setup,
            &p,
            Policy::parse("greedy").unwrap(),
            1.0,
            None,
            None,
        )
        .unwrap();
        assert_eq!((c.accepted, c.late), (2, 1));
        assert_eq!(c.late_pct, 50.0);
        assert_eq!(c.total_allocation, 5.0);
        assert_eq!(c.accepted_work, 5.0);
        assert_eq!(c.value_efficiency, 0.5);
        assert_eq!(c.revenue, 0.5 * 5.0);
        // served inside the scheduled window [4, 8): 1 + 1 + 2 + 1 of 4 slots × 2 units
        assert_eq!(c.utilization, 5.0 / 8.0);
        // the teaching view of B: its plan (A committed on 4, 5), its quote at slot 6
        let (_, v) = run_cell(
            &setup,
            &p,
            Policy::parse("greedy").unwrap(),
            1.0,
            None,
            Some(1),
        )
        .unwrap();
        let v = v.unwrap();
        assert_eq!(v.load[..3], [2.0, 2.0, 0.0]);
        assert_eq!(v.decision.unwrap().quote.unwrap().start, 6);
        assert!(v.truthful.iter().all(|t| t.2 == Some(0.5)));
        assert_eq!(
            v.truthful.iter().map(|t| t.1).collect::<Vec<_>>(),
            [true, true, true, true]
        );
    }
}
