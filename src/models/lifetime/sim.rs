//! The event-driven pool (seed 003 §2, §5.1, App. F; ALGORITHMS.md §5.1) and its policies: best fit
//! (the baseline scorer), LA-Binary (§5.5), NILAS (§5.3) and LAVA (§5.4), on the shared DES kernel.
//!
//! Times are hours. Events: VM arrival, VM exit, LAVA host deadline, metric sample (every
//! [`SimConfig::sample_h`]) and stranding sample (every [`SimConfig::stranding_h`]). Hosts are identical with
//! capacity `cap = (cores, memory GB, GPUs)`; a VM fits when `used + shape ≤ cap` in every dimension; a VM no
//! host can take is a scheduling failure (counted, never placed). Metrics (§5.8) are averaged over the samples
//! after the warm-up.

use super::pool::{Job, DIMS};
use super::predictor::LifetimePredictor;
use super::Policy;
use crate::substrate::des::{Des, TimerKey, World};
use crate::substrate::rng::stream;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// NILAS temporal-cost bounds, hours (seed 003 Alg. 2, stated): 0, 30 min, 60 min, 90 min, 2 h, 3 h, 4 h, 6 h,
/// 12 h, 24 h, 168 h.
pub const NILAS_BOUNDS_H: [f64; 11] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 12.0, 24.0, 168.0];
/// LA-Binary's cutoff between short and long VMs, hours (seed 003 §5.3, stated: 2 h).
pub const LA_BINARY_CUTOFF_H: f64 = 2.0;
/// LAVA's occupancy above which an OPEN host turns RECYCLING (seed 003 Alg. 3, stated: 90%).
pub const LAVA_RECYCLE_AT: f64 = 0.9;
/// LAVA's deadline factor: a host is expected to empty within 1.1 × its class's upper bound (stated).
pub const LAVA_DEADLINE_FACTOR: f64 = 1.1;
/// Highest lifetime class (classes continue by decades beyond 4, ALGORITHMS.md §5.10 [UNSTATED]).
pub const MAX_CLASS: u8 = 12;
/// Consecutive failures that end an inflation (ALGORITHMS.md §5.8 [UNSTATED → 100]).
pub const INFLATION_FAILURES: usize = 100;
/// Arrival shapes the inflation draws from: the most recent ones (ALGORITHMS.md §5.8 "recent-arrival shape
/// mix" [UNSTATED → the last 1,000 arrivals]).
pub const INFLATION_RECENT: usize = 1000;
/// LARS defragmentation defaults (seed 003 §4.4, App. H; ALGORITHMS.md §5.6): check every 5 min
/// [UNSTATED], when fewer than 5% of hosts are empty [UNSTATED], drain up to 3 hosts [UNSTATED]; at most 3
/// concurrent migrations pool-wide, 20 min each (stated).
pub const DEFRAG_PERIOD_H: f64 = 5.0 / 60.0;
/// Empty-host fraction below which a defragmentation starts [UNSTATED → 5%].
pub const DEFRAG_THRESHOLD: f64 = 0.05;
/// Hosts drained at once [UNSTATED → 3].
pub const DEFRAG_CANDIDATES: usize = 3;
/// Concurrent live migrations pool-wide (stated: 3).
pub const MIGRATION_CONCURRENCY: usize = 3;
/// Duration of one live migration, hours (stated: 20 min).
pub const MIGRATION_H: f64 = 20.0 / 60.0;

/// The order in which a drained host's VMs are migrated (ALGORITHMS.md §5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MigrationOrder {
    /// Ascending start time (trace order): the baseline.
    StartTime,
    /// LARS: longest predicted remaining lifetime first, so VMs about to exit are not migrated.
    Lars,
    /// A random order (a second baseline beside trace order; seed 003 §6.3 names none): by
    /// `mix64(job ⊕ drain time bits)`, deterministic per drain.
    Random,
}

/// One drain of the defragmentation as it happened in a run (ALGORITHMS.md §5.6): the check that chose it,
/// the host, the VMs it held then and whether the drain was abandoned.
#[derive(Clone, Debug, PartialEq)]
pub struct DrainRecord {
    /// Index of the defragmentation check (every [`DEFRAG_PERIOD_H`] from time 0).
    pub check: u64,
    /// Time of that check, hours.
    pub time: f64,
    /// The drained host.
    pub host: u32,
    /// The VMs on the host when it was drained (job indices, ascending start time).
    pub vms: Vec<u32>,
    /// When a VM of this drain found no target and the rest of the drain was dropped (hours), and that VM;
    /// `None` when every queued VM was migrated or saved (or the run ended first).
    pub abandoned_at: Option<(f64, u32)>,
}

/// The order in which the VMs of a drain at time `now` are queued: ascending start time (job index), or LARS
/// (predicted remaining lifetime descending, ties by start).
pub fn drain_order(
    vms: &[u32],
    order: MigrationOrder,
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    now: f64,
) -> Vec<u32> {
    let mut vms = vms.to_vec();
    match order {
        MigrationOrder::StartTime => vms.sort_unstable(),
        MigrationOrder::Random => vms
            .sort_unstable_by_key(|&j| (crate::substrate::rng::mix64(j as u64 ^ now.to_bits()), j)),
        MigrationOrder::Lars => {
            let mut key: Vec<(f64, u32)> = vms
                .iter()
                .map(|&j| (pred.remaining(j as usize, now - jobs[j as usize].start), j))
                .collect();
            key.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            vms = key.into_iter().map(|(_, j)| j).collect();
        }
    }
    vms
}

/// The migration counts of the drains of one run replayed in `order` on that run's own trajectory (seed 003
/// §6.3, App. H; ALGORITHMS.md §5.6: "the same host selection sequence for both orderings, only the order
/// changes"): the same drains at the same times, each with the VMs it held in the recorded run, the same
/// migration executor (at most [`MIGRATION_CONCURRENCY`] concurrent migrations pool-wide, [`MIGRATION_H`]
/// each, one FIFO queue, a drain's VMs queued in `order`), each VM exiting at its true exit; a queued VM whose
/// exit is at or before the time its migration would start is dropped (a saved migration); a drain the
/// recorded run abandoned (VM `v` without a target at time `t`, `abandoned_at`) is dropped when `v` would
/// start, or at the first of its VMs that would start after `t` (its VMs reaching a slot at `t` before `v`
/// are migrated, as in the recorded run). Targets do not enter: the pool's state is the recorded run's. With
/// `MigrationOrder::StartTime` on the run's own records and the run's `end` this gives that run's counts
/// exactly (tested). Events after `end` (hours) do not happen: `f64::INFINITY` runs every queue to completion
/// (E3.5's counts: a cut at the trace's end leaves the last drains' queues half done and measures throughput).
pub fn replay_migrations(
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    drains: &[DrainRecord],
    order: MigrationOrder,
    end: f64,
) -> MigrationCounts {
    let mut queue: std::collections::VecDeque<(u32, usize)> = Default::default();
    let mut active: Vec<f64> = Vec::with_capacity(MIGRATION_CONCURRENCY);
    let mut dropped = vec![false; drains.len()];
    let (mut started, mut saved) = (0u64, 0u64);
    let mut next = 0usize;
    let (mut reordered, mut waited) = (0u64, 0u64);
    loop {
        // the earliest migration done, or else the next drain (done events at a check's time come first)
        let done = active
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, &t)| (i, t))
            .filter(|&(_, t)| t <= end);
        let now = match (done, drains.get(next)) {
            (Some((i, t)), d) if d.is_none_or(|d| t <= d.time) => {
                active.swap_remove(i);
                t
            }
            (_, Some(d)) => {
                let vms = drain_order(&d.vms, order, jobs, pred, d.time);
                reordered += (vms != d.vms) as u64;
                queue.extend(vms.into_iter().map(|j| (j, next)));
                next += 1;
                d.time
            }
            (_, None) => break,
        };
        while active.len() < MIGRATION_CONCURRENCY {
            let Some((j, d)) = queue.pop_front() else {
                break;
            };
            if dropped[d] {
                continue;
            }
            waited += (now > drains[d].time) as u64;
            if jobs[j as usize].exit <= now {
                saved += 1;
            } else if drains[d]
                .abandoned_at
                .is_some_and(|(t, v)| now > t || (now == t && v == j))
            {
                dropped[d] = true;
            } else {
                started += 1;
                active.push(now + MIGRATION_H);
            }
        }
    }
    MigrationCounts {
        migrations: started,
        migrations_saved: saved,
        drained_hosts: drains.len() as u64,
        reordered_drains: reordered,
        waited,
    }
}

/// Defragmentation settings of a run: the order, and optionally the drain actions to replay (the
/// `(check index, host)` list of an earlier run, so that two orders see the same host selection sequence).
#[derive(Clone, Debug)]
pub struct Defrag {
    /// Migration order.
    pub order: MigrationOrder,
    /// Drain actions to replay instead of choosing candidates; `None` = choose by the threshold rule.
    pub replay: Option<std::sync::Arc<Vec<(u64, u32)>>>,
    /// Maintenance-style drains (seed 003 App. H) instead of the threshold rule: at every check, while fewer
    /// than [`DEFRAG_CANDIDATES`] hosts drain, drain the non-empty hosts not yet maintained with the most VMs
    /// (then the least free capacity), whatever the empty hosts; each host once (one rolling wave) [UNSTATED].
    pub maintenance: bool,
}

/// Random-stream component of the inflation draws.
const COMP_INFLATION: u64 = 0x7374_7261;
const NONE: u32 = u32::MAX;
const EPS: f64 = 1e-9;

/// NILAS temporal cost of a lifetime extension `dt` hours: `max{i : dt ≥ bounds[i]}` (seed 003 Alg. 2; e.g.
/// 70 min → 2).
pub fn temporal_cost(dt: f64) -> u8 {
    NILAS_BOUNDS_H.iter().rposition(|&b| dt >= b).unwrap_or(0) as u8
}

/// LAVA lifetime class of a predicted lifetime `x` hours: 1 below 1 h, 2 in [1, 10) h, 3 in [10, 100) h, …
/// (seed 003 §4.3, stated to 4; by decades beyond, up to [`MAX_CLASS`]).
pub fn lifetime_class(x: f64) -> u8 {
    let (mut k, mut ub) = (1u8, 1.0);
    while x >= ub && k < MAX_CLASS {
        k += 1;
        ub *= 10.0;
    }
    k
}

/// Upper bound of lifetime class `k`, hours: `10^(k−1)`.
pub fn class_upper_bound(k: u8) -> f64 {
    10f64.powi(k as i32 - 1)
}

