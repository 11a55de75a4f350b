//! The trace formats, how a format is guessed from the files, and the trait every trace reader implements.

use super::usage::UsageTrace;
use crate::input::{first_line, InputFile, TraceError};
use serde::Serialize;

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

/// A reader of one trace format (shared trait of the trace readers).
pub trait TraceReader {
    /// The format this reader handles.
    fn format(&self) -> TraceFormat;
    /// Reads `files` into a trace called `name`. Errors name file, line and column.
    fn read(&self, name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError>;
}

/// The one file of a single-file format (`what`: the format in words, e.g. "a wide trace"); errors on trace
/// `name` when `files` holds another number of files.
pub fn one_file<'a>(
    name: &str,
    files: &'a [InputFile],
    what: &str,
) -> Result<&'a InputFile, TraceError> {
    match files {
        [file] => Ok(file),
        _ => Err(TraceError::new(
            name,
            None,
            None,
            format!("{what} is one file, got {}", files.len()),
        )),
    }
}
