//! The open bins indexed for First Fit and Best Fit in O(log m) per item (issue 30), choosing exactly the bin
//! the linear scan [`FitTest::choose`] chooses (seed 002 Alg. 1; ALGORITHMS.md §4.3).
//!
//! Each bin has one number, its index key ([`FitTest::index`]):
//! - deterministic tests (av, perc, max, Cantelli): the load ℓ_j. Whether an item fits, `ℓ_j + s_k ≤ c`, and
//!   its Best Fit key `c − ℓ_j − s_k` depend on ℓ_j alone and are monotone in it (every step is a rounded
//!   operation, which is monotone), so First Fit is the lowest index whose subtree minimum of ℓ fits (a
//!   segment tree), and Best Fit is the largest fitting ℓ (an ordered set), then the lowest index among the
//!   loads of the same key (equal keys form a run of loads).
//! - GPA with z ≥ 0: the bin's own quantile `q_j = μ_j + z·σ_j`. A bin the item fits in has
//!   `q_j ≤ c − μ_k` up to rounding ([`FitTest::surely_not`]), so the candidates are the bins with `q_j` at most
//!   that (plus a rounding margin); each candidate gets the exact test. First Fit takes the lowest index
//!   that passes it; Best Fit visits the candidates from the tightest (largest `q_j`) down and stops when no
//!   later one can reach the best key found: with `d = c − μ_k − q_j`, a bin's key
//!   `(d + z·σ_j)/√(σ_j² + σ_k²)` is at least `min(d/σ_k, (d + z·S)/√(S² + σ_k²))` for σ_j ∈ [0, S] (the
//!   key is unimodal in σ_j), which grows with d. This pruning is exact (its bound has a margin far above
//!   the rounding error), not a bound on the work: a bin set with widely spread σ_j may visit many.
//! - GPA with z < 0 (ρ > 0.5): no index; the scan.

use super::policies::{BinLoad, FitTest, IndexKind, ItemStats};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// An f64 with the total order of `f64::total_cmp`, and a bin index: an entry of the ordered set.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// A minimum segment tree over bin indices (total order of f64), for First Fit's leftmost search.
#[derive(Default)]
struct MinTree {
    /// Leaves at `cap..2·cap`; +∞ past the last bin.
    t: Vec<f64>,
    cap: usize,
}

fn min_total(a: f64, b: f64) -> f64 {
    if a.total_cmp(&b) == Ordering::Greater {
        b
    } else {
        a
    }
}

impl MinTree {
    fn set(&mut self, j: usize, v: f64) {
        if j >= self.cap {
            let cap = (j + 1).next_power_of_two().max(16);
            let mut t = vec![f64::INFINITY; 2 * cap];
            t[cap..cap + self.cap].copy_from_slice(&self.t[self.cap.min(self.t.len())..]);
            for i in (1..cap).rev() {
                t[i] = min_total(t[2 * i], t[2 * i + 1]);
            }
            self.t = t;
            self.cap = cap;
        }
        let mut i = self.cap + j;
        self.t[i] = v;
        while i > 1 {
            i /= 2;
            self.t[i] = min_total(self.t[2 * i], self.t[2 * i + 1]);
        }
    }

    /// The lowest index ≥ `from` whose subtree minimum satisfies `ok` (a test monotone in the value: true
    /// for a value implies true for every smaller one), among indices < `n`.
    fn first(&self, from: usize, n: usize, ok: &dyn Fn(f64) -> bool) -> Option<usize> {
        if from >= n {
            return None;
        }
        self.descend(1, 0, self.cap, from, n, ok)
    }

    fn descend(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        n: usize,
        ok: &dyn Fn(f64) -> bool,
    ) -> Option<usize> {
        if hi <= from || lo >= n || !ok(self.t[node]) {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.descend(2 * node, lo, mid, from, n, ok)
            .or_else(|| self.descend(2 * node + 1, mid, hi, from, n, ok))
    }
}

/// The open bins of one packing, indexed by their key for `test` (see the module documentation).
pub(super) struct BinIndex {
    kind: IndexKind,
    /// Each bin's index key.
    keys: Vec<f64>,
    /// (key, bin) of every bin, for Best Fit.
    sorted: BTreeSet<Entry>,
    /// Keys by bin index, for First Fit.
    tree: MinTree,
    /// GPA: the largest σ_j any bin has had (an upper bound of every bin's).
    max_sd: f64,
    /// GPA: the largest |μ_j| + z·σ_j any bin has had (the scale of the rounding margins).
    max_scale: f64,
    first_fit: bool,
}

/// Relative margin over the rounding error of the GPA bounds (the error is a few units of 2⁻⁵³ ≈ 1.1e-16).
const MARGIN: f64 = 1e-12;

impl BinIndex {
    pub(super) fn new(test: &dyn FitTest, first_fit: bool) -> BinIndex {
        BinIndex {
            kind: test.index(),
            keys: Vec::new(),
            sorted: BTreeSet::new(),
            tree: MinTree::default(),
            max_sd: 0.0,
            max_scale: 0.0,
            first_fit,
        }
    }