/// The pool and run settings of one simulation.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The policy.
    pub policy: Policy,
    /// Number of hosts.
    pub hosts: usize,
    /// Host capacity `(cores, memory GB, GPUs)` (identical hosts).
    pub cap: [f64; DIMS],
    /// Per-host capacities of a heterogeneous pool (a workload's node inventory); when given, they replace
    /// `hosts` × `cap`.
    pub caps: Option<std::sync::Arc<Vec<[f64; DIMS]>>>,
    /// Metrics are measured from this time on, hours.
    pub warmup_h: f64,
    /// End of the simulation, hours.
    pub end: f64,
    /// NILAS host-exit cache refresh period, hours (0 = recompute at every use).
    pub refresh_h: f64,
    /// Metric sampling period, hours.
    pub sample_h: f64,
    /// Stranding (inflation) sampling period, hours (0 = no stranding measurement).
    pub stranding_h: f64,
    /// Seed of the inflation draws.
    pub seed: u64,
    /// LARS / baseline-order defragmentation (§5.6); `None` = no migrations.
    pub defrag: Option<Defrag>,
    /// Jobs `0..baseline_jobs` arrive placed by best fit whatever the policy: the VMs alive at the window's
    /// start of App. F's warm-up (ALGORITHMS.md §5.1), replayed in start order at time 0 (their starts are
    /// negative). 0 = every job is placed by the policy.
    pub baseline_jobs: usize,
    /// Whether the result carries [`Diagnostics`] (always counted; reported only when asked, so reports
    /// without it keep their shape).
    pub diagnostics: bool,
}

/// Counters that explain a policy's result (E3.1's LA-Binary, E3.2's noise): how the placements split over
/// the policy's tiers and how LAVA's classes move. Counts are over the arrivals (and LAVA events) after the
/// warm-up; fractions of hosts are time-averages over the metric samples after it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Fraction of the measured arrivals predicted long by LA-Binary's one-shot class (`L̂ > 2 h`).
    pub long_vms: f64,
    /// Share of the core-hours over the measured window (every job placed) of the jobs predicted long.
    pub long_core_hours: f64,
    /// Time-average fraction of hosts in LA-Binary's L class (longest remaining one-shot predicted time > 2 h).
    pub long_hosts: f64,
    /// Time-average fraction of non-empty hosts without one (LA-Binary's S hosts).
    pub short_hosts: f64,
    /// Measured arrivals placed.
    pub placements: u64,
    /// Of those, by the tier of the chosen host: LA-Binary `[same class, other class, empty, —]`; LAVA
    /// `[recycling longer class, open same class, other non-empty, empty]`; best fit and NILAS: `[non-empty,
    /// —, —, empty]`.
    pub by_tier: [u64; 4],
    /// Measured placements of a short-predicted VM on a host of the other class (LA-Binary: no S host fits).
    pub short_on_long: u64,
    /// Measured placements of a long-predicted VM on a host of the other class (no L host fits).
    pub long_on_short: u64,
    /// Mean NILAS temporal cost of the chosen hosts (NILAS and LAVA; 0 otherwise).
    pub mean_temporal_cost: f64,
    /// Fraction of the measured placements with temporal cost 0 (NILAS and LAVA).
    pub zero_cost: f64,
    /// LAVA: time-average fraction of hosts RECYCLING.
    pub recycling_hosts: f64,
    /// LAVA: class raises at a host deadline (a host outlived 1.1× its class: an under-prediction seen).
    pub class_up_deadline: u64,
    /// LAVA: class raises by placing a longer-class VM on a host.
    pub class_up_longer_vm: u64,
    /// LAVA: class drops of RECYCLING hosts whose residual VMs are gone.
    pub class_down: u64,
}

/// Results of one policy on one pool (ALGORITHMS.md §5.8). Fractions are in [0, 1]; averages are over the
/// metric samples after the warm-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyResult {
    /// The policy.
    pub policy: Policy,
    /// Time-average fraction of hosts without VMs.
    pub empty_hosts: f64,
    /// `empty_hosts` minus the best-fit baseline's on the same arrivals, percentage points (0 for best fit).
    pub empty_hosts_pp_vs_best_fit: f64,
    /// Time-average of (cores on empty hosts / all free cores); samples without free cores are skipped.
    pub empty_to_free: f64,
    /// Time-average of (allocated cores on non-empty hosts / cores of non-empty hosts).
    pub packing_density: f64,
    /// Time-average fraction of all cores allocated.
    pub allocation: f64,
    /// Free cores left after inflation / all cores, averaged over the stranding samples (NaN-free: 0 when none).
    pub stranded_cpu: f64,
    /// Free memory left after inflation / all memory, averaged over the stranding samples.
    pub stranded_mem: f64,
    /// Live migrations started (0 without defragmentation).
    pub migrations: u64,
    /// Queued migrations dropped because the VM exited first (saved migrations).
    pub migrations_saved: u64,
    /// Migrations that found no target (the drain of that host was abandoned).
    pub migration_failures: u64,
    /// Hosts drained by the defragmentation.
    pub drained_hosts: u64,
    /// With defragmentation: the counts of the run in ascending start-time order (the baseline order of
    /// §5.6, which chose the drains); `migrations`, `migrations_saved` and `drained_hosts` are then those of the
    /// LARS order on the same trajectory ([`replay_migrations`]); `None` otherwise.
    pub start_order: Option<MigrationCounts>,
    /// With defragmentation: the LARS order's counts on the same trajectory (as `migrations`,
    /// `migrations_saved`, `drained_hosts`, with how many drains it reorders and how many VMs wait).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lars: Option<MigrationCounts>,
    /// With defragmentation: a random order's counts on the same trajectory (a second baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_order: Option<MigrationCounts>,
    /// With defragmentation: the closed-loop comparison, the baseline run's drain actions `(check, host)`
    /// replayed in a whole new simulation in start-time order (this field) and in the LARS order
    /// (`closed_loop_lars`), each choosing its own migration targets, so that the pool's states diverge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_loop_start_order: Option<MigrationCounts>,
    /// With defragmentation: the LARS order in the closed-loop comparison (see `closed_loop_start_order`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_loop_lars: Option<MigrationCounts>,
    /// Placement and class counters ([`SimConfig::diagnostics`]; `None` when not asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
    /// VMs no host could take, over the whole run.
    pub failures: u64,
    /// Of those, after the warm-up.
    pub failures_measured: u64,
    /// Time-average of the theoretical optimum `⌊H·min_r(free_r / cap_r)⌋ / H` (App. G.2).
    pub optimum_empty_hosts: f64,
    /// Metric samples averaged.
    pub samples: usize,
    /// Stranding samples averaged.
    pub stranding_samples: usize,
    /// VMs that arrived.
    pub arrivals: u64,
    /// Events handled.
    pub events: u64,
    /// Empty-host fraction averaged per hour from time 0 (warm-up included), for the chart.
    pub empty_series: Vec<f64>,
    /// Every host's state hour by hour (not in the report: the run operation `timeline` gives it).
    #[serde(skip)]
    pub timeline: Timeline,
}

/// Migration counts of one defragmentation run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigrationCounts {
    /// Live migrations started.
    pub migrations: u64,
    /// Queued migrations dropped because the VM exited first.
    pub migrations_saved: u64,
    /// Hosts drained.
    pub drained_hosts: u64,
    /// Drains whose queue order differs from ascending start time ([`replay_migrations`] only; else 0).
    #[serde(default)]
    pub reordered_drains: u64,
    /// Queued VMs that waited for a slot (their migration, or their exit, came after their drain's time;
    /// [`replay_migrations`] only; else 0).
    #[serde(default)]
    pub waited: u64,
}

/// Host timeline code of an empty host.
pub const TL_EMPTY: u8 = 0;
/// Host timeline code of a host whose VMs are all migrating away (LARS drains).
pub const TL_MIGRATING: u8 = 15;
/// Added to a LAVA host's lifetime class when it is RECYCLING (`TL_RECYCLING + class`).
pub const TL_RECYCLING: u8 = 16;

/// The state of every host at the first metric sample of each hour, for the host-timeline view (seed 003
/// §4.3, Fig. 5's picture of LAVA). Codes: [`TL_EMPTY`]; a lifetime class `1..=MAX_CLASS` for a host with VMs
/// (LAVA: the host's class while it is OPEN; the other policies: the largest initial class of its VMs);
/// [`TL_RECYCLING`] + class for a LAVA host that is RECYCLING; [`TL_MIGRATING`] for a host whose only VMs are
/// migrating away.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Hosts per row.
    pub hosts: usize,
    /// The hour of each row (hours since the window's start).
    pub hours: Vec<u32>,
    /// Row-major codes: `codes[row * hosts + host]`.
    pub codes: Vec<u8>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive(u32),
    Exit(u32),
    Deadline(u32),
    MigrationDone(u32, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Empty,
    Open,
    Recycling,
}

struct Host {
    /// Capacity `(cores, memory GB, GPUs)`.
    cap: [f64; DIMS],
    used: [f64; DIMS],
    vms: Vec<u32>,
    /// VMs migrating away: their shapes stay reserved here until the migration is done.
    ghosts: Vec<u32>,
    /// Being drained by the defragmentation: not schedulable.
    draining: bool,
    /// Drained once by a maintenance wave ([`Defrag::maintenance`]).
    maintained: bool,
    /// [`slack`] of `used` (its key in the pool's slack order).
    slack: f64,
    state: State,
    class: u8,
    key: TimerKey,
    /// LAVA: the pending deadline, hours (meaningful while the host is non-empty).
    deadline: f64,
    res_epoch: u32,
    res_count: u32,
    exit_cache: f64,
    cache_at: f64,
    cache_valid: bool,
}

#[derive(Default)]
struct Acc {
    samples: usize,
    empty: f64,
    e2f: f64,
    e2f_n: usize,
    density: f64,
    density_n: usize,
    alloc: f64,
    opt: f64,
    series: Vec<(f64, usize)>,
    timeline: Timeline,
    strand_cpu: f64,
    strand_mem: f64,
    strand_n: usize,
    failures: u64,
    failures_measured: u64,
    arrivals: u64,
    diag: Diagnostics,
    long_arrivals: u64,
    measured_arrivals: u64,
    cost_sum: u64,
}

