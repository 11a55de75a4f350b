//! The one builder every trace reader fills ([`UsageBuilder`]): values in the unit the file was written in,
//! converted to VM units, their decimal grid recorded, stored compactly as [`Samples`]; and
//! [`UsageTrace::from_series_in`], the same from whole series.

use super::samples::{Codes, Samples};
use super::usage::{Unit, UsageTrace};
use crate::input::{TraceError, MAX_FIELD_BYTES};
use crate::substrate::exact::GridScan;

impl UsageTrace {
    /// Builds a trace from per-item series in VM units: [`UsageTrace::from_series_in`] with [`Unit::Vm`].
    pub fn from_series(
        name: &str,
        items: Vec<String>,
        series: Vec<Vec<f64>>,
        interval_s: f64,
    ) -> Result<Self, TraceError> {
        UsageTrace::from_series_in(name, items, series, interval_s, Unit::Vm)
    }

    /// Builds a trace from per-item series of values as read from the file, in `unit`, checking that all
    /// have the same non-zero length and hold finite, non-negative values; the values are converted to VM
    /// units (divided by [`Unit::divisor`], the one conversion of every reader) and their decimal grid as
    /// written is recorded in [`UsageTrace::grid`]. Errors name the trace and the item.
    pub fn from_series_in(
        name: &str,
        items: Vec<String>,
        series: Vec<Vec<f64>>,
        interval_s: f64,
        unit: Unit,
    ) -> Result<Self, TraceError> {
        check_items(name, &items)?;
        let Some(samples) = series.first().map(Vec::len) else {
            return Err(TraceError::new(
                name,
                None,
                None,
                "the trace holds no series",
            ));
        };
        check_samples(name, &items, samples)?;
        let first = items[0].clone();
        let mut b = UsageBuilder::new(unit);
        b.reserve(items.len() * samples);
        let mut series = series.into_iter();
        for item in items {
            let s = series.next().unwrap_or_default();
            if s.len() != samples {
                return Err(TraceError::new(
                    name,
                    None,
                    None,
                    format!("item '{item}' has {} samples but item '{}' has {samples}; all items need the same number", s.len(), first),
                ));
            }
            if let Some(v) = s.iter().find(|v| !v.is_finite() || **v < 0.0) {
                return Err(TraceError::new(
                    name,
                    None,
                    None,
                    format!("item '{item}' has the invalid usage {v}"),
                ));
            }
            for v in s {
                b.push(v);
            }
            b.end_item(item);
        }
        b.finish(name, interval_s)
    }
}

/// Slots of the open-addressing dictionary (twice the most codes, so probes stay short).
const SLOTS: usize = 1 << 17;

/// The first slot of the value with bits `key` (Fibonacci hashing).
#[inline]
fn slot_of(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 47) as usize
}

/// The code of the value `v` (as read) in the dictionary, if it is there.
#[inline]
fn find(slots: &[u32], keys: &[u64], v: f64) -> Option<u32> {
    let key = v.to_bits();
    let mut h = slot_of(key);
    loop {
        let s = *slots.get(h)?;
        if s == 0 {
            return None;
        }
        if keys[s as usize - 1] == key {
            return Some(s - 1);
        }
        h = (h + 1) & (SLOTS - 1);
    }
}

/// Builds a [`UsageTrace`] one value at a time, in the unit the file was written in: converts to VM units
/// (the one conversion, [`Unit::divisor`]), records the decimal grid of the values as written
/// ([`UsageTrace::grid`]) and stores them compactly ([`Samples`]). Readers check values (finite,
/// non-negative, in range) and series lengths with their own file:line:column messages before pushing;
/// [`UsageBuilder::finish`] checks what concerns the whole trace (items, ids, lengths).
pub struct UsageBuilder {
    unit: Unit,
    divisor: f64,
    items: Vec<String>,
    /// values pushed per item, in item order (0 for an item with no values)
    lengths: Vec<usize>,
    pushed: usize,
    codes: Codes,
    table: Vec<f64>,
    /// dictionary: slot → code + 1 (0 = empty), keyed by the bits of the value as read
    slots: Vec<u32>,
    keys: Vec<u64>,
    scan: GridScan,
}

impl UsageBuilder {
    /// An empty builder for values written in `unit`.
    pub fn new(unit: Unit) -> UsageBuilder {
        UsageBuilder {
            unit,
            divisor: unit.divisor(),
            items: Vec::new(),
            lengths: Vec::new(),
            pushed: 0,
            codes: Codes::U8(Vec::new()),
            table: Vec::new(),
            slots: vec![0; SLOTS],
            keys: Vec::new(),
            scan: GridScan::new(),
        }
    }

