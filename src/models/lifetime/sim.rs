//! The event-driven pool (seed 003 §2, §5.1, App. F; ALGORITHMS.md §5.1) on the shared DES kernel: VMs
//! arrive, are placed by the run's policy ([`super::policies`]), exit, and migrate away from drained hosts
//! ([`super::lars`]); the metrics of §5.8 are sampled by [`super::sampling`].
//!
//! Times are hours. Events: VM arrival, VM exit, LAVA host deadline, migration done; metric samples (every
//! [`SimConfig::sample_h`]), stranding samples (every [`SimConfig::stranding_h`]) and defragmentation checks
//! (every [`DEFRAG_PERIOD_H`]) run between events. A VM no host can take is a scheduling failure (counted,
//! never placed). Metrics are averaged over the samples after the warm-up.

use super::host::{fits, slack, used_of, CapRange, Host, SlackKey, NONE};
use super::lars::{
    Defrag, DrainRecord, Migrations, DEFRAG_PERIOD_H, MIGRATION_CONCURRENCY, MIGRATION_H,
};
use super::params::{Ablation, LavaRules, Policy, Scorer};
use super::policies::la_binary::{self, is_long, LA_BINARY_CUTOFF_H};
use super::policies::lava::{self, class_upper_bound, lifetime_class, LAVA_DEADLINE_FACTOR};
use super::policies::nilas::{host_exit_of, temporal_cost_on};
use super::policies::script::ScriptScore;
use super::policies::{
    resolve, DeadlineAction, GroupScan, HostChange, PlacementRule, PoolView, VmNow,
};
use super::pool::{Job, DIMS};
use super::predictor::LifetimePredictor;
use super::sampling::{hosts_by_size, Acc, Occupancy, PolicyResult, PoolState};
use super::tiers::TierIndex;
use crate::substrate::des::{Des, World};

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
    /// The ablation knobs (the baseline scorer's order, NILAS's cost scale, LAVA's deadline moves); the default
    /// is the model as specified.
    pub ablation: Ablation,
    /// The compiled host score of a `script:NAME` policy ([`ScriptScore`]; `None` for the built-ins).
    pub script: Option<std::sync::Arc<crate::script::Script>>,
}
#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive(u32),
    Exit(u32),
    Deadline(u32),
    MigrationDone(u32, u32),
}

struct Pool<'a> {
    jobs: &'a [Job],
    pred: &'a dyn LifetimePredictor,
    cfg: &'a SimConfig,
    /// The run's policy (LAVA's host states follow it even for the baseline's best-fit arrivals).
    rule: &'static dyn PlacementRule,
    hosts: Vec<Host>,
    on: Vec<u32>,
    class: Vec<u8>,
    res_epoch: Vec<u32>,
    /// `R̂_j(0)`, hours: the estimate at uptime 0, `L̂` (LAVA's first class, LA-Binary's one-shot `L̂`).
    r0: Vec<f64>,
    long: Vec<bool>,
    placed: Vec<u32>,
    acc: Acc,
    mig: Migrations,
    /// Every host by (slack, id).
    order: std::collections::BTreeSet<SlackKey>,
    /// The hosts' capacity range: best fit's scan starts at [`CapRange::slack_floor`].
    cap_range: CapRange,
    /// Arrivals fed to the kernel one at a time (each when the one before fires), under the sequence numbers
    /// reserved for them at the start (the same order of events as scheduling them all at once): the jobs,
    /// the first reserved number, and the next to schedule.
    feed: (Vec<u32>, u64, usize),
    /// Total capacity per dimension.
    total: [f64; DIMS],
    /// Hosts by size (Σ_r cap_r / total_r) ascending, for the optimum of empty hosts.
    by_size: Vec<usize>,
    /// A `script:NAME` policy's host score (the rule is then best fit's).
    script: Option<ScriptScore>,
    /// LA-Binary's and LAVA's hosts by group ([`PlacementRule::group`]), kept when the rule has groups (and
    /// not under LAVA's cost-first ablation); `None`: every choice scans the slack order.
    tiers: Option<TierIndex>,
    /// The occupancy totals the metric samples read, kept at every change of a host's used capacity
    /// ([`Occupancy`]; `None`: every sample walks the hosts).
    sums: Option<Occupancy>,
}

impl<'a> Pool<'a> {
    /// The metric sums and the pool as the samplers read it (disjoint borrows).
    fn acc_and_state(&mut self) -> (&mut Acc, PoolState<'_>) {
        let Pool {
            acc,
            hosts,
            jobs,
            r0,
            class,
            total,
            by_size,
            rule,
            cfg,
            cap_range,
            sums,
            ..
        } = self;
        let state = PoolState {
            hosts,
            jobs,
            r0,
            class,
            total: *total,
            by_size,
            cap_range: *cap_range,
            host_states: rule.host_states(),
            warmup_h: cfg.warmup_h,
            sums: sums.as_ref(),
        };
        (acc, state)
    }