struct Pool<'a> {
    jobs: &'a [Job],
    pred: &'a dyn LifetimePredictor,
    cfg: &'a SimConfig,
    hosts: Vec<Host>,
    on: Vec<u32>,
    class: Vec<u8>,
    res_epoch: Vec<u32>,
    /// `R̂_j(0)`, hours: the estimate at arrival (LAVA's first class, LA-Binary's one-shot `L̂`).
    r0: Vec<f64>,
    long: Vec<bool>,
    recent: Vec<[f64; DIMS]>,
    recent_next: usize,
    placed: Vec<u32>,
    acc: Acc,
    mig: Migrations,
    /// Every host by (slack, id).
    order: std::collections::BTreeSet<SlackKey>,
    /// Total capacity per dimension.
    total: [f64; DIMS],
    /// Hosts by size (Σ_r cap_r / total_r) ascending, for the optimum of empty hosts.
    by_size: Vec<usize>,
}

#[derive(Default)]
struct Migrations {
    queue: std::collections::VecDeque<(u32, u32)>,
    active: usize,
    draining: usize,
    record: Vec<DrainRecord>,
    started: u64,
    saved: u64,
    failed: u64,
    drained: u64,
}

/// A host's used capacity, summed from its VMs and ghosts (recomputed, not decremented: exact whatever the
/// order of arrivals, exits and migrations).
fn used_of(host: &Host, jobs: &[Job]) -> [f64; DIMS] {
    let mut used = [0.0; DIMS];
    for &v in host.vms.iter().chain(&host.ghosts) {
        for (u, s) in used.iter_mut().zip(jobs[v as usize].shape) {
            *u += s;
        }
    }
    used
}

fn fits(used: &[f64; DIMS], cap: &[f64; DIMS], shape: &[f64; DIMS]) -> bool {
    (0..DIMS).all(|r| used[r] + shape[r] <= cap[r] + EPS)
}

/// A host's slack `Σ_r (cap_r − used_r)/cap_r` over the dimensions with capacity. The baseline scorer
/// (ALGORITHMS.md §5.1, multi-dimensional best fit) `Σ_r (cap_r − used_r − shape_r)/cap_r` is the slack minus
/// a term of the VM alone, so best fit ranks hosts by slack (lower is better, ties by host id) and the pool
/// keeps its hosts ordered by it.
fn slack(used: &[f64; DIMS], cap: &[f64; DIMS]) -> f64 {
    (0..DIMS)
        .filter(|&r| cap[r] > 0.0)
        .map(|r| (cap[r] - used[r]) / cap[r])
        .sum()
}

/// A host in the slack order: (slack, host id), totally ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SlackKey(f64, u32);

impl Eq for SlackKey {}
impl PartialOrd for SlackKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for SlackKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// `host_exit(h)` of NILAS (seed 003 Alg. 2): the latest repredicted exit of its VMs (`now` when empty), from
/// the host's cache when it is still valid (§5.3: recomputed when VMs change, when the cached exit passes and
/// every `refresh_h`).
fn host_exit_of(
    host: &mut Host,
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    refresh: f64,
    now: f64,
) -> f64 {
    if host.vms.is_empty() {
        return now;
    }
    if host.cache_valid && refresh > 0.0 && now < host.exit_cache && now - host.cache_at < refresh {
        return host.exit_cache;
    }
    let exit = host
        .vms
        .iter()
        .map(|&v| {
            let j = v as usize;
            now + pred.remaining(j, now - jobs[j].start)
        })
        .fold(now, f64::max);
    host.exit_cache = exit;
    host.cache_at = now;
    host.cache_valid = true;
    exit
}

/// LA-Binary's host class (seed 003 §2.4; ALGORITHMS.md §5.5 as corrected): long when the longest remaining
/// one-shot predicted time of its VMs, `max_v (L̂_v − u_v)` with `L̂_v = R̂_v(0)` (`r0`, the same model NILAS
/// and LAVA see, §5.3), exceeds [`LA_BINARY_CUTOFF_H`] at `now`; short otherwise (an empty host has no class:
/// the callers check emptiness first). Dynamic: a host whose long VMs near their predicted end turns short.
fn host_is_long(host: &Host, jobs: &[Job], r0: &[f64], now: f64) -> bool {
    host.vms.iter().any(|&v| {
        let j = v as usize;
        r0[j] - (now - jobs[j].start) > LA_BINARY_CUTOFF_H
    })
}

impl<'a> Pool<'a> {
    /// The host for job `j` under the policy, or `None` (a scheduling failure): the least key
    /// `(tier, sub-tier, temporal cost, slack, host)` among the schedulable hosts it fits. Hosts are visited in
    /// slack order, so the scan stops at the first host whose (tier, sub-tier, cost) is the least possible,
    /// and of the empty hosts (all alike) only the first is scored.
    /// `u` is the VM's uptime, hours: 0 for an arrival; for a migration its age, so that NILAS's exit, LAVA's
    /// class (`class[j]`, repredicted by the caller) and LA-Binary's class (`L̂ − u > 2 h`) are the VM's now.
    fn choose(&mut self, j: usize, now: f64, policy: Policy, u: f64) -> Option<usize> {
        self.choose_keyed(j, now, policy, u).map(|(_, h)| h)
    }

