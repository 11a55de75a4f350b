//! Exact decisions on sums of usage values: the decimal grid on which values lie as they were written, and
//! whether a sum of non-negative values exceeds a threshold, decided exactly and whatever the order of the terms.
//!
//! Why (ALGORITHMS.md §4.4, q(j) = #{t : Σ_i x[i][t] > c}): usage is written as decimals (PlanetLab: integer
//! CPU %), so a machine's total often equals c exactly, but the doubles x = % / 100 summed in some order land
//! an ulp either side: 0.33 + 0.56 + 0.11 = 1.0000000000000002 in f64 (and 1 in the reverse order), so a
//! plain `Σ > c` counts some exact ties as overflows, depending on the item order.
//!
//! How ([`ExactThreshold`], a filtered exact predicate in the manner of Shewchuk's adaptive predicates,
//! Discrete Comput. Geom. 18, 1997): the caller's ordinary f64 sum decides whenever it is farther from c than
//! its proven error bound; only near-ties are re-decided exactly, in one of two ways:
//! - the values lie on a decimal grid 10^-k ([`DecimalGrid`], found by [`GridScan`] when a trace is read):
//!   integer sums of the grid numerators against c on the common grid (i128). This is exact with respect to
//!   the values **as written** (a written decimal with at most 15 significant digits is identified by its
//!   double), and to c as written (the decimal with at most 15 decimals whose double it is);
//! - otherwise (values not on a grid with at most [`MAX_DECIMALS`] decimals, e.g. bin means, or a capacity
//!   that is not): the exact sum of the doubles themselves against the double c, by a floating-point
//!   expansion (Shewchuk's Grow-Expansion with zero elimination, Two-Sum of Knuth/Møller).
//!
//! Everything is plain IEEE-754 binary64 arithmetic in round-to-nearest and integer arithmetic, so results are
//! identical natively and in WebAssembly.

/// The most decimals a value may have, in the unit it was written in, to lie on a [`DecimalGrid`].
pub const MAX_DECIMALS: u32 = 15;

/// Decimals a grid of values divided by 100 (percent → VM units) may reach: [`MAX_DECIMALS`] + 2.
const MAX_GRID_DECIMALS: u32 = MAX_DECIMALS + 2;

/// The largest grid numerator |v·10^k| accepted, 2^49: below it a value converted from its unit with at most
/// two roundings still gives back its numerator by rounding (error ≤ 3·2^-53·2^49 = 3/8 < 1/2).
const MAX_UNITS: f64 = (1u64 << 49) as f64;

/// 2^52: for 0 ≤ y < 2^51, (y + 2^52) − 2^52 is y rounded to the nearest integer (IEEE round-to-nearest).
const ROUNDER: f64 = (1u64 << 52) as f64;

/// 10^k as exact doubles (exact up to 10^22).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The decimal grid 10^-k (k ≤ 17 decimals) on which a set of values lies: every value x is the double nearest
/// to n/10^k for an integer |n| ≤ 2^49 (its *numerator*), or that double divided once more by 10^s as a unit
/// conversion does (percent → VM units: s = 2, the grid gains s decimals). Integer CPU % in VM units lie on
/// the grid 10^-2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecimalGrid {
    decimals: u32,
}

impl DecimalGrid {
    /// The grid with `decimals` digits after the point; `None` beyond 17.
    pub fn new(decimals: u32) -> Option<DecimalGrid> {
        (decimals <= MAX_GRID_DECIMALS).then_some(DecimalGrid { decimals })
    }

    /// Digits after the decimal point.
    pub fn decimals(self) -> u32 {
        self.decimals
    }

    /// Whether `v` is the double nearest to n/10^k for an integer |n| ≤ 2^49, i.e. a decimal with at most k
    /// decimals written and read back (`"0.37".parse()` lies on the grid 10^-2, `0.1 + 0.2` on none).
    pub fn holds(self, v: f64) -> bool {
        holds_scaled(v.abs(), POW10[self.decimals as usize])
    }

    /// The coarsest grid with at most [`MAX_DECIMALS`] decimals that `v` lies on ([`DecimalGrid::holds`]),
    /// e.g. 2 decimals for 0.37, none for 4.0; `None` for 0.1 + 0.2, 1/3, non-finite values.
    pub fn of(v: f64) -> Option<DecimalGrid> {
        (0..=MAX_DECIMALS)
            .map(|decimals| DecimalGrid { decimals })
            .find(|g| g.holds(v))
    }