    /// The host for job `j` under `rule`, or `None` (a scheduling failure): the least key
    /// `(tier, sub-tier, temporal cost, slack, host)` among the schedulable hosts it fits. Hosts are visited in
    /// slack order, so the scan stops at the first host whose (tier, sub-tier, cost) is the least possible,
    /// and of the empty hosts (all alike) only the first is scored.
    /// `u` is the VM's uptime, hours: 0 for an arrival; for a migration its age, so that NILAS's exit, LAVA's
    /// class (`class[j]`, repredicted by the caller) and LA-Binary's class (`L̂ − u > 2 h`) are the VM's now.
    /// Returns the chosen host's key `(tier, sub-tier, temporal cost)` with it. LA-Binary and LAVA (outside
    /// the cost-first ablation) take the same host over their groups ([`Pool::choose_grouped`]).
    fn choose(
        &mut self,
        j: usize,
        now: f64,
        rule: &dyn PlacementRule,
        u: f64,
    ) -> Option<((u8, u8, u8), usize)> {
        let shape = self.jobs[j].shape;
        let temporal = rule.temporal();
        let vm_exit = if temporal {
            now + self.pred.remaining(j, u)
        } else {
            0.0
        };
        let vm = VmNow {
            class: self.class[j],
            long: if u > 0.0 {
                is_long(self.r0[j], u)
            } else {
                self.long[j]
            },
        };
        // the ablation that ranks NILAS's temporal cost ahead of LAVA's tiers: `rank` orders the keys
        let cost_first = rule.host_states() && self.cfg.ablation.lava_rules == LavaRules::CostFirst;
        let rank = |(t, s, c): (u8, u8, u8)| if cost_first { (c, t, s) } else { (t, s, c) };
        let least = rule.least(&vm);
        if self.tiers.is_some() && !cost_first {
            if let grouped @ (Policy::LaBinary | Policy::Lava) = rule.policy() {
                return self.choose_grouped(grouped, &shape, &vm, vm_exit, now);
            }
        }
        let Pool {
            order,
            hosts,
            jobs,
            pred,
            cfg,
            r0,
            cap_range,
            ..
        } = self;
        let view = PoolView { jobs, r0, now };
        let mut best: Option<((u8, u8, u8), usize)> = None;
        let mut seen_empty = false;
        // in slack order the hosts below the floor cannot take the VM: skipped as the loop would skip them
        let from = match cfg.ablation.scorer {
            Scorer::BestFit => cap_range.slack_floor(&shape),
            _ => f64::NEG_INFINITY,
        };
        for &SlackKey(_, h) in order.range(SlackKey(from, 0)..) {
            let h = h as usize;
            let host = &mut hosts[h];
            if host.draining || !fits(&host.used, &host.cap, &shape) {
                continue;
            }
            let empty = host.is_empty();
            if empty {
                if seen_empty {
                    continue;
                }
                seen_empty = true;
            }
            let (tier, sub) = rule.tier(host, empty, &vm, &view);
            if let Some((b, _)) = best {
                // a later host has no less slack: it must be strictly better in (tier, sub, cost)
                if !cost_first && ((tier, sub) > (b.0, b.1) || (tier, sub, 0) >= b) {
                    continue;
                }
            }
            let cost = if temporal {
                let he = host_exit_of(host, jobs, *pred, cfg.refresh_h, now);
                temporal_cost_on(cfg.ablation.nilas_cost, (vm_exit - he).max(0.0))
            } else {
                0
            };
            let key = (tier, sub, cost);
            if best.is_none_or(|(b, _)| rank(key) < rank(b)) {
                best = Some((key, h));
                if rank(key) == rank(least) {
                    break;
                }
            }
        }
        best
    }

    /// Where best fit's scan starts in the slack order (see [`CapRange::slack_floor`]).
    fn floor(&self, shape: &[f64; DIMS]) -> f64 {
        match self.cfg.ablation.scorer {
            Scorer::BestFit => self.cap_range.slack_floor(shape),
            _ => f64::NEG_INFINITY,
        }
    }

    /// [`Pool::choose`] over the run's host groups (LA-Binary's or LAVA's, [`TierIndex`]): the same host, by
    /// [`la_binary::choose_grouped`] or [`lava::choose_grouped`] with NILAS's temporal cost of a host computed
    /// here (its host-exit cache is part of the run's state). `None` also when the run keeps no groups.
    fn choose_grouped(
        &mut self,
        policy: Policy,
        shape: &[f64; DIMS],
        vm: &VmNow,
        vm_exit: f64,
        now: f64,
    ) -> Option<((u8, u8, u8), usize)> {
        let from = self.floor(shape);
        let Pool {
            order,
            hosts,
            jobs,
            pred,
            cfg,
            r0,
            tiers,
            rule,
            ..
        } = self;
        let tiers = tiers.as_mut()?;
        let scan = GroupScan {
            hosts,
            view: PoolView { jobs, r0, now },
            shape,
            vm,
            from,
        };
        if policy == Policy::LaBinary {
            return la_binary::choose_grouped(scan, tiers);
        }
        let cost = |host: &mut Host| {
            let he = host_exit_of(host, jobs, *pred, cfg.refresh_h, now);
            temporal_cost_on(cfg.ablation.nilas_cost, (vm_exit - he).max(0.0))
        };
        lava::choose_grouped(scan, tiers, order, *rule, cost)
    }

    /// The host for job `j` of the run's policy (`baseline`: one of App. F's alive VMs, placed by best fit):
    /// a script's choice ([`Pool::choose_scripted`]) while it runs, else [`Pool::choose`] under the rule.
    fn choose_for(
        &mut self,
        j: usize,
        now: f64,
        baseline: bool,
        u: f64,
    ) -> Option<((u8, u8, u8), usize)> {
        if baseline {
            return self.choose(j, now, resolve(&Policy::BestFit), u);
        }
        if self.script.as_ref().is_some_and(|s| s.run.ok()) {
            match self.choose_scripted(j, now, u) {
                Ok(c) => return c,
                Err(e) => {
                    // the rest of the run is placed by best fit; the row carries the error
                    if let Some(s) = &self.script {
                        s.run.fail(e);
                    }
                }
            }
        }
        self.choose(j, now, self.rule, u)
    }

