//! The simulated pool's jobs: one pool's share of a workload (ALGORITHMS.md §5.1, §5.9).
//!
//! A workload from `src/workload/` (e.g. the Azure 2017 arrivals) is a whole region. One pool sees a share of
//! it: whole tenant batches (a deployment) are kept with probability `share`, decided by a hash of the seed and
//! the batch, so a seed is one pool instance and different seeds give independent instances. Times become hours
//! from the first kept arrival; shapes are `(cores, memory GB, GPUs)`.

use super::params::LifetimeParams;
use super::predictor::LifetimeDist;
use crate::experiment::RunError;
use crate::substrate::rng::mix64;
use crate::workload::WorkloadFacts;
use serde::Serialize;
use std::collections::HashMap;

/// Capacity dimensions: cores, memory (GB), GPUs.
pub const DIMS: usize = 3;

/// One VM of the pool's share.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Arrival (creation) time, hours from the pool's origin.
    pub start: f64,
    /// Exit time, hours from the origin; `f64::INFINITY` when the exit was not observed (right-censored: the
    /// VM outlives the simulation).
    pub exit: f64,
    /// Its lifetime for the oracle and the noisy predictor, hours: `exit − start` when observed; for a
    /// right-censored VM the age `a` it reached plus the population's `E[T − a | T > a]` (imputed).
    pub life: f64,
    /// Whether the exit was not observed (for a VM alive at the window's start whose exit the data lacks,
    /// `exit` and `life` are then a drawn exit and lifetime, or `INFINITY` and an imputed one, see
    /// [`select`] with `lifetime.alive_at_start`).
    pub censored: bool,
    /// Requested `(cores, memory GB, GPUs)`.
    pub shape: [f64; DIMS],
    /// Index of its tenant batch (deployment) among the kept ones.
    pub batch: u32,
}

/// The pool's share of a workload.
#[derive(Clone, Debug)]
pub struct PoolJobs {
    /// Jobs in arrival order (ties in workload order).
    pub jobs: Vec<Job>,
    /// End of the simulation, hours from the origin (the end of the observation window).
    pub end: f64,
    /// The population lifetime distribution (Kaplan–Meier) of the training VMs: the workload's VMs outside the
    /// simulated split when there are any, else the simulated VMs.
    pub dist: LifetimeDist,
    /// What was selected, for the report.
    pub setup: ShareSetup,
    /// The workload's node inventory `(cores, memory GB, GPUs)` per host, when the pool is that inventory
    /// (`lifetime.hosts` = 0 and the workload lists nodes, e.g. the Alibaba GPU 2023 cluster); `None` = identical
    /// hosts of the section's shape.
    pub caps: Option<Vec<[f64; DIMS]>>,
    /// Index in the workload's `vms` of each job (parallel to `jobs`; [`WorkloadFacts::vms`] keeps that order).
    pub vms: Vec<usize>,
    /// Indices in the workload's `vms` of the training VMs (those behind `dist`).
    pub training: Vec<usize>,
}

/// What the pool's share holds (reported with every run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShareSetup {
    /// Workload name.
    pub workload: String,
    /// Split simulated (`""` = the whole workload).
    pub split: String,
    /// VMs of the split (before thinning).
    pub split_vms: usize,
    /// Tenant batches of the split.
    pub split_batches: usize,
    /// VMs kept.
    pub vms: usize,
    /// Batches kept.
    pub batches: usize,
    /// Kept VMs whose exit was not observed.
    pub censored: usize,
    /// Window simulated, hours.
    pub window_h: f64,
    /// Hosts in the pool (given, or sized to the peak demand when `lifetime.hosts` = 0).
    pub hosts: usize,
    /// Training VMs behind the population distribution (distributional predictor, imputed lifetimes).
    pub training_vms: usize,
    /// Mean of the population distribution, hours.
    pub mean_lifetime_h: f64,
    /// Mean requested cores alive over the measured window divided by the pool's cores (the allocation the
    /// share offers; a policy that fails VMs allocates less).
    pub offered_allocation: f64,
    /// Facts worth showing (censoring, excluded VMs).
    pub notes: Vec<String>,
    /// With `lifetime.alive_at_start`: the VMs alive at the window's start that the pool holds first (the
    /// first `alive_at_start` jobs, placed by best fit; App. F). Not among `vms`.
    #[serde(skip_serializing_if = "is_zero")]
    pub alive_at_start: usize,
    /// Of those, the ones whose exit is not in the data and was drawn (see [`select`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub alive_at_start_drawn: usize,
}

