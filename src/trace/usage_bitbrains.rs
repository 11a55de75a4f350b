//! Bitbrains GWA-T-12 per-VM files (`<n>.csv`, `;`-separated with a header, one file per VM) as a
//! [`UsageTrace`]: one item per file, CPU usage [%] / 100 (VM units), aligned on the timestamps every file has.
//!
//! Source: ../shared/data/bitbrains-gwa-t-12-rnd/SOURCE.md (Rnd trace, July 2013): heavier-tailed enterprise VM
//! demand for stochastic bin packing (seed 002, ALGORITHMS.md §4.5) next to PlanetLab.

use super::align::{align_exact, nominal_interval};
use super::usage::TimedUsage;
use super::usage::{Unit, UsageTrace};
use crate::input::parse::{base, clip, for_each_record};
use crate::input::{check_upload, MAX_TIME_S};
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError, MAX_VALUES};
use crate::substrate::stats::sort_pairs;

/// Largest accepted CPU usage, percent of the VM's provisioned capacity (Bitbrains usage may exceed 100 %
/// when a VM bursts above its provisioned MHz; values beyond this bound are taken as corrupt).
pub const MAX_BITBRAINS_CPU_PERCENT: f64 = 1000.0;

/// Reads Bitbrains per-VM files: a header line naming `Timestamp [ms]` and `CPU usage [%]` (any column order),
/// then one row per observation; fields are separated by `;` and trimmed (the files use `;` + TAB; spaces are
/// accepted too). The timestamp is **Unix seconds** despite the `[ms]` label (SOURCE.md). Items are the file
/// stems (`1`, `2`, …) ordered numerically when all stems are numbers, else by name; hidden files and
/// `__MACOSX/` entries are skipped. Samples are the timestamps **every** file has (exact match; SOURCE.md:
/// all files share the collection instants, and a ~31 h monitoring gap is common to all): instants missing in
/// some file are dropped for all, nothing is filled; the interval is the most frequent gap (300 s).
///
/// Errors (file:line:column): no header or no CPU usage column, a field that is not a finite non-negative
/// number, a timestamp beyond [`MAX_TIME_S`], usage above [`MAX_BITBRAINS_CPU_PERCENT`], the same timestamp
/// twice in a file, more than [`MAX_VALUES`] rows, a file without rows, no timestamp common to all files.
pub fn read_bitbrains(name: &str, files: &[InputFile]) -> Result<UsageTrace, TraceError> {
    read_bitbrains_timed(name, files).map(|t| t.trace)
}

/// [`read_bitbrains`] with the sample instants (Unix seconds) and the alignment notes.
pub fn read_bitbrains_timed(name: &str, files: &[InputFile]) -> Result<TimedUsage, TraceError> {
    check_upload(name, files)?;
    let mut fs: Vec<&InputFile> = files
        .iter()
        .filter(|f| !base(&f.name).starts_with('.') && !f.name.contains("__MACOSX"))
        .collect();
    let stem = |f: &InputFile| {
        let b = base(&f.name);
        let b = b.strip_suffix(".gz").unwrap_or(b);
        b.strip_suffix(".csv").unwrap_or(b).to_string()
    };
    // by file number when every stem is one, else by name (names are unique within an upload)
    let numbers: Option<Vec<u64>> = fs.iter().map(|f| stem(f).parse::<u64>().ok()).collect();
    match numbers {
        Some(n) => {
            let mut order: Vec<(f64, f64)> = n
                .iter()
                .enumerate()
                .map(|(i, k)| (*k as f64, i as f64))
                .collect();
            sort_pairs(&mut order);
            fs = order.iter().map(|o| fs[o.1 as usize]).collect();
        }
        None => fs.sort_unstable_by(|a, b| a.name.cmp(&b.name)),
    }
    if fs.is_empty() {
        return Err(TraceError::new(name, None, None, "no VM files"));
    }
    let mut items = Vec::with_capacity(fs.len());
    let mut points = Vec::with_capacity(fs.len());
    let mut total = 0usize;
    for f in fs {
        let p = read_one(f, &mut total)?;
        items.push(stem(f));
        points.push(p);
    }
    let a = align_exact(name, &items, &mut points)?;
    let interval = nominal_interval(&a.times);
    let notes = vec![format!(
        "{} VMs × {} timestamps; {} timestamps dropped because some file lacks them",
        items.len(),
        a.times.len(),
        a.dropped
    )];
    let trace = UsageTrace::from_series_in(name, items, a.series, interval, Unit::Percent)?;
    Ok(TimedUsage {
        trace,
        times_s: a.times,
        notes,
    })
}

