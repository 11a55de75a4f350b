//! The LP of the LP-based demand predictor (seed 004 §3.2, ALGORITHMS.md §6.2): the value-maximising
//! fractional allocation of one period's requests, on a time axis of buckets of `G` slots,
//!
//! ```text
//! max  Σ_j v_j·Σ_b y_{j,b}
//! s.t. Σ_{j,b: b ≡ r (mod nb)} y_{j,b} ≤ C·G        for every bucket r of the period
//!      Σ_b y_{j,b} ≤ W_j·T_j                         for every request j
//!      0 ≤ y_{j,b} ≤ W_j·min(o_{j,b}, T_j)
//! ```
//!
//! (`o_{j,b}` = slots of j's window in bucket b; the period's `nb` buckets wrap around, so work past the
//! period's end competes with its start: a stationary period). `f_j = Σ_b y_{j,b}/(W_j·T_j)`.
//!
//! Deviation from ALGORITHMS.md §6.2, on purpose: the specification bounds `y_{j,b} ≤ W_j·o_{j,b}·f_j` (a
//! fraction f of a job runs at most f·W wide). That coupling adds one row per (job, bucket), which made the
//! E4.3 LP (1,800 jobs per period, windows of several buckets) several times slower with Clarabel and
//! impractically slow with microlp. Here the bound is `W_j·min(o, T)`. At a vertex of this LP at most `nb`
//! jobs are fractional (one per capacity row), and for a job with `f_j = 1` both bounds coincide, so the two
//! LPs differ only through those few jobs (test `relaxed_rate_bound` shows one such case).
//!
//! Solved with `good_lp` and Clarabel (pure Rust, builds for wasm32); tests check it against a second
//! solver (microlp's simplex) and hand-solved instances.

use super::jobs::Request;
use crate::experiment::RunError;
use good_lp::{variable, Expression, ProblemVariables, Solution, SolverModel, Variable};

/// One demand entry of a predictor (LP or spreading): `demand` units per slot in bucket `bucket` (absolute,
/// slot `bucket·G` on) from a request of unit value `unit_value` that arrived in bucket `bucket − lag`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// Absolute bucket index.
    pub bucket: i64,
    /// Buckets since the request's arrival bucket (≥ 0).
    pub lag: i64,
    /// Unit value `v_j`, dollars per unit-slot.
    pub unit_value: f64,
    /// Units per slot.
    pub demand: f64,
}

/// The buckets `[first, last]` of `r`'s window and the slots of the window in bucket `b`.
fn window_buckets(r: &Request, g: i64) -> (i64, i64) {
    (r.s.div_euclid(g), (r.d - 1).div_euclid(g))
}

fn overlap(r: &Request, b: i64, g: i64) -> i64 {
    (r.d.min((b + 1) * g) - r.s.max(b * g)).max(0)
}

/// The spreading predictor's entries (ALGORITHMS.md §6.2): each request adds `W·T/(d − s)` units per slot of
/// its window.
pub fn spread_entries(requests: &[&Request], g: i64) -> Vec<Entry> {
    let mut out = Vec::new();
    for r in requests {
        let per_slot = r.work() / (r.d - r.s) as f64;
        let (b0, b1) = window_buckets(r, g);
        for b in b0..=b1 {
            let o = overlap(r, b, g);
            out.push(Entry {
                bucket: b,
                lag: b - r.arrival.div_euclid(g),
                unit_value: r.unit_value(),
                demand: per_slot * o as f64 / g as f64,
            });
        }
    }
    out
}

/// Most LP variables one solve may have (browser memory and time).
pub const MAX_LP_VARIABLES: usize = 400_000;

