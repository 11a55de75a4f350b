//! Azure public VM data as workloads: the vmtable (V1 2017 / V2 2019) and the 2017 arrivals of Bergsma et al.
//! (or packlab's bundle of them), read by [`arrivals`] and [`vmtable`] (no second parser).
//!
//! Sources: ../shared/data/azure-v1-excerpt-opendc, azure-v2-20vm-cpu-readings (vmtable rows with subscription
//! and deployment ids) and azure-v1-vm-arrivals-bergsma-sosp21 (see each SOURCE.md); the real arrivals drive
//! lifetime-aware allocation (seed 003, ALGORITHMS.md §5.7) and the admission model (seed 000, §2.1).

use super::format::WorkloadFormat;
use super::reader::WorkloadReader;
use super::record::{Vm, Workload, MAX_CORES, MAX_MEMORY_GB, MAX_VMS};
use crate::input::parse::{base, clip};
use crate::input::{check_upload, MAX_TIME_S};
use compact_str::{format_compact, ToCompactString};
pub mod arrivals;
pub mod vmtable;

use crate::input::{first_line, maybe_gunzip, utf8, InputFile, TraceError};
use arrivals::{read_arrivals_bundle, read_arrivals_files, AzureArrivals, BUNDLE_MAGIC};
use vmtable::{read_vmtable, VmTable, VmtableSchema};

/// Reader of Azure vmtable CSV files (V1 2017 without header, V2 2019 with or without header; one or more
/// files, concatenated; all must have the same schema). Each row becomes a [`Vm`]:
/// id = `vmid`, tenant = `subscriptionid`, deployment = `deploymentid`, category = `vmcategory`,
/// cores/memory from the row (V2: bucket values, `>24` cores read as 32 and `>64` GB as 128 by
/// [`read_vmtable`]), created/deleted from `vmcreated`/`vmdeleted`; a VM deleted at or after the schema's
/// end of trace (2,591,700 s in V1, 2,591,400 s in V2) is censored; `usage.stats` = avg/max/p95max CPU / 100.
/// The window is `[0, end of trace]`; VMs created at 0 may predate the trace (left-censored).
pub struct AzureVmtableReader;

