//! The pool metrics of seed 003 §5.8 (ALGORITHMS.md §5.8), sampled every `sample_h` after the warm-up:
//! empty hosts, empty-to-free, packing density, allocation, the optimum of App. G.2, stranding by inflation
//! (every `stranding_h`), the placement diagnostics, the per-hour empty series and the host timeline; and
//! [`PolicyResult`], one policy's result.

use super::host::{fits, slack, CapRange, Host, SlackKey, State, EPS};
use super::lars::{MigrationCounts, Migrations};
use super::params::Policy;
use super::policies::la_binary::host_is_long;
use super::policies::PlacementRule;
use super::pool::{Job, DIMS};
use crate::substrate::rng::stream;
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Consecutive failures that end an inflation (ALGORITHMS.md §5.8 [UNSTATED → 100]).
pub const INFLATION_FAILURES: usize = 100;
/// Arrival shapes the inflation draws from: the most recent ones (ALGORITHMS.md §5.8 "recent-arrival shape
/// mix" [UNSTATED → the last 1,000 arrivals]).
pub const INFLATION_RECENT: usize = 1000;

/// Random-stream component of the inflation draws.
const COMP_INFLATION: u64 = 0x7374_7261;

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
    /// LARS order on the same trajectory ([`super::lars::replay_migrations`]); `None` otherwise.
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
    /// Placement and class counters ([`super::sim::SimConfig::diagnostics`]; `None` when not asked).
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
    /// A `script:NAME` policy's first run-time error (the rest of its run placed by best fit); `None`
    /// otherwise (not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Host timeline code of an empty host.
pub const TL_EMPTY: u8 = 0;
/// Host timeline code of a host whose VMs are all migrating away (LARS drains).
pub const TL_MIGRATING: u8 = 15;
/// Added to a LAVA host's lifetime class when it is RECYCLING (`TL_RECYCLING + class`).
pub const TL_RECYCLING: u8 = 16;

/// The state of every host at the first metric sample of each hour, for the host-timeline view (seed 003
/// §4.3, Fig. 5's picture of LAVA). Codes: [`TL_EMPTY`]; a lifetime class `1..=MAX_CLASS` ([`super::policies::lava::MAX_CLASS`]) for a host with VMs
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

/// The pool as the samplers read it.
#[derive(Clone, Copy)]
pub struct PoolState<'a> {
    /// The hosts.
    pub hosts: &'a [Host],
    /// Every job (arrival order).
    pub jobs: &'a [Job],
    /// `R̂_j(0)` per job, hours.
    pub r0: &'a [f64],
    /// The lifetime class per job (LAVA's, repredicted at migrations).
    pub class: &'a [u8],
    /// Total capacity per dimension.
    pub total: [f64; DIMS],
    /// Hosts by size (Σ_r cap_r / total_r) ascending, for the optimum of empty hosts.
    pub by_size: &'a [usize],
    /// The hosts' capacity range: the inflation's best fit starts at [`CapRange::slack_floor`].
    pub cap_range: CapRange,
    /// Whether hosts carry LAVA's classes and states (timeline codes).
    pub host_states: bool,
    /// Metrics are measured from this time on, hours.
    pub warmup_h: f64,
    /// The occupancy totals kept as the hosts change (`None`: every sample walks the hosts).
    pub sums: Option<&'a Occupancy>,
}

/// The hosts of capacities `caps` by size `Σ_r cap_r / total_r` over the dimensions with capacity, ascending, ties
/// by id ([`PoolState::by_size`], the optimum's order), and the total capacity per dimension.
pub fn hosts_by_size(caps: &[[f64; DIMS]]) -> (Vec<usize>, [f64; DIMS]) {
    let mut total = [0.0; DIMS];
    for c in caps {
        for (t, x) in total.iter_mut().zip(c) {
            *t += x;
        }
    }
    let size = |c: &[f64; DIMS]| -> f64 {
        (0..DIMS)
            .filter(|&r| total[r] > 0.0)
            .map(|r| c[r] / total[r])
            .sum()
    };
    let mut order: Vec<usize> = (0..caps.len()).collect();
    order.sort_by(|&a, &b| size(&caps[a]).total_cmp(&size(&caps[b])).then(a.cmp(&b)));
    (order, total)
}

/// Counter units per unit of capacity (core, GB, GPU): [`Occupancy`] counts multiples of 2⁻²⁰.
const UNITS: f64 = (1u64 << 20) as f64;

/// `x` in [`UNITS`] when it is a non-negative multiple of 2⁻²⁰ below 2⁵² units, else `None`.
fn units(x: f64) -> Option<i64> {
    let y = x * UNITS;
    (x >= 0.0 && y.fract() == 0.0 && y <= (1u64 << 52) as f64).then_some(y as i64)
}

