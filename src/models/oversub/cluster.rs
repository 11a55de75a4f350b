//! The hourly cluster environment (ALGORITHMS.md §3.1; seed 001 §4.1, §6.2) and the per-episode metrics
//! (§3.5).
//!
//! Each hour `t`: the VMs ending at `t` are deleted, the hour's new requests are collected, the policy gives
//! one rate per subscriber, the new VMs are placed by **best fit** on assigned cores (in the scenario's
//! [`super::ArrivalOrder`]: one seeded mixed order per hour, ALGORITHMS.md §3.1 as corrected, or subscriber
//! by subscriber as in defaults sets 4–8; feasible PMs have `Σa + a_v ≤ B` and room in memory and network; the PM
//! with the least assigned-core room left wins, ties to the lowest id; a VM no PM can take is rejected and
//! counted), the usage of every VM alive is read, PM k is hot when `Σ_{v on k} u_v(t)·c_v ≥ β·B`, the reward
//! is `r_t = (Σ c_v − Σ a_v)/(B·K)` over the VMs **created at t** (seed 001 §6.2's reward on the request
//! state: the saved cores of the hour's new VMs; the reward over all VMs alive, used before, is mostly the
//! past actions' and hid an agent's own action in it) and the cluster cost `C_c = max_k C_k`.
//!
//! Per-subscriber credit (ours, [`Cluster::credit`]): subscriber n's reward is the share of its new VMs'
//! cores saved, `1 − rate` (per requested core rather than in cores: the volume of the next hour's requests,
//! unknown when acting, would otherwise add a TD noise ~10× the gap between two neighbouring rates; the
//! price is that an hour of few requests weighs as much as one of many), and its cost share is
//! `C^n_t = (1/|H_t|)·Σ_{k ∈ H_t} O_{n,k}/O_k` over the hot PMs `H_t`, with `O` the oversubscribed cores
//! `Σ (c_v − a_v)` (n's share of what made the PM hot; a VM at rate 1 takes no blame; on a hot PM without
//! oversubscription, the usage shares), so that `Σ_n C^n_t = C_c(s_t)`.

use super::params::OversubParams;
use super::profile::{hour_of_day, Episode, VmRequest, HISTORY_H};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Tolerance of the capacity test, cores (assigned cores are real-valued products `rate·c_v`).
const EPS: f64 = 1e-9;

/// Per-feature scales of the observations (ours; ALGORITHMS.md §3.3 divides every core count by B·K, which
/// leaves the subscribers' entries at 0.01–0.04 and the policy a lookup by hour). A subscriber's state
/// entries are divided by its fair share of the expected alive load, its request entries by its fair share of
/// the expected new load per hour, so both are O(1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObsScale {
    /// Cores requested alive per subscriber, expected: `occupancy·B·K/N`.
    pub alive_cores: f64,
    /// Cores requested per subscriber and hour, expected: `alive_cores / E[d]` (Little's law).
    pub new_cores: f64,
    /// GB of memory per core and Gb/s of network per core (memory and network are scaled as cores).
    pub mem_per_core: f64,
    /// See `mem_per_core`.
    pub net_per_core: f64,
}

impl ObsScale {
    /// The scales of a cluster of `params` with `subs` subscribers whose VMs live `mean_duration_h` hours on
    /// average.
    pub fn new(params: &OversubParams, subs: usize, mean_duration_h: f64) -> Self {
        let alive = (params.occupancy * params.pm_cores * params.pm_count() as f64
            / subs.max(1) as f64)
            .max(1e-9);
        ObsScale {
            alive_cores: alive,
            new_cores: alive / mean_duration_h.max(1.0),
            mem_per_core: params.vm_mem_gb_per_core.max(1e-9),
            net_per_core: params.vm_net_gbps_per_core.max(1e-9),
        }
    }
}

/// One VM placed on the cluster, with a copy of its request: the hourly scans over the VMs alive read it in
/// order rather than through `ep.vms`.
#[derive(Clone, Copy, Debug)]
struct Placed {
    v: VmRequest,
    vm: u32,
    pm: u32,
    assigned: f64,
}

