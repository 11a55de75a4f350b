//! Predicted demand and prices (seed 004 §3.2, ALGORITHMS.md §6.2–6.3). `P̂(τ, now, q)` is the highest unit
//! price p at which the predicted demand at slot τ from requests arriving in `[now, τ]` with unit value ≥ p
//! reaches q; BASIC_ECON's block price of W units at τ with R units left is
//! `b_τ = Σ_{k=1..W} clip(P̂(τ, now, R − k + 1), p_min, p_max)`.
//!
//! A [`Curve`] is the step function `q ↦ P̂` of one (τ, now) on integer ranks q: unit values in decreasing
//! order with their cumulative demand; its prefix sums give any block price in O(log n).
//! - [`Table`]: one period's entries (LP or spreading, [`super::lp`]) by bucket residue, with the arrival
//!   filter `lag ≤ δ` (δ = buckets from now's bucket to τ's) and, when the predictor knows the workload's end
//!   (`Horizon::NoArrivals`), `lag ≥ bucket(τ) − bucket(end − 1)` (no predicted arrivals past the end);
//!   curves are built lazily and cached.
//! - [`LinearTable`]: the analytic spreading demand of E4.3's known distributions (the "linear" predictor:
//!   demand linear in price because unit values are uniform), as 64 equal-probability value steps.

use super::jobs::JobDist;
use super::lp::Entry;
use std::collections::HashMap;

/// `q ↦ clip(P̂(q))` on integer ranks `q ≥ 1` as steps: `v[i]` (clipped, non-increasing) holds for ranks in
/// `(fc[i−1], fc[i]]`, `fc` = floor of the cumulative demand; beyond `fc[n−1]` the price is `floor_price`
/// (= clip(0)).
#[derive(Clone, Debug, Default)]
pub struct Curve {
    v: Vec<f64>,
    fc: Vec<f64>,
    prefix: Vec<f64>,
    floor_price: f64,
}

impl Curve {
    /// The curve of `(unit value, units)` pairs (any order; sorted here by value, descending), clipped to
    /// `[p_min, p_max]`.
    pub fn new(mut steps: Vec<(f64, f64)>, p_min: f64, p_max: f64) -> Curve {
        steps.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut c = Curve::default();
        c.refill_sorted(steps, p_min, p_max);
        c
    }

    /// Rebuilds this curve in place, keeping its buffers, from `(unit value, units)` pairs already in
    /// decreasing order of value (as [`Curve::new`] sorts them), clipped to `[p_min, p_max]`.
    fn refill_sorted(
        &mut self,
        steps: impl IntoIterator<Item = (f64, f64)>,
        p_min: f64,
        p_max: f64,
    ) {
        let steps = steps.into_iter();
        // Comparisons, not `f64::max`/`min`: wasm has no instruction with Rust's NaN rule, so those are calls
        // to `fmax`/`fmin` (a quarter of an E4.3 run's time in wasm). The same values: a NaN `v` clips to
        // `p_min` as `v.max(p_min)` does.
        let clip = |v: f64| {
            let v = if v >= p_min { v } else { p_min };
            if v > p_max {
                p_max
            } else {
                v
            }
        };
        for buf in [&mut self.v, &mut self.fc, &mut self.prefix] {
            buf.clear();
            buf.reserve(steps.size_hint().0);
        }
        self.floor_price = clip(0.0);
        let (mut cum, mut prev_fc, mut acc) = (0.0f64, 0.0f64, 0.0f64);
        for (v, d) in steps {
            cum += d;
            let fc = cum.floor();
            acc += clip(v) * (fc - prev_fc);
            prev_fc = fc;
            self.v.push(clip(v));
            self.fc.push(fc);
            self.prefix.push(acc);
        }
    }

    /// `Σ_{q=1..x} clip(P̂(q))` for an integer `x ≥ 0`.
    fn upto(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        let i = self.fc.partition_point(|&f| f < x);
        if i == self.v.len() {
            self.prefix.last().copied().unwrap_or(0.0)
                + self.floor_price * (x - self.fc.last().copied().unwrap_or(0.0))
        } else {
            let (before, fc_before) = if i == 0 {
                (0.0, 0.0)
            } else {
                (self.prefix[i - 1], self.fc[i - 1])
            };
            before + self.v[i] * (x - fc_before)
        }
    }

    /// The block price of `w` units with `r` units left: `Σ_{k=1..w} clip(P̂(r − k + 1))` (`r`, `w` integers,
    /// `r ≥ w ≥ 1`).
    pub fn block_price(&self, r: f64, w: f64) -> f64 {
        self.upto(r) - self.upto(r - w)
    }