/// What a metric sample reads of the pool ([`Acc::sample`]): hosts without VMs or ghosts and their cores, free
/// capacity per dimension (summed in host order), allocated cores and cores of the non-empty hosts, and the
/// optimum of App. G.2 (hosts in `by_size` order that the free capacity covers).
#[derive(Debug, PartialEq)]
struct Totals {
    empty: usize,
    empty_cores: f64,
    free: [f64; DIMS],
    alloc_nonempty: f64,
    cores_nonempty: f64,
    opt: usize,
}

impl Totals {
    /// The plain walk over every host (`O(hosts)`).
    fn walk(s: &PoolState) -> Totals {
        let mut t = Totals {
            empty: 0,
            empty_cores: 0.0,
            free: [0.0; DIMS],
            alloc_nonempty: 0.0,
            cores_nonempty: 0.0,
            opt: 0,
        };
        for host in s.hosts {
            for r in 0..DIMS {
                t.free[r] += host.cap[r] - host.used[r];
            }
            if host.is_empty() {
                t.empty += 1;
                t.empty_cores += host.cap[0];
            } else {
                t.alloc_nonempty += host.used[0];
                t.cores_nonempty += host.cap[0];
            }
        }
        // the optimum (App. G.2): the most hosts whose capacity the free capacity covers in every dimension,
        // smallest hosts first (for identical hosts ⌊H·min_r(free_r / total_r)⌋)
        let mut left = t.free;
        for &h in s.by_size {
            let c = s.hosts[h].cap;
            if (0..DIMS).any(|r| c[r] > left[r] + EPS) {
                break;
            }
            for r in 0..DIMS {
                left[r] -= c[r];
            }
            t.opt += 1;
        }
        t
    }
}

/// The pool's [`Totals`] kept as integer counters in [`UNITS`], updated when a host changes
/// ([`Occupancy::set`], `O(1)`), so that a metric sample costs `O(log hosts)` instead of a walk over every
/// host (issue 30). Exact, hence the walk's bits: when every capacity and VM shape is a non-negative multiple
/// of 2⁻²⁰ (cores, GB, GPUs; e.g. 0.75 GB) and the pool's total capacity is below 2⁵² units per dimension,
/// every partial sum of the walk is an integer number of units below 2⁵³, so its floating-point sums are
/// exact and equal the counters whatever the order; and the optimum's test `c_r > left_r + EPS` with `left_r`
/// exact and [`EPS`] < 2⁻²¹ is `c_r > left_r` in units, i.e. the prefix sums of capacity in `by_size` order
/// exceed the free capacity: monotone, so a binary search finds where the walk stops. A pool or workload with
/// other numbers (e.g. 0.1 GB) gets no counters ([`Occupancy::new`] is `None`): a running float sum would round
/// differently from the walk's host-order sum.
#[derive(Clone, Debug)]
pub struct Occupancy {
    /// Capacity per host, units.
    cap: Vec<[i64; DIMS]>,
    /// Used capacity per host as last set, units.
    used: Vec<[i64; DIMS]>,
    /// Whether each host was empty (no VMs, no ghosts) as last set.
    empty: Vec<bool>,
    /// `prefix[k]`: the capacity of the first `k` hosts of `by_size`, units (`k = 0..=hosts`).
    prefix: Vec<[i64; DIMS]>,
    free: [i64; DIMS],
    empty_n: usize,
    empty_cores: i64,
    alloc_nonempty: i64,
    cores_nonempty: i64,
}