/// The cluster during one episode.
pub struct Cluster<'a> {
    params: &'a OversubParams,
    ep: Cow<'a, Episode>,
    k: usize,
    t: i32,
    cpu: Vec<f64>,
    /// The PMs ordered by assigned-core room `B − Σa` (then id), as `(room_key(room), id)` in a sorted vector:
    /// best fit's search structure ([`move_key`] keeps it sorted as a placement changes a PM's room; the
    /// hour's departures re-sort the PMs they left at once, [`Cluster::begin_hour`]).
    by_room: Vec<(u64, u32)>,
    /// Per PM: whether a VM left it this hour (reset after the departures).
    left: Vec<bool>,
    /// The new keys of those PMs, and the merged order being built (buffers of `begin_hour`).
    left_keys: Vec<(u64, u32)>,
    merged: Vec<(u64, u32)>,
    mem: Vec<f64>,
    net: Vec<f64>,
    alive: Vec<Placed>,
    /// Index in `ep.vms` of the first request not yet collected.
    next: usize,
    /// The requests of the current hour: `ep.vms[pending.0..pending.1]`.
    pending: (usize, usize),
    /// `mask[n]`: whether subscriber n has requests this hour (filled by `begin_hour`).
    mask: Vec<bool>,
    used: Vec<f64>,
    /// Observation and credit scales.
    scale: ObsScale,
    /// Per subscriber: saved cores `Σ (c_v − a_v)` and requested cores `Σ c_v` of the VMs created in the last
    /// step, and its cost share.
    new_saved: Vec<f64>,
    new_requested: Vec<f64>,
    cost_share: Vec<f64>,
    /// With [`Cluster::with_blame_log`]: per hot share of a VM created in the episode, (VM index in
    /// `ep.vms`, hour, share) — the hourly cost shares broken down by VM, for [`Cluster::creation_cost`].
    blame: Option<Vec<(u32, i32, f64)>>,
    /// Per PM: hot in the last step.
    hot_now: Vec<bool>,
    /// Per PM: oversubscribed cores `Σ (c_v − a_v)` (filled for the hot PMs of the last step).
    over: Vec<f64>,
    /// Per PM, hours hot in this episode.
    pub hot_hours: Vec<u32>,
    /// Hours in which some PM was hot.
    pub cluster_hot_hours: u32,
    /// Σ c_v and Σ a_v of the VMs created (and placed) in the episode.
    pub created: (f64, f64),
    /// VMs no PM could take.
    pub rejected: u32,
    /// Σ over hours of the PMs with at least one VM.
    pub active_pm_hours: u64,
    /// Σ over hours of the cores used (usage) on the cluster.
    pub used_core_hours: f64,
    /// Per subscriber and hour of day: Σ of the rates given while the subscriber had requests, and the count.
    pub rate_sum: Vec<[f64; 24]>,
    /// See `rate_sum`.
    pub rate_n: Vec<[u32; 24]>,
}

/// What one hour produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HourOutcome {
    /// `r_t`, saved cores of the VMs created in the hour divided by `B·K`.
    pub reward: f64,
    /// `C_c(s_t)` ∈ {0, 1}.
    pub cost: f64,
    /// PMs hot this hour.
    pub hot_pms: u32,
    /// Whether the episode ended (t reached T).
    pub done: bool,
}

