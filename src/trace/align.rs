//! The alignment of per-item samples on common instants (the usage readers of sources sampled per item).

use crate::input::{TraceError, MAX_VALUES};
use std::collections::HashMap;

/// Items sampled at common instants: the output of [`align_exact`] and the usage readers.
pub(crate) struct Aligned {
    /// Sample instants kept, s (sorted).
    pub times: Vec<f64>,
    /// Per item, its values at `times`.
    pub series: Vec<Vec<f64>>,
    /// Number of distinct instants seen for some item but dropped because another item lacks them.
    pub dropped: usize,
}

/// Aligns per-item `(time, value)` samples on the instants that **every** item has (exact equality of the
/// times); instants missing for some item are dropped for all (counted in [`Aligned::dropped`]), nothing is
/// filled. Duplicate times within an item must have been removed. Errors when no instant is common.
pub(crate) fn align_exact(
    name: &str,
    items: &[String],
    points: &mut [Vec<(f64, f64)>],
) -> Result<Aligned, TraceError> {
    let mut count: HashMap<u64, usize> = HashMap::new();
    for p in points.iter() {
        for (t, _) in p {
            *count.entry(t.to_bits()).or_insert(0) += 1;
        }
    }
    let n = items.len();
    let mut times: Vec<f64> = count
        .iter()
        .filter(|(_, c)| **c == n)
        .map(|(t, _)| f64::from_bits(*t))
        .collect();
    crate::substrate::stats::sort_f64(&mut times);
    let dropped = count.len() - times.len();
    if times.is_empty() {
        let (fewest, _) = points
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| p.len())
            .unwrap_or((0, &Vec::new()));
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "no sampling instant is common to all {n} items (e.g. item '{}' has {} samples); read fewer items together",
                items.get(fewest).map(String::as_str).unwrap_or("?"),
                points.get(fewest).map(Vec::len).unwrap_or(0)
            ),
        ));
    }
    if times.len().saturating_mul(n) > MAX_VALUES {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "{n} items × {} samples exceed {MAX_VALUES} values",
                times.len()
            ),
        ));
    }
    let keep: std::collections::HashSet<u64> = times.iter().map(|t| t.to_bits()).collect();
    let series = points
        .iter_mut()
        .map(|p| {
            crate::substrate::stats::sort_pairs(p);
            p.iter()
                .filter(|(t, _)| keep.contains(&t.to_bits()))
                .map(|(_, v)| *v)
                .collect()
        })
        .collect();
    Ok(Aligned {
        times,
        series,
        dropped,
    })
}

/// The most frequent gap between consecutive instants (the nominal sampling interval, s); 0 for < 2 instants.
pub(crate) fn nominal_interval(times: &[f64]) -> f64 {
    let mut gaps: HashMap<u64, usize> = HashMap::new();
    for w in times.windows(2) {
        *gaps.entry((w[1] - w[0]).to_bits()).or_insert(0) += 1;
    }
    gaps.into_iter()
        .max_by(|a, b| {
            a.1.cmp(&b.1)
                .then(f64::from_bits(b.0).total_cmp(&f64::from_bits(a.0)))
        })
        .map(|(g, _)| f64::from_bits(g))
        .unwrap_or(0.0)
}