impl Occupancy {
    /// Counters for empty hosts of capacities `caps` (`(cores, memory GB, GPUs)` per host; `by_size`: the
    /// hosts by size, as [`PoolState::by_size`]) that will hold VMs of `shapes`; `None` when a capacity or
    /// shape is not a non-negative multiple of 2⁻²⁰ or a dimension's total capacity reaches 2⁵² units.
    pub fn new<'s>(
        caps: &[[f64; DIMS]],
        mut shapes: impl Iterator<Item = &'s [f64; DIMS]>,
        by_size: &[usize],
    ) -> Option<Occupancy> {
        let to_units = |c: &[f64; DIMS]| -> Option<[i64; DIMS]> {
            Some([units(c[0])?, units(c[1])?, units(c[2])?])
        };
        if !shapes.all(|sh| to_units(sh).is_some()) {
            return None;
        }
        let cap: Vec<[i64; DIMS]> = caps.iter().map(to_units).collect::<Option<_>>()?;
        let mut total = [0i64; DIMS];
        let mut prefix = Vec::with_capacity(cap.len() + 1);
        prefix.push(total);
        for &h in by_size {
            for r in 0..DIMS {
                total[r] += cap[h][r];
                if total[r] >= 1 << 52 {
                    return None;
                }
            }
            prefix.push(total);
        }
        Some(Occupancy {
            used: vec![[0; DIMS]; cap.len()],
            empty: vec![true; cap.len()],
            empty_n: cap.len(),
            empty_cores: total[0],
            free: total,
            alloc_nonempty: 0,
            cores_nonempty: 0,
            prefix,
            cap,
        })
    }

    /// Host `h` now has `used` capacity and is `empty` (no VMs, no ghosts) or not. `used` must be a sum of
    /// the shapes given to [`Occupancy::new`] within the host's capacity.
    pub fn set(&mut self, h: usize, used: &[f64; DIMS], empty: bool) {
        let new = used.map(|x| units(x).expect("a used capacity in units"));
        let (cap, old) = (self.cap[h], self.used[h]);
        for r in 0..DIMS {
            self.free[r] += old[r] - new[r];
        }
        if self.empty[h] {
            self.empty_n -= 1;
            self.empty_cores -= cap[0];
        } else {
            self.alloc_nonempty -= old[0];
            self.cores_nonempty -= cap[0];
        }
        if empty {
            self.empty_n += 1;
            self.empty_cores += cap[0];
        } else {
            self.alloc_nonempty += new[0];
            self.cores_nonempty += cap[0];
        }
        self.used[h] = new;
        self.empty[h] = empty;
    }

    /// The totals, as [`Totals::walk`] computes them from the hosts, in `O(log hosts)`.
    fn totals(&self) -> Totals {
        let f = |x: i64| x as f64 / UNITS;
        let free = self.free;
        Totals {
            empty: self.empty_n,
            empty_cores: f(self.empty_cores),
            free: free.map(f),
            alloc_nonempty: f(self.alloc_nonempty),
            cores_nonempty: f(self.cores_nonempty),
            opt: self.prefix[1..].partition_point(|p| (0..DIMS).all(|r| p[r] <= free[r])),
        }
    }
}

/// The running sums of one simulation's metrics, and the recent arrival shapes the inflation draws from.
#[derive(Default)]
pub struct Acc {
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
    /// VMs no host could take, over the whole run.
    pub failures: u64,
    /// Of those, after the warm-up.
    pub failures_measured: u64,
    /// VMs that arrived.
    pub arrivals: u64,
    /// The diagnostics' counters (the LAVA class moves are counted by the pool).
    pub diag: Diagnostics,
    long_arrivals: u64,
    measured_arrivals: u64,
    cost_sum: u64,
    recent: Vec<[f64; DIMS]>,
    recent_next: usize,
    /// Whether the samples keep the diagnostics' host classes ([`Diagnostics::long_hosts`], `short_hosts`,
    /// `recycling_hosts`; a walk over every VM, only when the result carries [`Diagnostics`]).
    diagnostics: bool,
}

/// The pool as one inflation grows it (ALGORITHMS.md §5.8): a copy of the hosts' used capacity and every host in
/// slack order, so that best fit walks only the hosts from [`CapRange::slack_floor`] up to the first it fits
/// (`O(log m + hosts walked)` a draw, against `O(m)` for a scan of every host; issue 30). Hosts that cannot take
/// the least shape (per dimension the least of the shapes drawn) leave the order: they can take no shape.
struct Inflation<'a> {
    hosts: &'a [Host],
    range: CapRange,
    /// Per dimension, the least of the shapes the inflation draws.
    least: [f64; DIMS],
    /// Used capacity per host, `(cores, memory GB, GPUs)`.
    used: Vec<[f64; DIMS]>,
    /// Every host that [`fits`] `least`, by ([`slack`] of `used`, host id).
    order: BTreeSet<SlackKey>,
}