impl<'a> Cluster<'a> {
    /// A cluster at hour 0 of episode `ep` (borrowed for evaluation, owned for training): empty (cold start),
    /// or (warm start) with the history's VMs placed hour by hour at [`OversubParams::warm_rate`] (default 1:
    /// assigned = requested), those alive at hour 0 staying.
    pub fn new(params: &'a OversubParams, ep: Cow<'a, Episode>, warm: bool) -> Cluster<'a> {
        let k = params.pm_count() as usize;
        let subs = ep.subs;
        let mut c = Cluster {
            params,
            ep,
            k,
            t: -HISTORY_H,
            cpu: vec![0.0; k],
            by_room: (0..k as u32)
                .map(|i| (room_key(params.pm_cores), i))
                .collect(),
            left: vec![false; k],
            left_keys: Vec::new(),
            merged: Vec::with_capacity(k),
            mem: vec![0.0; k],
            net: vec![0.0; k],
            alive: Vec::new(),
            next: 0,
            pending: (0, 0),
            mask: vec![false; subs],
            used: vec![0.0; k],
            scale: ObsScale::new(params, subs, 1.0),
            new_saved: vec![0.0; subs],
            new_requested: vec![0.0; subs],
            cost_share: vec![0.0; subs],
            blame: None,
            hot_now: vec![false; k],
            over: vec![0.0; k],
            hot_hours: vec![0; k],
            cluster_hot_hours: 0,
            created: (0.0, 0.0),
            rejected: 0,
            active_pm_hours: 0,
            used_core_hours: 0.0,
            rate_sum: vec![[0.0; 24]; subs],
            rate_n: vec![[0; 24]; subs],
        };
        if warm {
            let rates = vec![params.warm_rate; subs];
            while c.t < 0 {
                c.begin_hour();
                c.allocate(&rates);
                c.t += 1;
            }
        } else {
            c.t = 0;
        }
        c.begin_hour();
        c
    }

    /// The cluster with observation scales `scale` (default: [`ObsScale::new`] with a mean duration of 1 h).
    pub fn with_scale(mut self, scale: ObsScale) -> Self {
        self.scale = scale;
        self
    }

    /// The cluster recording each created VM's hot shares, so that [`Cluster::creation_cost`] can credit
    /// them to the hour that created it.
    pub fn with_blame_log(mut self) -> Self {
        self.blame = Some(Vec::new());
        self
    }

    /// Delayed cost credit (ours, issue 25; [`super::c2marl::CostCredit::Creation`]): `cost[t·N + n]` = Σ
    /// over subscriber n's VMs created at hour t of `Σ_τ γ^(τ−t)·share_v(τ)`, with `share_v(τ)` the VM's part
    /// of the cluster cost at hour τ (module documentation; `Σ_v share_v(τ)` is the hourly `Σ_n C^n_τ` less
    /// the shares of VMs placed before hour 0). `cost` has T·N entries. False without
    /// [`Cluster::with_blame_log`].
    pub fn creation_cost(&self, gamma: f64, cost: &mut [f64]) -> bool {
        let Some(log) = &self.blame else {
            return false;
        };
        let n = self.ep.subs;
        cost.iter_mut().for_each(|x| *x = 0.0);
        for &(vm, tau, share) in log {
            let v = &self.ep.vms[vm as usize];
            let k = v.start as usize * n + v.sub as usize;
            if k < cost.len() {
                cost[k] += gamma.powi(tau - v.start) * share;
            }
        }
        true
    }

    /// Deletes the VMs ending at the current hour and collects its requests (requests of earlier hours that
    /// were never collected, i.e. history in a cold start, are skipped).
    fn begin_hour(&mut self) {
        let (t, b) = (self.t, self.params.pm_cores);
        let (cpu, mem, net, left) = (&mut self.cpu, &mut self.mem, &mut self.net, &mut self.left);
        self.alive.retain(|p| {
            let v = &p.v;
            if v.end <= t {
                let k = p.pm as usize;
                cpu[k] -= p.assigned;
                left[k] = true;
                mem[k] -= v.mem;
                net[k] -= v.net;
                false
            } else {
                true
            }
        });
        // The room order is a function of the rooms alone (distinct keys), so the PMs that VMs left can be
        // taken out and merged back in at their new rooms once, rather than moved departure by departure.
        self.left_keys.clear();
        self.left_keys.extend(
            (0..self.k)
                .filter(|&k| self.left[k])
                .map(|k| (room_key(b - cpu[k]), k as u32)),
        );
        if !self.left_keys.is_empty() {
            self.left_keys.sort_unstable();
            self.merged.clear();
            let mut new = self.left_keys.iter().copied().peekable();
            for &e in self.by_room.iter().filter(|e| !self.left[e.1 as usize]) {
                while let Some(x) = new.next_if(|&x| x < e) {
                    self.merged.push(x);
                }
                self.merged.push(e);
            }
            self.merged.extend(new);
            std::mem::swap(&mut self.by_room, &mut self.merged);
            self.left.fill(false);
        }
        let vms = &self.ep.vms;
        while self.next < vms.len() && vms[self.next].start < t {
            self.next += 1;
        }
        let from = self.next;
        while self.next < vms.len() && vms[self.next].start == t {
            self.next += 1;
        }
        self.pending = (from, self.next);
        self.mask.iter_mut().for_each(|m| *m = false);
        for v in &self.ep.vms[from..self.next] {
            self.mask[v.sub as usize] = true;
        }
    }

    /// The current hour (0-based; `T` once done).
    pub fn hour(&self) -> i32 {
        self.t
    }

    /// Hours T.
    pub fn hours(&self) -> i32 {
        self.ep.hours
    }

    /// The episode.
    pub fn episode(&self) -> &Episode {
        &self.ep
    }

    /// The episode, taken back (e.g. to run it again on a fresh cluster without generating it anew).
    pub fn into_episode(self) -> Cow<'a, Episode> {
        self.ep
    }

    /// Whether subscriber `n` has requests this hour (the agent mask `m_n^t`).
    pub fn mask(&self) -> &[bool] {
        &self.mask
    }

    /// Best fit of one VM at `assigned` cores: among the PMs with room `B − Σa ≥ assigned` (within 1e-9
    /// cores) and room in memory and network, the one with the least room, ties to the lowest id.
    /// Returns its place in the room order and the PM.
    fn best_fit(&self, assigned: f64, mem: f64, net: f64) -> Option<(usize, usize)> {
        let (m, w) = (self.params.pm_mem_gb, self.params.pm_net_gbps);
        let from = self
            .by_room
            .partition_point(|&e| e < (room_key(assigned - EPS), 0));
        self.by_room[from..]
            .iter()
            .position(|&(_, k)| {
                let k = k as usize;
                self.mem[k] + mem <= m + EPS && self.net[k] + net <= w + EPS
            })
            .map(|i| (from + i, self.by_room[from + i].1 as usize))
    }

    /// Places the current hour's requests with `rates[n]` for subscriber n.
    fn allocate(&mut self, rates: &[f64]) {
        for i in self.pending.0..self.pending.1 {
            let v = self.ep.vms[i];
            let a = rates[v.sub as usize] * v.cores;
            match self.best_fit(a, v.mem, v.net) {
                Some((at, k)) => {
                    self.cpu[k] += a;
                    move_key(
                        &mut self.by_room,
                        at,
                        room_key(self.params.pm_cores - self.cpu[k]),
                    );
                    self.mem[k] += v.mem;
                    self.net[k] += v.net;
                    self.alive.push(Placed {
                        v,
                        vm: i as u32,
                        pm: k as u32,
                        assigned: a,
                    });
                    if self.t >= 0 {
                        self.created.0 += v.cores;
                        self.created.1 += a;
                        self.new_saved[v.sub as usize] += v.cores - a;
                        self.new_requested[v.sub as usize] += v.cores;
                    }
                }
                None => {
                    if self.t >= 0 {
                        self.rejected += 1;
                    }
                }
            }
        }
    }

    /// Runs the current hour with one rate per subscriber (rates of subscribers without requests are
    /// ignored) and advances to the next.
    pub fn step(&mut self, rates: &[f64]) -> HourOutcome {
        let h = hour_of_day(self.t);
        for (n, &m) in self.mask.iter().enumerate() {
            if m {
                self.rate_sum[n][h] += rates[n];
                self.rate_n[n][h] += 1;
            }
        }
        self.new_saved.iter_mut().for_each(|x| *x = 0.0);
        self.new_requested.iter_mut().for_each(|x| *x = 0.0);
        self.allocate(rates);
        let t = self.t;
        self.used.iter_mut().for_each(|u| *u = 0.0);
        for p in &self.alive {
            let v = &p.v;
            self.used[p.pm as usize] += self.ep.usage_of(v, t) * v.cores;
        }
        let line = self.params.beta * self.params.pm_cores;
        let mut hot = 0u32;
        for k in 0..self.k {
            self.hot_now[k] = self.used[k] >= line;
            if self.hot_now[k] {
                hot += 1;
                self.hot_hours[k] += 1;
            }
            if self.cpu[k] > EPS {
                self.active_pm_hours += 1;
            }
            self.used_core_hours += self.used[k];
        }
        if hot > 0 {
            self.cluster_hot_hours += 1;
        }
        self.cost_share.iter_mut().for_each(|x| *x = 0.0);
        if hot > 0 {
            // Per hot PM: Σ (c_v − a_v) and Σ usage of its VMs, then each VM's share of the first (of the
            // second on a PM without oversubscription).
            self.over.iter_mut().for_each(|x| *x = 0.0);
            for p in &self.alive {
                if self.hot_now[p.pm as usize] {
                    self.over[p.pm as usize] += p.v.cores - p.assigned;
                }
            }
            for p in &self.alive {
                let k = p.pm as usize;
                if self.hot_now[k] {
                    let v = &p.v;
                    let share = if self.over[k] > EPS {
                        (v.cores - p.assigned) / self.over[k]
                    } else {
                        self.ep.usage_of(v, t) * v.cores / self.used[k]
                    };
                    self.cost_share[v.sub as usize] += share / hot as f64;
                    if let Some(log) = self.blame.as_mut() {
                        if v.start >= 0 {
                            log.push((p.vm, t, share / hot as f64));
                        }
                    }
                }
            }
        }
        let reward = self.new_saved.iter().sum::<f64>() / (self.params.pm_cores * self.k as f64);
        self.t += 1;
        let done = self.t >= self.ep.hours;
        if !done {
            self.begin_hour();
        }
        HourOutcome {
            reward,
            cost: if hot > 0 { 1.0 } else { 0.0 },
            hot_pms: hot,
            done,
        }
    }

    /// The observations of §3.3 at the current hour: per subscriber the cluster state `[cpu assigned, cpu
    /// requested, memory, network]` of its VMs alive and the request state `[cpu, memory, network]` of its new
    /// requests (each scaled per feature, [`ObsScale`]),
    /// then the hour of day one-hot. `agent` gets n × (7 + 24) values (subscriber n's 7 and the hour),
    /// `cluster` 7N + 24 (the 4N cluster states, the 3N request states, the hour).
    pub fn observe(&self, agent: &mut [f32], cluster: &mut [f32]) {
        let n = self.ep.subs;
        let sc = &self.scale;
        let (za, zn) = (sc.alive_cores, sc.new_cores);
        let mut s = vec![[0.0f64; 7]; n];
        for pl in &self.alive {
            let v = &pl.v;
            let e = &mut s[v.sub as usize];
            e[0] += pl.assigned / za;
            e[1] += v.cores / za;
            e[2] += v.mem / (za * sc.mem_per_core);
            e[3] += v.net / (za * sc.net_per_core);
        }
        for v in &self.ep.vms[self.pending.0..self.pending.1] {
            let e = &mut s[v.sub as usize];
            e[4] += v.cores / zn;
            e[5] += v.mem / (zn * sc.mem_per_core);
            e[6] += v.net / (zn * sc.net_per_core);
        }
        let h = hour_of_day(self.t);
        let w = AGENT_OBS;
        for i in 0..n {
            let row = &mut agent[i * w..(i + 1) * w];
            row.iter_mut().for_each(|x| *x = 0.0);
            for j in 0..7 {
                row[j] = s[i][j] as f32;
            }
            row[7 + h] = 1.0;
        }
        cluster.iter_mut().for_each(|x| *x = 0.0);
        for i in 0..n {
            for j in 0..4 {
                cluster[4 * i + j] = s[i][j] as f32;
            }
            for j in 0..3 {
                cluster[4 * n + 3 * i + j] = s[i][4 + j] as f32;
            }
        }
        cluster[7 * n + h] = 1.0;
    }

    /// Per-subscriber credit of the last [`Cluster::step`] (module documentation): `reward[n]` = the share of
    /// subscriber n's new cores saved, `Σ(c_v − a_v)/Σ c_v` over its VMs created in the step (`1 − rate`; 0
    /// without requests), `cost[n]` = its share of the cluster cost.
    pub fn credit(&self, reward: &mut [f64], cost: &mut [f64]) {
        for ((r, &x), &c) in reward
            .iter_mut()
            .zip(&self.new_saved)
            .zip(&self.new_requested)
        {
            *r = if c > 0.0 { x / c } else { 0.0 };
        }
        cost.copy_from_slice(&self.cost_share);
    }

    /// The episode's metrics (call once done).
    pub fn outcome(&self) -> EpisodeOutcome {
        let t = self.ep.hours as f64;
        let unsafe_line = self.params.delta * t;
        EpisodeOutcome {
            unsafe_pms: self
                .hot_hours
                .iter()
                .map(|&h| (h as f64) >= unsafe_line - 1e-9)
                .collect(),
            cluster_unsafe: self.cluster_hot_hours as f64 >= unsafe_line - 1e-9,
            s_cores: if self.created.0 > 0.0 {
                1.0 - self.created.1 / self.created.0
            } else {
                0.0
            },
            hot_pm_hours: self.hot_hours.iter().map(|&h| h as u64).sum(),
            cluster_hot_hours: self.cluster_hot_hours,
            rejected: self.rejected,
            active_pms: self.active_pm_hours as f64 / t,
            used_cores: self.used_core_hours / t,
        }
    }
}

