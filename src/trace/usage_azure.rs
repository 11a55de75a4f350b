//! Azure Public Dataset CPU readings (`vm_cpu_readings-file-*.csv`: 5-minute min/max/avg CPU per VM) as a
//! [`UsageTrace`]: one item per VM, aligned on the timestamps every VM has.
//!
//! Source: ../shared/data/azure-v2-20vm-cpu-readings(-30d)/SOURCE.md (2019, with a header line) and
//! azure-v1-excerpt-opendc (2017, no header). Per-subscriber usage for oversubscription (seed 001, ALGORITHMS.md
//! §3.6: hour-of-day mean and s.d. from the trace) and averaged-vs-peak packing (seed 002 E2.3).

use super::align::{align_exact, nominal_interval};
use super::usage::TimedUsage;
use super::usage::{Unit, UsageTrace};
use crate::input::parse::{clip, for_each_record};
use crate::input::{check_upload, MAX_TIME_S};
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError, MAX_VALUES};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which of a reading's statistics becomes the usage value (all in percent of the VM's CPU, → VM units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadingStat {
    /// `min_cpu`: the smallest utilisation in the 5-minute interval.
    Min,
    /// `avg_cpu`: the interval's average (the "averaged" trace).
    Avg,
    /// `max_cpu`: the interval's peak (the "peak" trace).
    Max,
}

impl ReadingStat {
    /// Column index in `timestamp, vm_id, min_cpu, max_cpu, avg_cpu`.
    fn column(self) -> usize {
        match self {
            ReadingStat::Min => 2,
            ReadingStat::Max => 3,
            ReadingStat::Avg => 4,
        }
    }
}

/// Reads Azure CPU readings files (one or more, unioned: e.g. the 39 checkpoint files and the repair file of
/// the 30-day folder) into a trace of `stat` / 100 per VM (VM units). Rows `timestamp,vm_id,min_cpu,max_cpu,
/// avg_cpu` (seconds, id, percent); a header line is skipped when its first field is not a number. Items are
/// VMs in order of first appearance; samples are the timestamps **every** VM has (missing readings are not
/// filled: a timestamp missing for one VM is dropped for all; SOURCE.md: 68 of 13,380 readings are missing in
/// the 3-file excerpt); the interval is the most frequent gap (300 s). Exact duplicate rows are dropped;
/// two different readings for one (VM, timestamp) are an error.
///
/// Errors (file:line:column): fewer than 5 fields, a timestamp or value that is not finite, negative, a
/// timestamp beyond [`MAX_TIME_S`], a value above 100 %, more than [`MAX_VALUES`] readings, no common timestamp.
pub fn read_azure_cpu_readings(
    name: &str,
    files: &[InputFile],
    stat: ReadingStat,
) -> Result<UsageTrace, TraceError> {
    read_azure_cpu_readings_timed(name, files, stat).map(|t| t.trace)
}

