//! First Fit (seed 002 Alg. 1; ALGORITHMS.md §4.3): the lowest-index open bin the item fits into.

use super::fit_test::{BinLoad, FitTest, ItemStats};

/// The first bin among `loads` (with [`FitTest::bin_bound`]s `bounds`) that `item` fits in under `test` on
/// capacity `c` (VM units), or `None`. O(m): the scan the indexed packing equals.
#[inline]
pub fn scan<T: FitTest + ?Sized>(
    test: &T,
    loads: &[BinLoad],
    bounds: &[f64],
    item: &ItemStats,
    c: f64,
) -> Option<usize> {
    loads.iter().zip(bounds).position(|(load, bound)| {
        !test.surely_not(load, *bound, item, c) && test.fits(load, item, c)
    })
}
