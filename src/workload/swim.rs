//! Reader of the SWIM MapReduce workloads (Chen et al., MASCOTS 2011; the Facebook FB-2009 / FB-2010 samples of
//! the SWIM repository, `../shared/data/swim-facebook-mapreduce/SOURCE.md`).
//!
//! Format: tab-separated, no header, one job per line in submit order:
//! `job<k>  submit_s  gap_s  map_input_bytes  shuffle_bytes  reduce_output_bytes  [input_path  output_path]`.
//! Optionally gzip-compressed. Each job becomes a [`Vm`] record with `created_s` = submit time and
//! `io_bytes` = `[input, shuffle, output]`; cores, memory and lifetime are unknown in the source (0 cores, no
//! deletion: the reservation model derives units and durations from the bytes, seed 004, ALGORITHMS.md §6.5).

use super::format::WorkloadFormat;
use super::reader::WorkloadReader;
use super::record::{Vm, Workload, MAX_VMS};
use crate::input::parse::{clip, for_each_record};
use crate::input::{check_upload, MAX_TIME_S};
use crate::input::{maybe_gunzip, utf8, InputFile, TraceError};

/// Largest accepted byte count of one job's counter (1 EB; the largest in the data is 85 TB).
pub const MAX_JOB_BYTES: f64 = 1e18;

/// Reader of SWIM job lists (one or more files; jobs of several files get the file name in their id).
///
/// Errors (file:line:column): fewer than 6 fields, a submit time or byte count that is not a finite number in
/// its range ([`MAX_TIME_S`], [`MAX_JOB_BYTES`]), submit times that decrease, more than [`MAX_VMS`] jobs, an
/// empty file.
pub struct SwimReader;

impl WorkloadReader for SwimReader {
    fn format(&self) -> WorkloadFormat {
        WorkloadFormat::Swim
    }

    fn read(&self, name: &str, files: &[InputFile]) -> Result<Workload, TraceError> {
        check_upload(name, files)?;
        let mut vms: Vec<Vm> = Vec::new();
        let data: Vec<&InputFile> = files
            .iter()
            .filter(|f| {
                let b = crate::input::parse::base(&f.name).to_ascii_lowercase();
                !(files.len() > 1
                    && (b.ends_with(".md") || b.starts_with("license") || b.starts_with("readme")))
            })
            .collect();
        let prefix_ids = data.len() > 1;
        let mut end = 0.0f64;
        for f in data {
            let bytes = maybe_gunzip(&f.name, &f.bytes)?;
            let text = utf8(&f.name, &bytes)?;
            let file = f.name.as_str();
            let mut last = 0.0f64;
            let n = for_each_record(file, text, b'\t', |r| {
                if r.len() < 6 {
                    return Err(r.err(
                        r.len(),
                        format!("expected at least 6 tab-separated fields (job, submit s, gap s, input, shuffle, output bytes), got {}", r.len()),
                    ));
                }
                if vms.len() >= MAX_VMS {
                    return Err(r.err(0, format!("more than {MAX_VMS} jobs")));
                }
                let id = r.get(0, "job id")?;
                if id.is_empty() {
                    return Err(r.err(0, "empty job id"));
                }
                let t = r.num(1, "submit time", MAX_TIME_S)?;
                if t < last {
                    return Err(r.err(
                        1,
                        format!("submit time {t} s is before the previous job's {last} s"),
                    ));
                }
                last = t;
                let mut io = [0.0; 3];
                for (k, what) in ["map input bytes", "shuffle bytes", "reduce output bytes"]
                    .into_iter()
                    .enumerate()
                {
                    io[k] = r.num(3 + k, what, MAX_JOB_BYTES)?;
                }
                end = end.max(t);
                vms.push(Vm {
                    id: if prefix_ids {
                        compact_str::format_compact!(
                            "{}:{}",
                            crate::input::parse::base(file),
                            clip(id)
                        )
                    } else {
                        id.into()
                    },
                    tenant: None,
                    deployment: None,
                    category: None,
                    cores: 0.0,
                    memory_gb: 0.0,
                    gpus: 0.0,
                    created_s: t,
                    started_s: None,
                    deleted_s: None,
                    censored_at_s: None,
                    lifetime_range_s: None,
                    io_bytes: Some(Box::new(io)),
                    usage: None,
                });
                Ok(())
            })?;
            if n == 0 {
                return Err(TraceError::new(file, None, None, "the file holds no jobs"));
            }
        }
        Workload {
            name: name.to_string(),
            source: WorkloadFormat::Swim,
            vms,
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s: end,
            notes: vec![
                "SWIM MapReduce jobs: submit times and byte counts only (no tasks, durations, deadlines or values)"
                    .into(),
            ],
        }
        .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Workload, TraceError> {
        SwimReader.read(
            "t",
            &[InputFile {
                name: "a.tsv".into(),
                bytes: text.as_bytes().to_vec(),
            }],
        )
    }

    #[test]
    fn reads_jobs_with_their_bytes() {
        let w =
            read("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t7\t0\t9\tinputPath1\t\t\n")
                .unwrap();
        assert_eq!(w.vms.len(), 2);
        assert_eq!(w.vms[0].created_s, 49.0);
        assert_eq!(
            w.vms[0].io_bytes.as_deref(),
            Some(&[740773.0, 2339561.0, 627471.0])
        );
        assert_eq!(w.vms[1].io_bytes.as_deref(), Some(&[7.0, 0.0, 9.0]));
        assert_eq!(w.trace_end_s, 101.0);
        assert_eq!(w.source, WorkloadFormat::Swim);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = read("job0\t49\t49\t1\t2\t3\njob1\t50\t1\t1\tx\t3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.tsv:2:"), "{e}");
        assert!(e.contains("shuffle bytes 'x' is not a number"), "{e}");
        let e = read("job0\t49\t49\t1\t2\n").unwrap_err().to_string();
        assert!(e.contains("at least 6"), "{e}");
        let e = read("job0\t49\t49\t1\t2\t3\njob1\t40\t1\t1\t2\t3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("before the previous"), "{e}");
        let e = read("job0\t49\t49\t1\t-2\t3\n").unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
        assert!(read("\n\n").is_err());
    }
}