    /// The host for job `j` under the run's script ([`super::policies::script`]): the least score among the
    /// schedulable hosts it fits, visited in slack order (of the empty hosts only the first), the first of
    /// equal scores; the scan stops at a host scoring at most the script's `least()`. The hosts' exits are
    /// NILAS's ([`host_exit_of`], its cache kept as NILAS keeps it). The key is `(0, 0, 0)`.
    fn choose_scripted(
        &mut self,
        j: usize,
        now: f64,
        u: f64,
    ) -> Result<Option<((u8, u8, u8), usize)>, crate::script::ScriptError> {
        let shape = self.jobs[j].shape;
        let vm_exit = now + self.pred.remaining(j, u);
        let Pool {
            order,
            hosts,
            jobs,
            pred,
            cfg,
            script,
            ..
        } = self;
        let Some(script) = script.as_ref() else {
            return Ok(None);
        };
        let mut best: Option<(f64, usize)> = None;
        let mut seen_empty = false;
        for &SlackKey(_, h) in order.iter() {
            let h = h as usize;
            let host = &mut hosts[h];
            if host.draining || !fits(&host.used, &host.cap, &shape) {
                continue;
            }
            if host.is_empty() {
                if seen_empty {
                    continue;
                }
                seen_empty = true;
            }
            let he = host_exit_of(host, jobs, *pred, cfg.refresh_h, now);
            let x = script.score(host, &shape, he, vm_exit, now)?;
            if best.is_none_or(|(b, _)| x < b) {
                best = Some((x, h));
                if x <= script.least {
                    break;
                }
            }
        }
        Ok(best.map(|(_, h)| ((0, 0, 0), h)))
    }

    /// Schedules the next arrival of the feed, if any (see `Pool::feed`).
    fn feed_next(&mut self, des: &mut Des<Ev>) {
        let (jobs, first, next) = &mut self.feed;
        if let Some(&j) = jobs.get(*next) {
            des.schedule_reserved(
                *first + *next as u64,
                self.jobs[j as usize].start,
                Ev::Arrive(j),
            );
            *next += 1;
        }
    }

    /// Sets host `h`'s used capacity after its VMs or ghosts changed, and keeps the slack order and the
    /// occupancy totals.
    fn set_used(&mut self, h: usize, used: [f64; DIMS]) {
        let host = &mut self.hosts[h];
        if let Some(sums) = self.sums.as_mut() {
            sums.set(h, &used, host.is_empty());
        }
        let scorer = self.cfg.ablation.scorer;
        self.order
            .remove(&SlackKey(scorer.key(host.slack), h as u32));
        host.used = used;
        host.slack = slack(&used, &host.cap);
        self.order
            .insert(SlackKey(scorer.key(host.slack), h as u32));
    }

    /// Puts host `h` in its group of the rule's index under its slack key, after its VMs, ghosts, state or
    /// class changed (nothing without an index).
    fn regroup(&mut self, h: usize, now: f64) {
        let Some(tiers) = self.tiers.as_mut() else {
            return;
        };
        let view = PoolView {
            jobs: self.jobs,
            r0: &self.r0,
            now,
        };
        let host = &self.hosts[h];
        let g = self.rule.group(host, &view);
        tiers.set(
            h,
            g,
            SlackKey(self.cfg.ablation.scorer.key(host.slack), h as u32),
        );
    }

    /// Moves host `h`'s LAVA deadline as the rule asked: reset to `now + 1.1 × its class's bound`; or moved out
    /// (never in) to cover a VM of class `k` placed at `now` — with correct predictions the host then never
    /// outlives its deadline, so a deadline raise means an under-prediction (seed 003 §4.3: "if all
    /// predictions are correct, the total lifetime of a host does not exceed 1.1× its original lifetime
    /// class") [UNSTATED: the paper's tiers never put a VM that could outlive the deadline on a host; §5.4's
    /// step 3, any non-empty host, can]; or cancelled (the host emptied).
    fn move_deadline(&mut self, h: usize, action: DeadlineAction, now: f64, des: &mut Des<Ev>) {
        let host = &mut self.hosts[h];
        match action {
            DeadlineAction::Keep => {}
            DeadlineAction::Reset => {
                let t = now + LAVA_DEADLINE_FACTOR * class_upper_bound(host.class);
                host.deadline = t;
                des.schedule_keyed(host.key, t, Ev::Deadline(h as u32));
            }
            DeadlineAction::Cover(k) => {
                let t = now + LAVA_DEADLINE_FACTOR * class_upper_bound(k);
                if t > host.deadline {
                    host.deadline = t;
                    des.schedule_keyed(host.key, t, Ev::Deadline(h as u32));
                }
            }
            DeadlineAction::Cancel => des.cancel(host.key),
        }
    }

