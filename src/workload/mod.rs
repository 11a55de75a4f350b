//! Workloads: one VM/job record ([`Vm`]), one node record ([`Host`]) and one [`Workload`] for the models that
//! replay arrivals, sizes and lifetimes (lifetime-aware allocation, seed 003, ALGORITHMS.md §5; oversubscription,
//! seed 001, §3; reservations, seed 004, §6), plus readers that translate public traces into them.
//!
//! Readers (one file per source; input is bytes in memory, so all of this builds for wasm32):
//! - [`WorkloadFormat::AzureVmtable`]: Azure Public Dataset vmtable, V1 2017 and V2 2019 ([`azure`]);
//! - [`WorkloadFormat::AzureArrivals`]: the Azure 2017 arrivals of Bergsma et al. or packlab's bundle ([`azure`]);
//! - [`WorkloadFormat::AlibabaGpu2023`]: Alibaba cluster-trace-gpu-v2023 "openb" pods and nodes ([`alibaba`]);
//! - [`WorkloadFormat::Swim`]: SWIM MapReduce job lists (Facebook FB-2009 / FB-2010 samples; [`swim`]).
//!
//! Generated rather than read: [`synthetic`] (the synthetic pool of ALGORITHMS.md §5.7 and the two-lifetime
//! workload of seed 003 App. E; [`WorkloadFormat::Synthetic`]).
//!
//! Usage series (per-item CPU in VM units, the existing [`UsageTrace`]) are formats of the one trace reader
//! ([`crate::trace::read_trace`], [`crate::trace::TraceFormat`]):
//! Alibaba 2018 machine usage ([`usage_alibaba`]), Bitbrains GWA-T-12 ([`usage_bitbrains`]) and the Azure 2019
//! 5-minute CPU readings ([`usage_azure`]). [`Workload::attach_usage`] links VMs to their series.
//!
//! Units everywhere: cores (vCPUs), GB (GiB: 1 GB = 1024 MiB, as the Azure flavours), GPUs (fractions allowed),
//! seconds from the trace's own origin, usage in VM units (1.0 = the item's full CPU capacity).

pub mod alibaba;
pub mod azure;
mod record;
pub mod swim;
pub mod synthetic;

pub use alibaba::AlibabaGpuReader;
pub use azure::{AzureArrivalsReader, AzureVmtableReader};
pub use record::{CpuStats, Host, SeriesRef, UsageRef, Vm};
pub use swim::SwimReader;

pub use crate::input::MAX_TIME_S;
use crate::input::{check_upload, first_line, InputFile, TraceError};
use crate::trace::UsageTrace;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Most VM records one workload may hold: 3 million (the whole Azure V2 vmtable has 2,695,548 VMs; at about
/// 300 bytes per record this bounds a workload to about 1 GB). Checked while reading, before the record is stored.
pub const MAX_VMS: usize = 3_000_000;
/// Most hosts one node list may hold: 1 million.
pub const MAX_HOSTS: usize = 1_000_000;
/// Largest accepted core count of one VM or host.
pub const MAX_CORES: f64 = 1e6;
/// Largest accepted memory of one VM or host, GB.
pub const MAX_MEMORY_GB: f64 = 1e8;
/// Largest accepted GPU count of one VM or host.
pub const MAX_GPUS: f64 = 1e5;

/// The workload formats packlab reads (names as in the CLI and scenarios: kebab-case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadFormat {
    /// Azure Public Dataset vmtable CSV, V1 (2017) or V2 (2019), one or more files.
    AzureVmtable,
    /// Azure 2017 arrivals: the Bergsma et al. folder (maps + traces) or packlab's bundle (`.txt[.gz]`).
    AzureArrivals,
    /// Alibaba cluster-trace-gpu-v2023 (openb): a pod list, optionally with a node list.
    AlibabaGpu2023,
    /// SWIM MapReduce jobs (tab-separated: job, submit s, gap s, input, shuffle, output bytes).
    Swim,
    /// Generated from parameters, not read from files ([`synthetic`]).
    Synthetic,
}