    /// Records bin `j`'s load (a new bin is `j` = the number of bins so far); `bound` is its
    /// [`FitTest::bin_bound`].
    pub(super) fn update(&mut self, j: usize, load: &BinLoad, bound: f64) {
        let key = match self.kind {
            IndexKind::Scan => return,
            IndexKind::Size => load.size,
            IndexKind::Gpa { z } => {
                self.max_sd = self.max_sd.max(bound);
                self.max_scale = self.max_scale.max(load.mean.abs() + z * bound);
                load.mean + z * bound
            }
        };
        if j == self.keys.len() {
            self.keys.push(key);
        } else {
            if !self.first_fit {
                self.sorted.remove(&Entry(self.keys[j], j as u32));
            }
            self.keys[j] = key;
        }
        if self.first_fit {
            self.tree.set(j, key);
        } else {
            self.sorted.insert(Entry(key, j as u32));
        }
    }

    /// The bin `item` goes to: the same as `test.choose(loads, bounds, item, c, first_fit)`.
    pub(super) fn choose(
        &self,
        test: &dyn FitTest,
        loads: &[BinLoad],
        bounds: &[f64],
        item: &ItemStats,
        c: f64,
    ) -> Option<usize> {
        let fits = |j: usize| {
            !test.surely_not(&loads[j], bounds[j], item, c) && test.fits(&loads[j], item, c)
        };
        let n = loads.len();
        match (self.kind, self.first_fit) {
            (IndexKind::Scan, _) => test.choose(loads, bounds, item, c, self.first_fit),
            (IndexKind::Size, true) => {
                // fits(ℓ) is monotone in ℓ: a subtree has a fitting bin iff its smallest load fits
                let probe = |size: f64| {
                    let l = BinLoad {
                        size,
                        ..BinLoad::default()
                    };
                    test.fits(&l, item, c)
                };
                self.tree.first(0, n, &probe)
            }
            (IndexKind::Size, false) => self.best_fit_size(test, item, c),
            (IndexKind::Gpa { .. }, true) => {
                let limit = self.gpa_limit(item, c);
                let mut from = 0;
                while let Some(j) = self.tree.first(from, n, &|q: f64| q <= limit) {
                    if fits(j) {
                        return Some(j);
                    }
                    from = j + 1;
                }
                None
            }
            (IndexKind::Gpa { z }, false) => self.best_fit_gpa(test, loads, &fits, item, c, z),
        }
    }

    /// Best Fit of a deterministic test: the largest fitting load ℓ* gives the least key k*; every load
    /// below it fits, and the loads with key k* form a run below ℓ*; the lowest bin index among them wins.
    fn best_fit_size(&self, test: &dyn FitTest, item: &ItemStats, c: f64) -> Option<usize> {
        let at = |size: f64| BinLoad {
            size,
            ..BinLoad::default()
        };
        let fits = |size: f64| test.fits(&at(size), item, c);
        let key = |size: f64| test.best_fit_key(&at(size), item, c);
        // a load above this does not fit (ℓ + s ≤ c in floating point implies ℓ ≤ c − s + margin)
        let limit = c - item.size + MARGIN * (1.0 + c.abs() + item.size.abs());
        let mut top = self
            .sorted
            .range(..=Entry(limit, u32::MAX))
            .next_back()
            .copied();
        // step down to the largest load that fits (a few rounding steps at most)
        while let Some(Entry(size, _)) = top {
            if fits(size) {
                break;
            }
            top = self.sorted.range(..Entry(size, 0)).next_back().copied();
        }
        let Entry(best_size, _) = top?;
        let best_key = key(best_size);
        let mut chosen = u32::MAX;
        let mut size = best_size;
        // the lowest bin index with each load of the run
        while let Some(&Entry(_, j)) = self.sorted.range(Entry(size, 0)..).next() {
            chosen = chosen.min(j);
            match self.sorted.range(..Entry(size, 0)).next_back() {
                Some(&Entry(s, _)) if key(s) == best_key => size = s,
                _ => break,
            }
        }
        Some(chosen as usize)
    }