    /// `clip(P̂(q))` for one rank `q ≥ 1`.
    pub fn unit_price(&self, q: f64) -> f64 {
        self.block_price(q, 1.0)
    }
}

/// A demand predictor (ALGORITHMS.md §6.2): the price curve `q ↦ clip(P̂(τ, now, q))` of slot `tau` seen at
/// slot `now ≤ tau`. Implemented by one period's [`Table`] (LP or spreading entries), by [`Periodic`] (a table
/// per period, fitted on the previous one) and by the analytic [`LinearTable`].
pub trait DemandPredictor: Send {
    /// The curve of slot `tau` seen at `now`.
    fn curve(&mut self, tau: i64, now: i64) -> &Curve;
}

/// One table per prediction period: requests arriving in period k are priced by the table fitted on period
/// k − 1 (`tables[k − 1]`); tables of past periods are dropped as time moves on (requests arrive in order).
pub struct Periodic {
    /// Slots per period.
    pub period: i64,
    /// Tables for periods 1, 2, ….
    pub tables: Vec<Option<Table>>,
}

impl DemandPredictor for Periodic {
    fn curve(&mut self, tau: i64, now: i64) -> &Curve {
        let k = now.div_euclid(self.period);
        let idx = ((k - 1).max(0) as usize).min(self.tables.len() - 1);
        for old in self.tables.iter_mut().take(idx) {
            *old = None;
        }
        self.tables[idx]
            .as_mut()
            .expect("requests arrive in time order: the current period's table is kept")
            .curve(tau, now)
    }
}

/// Most curve steps a table keeps cached (the cache is emptied when full).
const CACHE_STEPS: usize = 1_000_000;

/// One period's predicted demand (LP or spreading entries) by bucket residue.
pub struct Table {
    g: i64,
    nb: i64,
    p_min: f64,
    p_max: f64,
    /// Per residue: `(lag, unit value, units per slot)`.
    residues: Vec<Vec<(i64, f64, f64)>>,
    max_lag: Vec<i64>,
    /// Bucket of the last arrival slot `end − 1` (horizon-aware), or `None` (arrivals never stop).
    last_bucket: Option<i64>,
    cache: HashMap<(i64, i64, i64), Curve>,
    cached_steps: usize,
}

impl Table {
    /// A table of `entries` with buckets of `g` slots and `nb` buckets per period.
    pub fn new(entries: &[Entry], g: i64, nb: i64, p_min: f64, p_max: f64) -> Table {
        let mut residues = vec![Vec::new(); nb as usize];
        for e in entries {
            residues[e.bucket.rem_euclid(nb) as usize].push((e.lag, e.unit_value, e.demand));
        }
        let max_lag = residues
            .iter()
            .map(|r| r.iter().map(|x| x.0).max().unwrap_or(0))
            .collect();
        Table {
            g,
            nb,
            p_min,
            p_max,
            residues,
            max_lag,
            last_bucket: None,
            cache: HashMap::new(),
            cached_steps: 0,
        }
    }

    /// The same table, predicting no arrivals at or after slot `end` (`None`: arrivals never stop).
    pub fn with_end(mut self, end: Option<i64>) -> Table {
        self.last_bucket = end.map(|e| (e - 1).div_euclid(self.g));
        self.cache.clear();
        self.cached_steps = 0;
        self
    }
}

impl DemandPredictor for Table {
    fn curve(&mut self, tau: i64, now: i64) -> &Curve {
        let bt = tau.div_euclid(self.g);
        let r = bt.rem_euclid(self.nb);
        let delta = (bt - now.div_euclid(self.g)).min(self.max_lag[r as usize]);
        // predicted arrivals in buckets after the last arrival's have lag below `lo`
        let lo = self.last_bucket.map_or(0, |b| (bt - b).clamp(0, delta + 1));
        let key = (r, delta, lo);
        if !self.cache.contains_key(&key) {
            let steps: Vec<(f64, f64)> = self.residues[r as usize]
                .iter()
                .filter(|e| e.0 <= delta && e.0 >= lo)
                .map(|e| (e.1, e.2))
                .collect();
            if self.cached_steps + steps.len() > CACHE_STEPS {
                self.cache.clear();
                self.cached_steps = 0;
            }
            self.cached_steps += steps.len();
            self.cache
                .insert(key, Curve::new(steps, self.p_min, self.p_max));
        }
        &self.cache[&key]
    }
}

/// Value steps of the linear predictor.
const LINEAR_STEPS: usize = 64;
/// Quadrature points per dimension (duration, slack) of the linear predictor's expected spread.
const QUAD: usize = 48;