/// A key that orders rooms (any finite f64) as numbers: the IEEE bits with the sign handled.
fn room_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// In the sorted vector `keys` of distinct `(key, id)` pairs, gives the entry at `p` the key `new`, shifting
/// only the entries between its old and its new place: the vector stays sorted, as a `BTreeSet` with a
/// remove and an insert would be, without the tree's node updates (issue 30).
fn move_key(keys: &mut [(u64, u32)], p: usize, new: u64) {
    let old = keys[p];
    let new = (new, old.1);
    if new < old {
        let q = keys[..p].partition_point(|&e| e < new);
        keys[q..=p].rotate_right(1);
        keys[q] = new;
    } else if new > old {
        let q = p + 1 + keys[p + 1..].partition_point(|&e| e < new);
        keys[p..q].rotate_left(1);
        keys[q - 1] = new;
    }
}

/// Observation length of one agent: its 7 entries and the hour one-hot.
pub const AGENT_OBS: usize = 7 + 24;

/// Observation length of the cluster network for `n` subscribers.
pub fn cluster_obs_len(n: usize) -> usize {
    7 * n + 24
}

/// The §3.5 indicators of one episode.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeOutcome {
    /// Per PM: `hot_k ≥ δ` (hot in at least δ·T hours).
    pub unsafe_pms: Vec<bool>,
    /// `(1/T)·Σ_t C_c ≥ δ`.
    pub cluster_unsafe: bool,
    /// `1 − Σ a_v / Σ c_v` over the VMs created in the episode.
    pub s_cores: f64,
    /// Σ over PMs of the hours hot.
    pub hot_pm_hours: u64,
    /// Hours in which some PM was hot.
    pub cluster_hot_hours: u32,
    /// VMs rejected (no feasible PM).
    pub rejected: u32,
    /// PMs with at least one VM, averaged over the hours.
    pub active_pms: f64,
    /// Cores used on the cluster, averaged over the hours.
    pub used_cores: f64,
}

