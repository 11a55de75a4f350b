//! The usage trace: per-VM CPU series sampled at common instants, in VM units, with its summary (what every
//! trace reader returns; ALGORITHMS.md §4.1).

use super::samples::{Samples, Series};
use crate::substrate::exact::DecimalGrid;
use serde::Serialize;

/// A set of per-VM usage series sampled at common instants (ALGORITHMS.md §4.1: items × realisations).
#[derive(Clone, Debug, PartialEq)]
pub struct UsageTrace {
    /// Trace name (folder, file or bundled id), used in messages and scenarios.
    pub name: String,
    /// Item (VM) ids in trace order; packing follows this order (seed 002 §4, ALGORITHMS.md §4.3).
    pub items: Vec<String>,
    /// Samples per item (the realisations R; 288 for a PlanetLab day).
    pub samples: usize,
    /// Usage in VM units, row-major `items.len() × samples`: `usage[i * samples + t]`, stored compactly
    /// ([`Samples`]: each value reads back as the f64 the conversion gave).
    pub usage: Samples,
    /// Sampling interval in seconds (300 for PlanetLab); `0` when unknown.
    pub interval_s: f64,
    /// The decimal grid (in VM units) every usage value lies on as written in the file, e.g. 10^-2 for
    /// integer CPU %; `None` when some value lies on no grid with at most 15 decimals in its unit (e.g. bin
    /// means). The overflow test decides exact ties on it (ALGORITHMS.md §4.4, [`crate::substrate::exact`]).
    /// Set by [`UsageTrace::from_series_in`]; it describes `usage` as read, so `usage` is not to be changed.
    pub grid: Option<DecimalGrid>,
}

/// The unit usage values are written in, in a trace file; the engine keeps VM units (seed 002 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// VM units: 1.0 = one VM's full CPU (long CSV, `unit=vm` wide files).
    Vm,
    /// CPU percent of one VM: 100 = one VM unit (PlanetLab, `unit=percent` wide files, Bitbrains, Azure).
    Percent,
}

impl Unit {
    /// Decimal digits the conversion to VM units shifts by (value / 10^digits): 0 or 2.
    pub fn shift(self) -> u32 {
        match self {
            Unit::Vm => 0,
            Unit::Percent => 2,
        }
    }

    /// The divisor to VM units: 1 or 100.
    pub fn divisor(self) -> f64 {
        match self {
            Unit::Vm => 1.0,
            Unit::Percent => 100.0,
        }
    }
}

impl UsageTrace {
    /// SHA-256 of the trace's content, lower-case hex: what a share link to an uploaded trace records, so the
    /// same data picked as files, as a folder or as a zip opens the link (issue 28). Hashed: the tag
    /// `packlab-usage-trace-v1`, then the item count, the samples per item (u64 little-endian), the interval's
    /// f64 bits and every usage value's f64 bits (little-endian, items in trace order); the items' names and
    /// the upload's file names are not part of it.
    pub fn content_sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"packlab-usage-trace-v1\n");
        h.update((self.items.len() as u64).to_le_bytes());
        h.update((self.samples as u64).to_le_bytes());
        h.update(self.interval_s.to_bits().to_le_bytes());
        let mut buf = Vec::with_capacity(8 * 4096);
        for v in self.usage.iter() {
            buf.extend_from_slice(&v.to_bits().to_le_bytes());
            if buf.len() >= 8 * 4096 {
                h.update(&buf);
                buf.clear();
            }
        }
        h.update(&buf);
        crate::input::hex(&h.finalize())
    }

    /// The usage series of item `i` (length [`UsageTrace::samples`], VM units). Panics if `i` is out of range.
    pub fn series(&self, i: usize) -> Series<'_> {
        self.usage.slice(i * self.samples..(i + 1) * self.samples)
    }

    /// Summary statistics of all usage values (VM units) and a histogram, for the playground's trace panel.
    pub fn summary(&self) -> TraceSummary {
        let n = self.usage.len().max(1) as f64;
        // the sums run over the values in order (as they always did); min, max and the histogram only need
        // how often each distinct value occurs
        let (sum, counted) = self.usage.sum_and_counts();
        let mean = sum / n;
        let var = self.usage.sum_of_squared_deviations(mean) / n;
        // by distinct value, unless -0 is among them (min and max of ±0 then depend on the order)
        let counted = counted.filter(|c| !c.iter().any(|(v, _)| *v == 0.0 && v.is_sign_negative()));
        let (min, max) = match &counted {
            Some(c) => c.iter().fold((f64::INFINITY, 0.0), |(lo, hi), (v, _)| {
                (f64::min(lo, *v), f64::max(hi, *v))
            }),
            None => (
                self.usage.iter().fold(f64::INFINITY, f64::min),
                self.usage.iter().fold(0.0, f64::max),
            ),
        };
        let total_mean = sum / self.samples.max(1) as f64;
        // 20 equal bins over [0, max(1, max)].
        let hi = if max > 1.0 { max } else { 1.0 };
        let bins = 20usize;
        let width = hi / bins as f64;
        let mut counts = vec![0u64; bins];
        let bin = |v: f64| ((v / width) as usize).min(bins - 1);
        match &counted {
            Some(c) => c.iter().for_each(|(v, count)| counts[bin(*v)] += count),
            None => self.usage.iter().for_each(|v| counts[bin(v)] += 1),
        }
        TraceSummary {
            name: self.name.clone(),
            vms: self.items.len(),
            samples: self.samples,
            interval_s: self.interval_s,
            mean,
            sd: var.sqrt(),
            min: if min.is_finite() { min } else { 0.0 },
            max,
            total_mean,
            histogram: counts
                .into_iter()
                .enumerate()
                .map(|(k, count)| HistogramBin {
                    lo: k as f64 * width,
                    hi: (k + 1) as f64 * width,
                    count,
                })
                .collect(),
        }
    }
}