    /// Values pushed so far (all items).
    pub fn values(&self) -> usize {
        self.len()
    }

    fn len(&self) -> usize {
        match &self.codes {
            Codes::U8(c) => c.len(),
            Codes::U16(c) => c.len(),
            Codes::Plain(v) => v.len(),
        }
    }

    /// Reserves room for `n` more values.
    pub fn reserve(&mut self, n: usize) {
        match &mut self.codes {
            Codes::U8(c) => c.reserve(n),
            Codes::U16(c) => c.reserve(n),
            Codes::Plain(v) => v.reserve(n),
        }
    }

    /// Adds the next value of the current item, as read from the file (in the builder's unit).
    #[inline]
    pub fn push(&mut self, v: f64) {
        self.push_row(&[v]);
    }

    /// Adds the next values of the current item, as read from the file (in the builder's unit).
    pub fn push_row(&mut self, vals: &[f64]) {
        let mut k = 0;
        while k < vals.len() {
            // the values already in the dictionary, without widening
            match &mut self.codes {
                Codes::U8(c) => {
                    while let Some(code) =
                        vals.get(k).and_then(|v| find(&self.slots, &self.keys, *v))
                    {
                        c.push(code as u8);
                        k += 1;
                    }
                }
                Codes::U16(c) => {
                    while let Some(code) =
                        vals.get(k).and_then(|v| find(&self.slots, &self.keys, *v))
                    {
                        c.push(code as u16);
                        k += 1;
                    }
                }
                Codes::Plain(p) => {
                    self.scan.add(&vals[k..]);
                    p.extend(vals[k..].iter().map(|v| v / self.divisor));
                    return;
                }
            }
            // a new value (or the end)
            let Some(&v) = vals.get(k) else { return };
            k += 1;
            let key = v.to_bits();
            let mut h = slot_of(key);
            while self.slots[h] != 0 {
                h = (h + 1) & (SLOTS - 1);
            }
            match (self.insert(h, key, v), &mut self.codes) {
                (Some(code), Codes::U8(c)) => c.push(code as u8),
                (Some(code), Codes::U16(c)) => c.push(code as u16),
                (_, Codes::Plain(p)) => p.push(v / self.divisor),
                _ => {}
            }
        }
    }

    /// Adds a new distinct value at slot `h`; widens the codes when needed. `None` when the codes just
    /// became plain values (too many distinct values; the caller pushes the value itself).
    #[cold]
    #[inline(never)]
    fn insert(&mut self, h: usize, key: u64, v: f64) -> Option<u32> {
        let code = self.table.len();
        if code == 1 << 16 {
            // too many distinct values for u16 codes: plain f64 from now on (the scan covers all so far)
            let vals: Vec<f64> = match &self.codes {
                Codes::U16(c) => c.iter().map(|&k| self.table[k as usize]).collect(),
                Codes::U8(c) => c.iter().map(|&k| self.table[k as usize]).collect(),
                Codes::Plain(v) => v.clone(),
            };
            self.codes = Codes::Plain(vals);
            self.table = Vec::new();
            self.keys = Vec::new();
            self.slots = Vec::new();
            self.scan.add(&[v]);
            return None;
        }
        if code == 256 {
            if let Codes::U8(c) = &self.codes {
                let mut wide = Vec::with_capacity(c.capacity());
                wide.extend(c.iter().map(|&k| k as u16));
                self.codes = Codes::U16(wide);
            }
        }
        self.scan.add(&[v]);
        self.table.push(v / self.divisor);
        self.keys.push(key);
        self.slots[h] = code as u32 + 1;
        Some(code as u32)
    }

    /// Ends the current item: the values pushed since the previous item are the series of `item`.
    pub fn end_item(&mut self, item: String) {
        let n = self.len();
        self.lengths.push(n - self.pushed);
        self.pushed = n;
        self.items.push(item);
    }

    /// Items ended so far.
    pub fn items(&self) -> usize {
        self.items.len()
    }