impl<'a> Inflation<'a> {
    /// The pool as it is (`range`: the capacity range of `hosts`), for `shapes`.
    fn new(hosts: &'a [Host], range: CapRange, shapes: &[[f64; DIMS]]) -> Inflation<'a> {
        let mut least = [f64::INFINITY; DIMS];
        for sh in shapes {
            for (l, &x) in least.iter_mut().zip(sh) {
                *l = l.min(x);
            }
        }
        let used: Vec<[f64; DIMS]> = hosts.iter().map(|h| h.used).collect();
        let order = used
            .iter()
            .zip(hosts)
            .enumerate()
            .filter(|(_, (u, host))| fits(u, &host.cap, &least))
            .map(|(h, (u, host))| key(u, &host.cap, h))
            .collect();
        Inflation {
            hosts,
            range,
            least,
            used,
            order,
        }
    }

    /// Best fit of `shape`: the host of least slack it [`fits`], the lowest id of equal slack (what a scan of
    /// every host in id order keeping the first strictly smaller slack chooses); `None` when it fits none.
    fn best_fit(&self, shape: &[f64; DIMS]) -> Option<usize> {
        let from = SlackKey(self.range.slack_floor(shape), 0);
        self.order
            .range(from..)
            .map(|k| k.1 as usize)
            .find(|&h| fits(&self.used[h], &self.hosts[h].cap, shape))
    }

    /// Places `shape` on host `h`.
    fn place(&mut self, h: usize, shape: &[f64; DIMS]) {
        let cap = &self.hosts[h].cap;
        self.order.remove(&key(&self.used[h], cap, h));
        for (x, sh) in self.used[h].iter_mut().zip(shape) {
            *x += sh;
        }
        if fits(&self.used[h], cap, &self.least) {
            self.order.insert(key(&self.used[h], cap, h));
        }
    }

    /// Free capacity of dimension `r` over all hosts (summed in host order) / `total`.
    fn free(&self, r: usize, total: f64) -> f64 {
        self.used
            .iter()
            .zip(self.hosts)
            .map(|(u, h)| h.cap[r] - u[r])
            .sum::<f64>()
            / total
    }
}

/// Host `h`'s key in the inflation's slack order; `+ 0.0` makes a slack of −0 (an empty sum: a host without
/// capacity) +0, so that the key's total order ranks equal slacks as `<` does: by host id alone.
fn key(used: &[f64; DIMS], cap: &[f64; DIMS], h: usize) -> SlackKey {
    SlackKey(slack(used, cap) + 0.0, h as u32)
}

impl Acc {
    /// Empty sums; `diagnostics`: whether the samples keep the diagnostics' host classes.
    pub fn new(diagnostics: bool) -> Acc {
        Acc {
            diagnostics,
            ..Acc::default()
        }
    }

    /// Keeps an arrival's shape among the last [`INFLATION_RECENT`] (shapes without cores and memory are
    /// skipped).
    pub fn note_shape(&mut self, shape: [f64; DIMS]) {
        if shape[0] > 0.0 || shape[1] > 0.0 {
            if self.recent.len() < INFLATION_RECENT {
                self.recent.push(shape);
            } else {
                self.recent[self.recent_next] = shape;
            }
            self.recent_next = (self.recent_next + 1) % INFLATION_RECENT;
        }
    }

    /// Counts a measured arrival's placement on `host` (before it is placed) for [`Diagnostics`]: `long` is
    /// LA-Binary's class of the VM, `key` the chosen host's `(tier, sub-tier, temporal cost)` under `rule`.
    pub fn count_placement(
        &mut self,
        host: &Host,
        long: bool,
        key: (u8, u8, u8),
        rule: &dyn PlacementRule,
        s: &PoolState,
        now: f64,
    ) {
        let empty = host.is_empty();
        self.measured_arrivals += 1;
        self.long_arrivals += long as u64;
        let d = &mut self.diag;
        d.placements += 1;
        d.by_tier[rule.diag_tier(key, empty)] += 1;
        if !empty && host_is_long(host, s.jobs, s.r0, now) != long {
            if long {
                d.long_on_short += 1;
            } else {
                d.short_on_long += 1;
            }
        }
        self.cost_sum += key.2 as u64;
        d.zero_cost += (key.2 == 0) as u64 as f64;
    }

    /// Appends every host's [`Timeline`] code as the row of `hour`.
    fn record_timeline(&mut self, s: &PoolState, hour: usize) {
        let tl = &mut self.timeline;
        tl.hosts = s.hosts.len();
        tl.hours.push(hour as u32);
        for host in s.hosts {
            tl.codes.push(if host.vms.is_empty() {
                if host.ghosts.is_empty() {
                    TL_EMPTY
                } else {
                    TL_MIGRATING
                }
            } else if s.host_states {
                match host.state {
                    State::Recycling => TL_RECYCLING + host.class,
                    _ => host.class,
                }
            } else {
                host.vms
                    .iter()
                    .map(|&v| s.class[v as usize])
                    .max()
                    .unwrap_or(1)
            });
        }
    }

