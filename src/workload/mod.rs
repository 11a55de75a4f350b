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
//! The lifetime model reads a workload as [`WorkloadFacts`] ([`facts`]: 24 bytes per VM, [`read_facts`] builds
//! them from arrivals without a [`Vm`] per VM; issue 30).
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
pub mod facts;
mod format;
mod reader;
mod record;
pub mod swim;
pub mod synthetic;

pub use alibaba::AlibabaGpuReader;
pub use azure::{AzureArrivalsReader, AzureVmtableReader};
pub use facts::{VmFacts, WorkloadFacts};
pub use format::WorkloadFormat;
pub use reader::WorkloadReader;
pub use record::{
    CpuStats, Host, SeriesRef, UsageRef, Vm, Workload, WorkloadSummary, MAX_CORES, MAX_GPUS,
    MAX_HOSTS, MAX_MEMORY_GB, MAX_VMS,
};
pub use swim::SwimReader;

pub use crate::input::MAX_TIME_S;
use crate::input::{check_upload, InputFile, TraceError};

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

/// Reads `files` as [`read_workload`] does, into the lifetime model's compact records ([`WorkloadFacts`]):
/// arrivals straight from their parsed form (no [`Vm`] per VM), other formats through their workload. Errors:
/// [`read_workload`]'s, and [`WorkloadFacts::from_workload`]'s limits.
pub fn read_facts(
    name: &str,
    files: &[InputFile],
    format: Option<WorkloadFormat>,
) -> Result<WorkloadFacts, TraceError> {
    check_upload(name, files)?;
    let _budget = crate::input::InflateBudget::start();
    match format.unwrap_or_else(|| WorkloadFormat::detect(files)) {
        WorkloadFormat::AzureArrivals => {
            WorkloadFacts::from_arrivals(name, azure::read_arrivals_data(name, files)?, None)
        }
        fmt => WorkloadFacts::from_workload(&read_workload(name, files, Some(fmt))?),
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
