//! The records of a workload: VMs (or jobs, pods) with their shape, owner, lifetime and usage, and hosts
//! (ALGORITHMS.md §1.1), the [`Workload`] holding them, and the limits every reader checks. The one VM record of
//! the engine: every reader of VM/job records returns these.

use super::format::WorkloadFormat;
use crate::input::TraceError;
use crate::trace::UsageTrace;
use compact_str::CompactString;
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

/// Lifetime CPU statistics of a VM as the source gives them (Azure vmtable `avgcpu`, `maxcpu`, `p95maxcpu`),
/// in VM units (percent / 100).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuStats {
    /// Average CPU over the VM's life, VM units.
    pub avg: f64,
    /// Largest 5-minute maximum, VM units.
    pub max: f64,
    /// 95th percentile of the 5-minute maxima, VM units.
    pub p95_max: f64,
}

/// Where a VM's usage series lives: a [`crate::trace::UsageTrace`] and the item id in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesRef {
    /// [`crate::trace::UsageTrace::name`] of the trace holding the series.
    pub trace: String,
    /// Item id in [`crate::trace::UsageTrace::items`].
    pub item: String,
}

/// What is known about a VM's CPU usage: summary statistics from the record, and/or a usage series.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageRef {
    /// Lifetime statistics given by the source (Azure vmtable), VM units.
    pub stats: Option<CpuStats>,
    /// The VM's series in a usage trace (set by [`Workload::attach_usage`]).
    pub series: Option<SeriesRef>,
}

/// One VM, container or job request of a workload (ALGORITHMS.md §1.1 "workload unit"): shape, owner and
/// lifetime. Times are seconds from the trace's origin; a VM without `deleted_s` is right-censored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vm {
    /// Id, unique within the workload (Azure: encrypted VM id; arrivals: `<split>:<batch>:<k>`; Alibaba: pod name).
    /// The four text fields are [`CompactString`]s: up to 24 bytes stay inside the record, so the arrivals'
    /// ids, tenant batches and flavour letters need no heap allocation of their own (issue 30).
    pub id: CompactString,
    /// Owner: Azure subscription id (vmtable); `None` where the source has none (arrivals, Alibaba pods).
    pub tenant: Option<CompactString>,
    /// Deployment / request group: Azure deployment id (vmtable), the tenant batch `<split>:<batch>` of the
    /// arrivals (one tenant's VMs in one 5-minute bin, seed 000's deployment); `None` for Alibaba pods.
    pub deployment: Option<CompactString>,
    /// Class given by the source: Azure `vmcategory` (Interactive, Delay-insensitive, Unknown; V1 spells it
    /// `Unkown`), the arrivals' flavour letter, Alibaba `qos` (LS, BE, Burstable, Guaranteed).
    pub category: Option<CompactString>,
    /// Requested vCPU cores (Alibaba: `cpu_milli / 1000`; Azure V2: the bucket value, `>24` read as 32).
    pub cores: f64,
    /// Requested memory, GB (Alibaba: `memory_mib / 1024`; Azure V2: the bucket value, `>64` read as 128).
    pub memory_gb: f64,
    /// Requested GPUs, 0 when none; fractional for GPU-sharing pods (Alibaba `num_gpu × gpu_milli / 1000`).
    pub gpus: f64,
    /// Creation (arrival / request) time, s.
    pub created_s: f64,
    /// Time the VM started running on a host when the source tells it apart from creation (Alibaba
    /// `scheduled_time`); `None` if it never started (pending pods) or the source has no such time.
    pub started_s: Option<f64>,
    /// Deletion (exit) time, s, ≥ `created_s`; `None` = still alive when observation ended (right-censored).
    pub deleted_s: Option<f64>,
    /// For a censored VM observed until before the workload's [`Workload::trace_end_s`]: the time it was last
    /// known alive (the arrivals' `dev` split is censored at its cut 2,100,000 s). `None` otherwise.
    pub censored_at_s: Option<f64>,
    /// Lifetime bounds `[lo, hi]`, s, when the source gives the lifetime only as a bin (Azure arrivals:
    /// `deleted_s` is then `created_s` + the bin's midpoint). `None` when the lifetime is exact or censored.
    pub lifetime_range_s: Option<[f64; 2]>,
    /// Bytes a MapReduce job read, shuffled and wrote `[input, shuffle, output]` (SWIM traces); `None` for
    /// VMs. The reservation model (seed 004) derives a job's units and duration from them.
    /// Boxed, as `usage`: most records have neither, and the record stays at 216 bytes (the 669,435 VMs of
    /// the bundled arrivals: 145 MB instead of 209 MB; issue 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_bytes: Option<Box<[f64; 3]>>,
    /// CPU usage information, when the source has some (boxed, see `io_bytes`).
    pub usage: Option<Box<UsageRef>>,
}

impl Vm {
    /// True if the VM's deletion was not observed (right-censored).
    pub fn is_censored(&self) -> bool {
        self.deleted_s.is_none()
    }

    /// Observed lifetime, s: `deleted − created`, or for a censored VM the lower bound
    /// `(censored_at_s or trace_end_s) − created` (never negative).
    pub fn lifetime_s(&self, trace_end_s: f64) -> f64 {
        let end = self.deleted_s.or(self.censored_at_s).unwrap_or(trace_end_s);
        (end - self.created_s).max(0.0)
    }

    /// True if the VM is alive at time `t` (created ≤ t < deleted; a censored VM stays alive).
    pub fn alive_at(&self, t: f64) -> bool {
        self.created_s <= t && self.deleted_s.is_none_or(|d| t < d)
    }
}

/// One machine of a node list (ALGORITHMS.md §1.1 "machine"): capacities in cores, GB and GPUs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// Node id (Alibaba `sn`).
    pub id: String,
    /// CPU cores.
    pub cores: f64,
    /// Memory, GB.
    pub memory_gb: f64,
    /// GPUs (0 for CPU-only nodes).
    pub gpus: f64,
    /// GPU model (Alibaba: G1/G2/G3, T4, P100, V100M16, V100M32, A10), `None` for CPU-only nodes.
    pub model: Option<String>,
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
                v.usage.get_or_insert_with(Default::default).series = Some(SeriesRef {
                    trace: trace.name.clone(),
                    item: v.id.to_string(),
                });
                n += 1;
            }
        }
        n
    }

    /// Counts, totals and the window, for display.
    pub fn summary(&self) -> WorkloadSummary {
        let distinct = |f: fn(&Vm) -> Option<&CompactString>| {
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
        let ids = self.vms.iter().map(|v| ("VM", v.id.as_str()));
        if let Some((what, id)) = ids
            .chain(self.hosts.iter().map(|h| ("host", h.id.as_str())))
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
        // readers mostly emit creation order already (the arrivals, SWIM): a stable sort of sorted records is
        // the identity, so it is skipped, and with it the sort's scratch copy of half the records
        if !self
            .vms
            .is_sorted_by(|a, b| a.created_s.total_cmp(&b.created_s).is_le())
        {
            self.vms.sort_by(|a, b| a.created_s.total_cmp(&b.created_s));
        }
        Ok(self)
    }
}