    /// [`Pool::choose`] with the chosen host's key `(tier, sub-tier, temporal cost)`.
    fn choose_keyed(
        &mut self,
        j: usize,
        now: f64,
        policy: Policy,
        u: f64,
    ) -> Option<((u8, u8, u8), usize)> {
        let shape = self.jobs[j].shape;
        let temporal = matches!(policy, Policy::Nilas | Policy::Lava);
        let vm_exit = if temporal {
            now + self.pred.remaining(j, u)
        } else {
            0.0
        };
        let vclass = self.class[j];
        let vlong = if u > 0.0 {
            self.r0[j] - u > LA_BINARY_CUTOFF_H
        } else {
            self.long[j]
        };
        let least: (u8, u8, u8) = match policy {
            Policy::Lava => (0, vclass.saturating_add(1), 0),
            _ => (0, 0, 0),
        };
        let Pool {
            order,
            hosts,
            jobs,
            pred,
            cfg,
            r0,
            ..
        } = self;
        let mut best: Option<((u8, u8, u8), usize)> = None;
        let mut seen_empty = false;
        for &SlackKey(_, h) in order.iter() {
            let h = h as usize;
            let host = &mut hosts[h];
            if host.draining || !fits(&host.used, &host.cap, &shape) {
                continue;
            }
            let empty = host.vms.is_empty() && host.ghosts.is_empty();
            if empty {
                if seen_empty {
                    continue;
                }
                seen_empty = true;
            }
            let (tier, sub) = match policy {
                Policy::BestFit | Policy::Nilas => (0, 0),
                Policy::LaBinary => {
                    if empty {
                        (2, 0)
                    } else if host_is_long(host, jobs, r0, now) == vlong {
                        (0, 0)
                    } else {
                        (1, 0)
                    }
                }
                Policy::Lava => match host.state {
                    State::Recycling if host.class > vclass => (0, host.class),
                    State::Open if host.class == vclass => (1, 0),
                    _ if !empty => (2, 0),
                    _ => (3, 0),
                },
            };
            if let Some((b, _)) = best {
                // a later host has no less slack: it must be strictly better in (tier, sub, cost)
                if (tier, sub) > (b.0, b.1) || (tier, sub, 0) >= b {
                    continue;
                }
            }
            let cost = if temporal {
                let he = host_exit_of(host, jobs, *pred, cfg.refresh_h, now);
                temporal_cost((vm_exit - he).max(0.0))
            } else {
                0
            };
            let key = (tier, sub, cost);
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, h));
                if key == least {
                    break;
                }
            }
        }
        best
    }

    /// Sets host `h`'s used capacity and keeps the slack order.
    fn set_used(&mut self, h: usize, used: [f64; DIMS]) {
        let host = &mut self.hosts[h];
        self.order.remove(&SlackKey(host.slack, h as u32));
        host.used = used;
        host.slack = slack(&used, &host.cap);
        self.order.insert(SlackKey(host.slack, h as u32));
    }

    fn res_all(&mut self, h: usize) {
        let host = &mut self.hosts[h];
        host.res_epoch = host.res_epoch.wrapping_add(1);
        host.res_count = host.vms.len() as u32;
        for &v in &host.vms {
            self.res_epoch[v as usize] = host.res_epoch;
        }
    }

    fn res_only(&mut self, h: usize, j: usize) {
        let host = &mut self.hosts[h];
        host.res_epoch = host.res_epoch.wrapping_add(1);
        host.res_count = 1;
        self.res_epoch[j] = host.res_epoch;
    }

    fn reset_deadline(&mut self, h: usize, now: f64, des: &mut Des<Ev>) {
        let host = &mut self.hosts[h];
        let t = now + LAVA_DEADLINE_FACTOR * class_upper_bound(host.class);
        host.deadline = t;
        des.schedule_keyed(host.key, t, Ev::Deadline(h as u32));
    }

    /// Moves host `h`'s deadline out to cover a VM of class `vclass` placed at `now` (never in): with correct
    /// predictions the host then never outlives its deadline, so a deadline raise means an under-prediction
    /// (seed 003 §4.3: "if all predictions are correct, the total lifetime of a host does not exceed 1.1× its
    /// original lifetime class") [UNSTATED: the paper's tiers never put a VM that could outlive the deadline on
    /// a host; §5.4's step 3, any non-empty host, can].
    fn cover_deadline(&mut self, h: usize, vclass: u8, now: f64, des: &mut Des<Ev>) {
        let t = now + LAVA_DEADLINE_FACTOR * class_upper_bound(vclass);
        let host = &mut self.hosts[h];
        if t > host.deadline {
            host.deadline = t;
            des.schedule_keyed(host.key, t, Ev::Deadline(h as u32));
        }
    }

    fn place(&mut self, j: usize, h: usize, now: f64, des: &mut Des<Ev>, schedule_exit: bool) {
        let shape = self.jobs[j].shape;
        let was_empty = self.hosts[h].vms.is_empty();
        let mut used = self.hosts[h].used;
        for (u, s) in used.iter_mut().zip(shape) {
            *u += s;
        }
        self.set_used(h, used);
        {
            let host = &mut self.hosts[h];
            host.vms.push(j as u32);
            host.cache_valid = false;
        }
        self.on[j] = h as u32;
        if schedule_exit {
            self.placed[j] = h as u32; // the arrival's host (migrations move it later)
        }
        self.res_epoch[j] = NONE;
        if self.cfg.policy == Policy::Lava {
            let vclass = self.class[j];
            if was_empty {
                self.hosts[h].state = State::Open;
                self.hosts[h].class = vclass;
                self.res_only(h, j);
                self.reset_deadline(h, now, des);
            } else if self.hosts[h].state == State::Open && vclass == self.hosts[h].class {
                let host = &mut self.hosts[h];
                host.res_count += 1;
                self.res_epoch[j] = host.res_epoch;
                // the newcomer may live to its class's bound: the deadline moves with it (issue 27: without
                // this, OPEN hosts outlive their deadline with correct predictions, spurious class raises)
                self.reset_deadline(h, now, des);
            } else if vclass > self.hosts[h].class {
                if now >= self.cfg.warmup_h && schedule_exit {
                    self.acc.diag.class_up_longer_vm += 1;
                }
                self.hosts[h].class = vclass;
                self.res_only(h, j);
                self.reset_deadline(h, now, des);
            } else {
                if self.hosts[h].state == State::Recycling && vclass == self.hosts[h].class {
                    // a same-class VM on a recycling host (step 3) is of the host's class: residual, so the
                    // class drops only once it is gone too ("all remaining VMs are of the next-shorter
                    // class", §4.3)
                    let host = &mut self.hosts[h];
                    host.res_count += 1;
                    self.res_epoch[j] = host.res_epoch;
                }
                self.cover_deadline(h, vclass, now, des);
            }
            let host = &self.hosts[h];
            let cap = host.cap;
            if host.state == State::Open
                && (host.used[0] > LAVA_RECYCLE_AT * cap[0]
                    || host.used[1] > LAVA_RECYCLE_AT * cap[1])
            {
                self.hosts[h].state = State::Recycling;
                self.res_all(h);
            }
        }
        let exit = self.jobs[j].exit;
        if schedule_exit && exit < self.cfg.end {
            des.schedule(exit, Ev::Exit(j as u32));
        }
    }

    /// Takes job `j` off its host (an exit, or with `ghost` the start of its migration away: its shape stays
    /// reserved on the host until [`Ev::MigrationDone`]).
    fn remove(&mut self, j: usize, now: f64, des: &mut Des<Ev>, ghost: bool) {
        let h = self.on[j];
        if h == NONE {
            return; // a scheduling failure: never placed
        }
        let h = h as usize;
        self.on[j] = NONE;
        let jobs = self.jobs;
        {
            let host = &mut self.hosts[h];
            if let Some(pos) = host.vms.iter().position(|&v| v as usize == j) {
                host.vms.swap_remove(pos);
            }
            if ghost {
                host.ghosts.push(j as u32);
            }
            host.cache_valid = false;
        }
        let used = used_of(&self.hosts[h], jobs);
        self.set_used(h, used);
        if self.cfg.policy == Policy::Lava {
            let was_res = self.res_epoch[j] == self.hosts[h].res_epoch;
            let host = &mut self.hosts[h];
            if was_res {
                host.res_count = host.res_count.saturating_sub(1);
            }
            if host.vms.is_empty() {
                host.state = State::Empty;
                host.class = 0;
                des.cancel(host.key);
            } else if host.state == State::Recycling && host.res_count == 0 {
                if now >= self.cfg.warmup_h {
                    self.acc.diag.class_down += 1;
                }
                host.class = host.class.saturating_sub(1).max(1);
                self.res_all(h);
                self.reset_deadline(h, now, des);
            }
        }
        self.check_drained(h);
    }

    fn check_drained(&mut self, h: usize) {
        let host = &mut self.hosts[h];
        if host.draining && host.vms.is_empty() && host.ghosts.is_empty() {
            host.draining = false;
            self.mig.draining -= 1;
        }
    }

    /// Starts queued migrations while fewer than [`MIGRATION_CONCURRENCY`] run: the target is the policy's
    /// choice among schedulable hosts; a VM that has left its source is dropped (a saved migration); a VM
    /// without a target abandons the drain of its source.
    fn start_migrations(&mut self, now: f64, des: &mut Des<Ev>) {
        while self.mig.active < MIGRATION_CONCURRENCY {
            let Some((j, src)) = self.mig.queue.pop_front() else {
                break;
            };
            let (j, src) = (j as usize, src as usize);
            // a VM whose exit is at or before now is saved, even when its exit event at this instant is
            // still to come (ties do not depend on the order events were scheduled in)
            if self.on[j] as usize != src || self.jobs[j].exit <= now {
                self.mig.saved += 1;
                continue;
            }
            // the target is chosen for the VM as it is now: its repredicted remaining time and LAVA class
            let u = now - self.jobs[j].start;
            if self.cfg.policy == Policy::Lava {
                self.class[j] = lifetime_class(self.pred.remaining(j, u));
            }
            match self.choose(j, now, self.cfg.policy, u) {
                Some(t) => {
                    self.remove(j, now, des, true);
                    self.place(j, t, now, des, false);
                    self.mig.active += 1;
                    self.mig.started += 1;
                    des.schedule(now + MIGRATION_H, Ev::MigrationDone(j as u32, src as u32));
                }
                None => {
                    self.mig.failed += 1;
                    if let Some(d) = self
                        .mig
                        .record
                        .iter_mut()
                        .rev()
                        .find(|d| d.host as usize == src)
                    {
                        d.abandoned_at = Some((now, j as u32));
                    }
                    self.mig.queue.retain(|&(_, s)| s as usize != src);
                    if self.hosts[src].draining {
                        self.hosts[src].draining = false;
                        self.mig.draining -= 1;
                    }
                }
            }
        }
    }

    /// The `k`-th defragmentation check (§5.6): when fewer than [`DEFRAG_THRESHOLD`] of the hosts are empty,
    /// drain up to [`DEFRAG_CANDIDATES`] non-empty hosts, fewest VMs first, then most free capacity (or replay
    /// the drains recorded at check `k` of an earlier run), queueing their VMs in the configured order.
    fn defrag_check(&mut self, k: u64, now: f64, des: &mut Des<Ev>) {
        let Some(d) = self.cfg.defrag.as_ref() else {
            return;
        };
        let drains: Vec<usize> = match &d.replay {
            Some(list) => {
                let from = list.partition_point(|&(c, _)| c < k);
                list[from..]
                    .iter()
                    .take_while(|&&(c, _)| c == k)
                    .map(|&(_, h)| h as usize)
                    .filter(|&h| h < self.hosts.len())
                    .collect()
            }
            None if d.maintenance => {
                let mut c: Vec<usize> = (0..self.hosts.len())
                    .filter(|&h| {
                        let host = &self.hosts[h];
                        !host.draining && !host.maintained && !host.vms.is_empty()
                    })
                    .collect();
                c.sort_by(|&a, &b| {
                    let (ha, hb) = (&self.hosts[a], &self.hosts[b]);
                    hb.vms
                        .len()
                        .cmp(&ha.vms.len())
                        .then(ha.slack.total_cmp(&hb.slack))
                        .then(a.cmp(&b))
                });
                c.truncate(DEFRAG_CANDIDATES.saturating_sub(self.mig.draining));
                c
            }
            None => {
                let n = self.hosts.len();
                let empty = self
                    .hosts
                    .iter()
                    .filter(|h| h.vms.is_empty() && h.ghosts.is_empty())
                    .count();
                if empty as f64 >= DEFRAG_THRESHOLD * n as f64
                    || self.mig.draining >= DEFRAG_CANDIDATES
                {
                    Vec::new()
                } else {
                    let free = |h: &Host| -> f64 { slack(&h.used, &h.cap) };
                    let mut c: Vec<usize> = (0..n)
                        .filter(|&h| !self.hosts[h].draining && !self.hosts[h].vms.is_empty())
                        .collect();
                    c.sort_by(|&a, &b| {
                        let (ha, hb) = (&self.hosts[a], &self.hosts[b]);
                        ha.vms
                            .len()
                            .cmp(&hb.vms.len())
                            .then(free(hb).total_cmp(&free(ha)))
                            .then(a.cmp(&b))
                    });
                    c.truncate(DEFRAG_CANDIDATES - self.mig.draining);
                    c
                }
            }
        };
        let order = d.order;
        for h in drains {
            if self.hosts[h].draining || self.hosts[h].vms.is_empty() {
                continue;
            }
            self.hosts[h].draining = true;
            self.hosts[h].maintained = true;
            self.mig.draining += 1;
            self.mig.drained += 1;
            let mut vms = self.hosts[h].vms.clone();
            vms.sort_unstable();
            let queued = drain_order(&vms, order, self.jobs, self.pred, now);
            self.mig.record.push(DrainRecord {
                check: k,
                time: now,
                host: h as u32,
                vms,
                abandoned_at: None,
            });
            self.mig
                .queue
                .extend(queued.into_iter().map(|j| (j, h as u32)));
        }
        self.start_migrations(now, des);
    }

    /// Appends every host's [`Timeline`] code as the row of `hour`.
    fn record_timeline(&mut self, hour: usize) {
        let lava = self.cfg.policy == Policy::Lava;
        let tl = &mut self.acc.timeline;
        tl.hosts = self.hosts.len();
        tl.hours.push(hour as u32);
        for host in &self.hosts {
            tl.codes.push(if host.vms.is_empty() {
                if host.ghosts.is_empty() {
                    TL_EMPTY
                } else {
                    TL_MIGRATING
                }
            } else if lava {
                match host.state {
                    State::Recycling => TL_RECYCLING + host.class,
                    _ => host.class,
                }
            } else {
                host.vms
                    .iter()
                    .map(|&v| self.class[v as usize])
                    .max()
                    .unwrap_or(1)
            });
        }
    }

    /// Counts a measured arrival's placement on host `h` (before it is placed) for [`Diagnostics`].
    fn count_placement(&mut self, j: usize, h: usize, key: (u8, u8, u8), policy: Policy, now: f64) {
        let host = &self.hosts[h];
        let empty = host.vms.is_empty() && host.ghosts.is_empty();
        let long = self.long[j];
        let acc = &mut self.acc;
        acc.measured_arrivals += 1;
        acc.long_arrivals += long as u64;
        let d = &mut acc.diag;
        d.placements += 1;
        let tier = match policy {
            Policy::BestFit | Policy::Nilas => {
                if empty {
                    3
                } else {
                    0
                }
            }
            _ => key.0.min(3) as usize,
        };
        d.by_tier[tier] += 1;
        if !empty && host_is_long(host, self.jobs, &self.r0, now) != long {
            if long {
                d.long_on_short += 1;
            } else {
                d.short_on_long += 1;
            }
        }
        acc.cost_sum += key.2 as u64;
        d.zero_cost += (key.2 == 0) as u64 as f64;
    }

    fn sample(&mut self, now: f64) {
        let n = self.hosts.len() as f64;
        let total = self.total;
        let mut empty = 0usize;
        let mut empty_cores = 0.0;
        let mut free = [0.0; DIMS];
        let (mut alloc_nonempty, mut cores_nonempty) = (0.0, 0.0);
        for host in &self.hosts {
            for r in 0..DIMS {
                free[r] += host.cap[r] - host.used[r];
            }
            if host.vms.is_empty() && host.ghosts.is_empty() {
                empty += 1;
                empty_cores += host.cap[0];
            } else {
                alloc_nonempty += host.used[0];
                cores_nonempty += host.cap[0];
            }
        }
        let frac = empty as f64 / n;
        let hour = now.floor().max(0.0) as usize;
        // the optimum (App. G.2): the most hosts whose capacity the free capacity covers in every dimension,
        // smallest hosts first (for identical hosts ⌊H·min_r(free_r / total_r)⌋)
        let mut opt = 0usize;
        let mut left = free;
        for &h in &self.by_size {
            let c = self.hosts[h].cap;
            if (0..DIMS).any(|r| c[r] > left[r] + EPS) {
                break;
            }
            for r in 0..DIMS {
                left[r] -= c[r];
            }
            opt += 1;
        }
        if self.acc.series.len() <= hour {
            self.record_timeline(hour);
        }
        let acc = &mut self.acc;
        if acc.series.len() <= hour {
            acc.series.resize(hour + 1, (0.0, 0));
        }
        acc.series[hour].0 += frac;
        acc.series[hour].1 += 1;
        if now < self.cfg.warmup_h {
            return;
        }
        acc.samples += 1;
        acc.empty += frac;
        if free[0] > EPS {
            acc.e2f += empty_cores / free[0];
            acc.e2f_n += 1;
        }
        if cores_nonempty > 0.0 {
            acc.density += alloc_nonempty / cores_nonempty;
            acc.density_n += 1;
        }
        acc.alloc += 1.0 - free[0] / total[0];
        acc.opt += opt as f64 / n;
        let (mut long, mut short, mut recycling) = (0usize, 0usize, 0usize);
        for host in &self.hosts {
            if !host.vms.is_empty() {
                if host_is_long(host, self.jobs, &self.r0, now) {
                    long += 1;
                } else {
                    short += 1;
                }
            }
            recycling += (host.state == State::Recycling) as usize;
        }
        acc.diag.long_hosts += long as f64 / n;
        acc.diag.short_hosts += short as f64 / n;
        acc.diag.recycling_hosts += recycling as f64 / n;
    }

    /// Inflation (ALGORITHMS.md §5.8): best-fit placements of shapes drawn from the recent arrivals until
    /// [`INFLATION_FAILURES`] consecutive failures; the free capacity left is stranded.
    fn strand(&mut self, now: f64) {
        if now < self.cfg.warmup_h || self.recent.is_empty() {
            return;
        }
        let mut used: Vec<[f64; DIMS]> = self.hosts.iter().map(|h| h.used).collect();
        let mut rng = stream(self.cfg.seed, COMP_INFLATION, self.acc.strand_n as u64);
        let mut fails = 0;
        let mut draws = 0usize;
        let limit = 1000 * self.hosts.len() + 10_000;
        while fails < INFLATION_FAILURES && draws < limit {
            draws += 1;
            let shape = self.recent[rng.random_range(0..self.recent.len())];
            let mut best: Option<(f64, usize)> = None;
            for (h, u) in used.iter().enumerate() {
                let cap = &self.hosts[h].cap;
                if fits(u, cap, &shape) {
                    let s = slack(u, cap);
                    if best.is_none_or(|b| s < b.0) {
                        best = Some((s, h));
                    }
                }
            }
            match best {
                Some((_, h)) => {
                    fails = 0;
                    for (x, s) in used[h].iter_mut().zip(shape) {
                        *x += s;
                    }
                }
                None => fails += 1,
            }
        }
        let total = self.total;
        let hosts = &self.hosts;
        let free = |r: usize| {
            used.iter()
                .zip(hosts)
                .map(|(u, h)| h.cap[r] - u[r])
                .sum::<f64>()
                / total[r]
        };
        self.acc.strand_cpu += free(0);
        self.acc.strand_mem += if total[1] > 0.0 { free(1) } else { 0.0 };
        self.acc.strand_n += 1;
    }
}