impl WorkloadFormat {
    /// The format's name (`azure-vmtable`, `azure-arrivals`, `alibaba-gpu2023`).
    pub fn name(&self) -> &'static str {
        match self {
            WorkloadFormat::AzureVmtable => "azure-vmtable",
            WorkloadFormat::AzureArrivals => "azure-arrivals",
            WorkloadFormat::AlibabaGpu2023 => "alibaba-gpu2023",
            WorkloadFormat::Swim => "swim",
            WorkloadFormat::Synthetic => "synthetic",
        }
    }

    /// Parses a format name ([`WorkloadFormat::name`], or the short forms `vmtable`, `arrivals`, `openb`).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "azure-vmtable" | "vmtable" => Ok(WorkloadFormat::AzureVmtable),
            "azure-arrivals" | "arrivals" => Ok(WorkloadFormat::AzureArrivals),
            "alibaba-gpu2023" | "openb" => Ok(WorkloadFormat::AlibabaGpu2023),
            "swim" => Ok(WorkloadFormat::Swim),
            other => Err(format!(
                "unknown workload format '{other}' (expected azure-vmtable, azure-arrivals, alibaba-gpu2023 or swim)"
            )),
        }
    }

    /// Guesses the format from file names and first lines: a `*flav_map.txt` / `*interval_map.txt` file or a
    /// file starting with the arrivals bundle's magic line → arrivals; a first line `name,cpu_milli,…` or
    /// `sn,cpu_milli,…` → Alibaba; anything else → vmtable.
    pub fn detect(files: &[InputFile]) -> WorkloadFormat {
        for f in files {
            let b = crate::input::parse::base(&f.name);
            if b.ends_with("flav_map.txt") || b.ends_with("interval_map.txt") {
                return WorkloadFormat::AzureArrivals;
            }
            let head = first_line(f);
            if head.starts_with(azure::arrivals::BUNDLE_MAGIC) {
                return WorkloadFormat::AzureArrivals;
            }
            let h = head.trim().to_ascii_lowercase();
            if h.starts_with("name,cpu_milli") || h.starts_with("sn,cpu_milli") {
                return WorkloadFormat::AlibabaGpu2023;
            }
            if is_swim_line(&head) {
                return WorkloadFormat::Swim;
            }
        }
        WorkloadFormat::AzureVmtable
    }
}

/// True for a SWIM job line: `job<digits>` then at least five tab-separated integers.
fn is_swim_line(line: &str) -> bool {
    let f: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
    f.len() >= 6
        && f[0]
            .strip_prefix("job")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        && f[1..6]
            .iter()
            .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
}

/// A workload: VM records in creation order (ties in file order), an optional node inventory, and the
/// observation window `[trace_start_s, trace_end_s]` (s) that defines right-censoring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Name (folder, file or bundled id), used in messages and scenarios.
    pub name: String,
    /// Format it was read from.
    pub source: WorkloadFormat,
    /// VMs / jobs, sorted by `created_s` (stable: ties keep the file order).
    pub vms: Vec<Vm>,
    /// Node list (empty when the source has none).
    pub hosts: Vec<Host>,
    /// Start of the observation window, s (VMs created at or before it may have existed earlier: left-censored).
    pub trace_start_s: f64,
    /// End of the observation window, s: a VM with `deleted_s == None` was alive then.
    pub trace_end_s: f64,
    /// Facts about the conversion worth showing to a user (bucketed sizes, censoring rule, skipped data).
    pub notes: Vec<String>,
}

