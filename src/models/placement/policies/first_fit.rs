//! First Fit (seed 002 Alg. 1; ALGORITHMS.md §4.3): the lowest-index open bin the item fits into.

/// The index of the first open bin the item fits in, given whether it fits in each bin in index order
/// (`fits`, evaluated lazily up to the first `true`), or `None`. O(m): the scan the indexed packing equals
/// ([`super::FitTest::choose`]).
#[inline]
pub fn scan(mut fits: impl Iterator<Item = bool>) -> Option<usize> {
    fits.position(|f| f)
}