fn is_zero(x: &usize) -> bool {
    *x == 0
}

/// Random-stream component of the exits drawn for VMs alive at the window's start.
const COMP_ALIVE: u64 = 0x616c_6976;

fn in_split(deployment: Option<&str>, split: &str) -> bool {
    split.is_empty()
        || deployment.is_some_and(|d| d.strip_prefix(split).is_some_and(|r| r.starts_with(':')))
}

/// Selects the pool's share of `w` (the workload's compact records) for `params` and `seed` (see the module
/// documentation). Errors: no VM in the split (naming `lifetime.split`), no VM kept (naming `lifetime.share`).
pub fn select(w: &WorkloadFacts, params: &LifetimeParams, seed: u64) -> Result<PoolJobs, RunError> {
    let split = params.split.as_str();
    let picked: Vec<usize> = (0..w.vms.len())
        .filter(|&i| in_split(w.deployment(&w.vms[i]), split))
        .collect();
    if picked.is_empty() {
        return Err(RunError::field(
            "lifetime.split",
            format!(
                "the workload '{}' has no VM in the split '{split}' (splits are the deployment prefixes of the Azure 2017 arrivals, e.g. dev, test; empty = every VM)",
                w.name
            ),
        ));
    }
    let end_s = picked
        .iter()
        .filter_map(|&i| {
            let v = &w.vms[i];
            v.is_censored()
                .then(|| v.censored_at_s().unwrap_or(w.trace_end_s))
        })
        .fold(f64::INFINITY, f64::min);
    let end_s = if end_s.is_finite() {
        end_s
    } else {
        picked
            .iter()
            .filter_map(|&i| w.vms[i].deleted_s())
            .fold(w.trace_end_s, f64::max)
    };
    // training population: VMs outside the split, else the split itself
    let training: Vec<usize> = if split.is_empty() {
        picked.clone()
    } else {
        let other: Vec<usize> = (0..w.vms.len())
            .filter(|&i| !in_split(w.deployment(&w.vms[i]), split))
            .collect();
        if other.is_empty() {
            picked.clone()
        } else {
            other
        }
    };
    let obs: Vec<(f64, bool)> = training
        .iter()
        .map(|&i| {
            let v = &w.vms[i];
            (v.lifetime_s(w.trace_end_s) / 3600.0, v.is_censored())
        })
        .collect();
    let dist = LifetimeDist::kaplan_meier(&obs)
        .ok_or_else(|| RunError::field("workload", "no VM lifetime to learn from"))?;

    // per group (deployment, or the VM itself without one): its index among the split's, numbered in order
    let mut batch_of: Vec<u32> = vec![u32::MAX; w.groups.len()];
    let mut split_batches = 0usize;
    let mut kept_batches = 0u32;
    let mut keep_batch: Vec<Option<u32>> = Vec::new();
    let origin = picked
        .iter()
        .map(|&i| w.vms[i].created_s)
        .fold(f64::INFINITY, f64::min);
    let mut jobs = Vec::new();
    let mut vms = Vec::new();
    let (mut dropped_late, mut no_batch) = (0usize, 0usize);
    for &i in &picked {
        let v = &w.vms[i];
        // a VM without a deployment is its own batch
        if !v.has_deployment() {
            no_batch += 1;
        }
        let slot = &mut batch_of[v.group()];
        if *slot == u32::MAX {
            split_batches += 1;
            *slot = (split_batches - 1) as u32;
        }
        let b = *slot as usize;
        if b == keep_batch.len() {
            let u =
                (mix64(seed ^ mix64(0x6c69_6665 ^ b as u64)) >> 11) as f64 / (1u64 << 53) as f64;
            keep_batch.push((u < params.share).then(|| {
                kept_batches += 1;
                kept_batches - 1
            }));
        }
        let Some(batch) = keep_batch[b] else { continue };
        if v.created_s >= end_s {
            dropped_late += 1;
            continue;
        }
        let start = (v.created_s - origin) / 3600.0;
        let (exit, life) = match v.deleted_s() {
            Some(d) => {
                let e = (d - origin) / 3600.0;
                (e, e - start)
            }
            None => {
                let age = (end_s - v.created_s) / 3600.0;
                (f64::INFINITY, age + dist.mean_residual(age))
            }
        };
        jobs.push(Job {
            start,
            exit,
            life,
            censored: v.is_censored(),
            shape: w.shape(v),
            batch,
        });
        vms.push(i);
    }
    if jobs.is_empty() {
        return Err(RunError::field(
            "lifetime.share",
            format!(
                "the share {} keeps no tenant batch of the {split_batches} in the split",
                params.share
            ),
        ));
    }
    let end = (end_s - origin) / 3600.0;
    let size_with_alive = params.size_with_alive && params.hosts == 0 && w.hosts.is_empty();
    let mut alive = if params.alive_at_start || size_with_alive {
        alive_at_start(w, &picked, origin, end, params.share, seed, kept_batches)
    } else {
        Alive::default()
    };
    // the alive set counted in the pool's size but not placed (`size_with_alive` with an empty start)
    let sizing_alive = if params.alive_at_start {
        Vec::new()
    } else {
        std::mem::take(&mut alive.jobs)
    };
    let n_alive = alive.jobs.len();
    let drawn = alive.drawn;
    let alive_batches = alive.batches;
    let not_alive_known = alive.unknown;
    if n_alive > 0 {
        let mut all = alive.jobs;
        all.extend(jobs);
        jobs = all;
        let mut all_vms = alive.vms;
        all_vms.extend(vms);
        vms = all_vms;
    }
    let mut notes = vec![format!(
        "a pool's share: {kept_batches} of {split_batches} tenant batches kept (share {}), chosen by a hash of the seed",
        params.share
    )];
    let censored = jobs[n_alive..].iter().filter(|j| j.censored).count();
    if censored > 0 {
        notes.push(format!(
            "{censored} VMs outlive the window (right-censored): they never exit; the oracle's lifetime for them is their age at the end plus the population's mean residual life"
        ));
    }
    if dropped_late > 0 {
        notes.push(format!(
            "{dropped_late} VMs created at or after the end of the window were left out"
        ));
    }
    if no_batch > 0 {
        notes.push(format!(
            "{no_batch} VMs have no deployment: each is its own batch"
        ));
    }
    if params.alive_at_start {
        notes.push(format!(
            "warm-up as App. F: {n_alive} VMs of {alive_batches} tenant batches alive at the window's start (created before it, outside the split) are placed first by best fit, in start order; {drawn} of them have no exit in the data (censored at the cut), drawn from the Kaplan–Meier lifetimes of the whole workload beyond their age ({} of those live beyond the largest observed lifetime and stay); VMs alive at the start but created before the workload's first record are not in the data",
            alive.beyond
        ));
        if not_alive_known > 0 {
            notes.push(format!(
                "{not_alive_known} VMs outside the split were censored before the window's start: whether they are alive at it is unknown, they are left out"
            ));
        }
    } else {
        notes.push(
            "the pool starts empty (VMs alive before the window are not in the data); the warm-up absorbs the ramp"
                .into(),
        );
    }
    let cap = [params.host_cores, params.host_memory_gb, params.host_gpus];
    let inventory: Option<Vec<[f64; DIMS]>> =
        (params.hosts == 0 && !w.hosts.is_empty()).then(|| w.hosts.clone());
    let hosts = if let Some(inv) = &inventory {
        notes.push(format!(
            "the pool is the workload's own node inventory: {} hosts of their real, heterogeneous shapes",
            inv.len()
        ));
        inv.len()
    } else if params.hosts == 0 {
        let h = if sizing_alive.is_empty() {
            hosts_for_peak(&jobs, end, &cap, params.peak_allocation)
        } else {
            let all: Vec<Job> = sizing_alive.iter().chain(&jobs).cloned().collect();
            hosts_for_peak(&all, end, &cap, params.peak_allocation)
        };
        if h > super::params::MAX_POOL_HOSTS {
            return Err(RunError::field(
                "lifetime.hosts",
                format!(
                    "the share's peak demand needs {h} hosts, more than {}; lower lifetime.share",
                    super::params::MAX_POOL_HOSTS
                ),
            ));
        }
        notes.push(format!(
            "pool sized to the share: {h} hosts, the fewest whose capacity the peak demand fills to at most {}% in every dimension{}",
            100.0 * params.peak_allocation,
            if sizing_alive.is_empty() {
                String::new()
            } else {
                format!(" (the demand counts the {} VMs alive at the window's start, not placed: the pool of the warm-up run)", sizing_alive.len())
            }
        ));
        h
    } else {
        params.hosts
    };
    let pool_cores = match &inventory {
        Some(inv) => inv.iter().map(|c| c[0]).sum(),
        None => hosts as f64 * params.host_cores,
    };
    let offered = offered_allocation(&jobs, params.warmup_h, end) / pool_cores;
    Ok(PoolJobs {
        setup: ShareSetup {
            workload: w.name.clone(),
            split: split.to_string(),
            split_vms: picked.len(),
            split_batches,
            vms: jobs.len() - n_alive,
            batches: kept_batches as usize,
            hosts,
            censored,
            window_h: end,
            training_vms: training.len(),
            mean_lifetime_h: dist.mean(),
            offered_allocation: offered,
            notes,
            alive_at_start: n_alive,
            alive_at_start_drawn: drawn,
        },
        jobs,
        end,
        dist,
        caps: inventory,
        vms,
        training,
    })
}