impl World<Ev> for Pool<'_> {
    fn handle(&mut self, now: f64, ev: Ev, des: &mut Des<Ev>) {
        match ev {
            Ev::Arrive(j) => {
                let j = j as usize;
                self.acc.arrivals += 1;
                let shape = self.jobs[j].shape;
                if shape[0] > 0.0 || shape[1] > 0.0 {
                    if self.recent.len() < INFLATION_RECENT {
                        self.recent.push(shape);
                    } else {
                        self.recent[self.recent_next] = shape;
                    }
                    self.recent_next = (self.recent_next + 1) % INFLATION_RECENT;
                }
                let policy = if j < self.cfg.baseline_jobs {
                    Policy::BestFit
                } else {
                    self.cfg.policy
                };
                match self.choose_keyed(j, now, policy, 0.0) {
                    Some((key, h)) => {
                        if now >= self.cfg.warmup_h {
                            self.count_placement(j, h, key, policy, now);
                        }
                        self.place(j, h, now, des, true)
                    }
                    None => {
                        self.acc.failures += 1;
                        if now >= self.cfg.warmup_h {
                            self.acc.failures_measured += 1;
                        }
                    }
                }
            }
            Ev::Exit(j) => self.remove(j as usize, now, des, false),
            Ev::MigrationDone(j, src) => {
                let src = src as usize;
                let host = &mut self.hosts[src];
                if let Some(pos) = host.ghosts.iter().position(|&v| v == j) {
                    host.ghosts.swap_remove(pos);
                }
                let used = used_of(host, self.jobs);
                self.set_used(src, used);
                self.mig.active -= 1;
                self.check_drained(src);
                self.start_migrations(now, des);
            }
            Ev::Deadline(h) => {
                let h = h as usize;
                if !self.hosts[h].vms.is_empty() {
                    if now >= self.cfg.warmup_h {
                        self.acc.diag.class_up_deadline += 1;
                    }
                    let host = &mut self.hosts[h];
                    host.class = (host.class + 1).min(MAX_CLASS);
                    self.res_all(h);
                    self.reset_deadline(h, now, des);
                }
            }
        }
    }
}

/// Simulates `jobs` (arrival order) on the pool of `cfg` under `cfg.policy` with predictor `pred` and returns
/// the metrics. Deterministic: the same inputs give bit-identical results.
pub fn simulate(jobs: &[Job], pred: &dyn LifetimePredictor, cfg: &SimConfig) -> PolicyResult {
    run(jobs, pred, cfg).0
}

/// Like [`simulate`], also returning the host each job was placed on at its arrival (`None`: a scheduling
/// failure or an arrival after the end).
pub fn simulate_placements(
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    cfg: &SimConfig,
) -> (PolicyResult, Vec<Option<usize>>) {
    let (r, placed) = run(jobs, pred, cfg);
    (
        r,
        placed
            .into_iter()
            .map(|h| (h != NONE).then_some(h as usize))
            .collect(),
    )
}

/// Like [`simulate`], also returning the drains of the defragmentation in the order they happened (to replay
/// them under another migration order, [`replay_migrations`], or as `Defrag::replay` actions).
pub fn simulate_recording(
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    cfg: &SimConfig,
) -> (PolicyResult, Vec<DrainRecord>) {
    let (r, _, rec) = run_full(jobs, pred, cfg);
    (r, rec)
}

fn run(jobs: &[Job], pred: &dyn LifetimePredictor, cfg: &SimConfig) -> (PolicyResult, Vec<u32>) {
    let (r, placed, _) = run_full(jobs, pred, cfg);
    (r, placed)
}

fn run_full(
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    cfg: &SimConfig,
) -> (PolicyResult, Vec<u32>, Vec<DrainRecord>) {
    let n = jobs.len();
    let mut des: Des<Ev> = Des::new();
    let caps: Vec<[f64; DIMS]> = match &cfg.caps {
        Some(c) => c.to_vec(),
        None => vec![cfg.cap; cfg.hosts],
    };
    let mut total = [0.0; DIMS];
    for c in &caps {
        for r in 0..DIMS {
            total[r] += c[r];
        }
    }
    let size = |c: &[f64; DIMS]| -> f64 {
        (0..DIMS)
            .filter(|&r| total[r] > 0.0)
            .map(|r| c[r] / total[r])
            .sum()
    };
    let mut by_size: Vec<usize> = (0..caps.len()).collect();
    by_size.sort_by(|&a, &b| size(&caps[a]).total_cmp(&size(&caps[b])).then(a.cmp(&b)));
    let hosts = caps
        .iter()
        .map(|&cap| Host {
            cap,
            used: [0.0; DIMS],
            vms: Vec::new(),
            ghosts: Vec::new(),
            draining: false,
            maintained: false,
            slack: slack(&[0.0; DIMS], &cap),
            state: State::Empty,
            class: 0,
            key: des.new_key(),
            deadline: 0.0,
            res_epoch: 0,
            res_count: 0,
            exit_cache: 0.0,
            cache_at: 0.0,
            cache_valid: false,
        })
        .collect();
    let r0: Vec<f64> = (0..n).map(|j| pred.remaining(j, 0.0)).collect();
    let mut pool = Pool {
        jobs,
        pred,
        cfg,
        hosts,
        on: vec![NONE; n],
        class: r0.iter().map(|&r| lifetime_class(r)).collect(),
        res_epoch: vec![NONE; n],
        long: r0.iter().map(|&r| r > LA_BINARY_CUTOFF_H).collect(),
        r0,
        recent: Vec::new(),
        recent_next: 0,
        placed: vec![NONE; n],
        acc: Acc::default(),
        mig: Migrations::default(),
        order: caps
            .iter()
            .enumerate()
            .map(|(h, c)| SlackKey(slack(&[0.0; DIMS], c), h as u32))
            .collect(),
        total,
        by_size,
    };
    for (j, job) in jobs.iter().enumerate() {
        if job.start < cfg.end {
            des.schedule(job.start, Ev::Arrive(j as u32));
        }
    }
    // samples see the state after every event at or before their time (arrivals of that 5-minute bin
    // included, exits at that instant done)
    let mut events = 0;
    let mut next_strand = if cfg.stranding_h > 0.0 {
        cfg.warmup_h
    } else {
        f64::INFINITY
    };
    let mut k = 0u64;
    let mut check = 0u64;
    loop {
        let t = k as f64 * cfg.sample_h;
        if t >= cfg.end || cfg.sample_h <= 0.0 {
            break;
        }
        // defragmentation checks every DEFRAG_PERIOD_H up to t, each after the events before it
        if cfg.defrag.is_some() {
            loop {
                let tc = check as f64 * DEFRAG_PERIOD_H;
                if tc > t {
                    break;
                }
                events += des.run_until(tc, &mut pool);
                pool.defrag_check(check, tc, &mut des);
                check += 1;
            }
        }
        events += des.run_until(t, &mut pool);
        pool.sample(t);
        if t >= next_strand {
            pool.strand(t);
            next_strand += cfg.stranding_h;
        }
        k += 1;
    }
    events += des.run_until(cfg.end, &mut pool);
    let timeline = std::mem::take(&mut pool.acc.timeline);
    let a = &pool.acc;
    let avg = |s: f64, n: usize| if n == 0 { 0.0 } else { s / n as f64 };
    let diagnostics = cfg.diagnostics.then(|| {
        let d = &a.diag;
        let m = a.measured_arrivals as usize;
        // core-hours over the measured window of every job, and of the jobs predicted long
        let (mut all, mut long) = (0.0, 0.0);
        for (j, job) in jobs.iter().enumerate() {
            let h = (job.exit.min(cfg.end) - job.start.max(cfg.warmup_h)).max(0.0) * job.shape[0];
            all += h;
            if pool.long[j] {
                long += h;
            }
        }
        Diagnostics {
            long_vms: avg(a.long_arrivals as f64, m),
            long_core_hours: if all > 0.0 { long / all } else { 0.0 },
            long_hosts: avg(d.long_hosts, a.samples),
            short_hosts: avg(d.short_hosts, a.samples),
            mean_temporal_cost: avg(a.cost_sum as f64, m),
            zero_cost: avg(d.zero_cost, m),
            recycling_hosts: avg(d.recycling_hosts, a.samples),
            ..d.clone()
        }
    });
    let result = PolicyResult {
        policy: cfg.policy,
        empty_hosts: avg(a.empty, a.samples),
        empty_hosts_pp_vs_best_fit: 0.0,
        empty_to_free: avg(a.e2f, a.e2f_n),
        packing_density: avg(a.density, a.density_n),
        allocation: avg(a.alloc, a.samples),
        stranded_cpu: avg(a.strand_cpu, a.strand_n),
        stranded_mem: avg(a.strand_mem, a.strand_n),
        migrations: pool.mig.started,
        migrations_saved: pool.mig.saved,
        migration_failures: pool.mig.failed,
        drained_hosts: pool.mig.drained,
        start_order: None,
        closed_loop_start_order: None,
        closed_loop_lars: None,
        lars: None,
        random_order: None,
        diagnostics,
        failures: a.failures,
        failures_measured: a.failures_measured,
        optimum_empty_hosts: avg(a.opt, a.samples),
        samples: a.samples,
        stranding_samples: a.strand_n,
        arrivals: a.arrivals,
        events,
        empty_series: a.series.iter().map(|&(s, n)| avg(s, n)).collect(),
        timeline,
    };
    (result, pool.placed, pool.mig.record)
}

