//! Trace readers: per-VM CPU usage series in several formats, each returning a typed [`UsageTrace`] or a
//! [`TraceError`] that names the file, line and column (never a panic).
//!
//! Formats (see docs/input-formats.md, "Usage traces"):
//! - [`TraceFormat::PlanetLab`]: a PlanetLab/CoMon day folder as shipped with CloudSim: one file per VM, one
//!   integer CPU % (0–100) per line, 288 lines of 5 minutes each (../shared/data/planetlab-cloudsim/SOURCE.md);
//!   in the browser also as a `.zip` of that folder.
//! - [`TraceFormat::LongCsv`]: a generic long CSV with header `item,time,usage` (usage in VM units: 1.0 = one
//!   VM's full CPU; time in any unit, every item must have the same set of times).
//! - [`TraceFormat::Wide`]: packlab's compact wide text format, optionally gzip-compressed (the bundled traces).
//!
//! Usage is always stored in VM units (CPU % / 100), the unit of the machine capacity `c` (seed 002 §5.1).
//! Readers hand the values over in the unit they were written in ([`Unit`]); [`UsageTrace::from_series_in`]
//! converts them and records the decimal grid they lie on as written ([`UsageTrace::grid`]), which makes the
//! overflow count q exact (ALGORITHMS.md §4.4, [`crate::substrate::exact`]). Every reader fills one
//! [`UsageBuilder`], which stores the values compactly ([`Samples`]: codes into a table of the distinct
//! values, read back bit for bit); the wide reader streams its file a line at a time ([`TextLines`]).

mod align;
mod long_csv;
mod planetlab;
mod samples;
pub mod usage_alibaba;
pub mod usage_azure;
pub mod usage_bitbrains;
mod wide;

pub use long_csv::LongCsvReader;
pub use planetlab::PlanetLabReader;
pub use samples::{Samples, Series, SeriesIter, UsageBuilder};
pub use usage_alibaba::{read_alibaba_machine_usage_timed, MachineUsageOptions};
pub use usage_azure::{read_azure_cpu_readings, read_azure_cpu_readings_timed, ReadingStat};
pub use usage_bitbrains::{read_bitbrains, read_bitbrains_timed};
pub use wide::{write_wide, WideReader};

use crate::input::{check_upload, first_line, upload_name, InflateBudget, InputFile, TraceError};
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
        samples::check_items(name, &items)?;
        let Some(samples) = series.first().map(Vec::len) else {
            return Err(TraceError::new(
                name,
                None,
                None,
                "the trace holds no series",
            ));
        };
        if samples == 0 {
            return Err(TraceError::new(
                name,
                None,
                None,
                format!("item '{}' has no samples", items[0]),
            ));
        }
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

/// The trace formats packlab reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// PlanetLab/CoMon day folder (one file per VM, CPU % per line), or a `.zip` of one.
    PlanetLab,
    /// Generic long CSV `item,time,usage` (usage in VM units).
    LongCsv,
    /// packlab's compact wide format (`.tsv` or `.tsv.gz`).
    Wide,
    /// Bitbrains GWA-T-12 per-VM files as published (`;`-separated, header with `CPU usage [%]`; one item per
    /// file, aligned on the timestamps every VM has; [`crate::trace::usage_bitbrains`]).
    Bitbrains,
    /// Azure Public Dataset V2 (2019) 5-minute CPU readings `timestamp,vm id,min,max,avg`, the average of
    /// each interval ([`crate::trace::usage_azure`]).
    #[serde(rename = "azure-readings-avg")]
    AzureReadingsAvg,
    /// The same readings, the maximum of each interval.
    #[serde(rename = "azure-readings-max")]
    AzureReadingsMax,
    /// Alibaba cluster-trace-v2018 `machine_usage.csv` (one item per machine, averaged into 300 s bins;
    /// [`crate::trace::usage_alibaba`]).
    #[serde(rename = "alibaba-machine-usage")]
    AlibabaMachineUsage,
}