    fn place(&mut self, j: usize, h: usize, now: f64, des: &mut Des<Ev>, schedule_exit: bool) {
        let shape = self.jobs[j].shape;
        let was_empty = self.hosts[h].vms.is_empty();
        let mut used = self.hosts[h].used;
        for (u, s) in used.iter_mut().zip(shape) {
            *u += s;
        }
        {
            let host = &mut self.hosts[h];
            host.vms.push(j as u32);
            host.cache_valid = false;
        }
        self.set_used(h, used);
        self.on[j] = h as u32;
        if schedule_exit {
            self.placed[j] = h as u32; // the arrival's host (migrations move it later)
        }
        self.res_epoch[j] = NONE;
        let mut change: HostChange = self.rule.on_place(
            &mut self.hosts[h],
            j,
            self.class[j],
            was_empty,
            &mut self.res_epoch,
        );
        // the ablations of LAVA's deadline moves (§5.4's ON_PLACE moves neither)
        let rules = self.cfg.ablation.lava_rules;
        let drop_open =
            matches!(rules, LavaRules::NoOpenMove | LavaRules::Spec) && change.open_move;
        let drop_cover = matches!(rules, LavaRules::NoCover | LavaRules::Spec)
            && matches!(change.deadline, DeadlineAction::Cover(_));
        if drop_open || drop_cover {
            change.deadline = DeadlineAction::Keep;
        }
        if change.class_up_longer_vm && now >= self.cfg.warmup_h && schedule_exit {
            self.acc.diag.class_up_longer_vm += 1;
        }
        self.move_deadline(h, change.deadline, now, des);
        self.regroup(h, now);
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
        let change = self
            .rule
            .on_remove(&mut self.hosts[h], j, &mut self.res_epoch);
        if change.class_down && now >= self.cfg.warmup_h {
            self.acc.diag.class_down += 1;
        }
        self.move_deadline(h, change.deadline, now, des);
        self.regroup(h, now);
        self.mig.check_drained(&mut self.hosts[h]);
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
            if self.rule.host_states() {
                self.class[j] = lifetime_class(self.pred.remaining(j, u));
            }
            match self.choose_for(j, now, false, u) {
                Some((_, t)) => {
                    self.remove(j, now, des, true);
                    self.place(j, t, now, des, false);
                    self.mig.active += 1;
                    self.mig.started += 1;
                    des.schedule(now + MIGRATION_H, Ev::MigrationDone(j as u32, src as u32));
                }
                None => self.mig.abandon(&mut self.hosts[src], src, j, now),
            }
        }
    }

    /// The `k`-th defragmentation check (§5.6): the hosts [`Migrations::candidates`] names are drained, their
    /// VMs queued in the configured order.
    fn defrag_check(&mut self, k: u64, now: f64, des: &mut Des<Ev>) {
        let Some(d) = self.cfg.defrag.as_ref() else {
            return;
        };
        for h in self.mig.candidates(d, &self.hosts, k) {
            self.mig
                .drain(&mut self.hosts[h], h, k, now, d.order, self.jobs, self.pred);
        }
        self.start_migrations(now, des);
    }
}