/// Summary of a workload for display (counts, totals, window; all serde).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadSummary {
    /// Workload name.
    pub name: String,
    /// Format name.
    pub source: WorkloadFormat,
    /// Number of VMs.
    pub vms: usize,
    /// VMs whose deletion was not observed.
    pub censored: usize,
    /// Distinct tenants (0 when the source has none).
    pub tenants: usize,
    /// Distinct deployments (0 when the source has none).
    pub deployments: usize,
    /// Number of hosts.
    pub hosts: usize,
    /// Observation window start, s.
    pub trace_start_s: f64,
    /// Observation window end, s.
    pub trace_end_s: f64,
    /// Window length, hours.
    pub span_hours: f64,
    /// Total requested cores of all VMs.
    pub vm_cores: f64,
    /// Total requested memory of all VMs, GB.
    pub vm_memory_gb: f64,
    /// Total requested GPUs of all VMs.
    pub vm_gpus: f64,
    /// Total host cores.
    pub host_cores: f64,
    /// Total host memory, GB.
    pub host_memory_gb: f64,
    /// Total host GPUs.
    pub host_gpus: f64,
    /// Median lifetime of the uncensored VMs, s (0 when none).
    pub median_lifetime_s: f64,
    /// The workload's notes.
    pub notes: Vec<String>,
}

impl Workload {
    /// Number of VMs.
    pub fn vm_count(&self) -> usize {
        self.vms.len()
    }

    /// Number of hosts.
    pub fn host_count(&self) -> usize {
        self.hosts.len()
    }

    /// Number of right-censored VMs (deletion not observed).
    pub fn censored_count(&self) -> usize {
        self.vms.iter().filter(|v| v.is_censored()).count()
    }

    /// Length of the observation window, s (`trace_end_s − trace_start_s`).
    pub fn time_span_s(&self) -> f64 {
        self.trace_end_s - self.trace_start_s
    }

    /// Number of VMs alive at time `t` (s).
    pub fn alive_at(&self, t: f64) -> usize {
        self.vms.iter().filter(|v| v.alive_at(t)).count()
    }

    /// Links every VM whose id is an item of `trace` to that series ([`UsageRef::series`]); returns how many
    /// VMs were linked (e.g. the 20 VMs of `deep_study_vms_metadata.csv` with their Azure 2019 readings).
    pub fn attach_usage(&mut self, trace: &UsageTrace) -> usize {
        let items: HashSet<&str> = trace.items.iter().map(String::as_str).collect();
        let mut n = 0;
        for v in &mut self.vms {
            if items.contains(v.id.as_str()) {
                v.usage.get_or_insert_with(UsageRef::default).series = Some(SeriesRef {
                    trace: trace.name.clone(),
                    item: v.id.clone(),
                });
                n += 1;
            }
        }
        n
    }

    /// Counts, totals and the window, for display.
    pub fn summary(&self) -> WorkloadSummary {
        let distinct = |f: fn(&Vm) -> Option<&String>| {
            self.vms.iter().filter_map(f).collect::<HashSet<_>>().len()
        };
        let mut life: Vec<f64> = self
            .vms
            .iter()
            .filter_map(|v| v.deleted_s.map(|d| d - v.created_s))
            .collect();
        life.sort_unstable_by(f64::total_cmp);
        let median = match life.len() {
            0 => 0.0,
            n if n % 2 == 1 => life[n / 2],
            n => 0.5 * (life[n / 2 - 1] + life[n / 2]),
        };
        WorkloadSummary {
            name: self.name.clone(),
            source: self.source,
            vms: self.vms.len(),
            censored: self.censored_count(),
            tenants: distinct(|v| v.tenant.as_ref()),
            deployments: distinct(|v| v.deployment.as_ref()),
            hosts: self.hosts.len(),
            trace_start_s: self.trace_start_s,
            trace_end_s: self.trace_end_s,
            span_hours: self.time_span_s() / 3600.0,
            vm_cores: self.vms.iter().map(|v| v.cores).sum(),
            vm_memory_gb: self.vms.iter().map(|v| v.memory_gb).sum(),
            vm_gpus: self.vms.iter().map(|v| v.gpus).sum(),
            host_cores: self.hosts.iter().map(|h| h.cores).sum(),
            host_memory_gb: self.hosts.iter().map(|h| h.memory_gb).sum(),
            host_gpus: self.hosts.iter().map(|h| h.gpus).sum(),
            median_lifetime_s: median,
            notes: self.notes.clone(),
        }
    }

