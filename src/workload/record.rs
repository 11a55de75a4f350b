//! The records of a workload: VMs (or jobs, pods) with their shape, owner, lifetime and usage, and hosts
//! (ALGORITHMS.md §1.1). The one VM record of the engine: every reader of VM/job records returns these.

use serde::{Deserialize, Serialize};

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
    /// The VM's series in a usage trace (set by [`super::Workload::attach_usage`]).
    pub series: Option<SeriesRef>,
}

/// One VM, container or job request of a workload (ALGORITHMS.md §1.1 "workload unit"): shape, owner and
/// lifetime. Times are seconds from the trace's origin; a VM without `deleted_s` is right-censored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vm {
    /// Id, unique within the workload (Azure: encrypted VM id; arrivals: `<split>:<batch>:<k>`; Alibaba: pod name).
    pub id: String,
    /// Owner: Azure subscription id (vmtable); `None` where the source has none (arrivals, Alibaba pods).
    pub tenant: Option<String>,
    /// Deployment / request group: Azure deployment id (vmtable), the tenant batch `<split>:<batch>` of the
    /// arrivals (one tenant's VMs in one 5-minute bin, seed 000's deployment); `None` for Alibaba pods.
    pub deployment: Option<String>,
    /// Class given by the source: Azure `vmcategory` (Interactive, Delay-insensitive, Unknown; V1 spells it
    /// `Unkown`), the arrivals' flavour letter, Alibaba `qos` (LS, BE, Burstable, Guaranteed).
    pub category: Option<String>,
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
    /// For a censored VM observed until before the workload's [`super::Workload::trace_end_s`]: the time it was last
    /// known alive (the arrivals' `dev` split is censored at its cut 2,100,000 s). `None` otherwise.
    pub censored_at_s: Option<f64>,
    /// Lifetime bounds `[lo, hi]`, s, when the source gives the lifetime only as a bin (Azure arrivals:
    /// `deleted_s` is then `created_s` + the bin's midpoint). `None` when the lifetime is exact or censored.
    pub lifetime_range_s: Option<[f64; 2]>,
    /// Bytes a MapReduce job read, shuffled and wrote `[input, shuffle, output]` (SWIM traces); `None` for
    /// VMs. The reservation model (seed 004) derives a job's units and duration from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_bytes: Option<[f64; 3]>,
    /// CPU usage information, when the source has some.
    pub usage: Option<UsageRef>,
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