/// The analytic spreading predictor of E4.3's known job distributions: at lag δ slots ahead, the expected
/// demand of requests arriving in the δ + 1 slots `[now, τ]` is
/// `K(δ) = λ·E[W]·E[T/(T+S) · min(T+S, δ+1)]` (S the slack), split over unit values uniform on `v_range`.
pub struct LinearTable {
    dist: JobDist,
    p_min: f64,
    p_max: f64,
    /// First slot without arrivals (horizon-aware), or `None` (arrivals never stop).
    end: Option<i64>,
    /// `K` per `(δ, lo)` computed so far. Numbers, not curves: a horizon-aware E4.3 run asks for ~180,000
    /// keys, whose curves (64 steps each) took ~300 MB and, in wasm, most of the run's time growing memory.
    demand: HashMap<(i64, i64), f64>,
    /// Quadrature nodes `(T, T + S)` with equal weights.
    nodes: Vec<(f64, f64)>,
    /// Unit values of the curve's steps, decreasing: `v_hi − (i + ½)·(v_hi − v_lo)/LINEAR_STEPS`.
    values: Vec<f64>,
    /// The curve of the last call, rebuilt in place for another `(δ, lo)`, and its key.
    curve: Curve,
    curve_key: Option<(i64, i64)>,
}

impl LinearTable {
    /// The table of `dist` with price bounds.
    pub fn new(dist: &JobDist, p_min: f64, p_max: f64) -> LinearTable {
        let mut nodes = Vec::with_capacity(QUAD * QUAD);
        for i in 0..QUAD {
            let u = (i as f64 + 0.5) / QUAD as f64;
            let z = crate::substrate::stats::normal_quantile(u);
            let t = (dist.t_median * libm::exp(dist.t_sigma * z))
                .round()
                .max(1.0);
            for k in 0..QUAD {
                let uk = (k as f64 + 0.5) / QUAD as f64;
                let s = (-dist.slack_mult * t * libm::log(1.0 - uk)).ceil();
                nodes.push((t, t + s));
            }
        }
        let [vlo, vhi] = dist.v_range;
        let values = (0..LINEAR_STEPS)
            .map(|i| vhi - (i as f64 + 0.5) * (vhi - vlo) / LINEAR_STEPS as f64)
            .collect();
        LinearTable {
            dist: dist.clone(),
            p_min,
            p_max,
            end: None,
            demand: HashMap::new(),
            nodes,
            values,
            curve: Curve::default(),
            curve_key: None,
        }
    }

    /// The same table, predicting no arrivals at or after slot `end` (`None`: arrivals never stop).
    pub fn with_end(mut self, end: Option<i64>) -> LinearTable {
        self.end = end;
        self.demand.clear();
        self.curve_key = None;
        self
    }

    /// Expected demand `K(δ)` at δ slots ahead, units (arrivals never stop).
    pub fn expected_demand(&self, delta: i64) -> f64 {
        self.expected_demand_from(delta, 0)
    }

    /// Expected demand at δ slots ahead from requests arriving `lo..=δ` slots before the slot (arrivals less
    /// than `lo` slots before it come after the workload's end): `λ·E[W]·E[T/(T+S)·(min(T+S, δ+1) − lo)⁺]`.
    pub fn expected_demand_from(&self, delta: i64, lo: i64) -> f64 {
        let [wlo, whi] = self.dist.w_range;
        let mean_w = (whi - wlo) / libm::log(whi / wlo);
        let x = (delta + 1) as f64;
        let lo = lo as f64;
        let e: f64 = self
            .nodes
            .iter()
            .map(|&(t, win)| {
                // `(win.min(x) − lo).max(0)` by comparisons (no NaN here: T ≥ 1, S finite), which wasm
                // runs inline rather than as calls to `fmin`/`fmax`
                let spread = (if win < x { win } else { x }) - lo;
                t / win * if spread > 0.0 { spread } else { 0.0 }
            })
            .sum::<f64>()
            / self.nodes.len() as f64;
        self.dist.rate * mean_w * e
    }
}