#[cfg(test)]
mod tests {
    use super::super::predictor::Oracle;
    use super::*;

    fn job(start: f64, life: f64, cores: f64) -> Job {
        Job {
            start,
            exit: start + life,
            life,
            censored: false,
            shape: [cores, 0.0, 0.0],
            batch: 0,
        }
    }

    fn cfg(policy: Policy, hosts: usize, cores: f64) -> SimConfig {
        SimConfig {
            policy,
            hosts,
            cap: [cores, 0.0, 0.0],
            caps: None,
            warmup_h: 0.0,
            end: 100.0,
            refresh_h: 60.0 / 3600.0,
            sample_h: 5.0 / 60.0,
            stranding_h: 0.0,
            seed: 1,
            defrag: None,
            baseline_jobs: 0,
            diagnostics: true,
        }
    }

    #[test]
    fn temporal_cost_and_lifetime_classes_by_hand() {
        // seed 003 §4.2's example: ΔT = 70 min → cost 2
        assert_eq!(temporal_cost(70.0 / 60.0), 2);
        assert_eq!(temporal_cost(0.0), 0);
        assert_eq!(temporal_cost(29.0 / 60.0), 0);
        assert_eq!(temporal_cost(0.5), 1);
        assert_eq!(temporal_cost(5.0), 6);
        assert_eq!(temporal_cost(200.0), 10);
        assert_eq!(lifetime_class(0.5), 1);
        assert_eq!(lifetime_class(1.0), 2);
        assert_eq!(lifetime_class(9.99), 2);
        assert_eq!(lifetime_class(10.0), 3);
        assert_eq!(lifetime_class(999.0), 4);
        assert_eq!(lifetime_class(1000.0), 5);
        assert_eq!(class_upper_bound(3), 100.0);
    }