/// The VMs alive at the window's start (see [`alive_at_start`]).
#[derive(Default)]
struct Alive {
    jobs: Vec<Job>,
    vms: Vec<usize>,
    batches: usize,
    drawn: usize,
    beyond: usize,
    unknown: usize,
}

/// The VMs of `w` outside the split (`picked`) created before the window's origin (s) and alive at it, as
/// jobs with negative start (hours from the origin; the window ends at `end` hours; their batches are numbered
/// from `first_batch`), in start order (ties in workload order), thinned by whole
/// tenant batches with probability `share` (a hash of the seed and the batch, independent of the split's).
/// Their exit: the recorded one when it is known (it is after the origin); for a VM censored at or after
/// the origin (the Azure 2017 `dev` VMs still running at its cut, which is the `test` window's start), a
/// lifetime drawn from the Kaplan–Meier estimate of every VM of the workload conditional on exceeding the age
/// it reached (seeded per VM: the same for every policy), or no exit (a right-censored job) when the draw
/// falls beyond the largest observed lifetime [UNSTATED: the data gives no exit for these VMs; App. F had the
/// production record]. A VM censored before the origin is left out (counted in `unknown`). VMs created before
/// the workload's first record cannot be known.
fn alive_at_start(
    w: &WorkloadFacts,
    picked: &[usize],
    origin: f64,
    end: f64,
    share: f64,
    seed: u64,
    first_batch: u32,
) -> Alive {
    use rand::RngExt;
    let in_window: std::collections::HashSet<usize> = picked.iter().copied().collect();
    let mut out = Alive::default();
    let mut cand: Vec<usize> = Vec::new();
    for i in 0..w.vms.len() {
        let v = &w.vms[i];
        if in_window.contains(&i) || v.created_s >= origin {
            continue;
        }
        match (v.deleted_s(), v.censored_at_s()) {
            (Some(d), _) if d > origin => cand.push(i),
            (None, Some(c)) if c >= origin => cand.push(i),
            (None, Some(_)) => out.unknown += 1,
            _ => {}
        }
    }
    if cand.is_empty() {
        return out;
    }
    cand.sort_by(|&a, &b| {
        w.vms[a]
            .created_s
            .total_cmp(&w.vms[b].created_s)
            .then(a.cmp(&b))
    });
    let obs: Vec<(f64, bool)> = w
        .vms
        .iter()
        .map(|v| (v.lifetime_s(w.trace_end_s) / 3600.0, v.is_censored()))
        .collect();
    let Some(all) = LifetimeDist::kaplan_meier(&obs) else {
        return out;
    };
    // per group (see `select`): kept or not, numbered in order of first appearance; the kept ones' batch
    let mut keep: HashMap<usize, bool> = HashMap::new();
    let mut batch_ids: HashMap<usize, u32> = HashMap::new();
    for i in cand {
        let v = &w.vms[i];
        let key = v.group();
        let n = keep.len() as u64;
        let kept = *keep.entry(key).or_insert_with(|| {
            let u = (mix64(seed ^ mix64(0x616c_6976 ^ n)) >> 11) as f64 / (1u64 << 53) as f64;
            u < share
        });
        if !kept {
            continue;
        }
        let nb = batch_ids.len() as u32;
        let batch = *batch_ids.entry(key).or_insert(nb);
        let start = (v.created_s - origin) / 3600.0;
        let (exit, life, censored) = match v.deleted_s() {
            Some(d) => ((d - origin) / 3600.0, (d - v.created_s) / 3600.0, false),
            None => {
                out.drawn += 1;
                let age = v.lifetime_s(w.trace_end_s) / 3600.0;
                let u: f64 = crate::substrate::rng::stream(seed, COMP_ALIVE, i as u64).random();
                match all.draw_beyond(age, u) {
                    Some(t) => (start + t, t, true),
                    None => {
                        out.beyond += 1;
                        let age_end = end - start;
                        (f64::INFINITY, age_end + all.mean_residual(age_end), true)
                    }
                }
            }
        };
        out.jobs.push(Job {
            start,
            exit,
            life,
            censored,
            shape: w.shape(v),
            batch: first_batch + batch,
        });
        out.vms.push(i);
    }
    out.batches = batch_ids.len();
    out
}

