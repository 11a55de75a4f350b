//! Best Fit (seed 002 Alg. 1; ALGORITHMS.md §4.3): the fitting bin with the smallest
//! [`FitTest::best_fit_key`] (the tightest fit), the lowest index on ties; a NaN key never wins.

use super::fit_test::{BinLoad, FitTest, ItemStats};

/// The Best Fit bin among `loads` (with [`FitTest::bin_bound`]s `bounds`) for `item` under `test` on
/// capacity `c` (VM units), or `None` when it fits in none. O(m): the scan the indexed packing equals.
#[inline]
pub fn scan<T: FitTest + ?Sized>(
    test: &T,
    loads: &[BinLoad],
    bounds: &[f64],
    item: &ItemStats,
    c: f64,
) -> Option<usize> {
    let mut chosen: Option<(usize, f64)> = None;
    for (j, (load, bound)) in loads.iter().zip(bounds).enumerate() {
        if test.surely_not(load, *bound, item, c) || !test.fits(load, item, c) {
            continue;
        }
        let key = test.best_fit_key(load, item, c);
        // strict '<' keeps the lowest index on ties; a NaN key never wins
        if chosen.is_none_or(|(_, best)| key < best) {
            chosen = Some((j, key));
        }
    }
    chosen.map(|(j, _)| j)
}