impl WorkloadReader for AzureVmtableReader {
    fn format(&self) -> WorkloadFormat {
        WorkloadFormat::AzureVmtable
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError> {
        check_upload(name, files)?;
        let decoded = files
            .iter()
            .map(|f| maybe_gunzip(&f.name, &f.bytes))
            .collect::<Result<Vec<_>, _>>()?;
        let mut tables = Vec::with_capacity(files.len());
        let mut rows = 0usize;
        for (f, bytes) in files.iter().zip(&decoded) {
            let text = utf8(&f.name, bytes)?;
            rows += text.lines().count();
            if rows > MAX_VMS + files.len() {
                return Err(TraceError::new(
                    &f.name,
                    None,
                    None,
                    format!("more than {MAX_VMS} vmtable rows"),
                ));
            }
            tables.push((read_vmtable(&f.name, text)?, text));
        }
        vmtable_to_workload(name, &tables)
    }
}

/// 1-based line number of data row `i` of a vmtable read from `text` (for errors after parsing).
fn vmtable_line(text: &str, header: bool, i: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .nth(i + usize::from(header))
        .map(|(k, _)| k + 1)
}

/// Converts parsed vmtables `(table, its text)` into one workload (see [`AzureVmtableReader`]). The text is
/// only used to name the line of a row that breaks a limit ([`MAX_TIME_S`], [`MAX_CORES`], …).
/// Errors: schemas differ between files, a time or size beyond the limits.
pub fn vmtable_to_workload(name: &str, tables: &[(VmTable, &str)]) -> Result<Workload, TraceError> {
    let Some((first, _)) = tables.first() else {
        return Err(TraceError::new(name, None, None, "no vmtable files"));
    };
    let schema = first.schema;
    let end = schema.trace_end_s() as f64;
    let mut vms = Vec::with_capacity(tables.iter().map(|t| t.0.rows.len()).sum());
    for (t, text) in tables {
        if t.schema != schema {
            return Err(TraceError::new(
                &t.name,
                None,
                None,
                format!(
                    "schema {:?} differs from {:?} of {}; read V1 and V2 tables separately",
                    t.schema, schema, first.name
                ),
            ));
        }
        for (i, r) in t.rows.iter().enumerate() {
            // `deleted_s` is `None` only at or after the trace end, which is within the limit
            if r.deleted_s.is_some_and(|d| d > MAX_TIME_S)
                || r.cores > MAX_CORES
                || r.memory_gb > MAX_MEMORY_GB
            {
                return Err(TraceError::new(
                    &t.name,
                    vmtable_line(text, t.header, i),
                    None,
                    format!("VM '{}': a time or size beyond the limits", clip(&r.id)),
                ));
            }
            vms.push(r.clone());
        }
    }
    let mut notes = vec![format!(
        "Azure vmtable {}: VMs deleted at or after {end} s are right-censored; VMs created at 0 s may predate the trace",
        match schema {
            VmtableSchema::V1_2017 => "V1 (2017)",
            VmtableSchema::V2_2019 => "V2 (2019)",
        }
    )];
    if schema == VmtableSchema::V2_2019 {
        notes.push("V2 gives bucketed sizes: cores and memory are the bucket values ('>24' cores read as 32, '>64' GB as 128)".into());
    }
    Workload {
        name: name.to_string(),
        source: WorkloadFormat::AzureVmtable,
        vms,
        hosts: Vec::new(),
        trace_start_s: 0.0,
        trace_end_s: end,
        notes,
    }
    .finish()
}

/// Reader of the Azure 2017 arrivals (Bergsma et al., SOSP 2021): either the folder's files (`flav_map.txt`,
/// `v1.interval_map.txt`, `v1.<split>.txt` + `v1.<split>.c<cut>.txt`; others ignored), or packlab's bundle
/// (`static/traces/azure2017-arrivals.txt.gz`, detected by its first line). Each VM token becomes a [`Vm`]:
/// id `<split>:<batch>:<k>`, deployment = the tenant batch `<split>:<batch>` (a batch is one tenant's VMs in a
/// 5-minute bin; tenants have no id across bins), category = the flavour letter, cores and memory from the
/// flavour, created = the bin's time. Lifetimes are binned: an uncensored VM's `lifetime_range_s` is its bin
/// clipped to its age at the cut, and `deleted_s = created + ` the range's midpoint; a `C<k>` VM is censored
/// at its split's cut (`censored_at_s` when that is before the last split's cut, which is the trace end).
#[derive(Clone, Debug, Default)]
pub struct AzureArrivalsReader {
    /// Only this split (e.g. `dev`, `test`); `None` = all splits, in time order.
    pub split: Option<String>,
}

impl WorkloadReader for AzureArrivalsReader {
    fn format(&self) -> WorkloadFormat {
        WorkloadFormat::AzureArrivals
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError> {
        arrivals_to_workload(
            name,
            read_arrivals_data(name, files)?,
            self.split.as_deref(),
        )
    }
}

/// Reads uploaded arrivals (the raw files or packlab's bundle, see [`AzureArrivalsReader`]) into their parsed
/// form, before any conversion: what [`AzureArrivalsReader`] converts into [`Vm`]s and
/// [`super::facts::WorkloadFacts::from_arrivals`] into compact records. Errors: the upload's bounds, and the
/// readers' own (file, line, column).
pub fn read_arrivals_data(name: &str, files: &[InputFile]) -> Result<AzureArrivals, TraceError> {
    check_upload(name, files)?;
    let data = if let [one] = files {
        if first_line(one).starts_with(BUNDLE_MAGIC) {
            let bytes = maybe_gunzip(&one.name, &one.bytes)?;
            Some(read_arrivals_bundle(&one.name, &bytes)?)
        } else {
            None
        }
    } else {
        None
    };
    Ok(match data {
        Some(d) => d,
        None => {
            let mut texts = Vec::new();
            for f in files {
                let b = base(&f.name);
                if !b.ends_with(".txt") && !b.ends_with(".txt.gz") {
                    continue; // LICENSE and other files
                }
                let bytes = maybe_gunzip(&f.name, &f.bytes)?;
                let text = utf8(&f.name, &bytes)?.to_string();
                texts.push((f.name.trim_end_matches(".gz").to_string(), text));
            }
            read_arrivals_files(name, &texts)?
        }
    })
}

pub use arrivals::MAX_BUNDLE_BIN_STEPS as MAX_LIFETIME_ENTRIES;

/// Parsed arrivals with their splits chosen ([`select_splits`]): what both conversions (into [`Vm`]s,
/// [`arrivals_to_workload`], and into compact records, [`super::facts::WorkloadFacts::from_arrivals`]) start
/// from.
pub struct SelectedArrivals {
    /// Flavour table.
    pub flavours: arrivals::FlavourMap,
    /// Lifetime bins.
    pub intervals: arrivals::IntervalMap,
    /// The selected splits, in time order.
    pub splits: Vec<arrivals::ArrivalTrace>,
    /// VMs of the selected splits.
    pub count: usize,
    /// Start of the window, s: the first selected split's start.
    pub trace_start_s: f64,
    /// End of the window, s: the last selected split's cut.
    pub trace_end_s: f64,
    /// The workload's notes.
    pub notes: Vec<String>,
}

/// Chooses the split `split` (all when `None`) of parsed arrivals. Errors: unknown split, more than
/// [`MAX_VMS`] VMs.
pub fn select_splits(
    name: &str,
    data: AzureArrivals,
    split: Option<&str>,
) -> Result<SelectedArrivals, TraceError> {
    let AzureArrivals {
        source,
        flavours,
        intervals,
        splits: all,
    } = data;
    let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    if !all.iter().any(|s| split.is_none_or(|n| s.name == n)) {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!(
                "no split '{}' (the data has: {})",
                split.unwrap_or(""),
                names.join(", ")
            ),
        ));
    }
    let splits: Vec<_> = all
        .into_iter()
        .filter(|s| split.is_none_or(|n| s.name == n))
        .collect();
    let count: usize = splits.iter().map(|s| s.vm_count()).sum();
    if count > MAX_VMS {
        return Err(TraceError::new(
            name,
            None,
            None,
            format!("{count} VMs exceed {MAX_VMS}"),
        ));
    }
    let trace_end_s = splits.iter().map(|s| s.cut_s).max().unwrap_or(0) as f64;
    let trace_start_s = splits.iter().map(|s| s.start_s).min().unwrap_or(0) as f64;
    let names: Vec<String> = splits
        .iter()
        .map(|s| {
            format!(
                "{} [{}, {}) s cut {} s",
                s.name, s.start_s, s.end_s, s.cut_s
            )
        })
        .collect();
    let notes = vec![
        format!("Azure 2017 arrivals ({source}), splits: {}", names.join("; ")),
        "lifetimes are binned (exact to 5 min below 1 h, then 1-hour and 1-day bins): deleted_s = created + the bin's midpoint, lifetime_range_s = the bin".into(),
        "tenants have no id across bins: deployment = the tenant batch <split>:<batch> of one 5-minute bin".into(),
    ];
    Ok(SelectedArrivals {
        flavours,
        intervals,
        splits,
        count,
        trace_start_s,
        trace_end_s,
        notes,
    })
}

