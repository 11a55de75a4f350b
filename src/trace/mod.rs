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
mod builder;
mod format;
mod long_csv;
mod planetlab;
mod samples;
mod usage;
pub mod usage_alibaba;
pub mod usage_azure;
pub mod usage_bitbrains;
mod wide;

pub use builder::UsageBuilder;
pub use format::{TraceFormat, TraceReader};
pub use long_csv::LongCsvReader;
pub use planetlab::PlanetLabReader;
pub use samples::{Samples, Series, SeriesIter};
pub use usage::{HistogramBin, TimedUsage, TraceSummary, Unit, UsageTrace};
pub use usage_alibaba::{read_alibaba_machine_usage_timed, MachineUsageOptions};
pub use usage_azure::{read_azure_cpu_readings, read_azure_cpu_readings_timed, ReadingStat};
pub use usage_bitbrains::{read_bitbrains, read_bitbrains_timed};
pub use wide::{write_wide, WideReader};

use crate::input::{check_upload, upload_name, InflateBudget, InputFile, TraceError};

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