    /// The numerator n of a value `x` of this grid (x ≈ n/10^k, see [`DecimalGrid`]); for another `x` it is
    /// the nearest integer to x·10^k, saturated to the i64 range.
    pub fn units(self, x: f64) -> i64 {
        let y = x * POW10[self.decimals as usize];
        if y.abs() < ROUNDER / 2.0 {
            ((y.abs() + ROUNDER) - ROUNDER).copysign(y) as i64
        } else {
            y.round() as i64
        }
    }
}

/// [`DecimalGrid::holds`] for |v| = `a` and p = 10^k: with y = a·p ≤ 2^49, adding and taking away 2^52 rounds
/// y to the nearest integer n (a tie has no n/p == a), and n/p is the double nearest to n/10^k.
#[inline]
fn holds_scaled(a: f64, p: f64) -> bool {
    let y = a * p;
    y <= MAX_UNITS && ((y + ROUNDER) - ROUNDER) / p == a
}

/// Finds the common [`DecimalGrid`] of values as they were written (in the unit of the file), one value at a
/// time: the grid only gets finer, and a value on no grid with at most [`MAX_DECIMALS`] decimals ends the scan.
#[derive(Clone, Debug, Default)]
pub struct GridScan {
    decimals: u32,
    largest: f64,
    off_grid: bool,
}

impl GridScan {
    /// An empty scan (the grid of no values is 10^0).
    pub fn new() -> GridScan {
        GridScan::default()
    }

    /// Adds values as read from their text (e.g. `"12.5".parse::<f64>()`).
    pub fn add(&mut self, values: &[f64]) {
        if self.off_grid {
            return;
        }
        let mut p = POW10[self.decimals as usize];
        for &v in values {
            let a = v.abs();
            self.largest = if a > self.largest { a } else { self.largest };
            if holds_scaled(a, p) {
                continue;
            }
            // a finer grid, or none
            match (self.decimals + 1..=MAX_DECIMALS).find(|&k| holds_scaled(a, POW10[k as usize])) {
                Some(k) => {
                    self.decimals = k;
                    p = POW10[k as usize];
                }
                None => {
                    self.off_grid = true;
                    return;
                }
            }
        }
    }

    /// The grid of the values after dividing them by 10^`shift` (2 for percent → VM units), or `None` when some
    /// value lies on no grid, or the largest numerator on the common grid exceeds 2^49.
    pub fn grid(&self, shift: u32) -> Option<DecimalGrid> {
        if self.off_grid || self.largest * POW10[self.decimals as usize] > MAX_UNITS {
            return None;
        }
        DecimalGrid::new(self.decimals + shift)
    }
}

/// Decides exactly whether a sum of non-negative values exceeds a threshold c (ALGORITHMS.md §4.4: a machine
/// overflows at t iff Σ_{i∈S_j} x[i][t] > c), given the caller's f64 sum of the same values in any order; see
/// the module documentation for the method. The answer does not depend on the order of the terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactThreshold {
    c: f64,
    grid: Option<GridSum>,
}

/// Integer sums on the common grid of the terms and the threshold: Σ units(x)·scale > threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GridSum {
    terms: DecimalGrid,
    scale: i128,
    threshold: i128,
}

impl ExactThreshold {
    /// The threshold `c` (finite, VM units for usage) for terms on the grid `terms` (the trace's
    /// [`crate::trace::UsageTrace::grid`]); `None`, or a `c` on no grid with at most [`MAX_DECIMALS`] decimals,
    /// compares the exact sum of the doubles with the double `c`.
    pub fn new(c: f64, terms: Option<DecimalGrid>) -> ExactThreshold {
        let grid = terms.zip(DecimalGrid::of(c)).and_then(|(t, g)| {
            let k = t.decimals.max(g.decimals);
            let scale = 10i128.checked_pow(k - t.decimals)?;
            let threshold =
                i128::from(g.units(c)).checked_mul(10i128.checked_pow(k - g.decimals)?)?;
            Some(GridSum {
                terms: t,
                scale,
                threshold,
            })
        });
        ExactThreshold { c, grid }
    }