/// The largest total shape `(cores, memory GB, GPUs)` alive at once (every job placed), per dimension, over
/// `[0, end]` hours.
pub fn peak_demand(jobs: &[Job], end: f64) -> [f64; DIMS] {
    // (time, +1 arrival / −1 exit, job); exits before arrivals at equal times
    let mut ev: Vec<(f64, i8, usize)> = Vec::with_capacity(2 * jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        if j.start < end {
            ev.push((j.start, 1, i));
            if j.exit < end {
                ev.push((j.exit, -1, i));
            }
        }
    }
    ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut cur, mut peak) = ([0.0; DIMS], [0.0f64; DIMS]);
    for (_, sign, i) in ev {
        for r in 0..DIMS {
            cur[r] += sign as f64 * jobs[i].shape[r];
            peak[r] = peak[r].max(cur[r]);
        }
    }
    peak
}

/// Hosts needed so that the peak demand ([`peak_demand`]) fills at most `peak_allocation` of the pool in
/// every dimension with capacity (at least 1).
pub fn hosts_for_peak(jobs: &[Job], end: f64, cap: &[f64; DIMS], peak_allocation: f64) -> usize {
    let peak = peak_demand(jobs, end);
    (0..DIMS)
        .filter(|&r| cap[r] > 0.0)
        .map(|r| (peak[r] / (peak_allocation * cap[r]) - 1e-9).ceil())
        .fold(1.0f64, f64::max) as usize
}

/// Time-average over `[from, to]` (hours) of the requested cores of the jobs alive (all placed).
pub fn offered_allocation(jobs: &[Job], from: f64, to: f64) -> f64 {
    if to <= from {
        return 0.0;
    }
    let core_hours: f64 = jobs
        .iter()
        .map(|j| (j.exit.min(to) - j.start.max(from)).max(0.0) * j.shape[0])
        .sum();
    core_hours / (to - from)
}