/// Solves the LP of `requests` with planned capacity `cap` units per slot, buckets of `g` slots, `nb` buckets
/// per period, with the solver `solver` (`good_lp::microlp` in the engine); returns the entries
/// `y*_{j,b}/G` per slot and the optimal value `Σ V_j f_j`. Errors: too many variables
/// ([`MAX_LP_VARIABLES`]), a solver failure (named).
pub fn solve_with<S, M>(
    requests: &[&Request],
    cap: f64,
    g: i64,
    nb: i64,
    solver: S,
) -> Result<(Vec<Entry>, f64), RunError>
where
    S: good_lp::solvers::Solver<Model = M>,
    M: SolverModel,
{
    let mut vars = ProblemVariables::new();
    // per request: its variables (bucket, y)
    let mut per: Vec<Vec<(i64, Variable)>> = Vec::with_capacity(requests.len());
    let mut objective = Expression::with_capacity(requests.len() * 2);
    let mut n_vars = 0usize;
    for r in requests {
        let (b0, b1) = window_buckets(r, g);
        n_vars += (b1 - b0 + 1) as usize;
        if n_vars > MAX_LP_VARIABLES {
            return Err(RunError::field(
                "era.lp_bucket_min",
                format!("the LP would need more than {MAX_LP_VARIABLES} variables: use larger buckets or shorter periods"),
            ));
        }
        let ys: Vec<(i64, Variable)> = (b0..=b1)
            .map(|b| {
                let y = vars.add(
                    variable()
                        .min(0.0)
                        .max(r.w * overlap(r, b, g).min(r.t) as f64),
                );
                objective.add_mul(r.unit_value(), y);
                (b, y)
            })
            .collect();
        per.push(ys);
    }
    let mut model = vars.maximise(objective).using(solver);
    let mut cap_rows: Vec<Expression> = (0..nb).map(|_| Expression::with_capacity(8)).collect();
    for (r, ys) in requests.iter().zip(&per) {
        for &(b, y) in ys {
            cap_rows[b.rem_euclid(nb) as usize].add_mul(1.0, y);
        }
        if ys.len() > 1 {
            let mut sum = Expression::with_capacity(ys.len());
            for &(_, y) in ys {
                sum.add_mul(1.0, y);
            }
            model.add_constraint(sum.leq(r.work()));
        }
    }
    for row in cap_rows {
        model.add_constraint(row.leq(cap * g as f64));
    }
    let sol = model
        .solve()
        .map_err(|e| RunError::msg(format!("the demand LP failed: {e}")))?;
    let mut out = Vec::new();
    let mut value = 0.0;
    for (r, ys) in requests.iter().zip(&per) {
        let a = r.arrival.div_euclid(g);
        for &(b, y) in ys {
            let y = sol.value(y);
            value += r.unit_value() * y;
            // below 1e-7 of the request's work is solver noise (an interior-point solution is never exactly 0)
            if y > 1e-7 * r.work() {
                out.push(Entry {
                    bucket: b,
                    lag: b - a,
                    unit_value: r.unit_value(),
                    demand: y / g as f64,
                });
            }
        }
    }
    Ok((out, value))
}

/// Convergence tolerance of the interior-point solve (feasibility and gap).
const LP_TOL: f64 = 1e-7;