/// The lifetime of an arrivals VM created at `t` s in a split censored at `cut` s, in a window ending at
/// `trace_end` s, as the [`Vm`] fields `(deleted_s, lifetime_range_s, censored_at_s)`: an uncensored VM's range
/// is its bin clipped to its age at the cut and its deletion the range's midpoint; a censored VM is censored at
/// the cut (`censored_at_s` when that is before the window's end).
pub fn arrival_lifetime(
    a: &arrivals::ArrivalVm,
    t: f64,
    cut: f64,
    trace_end: f64,
    intervals: &arrivals::IntervalMap,
) -> (Option<f64>, Option<[f64; 2]>, Option<f64>) {
    if a.censored {
        (None, None, (cut < trace_end).then_some(cut))
    } else {
        let (lo, hi) = intervals
            .bins
            .get(a.lifetime_bin as usize)
            .map(|&(lo, hi)| (lo as f64, hi as f64))
            .unwrap_or((0.0, 0.0));
        let hi = hi.min(cut - t).max(lo);
        (Some(t + 0.5 * (lo + hi)), Some([lo, hi]), None)
    }
}

/// Converts parsed arrivals into a workload (see [`AzureArrivalsReader`]); `split` selects one split by name.
/// The window is `[first selected split's start, last selected split's cut]`. Takes the arrivals by value and
/// frees each tenant batch once its VMs are records (issue 30: the decoded bundle is not held beside them).
/// Errors: unknown split, more than [`MAX_VMS`] VMs.
pub fn arrivals_to_workload(
    name: &str,
    data: AzureArrivals,
    split: Option<&str>,
) -> Result<Workload, TraceError> {
    let sel = select_splits(name, data, split)?;
    let trace_end = sel.trace_end_s;
    let mut vms = Vec::with_capacity(sel.count);
    for sp in sel.splits {
        let cut = sp.cut_s as f64;
        for (b, batch) in sp.batches.into_iter().enumerate() {
            let t = batch.t_s as f64;
            let deployment = format_compact!("{}:{b}", sp.name);
            for (k, a) in batch.vms.iter().enumerate() {
                let f = sel.flavours.get(a.flavour);
                let (deleted, range, censored_at) =
                    arrival_lifetime(a, t, cut, trace_end, &sel.intervals);
                vms.push(Vm {
                    id: format_compact!("{deployment}:{k}"),
                    tenant: None,
                    deployment: Some(deployment.clone()),
                    category: Some(a.flavour.to_compact_string()),
                    cores: a.cores as f64,
                    memory_gb: f.map(|f| f.memory_gb).unwrap_or(0.0),
                    gpus: 0.0,
                    created_s: t,
                    started_s: None,
                    deleted_s: deleted,
                    censored_at_s: censored_at,
                    lifetime_range_s: range,
                    io_bytes: None,
                    usage: None,
                });
            }
        }
    }
    Workload {
        name: name.to_string(),
        source: WorkloadFormat::AzureArrivals,
        vms,
        hosts: Vec::new(),
        trace_start_s: sel.trace_start_s,
        trace_end_s: trace_end,
        notes: sel.notes,
    }
    .finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::{load, no_panic};

    fn one(name: &str, text: &str) -> Vec<InputFile> {
        vec![InputFile {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        }]
    }

    fn arrival_files() -> Vec<InputFile> {
        let dir = "azure-v1-vm-arrivals-bergsma-sosp21/";
        [
            "maps/flav_map.txt",
            "maps/v1.interval_map.txt",
            "maps/batch_size_map.txt",
            "traces/v1.dev.txt",
            "traces/v1.dev.c2100000.txt",
            "traces/v1.test.txt",
            "traces/v1.test.c2591400.txt",
            "traces/LICENSE",
        ]
        .iter()
        .map(|p| load(&format!("{dir}{p}")))
        .collect()
    }

    /// V1 excerpt (SOURCE.md: 10 rows, 4 subscriptions, 5 deployments, 6 run to 2,591,700 s, 3 created > 0).
    #[test]
    fn vmtable_v1_excerpt_counts_and_first_row() {
        let f = load("azure-v1-excerpt-opendc/vmtable.csv");
        let w = AzureVmtableReader.read("v1", &[f]).unwrap();
        // awk -F, '{n++; if($5>=2591700)c++; s[$2]=1; d[$3]=1; core+=$10; mem+=$11} END{print n,c,length(s),length(d),core,mem}'
        //   vmtable.csv  →  10 6 4 5 38 233.5
        let s = w.summary();
        assert_eq!((s.vms, s.censored, s.tenants, s.deployments), (10, 6, 4, 5));
        assert_eq!((s.vm_cores, s.vm_memory_gb), (38.0, 233.5));
        assert_eq!(w.trace_end_s, 2_591_700.0);
        // awk -F, '$4>0' vmtable.csv | wc -l → 3
        assert_eq!(w.vms.iter().filter(|v| v.created_s > 0.0).count(), 3);
        // row 2 (head -2 | tail -1): H5CxmMoV…, created 0, deleted 1539300, 100, 6.18178366757598, 33.98136,
        // Interactive, 1 core, 0.75 GB
        let v = w
            .vms
            .iter()
            .find(|v| v.id.starts_with("H5CxmMoVcZSp"))
            .unwrap();
        assert_eq!((v.created_s, v.deleted_s), (0.0, Some(1_539_300.0)));
        assert_eq!((v.cores, v.memory_gb, v.gpus), (1.0, 0.75, 0.0));
        assert_eq!(v.category.as_deref(), Some("Interactive"));
        let st = v.usage.as_ref().unwrap().stats.unwrap();
        assert_eq!(st.max, 1.0);
        assert!((st.avg - 0.0618178366757598).abs() < 1e-15, "{}", st.avg);
        assert_eq!(v.tenant.as_deref().map(|t| &t[..8]), Some("BSXOcywx"));
    }

    /// V2 rows with header and the extra `duration` column; SOURCE.md: 20 + 500 VMs, all created 0 and deleted
    /// 2,591,400 (censored); cores 2/4/8 = 16/2/2 (20 VMs) and 2/4/8/24 = 380/91/27/2 (500 VMs); 290 subscriptions.
    #[test]
    fn vmtable_v2_both_files() {
        let dir = "azure-v2-20vm-cpu-readings/";
        let a = load(&format!("{dir}deep_study_vms_metadata.csv"));
        let b = load(&format!("{dir}selected_vms_500.csv"));
        let w = AzureVmtableReader
            .read("v2", std::slice::from_ref(&a))
            .unwrap();
        let cores = |w: &Workload, c: f64| w.vms.iter().filter(|v| v.cores == c).count();
        assert_eq!((w.vm_count(), w.censored_count()), (20, 20));
        assert_eq!((cores(&w, 2.0), cores(&w, 4.0), cores(&w, 8.0)), (16, 2, 2));
        let w2 = AzureVmtableReader.read("v2", &[a, b.clone()]).unwrap();
        assert_eq!(
            (w2.vm_count(), w2.censored_count(), w2.trace_end_s),
            (520, 520, 2_591_400.0)
        );
        let w5 = AzureVmtableReader.read("v500", &[b]).unwrap();
        let c: Vec<usize> = [2.0, 4.0, 8.0, 24.0]
            .iter()
            .map(|c| cores(&w5, *c))
            .collect();
        assert_eq!(c, [380, 91, 27, 2]);
        assert_eq!(w5.summary().tenants, 290);
        // python3 -c "import csv;r=list(csv.DictReader(open('selected_vms_500.csv')));
        //   print(sum(float(x['vm_memory_gb_bucket']) for x in r))"  →  4160.0 (no '>64' bucket in the file)
        assert_eq!(w5.summary().vm_memory_gb, 4160.0);
        assert!(w5.notes.iter().any(|n| n.contains("bucket")));
    }

    #[test]
    fn vmtable_errors_name_line_and_column() {
        let row = |c: &str, d: &str, cores: &str| {
            format!("vm{c},s,d,{c},{d},10,5,8,Interactive,{cores},4\n")
        };
        let text = format!("{}{}", row("0", "300", "2"), row("600", "300", "2"));
        let e = AzureVmtableReader
            .read("w", &one("t.csv", &text))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:2:15: deleted 300 s before created 600 s"
        );
        let text = format!("{}{}", row("0", "300", "2"), row("0", "300", "NaN"));
        let e = AzureVmtableReader
            .read("w", &one("t.csv", &text))
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(34)), "{e}");
        let e = AzureVmtableReader.read("w", &one("t.csv", "")).unwrap_err();
        assert!(e.message.contains("no vmtable rows"), "{e}");
        let e = AzureVmtableReader
            .read("w", &one("t.csv", &row("0", "99999999999999", "2")))
            .unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("t.csv", Some(1)), "{e}");
        let text = format!("{}{}", row("0", "300", "2"), row("0", "600", "2"));
        let e = AzureVmtableReader
            .read("w", &one("t.csv", &text))
            .unwrap_err();
        assert_eq!(e.to_string(), "w: VM id 'vm0' appears twice");
        let e = AzureVmtableReader
            .read(
                "w",
                &[InputFile {
                    name: "b.csv".into(),
                    bytes: b"a,b\n\xff\xfe".to_vec(),
                }],
            )
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
    }

    /// SOURCE.md counts: dev 259,159 VMs in 53,109 batches, 14,317 censored; test 410,276 VMs in 82,946 batches,
    /// 23,311 censored. Checked from the raw files with
    /// `grep -o 'C[0-9]*' v1.dev.c2100000.txt | wc -l` (14317) and `grep -o '[UC][0-9]*' … | wc -l` (259159).
    #[test]
    fn arrivals_folder_counts_and_first_vm() {
        let files = arrival_files();
        let w = AzureArrivalsReader::default().read("arr", &files).unwrap();
        assert_eq!(w.vm_count(), 259_159 + 410_276);
        assert_eq!(w.censored_count(), 14_317 + 23_311);
        assert_eq!(w.summary().deployments, 53_109 + 82_946);
        assert_eq!((w.trace_start_s, w.trace_end_s), (1_800_000.0, 2_591_400.0));
        // dev VMs censored at the dev cut, before the trace end
        let dev_cens = w
            .vms
            .iter()
            .filter(|v| v.censored_at_s == Some(2_100_000.0))
            .count();
        assert_eq!(dev_cens, 14_317);
        // first line of v1.dev.txt: "1800000 m,|,…" with "U1,|,…" in v1.dev.c2100000.txt; flav_map m = 8,14;
        // interval map bin 1 = 300 s exactly
        let v = &w.vms[0];
        assert_eq!(
            (v.id.as_str(), v.category.as_deref()),
            ("dev:0:0", Some("m"))
        );
        assert_eq!(
            (v.cores, v.memory_gb, v.created_s),
            (8.0, 14.0, 1_800_000.0)
        );
        assert_eq!(
            (v.deleted_s, v.lifetime_range_s),
            (Some(1_800_300.0), Some([300.0, 300.0]))
        );
        // the third batch of that line: g,g,g,g,g,g,g,k,k,… with U3,U3,U1,…: VM 2 of batch 2 is g (2, 3.5) U1
        let v = w.vms.iter().find(|v| v.id == "dev:2:2").unwrap();
        assert_eq!(
            (v.cores, v.memory_gb, v.deleted_s),
            (2.0, 3.5, Some(1_800_300.0))
        );
        // dev only
        let d = AzureArrivalsReader {
            split: Some("dev".into()),
        }
        .read("arr", &files)
        .unwrap();
        assert_eq!(
            (d.vm_count(), d.censored_count(), d.trace_end_s),
            (259_159, 14_317, 2_100_000.0)
        );
        assert!(d.vms.iter().all(|v| v.censored_at_s.is_none()));
        let e = AzureArrivalsReader {
            split: Some("train".into()),
        }
        .read("arr", &files)
        .unwrap_err();
        assert!(e.message.contains("dev, test"), "{e}");
    }

    /// The bundled arrivals are lossless: the same counts and the same VMs as the folder.
    #[test]
    fn arrivals_bundle_matches_folder() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("static/traces/azure2017-arrivals.txt.gz");
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let files = arrival_files();
        let f = InputFile {
            name: "azure2017-arrivals.txt.gz".into(),
            bytes,
        };
        let b = super::super::read_workload("arr", &[f], None).unwrap();
        let w = AzureArrivalsReader::default().read("arr", &files).unwrap();
        assert_eq!(b.source, WorkloadFormat::AzureArrivals);
        assert_eq!(
            (b.vm_count(), b.censored_count()),
            (259_159 + 410_276, 14_317 + 23_311)
        );
        assert_eq!(b.vms, w.vms);
        // issue 30: the record is 216 bytes and its text fields need no heap allocation of their own (ids up to
        // "test:82945:NNN", tenant batches, flavour letters: at most 24 bytes, kept inside the record)
        assert_eq!(std::mem::size_of::<Vm>(), 216);
        let heap =
            |s: Option<&compact_str::CompactString>| s.is_some_and(|s| s.is_heap_allocated());
        assert!(!b.vms.iter().any(|v| heap(Some(&v.id))
            || heap(v.deployment.as_ref())
            || heap(v.category.as_ref())
            || v.tenant.is_some()));
    }

    #[test]
    fn arrivals_errors_and_repeat_bomb() {
        let head = "#packlab-azure-arrivals v1 source=x\n#flavours a=1,0.75\n#bins 0-0 300-300\n#split dev start=0 end=600 cut=600 lines=2\n";
        let e = AzureArrivalsReader::default()
            .read("w", &one("b.txt", &format!("{head}0 a*4000000000\n")))
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(5), Some(3)), "{e}");
        // a small file expands to at most 100,000 VMs (2 per byte beyond that), a large one to 3,000,000
        assert!(e.message.contains("more than 100000 VMs"), "{e}");
        assert!(e.message.contains("at most 3000000"), "{e}");
        let w = AzureArrivalsReader::default()
            .read("w", &one("b.txt", &format!("{head}0 a0*2,a|a1\n1 a\n")))
            .unwrap();
        assert_eq!((w.vm_count(), w.censored_count()), (5, 2));
        assert_eq!(w.vms[3].deleted_s, Some(300.0)); // batch 1, a1: lifetime 300 s
        let bomb = head.replace("300-300", "300-99999999999999999");
        let e = AzureArrivalsReader::default()
            .read("w", &one("b.txt", &format!("{bomb}0 a\n")))
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(11)), "{e}");
        // start 100 s, bin 1 = 400 s > cut 300 s (the bundle reader would subtract 400 from 300)
        let late = head.replace("start=0 end=600 cut=600", "start=100 end=600 cut=300");
        let e = AzureArrivalsReader::default()
            .read("w", &one("b.txt", &format!("{late}1 a\n")))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.txt:5:1: bin 1 lies after the split's cut 300 s"
        );
        let e = AzureArrivalsReader::default()
            .read("w", &one("b.txt", &format!("{head}0 z\n")))
            .unwrap_err();
        assert_eq!((e.line, e.column), (Some(5), Some(3)), "{e}");
        // folder layout with a broken lifetime token
        let files = vec![
            InputFile {
                name: "m/flav_map.txt".into(),
                bytes: b"1,0.75 a\n".to_vec(),
            },
            InputFile {
                name: "m/v1.interval_map.txt".into(),
                bytes: b"0 0\n300 1\n".to_vec(),
            },
            InputFile {
                name: "t/v1.dev.txt".into(),
                bytes: b"0 a,|\n".to_vec(),
            },
            InputFile {
                name: "t/v1.dev.c600.txt".into(),
                bytes: b"0 X1,|\n".to_vec(),
            },
        ];
        let e = AzureArrivalsReader::default()
            .read("w", &files)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t/v1.dev.c600.txt:1:3: token 'X1' is not U<bin>, C<bin> or '|'"
        );
    }

    #[test]
    fn no_panic_on_garbled_real_files() {
        for rel in [
            "azure-v1-excerpt-opendc/vmtable.csv",
            "azure-v2-20vm-cpu-readings/deep_study_vms_metadata.csv",
        ] {
            let f = load(rel);
            no_panic(&[f], |fs| AzureVmtableReader.read("g", fs));
        }
        let files = arrival_files();
        // small maps + the head of the dev split (its lines must stay matched, so garble one file at a time)
        let head = |f: &InputFile, n: usize| InputFile {
            name: f.name.clone(),
            bytes: f
                .bytes
                .split(|c| *c == b'\n')
                .take(n)
                .collect::<Vec<_>>()
                .join(&b'\n'),
        };
        let small = vec![
            files[0].clone(),
            files[1].clone(),
            head(&files[3], 40),
            head(&files[4], 40),
        ];
        no_panic(&small, |fs| AzureArrivalsReader::default().read("g", fs));
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("static/traces/azure2017-arrivals.txt.gz");
        let gz = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let text = maybe_gunzip("b", &gz).unwrap().into_owned();
        let f = InputFile {
            name: "b.txt".into(),
            bytes: text[..text.len().min(200_000)].to_vec(),
        };
        no_panic(&[f], |fs| AzureArrivalsReader::default().read("g", fs));
        no_panic(
            &[InputFile {
                name: "b.gz".into(),
                bytes: gz[..gz.len().min(50_000)].to_vec(),
            }],
            |fs| AzureArrivalsReader::default().read("g", fs),
        );
    }
}