    /// Final step of every reader: sorts VMs by creation time (stable) and checks that ids are unique, that
    /// there is at least one VM and that the limits hold. Errors name the workload.
    pub(crate) fn finish(mut self) -> Result<Workload, TraceError> {
        if self.vms.is_empty() {
            return Err(TraceError::new(
                &self.name,
                None,
                None,
                "the workload holds no VMs",
            ));
        }
        if self.vms.len() > MAX_VMS || self.hosts.len() > MAX_HOSTS {
            return Err(TraceError::new(
                &self.name,
                None,
                None,
                format!("more than {MAX_VMS} VMs or {MAX_HOSTS} hosts"),
            ));
        }
        let ids = self.vms.iter().map(|v| ("VM", &v.id));
        if let Some((what, id)) = ids
            .chain(self.hosts.iter().map(|h| ("host", &h.id)))
            .find(|(_, id)| id.len() > crate::input::MAX_FIELD_BYTES)
        {
            return Err(TraceError::new(
                &self.name,
                None,
                None,
                format!(
                    "{what} id '{}' of {} bytes exceeds the limit of {} bytes",
                    crate::input::parse::clip(id),
                    id.len(),
                    crate::input::MAX_FIELD_BYTES
                ),
            ));
        }
        let mut seen = HashSet::with_capacity(self.vms.len());
        for v in &self.vms {
            if !seen.insert(v.id.as_str()) {
                return Err(TraceError::new(
                    &self.name,
                    None,
                    None,
                    format!("VM id '{}' appears twice", crate::input::parse::clip(&v.id)),
                ));
            }
        }
        let mut seen = HashSet::with_capacity(self.hosts.len());
        for h in &self.hosts {
            if !seen.insert(h.id.as_str()) {
                return Err(TraceError::new(
                    &self.name,
                    None,
                    None,
                    format!(
                        "host id '{}' appears twice",
                        crate::input::parse::clip(&h.id)
                    ),
                ));
            }
        }
        self.vms.sort_by(|a, b| a.created_s.total_cmp(&b.created_s));
        Ok(self)
    }
}

/// A reader of one workload format (the workload counterpart of [`crate::trace::TraceReader`]).
pub trait WorkloadReader {
    /// The format this reader handles.
    fn format(&self) -> WorkloadFormat;
    /// Reads `files` into a workload called `name`. Errors name file, line and column; never panics.
    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError>;
}