/// [`solve_with`] with the engine's solver, Clarabel (an interior-point method: among optimal allocations
/// it returns a central one, which spreads predicted demand evenly over equally good slots instead of piling
/// it on one vertex, the instability seed 004 §3.2 worries about), at tolerance 1e-7.
pub fn solve(
    requests: &[&Request],
    cap: f64,
    g: i64,
    nb: i64,
) -> Result<(Vec<Entry>, f64), RunError> {
    solve_with(requests, cap, g, nb, |p| {
        let mut c = good_lp::clarabel(p);
        c.settings()
            .tol_feas(LP_TOL)
            .tol_gap_abs(LP_TOL)
            .tol_gap_rel(LP_TOL);
        c
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::era::jobs::test_request as req;

    /// By hand: capacity 2 units per slot, one bucket of 4 slots (8 unit-slots). A: 2 units × 2 slots worth
    /// $40 ($10/unit-slot); B: 2 × 3 worth $12 ($2); C: 1 × 4 worth $20 ($5). Optimum: A whole (4 unit-slots),
    /// then C whole (4): value 60, B gets nothing.
    #[test]
    fn one_bucket_by_hand() {
        let rs = [
            req(0, 0, 2.0, 2, 4, 40.0),
            req(1, 0, 2.0, 3, 4, 12.0),
            req(2, 0, 1.0, 4, 4, 20.0),
        ];
        let refs: Vec<&Request> = rs.iter().collect();
        let (e, v) = solve(&refs, 2.0, 4, 1).unwrap();
        assert!((v - 60.0).abs() < 1e-5, "{v}");
        let d = |u: f64| {
            e.iter()
                .filter(|x| x.unit_value == u)
                .map(|x| x.demand)
                .sum::<f64>()
        };
        assert!((d(10.0) - 1.0).abs() < 1e-5); // 4 unit-slots over 4 slots
        assert!((d(5.0) - 1.0).abs() < 1e-5);
        assert!(d(2.0).abs() < 1e-5);
    }

    /// By hand, two buckets of 2 slots, capacity 1 unit: A (1 × 2, window [0, 4), $1/unit-slot) and B
    /// (1 × 2, window [0, 2), $3) → B takes bucket 0, A bucket 1: value 2 + 6 = 8.
    #[test]
    fn two_buckets_by_hand() {
        let rs = [req(0, 0, 1.0, 2, 4, 2.0), req(1, 0, 1.0, 2, 2, 6.0)];
        let refs: Vec<&Request> = rs.iter().collect();
        let (e, v) = solve(&refs, 1.0, 2, 2).unwrap();
        assert!((v - 8.0).abs() < 1e-5, "{v}");
        let a1: f64 = e
            .iter()
            .filter(|x| x.unit_value == 1.0 && x.bucket == 1)
            .map(|x| x.demand)
            .sum();
        assert!((a1 - 1.0).abs() < 1e-5, "{e:?}");
    }

    /// Where the specification's coupling `y ≤ W·o·f` would bind, this LP differs (module documentation):
    /// buckets of 1 slot, capacity 1; B (1 × 3 in [1, 4), $100/unit-slot) fills buckets 1–3; A (1 × 3 in
    /// [0, 4), $1) gets bucket 0 (1 unit-slot, f = 1/3): value 301 (300 with the coupling).
    #[test]
    fn relaxed_rate_bound() {
        let rs = [req(0, 0, 1.0, 3, 4, 3.0), req(1, 1, 1.0, 3, 4, 300.0)];
        let refs: Vec<&Request> = rs.iter().collect();
        let (e, v) = solve(&refs, 1.0, 1, 8).unwrap();
        assert!((v - 301.0).abs() < 1e-5, "{v}");
        let a: f64 = e
            .iter()
            .filter(|x| x.unit_value == 1.0)
            .map(|x| x.demand)
            .sum();
        assert!((a - 1.0).abs() < 1e-5, "{e:?}");
    }

    /// The period wraps: a window across the period's end competes with the start.
    #[test]
    fn period_wraps_around() {
        // buckets of 1 slot, capacity 1: A (1 × 2 in slots [1, 3), $1/unit-slot) and B (1 × 1 in [0, 1), $5)
        let rs = [req(0, 1, 1.0, 2, 3, 2.0), req(1, 0, 1.0, 1, 1, 5.0)];
        let refs: Vec<&Request> = rs.iter().collect();
        // a period of 4 buckets: no overlap, both whole: 7
        let (_, v) = solve(&refs, 1.0, 1, 4).unwrap();
        assert!((v - 7.0).abs() < 1e-5, "{v}");
        // a period of 2 buckets: A's bucket 2 is bucket 0 again, where B ($5) wins: B whole, A half: 5 + 1
        let (_, v) = solve(&refs, 1.0, 1, 2).unwrap();
        assert!((v - 6.0).abs() < 1e-5, "{v}");
    }

    /// The spreading predictor in closed form: W·T/(d − s) per slot over the window.
    #[test]
    fn spreading_closed_form() {
        let rs = [req(0, 3, 10.0, 5, 53, 100.0)];
        let refs: Vec<&Request> = rs.iter().collect();
        let e = spread_entries(&refs, 10);
        // window [3, 53): buckets 0..=5 with 7, 10, 10, 10, 10, 3 slots; 1 unit per slot
        let by_b: Vec<(i64, f64)> = e.iter().map(|x| (x.bucket, x.demand * 10.0)).collect();
        assert_eq!(
            by_b,
            [
                (0, 7.0),
                (1, 10.0),
                (2, 10.0),
                (3, 10.0),
                (4, 10.0),
                (5, 3.0)
            ]
        );
        assert_eq!(
            e.iter().map(|x| x.lag).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(e[0].unit_value, 2.0);
    }

    /// Random instances: Clarabel (interior point) and microlp (simplex) agree on the optimal value.
    #[test]
    fn agrees_with_a_second_solver() {
        use crate::substrate::rng::stream;
        use rand::RngExt;
        for k in 0..20u64 {
            let mut rng = stream(7, 99, k);
            let n = 3 + (rng.random::<f64>() * 25.0) as usize;
            let rs: Vec<Request> = (0..n)
                .map(|i| {
                    let a = (rng.random::<f64>() * 40.0) as i64;
                    let t = 1 + (rng.random::<f64>() * 8.0) as i64;
                    let win = t + (rng.random::<f64>() * 12.0) as i64;
                    let w = 1.0 + (rng.random::<f64>() * 4.0).floor();
                    let v = w * t as f64 * (0.5 + 10.0 * rng.random::<f64>());
                    req(i, a, w, t, a + win, v)
                })
                .collect();
            let refs: Vec<&Request> = rs.iter().collect();
            let (_, a) = solve(&refs, 3.0, 5, 8).unwrap();
            let (_, b) = solve_with(&refs, 3.0, 5, 8, good_lp::microlp).unwrap();
            assert!(
                (a - b).abs() <= 1e-5 * a.abs().max(1.0),
                "instance {k}: {a} vs {b}"
            );
        }
    }
}