impl DemandPredictor for LinearTable {
    /// δ beyond 10 days ahead is capped.
    fn curve(&mut self, tau: i64, now: i64) -> &Curve {
        let delta = (tau - now).clamp(0, 14_400);
        let lo = self.end.map_or(0, |e| (tau - e + 1).clamp(0, delta + 1));
        let key = (delta, lo);
        if self.curve_key != Some(key) {
            let k = match self.demand.get(&key) {
                Some(&k) => k,
                None => {
                    let k = self.expected_demand_from(delta, lo);
                    self.demand.insert(key, k);
                    k
                }
            };
            let units = k / LINEAR_STEPS as f64;
            self.curve.refill_sorted(
                self.values.iter().map(|&v| (v, units)),
                self.p_min,
                self.p_max,
            );
            self.curve_key = Some(key);
        }
        &self.curve
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: demand 2.5 units at $10, 1 unit at $4, 3 units at $1 → cumulative 2.5, 3.5, 6.5 → integer
    /// ranks 1–2 at $10, 3 at $4, 4–6 at $1, 7+ at $0.
    #[test]
    fn curve_block_prices_by_hand() {
        let c = Curve::new(
            vec![(1.0, 3.0), (10.0, 2.5), (4.0, 1.0)],
            0.0,
            f64::INFINITY,
        );
        let p: Vec<f64> = (1..=8).map(|q| c.unit_price(q as f64)).collect();
        assert_eq!(p, [10.0, 10.0, 4.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
        // R = 5 left, W = 3 units: ranks 3, 4, 5 → 4 + 1 + 1
        assert_eq!(c.block_price(5.0, 3.0), 6.0);
        // R = 8, W = 8: everything: 10+10+4+1+1+1+0+0
        assert_eq!(c.block_price(8.0, 8.0), 27.0);
        // clipped to [2, 5]: ranks 1–2 → 5, 3 → 4, 4–6 → 2, beyond → 2
        let c = Curve::new(vec![(1.0, 3.0), (10.0, 2.5), (4.0, 1.0)], 2.0, 5.0);
        let p: Vec<f64> = (1..=8).map(|q| c.unit_price(q as f64)).collect();
        assert_eq!(p, [5.0, 5.0, 4.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
    }

    /// Two entries of bucket 3: 2 units at $5 arriving in the bucket itself (lag 0) and 1 unit at $9 arriving
    /// two buckets earlier (lag 2).
    fn two_entries() -> [Entry; 2] {
        [
            Entry {
                bucket: 3,
                lag: 0,
                unit_value: 5.0,
                demand: 2.0,
            },
            Entry {
                bucket: 3,
                lag: 2,
                unit_value: 9.0,
                demand: 1.0,
            },
        ]
    }

    /// The arrival filter: entries that arrived before now's bucket do not count.
    #[test]
    fn table_filters_arrivals_before_now() {
        let e = two_entries();
        let mut t = Table::new(&e, 10, 4, 0.0, f64::INFINITY);
        // τ in bucket 3 (slot 35); now in bucket 3: only lag 0 → rank 1 at $5
        assert_eq!(t.curve(35, 31).unit_price(1.0), 5.0);
        // now in bucket 1 (δ = 2): both → rank 1 at $9, rank 2–3 at $5
        assert_eq!(t.curve(35, 12).unit_price(1.0), 9.0);
        assert_eq!(t.curve(35, 12).unit_price(3.0), 5.0);
        // the next period's bucket 7 ≡ 3 reads the same residue
        assert_eq!(t.curve(75, 52).unit_price(1.0), 9.0);
    }

    /// The horizon-aware table: predicted arrivals at or after the workload's end do not count, so a slot whose
    /// predicted demand all arrives after the end is priced at the floor (zero demand).
    #[test]
    fn table_predicts_no_arrivals_past_the_end() {
        let e = two_entries();
        // slot 35 (bucket 3) seen from slot 12 (bucket 1): both entries arrive in [now, τ] (buckets 1 and 3)
        let mut open = Table::new(&e, 10, 4, 0.0, f64::INFINITY);
        assert_eq!(open.curve(35, 12).block_price(3.0, 3.0), 9.0 + 5.0 + 5.0);
        // arrivals end at slot 30 (last arrival bucket 2): the lag-0 entry would arrive in bucket 3 → only the
        // $9 unit (arriving in bucket 1) is left; ranks 2, 3 are free
        let mut t = Table::new(&e, 10, 4, 0.0, f64::INFINITY).with_end(Some(30));
        assert_eq!(t.curve(35, 12).block_price(3.0, 3.0), 9.0);
        // arrivals end at slot 10 (bucket 0): both would arrive after it → zero predicted demand at slot 35
        let mut t = Table::new(&e, 10, 4, 0.0, f64::INFINITY).with_end(Some(10));
        assert_eq!(t.curve(35, 12).block_price(3.0, 3.0), 0.0);
        // before the end nothing changes: slot 25 (bucket 2, residue 2) has no entries either way, and slot 35
        // seen with end 40 keeps both
        let mut t = Table::new(&e, 10, 4, 0.0, f64::INFINITY).with_end(Some(40));
        assert_eq!(t.curve(35, 12).block_price(3.0, 3.0), 19.0);
    }

    /// 2 requests per slot, widths log-uniform on [8, 512] units, T = 60 slots always (σ = 0), slack
    /// S ~ Exp(mean 2·60): the closed forms of the linear predictor's tests.
    fn fixed_length_jobs() -> JobDist {
        JobDist {
            rate: 2.0,
            w_range: [8.0, 512.0],
            t_median: 60.0,
            t_sigma: 0.0,
            slack_mult: 2.0,
            v_range: [0.65, 1.3],
        }
    }

    /// The horizon-aware linear predictor, in closed form: with T = 60 always, slack S ~ Exp(mean 120) and
    /// arrivals stopping `lo` slots before τ, far ahead `K/(λ·E[W]) = E[60/(60+S)·(60 + S − lo)]
    /// = 60 − lo·E[60/(60+S)] = 60 − lo·0.46145`; with `lo > δ` nothing arrives: zero.
    #[test]
    fn linear_demand_stops_at_the_end() {
        let d = fixed_length_jobs();
        let t = LinearTable::new(&d, 0.0, 1.0);
        let mean_w = 504.0 / (64.0f64).ln();
        let k = t.expected_demand_from(100_000, 10) / (2.0 * mean_w);
        assert!((k - (60.0 - 10.0 * 0.46145)).abs() < 0.1, "{k}");
        assert_eq!(t.expected_demand_from(50, 51), 0.0);
        assert_eq!(t.expected_demand_from(50, 0), t.expected_demand(50));
        // through the curve: τ = 1,000 seen from 0 with arrivals ending at slot 990 (lo = 11) vs at slot 0
        let mut h = LinearTable::new(&d, 0.0, 1.0).with_end(Some(1));
        assert_eq!(h.curve(1_000, 0).block_price(10.0, 10.0), 0.0);
    }

    /// The linear predictor keeps one curve and rebuilds it in place when the key changes: a curve asked again
    /// after others (a shorter and a longer one, horizon-aware) prices as a fresh table's first curve, at every
    /// rank, clipped.
    #[test]
    fn linear_curve_rebuilt_in_place_prices_as_a_fresh_one() {
        let d = fixed_length_jobs();
        // ranks 1, 101, …, 19,901: the demand (~11,000 units at (130, 20), ~170 per value step) and beyond
        let price = |c: &Curve| {
            (0..200)
                .map(|i| c.unit_price((1 + 100 * i) as f64))
                .collect::<Vec<_>>()
        };
        let fresh = |tau, now| {
            price(
                LinearTable::new(&d, 0.7, 1.2)
                    .with_end(Some(100))
                    .curve(tau, now),
            )
        };
        let mut t = LinearTable::new(&d, 0.7, 1.2).with_end(Some(100));
        let first = price(t.curve(130, 20));
        assert_eq!(first, fresh(130, 20));
        assert_eq!(price(t.curve(40, 39)), fresh(40, 39));
        assert_eq!(price(t.curve(130, 20)), first);
        // clipped: the dearest ranks at p_max 1.2 (values reach 1.3), past the demand at clip(0) = p_min 0.7
        // (a difference of prefix sums: up to rounding)
        assert!((first[0] - 1.2).abs() < 1e-9, "{}", first[0]);
        assert!((first[199] - 0.7).abs() < 1e-9, "{}", first[199]);
        assert!(first.iter().any(|&p| p > 0.7 && p < 1.2), "{first:?}");
    }

    /// K(δ) grows to λ·E[W]·E[T] (every request's whole spread work) and starts at λ·E[W]·E[T/(T+S)].
    #[test]
    fn linear_demand_limits() {
        let d = fixed_length_jobs();
        let t = LinearTable::new(&d, 0.65, 1.0);
        let mean_w = 504.0 / (64.0f64).ln();
        // σ = 0: T = 60 always; δ huge → λ·E[W]·60
        let far = t.expected_demand(100_000);
        assert!((far / (2.0 * mean_w * 60.0) - 1.0).abs() < 1e-3, "{far}");
        // δ = 0: λ·E[W]·E[60/(60+S)], S ~ Exp(mean 120): ∫ 60/(60+s) e^{−s/120}/120 ds = ½·e^{½}·E1(½) = 0.46145
        // (S rounded up to whole slots lowers it slightly)
        let near = t.expected_demand(0) / (2.0 * mean_w);
        assert!((near - 0.46145).abs() < 0.01, "{near}");
    }
}
