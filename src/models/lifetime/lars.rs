//! The defragmentation of §5.6 (seed 003 §4.4, §6.3, App. H; ALGORITHMS.md §5.6): which hosts a check
//! drains (the 5%-empty-hosts rule, maintenance waves, or a replayed list), the order a drain's VMs are
//! migrated in (start time, LARS, random), the pool's migration queue, and the replay of one run's drains
//! under another order on that run's trajectory.

use super::host::{slack, Host};
use super::pool::Job;
use super::predictor::LifetimePredictor;
use serde::{Deserialize, Serialize};

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

/// The pool's migration executor state: one FIFO queue of `(job, source host)`, the migrations running, the
/// hosts draining, the drains as they happened, and the counts.
#[derive(Default)]
pub struct Migrations {
    /// Queued migrations `(job, source host)`.
    pub queue: std::collections::VecDeque<(u32, u32)>,
    /// Migrations running (at most [`MIGRATION_CONCURRENCY`]).
    pub active: usize,
    /// Hosts draining now.
    pub draining: usize,
    /// Every drain, in the order they happened.
    pub record: Vec<DrainRecord>,
    /// Migrations started.
    pub started: u64,
    /// Queued migrations dropped because the VM left its source first.
    pub saved: u64,
    /// Migrations without a target.
    pub failed: u64,
    /// Hosts drained.
    pub drained: u64,
}

impl Migrations {
    /// The hosts the `k`-th check drains (§5.6): the drains recorded at check `k` of an earlier run when
    /// replaying; with maintenance, the fullest hosts not yet maintained; else, when fewer than
    /// [`DEFRAG_THRESHOLD`] of the hosts are empty, up to [`DEFRAG_CANDIDATES`] non-empty hosts, fewest VMs
    /// first, then most free capacity.
    pub fn candidates(&self, d: &Defrag, hosts: &[Host], k: u64) -> Vec<usize> {
        match &d.replay {
            Some(list) => {
                let from = list.partition_point(|&(c, _)| c < k);
                list[from..]
                    .iter()
                    .take_while(|&&(c, _)| c == k)
                    .map(|&(_, h)| h as usize)
                    .filter(|&h| h < hosts.len())
                    .collect()
            }
            None if d.maintenance => {
                let mut c: Vec<usize> = (0..hosts.len())
                    .filter(|&h| {
                        let host = &hosts[h];
                        !host.draining && !host.maintained && !host.vms.is_empty()
                    })
                    .collect();
                c.sort_by(|&a, &b| {
                    let (ha, hb) = (&hosts[a], &hosts[b]);
                    hb.vms
                        .len()
                        .cmp(&ha.vms.len())
                        .then(ha.slack.total_cmp(&hb.slack))
                        .then(a.cmp(&b))
                });
                c.truncate(DEFRAG_CANDIDATES.saturating_sub(self.draining));
                c
            }
            None => {
                let n = hosts.len();
                let empty = hosts.iter().filter(|h| h.is_empty()).count();
                if empty as f64 >= DEFRAG_THRESHOLD * n as f64 || self.draining >= DEFRAG_CANDIDATES
                {
                    Vec::new()
                } else {
                    let free = |h: &Host| -> f64 { slack(&h.used, &h.cap) };
                    let mut c: Vec<usize> = (0..n)
                        .filter(|&h| !hosts[h].draining && !hosts[h].vms.is_empty())
                        .collect();
                    c.sort_by(|&a, &b| {
                        let (ha, hb) = (&hosts[a], &hosts[b]);
                        ha.vms
                            .len()
                            .cmp(&hb.vms.len())
                            .then(free(hb).total_cmp(&free(ha)))
                            .then(a.cmp(&b))
                    });
                    c.truncate(DEFRAG_CANDIDATES - self.draining);
                    c
                }
            }
        }
    }

    /// Starts draining host `h` at check `k`, time `now`: records the drain and queues its VMs in `order`
    /// (a host already draining or empty is skipped).
    #[allow(clippy::too_many_arguments)]
    pub fn drain(
        &mut self,
        host: &mut Host,
        h: usize,
        k: u64,
        now: f64,
        order: MigrationOrder,
        jobs: &[Job],
        pred: &dyn LifetimePredictor,
    ) {
        if host.draining || host.vms.is_empty() {
            return;
        }
        host.draining = true;
        host.maintained = true;
        self.draining += 1;
        self.drained += 1;
        let mut vms = host.vms.clone();
        vms.sort_unstable();
        let queued = drain_order(&vms, order, jobs, pred, now);
        self.record.push(DrainRecord {
            check: k,
            time: now,
            host: h as u32,
            vms,
            abandoned_at: None,
        });
        self.queue.extend(queued.into_iter().map(|j| (j, h as u32)));
    }

    /// VM `j` of the drain of host `src` found no target at `now`: the drain is abandoned (its queued VMs
    /// dropped, the host schedulable again).
    pub fn abandon(&mut self, src_host: &mut Host, src: usize, j: usize, now: f64) {
        self.failed += 1;
        if let Some(d) = self
            .record
            .iter_mut()
            .rev()
            .find(|d| d.host as usize == src)
        {
            d.abandoned_at = Some((now, j as u32));
        }
        self.queue.retain(|&(_, s)| s as usize != src);
        if src_host.draining {
            src_host.draining = false;
            self.draining -= 1;
        }
    }

    /// Host `h` stops draining once its VMs and ghosts are gone.
    pub fn check_drained(&mut self, host: &mut Host) {
        if host.draining && host.is_empty() {
            host.draining = false;
            self.draining -= 1;
        }
    }
}