/// One file's `(timestamp, CPU usage %)` rows, sorted by time; `total` counts rows over all files.
/// Records come from the shared CSV walker ([`for_each_record`], `;`-separated, fields trimmed).
fn read_one(f: &InputFile, total: &mut usize) -> Result<Vec<(f64, f64)>, TraceError> {
    let file = f.name.as_str();
    let bytes = maybe_gunzip(file, &f.bytes)?;
    let text = utf8(file, &bytes)?;
    // (timestamp column, usage column) once the header is read
    let mut cols: Option<(usize, usize)> = None;
    // (time, row index) for the shared pair sort; the usage and line of each row
    let mut order: Vec<(f64, f64)> = Vec::new();
    let mut rows: Vec<(f64, usize)> = Vec::new();
    for_each_record(file, text, b';', |r| {
        let Some((ct, cu)) = cols else {
            let find = |want: fn(&str) -> bool| {
                (0..r.len()).find(|&k| want(&r.rec[k].trim().to_ascii_lowercase()))
            };
            match (
                find(|s| s.starts_with("timestamp")),
                find(|s| s == "cpu usage [%]"),
            ) {
                (Some(ct), Some(cu)) => cols = Some((ct, cu)),
                _ => {
                    let header: Vec<&str> = r.rec.iter().map(str::trim).collect();
                    return Err(TraceError::new(
                        file,
                        Some(r.line),
                        Some(1),
                        format!(
                            "the header must name 'Timestamp [ms]' and 'CPU usage [%]' (found: {})",
                            clip(&header.join(";"))
                        ),
                    ));
                }
            }
            return Ok(());
        };
        let t = r.num(ct, "timestamp", MAX_TIME_S)?;
        let u = r.num(cu, "CPU usage [%]", MAX_BITBRAINS_CPU_PERCENT)?;
        *total += 1;
        if *total > MAX_VALUES {
            return Err(TraceError::new(
                file,
                Some(r.line),
                None,
                format!("more than {MAX_VALUES} rows in all"),
            ));
        }
        order.push((t, rows.len() as f64));
        rows.push((u, r.line));
        Ok(())
    })?;
    if cols.is_none() {
        return Err(TraceError::new(
            file,
            None,
            None,
            "empty file (expected a header line with 'CPU usage [%]')",
        ));
    }
    if rows.is_empty() {
        return Err(TraceError::new(
            file,
            None,
            None,
            "no data rows after the header",
        ));
    }
    sort_pairs(&mut order);
    let line = |o: &(f64, f64)| rows[o.1 as usize].1;
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        let (l0, l1) = (line(&w[0]).min(line(&w[1])), line(&w[0]).max(line(&w[1])));
        return Err(TraceError::new(
            file,
            Some(l1),
            Some(1),
            format!("timestamp {} appears twice (lines {l0} and {l1})", w[0].0),
        ));
    }
    Ok(order.iter().map(|o| (o.0, rows[o.1 as usize].0)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::{load, no_panic};

    fn files() -> Vec<InputFile> {
        (1..=8)
            .map(|k| load(&format!("bitbrains-gwa-t-12-rnd/2013-7/{k}.csv")))
            .collect()
    }

    fn file(name: &str, text: &str) -> InputFile {
        InputFile {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    /// 8 files (SOURCE.md: 8,253–8,262 rows each, 1372629804 … 1375221457). Common timestamps and means from
    /// python3 -c "import collections as C;d={i:{int(l.split(';')[0]):float(l.split(';')[4])
    ///   for l in open(f'2013-7/{i}.csv').read().split(chr(10))[1:] if l.strip()} for i in range(1,9)};
    ///   c=set.intersection(*[set(v) for v in d.values()]);print(len(c),
    ///   sum(d[1][t] for t in c)/len(c)/100, sum(d[i][t] for i in d for t in c)/len(c)/8/100)"
    #[test]
    fn bitbrains_eight_vms() {
        let fs = files();
        let t = read_bitbrains_timed("rnd", &fs).unwrap();
        let tr = &t.trace;
        assert_eq!(tr.items, ["1", "2", "3", "4", "5", "6", "7", "8"]);
        assert_eq!((tr.samples, tr.interval_s), (BB_COMMON, 300.0));
        assert_eq!(
            (t.times_s[0], *t.times_s.last().unwrap()),
            (1_372_629_804.0, 1_375_221_457.0)
        );
        let m1 = tr.series(0).iter().sum::<f64>() / tr.samples as f64;
        assert!((m1 - BB_MEAN_1).abs() < 1e-12, "{m1}");
        assert!(
            (tr.summary().mean - BB_MEAN_ALL).abs() < 1e-12,
            "{}",
            tr.summary().mean
        );
        // 1.csv line 2: 1372629804;\t2;\t5851.9989;\t87.7799835;\t1.5;… → 0.015
        assert_eq!(tr.series(0)[0], 0.015);
        // percentages written with up to 17 significant digits lie on no decimal grid: exact q compares the
        // doubles themselves
        assert_eq!(tr.grid, None);
    }
    // → 8204 0.11567686375159847 0.023980000542692066
    const BB_COMMON: usize = 8204;
    const BB_MEAN_1: f64 = 0.11567686375159847;
    const BB_MEAN_ALL: f64 = 0.023980000542692066;

    #[test]
    fn bitbrains_order_errors_and_quirks() {
        let h = "Timestamp [ms];\tCPU cores;\tCPU usage [%]\n";
        // numeric order (10 after 9), space-separated fields, CRLF, hidden file skipped
        let t = read_bitbrains(
            "b",
            &[
                file("d/10.csv", &format!("{h}0; 1; 50\r\n300;1;25\n")),
                file("d/9.csv", &format!("{h}300;\t1;\t10\n0;\t1;\t20\n")),
                file("d/.DS_Store", "\u{0}"),
            ],
        )
        .unwrap();
        assert_eq!(t.items, ["9", "10"]);
        assert_eq!(t.usage, [0.2, 0.1, 0.5, 0.25]);
        assert_eq!(t.grid.map(|g| g.decimals()), Some(2));
        let one = |body: &str| read_bitbrains("b", &[file("1.csv", &format!("{h}{body}"))]);
        let e = one("0;\t1;\tabc\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "1.csv:2:7: CPU usage [%] 'abc' is not a number"
        );
        let e = one("0;\t1;\t5\n300;\t1;\t-3\n").unwrap_err();
        assert_eq!(e.to_string(), "1.csv:3:9: CPU usage [%] '-3' is negative");
        let e = one("0;\t1\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(5)), "{e}");
        let e = one("0;\t1;\tNaN\n").unwrap_err();
        assert!(e.message.contains("finite"), "{e}");
        let e = one("0;\t1;\t5\n0;\t1;\t6\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "1.csv:3:1: timestamp 0 appears twice (lines 2 and 3)"
        );
        let e = read_bitbrains("b", &[file("1.csv", "a;b\n1;2\n")]).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(1)));
        let e = one("").unwrap_err();
        assert!(e.message.contains("no data rows"), "{e}");
        let e = read_bitbrains("b", &[file("1.csv", "")]).unwrap_err();
        assert!(e.message.contains("empty file"), "{e}");
        let e = read_bitbrains(
            "b",
            &[
                file("1.csv", &format!("{h}0;1;5\n")),
                file("2.csv", &format!("{h}300;1;5\n")),
            ],
        )
        .unwrap_err();
        assert!(e.message.contains("no sampling instant"), "{e}");
    }

    #[test]
    fn no_panic_on_garbled_bitbrains() {
        let fs = files();
        no_panic(&fs[..2], |f| read_bitbrains("g", f));
    }
}