impl TraceFormat {
    /// Every format, with its CLI name (`--format`).
    pub const ALL: &'static [(TraceFormat, &'static str)] = &[
        (TraceFormat::PlanetLab, "planetlab"),
        (TraceFormat::LongCsv, "csv"),
        (TraceFormat::Wide, "wide"),
        (TraceFormat::Bitbrains, "bitbrains"),
        (TraceFormat::AzureReadingsAvg, "azure-readings-avg"),
        (TraceFormat::AzureReadingsMax, "azure-readings-max"),
        (TraceFormat::AlibabaMachineUsage, "alibaba-machine-usage"),
    ];

    /// Parses a format name as used by the CLI: `planetlab`, `csv` (or `long-csv`), `wide`, `bitbrains`,
    /// `azure-readings-avg`, `azure-readings-max`, `alibaba-machine-usage`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "csv" | "long-csv" | "longcsv" => return Ok(TraceFormat::LongCsv),
            "wide" | "tsv" => return Ok(TraceFormat::Wide),
            _ => {}
        }
        TraceFormat::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(f, _)| *f)
            .ok_or_else(|| {
                let names: Vec<&str> = TraceFormat::ALL.iter().map(|(_, n)| *n).collect();
                format!("unknown trace format '{s}' (expected {})", names.join(", "))
            })
    }

    /// Guesses the format from the files: one `.tsv`/`.tsv.gz`/`.gz` → wide; one `.csv`/`.csv.gz`, or a
    /// folder of them, by its first line ([`TraceFormat::detect_csv`]; a folder of long CSVs stays
    /// PlanetLab, as before); a `.zip`, any other folder or a single file of plain numbers → PlanetLab.
    pub fn detect(files: &[InputFile]) -> TraceFormat {
        let csv = |n: &str| {
            let n = n.to_ascii_lowercase();
            n.ends_with(".csv") || n.ends_with(".csv.gz")
        };
        if files.len() == 1 {
            let n = files[0].name.to_ascii_lowercase();
            if csv(&n) {
                return TraceFormat::detect_csv(&first_line(&files[0]));
            }
            if n.ends_with(".tsv") || n.ends_with(".tsv.gz") || n.ends_with(".gz") {
                return TraceFormat::Wide;
            }
            return TraceFormat::PlanetLab;
        }
        // a folder: hidden files (.DS_Store) do not count
        let visible: Vec<&InputFile> = files
            .iter()
            .filter(|f| !f.name.rsplit('/').next().unwrap_or("").starts_with('.'))
            .collect();
        if !visible.is_empty() && visible.iter().all(|f| csv(&f.name)) {
            match TraceFormat::detect_csv(&first_line(visible[0])) {
                TraceFormat::LongCsv => {}
                f => return f,
            }
        }
        TraceFormat::PlanetLab
    }

    /// The CSV format of a file whose first line is `head`: a header naming `CPU usage [%]` → Bitbrains; a
    /// first field `timestamp`, or a number followed by a non-number (`0,<vm id>,…`) → Azure readings
    /// (average); `m_<n>,<number>,…` → Alibaba machine usage; anything else → long CSV.
    pub fn detect_csv(head: &str) -> TraceFormat {
        let low = head.to_ascii_lowercase();
        if low.contains("cpu usage [%]") {
            return TraceFormat::Bitbrains;
        }
        let mut f = head.split(',');
        let (a, b) = (f.next().unwrap_or("").trim(), f.next().unwrap_or("").trim());
        if a.eq_ignore_ascii_case("timestamp")
            || (a.parse::<f64>().is_ok() && b.parse::<f64>().is_err())
        {
            return TraceFormat::AzureReadingsAvg;
        }
        if a.starts_with("m_") && b.parse::<f64>().is_ok() {
            return TraceFormat::AlibabaMachineUsage;
        }
        TraceFormat::LongCsv
    }
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

/// A reader of one trace format (shared trait of the trace readers).
pub trait TraceReader {
    /// The format this reader handles.
    fn format(&self) -> TraceFormat;
    /// Reads `files` into a trace called `name`. Errors name file, line and column.
    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError>;
}