    /// GPA: a bin whose q_j is above this does not fit the item.
    fn gpa_limit(&self, item: &ItemStats, c: f64) -> f64 {
        c - item.mean + MARGIN * (1.0 + c.abs() + item.mean.abs() + 2.0 * self.max_scale)
    }

    /// Best Fit of GPA: the candidates from the largest q_j down, stopping when the lower bound of the later
    /// bins' keys exceeds the best key found (see the module documentation).
    fn best_fit_gpa(
        &self,
        test: &dyn FitTest,
        loads: &[BinLoad],
        fits: &dyn Fn(usize) -> bool,
        item: &ItemStats,
        c: f64,
        z: f64,
    ) -> Option<usize> {
        let limit = self.gpa_limit(item, c);
        let tol = MARGIN * (1.0 + c.abs() + item.mean.abs() + 2.0 * self.max_scale);
        let sd_item = item.var.sqrt();
        let s = self.max_sd;
        let far = (s * s + item.var).sqrt();
        let mut best: Option<(f64, u32)> = None;
        for &Entry(q, j) in self.sorted.range(..=Entry(limit, u32::MAX)).rev() {
            if let Some((k, _)) = best {
                let d = (c - item.mean) - q - tol;
                if d > 0.0 && k.is_finite() {
                    let near = if sd_item > 0.0 {
                        d / sd_item
                    } else {
                        f64::INFINITY
                    };
                    let bound = near.min((d + z * s) / far);
                    if bound * (1.0 - MARGIN) > k {
                        break;
                    }
                }
            }
            let j_us = j as usize;
            if !fits(j_us) {
                continue;
            }
            // a fitting GPA bin's key is never NaN (c, μ' finite, σ' > 0 finite, or +∞ when σ' = 0)
            let key = test.best_fit_key(&loads[j_us], item, c);
            if best.is_none_or(|(k, bj)| key < k || (key == k && j < bj)) {
                best = Some((key, j));
            }
        }
        best.map(|(_, j)| j as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::placement::FitSpec;

    /// Best Fit ties between different loads: c − ℓ − s rounds three loads a few units of 2⁻⁵⁴ apart to the same
    /// key 0.69 (checked by hand: (1 − 0.3) − 0.01 = (1 − 0.30000000000000004) − 0.01 =
    /// (1 − 0.3000000000000001) − 0.01 = 0.69 in f64); the scan keeps the lowest index, bin 0, which holds
    /// the largest of them, so the index must not stop at the first (highest-index) bin of the smallest.
    #[test]
    fn best_fit_ties_across_loads_go_to_the_lowest_index() {
        let loads: Vec<BinLoad> = [0.3000000000000001, 0.3, 0.30000000000000004, 0.9]
            .iter()
            .map(|&size| BinLoad {
                size,
                ..BinLoad::default()
            })
            .collect();
        let bounds = vec![0.0; loads.len()];
        let item = ItemStats {
            mean: 0.01,
            var: 0.0,
            size: 0.01,
        };
        let test = FitSpec::Av(1.0).test();
        for load in &loads[..3] {
            assert_eq!(test.best_fit_key(load, &item, 1.0), 0.69);
        }
        for first_fit in [false, true] {
            let mut index = BinIndex::new(&*test, first_fit);
            for (j, l) in loads.iter().enumerate() {
                index.update(j, l, 0.0);
            }
            let want = if first_fit { 0 } else { 3 };
            assert_eq!(
                test.choose(&loads, &bounds, &item, 1.0, first_fit),
                Some(want)
            );
            assert_eq!(
                index.choose(&*test, &loads, &bounds, &item, 1.0),
                Some(want)
            );
        }
        // without bin 3 (key 0.09, the tightest), Best Fit is the tie among bins 0–2
        let loads = &loads[..3];
        let mut index = BinIndex::new(&*test, false);
        for (j, l) in loads.iter().enumerate() {
            index.update(j, l, 0.0);
        }
        assert_eq!(test.choose(loads, &bounds[..3], &item, 1.0, false), Some(0));
        assert_eq!(
            index.choose(&*test, loads, &bounds[..3], &item, 1.0),
            Some(0)
        );
        // an item that fits nowhere
        let big = ItemStats {
            mean: 0.8,
            var: 0.0,
            size: 0.8,
        };
        assert_eq!(index.choose(&*test, loads, &bounds[..3], &big, 1.0), None);
    }
}