/// Reads `files` as a workload in `format`, or in the format [`WorkloadFormat::detect`] guesses when `None`.
/// The upload is bounded by [`crate::input::MAX_UPLOAD_BYTES`] (after decompression, per file) and the records by
/// [`MAX_VMS`] / [`MAX_HOSTS`]. Arrivals are read with all their splits ([`AzureArrivalsReader::default`]).
pub fn read_workload(
    name: &str,
    files: &[InputFile],
    format: Option<WorkloadFormat>,
) -> Result<Workload, TraceError> {
    check_upload(name, files)?;
    let _budget = crate::input::InflateBudget::start();
    match format.unwrap_or_else(|| WorkloadFormat::detect(files)) {
        WorkloadFormat::AzureVmtable => AzureVmtableReader.read(name, files),
        WorkloadFormat::AzureArrivals => AzureArrivalsReader::default().read(name, files),
        WorkloadFormat::AlibabaGpu2023 => AlibabaGpuReader.read(name, files),
        WorkloadFormat::Swim => SwimReader.read(name, files),
        WorkloadFormat::Synthetic => Err(TraceError::new(
            name,
            None,
            None,
            "a synthetic workload is generated from its parameters (workload.synthetic), not read from files",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::load;

    fn vm(id: &str, created: f64, deleted: Option<f64>) -> Vm {
        Vm {
            id: id.into(),
            tenant: Some("t1".into()),
            deployment: None,
            category: None,
            cores: 2.0,
            memory_gb: 4.0,
            gpus: 0.0,
            created_s: created,
            started_s: None,
            deleted_s: deleted,
            censored_at_s: None,
            lifetime_range_s: None,
            io_bytes: None,
            usage: None,
        }
    }

    #[test]
    fn helpers_count_by_hand() {
        let w = Workload {
            name: "w".into(),
            source: WorkloadFormat::AzureVmtable,
            vms: vec![
                vm("b", 300.0, None),
                vm("a", 0.0, Some(600.0)),
                vm("c", 0.0, Some(100.0)),
            ],
            hosts: vec![],
            trace_start_s: 0.0,
            trace_end_s: 900.0,
            notes: vec![],
        }
        .finish()
        .unwrap();
        // stable sort by creation: a, c (both 0 s, file order), then b
        let ids: Vec<&str> = w.vms.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["a", "c", "b"]);
        assert_eq!(
            (w.vm_count(), w.censored_count(), w.time_span_s()),
            (3, 1, 900.0)
        );
        assert_eq!(w.alive_at(350.0), 2); // a (0–600) and b (300–)
        assert_eq!(w.vms[2].lifetime_s(900.0), 600.0);
        let s = w.summary();
        assert_eq!(
            (s.tenants, s.deployments, s.vm_cores, s.vm_memory_gb),
            (1, 0, 6.0, 12.0)
        );
        assert_eq!(s.median_lifetime_s, 350.0); // lifetimes 600 and 100
        assert_eq!(s.span_hours, 0.25);
        let json = serde_json::to_string(&w).unwrap();
        assert!(json.contains("\"source\":\"azure-vmtable\""), "{json}");
        let back: Workload = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w);
    }

    #[test]
    fn finish_rejects_duplicates_and_empty() {
        let mut w = Workload {
            name: "w".into(),
            source: WorkloadFormat::AzureVmtable,
            vms: vec![vm("a", 0.0, None), vm("a", 1.0, None)],
            hosts: vec![],
            trace_start_s: 0.0,
            trace_end_s: 1.0,
            notes: vec![],
        };
        let e = w.clone().finish().unwrap_err();
        assert_eq!(e.to_string(), "w: VM id 'a' appears twice");
        w.vms.clear();
        assert!(w.finish().unwrap_err().message.contains("no VMs"));
        let e = read_workload("x", &[], None).unwrap_err();
        assert_eq!(e.to_string(), "x: no files given");
    }

    #[test]
    fn formats_detect_from_names_and_headers() {
        let f = |name: &str, text: &str| InputFile {
            name: name.into(),
            bytes: text.as_bytes().to_vec(),
        };
        use WorkloadFormat::*;
        assert_eq!(
            WorkloadFormat::detect(&[f("maps/flav_map.txt", "")]),
            AzureArrivals
        );
        let bundle = crate::input::gzip(b"#packlab-azure-arrivals v1 source=x\n");
        assert_eq!(
            WorkloadFormat::detect(&[InputFile {
                name: "a.gz".into(),
                bytes: bundle
            }]),
            AzureArrivals
        );
        assert_eq!(
            WorkloadFormat::detect(&[f("p.csv", "name,cpu_milli,memory_mib\n")]),
            AlibabaGpu2023
        );
        assert_eq!(
            WorkloadFormat::detect(&[f("v.csv", "x,y,z,0,300\n")]),
            AzureVmtable
        );
        for n in ["azure-vmtable", "azure-arrivals", "alibaba-gpu2023"] {
            let fm = WorkloadFormat::parse(n).unwrap();
            assert_eq!(fm.name(), n);
            assert_eq!(serde_json::to_string(&fm).unwrap(), format!("\"{n}\""));
        }
        assert!(WorkloadFormat::parse("x").is_err());
        use crate::trace::TraceFormat::{self, *};
        assert_eq!(
            TraceFormat::detect(&[f("1.csv", "Timestamp [ms];\tCPU usage [%]\n")]),
            Bitbrains
        );
        assert_eq!(
            TraceFormat::detect(&[f("r.csv", "timestamp,vm_id,min_cpu\n")]),
            AzureReadingsAvg
        );
        assert_eq!(
            TraceFormat::detect(&[f("r.csv", "0,abc+/=,1.0,2,3\n")]),
            AzureReadingsAvg
        );
        assert_eq!(
            TraceFormat::detect(&[f("m.csv", "m_1,0,41,92,,,1,2,3\n")]),
            AlibabaMachineUsage
        );
        // the long CSV keeps its detection (header or not)
        assert_eq!(
            TraceFormat::detect(&[f("u.csv", "item,time,usage\n")]),
            LongCsv
        );
        assert_eq!(TraceFormat::detect(&[f("u.csv", "vm1,0,0.5\n")]), LongCsv);
        // a folder of Bitbrains files (hidden files ignored) and a PlanetLab folder
        assert_eq!(
            TraceFormat::detect(&[
                f("d/1.csv", "Timestamp [ms];\tCPU usage [%]\n"),
                f("d/.DS_Store", "x"),
                f("d/2.csv", "Timestamp [ms];\tCPU usage [%]\n")
            ]),
            Bitbrains
        );
        assert_eq!(
            TraceFormat::detect(&[f("d/a", "1\n"), f("d/b", "2\n")]),
            PlanetLab
        );
        for (fm, n) in TraceFormat::ALL {
            assert_eq!(TraceFormat::parse(n).unwrap(), *fm);
        }
    }

    /// The real files are detected as what they are.
    #[test]
    fn real_files_are_detected() {
        let cases = [
            (
                "azure-v1-excerpt-opendc/vmtable.csv",
                WorkloadFormat::AzureVmtable,
            ),
            (
                "azure-v2-20vm-cpu-readings/selected_vms_500.csv",
                WorkloadFormat::AzureVmtable,
            ),
            (
                "alibaba-gpu-v2023-openb/openb_pod_list_default.csv",
                WorkloadFormat::AlibabaGpu2023,
            ),
            (
                "azure-v1-vm-arrivals-bergsma-sosp21/maps/flav_map.txt",
                WorkloadFormat::AzureArrivals,
            ),
        ];
        for (rel, want) in cases {
            let f = load(rel);
            assert_eq!(WorkloadFormat::detect(&[f]), want, "{rel}");
        }
        let ucases = [
            (
                "bitbrains-gwa-t-12-rnd/2013-7/1.csv",
                crate::trace::TraceFormat::Bitbrains,
            ),
            (
                "alibaba-v2018-machines/machine_usage.csv",
                crate::trace::TraceFormat::AlibabaMachineUsage,
            ),
            (
                "azure-v2-20vm-cpu-readings/readings/readings_checkpoint_batch_1.csv",
                crate::trace::TraceFormat::AzureReadingsAvg,
            ),
            (
                "azure-v1-excerpt-opendc/vm_cpu_readings-file-1-of-125.csv",
                crate::trace::TraceFormat::AzureReadingsAvg,
            ),
        ];
        for (rel, want) in ucases {
            let f = load(rel);
            assert_eq!(crate::trace::TraceFormat::detect(&[f]), want, "{rel}");
        }
    }

    /// The 20 VMs of the Azure 2019 deep-study metadata get their readings series (SOURCE.md: no reading
    /// VM id outside the 20, every one of the 20 has readings).
    #[test]
    fn attach_usage_links_the_20_deep_study_vms() {
        let dir = "azure-v2-20vm-cpu-readings/";
        let meta = load(&format!("{dir}deep_study_vms_metadata.csv"));
        let readings: Vec<InputFile> = (1..=3)
            .map(|k| load(&format!("{dir}readings/readings_checkpoint_batch_{k}.csv")))
            .collect();
        let mut w = read_workload("deep", &[meta], None).unwrap();
        let t = crate::trace::read_trace("readings", &readings, None).unwrap();
        assert_eq!(w.attach_usage(&t), 20);
        let v = &w.vms[0];
        let u = v.usage.as_ref().unwrap();
        assert_eq!(u.series.as_ref().unwrap().item, v.id);
        assert!(u.stats.is_some());
    }
}