impl World<Ev> for Pool<'_> {
    fn handle(&mut self, now: f64, ev: Ev, des: &mut Des<Ev>) {
        match ev {
            Ev::Arrive(j) => {
                self.feed_next(des);
                let j = j as usize;
                self.acc.arrivals += 1;
                self.acc.note_shape(self.jobs[j].shape);
                let baseline = j < self.cfg.baseline_jobs;
                let rule = if baseline {
                    resolve(&Policy::BestFit)
                } else {
                    self.rule
                };
                match self.choose_for(j, now, baseline, 0.0) {
                    Some((key, h)) => {
                        if now >= self.cfg.warmup_h {
                            let long = self.long[j];
                            let (acc, state) = self.acc_and_state();
                            acc.count_placement(&state.hosts[h], long, key, rule, &state, now);
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
                self.regroup(src, now);
                self.mig.active -= 1;
                self.mig.check_drained(&mut self.hosts[src]);
                self.start_migrations(now, des);
            }
            Ev::Deadline(h) => {
                let h = h as usize;
                if !self.hosts[h].vms.is_empty() {
                    if now >= self.cfg.warmup_h {
                        self.acc.diag.class_up_deadline += 1;
                    }
                    let change = self
                        .rule
                        .on_deadline(&mut self.hosts[h], &mut self.res_epoch);
                    self.move_deadline(h, change.deadline, now, des);
                    self.regroup(h, now);
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
    run_with(jobs, pred, cfg, true)
}

/// [`run_full`]; `indexed`: LA-Binary and LAVA choose over their groups ([`TierIndex`]) and the metric samples
/// read the occupancy totals kept as the hosts change ([`Occupancy`], when the numbers allow it), else every
/// choice scans the slack order and every sample walks the hosts (the reference both are tested against).
fn run_with(
    jobs: &[Job],
    pred: &dyn LifetimePredictor,
    cfg: &SimConfig,
    indexed: bool,
) -> (PolicyResult, Vec<u32>, Vec<DrainRecord>) {
    let n = jobs.len();
    let mut des: Des<Ev> = Des::new();
    let caps: Vec<[f64; DIMS]> = match &cfg.caps {
        Some(c) => c.to_vec(),
        None => vec![cfg.cap; cfg.hosts],
    };
    let (by_size, total) = hosts_by_size(&caps);
    let hosts: Vec<Host> = caps
        .iter()
        .map(|&cap| Host::new(cap, des.new_key()))
        .collect();
    let r0: Vec<f64> = (0..n).map(|j| pred.remaining(j, 0.0)).collect();
    let rule = resolve(&cfg.policy);
    let cost_first = rule.host_states() && cfg.ablation.lava_rules == LavaRules::CostFirst;
    let tiers = (indexed && rule.groups() > 0 && !cost_first).then(|| {
        let view = PoolView {
            jobs,
            r0: &r0,
            now: 0.0,
        };
        let entries = hosts
            .iter()
            .enumerate()
            .map(|(h, host)| {
                let k = SlackKey(cfg.ablation.scorer.key(host.slack), h as u32);
                (rule.group(host, &view), k)
            })
            .collect();
        TierIndex::new(rule.groups(), entries)
    });
    let sums = indexed
        .then(|| Occupancy::new(&caps, jobs.iter().map(|j| &j.shape), &by_size))
        .flatten();
    let mut pool = Pool {
        jobs,
        pred,
        cfg,
        rule,
        hosts,
        on: vec![NONE; n],
        // LAVA's class at the VM's arrival in the simulation: at uptime 0, `LC(L̂)`; a VM alive at the
        // warm-up's start (negative start, placed at 0) at its age, from its remaining time (review item 2)
        class: jobs
            .iter()
            .zip(&r0)
            .enumerate()
            .map(|(j, (job, &r))| {
                lifetime_class(if job.start < 0.0 {
                    pred.remaining(j, -job.start)
                } else {
                    r
                })
            })
            .collect(),
        res_epoch: vec![NONE; n],
        long: r0.iter().map(|&r| r > LA_BINARY_CUTOFF_H).collect(),
        r0,
        placed: vec![NONE; n],
        acc: Acc::new(cfg.diagnostics),
        mig: Migrations::default(),
        order: caps
            .iter()
            .enumerate()
            .map(|(h, c)| SlackKey(cfg.ablation.scorer.key(slack(&[0.0; DIMS], c)), h as u32))
            .collect(),
        total,
        by_size,
        script: cfg.script.clone().map(ScriptScore::new),
        cap_range: CapRange::of(&caps),
        feed: (Vec::new(), 0, 0),
        tiers,
        sums,
    };
    let arrivals: Vec<u32> = (0..n as u32)
        .filter(|&j| jobs[j as usize].start < cfg.end)
        .collect();
    // fed one at a time when their times (clamped at 0, the clock now) do not decrease, else all at once
    let ordered = arrivals
        .windows(2)
        .all(|w| jobs[w[0] as usize].start.max(0.0) <= jobs[w[1] as usize].start.max(0.0));
    if ordered && !arrivals.is_empty() {
        let first = des.reserve_seq(arrivals.len() as u64);
        pool.feed = (arrivals, first, 0);
        pool.feed_next(&mut des);
    } else {
        for &j in &arrivals {
            des.schedule(jobs[j as usize].start, Ev::Arrive(j));
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
        let (acc, state) = pool.acc_and_state();
        acc.sample(&state, t);
        if t >= next_strand {
            acc.strand(&state, cfg.seed, t);
            next_strand += cfg.stranding_h;
        }
        k += 1;
    }
    events += des.run_until(cfg.end, &mut pool);
    let Pool {
        acc,
        mig,
        long,
        placed,
        script,
        ..
    } = pool;
    let mut result = acc.into_result(
        cfg.policy.clone(),
        cfg.diagnostics,
        jobs,
        &long,
        cfg.end,
        cfg.warmup_h,
        &mig,
        events,
    );
    result.error = script
        .and_then(|s| s.run.take_error())
        .map(|e| e.to_string());
    (result, placed, mig.record)
}

#[cfg(test)]
mod tests {
    use super::super::lars::{replay_migrations, MigrationOrder};
    use super::super::policies::lava::{class_upper_bound, lifetime_class};
    use super::super::predictor::Oracle;
    use super::super::sampling::{TL_EMPTY, TL_RECYCLING};
    use super::*;
    use crate::models::lifetime::policies::nilas::temporal_cost;

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

    /// An oracle that knows every job's lifetime.
    fn oracle(jobs: &[Job]) -> Oracle {
        Oracle::new(jobs.iter().map(|j| j.life).collect())
    }

    /// The hand-worked example: A (2 cores, 10 h) and C (3 cores, 2 h) at 0 h, D (1 core, 8.5 h) at 1 h.
    fn hand_worked() -> Vec<Job> {
        vec![job(0.0, 10.0, 2.0), job(0.0, 2.0, 3.0), job(1.0, 8.5, 1.0)]
    }

    /// The LARS drain: five 2-core VMs of 50 h, B (2 cores, 0.1 h), then A1–A3 (2 cores, 10 h), all at 0 h.
    fn lars_drain() -> Vec<Job> {
        let mut jobs: Vec<Job> = (0..5).map(|_| job(0.0, 50.0, 2.0)).collect();
        jobs.push(job(0.0, 0.1, 2.0));
        jobs.extend((0..3).map(|_| job(0.0, 10.0, 2.0)));
        jobs
    }

    /// The recycling example: A (19 cores, 50 h) at 0 h, E (1 core, 0.5 h) at 1 h, F (1 core, 50 h) at 2 h.
    fn recycling_example() -> Vec<Job> {
        vec![
            job(0.0, 50.0, 19.0),
            job(1.0, 0.5, 1.0),
            job(2.0, 50.0, 1.0),
        ]
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
            ablation: Ablation::default(),
            script: None,
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
        let jobs = hand_worked();
        let pred = oracle(&jobs);
        for (policy, want) in [
            (Policy::BestFit, 1),
            (Policy::Nilas, 0),
            (Policy::Lava, 1),
            (Policy::LaBinary, 0),
        ] {
            let (_, placed) = simulate_placements(&jobs, &pred, &cfg(policy.clone(), 2, 4.0));
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
            let pred = oracle(&jobs);
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
        let pred = oracle(&jobs);
        let r = simulate(&jobs, &pred, &cfg(Policy::Lava, 1, 4.0));
        let d = r.diagnostics.unwrap();
        assert_eq!((d.by_tier, d.class_up_deadline), ([0, 1, 0, 1], 0));
    }

    /// The ablations of LAVA's deadline moves (issue 27, sixth pass), on the two hand cases above and below:
    /// without the OPEN-host reset (`no-open-move`, and §5.4's `spec`) the OPEN host keeps A's deadline 1.1 h
    /// while B runs to 1.7 h, so the correct predictions raise its class once; without the cover rule
    /// (`no-cover`, `spec`) the RECYCLING case's deadline stays at A's 0 + 11 h while B runs to 13 h: one raise
    /// there. The other knob leaves each case as ours (no raise).
    #[test]
    fn lava_rule_ablations_raise_the_class_where_the_deadline_is_not_moved() {
        use crate::models::lifetime::params::LavaRules::*;
        let open = vec![job(0.0, 0.95, 1.0), job(0.8, 0.9, 1.0)];
        let recycling = vec![job(0.0, 5.0, 9.5), job(4.0, 9.0, 0.5)];
        for (rules, open_raises, recycling_raises) in [
            (Ours, 0, 0),
            (NoOpenMove, 1, 0),
            (NoCover, 0, 1),
            (Spec, 1, 1),
        ] {
            for (jobs, cores, want) in [
                (&open, 4.0, open_raises),
                (&recycling, 10.0, recycling_raises),
            ] {
                let pred = oracle(&jobs);
                let mut c = cfg(Policy::Lava, 1, cores);
                c.ablation.lava_rules = rules;
                let d = simulate(jobs, &pred, &c).diagnostics.unwrap();
                assert_eq!(d.class_up_deadline, want, "{rules:?}, {cores}-core case");
            }
        }
    }

    /// LAVA with NILAS's cost ahead of its tiers (`cost-first`), on the hand-worked case above: D (8.5 h,
    /// exit 9.5 h) costs 0 on host 0 (exit 10 h) and 7 on host 1 (exit 2 h, ΔT = 7.5 h ∈ [6, 12)); LAVA's tiers
    /// put it on host 1 (OPEN, its class), cost first on host 0, as NILAS does.
    #[test]
    fn lava_cost_first_ranks_the_temporal_cost_ahead_of_the_tiers() {
        let jobs = hand_worked();
        let pred = oracle(&jobs);
        for (rules, want) in [
            (crate::models::lifetime::params::LavaRules::Ours, 1),
            (crate::models::lifetime::params::LavaRules::CostFirst, 0),
        ] {
            let mut c = cfg(Policy::Lava, 2, 4.0);
            c.ablation.lava_rules = rules;
            let (_, placed) = simulate_placements(&jobs, &pred, &c);
            assert_eq!(placed, vec![Some(0), Some(1), Some(want)], "{rules:?}");
        }
    }

    /// The baseline scorer's ablation orders (issue 27, sixth pass) by hand. Three 10-core hosts: A (6 cores,
    /// 1 h) at 0 h, B (8 cores) at 0.5 h, C (2 cores) at 0.6 h.
    /// - best fit: A → host 0 (all empty, lowest id); B does not fit beside A → host 1; C → host 1 (slack 0.2
    ///   against host 0's 0.4);
    /// - first fit: A → 0, B → 1, C → 0 (lowest id it fits);
    /// - worst fit: A → 0; B → 1 (the empty hosts have the most slack, lowest id first); C → 2 (empty).
    /// NILAS breaks its ties with the same order: with the oracle C (0.1 h) costs 0 on every host (hosts 0 and 1
    /// outlive it, the empty host's extension 0.1 h is below 30 min), so NILAS places as its scorer does.
    #[test]
    fn scorer_ablations_by_hand() {
        use crate::models::lifetime::params::Scorer::*;
        let jobs = vec![job(0.0, 1.0, 6.0), job(0.5, 5.0, 8.0), job(0.6, 0.1, 2.0)];
        let pred = oracle(&jobs);
        for (scorer, want) in [
            (BestFit, [0, 1, 1]),
            (FirstFit, [0, 1, 0]),
            (WorstFit, [0, 1, 2]),
        ] {
            for policy in [Policy::BestFit, Policy::Nilas] {
                let mut c = cfg(policy.clone(), 3, 10.0);
                c.ablation.scorer = scorer;
                let (_, placed) = simulate_placements(&jobs, &pred, &c);
                assert_eq!(placed, want.map(Some).to_vec(), "{scorer:?}, {policy:?}");
            }
        }
    }

    /// NILAS's cost-scale ablations by hand: `fine` = ⌈8·log2(1 + ΔT/1 min)⌉ (30 s → ⌈4.68⌉ = 5, 2 min →
    /// ⌈12.68⌉ = 13, 10 min → ⌈27.68⌉ = 28, capped at 255), `binary` = whether ΔT > 0; `stated` is Alg. 2's.
    #[test]
    fn nilas_cost_scales_by_hand() {
        use crate::models::lifetime::params::CostScale::*;
        use crate::models::lifetime::policies::nilas::temporal_cost_on;
        for (scale, dt_min, want) in [
            (Fine, 0.0, 0),
            (Fine, 0.5, 5),
            (Fine, 2.0, 13),
            (Fine, 10.0, 28),
            (Fine, 1e12, 255),
            (Binary, 0.0, 0),
            (Binary, 0.5, 1),
            (Binary, 1e6, 1),
            (Stated, 70.0, 2),
        ] {
            assert_eq!(
                temporal_cost_on(scale, dt_min / 60.0),
                want,
                "{scale:?}, {dt_min} min"
            );
        }
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
            let pred = oracle(&jobs);
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
        let jobs = hand_worked();
        let pred = oracle(&jobs);
        for (n, want) in [(3, 1), (2, 0), (0, 0)] {
            let mut c = cfg(Policy::Nilas, 2, 4.0);
            c.baseline_jobs = n;
            let (_, placed) = simulate_placements(&jobs, &pred, &c);
            assert_eq!(placed, vec![Some(0), Some(1), Some(want)], "{n}");
        }
        let jobs = vec![job(-5.0, 6.0, 4.0), job(0.0, 1.0, 4.0), job(2.0, 1.0, 4.0)];
        let pred = oracle(&jobs);
        let mut c = cfg(Policy::Nilas, 1, 4.0);
        c.baseline_jobs = 1;
        c.end = 4.0;
        let (r, placed) = simulate_placements(&jobs, &pred, &c);
        assert_eq!(placed, vec![Some(0), None, Some(0)]);
        assert_eq!((r.failures, r.arrivals), (1, 3));
        // full over [0, 1) and [2, 3): 24 of the 48 samples of [0, 4) have no empty host
        assert!((r.empty_hosts - 0.5).abs() < 1e-12, "{}", r.empty_hosts);
    }

    /// LA-Binary classes by the first prediction `L̂` at A < 1 (ALGORITHMS.md §5.5; review item 1). 4,000
    /// VMs of 0.5 h (short) at A = 0.9: a VM is long only when its prediction is wrong (probability 0.1) and
    /// `log10 0.5 + 3Z > log10 2`, so the long share is 0.1·Q(log10 4 / 3) = 0.1·Q(0.2007) = 0.04205 (by
    /// hand; ± 0.013 is 4 standard errors), and exactly the share of the drawn `L̂` above 2 h. (Classed by the
    /// capped posterior mean at u = 0, ≥ 4.46 h, every VM was long.)
    #[test]
    fn la_binary_classes_noisy_predictions_by_their_first_prediction() {
        use super::super::predictor::{Noisy, NoisyEstimate};
        let n = 4000;
        let jobs: Vec<Job> = (0..n).map(|k| job(k as f64 * 1e-3, 0.5, 1.0)).collect();
        let life: Vec<f64> = jobs.iter().map(|j| j.life).collect();
        let pred = Noisy::new(&life, 0.9, 7, 1, NoisyEstimate::CappedMean);
        let r = simulate(&jobs, &pred, &cfg(Policy::LaBinary, 1, n as f64));
        let long = r.diagnostics.unwrap().long_vms;
        let drawn = (0..n).filter(|&j| pred.first(j) > 2.0).count() as f64 / n as f64;
        assert_eq!(long, drawn);
        assert!((long - 0.04205).abs() < 0.013, "{long}");
    }

    /// A VM alive at the warm-up's start gets its LAVA class from its remaining time, not its total (review
    /// item 2). On two 10-core hosts, B (9.5 cores) started at −95 h and exits at 5 h: placed at 0 (baseline
    /// best fit) it fills host 0 to 95%, RECYCLING in class LC(5 h) = 2 (code 16 + 2) through hours 0–3,
    /// not LC(100 h) = 4; host 1 stays empty.
    #[test]
    fn alive_vm_gets_its_lava_class_from_its_remaining_time() {
        let jobs = vec![job(-95.0, 100.0, 9.5)];
        let pred = Oracle::new(vec![100.0]);
        let mut c = cfg(Policy::Lava, 2, 10.0);
        c.baseline_jobs = 1;
        c.end = 4.0;
        let r = simulate(&jobs, &pred, &c);
        assert_eq!(r.timeline.codes, [TL_RECYCLING + 2, TL_EMPTY].repeat(4));
    }

    /// The diagnostics of the hand-worked example (two 4-core hosts, everything measured). LA-Binary: A
    /// (long) opens host 0 (tier empty), C (short, 2 h is not > 2 h) does not fit beside it and opens host 1,
    /// D (long) joins A (same class): tiers [1, 0, 2, 0], no mixed placement, 2 of 3 VMs long. LAVA: D
    /// (class 2) goes to host 1 (open, class 2: tier 1), A and C open hosts (tier 3); host 0 (class 3, 2
    /// cores) is never RECYCLING; host 1 at 4 of 4 cores after D turns RECYCLING. Best fit: D on host 1, a
    /// long VM on C's short host.
    #[test]
    fn diagnostics_of_the_hand_worked_example() {
        let jobs = hand_worked();
        let pred = oracle(&jobs);
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
        let jobs = recycling_example();
        let pred = oracle(&jobs);
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
        let jobs = recycling_example();
        let pred = oracle(&jobs);
        for (policy, code) in [(Policy::Lava, TL_RECYCLING + 3), (Policy::BestFit, 3)] {
            let mut c = cfg(policy.clone(), 2, 20.0);
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
        let jobs = lars_drain();
        let pred = oracle(&jobs);
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
        let pred = oracle(&jobs);
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
        let pred = oracle(&jobs);
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
        let jobs = lars_drain();
        let pred = oracle(&jobs);
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
        let pred = oracle(&jobs);
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
        let pred = oracle(&jobs);
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

    /// The tiered policies' host indexes ([`TierIndex`]) against the scan of every host in slack order, over
    /// random pools: heterogeneous hosts (one kind without memory), VMs of every LAVA class, a predictor
    /// whose repredictions move with the uptime (so NILAS's host-exit cache, which LAVA's in-tier cost reads,
    /// depends on which hosts each choice scored), defragmentation with migrations, App. F's baseline
    /// arrivals and the ablations. Every metric, every arrival's host and every drain are the same (compared
    /// through their Debug text, bit for bit); and the runs place differently from best fit in every tier.
    /// The same runs check the metric samples' occupancy counters ([`Occupancy`]; memory in quarters of a GB)
    /// against the walk over every host, for all four policies, and that a run without diagnostics differs in
    /// nothing else.
    #[test]
    fn tier_indexes_choose_what_the_scan_chooses() {
        use super::super::params::CostScale;
        use crate::substrate::rng::mix64;
        /// `R̂_j(u)`: the true lifetime scaled by a factor that changes every quarter hour of uptime.
        struct Wobbly(Vec<f64>);
        impl LifetimePredictor for Wobbly {
            fn first(&self, j: usize) -> f64 {
                self.remaining(j, 0.0)
            }
            fn remaining(&self, j: usize, u: f64) -> f64 {
                let step = (u * 4.0).floor() as u64;
                let f = 0.25 + (mix64(j as u64 * 977 + step) % 1000) as f64 / 500.0;
                (self.0[j] * f - u).max(0.0)
            }
        }
        let mut tiers_seen = [[0u64; 4]; 2];
        let mut differs = [false; 2];
        for case in 0..24u64 {
            let mut x = case * 7919 + 1;
            let mut next = |n: u64| {
                x = mix64(x);
                x % n
            };
            let n = 300 + next(500) as usize;
            // busy pools (failures, every tier) and, one case in four, quiet ones (hosts whose long VMs near
            // their predicted end with no VM coming or going: LA-Binary's long group then holds short hosts)
            let (gap, more) = if case % 4 < 2 {
                (6000.0, 0)
            } else {
                (1500.0, 24)
            };
            let mut t = 0.0;
            let jobs: Vec<Job> = (0..n)
                .map(|_| {
                    t += next(1000) as f64 / gap;
                    let life = 10f64.powf(next(6000) as f64 / 1000.0 - 2.0);
                    let shape = [
                        1.0 + next(8) as f64,
                        if next(3) == 0 {
                            0.0
                        } else {
                            next(128) as f64 / 4.0
                        },
                        0.0,
                    ];
                    let start = if next(20) == 0 { -life / 2.0 } else { t };
                    Job {
                        start,
                        exit: start + life,
                        life,
                        censored: false,
                        shape,
                        batch: 0,
                    }
                })
                .collect();
            let mut jobs = jobs;
            jobs.sort_by(|a, b| a.start.total_cmp(&b.start));
            let alive = jobs.iter().filter(|j| j.start < 0.0).count();
            let pred = Wobbly(jobs.iter().map(|j| j.life).collect());
            let caps: Vec<[f64; DIMS]> = (0..4 + more + next(12))
                .map(|_| match next(3) {
                    0 => [16.0, 64.0, 0.0],
                    1 => [32.0, 128.0, 0.0],
                    _ => [12.0, 0.0, 0.0],
                })
                .collect();
            let policy = if case % 2 == 0 {
                Policy::Lava
            } else {
                Policy::LaBinary
            };
            let mut c = cfg(policy.clone(), caps.len(), 0.0);
            c.caps = Some(std::sync::Arc::new(caps));
            c.end = t + 2.0;
            c.refresh_h = [0.0, 1.0 / 60.0, 0.5][next(3) as usize];
            c.baseline_jobs = if next(2) == 0 { alive } else { 0 };
            c.warmup_h = 1.0;
            c.defrag = match next(3) {
                0 => None,
                k => Some(Defrag {
                    order: MigrationOrder::Lars,
                    replay: None,
                    maintenance: k == 2,
                }),
            };
            c.ablation = Ablation {
                scorer: [Scorer::BestFit, Scorer::BestFit, Scorer::WorstFit][next(3) as usize],
                nilas_cost: [CostScale::Stated, CostScale::Fine][next(2) as usize],
                lava_rules: [LavaRules::Ours, LavaRules::Spec][next(2) as usize],
            };
            let (a, pa, da) = run_with(&jobs, &pred, &c, true);
            let (b, pb, db) = run_with(&jobs, &pred, &c, false);
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "case {case}");
            assert_eq!(pa, pb, "case {case}");
            assert_eq!(da, db, "case {case}");
            let p = usize::from(policy == Policy::LaBinary);
            let by_tier = a.diagnostics.as_ref().unwrap().by_tier;
            for (s, t) in tiers_seen[p].iter_mut().zip(by_tier) {
                *s += t;
            }
            // the occupancy counters under best fit and NILAS too (same choices either way)
            for policy in [Policy::BestFit, Policy::Nilas] {
                let mut o = c.clone();
                o.policy = policy.clone();
                let (x, px, dx) = run_with(&jobs, &pred, &o, true);
                let (y, py, dy) = run_with(&jobs, &pred, &o, false);
                assert_eq!(format!("{x:?}"), format!("{y:?}"), "case {case} {policy:?}");
                assert_eq!((px, dx), (py.clone(), dy), "case {case} {policy:?}");
                if policy == Policy::BestFit {
                    differs[p] |= py != pa;
                }
            }
            // without diagnostics the samples skip the host classes: the rest of the result is the same
            let mut quiet = c.clone();
            quiet.diagnostics = false;
            let q = run_with(&jobs, &pred, &quiet, true).0;
            let a = PolicyResult {
                diagnostics: None,
                ..a
            };
            assert_eq!(format!("{q:?}"), format!("{a:?}"), "case {case}");
        }
        assert_eq!(differs, [true, true]);
        // LAVA: every tier chosen; LA-Binary: its three (same class, other class, empty)
        assert!(tiers_seen[0].iter().all(|&t| t > 0), "{tiers_seen:?}");
        assert!(tiers_seen[1][..3].iter().all(|&t| t > 0), "{tiers_seen:?}");
    }
}