/// Summary of a loaded trace (all values in VM units).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceSummary {
    /// Trace name.
    pub name: String,
    /// Number of VMs (items).
    pub vms: usize,
    /// Samples per VM.
    pub samples: usize,
    /// Sampling interval, seconds (0 = unknown).
    pub interval_s: f64,
    /// Mean usage over all values, VM units.
    pub mean: f64,
    /// Population standard deviation over all values, VM units.
    pub sd: f64,
    /// Smallest value, VM units.
    pub min: f64,
    /// Largest value, VM units.
    pub max: f64,
    /// Mean total usage of all VMs together (sum of per-VM means), VM units.
    pub total_mean: f64,
    /// Histogram of all values: 20 equal bins over [0, max(1, max)].
    pub histogram: Vec<HistogramBin>,
}

/// One histogram bin `[lo, hi)` (the last bin is closed) with its count.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HistogramBin {
    /// Lower edge, VM units.
    pub lo: f64,
    /// Upper edge, VM units.
    pub hi: f64,
    /// Number of values in the bin.
    pub count: u64,
}

/// A usage trace with its sample instants (s) and what alignment dropped or filled (the `_timed` readers).
#[derive(Clone, Debug, PartialEq)]
pub struct TimedUsage {
    /// The trace (VM units).
    pub trace: UsageTrace,
    /// Sample instants, s from the trace origin (`trace.samples` of them, increasing).
    pub times_s: Vec<f64>,
    /// What was dropped or filled while aligning, in words.
    pub notes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::TraceError;

    #[test]
    fn error_display_names_file_line_column() {
        let e = TraceError::new("day/vm1", Some(3), Some(2), "bad");
        assert_eq!(e.to_string(), "day/vm1:3:2: bad");
        assert_eq!(TraceError::new("x", None, None, "m").to_string(), "x: m");
    }

    #[test]
    fn summary_by_hand() {
        let t = UsageTrace::from_series(
            "t",
            vec!["a".into(), "b".into()],
            vec![vec![0.0, 0.5], vec![1.0, 0.5]],
            300.0,
        )
        .unwrap();
        let s = t.summary();
        assert_eq!(s.vms, 2);
        assert_eq!(s.samples, 2);
        assert_eq!(s.mean, 0.5);
        assert!((s.sd - (0.125f64).sqrt()).abs() < 1e-15);
        assert_eq!(s.total_mean, 1.0);
        assert_eq!(s.histogram.iter().map(|b| b.count).sum::<u64>(), 4);
        assert_eq!(s.histogram[19].count, 1); // 1.0 lands in the last (closed) bin
        assert_eq!(s.histogram[10].count, 2);
    }
}
