//! Compact storage of a trace's usage values ([`Samples`]) and the view of one item's series ([`Series`]).
//! The builder readers fill is [`super::UsageBuilder`].
//!
//! Usage values in traces take few distinct values (integer CPU % take at most 101), so they are stored
//! dictionary-encoded: a table of the distinct values (f64, VM units) and one code per value, a `u8` while
//! the trace holds at most 256 distinct values, a `u16` up to 65,536, and plain f64 beyond. Each value reads
//! back as the very f64 the conversion `value as read / divisor` gave, so every result computed from a
//! trace is the same bit for bit whatever the storage (100,000 VMs × 288 integer percents: 29 MB instead of
//! 230 MB of f64).

/// Usage values in VM units, row-major items × samples, stored compactly (see the module documentation).
/// Read like a slice of f64: `len`, indexing (`s[k]`), [`Samples::iter`], [`Samples::to_vec`]; compares
/// equal to a `Vec<f64>` or array holding the same values.
#[derive(Clone, Debug)]
pub struct Samples {
    pub(super) codes: Codes,
    /// the distinct values, VM units (empty when the codes are plain values)
    pub(super) table: Vec<f64>,
}

#[derive(Clone, Debug)]
pub(super) enum Codes {
    U8(Vec<u8>),
    U16(Vec<u16>),
    Plain(Vec<f64>),
}

impl Samples {
    /// Number of values (items × samples).
    pub fn len(&self) -> usize {
        match &self.codes {
            Codes::U8(c) => c.len(),
            Codes::U16(c) => c.len(),
            Codes::Plain(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values of `range` (row-major positions), as a view.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Series<'_> {
        Series(match &self.codes {
            Codes::U8(c) => View::U8(&c[range], &self.table),
            Codes::U16(c) => View::U16(&c[range], &self.table),
            Codes::Plain(v) => View::Plain(&v[range]),
        })
    }

    /// All values in order (VM units).
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.slice(0..self.len()).into_iter()
    }

    /// The values as a `Vec<f64>` (8 bytes a value).
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().collect()
    }

    /// The sum of the values in order (f64 additions from the first value to the last) and, when the values
    /// are dictionary-coded, each distinct value with the number of times it occurs (in order of first
    /// occurrence, values that no longer occur included with count 0); `None` for plain values.
    pub fn sum_and_counts(&self) -> (f64, Option<Vec<(f64, u64)>>) {
        fn coded<C: Copy + Into<usize>>(codes: &[C], table: &[f64]) -> (f64, Vec<(f64, u64)>) {
            let mut n = vec![0u64; table.len()];
            // start where `Iterator::sum` starts (its neutral element), so the result is that of summing the values
            let mut sum: f64 = std::iter::empty::<f64>().sum();
            for &c in codes {
                let k: usize = c.into();
                sum += table[k];
                n[k] += 1;
            }
            (sum, table.iter().copied().zip(n).collect())
        }
        match &self.codes {
            Codes::U8(c) => {
                let (s, n) = coded(c, &self.table);
                (s, Some(n))
            }
            Codes::U16(c) => {
                let (s, n) = coded(c, &self.table);
                (s, Some(n))
            }
            Codes::Plain(v) => (v.iter().sum(), None),
        }
    }

    /// Σ (v − mean)² over the values in order.
    pub fn sum_of_squared_deviations(&self, mean: f64) -> f64 {
        // (v − mean)² of each distinct value once, then summed in order: the same additions as per value
        let sq: Vec<f64> = self.table.iter().map(|v| (v - mean) * (v - mean)).collect();
        match &self.codes {
            Codes::U8(c) => c.iter().map(|&k| sq[k as usize]).sum(),
            Codes::U16(c) => c.iter().map(|&k| sq[k as usize]).sum(),
            Codes::Plain(v) => v.iter().map(|v| (v - mean) * (v - mean)).sum(),
        }
    }

    /// Bytes the values take in memory (codes and table).
    pub fn heap_bytes(&self) -> usize {
        let codes = match &self.codes {
            Codes::U8(c) => c.len(),
            Codes::U16(c) => 2 * c.len(),
            Codes::Plain(v) => 8 * v.len(),
        };
        codes + 8 * self.table.len()
    }
}

impl From<Vec<f64>> for Samples {
    /// Plain f64 values (8 bytes each), e.g. realisations drawn from a trace.
    fn from(values: Vec<f64>) -> Samples {
        Samples {
            codes: Codes::Plain(values),
            table: Vec::new(),
        }
    }
}

impl std::ops::Index<usize> for Samples {
    type Output = f64;
    fn index(&self, k: usize) -> &f64 {
        match &self.codes {
            Codes::U8(c) => &self.table[c[k] as usize],
            Codes::U16(c) => &self.table[c[k] as usize],
            Codes::Plain(v) => &v[k],
        }
    }
}

impl PartialEq for Samples {
    /// Equal when they hold the same values in the same order, whatever the storage.
    fn eq(&self, other: &Samples) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl PartialEq<[f64]> for Samples {
    fn eq(&self, other: &[f64]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl PartialEq<Vec<f64>> for Samples {
    fn eq(&self, other: &Vec<f64>) -> bool {
        *self == other[..]
    }
}

impl<const N: usize> PartialEq<[f64; N]> for Samples {
    fn eq(&self, other: &[f64; N]) -> bool {
        *self == other[..]
    }
}

/// The usage series of one item ([`super::UsageTrace::series`]): a view of [`Samples`], read like `&[f64]`
/// (`len`, indexing, [`Series::iter`] yielding f64 values in VM units).
#[derive(Clone, Copy, Debug)]
pub struct Series<'a>(View<'a>);

#[derive(Clone, Copy, Debug)]
enum View<'a> {
    U8(&'a [u8], &'a [f64]),
    U16(&'a [u16], &'a [f64]),
    Plain(&'a [f64]),
}

impl<'a> Series<'a> {
    /// Number of samples.
    pub fn len(&self) -> usize {
        match self.0 {
            View::U8(c, _) => c.len(),
            View::U16(c, _) => c.len(),
            View::Plain(v) => v.len(),
        }
    }

    /// Whether the series is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values in order (VM units).
    pub fn iter(&self) -> SeriesIter<'a> {
        SeriesIter {
            view: self.0,
            at: 0,
        }
    }

    /// The values as a `Vec<f64>`.
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().collect()
    }
}

impl std::ops::Index<usize> for Series<'_> {
    type Output = f64;
    fn index(&self, k: usize) -> &f64 {
        match self.0 {
            View::U8(c, t) => &t[c[k] as usize],
            View::U16(c, t) => &t[c[k] as usize],
            View::Plain(v) => &v[k],
        }
    }
}

impl<'a> IntoIterator for Series<'a> {
    type Item = f64;
    type IntoIter = SeriesIter<'a>;
    fn into_iter(self) -> SeriesIter<'a> {
        self.iter()
    }
}

/// Iterator over the values of a [`Series`] (f64, VM units).
#[derive(Clone, Debug)]
pub struct SeriesIter<'a> {
    view: View<'a>,
    at: usize,
}

impl Iterator for SeriesIter<'_> {
    type Item = f64;
    #[inline]
    fn next(&mut self) -> Option<f64> {
        let k = self.at;
        let v = match self.view {
            View::U8(c, t) => t[*c.get(k)? as usize],
            View::U16(c, t) => t[*c.get(k)? as usize],
            View::Plain(v) => *v.get(k)?,
        };
        self.at = k + 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = Series(self.view).len() - self.at;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SeriesIter<'_> {}
