//! The workload formats and how a format is guessed from the files.

use super::azure::arrivals::BUNDLE_MAGIC;
use crate::input::{first_line, InputFile};
use serde::{Deserialize, Serialize};

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
    /// Generated from parameters, not read from files ([`super::synthetic`]).
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
            if head.starts_with(BUNDLE_MAGIC) {
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