/// Reads `files` in the given format (or a detected one when `format` is `None`). `name` names the trace.
///
/// This is the single entry point of the CLI and the browser; errors name file, line and column, and the
/// input sizes are bounded by [`MAX_UPLOAD_BYTES`] and [`MAX_VALUES`].
pub fn read_trace(
    name: &str,
    files: &[InputFile],
    format: Option<TraceFormat>,
) -> Result<UsageTrace, TraceError> {
    check_upload(name, files)?;
    let _budget = InflateBudget::start();
    let format = format.unwrap_or_else(|| TraceFormat::detect(files));
    let trace = match format {
        TraceFormat::PlanetLab => PlanetLabReader.read(name, files),
        TraceFormat::LongCsv => LongCsvReader.read(name, files),
        TraceFormat::Wide => WideReader.read(name, files),
        TraceFormat::Bitbrains => crate::trace::read_bitbrains(name, files),
        TraceFormat::AzureReadingsAvg => {
            crate::trace::read_azure_cpu_readings(name, files, crate::trace::ReadingStat::Avg)
        }
        TraceFormat::AzureReadingsMax => {
            crate::trace::read_azure_cpu_readings(name, files, crate::trace::ReadingStat::Max)
        }
        TraceFormat::AlibabaMachineUsage => read_alibaba_machine_usage(name, files),
    }?;
    Ok(trace)
}

/// The Alibaba 2018 machine-usage reader, natively. It is a cluster-wide machine trace, not a per-VM upload of
/// the placement view, and the browser bundle leaves it out to stay within its size budget (it adds 5 KiB
/// gzip): there the file is converted once with `packlab bundle --format alibaba-machine-usage --trace FILE
/// --out x.tsv.gz`, and the wide file is uploaded.
#[cfg(not(target_arch = "wasm32"))]
fn read_alibaba_machine_usage(name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
    usage_alibaba::read_alibaba_machine_usage(name, files, &MachineUsageOptions::default())
}

/// In the browser: a clear message pointing to the CLI conversion (see the native version).
#[cfg(target_arch = "wasm32")]
fn read_alibaba_machine_usage(name: &str, _files: &[InputFile]) -> Result<UsageTrace, TraceError> {
    Err(TraceError::new(
        name,
        None,
        None,
        "Alibaba 2018 machine usage is read by the packlab CLI: convert it with `packlab bundle --format \
         alibaba-machine-usage --trace machine_usage.csv --out machines.tsv.gz` and upload machines.tsv.gz",
    ))
}

/// Convenience for the browser: detects the format and reads; the trace is named after the single file
/// (or the common folder of several files).
pub fn read_upload(files: Vec<(String, Vec<u8>)>) -> Result<UsageTrace, TraceError> {
    let files: Vec<InputFile> = files
        .into_iter()
        .map(|(name, bytes)| InputFile { name, bytes })
        .collect();
    let name = upload_name(&files);
    read_trace(&name, &files, None)
}

#[cfg(test)]
mod tests {
    use super::*;

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

/// The limits on untrusted input (docs/input-formats.md "Limits on untrusted input"): each is enforced before the memory is
/// spent, with a message naming the file (and line) and the limit.
#[cfg(test)]
mod limit_tests {
    use super::*;
    use crate::input::{
        MAX_FIELD_BYTES, MAX_FILES, MAX_INFLATED_BYTES, MAX_LINE_BYTES, MAX_UPLOAD_BYTES,
    };
    use std::io::Write;