    /// The metric sample at `now` (the per-hour series and timeline from time 0, the averages after the
    /// warm-up).
    pub fn sample(&mut self, s: &PoolState, now: f64) {
        let n = s.hosts.len() as f64;
        let total = s.total;
        let Totals {
            empty,
            empty_cores,
            free,
            alloc_nonempty,
            cores_nonempty,
            opt,
        } = match s.sums {
            Some(o) => o.totals(),
            None => Totals::walk(s),
        };
        let frac = empty as f64 / n;
        let hour = now.floor().max(0.0) as usize;
        if self.series.len() <= hour {
            self.record_timeline(s, hour);
        }
        if self.series.len() <= hour {
            self.series.resize(hour + 1, (0.0, 0));
        }
        self.series[hour].0 += frac;
        self.series[hour].1 += 1;
        if now < s.warmup_h {
            return;
        }
        self.samples += 1;
        self.empty += frac;
        if free[0] > EPS {
            self.e2f += empty_cores / free[0];
            self.e2f_n += 1;
        }
        if cores_nonempty > 0.0 {
            self.density += alloc_nonempty / cores_nonempty;
            self.density_n += 1;
        }
        self.alloc += 1.0 - free[0] / total[0];
        self.opt += opt as f64 / n;
        if !self.diagnostics {
            return; // the host classes below are read only by the diagnostics (a walk over every VM)
        }
        let (mut long, mut short, mut recycling) = (0usize, 0usize, 0usize);
        for host in s.hosts {
            if !host.vms.is_empty() {
                if host_is_long(host, s.jobs, s.r0, now) {
                    long += 1;
                } else {
                    short += 1;
                }
            }
            recycling += (host.state == State::Recycling) as usize;
        }
        self.diag.long_hosts += long as f64 / n;
        self.diag.short_hosts += short as f64 / n;
        self.diag.recycling_hosts += recycling as f64 / n;
    }

    /// Inflation (ALGORITHMS.md §5.8): best-fit placements of shapes drawn from the recent arrivals until
    /// [`INFLATION_FAILURES`] consecutive failures; the free capacity left is stranded. Draws from stream
    /// `(seed, COMP_INFLATION, sample index)`.
    pub fn strand(&mut self, s: &PoolState, seed: u64, now: f64) {
        if now < s.warmup_h || self.recent.is_empty() {
            return;
        }
        let mut pool = Inflation::new(s.hosts, s.cap_range, &self.recent);
        let mut rng = stream(seed, COMP_INFLATION, self.strand_n as u64);
        // the recent shapes no host can take any more: the inflation only adds to the hosts' used capacity, so
        // a shape that fits nowhere never will, nor will any shape at least as large in every dimension
        let mut hopeless = vec![false; self.recent.len()];
        let mut fails = 0;
        let mut draws = 0usize;
        let limit = 1000 * s.hosts.len() + 10_000;
        while fails < INFLATION_FAILURES && draws < limit {
            draws += 1;
            let i = rng.random_range(0..self.recent.len());
            if hopeless[i] {
                fails += 1;
                continue;
            }
            let shape = self.recent[i];
            match pool.best_fit(&shape) {
                Some(h) => {
                    fails = 0;
                    pool.place(h, &shape);
                }
                None => {
                    fails += 1;
                    for (k, r) in self.recent.iter().enumerate() {
                        hopeless[k] |= (0..DIMS).all(|d| r[d] >= shape[d]);
                    }
                }
            }
        }
        self.strand_cpu += pool.free(0, s.total[0]);
        self.strand_mem += if s.total[1] > 0.0 {
            pool.free(1, s.total[1])
        } else {
            0.0
        };
        self.strand_n += 1;
    }

