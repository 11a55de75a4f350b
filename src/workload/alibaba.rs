//! Alibaba cluster-trace-gpu-v2023 ("openb", Weng et al., ATC 2023) as a workload: pods with CPU, memory and
//! (shared) GPU requests and creation/scheduling/deletion times, and the heterogeneous node list they ran on.
//!
//! Source: ../shared/data/alibaba-gpu-v2023-openb/SOURCE.md. A real arrival/size/lifetime workload against a
//! real node inventory for lifetime-aware allocation (seed 003, ALGORITHMS.md §5.7) and empty-host measurement.

use super::format::WorkloadFormat;
use super::reader::WorkloadReader;
use super::record::{Host, Vm, Workload, MAX_CORES, MAX_GPUS, MAX_HOSTS, MAX_MEMORY_GB, MAX_VMS};
use crate::input::parse::{clip, for_each_record, Row};
use crate::input::{check_upload, MAX_TIME_S};
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError};
use compact_str::CompactString;

/// Reader of the openb CSV files: one pod list (header
/// `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time`,
/// any column order, `gpu_spec`/`qos`/`pod_phase`/`scheduled_time` optional) and optionally node lists (header
/// `sn,cpu_milli,memory_mib,gpu,model`); files are told apart by their header.
///
/// Pod → [`Vm`]: id = `name`, cores = `cpu_milli / 1000`, memory_gb = `memory_mib / 1024`,
/// gpus = `num_gpu × gpu_milli / 1000` (`gpu_milli` is the share of each GPU, 1000 = whole; a pod with
/// `num_gpu > 0` and `gpu_milli = 0` counts whole GPUs), category = `qos`, created = `creation_time`,
/// started = `scheduled_time` (empty for pending pods), deleted = `deletion_time`. The data always has a
/// deletion time; pods whose deletion time equals the largest one in the file (the collection end,
/// 12,902,960 s in the default list: 34 pods) are right-censored. The window is
/// `[earliest creation, largest deletion]`. Node → [`Host`]: cores = `cpu_milli / 1000`,
/// memory_gb = `memory_mib / 1024`, gpus = `gpu`, model = `model` (empty → `None`).
///
/// Errors (file:line:column): a missing column, a number that is not finite, negative or beyond the limits
/// ([`MAX_CORES`], [`MAX_MEMORY_GB`], [`MAX_GPUS`], [`MAX_TIME_S`]), `gpu_milli > 1000`, deletion before
/// creation, scheduling outside `[creation, deletion]`, an empty name, more than [`MAX_VMS`] pods or
/// [`MAX_HOSTS`] nodes, no pod list or two of them.
pub struct AlibabaGpuReader;