    fn gz_zeros(n: usize) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let chunk: Vec<u8> = b"0\n".repeat(1 << 19); // lines of a valid PlanetLab file
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            e.write_all(&chunk[..k]).unwrap();
            left -= k;
        }
        e.finish().unwrap()
    }

    fn file(name: &str, bytes: Vec<u8>) -> InputFile {
        InputFile {
            name: name.into(),
            bytes,
        }
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_per_file_limit() {
        let bomb = gz_zeros(MAX_UPLOAD_BYTES + 1);
        assert!(bomb.len() < 2 << 20, "{}", bomb.len());
        let e = read_trace("b", &[file("bomb.tsv.gz", bomb)], None).unwrap_err();
        assert_eq!(e.file, "bomb.tsv.gz");
        assert!(
            e.message
                .contains("decompresses to more than 268435456 bytes"),
            "{e}"
        );
    }

    #[test]
    fn many_small_bombs_stop_at_the_upload_limit() {
        // two files within the per-file limit, together beyond the upload's: the second is refused
        let part = gz_zeros(MAX_INFLATED_BYTES / 2 + 1);
        let files = vec![
            file("vmtable1.csv.gz", part.clone()),
            file("vmtable2.csv.gz", part),
        ];
        let fmt = Some(crate::workload::WorkloadFormat::AzureVmtable);
        let e = crate::workload::read_workload("w", &files, fmt).unwrap_err();
        assert_eq!(e.file, "vmtable2.csv.gz");
        assert!(
            e.message
                .contains("decompresses to more than 268435456 bytes in all"),
            "{e}"
        );
        // the budget belongs to one upload: the next one starts afresh
        let ok = read_trace("d", &[file("d/vm", b"1\n2\n".to_vec())], None).unwrap();
        assert_eq!(ok.samples, 2);
    }

    #[test]
    fn a_zip_bomb_stops_at_the_upload_limit() {
        let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(1));
        let chunk = vec![b'0'; 1 << 20];
        for name in ["vm1", "vm2"] {
            z.start_file(name, opts).unwrap();
            for _ in 0..(MAX_INFLATED_BYTES >> 20) / 2 + 1 {
                z.write_all(&chunk).unwrap();
            }
        }
        let bytes = z.finish().unwrap().into_inner();
        assert!(bytes.len() < 4 << 20);
        let e = read_trace("day", &[file("day.zip", bytes)], None).unwrap_err();
        assert_eq!(e.file, "day.zip");
        assert!(e.message.contains("in all"), "{e}");
    }

    #[test]
    fn too_many_files_are_refused_before_reading() {
        let files: Vec<InputFile> = (0..=MAX_FILES)
            .map(|i| file(&format!("day/vm{i}"), Vec::new()))
            .collect();
        let e = read_trace("day", &files, None).unwrap_err();
        assert!(
            e.message
                .contains("100001 files exceed the limit of 100000"),
            "{e}"
        );
        let e = crate::workload::read_workload("w", &files, None).unwrap_err();
        assert!(e.message.contains("exceed the limit"), "{e}");
    }

    #[test]
    fn a_line_too_long_is_named() {
        let mut text = b"#packlab-wide v1 unit=vm interval_s=300\nvm\t".to_vec();
        text.extend(std::iter::repeat_n(b'1', MAX_LINE_BYTES));
        text.extend(b"\n");
        let e = read_trace("t", &[file("t.tsv", text)], None).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.column),
            ("t.tsv", Some(2), Some(1))
        );
        assert!(
            e.message.contains("exceeds the limit of 4194304 bytes"),
            "{e}"
        );
    }

    #[test]
    fn an_id_too_long_is_refused_and_clipped_in_the_message() {
        let id = "v".repeat(MAX_FIELD_BYTES + 1);
        let text = format!("#packlab-wide v1 unit=vm interval_s=300\n{id}\t0.5,0.25\n");
        let e = read_trace("t", &[file("t.tsv", text.into_bytes())], None).unwrap_err();
        assert!(
            e.message
                .contains("of 4097 bytes exceeds the limit of 4096 bytes"),
            "{e}"
        );
        assert!(e.to_string().len() < 200, "{e}");
        let csv = format!("item,time,usage\n{id},0,0.5\n");
        let e = read_trace("c", &[file("c.csv", csv.into_bytes())], None).unwrap_err();
        assert!(e.message.contains("exceeds the limit of 4096 bytes"), "{e}");
    }
}