    /// The result of `policy` from these sums: `long` is LA-Binary's one-shot class per job, `end` and
    /// `warmup_h` the run's window (hours), `mig` the migration executor, `events` the events handled;
    /// diagnostics only when `diagnostics`.
    #[allow(clippy::too_many_arguments)]
    pub fn into_result(
        mut self,
        policy: Policy,
        diagnostics: bool,
        jobs: &[Job],
        long: &[bool],
        end: f64,
        warmup_h: f64,
        mig: &Migrations,
        events: u64,
    ) -> PolicyResult {
        let timeline = std::mem::take(&mut self.timeline);
        let a = &self;
        let avg = |s: f64, n: usize| if n == 0 { 0.0 } else { s / n as f64 };
        let diagnostics = diagnostics.then(|| {
            let d = &a.diag;
            let m = a.measured_arrivals as usize;
            // core-hours over the measured window of every job, and of the jobs predicted long
            let (mut all, mut long_h) = (0.0, 0.0);
            for (j, job) in jobs.iter().enumerate() {
                let h = (job.exit.min(end) - job.start.max(warmup_h)).max(0.0) * job.shape[0];
                all += h;
                if long[j] {
                    long_h += h;
                }
            }
            Diagnostics {
                long_vms: avg(a.long_arrivals as f64, m),
                long_core_hours: if all > 0.0 { long_h / all } else { 0.0 },
                long_hosts: avg(d.long_hosts, a.samples),
                short_hosts: avg(d.short_hosts, a.samples),
                mean_temporal_cost: avg(a.cost_sum as f64, m),
                zero_cost: avg(d.zero_cost, m),
                recycling_hosts: avg(d.recycling_hosts, a.samples),
                ..d.clone()
            }
        });
        PolicyResult {
            policy,
            empty_hosts: avg(a.empty, a.samples),
            empty_hosts_pp_vs_best_fit: 0.0,
            empty_to_free: avg(a.e2f, a.e2f_n),
            packing_density: avg(a.density, a.density_n),
            allocation: avg(a.alloc, a.samples),
            stranded_cpu: avg(a.strand_cpu, a.strand_n),
            stranded_mem: avg(a.strand_mem, a.strand_n),
            migrations: mig.started,
            migrations_saved: mig.saved,
            migration_failures: mig.failed,
            drained_hosts: mig.drained,
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
            error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::substrate::des::Des;

    /// Stranding by inflation (ALGORITHMS.md §5.8) on a pool worked by hand. Three hosts of 8 cores / 32 GB
    /// (total 24 cores, 96 GB), used (6, 8), (3, 30) and (0, 0); the only recent shape is (2 cores, 8 GB).
    /// Best fit by slack Σ_r (cap_r − used_r)/cap_r: host 0 (slack 2/8 + 24/32 = 1.0) and host 2 (2.0) fit, host 1
    /// (30 + 8 > 32 GB) does not, so host 0 takes one (→ 8, 16) and is full in cores; host 2 then takes four
    /// (→ 8, 32); nothing fits any more and 100 draws fail. Free after inflation: cores 0 + 5 + 0 = 5 of 24,
    /// memory 16 + 2 + 0 = 18 of 96: stranded CPU 5/24 = 0.2083, memory 18/96 = 0.1875.
    #[test]
    fn inflation_strands_what_no_recent_shape_fits() {
        let mut des = Des::<()>::new();
        let mut hosts: Vec<Host> = (0..3)
            .map(|_| Host::new([8.0, 32.0, 0.0], des.new_key()))
            .collect();
        hosts[0].used = [6.0, 8.0, 0.0];
        hosts[1].used = [3.0, 30.0, 0.0];
        let s = PoolState {
            hosts: &hosts,
            jobs: &[],
            r0: &[],
            class: &[],
            total: [24.0, 96.0, 0.0],
            by_size: &[0, 1, 2],
            cap_range: CapRange::of(&[[8.0, 32.0, 0.0]]),
            host_states: false,
            warmup_h: 10.0,
            sums: None,
        };
        let mut acc = Acc::default();
        // no recent shape yet: no sample
        acc.strand(&s, 1, 12.0);
        assert_eq!(acc.strand_n, 0);
        acc.note_shape([2.0, 8.0, 0.0]);
        // inside the warm-up: no sample
        acc.strand(&s, 1, 9.0);
        assert_eq!(acc.strand_n, 0);
        // two samples of the same pool (the inflation works on a copy: the pool is left as it was)
        acc.strand(&s, 1, 12.0);
        acc.strand(&s, 1, 18.0);
        assert_eq!(acc.strand_n, 2);
        assert_eq!(hosts[2].used, [0.0; DIMS]);
        assert!(
            (acc.strand_cpu / 2.0 - 5.0 / 24.0).abs() < 1e-12,
            "{}",
            acc.strand_cpu
        );
        assert!(
            (acc.strand_mem / 2.0 - 18.0 / 96.0).abs() < 1e-12,
            "{}",
            acc.strand_mem
        );
    }

    /// Best fit as the inflation was first written (ALGORITHMS.md §5.8): a scan of every host in id order that
    /// keeps the first strictly smaller slack.
    fn best_fit_scan(used: &[[f64; DIMS]], hosts: &[Host], shape: &[f64; DIMS]) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (h, u) in used.iter().enumerate() {
            let cap = &hosts[h].cap;
            if fits(u, cap, shape) {
                let sl = slack(u, cap);
                if best.is_none_or(|b| sl < b.0) {
                    best = Some((sl, h));
                }
            }
        }
        best.map(|b| b.1)
    }

    /// A pool for the property tests: capacities from three host types (one without GPUs), used capacity on a
    /// grid of eighths (equal slacks, exact fits), from `(type, eighths per dimension)` per host.
    fn grid_pool(spec: &[(usize, [u8; DIMS])]) -> Vec<Host> {
        let types = [[32.0, 128.0, 0.0], [64.0, 256.0, 4.0], [48.0, 384.0, 8.0]];
        let mut des = Des::<()>::new();
        spec.iter()
            .map(|&(t, e)| {
                let mut host = Host::new(types[t], des.new_key());
                host.used = [0, 1, 2].map(|r| types[t][r] * e[r] as f64 / 8.0);
                host
            })
            .collect()
    }

    fn grid_shape(s: (u8, u8, u8)) -> [f64; DIMS] {
        [s.0 as f64, 4.0 * s.1 as f64, s.2 as f64]
    }

    /// A host without capacity has slack −0 (an empty sum); a full host, +0. A shape of 10⁻¹⁰ cores fits both
    /// (within [`EPS`]): the scan keeps the first of equal slack (host 0), and so must the index.
    #[test]
    fn equal_zero_slacks_go_to_the_lowest_host_id() {
        let mut des = Des::<()>::new();
        let mut hosts = vec![
            Host::new([8.0, 32.0, 0.0], des.new_key()),
            Host::new([0.0; DIMS], des.new_key()),
        ];
        hosts[0].used = [8.0, 32.0, 0.0];
        let shape = [1e-10, 0.0, 0.0];
        let pool = Inflation::new(
            &hosts,
            CapRange::of(&[hosts[0].cap, hosts[1].cap]),
            &[shape],
        );
        assert!(slack(&pool.used[1], &hosts[1].cap).is_sign_negative());
        assert_eq!(best_fit_scan(&pool.used, &hosts, &shape), Some(0));
        assert_eq!(pool.best_fit(&shape), Some(0));
    }

    /// Capacities and shapes that are not multiples of 2⁻²⁰ (0.1 GB), negative or too large get no counters
    /// (the samples walk the hosts); quarters of a GB and a 0 GPU dimension do.
    #[test]
    fn occupancy_counts_only_exact_numbers() {
        let caps = [[8.0, 31.75, 0.0], [16.0, 64.0, 2.0]];
        let ok = [[1.0, 0.25, 0.0]];
        assert!(Occupancy::new(&caps, ok.iter(), &[0, 1]).is_some());
        for bad in [[1.0, 0.1, 0.0], [-1.0, 1.0, 0.0], [1.0, 1e300, 0.0]] {
            assert!(
                Occupancy::new(&caps, [ok[0], bad].iter(), &[0, 1]).is_none(),
                "{bad:?}"
            );
        }
        assert!(Occupancy::new(&[[8.0, 0.1, 0.0]], ok.iter(), &[0]).is_none());
        // a dimension's total capacity of 2⁵² units (2³² cores)
        let big = [[(1u64 << 31) as f64, 1.0, 0.0]; 2];
        assert!(Occupancy::new(&big, ok.iter(), &[0, 1]).is_none());
        assert!(Occupancy::new(&big[..1], ok.iter(), &[0]).is_some());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// The inflation's indexed best fit (issue 30) chooses the scan's host, ties included, along a sequence
        /// of placements on a random tie-heavy pool.
        #[test]
        fn indexed_best_fit_equals_the_scan(
            spec in proptest::collection::vec((0usize..3, [0u8..=8, 0u8..=8, 0u8..=8]), 1..40),
            shapes in proptest::collection::vec((0u8..17, 0u8..17, 0u8..3), 1..120),
        ) {
            let hosts = grid_pool(&spec);
            let caps: Vec<[f64; DIMS]> = hosts.iter().map(|h| h.cap).collect();
            let shapes: Vec<[f64; DIMS]> = shapes.into_iter().map(grid_shape).collect();
            let mut pool = Inflation::new(&hosts, CapRange::of(&caps), &shapes);
            for shape in shapes {
                let h = pool.best_fit(&shape);
                proptest::prop_assert_eq!(h, best_fit_scan(&pool.used, &hosts, &shape));
                if let Some(h) = h {
                    pool.place(h, &shape);
                }
            }
        }

        /// The occupancy counters (issue 30) give the totals of the walk over every host, bit for bit (free
        /// capacity, empty hosts and their cores, allocation of the non-empty hosts, the optimum), along random
        /// changes of hosts' used capacity and emptiness on a pool of three host types with fractional memory:
        /// used capacity in sixteenths of a core or GB (an empty host holds only ghosts of nothing: used 0).
        #[test]
        fn occupancy_counters_equal_the_walk(
            types in proptest::collection::vec(0usize..3, 1..30),
            changes in proptest::collection::vec((0usize..30, [0u8..=16, 0u8..=16, 0u8..=16], 0u8..4), 0..200),
        ) {
            let kinds = [[32.0, 127.75, 0.0], [64.0, 256.0, 4.0], [8.0, 0.0, 0.0]];
            let mut des = Des::<()>::new();
            let mut hosts: Vec<Host> = types.iter().map(|&t| Host::new(kinds[t], des.new_key())).collect();
            let caps: Vec<[f64; DIMS]> = hosts.iter().map(|h| h.cap).collect();
            let (order, total) = hosts_by_size(&caps);
            let mut sums = Occupancy::new(&caps, [[0.0625, 0.0625, 1.0]].iter(), &order).unwrap();
            let check = |hosts: &[Host], sums: &Occupancy| {
                let s = PoolState {
                    hosts,
                    jobs: &[],
                    r0: &[],
                    class: &[],
                    total,
                    by_size: &order,
                    cap_range: CapRange::of(&caps),
                    host_states: false,
                    warmup_h: 0.0,
                    sums: None,
                };
                let (a, b) = (sums.totals(), Totals::walk(&s));
                let bits = |t: &Totals| {
                    let mut v: Vec<u64> = t.free.iter().map(|x| x.to_bits()).collect();
                    v.extend([t.empty_cores, t.alloc_nonempty, t.cores_nonempty].map(f64::to_bits));
                    v.extend([t.empty as u64, t.opt as u64]);
                    v
                };
                proptest::prop_assert_eq!(bits(&a), bits(&b));
                Ok(())
            };
            check(&hosts, &sums)?;
            for (h, sixteenths, what) in changes {
                let h = h % hosts.len();
                let host = &mut hosts[h];
                // used capacity: a fraction of the capacity in sixteenths, rounded down to a sixteenth unit
                host.used = [0, 1, 2].map(|r| (host.cap[r] * sixteenths[r] as f64 / 16.0 * 16.0).floor() / 16.0);
                host.vms.clear();
                host.ghosts.clear();
                match what {
                    0 => host.used = [0.0; DIMS], // emptied
                    1 => host.ghosts.push(0),     // only a migrating VM's reservation
                    _ => host.vms.push(0),
                }
                let empty = host.is_empty();
                sums.set(h, &host.used, empty);
                check(&hosts, &sums)?;
            }
        }

        /// A whole stranding sample (indexed best fit, hopeless shapes skipped) gives the bits of the inflation
        /// as first written: the same draws, the same placements, the same free capacity.
        #[test]
        fn stranding_equals_the_scanned_inflation(
            spec in proptest::collection::vec((0usize..3, [0u8..=8, 0u8..=8, 0u8..=8]), 1..30),
            recent in proptest::collection::vec((0u8..17, 0u8..17, 0u8..3), 1..40),
            seed in 0u64..1000,
        ) {
            let hosts = grid_pool(&spec);
            let caps: Vec<[f64; DIMS]> = hosts.iter().map(|h| h.cap).collect();
            let mut total = [0.0; DIMS];
            for c in &caps {
                for r in 0..DIMS {
                    total[r] += c[r];
                }
            }
            let s = PoolState {
                hosts: &hosts,
                jobs: &[],
                r0: &[],
                class: &[],
                total,
                by_size: &[],
                cap_range: CapRange::of(&caps),
                host_states: false,
                warmup_h: 0.0,
                sums: None,
            };
            let mut acc = Acc::default();
            for &r in &recent {
                acc.note_shape(grid_shape(r));
            }
            if acc.recent.is_empty() {
                return Ok(());
            }
            acc.strand(&s, seed, 1.0);
            // the inflation as first written
            let mut used: Vec<[f64; DIMS]> = hosts.iter().map(|h| h.used).collect();
            let mut rng = stream(seed, COMP_INFLATION, 0);
            let (mut fails, mut draws) = (0, 0usize);
            while fails < INFLATION_FAILURES && draws < 1000 * hosts.len() + 10_000 {
                draws += 1;
                let shape = acc.recent[rng.random_range(0..acc.recent.len())];
                match best_fit_scan(&used, &hosts, &shape) {
                    Some(h) => {
                        fails = 0;
                        for (x, sh) in used[h].iter_mut().zip(shape) {
                            *x += sh;
                        }
                    }
                    None => fails += 1,
                }
            }
            let free = |r: usize| {
                used.iter().zip(&hosts).map(|(u, h)| h.cap[r] - u[r]).sum::<f64>() / total[r]
            };
            proptest::prop_assert_eq!(acc.strand_cpu.to_bits(), free(0).to_bits());
            proptest::prop_assert_eq!(acc.strand_mem.to_bits(), free(1).to_bits());
        }
    }
}