impl WorkloadReader for AlibabaGpuReader {
    fn format(&self) -> WorkloadFormat {
        WorkloadFormat::AlibabaGpu2023
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError> {
        check_upload(name, files)?;
        let mut pods: Option<(String, Vec<Vm>)> = None;
        let mut hosts = Vec::new();
        for f in files {
            // documentation shipped beside the lists (README.md, SOURCE.md, LICENSE) is not data
            let base = crate::input::parse::base(&f.name).to_ascii_lowercase();
            if files.len() > 1
                && (base.ends_with(".md") || base.ends_with(".txt") || base.starts_with("license"))
            {
                continue;
            }
            let bytes = maybe_gunzip(&f.name, &f.bytes)?;
            let text = utf8(&f.name, &bytes)?;
            let head = text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if head.starts_with("sn,") || head.contains(",model") {
                read_nodes(&f.name, text, &mut hosts)?;
            } else if head.split(',').any(|h| h.trim() == "creation_time") {
                if let Some((other, _)) = &pods {
                    return Err(TraceError::new(
                        &f.name,
                        None,
                        None,
                        format!(
                            "a second pod list (the first is {other}); read one pod list at a time"
                        ),
                    ));
                }
                pods = Some((f.name.clone(), read_pods(&f.name, text)?));
            } else {
                return Err(TraceError::new(
                    &f.name,
                    Some(1),
                    Some(1),
                    format!(
                        "neither an openb pod list (header name,cpu_milli,…,creation_time,…) nor a node list (header sn,cpu_milli,memory_mib,gpu,model): '{}'",
                        clip(&head)
                    ),
                ));
            }
        }
        let Some((_, mut vms)) = pods else {
            return Err(TraceError::new(
                name,
                None,
                None,
                "no pod list (a CSV whose header names creation_time)",
            ));
        };
        let end = vms.iter().filter_map(|v| v.deleted_s).fold(0.0, f64::max);
        let start = vms
            .iter()
            .map(|v| v.created_s)
            .fold(f64::INFINITY, f64::min);
        let mut censored = 0;
        for v in &mut vms {
            if v.deleted_s == Some(end) {
                v.deleted_s = None;
                censored += 1;
            }
        }
        let pending = vms.iter().filter(|v| v.started_s.is_none()).count();
        let notes = vec![
            format!("Alibaba GPU 2023 (openb): the {censored} pods deleted at the largest deletion time {end} s (the collection end) are right-censored"),
            format!("{pending} pods were never scheduled (started_s empty: pending)"),
            "GPU shares: gpus = num_gpu × gpu_milli / 1000; memory GB = MiB / 1024".into(),
        ];
        Workload {
            name: name.to_string(),
            source: WorkloadFormat::AlibabaGpu2023,
            vms,
            hosts,
            trace_start_s: if start.is_finite() { start } else { 0.0 },
            trace_end_s: end,
            notes,
        }
        .finish()
    }
}

/// Column indices by header name (trimmed, case-insensitive); the error names the first missing one.
fn columns<const N: usize>(
    row: &Row,
    want: [&str; N],
    optional: usize,
) -> Result<[Option<usize>; N], TraceError> {
    let mut out = [None; N];
    for (k, w) in want.iter().enumerate() {
        out[k] = (0..row.len()).find(|&i| row.rec[i].trim().eq_ignore_ascii_case(w));
        if out[k].is_none() && k < N - optional {
            return Err(row.err(0, format!("the header lacks the column '{w}'")));
        }
    }
    Ok(out)
}

/// Reads a pod list into VMs (all with `deleted_s` set; censoring is decided by the caller).
fn read_pods(file: &str, text: &str) -> Result<Vec<Vm>, TraceError> {
    let mut cols = None;
    let mut vms = Vec::new();
    for_each_record(file, text, b',', |r| {
        let Some(c) = cols else {
            cols = Some(columns(
                r,
                [
                    "name",
                    "cpu_milli",
                    "memory_mib",
                    "num_gpu",
                    "gpu_milli",
                    "creation_time",
                    "deletion_time",
                    "qos",
                    "scheduled_time",
                ],
                2,
            )?);
            return Ok(());
        };
        let [name, cpu, mem, ngpu, gmilli, created, deleted, qos, sched] =
            c.map(|k| k.unwrap_or(usize::MAX));
        if vms.len() >= MAX_VMS {
            return Err(r.err(0, format!("more than {MAX_VMS} pods")));
        }
        let id = r.get(name, "name")?;
        if id.is_empty() {
            return Err(r.err(name, "empty pod name"));
        }
        let n_gpu = r.num(ngpu, "num_gpu", MAX_GPUS)?;
        let milli = r.num(gmilli, "gpu_milli", 1000.0)?;
        let created_s = r.num(created, "creation_time", MAX_TIME_S)?;
        let deleted_s = r.num(deleted, "deletion_time", MAX_TIME_S)?;
        if deleted_s < created_s {
            return Err(r.err(
                deleted,
                format!("deletion_time {deleted_s} s is before creation_time {created_s} s"),
            ));
        }
        let started_s = if sched == usize::MAX {
            None
        } else {
            r.opt_num(sched, "scheduled_time", MAX_TIME_S)?
        };
        if let Some(s) = started_s.filter(|s| *s < created_s || *s > deleted_s) {
            return Err(r.err(
                sched,
                format!("scheduled_time {s} s lies outside [creation {created_s}, deletion {deleted_s}] s"),
            ));
        }
        let category = r
            .rec
            .get(qos)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(CompactString::from);
        vms.push(Vm {
            id: id.into(),
            tenant: None,
            deployment: None,
            category,
            cores: r.num(cpu, "cpu_milli", MAX_CORES * 1000.0)? / 1000.0,
            memory_gb: r.num(mem, "memory_mib", MAX_MEMORY_GB * 1024.0)? / 1024.0,
            gpus: if milli > 0.0 {
                n_gpu * milli / 1000.0
            } else {
                n_gpu
            },
            created_s,
            started_s,
            deleted_s: Some(deleted_s),
            censored_at_s: None,
            lifetime_range_s: None,
            io_bytes: None,
            usage: None,
        });
        Ok(())
    })?;
    Ok(vms)
}

/// Reads a node list, appending to `hosts`.
fn read_nodes(file: &str, text: &str, hosts: &mut Vec<Host>) -> Result<(), TraceError> {
    let mut cols = None;
    for_each_record(file, text, b',', |r| {
        let Some(c) = cols else {
            cols = Some(columns(
                r,
                ["sn", "cpu_milli", "memory_mib", "gpu", "model"],
                1,
            )?);
            return Ok(());
        };
        let [sn, cpu, mem, gpu, model] = c.map(|k| k.unwrap_or(usize::MAX));
        if hosts.len() >= MAX_HOSTS {
            return Err(r.err(0, format!("more than {MAX_HOSTS} nodes")));
        }
        let id = r.get(sn, "sn")?;
        if id.is_empty() {
            return Err(r.err(sn, "empty node id"));
        }
        hosts.push(Host {
            id: id.to_string(),
            cores: r.num(cpu, "cpu_milli", MAX_CORES * 1000.0)? / 1000.0,
            memory_gb: r.num(mem, "memory_mib", MAX_MEMORY_GB * 1024.0)? / 1024.0,
            gpus: r.num(gpu, "gpu", MAX_GPUS)?,
            model: r
                .rec
                .get(model)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        });
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::testutil::{load, no_panic};

    fn files() -> Vec<InputFile> {
        vec![
            load("alibaba-gpu-v2023-openb/openb_pod_list_default.csv"),
            load("alibaba-gpu-v2023-openb/openb_node_list_all_node.csv"),
        ]
    }

    /// SOURCE.md: 8,152 pods, 1,523 nodes with 125,514 cores and 6,212 GPUs, 310 CPU-only nodes; 34 pods at the
    /// maximum deletion time 12,902,960 s; 897 pending pods without scheduled_time.
    #[test]
    fn openb_counts_totals_and_records() {
        let fs = files();
        let w = AlibabaGpuReader.read("openb", &fs).unwrap();
        assert_eq!(
            (w.vm_count(), w.host_count(), w.censored_count()),
            (8152, 1523, 34)
        );
        assert_eq!((w.trace_start_s, w.trace_end_s), (0.0, 12_902_960.0));
        assert_eq!(w.vms.iter().filter(|v| v.started_s.is_none()).count(), 897);
        let s = w.summary();
        assert_eq!((s.host_cores, s.host_gpus), (125_514.0, 6_212.0));
        assert_eq!(w.hosts.iter().filter(|h| h.model.is_none()).count(), 310);
        // python3 -c "import csv;r=list(csv.DictReader(open('openb_pod_list_default.csv')));
        //   print(sum(int(x['num_gpu'])*int(x['gpu_milli']) for x in r)/1000,
        //         sum(int(x['cpu_milli']) for x in r)/1000, sum(int(x['memory_mib']) for x in r)/1024)"
        //   → 6086.8 85436.012 296431.8466796875
        assert!((s.vm_gpus - 6086.8).abs() < 1e-6, "{}", s.vm_gpus);
        assert!((s.vm_cores - 85_436.012).abs() < 1e-6, "{}", s.vm_cores);
        assert!(
            (s.vm_memory_gb - 296_431.846_679_687_5).abs() < 1e-6,
            "{}",
            s.vm_memory_gb
        );
        // line 3: openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061 (censored)
        let v = w.vms.iter().find(|v| v.id == "openb-pod-0001").unwrap();
        assert_eq!((v.cores, v.memory_gb, v.gpus), (6.0, 12.0, 0.46));
        assert_eq!(
            (v.created_s, v.started_s, v.deleted_s),
            (427_061.0, Some(427_061.0), None)
        );
        assert_eq!(v.category.as_deref(), Some("LS"));
        // line 2: openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0
        let v = &w.vms[0];
        assert_eq!(
            (v.id.as_str(), v.deleted_s, v.gpus),
            ("openb-pod-0000", Some(12_537_496.0), 1.0)
        );
        // head -2 openb_node_list_all_node.csv: openb-node-0000,32000,262144,0,
        let h = &w.hosts[0];
        assert_eq!(
            (
                h.id.as_str(),
                h.cores,
                h.memory_gb,
                h.gpus,
                h.model.as_deref()
            ),
            ("openb-node-0000", 32.0, 256.0, 0.0, None)
        );
        // 8-GPU pods (num_gpu 8): 44
        assert_eq!(w.vms.iter().filter(|v| v.gpus == 8.0).count(), 44);
        // pods alone (no node list) also read
        let p = AlibabaGpuReader.read("openb", &fs[..1]).unwrap();
        assert_eq!((p.vm_count(), p.host_count()), (8152, 0));
    }

    #[test]
    fn openb_errors_name_line_and_column() {
        let h = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
        let read = |body: &str| {
            AlibabaGpuReader.read(
                "w",
                &[InputFile {
                    name: "p.csv".into(),
                    bytes: format!("{h}{body}").into_bytes(),
                }],
            )
        };
        assert!(read("p0,1000,1024,0,0,,BE,Running,0,10,0\n").is_ok());
        let e = read("p0,1000,1024,0,0,,BE,Running,0,10,0\np1,-5,1024,0,0,,BE,Running,0,10,0\n")
            .unwrap_err();
        assert_eq!(e.to_string(), "p.csv:3:4: cpu_milli '-5' is negative");
        let e = read("p0,NaN,1024,0,0,,BE,Running,0,10,0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:2:4: cpu_milli 'NaN' is not a finite number"
        );
        let e = read("p0,1000,1024,1,1500,,BE,Running,0,10,0\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(16)), "{e}");
        let e = read("p0,1000,1024,0,0,,BE,Running,50,10,\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.csv:2:33: deletion_time 10 s is before creation_time 50 s"
        );
        let e = read("p0,1000,1024,0,0,,BE,Running,0,1e300,\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(32)), "{e}");
        let e = read("p0,1000,1024,0,0,,BE,Running,0,10,20\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(35)), "{e}");
        let e = read("p0,1000,1024\n").unwrap_err();
        assert_eq!(e.to_string(), "p.csv:2:13: missing the num_gpu field");
        let e = read("p0,1000,1024,0,0,,BE,Running,0,10,0\np0,1,1,0,0,,BE,Running,0,10,0\n")
            .unwrap_err();
        assert!(e.message.contains("appears twice"), "{e}");
        let e = read("").unwrap_err();
        assert!(e.message.contains("no VMs"), "{e}");
        let e = AlibabaGpuReader
            .read(
                "w",
                &[InputFile {
                    name: "x.csv".into(),
                    bytes: b"a,b\n1,2\n".to_vec(),
                }],
            )
            .unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.column),
            ("x.csv", Some(1), Some(1))
        );
        let e = AlibabaGpuReader
            .read(
                "w",
                &[InputFile {
                    name: "n.csv".into(),
                    bytes: b"sn,cpu_milli,memory_mib,gpu,model\nn1,1000,x,0,\n".to_vec(),
                }],
            )
            .unwrap_err();
        assert_eq!(e.to_string(), "n.csv:2:9: memory_mib 'x' is not a number");
    }

    #[test]
    fn no_panic_on_garbled_openb_files() {
        let fs = files();
        no_panic(&fs, |f| AlibabaGpuReader.read("g", f));
    }
}
