//! Best Fit (seed 002 Alg. 1; ALGORITHMS.md §4.3): the fitting bin with the smallest Best Fit key (the
//! tightest fit, [`super::FitTest::best_fit_key`]), the lowest index on ties; a NaN key never wins.

/// The index of the Best Fit bin given, for each open bin in index order, its key when the item fits and
/// `None` when it does not (`keys`), or `None` when it fits in none. O(m): the scan the indexed packing
/// equals ([`super::FitTest::choose`]).
#[inline]
pub fn scan(keys: impl Iterator<Item = Option<f64>>) -> Option<usize> {
    let mut chosen: Option<(usize, f64)> = None;
    for (j, key) in keys.enumerate() {
        let Some(key) = key else { continue };
        // strict '<' keeps the lowest index on ties; a NaN key never wins
        if chosen.is_none_or(|(_, best)| key < best) {
            chosen = Some((j, key));
        }
    }
    chosen.map(|(j, _)| j)
}