/// A heat map of the rates a policy gave: subscriber × hour of day, averaged over the hours the subscriber
/// had requests (the paper's case study of staggered peaks).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateMap {
    /// The policy.
    pub policy: String,
    /// Subscriber ids, one row each.
    pub subscribers: Vec<String>,
    /// `rates[n][h]`: mean rate, or `null` when subscriber n never had requests at hour h.
    pub rates: Vec<Vec<Option<f64>>>,
    /// `mu[n][h]`: the subscriber's mean usage fraction (the profile), for comparison.
    pub mu: Vec<Vec<f64>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::oversub::profile::VmRequest;
    use crate::substrate::rng::stream;
    use rand::RngExt;

    /// The sorted room order moved key by key equals a `BTreeSet` updated by remove and insert, over random
    /// moves up and down (rooms on a coarse grid, so that equal rooms and ties by id occur).
    #[test]
    fn moving_keys_keeps_the_order_of_a_btree_set() {
        let mut r = stream(4, 30, 0);
        let mut room: Vec<f64> = vec![48.0; 20];
        let mut keys: Vec<(u64, u32)> = (0..20).map(|i| (room_key(48.0), i)).collect();
        let mut set: std::collections::BTreeSet<(u64, u32)> = keys.iter().copied().collect();
        for _ in 0..5_000 {
            let k = r.random_range(0..20usize);
            let old = (room_key(room[k]), k as u32);
            room[k] = r.random_range(-4..=48) as f64 * 0.5;
            let at = keys.binary_search(&old).unwrap();
            move_key(&mut keys, at, room_key(room[k]));
            set.remove(&old);
            set.insert((room_key(room[k]), k as u32));
            assert!(keys.iter().copied().eq(set.iter().copied()));
        }
        // The order is that of the rooms as numbers, then of the ids.
        let mut by_number: Vec<(f64, u32)> = (0..20).map(|k| (room[k], k as u32)).collect();
        by_number.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert!(keys
            .iter()
            .map(|&(_, k)| k)
            .eq(by_number.iter().map(|&(_, k)| k)));
    }

    /// An episode by hand: `vms` as (sub, cores, start, end, usage per hour).
    fn episode(hours: i32, subs: usize, vms: &[(u16, f64, i32, i32, f64)]) -> Episode {
        let mut out = Vec::new();
        let mut usage = Vec::new();
        for &(sub, cores, start, end, u) in vms {
            out.push(VmRequest {
                sub,
                cores,
                mem: cores * 4.0,
                net: 0.0,
                start,
                end,
                usage_at: usage.len() as u32,
            });
            for _ in start..end {
                usage.push(u);
            }
        }
        let hours_total = (HISTORY_H + hours) as usize;
        Episode {
            vms: out,
            usage,
            hours,
            stats: vec![Default::default(); hours_total * subs],
            subs,
        }
    }

    fn params(k: u32) -> OversubParams {
        OversubParams {
            pms: k,
            pm_cores: 10.0,
            pm_mem_gb: 1e6,
            hours: 3,
            ..OversubParams::default()
        }
    }

    #[test]
    fn best_fit_by_hand() {
        // Two PMs of 10 cores. Hour 0: VMs of 8 (rate 1 → 8), 4 (→ 4), 2 (→ 2) cores.
        // 8 → PM0 (both empty: equal room, lowest id); 4 → PM1 (PM0 has only 2 left); 2 → PM0 (room 0 after,
        // the least). Rates 0.5 for subscriber 1: its 6-core VM at hour 1 is assigned 3 → PM1 (PM0 is full).
        // The 2-core VM ends at hour 2 (deleted when hour 2 begins, i.e. at the end of the second step).
        let p = params(2);
        let ep = episode(
            3,
            2,
            &[
                (0, 8.0, 0, 3, 0.5),
                (0, 4.0, 0, 3, 0.5),
                (0, 2.0, 0, 2, 0.5),
                (1, 6.0, 1, 3, 0.5),
            ],
        );
        let mut c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        c.step(&[1.0, 0.5]);
        assert_eq!(c.cpu, vec![10.0, 4.0]);
        c.step(&[1.0, 0.5]);
        // Subscriber 1's VM took 3 cores on PM1 (4 + 3), then the 2-core VM left PM0 (10 − 2).
        assert_eq!(c.cpu, vec![8.0, 7.0]);
        let o = c.step(&[1.0, 0.5]);
        assert!(o.done);
        // S-Cores over created VMs: requested 8+4+2+6 = 20, assigned 8+4+2+3 = 17.
        let out = c.outcome();
        assert!((out.s_cores - 0.15).abs() < 1e-12);
        assert_eq!(out.rejected, 0);
    }

    #[test]
    fn hot_flags_reward_and_rejection_by_hand() {
        // One PM of 10 cores, β = 0.6 → hot at 6 used cores. Two 8-core VMs at rate 0.5 (4 assigned each,
        // both fit), usage 0.5 → 8 used ≥ 6: hot. A third 8-core VM at rate 0.5 does not fit (12 > 10).
        let p = params(1);
        let ep = episode(
            3,
            1,
            &[
                (0, 8.0, 0, 3, 0.5),
                (0, 8.0, 0, 3, 0.5),
                (0, 8.0, 0, 3, 0.5),
            ],
        );
        let mut c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        let o = c.step(&[0.5]);
        assert_eq!(o.cost, 1.0);
        assert_eq!(o.hot_pms, 1);
        // Reward: (16 requested − 8 assigned)/(10·1).
        assert!((o.reward - 0.8).abs() < 1e-12);
        assert_eq!(c.rejected, 1);
        c.step(&[0.5]);
        c.step(&[0.5]);
        let out = c.outcome();
        assert_eq!(out.unsafe_pms, vec![true]);
        assert!(out.cluster_unsafe);
        assert_eq!(out.cluster_hot_hours, 3);
    }

    #[test]
    fn best_fit_search_equals_a_full_scan() {
        use crate::substrate::rng::stream;
        use rand::RngExt;
        // Random episodes on 12 PMs with binding memory: at every request, the ordered search returns the PM
        // a brute-force scan over all PMs chooses (least room ≥ a, memory and network fitting, lowest id).
        let mut r = stream(7, 7, 7);
        let mut vms = Vec::new();
        for t in 0..30 {
            for _ in 0..r.random_range(5..40) {
                let c = [1.0, 2.0, 4.0, 8.0, 16.0][r.random_range(0..5)];
                let d = r.random_range(1..6);
                vms.push(((r.random_range(0..3)) as u16, c, t, (t + d).min(30), 0.3));
            }
        }
        vms.sort_by_key(|v| (v.2, v.0));
        let ep = episode(30, 3, &vms);
        let p = OversubParams {
            pms: 12,
            pm_cores: 48.0,
            pm_mem_gb: 150.0,
            hours: 30,
            ..OversubParams::default()
        };
        let mut c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        let mut checked = 0;
        while c.hour() < 30 {
            let rates = [0.3, 0.5, 1.0];
            for i in c.pending.0..c.pending.1 {
                let v = ep.vms[i];
                let a = rates[v.sub as usize] * v.cores;
                let brute = (0..12)
                    .filter(|&k| 48.0 - c.cpu[k] >= a - EPS && c.mem[k] + v.mem <= 150.0 + EPS)
                    .min_by(|&x, &y| {
                        (48.0 - c.cpu[x])
                            .total_cmp(&(48.0 - c.cpu[y]))
                            .then(x.cmp(&y))
                    });
                assert_eq!(c.best_fit(a, v.mem, v.net).map(|(_, k)| k), brute);
                checked += 1;
            }
            // The room order after the hour's departures (merged) and placements (moved) is the sorted one.
            let mut order: Vec<(u64, u32)> = (0..12)
                .map(|k| (room_key(48.0 - c.cpu[k]), k as u32))
                .collect();
            order.sort_unstable();
            assert_eq!(c.by_room, order);
            if c.step(&rates).done {
                break;
            }
        }
        assert!(checked > 500 && c.rejected > 0, "{checked} {}", c.rejected);
    }

    #[test]
    fn creation_cost_credits_each_hot_share_to_the_hour_that_created_the_vm() {
        // One PM of 10 cores, β = 0.6. Subscriber 0's 8-core VM from hour 0 at rate 0.5 (4 assigned, 4 used):
        // cool. Subscriber 1's 6-core VM from hour 1 at rate 0.5 (3 assigned): 7 used ≥ 6, hot at hours 1 and 2,
        // oversubscribed cores 4 + 3, shares 4/7 and 3/7. Hourly credit gives subscriber 0 its 4/7 at hours
        // 1–2, when it has no requests (lost to its transitions); with γ = 0.5 the delayed credit of hour 0's
        // action is 4/7·(0.5 + 0.25) = 3/7, of subscriber 1's at hour 1 3/7·(1 + 0.5) = 9/14.
        let p = params(1);
        let ep = episode(3, 2, &[(0, 8.0, 0, 3, 0.5), (1, 6.0, 1, 3, 0.5)]);
        let mut c = Cluster::new(&p, Cow::Borrowed(&ep), false).with_blame_log();
        let (mut r, mut k) = ([0.0; 2], [0.0; 2]);
        assert_eq!(c.step(&[0.5, 0.5]).cost, 0.0);
        assert_eq!(c.step(&[0.5, 0.5]).cost, 1.0);
        c.credit(&mut r, &mut k);
        assert!((k[0] - 4.0 / 7.0).abs() < 1e-12 && (k[1] - 3.0 / 7.0).abs() < 1e-12);
        assert_eq!(c.mask(), &[false, false]);
        c.step(&[0.5, 0.5]);
        let mut cost = [9.0; 6];
        assert!(c.creation_cost(0.5, &mut cost));
        let want = [3.0 / 7.0, 0.0, 0.0, 9.0 / 14.0, 0.0, 0.0];
        for (x, w) in cost.iter().zip(want) {
            assert!((x - w).abs() < 1e-12, "{cost:?}");
        }
        let plain = Cluster::new(&p, Cow::Borrowed(&ep), false);
        assert!(!plain.creation_cost(0.5, &mut cost));
    }

    #[test]
    fn warm_start_places_history_at_rate_one() {
        // A 4-core VM from hour −2 to 2 is on the cluster at hour 0 with 4 assigned; one ending at 0 is gone.
        let p = params(1);
        let ep = episode(3, 1, &[(0, 4.0, -2, 2, 0.1), (0, 2.0, -1, 0, 0.1)]);
        let c = Cluster::new(&p, Cow::Borrowed(&ep), true);
        assert_eq!(c.cpu, vec![4.0]);
        let c = Cluster::new(&p, Cow::Borrowed(&ep), false);
        assert_eq!(c.cpu, vec![0.0]);
        // At warm_rate 0.25 the same VM holds 1 core.
        let q = OversubParams {
            warm_rate: 0.25,
            ..p.clone()
        };
        let c = Cluster::new(&q, Cow::Borrowed(&ep), true);
        assert_eq!(c.cpu, vec![1.0]);
    }
}