    /// The test for sums of `n` non-negative terms ([`SumThreshold`]). The f64 sum `approx` of such terms,
    /// in any order, is within k·(approx + |c|) of the exact sum as written, minus c's rounding, with
    /// k = (n + 8)·2^-52: the summation error γ_{n−1}·Σx, two roundings per value written in another unit and
    /// the rounding of c, with a factor 2 to spare. So `approx` decides outside the band c ± 4k·|c| (there
    /// |approx − c| exceeds that bound, with another factor 2 to spare).
    pub fn sums_of(&self, n: usize) -> SumThreshold<'_> {
        let k = (n as f64 + 8.0) * f64::EPSILON;
        let half = 4.0 * k * self.c.abs();
        SumThreshold {
            lo: self.c - half,
            hi: self.c + half,
            exact: self,
        }
    }

    /// Whether Σ `terms` > c (non-negative terms), decided exactly: on the common decimal grid (i128; a sum
    /// too large for it certainly exceeds c) or, off the grid, by the sign of the expansion Σ terms − c.
    #[cold]
    #[inline(never)]
    pub fn exceeded_exactly(&self, terms: impl IntoIterator<Item = f64>) -> bool {
        match self.grid {
            Some(g) => terms
                .into_iter()
                .try_fold(0i128, |s, x| s.checked_add(i128::from(g.terms.units(x))))
                .and_then(|s| s.checked_mul(g.scale))
                .is_none_or(|s| s > g.threshold),
            None => expansion_sign(terms, self.c) > 0.0,
        }
    }
}

/// [`ExactThreshold`] for sums of a given number of terms: the band of f64 sums too close to c to decide.
#[derive(Clone, Copy, Debug)]
pub struct SumThreshold<'a> {
    lo: f64,
    hi: f64,
    exact: &'a ExactThreshold,
}

impl SumThreshold<'_> {
    /// Whether the f64 sum `approx` lies in the band around c where it cannot decide by itself.
    #[inline]
    fn near(&self, approx: f64) -> bool {
        (approx >= self.lo) & (approx <= self.hi)
    }

    /// Whether Σ `terms` > c, exactly, where `approx` is the f64 sum of the non-negative `terms` in any order
    /// (as many as given to [`ExactThreshold::sums_of`]); the terms are read only when `approx` lies in the
    /// band around c ([`ExactThreshold::exceeded_exactly`]).
    #[inline]
    pub fn exceeded(&self, approx: f64, terms: impl IntoIterator<Item = f64>) -> bool {
        if self.near(approx) {
            self.exact.exceeded_exactly(terms)
        } else {
            approx > self.hi
        }
    }

    /// How many of `totals` (each the f64 sum of its terms in any order) exceed c exactly; `terms(t)` gives
    /// the terms of `totals[t]` and is called only for totals in the band around c. One branch-free pass
    /// counts the totals above the band and those from its lower end up; only when these differ (some total
    /// is in the band) a second pass decides the totals in the band exactly.
    pub fn count_exceeding<I: IntoIterator<Item = f64>>(
        &self,
        totals: &[f64],
        terms: impl Fn(usize) -> I,
    ) -> usize {
        let (mut above, mut from_lo) = (0usize, 0usize);
        for &v in totals {
            above += usize::from(v > self.hi);
            from_lo += usize::from(v >= self.lo);
        }
        if from_lo == above {
            return above;
        }
        above
            + (0..totals.len())
                .filter(|&t| self.near(totals[t]) && self.exact.exceeded_exactly(terms(t)))
                .count()
    }
}