    /// The trace called `name` sampled every `interval_s` seconds. Errors (naming the trace and the item): no
    /// items, an item id longer than [`MAX_FIELD_BYTES`], an item with no samples, or series of different
    /// lengths.
    pub fn finish(self, name: &str, interval_s: f64) -> Result<UsageTrace, TraceError> {
        let items = self.items;
        check_items(name, &items)?;
        let samples = self.lengths[0];
        check_samples(name, &items, samples)?;
        if let Some((item, n)) = items
            .iter()
            .zip(&self.lengths)
            .find(|(_, n)| **n != samples)
        {
            return Err(TraceError::new(
                name,
                None,
                None,
                format!("item '{item}' has {n} samples but item '{}' has {samples}; all items need the same number", items[0]),
            ));
        }
        let mut codes = self.codes;
        match &mut codes {
            Codes::U8(c) => c.shrink_to_fit(),
            Codes::U16(c) => c.shrink_to_fit(),
            Codes::Plain(v) => v.shrink_to_fit(),
        }
        Ok(UsageTrace {
            name: name.to_string(),
            items,
            samples,
            usage: Samples {
                codes,
                table: self.table,
            },
            interval_s,
            grid: self.scan.grid(self.unit.shift()),
        })
    }
}

/// A trace's series must hold at least one sample each: `samples` is the first item's length (`items` non-empty,
/// checked by [`check_items`]); the error names the trace and that item.
fn check_samples(name: &str, items: &[String], samples: usize) -> Result<(), TraceError> {
    if samples == 0 {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!("item '{}' has no samples", items[0]),
        ));
    }
    Ok(())
}

/// The checks of a trace's item ids: at least one, none longer than [`MAX_FIELD_BYTES`] (the message clips
/// the id to 40 characters).
fn check_items(name: &str, items: &[String]) -> Result<(), TraceError> {
    if items.is_empty() {
        return Err(TraceError::new(
            name,
            None,
            None,
            "the trace holds no items",
        ));
    }
    if let Some(long) = items.iter().find(|i| i.len() > MAX_FIELD_BYTES) {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "item id '{}' of {} bytes exceeds the limit of {MAX_FIELD_BYTES} bytes",
                long.chars().take(40).collect::<String>(),
                long.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(values: &[Vec<f64>], unit: Unit) -> UsageTrace {
        let mut b = UsageBuilder::new(unit);
        for (i, s) in values.iter().enumerate() {
            for &v in s {
                b.push(v);
            }
            b.end_item(format!("vm{i}"));
        }
        b.finish("t", 300.0).unwrap()
    }

    #[test]
    fn every_storage_reads_back_the_values_as_converted() {
        // 101 integer percents (u8 codes), 1001 one-decimal percents (u16), 70,001 values (plain f64)
        for (count, decimals, kind) in [(101, 0, "u8"), (1001, 1, "u16"), (70_001, 3, "plain")] {
            let p = 10f64.powi(decimals);
            let written: Vec<f64> = (0..count)
                .map(|k| format!("{}", k as f64 / p).parse().unwrap())
                .collect();
            let rows: Vec<Vec<f64>> = written.chunks(7).map(|c| c.to_vec()).collect();
            let rows = rows[..rows.len() - 1].to_vec(); // equal lengths
            let t = build(&rows, Unit::Percent);
            let flat: Vec<f64> = rows.concat();
            let expect: Vec<f64> = flat.iter().map(|v| v / 100.0).collect();
            assert_eq!(t.usage, expect, "{kind}");
            assert_eq!(t.usage.to_vec(), expect, "{kind}");
            assert!((0..expect.len()).all(|k| t.usage[k].to_bits() == expect[k].to_bits()));
            let stored = match t.usage.codes {
                Codes::U8(_) => "u8",
                Codes::U16(_) => "u16",
                Codes::Plain(_) => "plain",
            };
            assert_eq!(stored, kind);
            assert_eq!(t.series(1).to_vec(), expect[7..14].to_vec());
            assert_eq!(t.series(1)[3], expect[10]);
            assert_eq!(t.series(1).iter().len(), 7);
            // the grid is that of the values as written, as for any order of the values
            assert_eq!(t.grid.map(|g| g.decimals()), Some(decimals as u32 + 2));
        }
    }

    #[test]
    fn signed_zero_and_distinct_bits_stay_distinct() {
        let t = build(&[vec![0.0, -0.0, 0.0, 12.5]], Unit::Percent);
        let bits: Vec<u64> = t.usage.iter().map(f64::to_bits).collect();
        assert_eq!(bits, [0.0f64, -0.0, 0.0, 0.125].map(f64::to_bits).to_vec());
    }

    #[test]
    fn the_builder_checks_the_whole_trace() {
        let mut b = UsageBuilder::new(Unit::Vm);
        b.push(0.5);
        b.end_item("a".into());
        b.end_item("b".into());
        let e = b.finish("t", 0.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: item 'b' has 0 samples but item 'a' has 1; all items need the same number"
        );
        let e = UsageBuilder::new(Unit::Vm).finish("t", 0.0).unwrap_err();
        assert_eq!(e.to_string(), "t: the trace holds no items");
    }
}