/// [`read_azure_cpu_readings`] with the sample instants and the alignment notes (how many timestamps were
/// dropped), e.g. for hour-of-day statistics (seed 001).
pub fn read_azure_cpu_readings_timed(
    name: &str,
    files: &[InputFile],
    stat: ReadingStat,
) -> Result<TimedUsage, TraceError> {
    check_upload(name, files)?;
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut items: Vec<String> = Vec::new();
    // per VM: time → (value, file index, line)
    let mut seen: Vec<HashMap<u64, (f64, usize, usize)>> = Vec::new();
    let mut n = 0usize;
    let mut duplicates = 0usize;
    for (fi, f) in files.iter().enumerate() {
        let bytes = maybe_gunzip(&f.name, &f.bytes)?;
        let text = utf8(&f.name, &bytes)?;
        let mut first = true;
        for_each_record(&f.name, text, b',', |r| {
            if std::mem::take(&mut first) && r.get(0, "timestamp")?.parse::<f64>().is_err() {
                return Ok(()); // header
            }
            if r.len() < 5 {
                return Err(r.err(
                    r.len(),
                    format!(
                        "{} fields; a reading has 5: timestamp,vm_id,min_cpu,max_cpu,avg_cpu",
                        r.len()
                    ),
                ));
            }
            n += 1;
            if n > MAX_VALUES {
                return Err(r.err(0, format!("more than {MAX_VALUES} readings")));
            }
            let t = r.num(0, "timestamp", MAX_TIME_S)?;
            let id = r.get(1, "vm_id")?;
            if id.is_empty() {
                return Err(r.err(1, "empty vm_id"));
            }
            let k = stat.column();
            let v = r.num(
                k,
                ["", "", "min_cpu", "max_cpu", "avg_cpu"][k],
                100.0 + 1e-9,
            )?;
            let i = *index.entry(id.to_string()).or_insert_with(|| {
                items.push(id.to_string());
                seen.push(HashMap::new());
                items.len() - 1
            });
            match seen[i].get(&t.to_bits()) {
                Some(&(v0, f0, l0)) if v0 != v => {
                    return Err(r.err(
                        k,
                        format!(
                        "VM '{}' has a second reading at {t} s ({v} %, first {v0} % at {}:{l0})",
                        clip(id),
                        files[f0].name
                    ),
                    ))
                }
                Some(_) => duplicates += 1,
                None => {
                    seen[i].insert(t.to_bits(), (v, fi, r.line));
                }
            }
            Ok(())
        })?;
    }
    if items.is_empty() {
        return Err(TraceError::new(name, None, None, "no readings"));
    }
    let mut points: Vec<Vec<(f64, f64)>> = seen
        .into_iter()
        .map(|m| {
            m.into_iter()
                .map(|(t, (v, _, _))| (f64::from_bits(t), v))
                .collect()
        })
        .collect();
    let a = align_exact(name, &items, &mut points)?;
    let interval = nominal_interval(&a.times);
    let mut notes = vec![format!(
        "{} VMs × {} timestamps; {} timestamps dropped because some VM has no reading there",
        items.len(),
        a.times.len(),
        a.dropped
    )];
    if duplicates > 0 {
        notes.push(format!("{duplicates} exact duplicate rows dropped"));
    }
    let trace = UsageTrace::from_series_in(name, items, a.series, interval, Unit::Percent)?;
    Ok(TimedUsage {
        trace,
        times_s: a.times,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::{load, no_panic};

    fn excerpt() -> Vec<InputFile> {
        (1..=3)
            .map(|k| {
                load(&format!(
                    "azure-v2-20vm-cpu-readings/readings/readings_checkpoint_batch_{k}.csv"
                ))
            })
            .collect()
    }

    fn one(text: &str) -> Vec<InputFile> {
        vec![InputFile {
            name: "r.csv".into(),
            bytes: text.as_bytes().to_vec(),
        }]
    }

    /// 3-file excerpt: 20 VMs, 669 slots 0…200,400 s, 68 readings missing. Kept timestamps and means from
    /// python3 -c "import csv,glob,collections as C;r=[x for f in sorted(glob.glob('readings/*.csv'))
    ///   for x in csv.DictReader(open(f))];ids=C.Counter(x['vm_id'] for x in r);n=len(ids);
    ///   c=C.Counter(x['timestamp'] for x in r);keep={t for t in c if c[t]==n};
    ///   k=[x for x in r if x['timestamp'] in keep];print(n,len(keep),len(c)-len(keep),
    ///   sum(float(x['avg_cpu']) for x in k)/len(k)/100,sum(float(x['max_cpu']) for x in k)/len(k)/100)"
    ///   → 20 616 53 0.07329941590353202 0.1644962683032044
    #[test]
    fn readings_excerpt_avg_and_max() {
        let fs = excerpt();
        let t = read_azure_cpu_readings_timed("az", &fs, ReadingStat::Avg).unwrap();
        assert_eq!(
            (t.trace.items.len(), t.trace.samples, t.trace.interval_s),
            (20, AZ_KEPT, 300.0)
        );
        // averages written with up to 16 significant digits lie on no decimal grid (exact q on the doubles)
        assert_eq!(t.trace.grid, None);
        assert_eq!(t.times_s.len(), AZ_KEPT);
        assert!(
            t.notes[0].contains(&format!("{AZ_DROPPED} timestamps dropped")),
            "{:?}",
            t.notes
        );
        assert!(
            (t.trace.summary().mean - AZ_MEAN_AVG).abs() < 1e-12,
            "{}",
            t.trace.summary().mean
        );
        let m = read_azure_cpu_readings("az", &fs, ReadingStat::Max).unwrap();
        assert!(
            (m.summary().mean - AZ_MEAN_MAX).abs() < 1e-12,
            "{}",
            m.summary().mean
        );
        // first data row of batch 1 and its VM's first kept sample
        assert_eq!(t.times_s[0], 0.0);
        assert_eq!(t.trace.items[0], AZ_FIRST_ID);
        assert_eq!(t.trace.series(0)[0], AZ_FIRST_AVG / 100.0);
    }
    const AZ_KEPT: usize = 616;
    const AZ_DROPPED: usize = 53;
    const AZ_MEAN_AVG: f64 = 0.07329941590353202;
    const AZ_MEAN_MAX: f64 = 0.1644962683032044;
    // head -2 readings_checkpoint_batch_1.csv: 0,AEPuB1nu…,3.226399608244555,4.352817884098105,3.5863332518631985
    const AZ_FIRST_ID: &str = "AEPuB1nuIBMmVIc5OlpI9Wk6Im5ZH4wVEnqZxbtFl63ZGDwS8rzfJJdRYDz0ox6b";
    const AZ_FIRST_AVG: f64 = 3.5863332518631985;

    /// All 40 files of the 30-day folder (39 checkpoints + the repair file, unioned; SOURCE.md: 172,684 rows,
    /// 8,639 slots, 96 readings missing):
    /// python3 -c "…same as above over readings-30d/readings/*.csv…"  →  20 8558 81 0.07699944936565833
    ///   0.17168955367587987
    #[test]
    fn readings_30_days_union_with_repair_file() {
        let dir = crate::input::testutil::data("azure-v2-20vm-cpu-readings-30d/readings");
        let rd = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut fs: Vec<InputFile> = rd
            .filter_map(|e| {
                let p = e.ok()?.path();
                Some(InputFile {
                    name: p.file_name()?.to_string_lossy().into_owned(),
                    bytes: std::fs::read(&p).ok()?,
                })
            })
            .collect();
        fs.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(fs.len(), 40);
        let t = read_azure_cpu_readings_timed("az30", &fs, ReadingStat::Avg).unwrap();
        assert_eq!((t.trace.items.len(), t.trace.samples), (20, 8558));
        assert!(
            t.notes[0].contains("81 timestamps dropped"),
            "{:?}",
            t.notes
        );
        assert_eq!(
            (t.times_s[0], *t.times_s.last().unwrap()),
            (0.0, 2_591_400.0)
        );
        assert!((t.trace.summary().mean - 0.07699944936565833).abs() < 1e-12);
        let m = read_azure_cpu_readings("az30", &fs, ReadingStat::Max).unwrap();
        assert!((m.summary().mean - 0.17168955367587987).abs() < 1e-12);
        // without the repair file, the two 44-slot holes of files 4 and 9 are lost for all VMs
        let no_repair: Vec<InputFile> = fs
            .into_iter()
            .filter(|f| !f.name.contains("repair"))
            .collect();
        let t = read_azure_cpu_readings("az30", &no_repair, ReadingStat::Avg).unwrap();
        assert_eq!(t.samples, 8558 - 88);
    }

    /// The 2017 excerpt has no header: 100 readings of 100 VMs at timestamp 0 (SOURCE.md), one sample each.
    #[test]
    fn readings_v1_excerpt_without_header() {
        let f = load("azure-v1-excerpt-opendc/vm_cpu_readings-file-1-of-125.csv");
        let t = read_azure_cpu_readings("v1", &[f], ReadingStat::Avg).unwrap();
        assert_eq!((t.items.len(), t.samples, t.interval_s), (100, 1, 0.0));
        // head -1: 0,+ZcrOp5/…,2.052803,3.911587,2.86979
        assert!((t.usage[0] - 0.0286979).abs() < 1e-15, "{}", t.usage[0]);
    }

    #[test]
    fn readings_errors_and_duplicates() {
        let t = read_azure_cpu_readings(
            "r",
            &one("0,a,1,2,3\n300,a,1,2,3\n0,b,1,4,2\n0,a,1,2,3\n"),
            ReadingStat::Max,
        )
        .unwrap();
        assert_eq!(
            (t.items.clone(), t.samples, t.usage.to_vec()),
            (vec!["a".to_string(), "b".into()], 1, vec![0.02, 0.04])
        );
        let e = read_azure_cpu_readings("r", &one("0,a,1,2,3\n0,a,1,2,4\n"), ReadingStat::Avg)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.csv:2:9: VM 'a' has a second reading at 0 s (4 %, first 3 % at r.csv:1)"
        );
        let e = read_azure_cpu_readings(
            "r",
            &one("timestamp,vm_id,min_cpu,max_cpu,avg_cpu\n0,a,1,2,NaN\n"),
            ReadingStat::Avg,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.csv:2:9: avg_cpu 'NaN' is not a finite number"
        );
        let e = read_azure_cpu_readings("r", &one("0,a,1,200,3\n"), ReadingStat::Max).unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(7)));
        let e = read_azure_cpu_readings("r", &one("-300,a,1,2,3\n"), ReadingStat::Max).unwrap_err();
        assert_eq!(e.to_string(), "r.csv:1:1: timestamp '-300' is negative");
        let e = read_azure_cpu_readings("r", &one("0,a,1\n"), ReadingStat::Max).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.csv:1:6: 3 fields; a reading has 5: timestamp,vm_id,min_cpu,max_cpu,avg_cpu"
        );
        let e = read_azure_cpu_readings("r", &one("0,a,1,2,3\n300,b,1,2,3\n"), ReadingStat::Max)
            .unwrap_err();
        assert!(e.message.contains("no sampling instant is common"), "{e}");
        let e = read_azure_cpu_readings("r", &one(""), ReadingStat::Max).unwrap_err();
        assert_eq!(e.to_string(), "r: no readings");
    }

    #[test]
    fn no_panic_on_garbled_readings() {
        let fs = excerpt();
        no_panic(&fs[..1], |f| {
            read_azure_cpu_readings("g", f, ReadingStat::Avg)
        });
    }
}