/// Two-Sum (Knuth; Møller): s = fl(a + b) and the exact error e, a + b = s + e, for any finite a and b.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The sign (−1, 0 or 1, as f64) of Σ terms − c, exactly: the terms are added one by one to the expansion
/// of −c (Shewchuk 1997, Grow-Expansion with zero elimination; the components stay non-overlapping and
/// increasing in magnitude), and the sign of an expansion is the sign of its largest component.
fn expansion_sign(terms: impl IntoIterator<Item = f64>, c: f64) -> f64 {
    let mut e: Vec<f64> = Vec::with_capacity(8);
    if c != 0.0 {
        e.push(-c);
    }
    for x in terms {
        let mut q = x;
        let mut kept = 0;
        for i in 0..e.len() {
            let (s, h) = two_sum(q, e[i]);
            if h != 0.0 {
                e[kept] = h;
                kept += 1;
            }
            q = s;
        }
        e.truncate(kept);
        if q != 0.0 {
            e.push(q);
        }
    }
    e.last().map_or(0.0, |v| v.signum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_of_values_as_written() {
        let g = |v: f64| DecimalGrid::of(v).map(|g| g.decimals());
        assert_eq!(g(4.0), Some(0));
        assert_eq!(g(0.37), Some(2));
        assert_eq!(g("12.50".parse().unwrap()), Some(1));
        assert_eq!(g(0.000_000_000_000_001), Some(15));
        assert_eq!(g(0.1 + 0.2), None); // 0.30000000000000004
        assert_eq!(g(1.0 / 3.0), None);
        assert_eq!(g(f64::NAN), None);
        assert_eq!(g(1e15), None); // numerator above 2^49
                                   // 37 % / 100 is the double nearest to 0.37, numerator 37
        let x = 37.0 / 100.0;
        assert_eq!(DecimalGrid::new(2).unwrap().units(x), 37);
        assert!(DecimalGrid::new(18).is_none());
    }

    #[test]
    fn grid_scan_takes_the_finest_grid_and_the_unit_shift() {
        let mut s = GridScan::new();
        s.add(&[37.0, 12.5]);
        s.add(&[0.0, 100.0]);
        assert_eq!(s.grid(0), DecimalGrid::new(1));
        assert_eq!(s.grid(2), DecimalGrid::new(3)); // percent → VM units
        s.add(&[0.1 + 0.2]);
        assert_eq!(s.grid(2), None);
        let mut big = GridScan::new();
        big.add(&[1000.0, 0.000_000_000_001]); // 12 decimals: 1000·10^12 > 2^49
        assert_eq!(big.grid(0), None);
    }

    /// 0.33 + 0.56 + 0.11 is exactly 1 as written, but 1.0000000000000002 summed left to right in f64.
    #[test]
    fn a_percent_tie_is_not_an_overflow_in_any_order() {
        let (a, b, c) = (33.0 / 100.0, 56.0 / 100.0, 11.0 / 100.0);
        assert_eq!(a + b + c, 1.0000000000000002);
        assert_eq!(c + b + a, 1.0);
        let t = ExactThreshold::new(1.0, DecimalGrid::new(2));
        for terms in [[a, b, c], [c, b, a], [b, c, a]] {
            let approx = terms.iter().sum::<f64>();
            assert!(!t.sums_of(3).exceeded(approx, terms), "{terms:?}");
        }
        // one percent more is an overflow, one less is not
        let d = 12.0 / 100.0;
        assert!(t.sums_of(3).exceeded(a + b + d, [a, b, d]));
        let e = 10.0 / 100.0;
        assert!(!t.sums_of(3).exceeded(a + b + e, [a, b, e]));
        // counted over columns: the tie, one percent more, one less
        let columns = [[a, b, c], [a, b, d], [a, b, e]];
        let totals = columns.map(|col| col.iter().sum::<f64>());
        assert_eq!(totals[0], 1.0000000000000002);
        assert_eq!(t.sums_of(3).count_exceeding(&totals, |k| columns[k]), 1);
        assert_eq!(
            t.sums_of(3)
                .count_exceeding(&totals[1..], |k| columns[k + 1]),
            1
        );
        // a capacity with more decimals than the trace: 0.999 < 1.00
        let t = ExactThreshold::new(0.999, DecimalGrid::new(2));
        assert!(t.sums_of(3).exceeded(a + b + c, [a, b, c]));
    }

    /// Off the grid the doubles themselves are summed exactly. Exact values (Python `fractions.Fraction` of
    /// the doubles): 0.1 + 0.2 = 0.3000000000000000166533453693773481063544750213623046875, which lies between
    /// the double 0.3 = 0.299999999999999988897769753748434595763683319091796875 and
    /// 0.1 + 0.2 (f64) = 0.3000000000000000444089209850062616169452667236328125.
    #[test]
    fn off_the_grid_the_doubles_are_summed_exactly() {
        let above = ExactThreshold::new(0.3, None);
        assert!(above.exceeded_exactly([0.1, 0.2]));
        assert!(above.exceeded_exactly([0.2, 0.1]));
        let below = ExactThreshold::new(0.1 + 0.2, None);
        assert!(!below.exceeded_exactly([0.1, 0.2]));
        // the f64 sum equals the threshold, yet the exact sum is smaller
        assert!(!below.sums_of(2).exceeded(0.1 + 0.2, [0.1, 0.2]));
        // a tiny term beyond the precision of the sum still counts
        assert!(ExactThreshold::new(1.0, None)
            .sums_of(2)
            .exceeded(1.0, [1.0, 1e-300]));
        assert!(!ExactThreshold::new(1.0, None)
            .sums_of(2)
            .exceeded(1.0, [1.0, 0.0]));
        assert_eq!(expansion_sign([0.5, 0.25, 0.25], 1.0), 0.0);
        assert_eq!(expansion_sign([], 0.0), 0.0);
        assert_eq!(expansion_sign([1e-300], 0.0), 1.0);
    }

    /// Random integer percents (so exact ties are frequent), summed in a random order in f64: the decision
    /// equals the integer comparison Σ % > 100·c in either order.
    #[test]
    fn decisions_equal_integer_arithmetic() {
        let mut s: u64 = 7;
        let mut next = |m: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % m
        };
        let mut ties = 0;
        for _ in 0..20_000 {
            let c = 1 + next(4) as i64;
            let n = 1 + next(12) as usize;
            let pct: Vec<i64> = (0..n).map(|_| next(101) as i64).collect();
            // force a tie now and then: the last term makes the sum exactly 100·c when it can
            let mut pct = pct;
            let rest: i64 = pct[..n - 1].iter().sum();
            if next(2) == 0 && (0..=100).contains(&(100 * c - rest)) {
                pct[n - 1] = 100 * c - rest;
            }
            let x: Vec<f64> = pct.iter().map(|&p| p as f64 / 100.0).collect();
            let approx = x.iter().fold(0.0, |a, v| a + v);
            let truth = pct.iter().sum::<i64>() > 100 * c;
            ties += usize::from(pct.iter().sum::<i64>() == 100 * c);
            let on = ExactThreshold::new(c as f64, DecimalGrid::new(2));
            assert_eq!(
                on.sums_of(n).exceeded(approx, x.iter().copied()),
                truth,
                "{pct:?} c {c}"
            );
            let mut rev = x.clone();
            rev.reverse();
            let approx_rev = rev.iter().fold(0.0, |a, v| a + v);
            assert_eq!(
                on.sums_of(n).exceeded(approx_rev, rev.iter().copied()),
                truth
            );
        }
        assert!(ties > 1000, "{ties} ties");
    }

    /// Off a grid: doubles m·2^-60 (2^52 ≤ m < 2^53 random, so exact) against c = their f64 sum, or a
    /// neighbouring double (the sum is ≥ 2^-7, so its ulp is ≥ 2^-59 and c is m_c·2^-60 too): the decision
    /// equals the integer comparison Σ m > m_c.
    #[test]
    fn off_grid_decisions_equal_integer_arithmetic_on_binary_fractions() {
        let mut s: u64 = 11;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 11 // 53 bits
        };
        let scale = 2f64.powi(60);
        let mut above = 0;
        for round in 0..20_000 {
            let n = 2 + (next() % 30) as usize;
            let m: Vec<u64> = (0..n).map(|_| (1 << 52) | (next() >> 1)).collect();
            let x: Vec<f64> = m.iter().map(|&v| v as f64 / scale).collect();
            let approx = x.iter().fold(0.0, |a, v| a + v);
            let c = match round % 3 {
                0 => approx,
                1 => f64::from_bits(approx.to_bits() + 1),
                _ => f64::from_bits(approx.to_bits() - 1),
            };
            let m_c = (c * scale) as u128;
            assert_eq!(m_c as f64, c * scale, "c is a multiple of 2^-60");
            let truth = m.iter().map(|&v| u128::from(v)).sum::<u128>() > m_c;
            above += usize::from(truth);
            let t = ExactThreshold::new(c, None);
            assert_eq!(t.sums_of(n).exceeded(approx, x.iter().copied()), truth);
            assert_eq!(t.exceeded_exactly(x.iter().rev().copied()), truth);
        }
        assert!(above > 2000 && above < 18_000, "{above}");
    }
}