    /// Two 4-core hosts. A (2 cores, 10 h) opens host 0; C (3 cores, 2 h) does not fit beside it and opens
    /// host 1; D (1 core, 8.5 h, at t = 1 h) fits both.
    /// - best fit: host 1 (4 − 3 − 1 = 0 cores left vs 1);
    /// - NILAS: host 0 exits at 10 h, after D (9.5 h): ΔT = 0, cost 0; host 1 exits at 2 h: ΔT = 7.5 h, cost 7;
    ///   so host 0;
    /// - LAVA: D's class is 2 (8.5 h ∈ [1, 10)); host 0 is OPEN in class 3 (10 h), host 1 OPEN in class 2
    ///   (2 h) at 75% < 90%, so tier 2 (open, same class) = host 1;
    /// - LA-Binary: A and D are long (> 2 h), C is short (2 h is not > 2 h): host 0, the long host.
    #[test]
    fn hand_worked_placements_of_every_policy() {
        let jobs = vec![job(0.0, 10.0, 2.0), job(0.0, 2.0, 3.0), job(1.0, 8.5, 1.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        for (policy, want) in [
            (Policy::BestFit, 1),
            (Policy::Nilas, 0),
            (Policy::Lava, 1),
            (Policy::LaBinary, 0),
        ] {
            let (_, placed) = simulate_placements(&jobs, &pred, &cfg(policy, 2, 4.0));
            assert_eq!(placed, vec![Some(0), Some(1), Some(want)], "{policy:?}");
        }
    }

    /// LA-Binary's host class is dynamic (ALGORITHMS.md §5.5 as corrected). Two 4-core hosts: A (3 cores,
    /// 3 h: long) opens host 0; B (2 cores, 1.5 h: short) does not fit beside it and opens host 1. A short VM C
    /// (1 core, 0.5 h):
    /// - at 0.5 h, A has 2.5 h > 2 h left: host 0 is L, so C goes to the S host 1;
    /// - at 1.2 h, A has 1.8 h left: host 0 has turned S, both hosts are S, and best fit takes host 0 (0 cores
    ///   left vs 1). (The static "holds a long VM" class would still send C to host 1.)
    #[test]
    fn la_binary_host_turns_short_when_its_long_vm_nears_its_end() {
        for (at, want) in [(0.5, 1), (1.2, 0)] {
            let jobs = vec![job(0.0, 3.0, 3.0), job(0.0, 1.5, 2.0), job(at, 0.5, 1.0)];
            let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
            let (_, placed) = simulate_placements(&jobs, &pred, &cfg(Policy::LaBinary, 2, 4.0));
            assert_eq!(placed, vec![Some(0), Some(1), Some(want)], "C at {at} h");
        }
    }

    /// An OPEN LAVA host moves its deadline with each same-class VM it takes (issue 27, item 6). One 4-core
    /// host: A (1 core, 0.95 h, class 1) opens it with deadline 1.1 h; B (1 core, 0.9 h, class 1) joins at
    /// 0.8 h and exits at 1.7 h. With the deadline moved to 0.8 + 1.1 = 1.9 h the host empties first: no class
    /// raise (with the deadline left at 1.1 h, the correct predictions would look like an under-prediction).
    #[test]
    fn open_lava_host_moves_its_deadline_with_a_same_class_vm() {
        let jobs = vec![job(0.0, 0.95, 1.0), job(0.8, 0.9, 1.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let r = simulate(&jobs, &pred, &cfg(Policy::Lava, 1, 4.0));
        let d = r.diagnostics.unwrap();
        assert_eq!((d.by_tier, d.class_up_deadline), ([0, 1, 0, 1], 0));
    }

    /// With correct predictions a LAVA host never outlives its deadline (issue 27: 19 deadline raises per
    /// 12.7k placements with the oracle, Azure share 0.05, seed 1, before this rule; 0 after). Two cases on one
    /// 10-core host, each placed by step 3 (any non-empty host):
    /// - recycling: A (9.5 cores, 5 h, class 2) opens it at 95% → RECYCLING, deadline 5.5 h… 11 h; B (0.5
    ///   cores, 9 h, class 2) joins at 4 h. B is residual (same class), so A's exit at 5 h does not drop the
    ///   class, and the deadline moves to 4 + 11 = 15 h > B's exit at 13 h. (Before: class 1 at 5 h, deadline
    ///   6.1 h, raised while B ran.)
    /// - open: A (1 core, 9.99 h, class 2, deadline 10.989 h); B (class 1, 0.9 h) at 9.5 h; C (class 1, 0.9 h)
    ///   at 10.3 h exits at 11.2 h, after A's deadline: the deadline moves to 10.3 + 1.1 = 11.4 h.
    #[test]
    fn lava_host_never_outlives_its_deadline_with_correct_predictions() {
        for (jobs, tiers) in [
            (vec![job(0.0, 5.0, 9.5), job(4.0, 9.0, 0.5)], [0, 0, 1, 1]),
            (
                vec![job(0.0, 9.99, 1.0), job(9.5, 0.9, 1.0), job(10.3, 0.9, 1.0)],
                [0, 0, 2, 1],
            ),
        ] {
            let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
            let r = simulate(&jobs, &pred, &cfg(Policy::Lava, 1, 10.0));
            let d = r.diagnostics.unwrap();
            assert_eq!(
                (d.by_tier, d.class_up_deadline, d.class_down),
                (tiers, 0, 0)
            );
        }
    }

    /// A migration's target is chosen for the VM's repredicted LAVA class (issue 27), not its class at
    /// arrival. Three 10-core hosts. At 0 h: X (8.5 cores, 5 h, class 2) opens host 0, F (1 core, 0.9 h,
    /// class 1) fills it to 95% (RECYCLING, class 2); Y (8.5 cores, 500 h, class 4) opens host 1, G (like F)
    /// makes it RECYCLING in class 4. V (1 core, 100 h) arrives at 0.05 h predicted 0.5 h (class 1) and fits
    /// only the empty host 2. F and G exit at 0.9 h. Host 2 is drained at check 24 (2 h): V, 1.95 h old, is
    /// now predicted 50 h (class 3), so the only recycling host of a higher class is host 1 (with the arrival
    /// class 1, the lowest higher class, host 0). W (1 core, 0.5 h, class 1) at 3 h then finds 1.5 cores only
    /// on host 0: it lands there (it would land on host 1 had V gone to host 0).
    #[test]
    fn migration_targets_use_the_repredicted_lava_class() {
        struct Late(Vec<f64>);
        impl LifetimePredictor for Late {
            fn first(&self, j: usize) -> f64 {
                self.remaining(j, 0.0)
            }
            fn remaining(&self, j: usize, u: f64) -> f64 {
                match j {
                    4 if u < 1.0 => 0.5 - u.min(0.5),
                    4 => 50.0,
                    _ => (self.0[j] - u).max(0.0),
                }
            }
        }
        let jobs = vec![
            job(0.0, 5.0, 8.5),
            job(0.0, 0.9, 1.0),
            job(0.0, 500.0, 8.5),
            job(0.0, 0.9, 1.0),
            job(0.05, 100.0, 1.0),
            job(3.0, 0.5, 1.0),
        ];
        let pred = Late(jobs.iter().map(|j| j.life).collect());
        let mut c = cfg(Policy::Lava, 3, 10.0);
        c.defrag = Some(Defrag {
            order: MigrationOrder::StartTime,
            replay: Some(std::sync::Arc::new(vec![(24, 2)])),
            maintenance: false,
        });
        let (r, placed) = simulate_placements(&jobs, &pred, &c);
        assert_eq!(
            placed,
            vec![Some(0), Some(0), Some(1), Some(1), Some(2), Some(0)]
        );
        assert_eq!((r.migrations, r.drained_hosts), (1, 1));
    }

    /// The App. F warm-up's baseline placements: with `baseline_jobs` = 3 every job of the example above is
    /// placed by best fit whatever the policy (D on host 1), with 2 only A and C are, and NILAS places D on
    /// host 0 as before. A job with a negative start (alive before the window) arrives at time 0 and exits at
    /// its exit: B (start −5 h, exit 1 h, 4 cores) fills the single host until 1 h, so A (4 cores at 0) fails
    /// and E (4 cores at 2 h) fits.
    #[test]
    fn baseline_jobs_are_placed_by_best_fit_and_alive_jobs_arrive_at_zero() {
        let jobs = vec![job(0.0, 10.0, 2.0), job(0.0, 2.0, 3.0), job(1.0, 8.5, 1.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        for (n, want) in [(3, 1), (2, 0), (0, 0)] {
            let mut c = cfg(Policy::Nilas, 2, 4.0);
            c.baseline_jobs = n;
            let (_, placed) = simulate_placements(&jobs, &pred, &c);
            assert_eq!(placed, vec![Some(0), Some(1), Some(want)], "{n}");
        }
        let jobs = vec![job(-5.0, 6.0, 4.0), job(0.0, 1.0, 4.0), job(2.0, 1.0, 4.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let mut c = cfg(Policy::Nilas, 1, 4.0);
        c.baseline_jobs = 1;
        c.end = 4.0;
        let (r, placed) = simulate_placements(&jobs, &pred, &c);
        assert_eq!(placed, vec![Some(0), None, Some(0)]);
        assert_eq!((r.failures, r.arrivals), (1, 3));
        // full over [0, 1) and [2, 3): 24 of the 48 samples of [0, 4) have no empty host
        assert!((r.empty_hosts - 0.5).abs() < 1e-12, "{}", r.empty_hosts);
    }

    /// The diagnostics of the hand-worked example (two 4-core hosts, everything measured). LA-Binary: A
    /// (long) opens host 0 (tier empty), C (short, 2 h is not > 2 h) does not fit beside it and opens host 1,
    /// D (long) joins A (same class): tiers [1, 0, 2, 0], no mixed placement, 2 of 3 VMs long. LAVA: D
    /// (class 2) goes to host 1 (open, class 2: tier 1), A and C open hosts (tier 3); host 0 (class 3, 2
    /// cores) is never RECYCLING; host 1 at 4 of 4 cores after D turns RECYCLING. Best fit: D on host 1, a
    /// long VM on C's short host.
    #[test]
    fn diagnostics_of_the_hand_worked_example() {
        let jobs = vec![job(0.0, 10.0, 2.0), job(0.0, 2.0, 3.0), job(1.0, 8.5, 1.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let d = |p| simulate(&jobs, &pred, &cfg(p, 2, 4.0)).diagnostics.unwrap();
        let lb = d(Policy::LaBinary);
        assert_eq!(lb.by_tier, [1, 0, 2, 0]);
        assert_eq!(
            (lb.placements, lb.short_on_long, lb.long_on_short),
            (3, 0, 0)
        );
        assert!((lb.long_vms - 2.0 / 3.0).abs() < 1e-12);
        let lava = d(Policy::Lava);
        assert_eq!(lava.by_tier, [0, 1, 0, 2]);
        assert!(lava.recycling_hosts > 0.0);
        let bf = d(Policy::BestFit);
        assert_eq!(bf.by_tier, [1, 0, 0, 2]);
        assert_eq!((bf.long_on_short, bf.short_on_long), (1, 0));
        // NILAS: D on host 0 with cost 0; A and C on empty hosts: ΔT 10 h (cost 7: ≥ 6 h) and 2 h (cost 4)
        let ni = d(Policy::Nilas);
        assert!((ni.mean_temporal_cost - 11.0 / 3.0).abs() < 1e-12, "{ni:?}");
        assert!((ni.zero_cost - 1.0 / 3.0).abs() < 1e-12);
        // reported only when asked
        let mut c = cfg(Policy::Nilas, 2, 4.0);
        c.diagnostics = false;
        assert!(simulate(&jobs, &pred, &c).diagnostics.is_none());
    }

    /// LAVA's host states: a host filled above 90% turns RECYCLING and then takes only shorter classes first
    /// (tier 1); when its residual VMs are gone its class drops by one.
    #[test]
    fn lava_recycling_host_takes_shorter_vms_first() {
        // host 0: A (10 cores, 50 h, class 3) → 100% full → RECYCLING; B (1 core... ) cannot fit until A's
        // share frees: use a 20-core host: A 19 cores (95% > 90%) → RECYCLING class 3.
        // E (1 core, 0.5 h, class 1) arrives: tier 1 (recycling, class 3 > 1) = host 0, not the empty host 1,
        // although best fit would also pick host 0; F (1 core, 50 h, class 3) arrives after E left: host 0 is
        // RECYCLING with class 3 = F's class, so tier 1 does not apply; host 0 is non-empty (tier 3), host 1
        // empty (tier 4): host 0.
        let jobs = vec![
            job(0.0, 50.0, 19.0),
            job(1.0, 0.5, 1.0),
            job(2.0, 50.0, 1.0),
        ];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let (_, placed) = simulate_placements(&jobs, &pred, &cfg(Policy::Lava, 2, 20.0));
        assert_eq!(placed, vec![Some(0), Some(0), Some(0)]);
        // with NILAS, F (exit 52 h) on host 0 (exit 50 h): ΔT = 2 h, cost 4; host 1 empty: ΔT = 50 h, cost 9
        let (_, placed) = simulate_placements(&jobs, &pred, &cfg(Policy::Nilas, 2, 20.0));
        assert_eq!(placed[2], Some(0));
    }

    /// The host timeline of the recycling example above, by hand (two 20-core hosts, 4 hours): A (19 cores,
    /// 50 h: class 3) fills host 0 to 95% > 90%, so under LAVA host 0 is RECYCLING in class 3 (code 16 + 3)
    /// at every hour while E (class 1) and then F (class 3) join it; under best fit the same host holds VMs
    /// whose largest class is 3 (code 3). Host 1 stays empty (code 0) throughout.
    #[test]
    fn host_timeline_by_hand() {
        let jobs = vec![
            job(0.0, 50.0, 19.0),
            job(1.0, 0.5, 1.0),
            job(2.0, 50.0, 1.0),
        ];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        for (policy, code) in [(Policy::Lava, TL_RECYCLING + 3), (Policy::BestFit, 3)] {
            let mut c = cfg(policy, 2, 20.0);
            c.end = 4.0;
            let r = simulate(&jobs, &pred, &c);
            assert_eq!(r.timeline.hosts, 2);
            assert_eq!(r.timeline.hours, vec![0, 1, 2, 3], "{policy:?}");
            assert_eq!(r.timeline.codes, [code, TL_EMPTY].repeat(4), "{policy:?}");
        }
        // a host with a short VM only: class 1 (E alone on a 1-core host pool beside nothing else)
        let short = vec![job(0.0, 0.5, 1.0)];
        let pred = Oracle::new(vec![0.5]);
        let mut c = cfg(Policy::Nilas, 1, 1.0);
        c.end = 2.0;
        let r = simulate(&short, &pred, &c);
        assert_eq!(r.timeline.codes, vec![1, TL_EMPTY]);
    }

    /// LARS against the start-time order on one drained host (§5.6), by hand. Three 10-core hosts: host 0 is
    /// filled by C1–C5 (2 cores, 50 h); B (2 cores, 0.1 h) and A1–A3 (2 cores, 10 h) open host 1; host 2 is
    /// empty. Host 1 is drained at the first check (t = 0, replayed action). At most 3 migrations run at once,
    /// 20 min each. Start-time order: B, A1, A2 start at 0 and A3 when the first ends: 4 migrations. LARS:
    /// A1, A2, A3 start at 0; B waits and exits at 0.1 h, before a slot frees at 1/3 h: 3 migrations, 1 saved.
    #[test]
    fn lars_saves_the_short_vm_the_start_order_migrates() {
        let mut jobs: Vec<Job> = (0..5).map(|_| job(0.0, 50.0, 2.0)).collect();
        jobs.push(job(0.0, 0.1, 2.0));
        jobs.extend((0..3).map(|_| job(0.0, 10.0, 2.0)));
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let replay = Some(std::sync::Arc::new(vec![(0u64, 1u32)]));
        let mut out = Vec::new();
        for order in [MigrationOrder::StartTime, MigrationOrder::Lars] {
            let mut c = cfg(Policy::BestFit, 3, 10.0);
            c.end = 5.0;
            c.defrag = Some(Defrag {
                order,
                replay: replay.clone(),
                maintenance: false,
            });
            let (r, placed) = simulate_placements(&jobs, &pred, &c);
            assert_eq!(
                placed,
                [vec![Some(0); 5], vec![Some(1); 4]].concat(),
                "initial placement"
            );
            out.push((r.migrations, r.migrations_saved, r.drained_hosts));
        }
        assert_eq!(out, vec![(4, 0, 1), (3, 1, 1)]);
    }

    /// Maintenance drains (App. H) by hand. Five 10-core hosts; at 0 best fit places A–D (7 cores) on hosts
    /// 0–3, then three 1-core VMs on host 0 (full) and two on host 1: VMs per host 4, 3, 1, 1, 0. The threshold
    /// rule drains nothing (1 of 5 hosts empty, 20% ≥ 5%); maintenance drains the fullest hosts at the first
    /// check, 0, 1 and then 2 (1 VM like host 3, tie by id), and never a host twice.
    #[test]
    fn maintenance_drains_the_fullest_hosts_once() {
        let mut jobs: Vec<Job> = (0..4).map(|_| job(0.0, 50.0, 7.0)).collect();
        jobs.extend((0..5).map(|_| job(0.0, 50.0, 1.0)));
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let run = |maintenance| {
            let mut c = cfg(Policy::BestFit, 5, 10.0);
            c.end = 3.0;
            c.defrag = Some(Defrag {
                order: MigrationOrder::StartTime,
                replay: None,
                maintenance,
            });
            simulate_recording(&jobs, &pred, &c).1
        };
        assert!(run(false).is_empty());
        let drains = run(true);
        let first: Vec<(u64, u32, usize)> = drains
            .iter()
            .take(3)
            .map(|d| (d.check, d.host, d.vms.len()))
            .collect();
        assert_eq!(first, vec![(0, 0, 4), (0, 1, 3), (0, 2, 1)]);
        let mut hosts: Vec<u32> = drains.iter().map(|d| d.host).collect();
        hosts.sort_unstable();
        hosts.dedup();
        assert_eq!(hosts.len(), drains.len(), "a host drained twice");
    }

    /// A hand-made drain near the end (ALGORITHMS.md §5.6), run to completion. At 9.9 h (end 10 h) the host
    /// holds VM 0 (exits 10.2 h) and VMs 1–3 (100 h). Three slots: start order migrates 0, 1, 2 at 9.9 h and 3
    /// when a slot frees at 9.9 + 1/3 = 10.233 h: 4 migrations. LARS queues 1, 2, 3 first; VM 0 would start at
    /// 10.233 h, after its exit: 3 migrations, 1 saved. Cut at the end both orders count the 3 started at
    /// 9.9 h and nothing else: the order would not matter.
    #[test]
    fn lars_queue_runs_to_completion_on_a_hand_made_drain() {
        let jobs = vec![
            job(0.0, 10.2, 1.0),
            job(0.0, 100.0, 1.0),
            job(0.0, 100.0, 1.0),
            job(0.0, 100.0, 1.0),
        ];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let drains = vec![DrainRecord {
            check: 0,
            time: 9.9,
            host: 0,
            vms: vec![0, 1, 2, 3],
            abandoned_at: None,
        }];
        let c = |order, end| {
            let m = replay_migrations(&jobs, &pred, &drains, order, end);
            (m.migrations, m.migrations_saved)
        };
        assert_eq!(c(MigrationOrder::StartTime, f64::INFINITY), (4, 0));
        assert_eq!(c(MigrationOrder::Lars, f64::INFINITY), (3, 1));
        assert_eq!(c(MigrationOrder::StartTime, 10.0), (3, 0));
        assert_eq!(c(MigrationOrder::Lars, 10.0), (3, 0));
        // a random order queues every VM once: 4 handled either way
        let (m, saved) = c(MigrationOrder::Random, f64::INFINITY);
        assert_eq!(m + saved, 4);
    }

    /// The same drained host replayed on the start-order run's own trajectory ([`replay_migrations`]): the
    /// drain record holds host 1 at check 0 with B, A1–A3 (jobs 5–8); replayed in start-time order it gives
    /// that run's counts (4 migrations, 0 saved), in the LARS order 3 migrations and 1 saved (B exits at 0.1 h
    /// while A1–A3 migrate), on the same drained host.
    #[test]
    fn lars_on_the_recorded_trajectory_by_hand() {
        let mut jobs: Vec<Job> = (0..5).map(|_| job(0.0, 50.0, 2.0)).collect();
        jobs.push(job(0.0, 0.1, 2.0));
        jobs.extend((0..3).map(|_| job(0.0, 10.0, 2.0)));
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let mut c = cfg(Policy::BestFit, 3, 10.0);
        c.end = 5.0;
        c.defrag = Some(Defrag {
            order: MigrationOrder::StartTime,
            replay: Some(std::sync::Arc::new(vec![(0u64, 1u32)])),
            maintenance: false,
        });
        let (r, drains) = simulate_recording(&jobs, &pred, &c);
        assert_eq!(
            drains,
            vec![DrainRecord {
                check: 0,
                time: 0.0,
                host: 1,
                vms: vec![5, 6, 7, 8],
                abandoned_at: None
            }]
        );
        let start = replay_migrations(&jobs, &pred, &drains, MigrationOrder::StartTime, c.end);
        let lars = replay_migrations(&jobs, &pred, &drains, MigrationOrder::Lars, c.end);
        assert_eq!(
            (r.migrations, r.migrations_saved, r.drained_hosts),
            (
                start.migrations,
                start.migrations_saved,
                start.drained_hosts
            )
        );
        assert_eq!((start.migrations, start.migrations_saved), (4, 0));
        assert_eq!((lars.migrations, lars.migrations_saved), (3, 1));
        assert_eq!(lars.drained_hosts, 1);
        // LARS reorders the drain; one VM waits for a slot in each order (A3, then B)
        assert_eq!((start.reordered_drains, start.waited), (0, 1));
        assert_eq!((lars.reordered_drains, lars.waited), (1, 1));
        // the end cuts the executor: with end = 0.2 h only the 3 migrations started at 0 happen in start
        // order (A3 would start at 1/3 h), and B (exit 0.1 h) is never reached in the LARS order
        let cut = |o| replay_migrations(&jobs, &pred, &drains, o, 0.2);
        assert_eq!(cut(MigrationOrder::StartTime).migrations, 3);
        assert_eq!(
            (
                cut(MigrationOrder::Lars).migrations,
                cut(MigrationOrder::Lars).migrations_saved
            ),
            (3, 0)
        );
    }

    /// Two drains share the 3 slots, by hand ([`replay_migrations`]; migrations take 1/3 h). Host 0 is drained
    /// at 0 with P (exit 0.2 h) and Q (5 h); host 1 with R, S (5 h) and T (0.5 h).
    /// - Both at 0, host 1's drain abandoned at 1/3 h when S found no target: P, Q, R start at 0 (LARS: Q,
    ///   P, R); at 1/3 h S would start but its drain is dropped, T with it: 3 migrations, 0 saved, in both
    ///   orders.
    /// - Host 1 at 1/4 h, abandoned at 1/3 h: P, Q at 0, R at 1/4 h, S dropped at 1/3 h: 3 and 0 in both.
    /// - The same with T failing at 1/3 h: S, which reaches a slot at that instant before T, migrates: 4.
    /// - Host 1 at 1/4 h, not abandoned: S and T start at 1/3 h when P's and Q's migrations end: 5, 0.
    /// - The same with T exiting at 0.3 h: T is saved at 1/3 h: 4 migrations, 1 saved.
    #[test]
    fn replayed_drains_share_the_slots_and_abandonments_by_hand() {
        let jobs = vec![
            job(0.0, 0.2, 1.0), // P
            job(0.0, 5.0, 1.0), // Q
            job(0.0, 5.0, 1.0), // R
            job(0.0, 5.0, 1.0), // S
            job(0.0, 0.5, 1.0), // T
        ];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let drains = |t1: f64, abandoned: Option<(f64, u32)>| {
            vec![
                DrainRecord {
                    check: 0,
                    time: 0.0,
                    host: 0,
                    vms: vec![0, 1],
                    abandoned_at: None,
                },
                DrainRecord {
                    check: 3,
                    time: t1,
                    host: 1,
                    vms: vec![2, 3, 4],
                    abandoned_at: abandoned,
                },
            ]
        };
        let count = |d: &[DrainRecord], o| {
            let c = replay_migrations(&jobs, &pred, d, o, 10.0);
            (c.migrations, c.migrations_saved, c.drained_hosts)
        };
        let third = MIGRATION_H;
        let d = drains(0.0, Some((third, 3)));
        assert_eq!(count(&d, MigrationOrder::StartTime), (3, 0, 2));
        assert_eq!(count(&d, MigrationOrder::Lars), (3, 0, 2));
        let d = drains(0.25, Some((third, 3)));
        assert_eq!(count(&d, MigrationOrder::StartTime), (3, 0, 2));
        assert_eq!(count(&d, MigrationOrder::Lars), (3, 0, 2));
        // T failing at 1/3 h instead: S, popped at that instant before T, still migrates
        let d = drains(0.25, Some((third, 4)));
        assert_eq!(count(&d, MigrationOrder::StartTime), (4, 0, 2));
        let d = drains(0.25, None);
        assert_eq!(count(&d, MigrationOrder::StartTime), (5, 0, 2));
        assert_eq!(count(&d, MigrationOrder::Lars), (5, 0, 2));
        // T exiting at 0.3 h instead (before the slots free at 1/3 h) is saved in both orders
        let mut jobs2 = jobs.clone();
        jobs2[4] = job(0.0, 0.3, 1.0);
        let pred2 = Oracle::new(jobs2.iter().map(|j| j.life).collect());
        let c = replay_migrations(&jobs2, &pred2, &d, MigrationOrder::Lars, 10.0);
        assert_eq!((c.migrations, c.migrations_saved), (4, 1));
    }

    #[test]
    fn failures_are_counted_and_empty_hosts_never_exceed_the_optimum() {
        // three 4-core VMs on two 4-core hosts at once: one fails
        let jobs = vec![job(0.0, 5.0, 4.0), job(0.0, 5.0, 4.0), job(0.0, 5.0, 4.0)];
        let pred = Oracle::new(jobs.iter().map(|j| j.life).collect());
        let mut c = cfg(Policy::BestFit, 2, 4.0);
        c.end = 10.0;
        let (r, placed) = simulate_placements(&jobs, &pred, &c);
        assert_eq!(placed, vec![Some(0), Some(1), None]);
        assert_eq!(r.failures, 1);
        // samples every 5 min over [0, 10): 120; the pool is full at the 60 samples in [0, 5) and empty from
        // 5 h on (the exits at 5 h come before the sample at 5 h): mean empty fraction 0.5; optimum the same
        assert_eq!(r.samples, 120);
        assert!((r.empty_hosts - 0.5).abs() < 1e-12, "{}", r.empty_hosts);
        assert!((r.optimum_empty_hosts - 0.5).abs() < 1e-12);
        assert!((r.allocation - 0.5).abs() < 1e-12);
    }
}
