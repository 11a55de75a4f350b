//! Features of a VM for the learned lifetime predictor (seed 003 §3, App. A; ALGORITHMS.md §5.2), computed from
//! the workload's records only: what is known when the VM is created, never its lifetime.
//!
//! - flavour: requested cores and memory (the Azure 2017 arrivals have 16 flavours, SOURCE.md `flav_map.txt`);
//! - tenant batch: the number of VMs of its deployment (the arrivals' tenant batch: one tenant's VMs in one
//!   5-minute bin) and its position among them (workload order). The size counts the whole bin, VMs created
//!   after this one in it included: at most 5 minutes of look-ahead [ours: the trace gives batches per bin];
//! - calendar: hour of day and day of week of its creation. The trace's times are seconds from the Azure V1
//!   trace's own origin (`t = 0` at its first 5-minute bin; the calendar date is not published), so this
//!   assumes `t = 0` is 00:00 of a day in the trace's clock: hour = `⌊t / 3600⌋ mod 24`, day of week =
//!   `⌊t / 86400⌋ mod 7` (day 0 of the trace = 0, not a named weekday);
//! - recent arrivals: the VMs of its own split (the deployment prefix `<split>:`, the whole workload when
//!   there is none) created in the hour up to its creation and before it in arrival order (the workload's
//!   order: sorted by creation time, as every reader leaves it). A split stands alone, so in the first hour of
//!   a split the window is truncated (fewer VMs counted).
//!
//! [`Encoder`] turns these into one level per feature group (one-hot categories), fitted on the training
//! VMs only: flavours seen fewer than [`MIN_LEVEL_COUNT`] times fall into "other" (seed 003 App. A), batch
//! sizes use the buckets of the arrivals' `batch_size_map.txt`, positions are log2 buckets, recent arrivals
//! the training deciles. A group left out ([`DEFAULT_GROUPS`], [`parse_groups`]) has one level.

use crate::substrate::stats::{sort_f64, sort_pairs};
use crate::workload::WorkloadFacts;
use std::collections::HashMap;

/// Seconds per hour.
const HOUR_S: f64 = 3600.0;
/// Window of the recent-arrivals feature, seconds (1 h).
pub const RECENT_WINDOW_S: f64 = HOUR_S;
/// A category seen fewer times than this among the training VMs is folded into "other" (seed 003 App. A: 10).
pub const MIN_LEVEL_COUNT: usize = 10;
/// Upper ends of the batch-size buckets 1, 2, 3, 4, 5, 6–7, 8–10, 11–15, 16–25, 26–50 (and > 50): the buckets
/// of the arrivals' `maps/batch_size_map.txt` (Bergsma et al., SOSP 2021; SOURCE.md).
pub const BATCH_SIZE_BUCKETS: [u32; 10] = [1, 2, 3, 4, 5, 7, 10, 15, 25, 50];
/// Position buckets (0-based index in the batch): 0, 1, 2–3, 4–7, 8–15, 16–31, ≥ 32.
pub const POSITION_BUCKETS: usize = 7;
/// Buckets of the recent-arrivals feature (training deciles).
pub const RECENT_BUCKETS: usize = 10;
/// Feature groups: flavour, batch size, position in batch, hour of day, day of week, recent arrivals.
pub const GROUPS: usize = 6;
/// Names of the feature groups, in level order.
pub const GROUP_NAMES: [&str; GROUPS] = [
    "flavour",
    "batch_size",
    "batch_position",
    "hour_of_day",
    "day_of_week",
    "recent_arrivals",
];
/// The groups the learned predictor uses by default: all but the day of week. The Azure arrivals' training
/// split (`dev`, 3.5 days) holds each of 5 weekdays once (and the `test` split 2 weekdays it lacks), so a
/// weekday's effect would be the effect of one particular day; `results/003/` has the ablation.
pub const DEFAULT_GROUPS: [bool; GROUPS] = [true, true, true, true, false, true];

/// Parses a comma-separated list of [`GROUP_NAMES`] (`all` = every group, empty = none) into a mask.
pub fn parse_groups(s: &str) -> Result<[bool; GROUPS], String> {
    let mut mask = [false; GROUPS];
    for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            mask = [true; GROUPS];
            continue;
        }
        let g = GROUP_NAMES.iter().position(|&n| n == name).ok_or_else(|| {
            format!(
                "unknown feature group '{name}' (expected all or some of {})",
                GROUP_NAMES.join(", ")
            )
        })?;
        mask[g] = true;
    }
    Ok(mask)
}

/// What the trace tells about one VM at its creation.
#[derive(Clone, Debug, PartialEq)]
pub struct VmFeatures {
    /// Requested cores.
    pub cores: f64,
    /// Requested memory, GB.
    pub memory_gb: f64,
    /// VMs in its tenant batch (deployment); 1 without a deployment.
    pub batch_size: u32,
    /// Its 0-based position in the batch (workload order).
    pub batch_pos: u32,
    /// Hour of day of its creation, 0–23 (see the module documentation for the time origin).
    pub hour: u8,
    /// Day of week of its creation, 0–6 (day 0 of the trace = 0).
    pub weekday: u8,
    /// VMs of its split created in the hour up to its creation, before it in arrival order.
    pub recent: u32,
}

/// The split of a VM: the deployment's prefix up to the first `:` (`dev`, `test` of the arrivals), `""` when
/// there is none.
fn split_of(deployment: Option<&str>) -> &str {
    deployment
        .and_then(|d| d.split_once(':').map(|(s, _)| s))
        .unwrap_or("")
}

/// The features of every VM of `w` (the workload's compact records), in workload order (see the module
/// documentation).
pub fn extract(w: &WorkloadFacts) -> Vec<VmFeatures> {
    let n = w.vms.len();
    // batch sizes and positions: per group, the VMs with a deployment
    let mut size = vec![0u32; w.groups.len()];
    let mut pos = vec![0u32; n];
    for (i, v) in w.vms.iter().enumerate() {
        if v.has_deployment() {
            let c = &mut size[v.group()];
            pos[i] = *c;
            *c = c.saturating_add(1);
        }
    }
    // recent arrivals: per split, its VMs in workload (arrival) order
    let mut split_index: HashMap<&str, u32> = HashMap::new();
    let mut by_split: Vec<Vec<usize>> = Vec::new();
    for (i, v) in w.vms.iter().enumerate() {
        let k = *split_index
            .entry(split_of(w.deployment(v)))
            .or_insert(by_split.len() as u32) as usize;
        if k == by_split.len() {
            by_split.push(Vec::new());
        }
        by_split[k].push(i);
    }
    let mut recent = vec![0u32; n];
    for order in &by_split {
        let mut first = 0usize;
        for (k, &i) in order.iter().enumerate() {
            let t = w.vms[i].created_s;
            while first < k && w.vms[order[first]].created_s <= t - RECENT_WINDOW_S {
                first += 1;
            }
            recent[i] = u32::try_from(k - first).unwrap_or(u32::MAX);
        }
    }
    w.vms
        .iter()
        .enumerate()
        .map(|(i, v)| {
            // whole hours since the origin (times are at most 1e10 s, so this fits)
            let hours = (v.created_s.max(0.0) / HOUR_S) as u64;
            let [cores, memory_gb, _] = w.shape(v);
            VmFeatures {
                cores,
                memory_gb,
                batch_size: if v.has_deployment() {
                    size[v.group()]
                } else {
                    1
                },
                batch_pos: pos[i],
                hour: (hours % 24) as u8,
                weekday: (hours / 24 % 7) as u8,
                recent: recent[i],
            }
        })
        .collect()
}

/// Encodes [`VmFeatures`] into one level per group ([`GROUP_NAMES`]), fitted on training VMs.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoder {
    /// The groups used; the others have a single level.
    used: [bool; GROUPS],
    /// Flavours `(cores, memory GB)` with a level of their own (level = index + 1; 0 = other), sorted.
    flavours: Vec<(f64, f64)>,
    /// Upper edges of the recent-arrivals buckets (training deciles), ascending.
    recent_edges: Vec<f64>,
}

impl Encoder {
    /// Fits the encoder on the features of the training VMs, for the groups `used`.
    pub fn fit(train: &[&VmFeatures], used: [bool; GROUPS]) -> Encoder {
        // flavours: sorted, then counted by runs
        let mut all: Vec<(f64, f64)> = train.iter().map(|f| (f.cores, f.memory_gb)).collect();
        sort_pairs(&mut all);
        let mut flavours: Vec<(f64, f64)> = Vec::new();
        let mut i = 0;
        while i < all.len() {
            let run = all[i..].iter().take_while(|p| same(p, &all[i])).count();
            if run >= MIN_LEVEL_COUNT {
                flavours.push(all[i]);
            }
            i += run;
        }
        let mut r: Vec<f64> = train.iter().map(|f| f.recent as f64).collect();
        sort_f64(&mut r);
        let recent_edges = if r.is_empty() {
            Vec::new()
        } else {
            (1..RECENT_BUCKETS)
                .map(|q| r[(q * r.len() / RECENT_BUCKETS).min(r.len() - 1)])
                .collect()
        };
        Encoder {
            used,
            flavours,
            recent_edges,
        }
    }

    /// Levels per group ([`GROUP_NAMES`] order).
    pub fn levels(&self) -> [usize; GROUPS] {
        let all = [
            self.flavours.len() + 1,
            BATCH_SIZE_BUCKETS.len() + 1,
            POSITION_BUCKETS,
            24,
            7,
            self.recent_edges.len() + 1,
        ];
        std::array::from_fn(|g| if self.used[g] { all[g] } else { 1 })
    }

    /// The level of each group for `f`.
    pub fn encode(&self, f: &VmFeatures) -> [u16; GROUPS] {
        let flavour = self
            .flavours
            .binary_search_by(|p| p.0.total_cmp(&f.cores).then(p.1.total_cmp(&f.memory_gb)))
            .map(|i| i + 1)
            .unwrap_or(0);
        let batch = BATCH_SIZE_BUCKETS.partition_point(|&b| b < f.batch_size);
        let pos = ((u32::BITS - f.batch_pos.leading_zeros()) as usize).min(POSITION_BUCKETS - 1);
        let recent = self.recent_edges.partition_point(|&e| e < f.recent as f64);
        let all = [
            flavour as u16,
            batch as u16,
            pos as u16,
            f.hour.min(23) as u16,
            f.weekday.min(6) as u16,
            recent as u16,
        ];
        std::array::from_fn(|g| if self.used[g] { all[g] } else { 0 })
    }
}

/// Equal pairs under `total_cmp`.
fn same(a: &(f64, f64), b: &(f64, f64)) -> bool {
    a.0.total_cmp(&b.0).is_eq() && a.1.total_cmp(&b.1).is_eq()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Vm, Workload, WorkloadFormat};

    fn vm(id: &str, dep: Option<&str>, t: f64, cores: f64) -> Vm {
        Vm {
            id: id.into(),
            tenant: None,
            deployment: dep.map(Into::into),
            category: None,
            cores,
            memory_gb: 2.0 * cores,
            gpus: 0.0,
            created_s: t,
            started_s: None,
            deleted_s: Some(t + 600.0),
            censored_at_s: None,
            lifetime_range_s: None,
            io_bytes: None,
            usage: None,
        }
    }

    #[test]
    fn batches_calendar_and_recent_arrivals_by_hand() {
        let w = Workload {
            name: "w".into(),
            source: WorkloadFormat::AzureArrivals,
            vms: vec![
                vm("a", Some("dev:0"), 0.0, 1.0),
                vm("b", Some("dev:0"), 0.0, 2.0),
                vm("c", Some("dev:1"), 1800.0, 1.0),
                vm("d", Some("dev:2"), 3600.0, 1.0),
                // another split: its own window
                vm("e", Some("test:0"), 3600.0, 1.0),
                vm("f", None, 90_000.0, 4.0),
            ],
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s: 100_000.0,
            notes: Vec::new(),
        };
        let f = extract(&WorkloadFacts::from_workload(&w).unwrap());
        assert_eq!(
            f.iter()
                .map(|x| (x.batch_size, x.batch_pos))
                .collect::<Vec<_>>(),
            vec![(2, 0), (2, 1), (1, 0), (1, 0), (1, 0), (1, 0)]
        );
        // a: nothing before; b: a (same bin, before it); c: a, b; d at 3600: a and b are exactly 1 h old (out), c in
        assert_eq!(
            f.iter().map(|x| x.recent).collect::<Vec<_>>(),
            vec![0, 1, 2, 1, 0, 0]
        );
        // 90,000 s = day 1, 01:00
        assert_eq!((f[5].hour, f[5].weekday), (1, 1));
        assert_eq!((f[3].hour, f[3].weekday), (1, 0));
        let refs: Vec<&VmFeatures> = f.iter().collect();
        let enc = Encoder::fit(&refs, [true; GROUPS]);
        // no flavour reaches 10 VMs: all "other"
        assert_eq!(enc.levels()[0], 1);
        assert_eq!(enc.encode(&f[1])[..3], [0, 1, 1]);
        let big = VmFeatures {
            batch_size: 51,
            batch_pos: 40,
            ..f[0].clone()
        };
        assert_eq!(enc.encode(&big)[1..3], [10, 6]);
        let mid = VmFeatures {
            batch_size: 6,
            batch_pos: 5,
            ..f[0].clone()
        };
        assert_eq!(enc.encode(&mid)[1..3], [5, 3]);
        // a flavour seen 10 times gets its own level (sorted by cores, then memory)
        let many: Vec<VmFeatures> = (0..MIN_LEVEL_COUNT)
            .map(|_| VmFeatures {
                cores: 2.0,
                memory_gb: 4.0,
                ..f[0].clone()
            })
            .chain(f.iter().cloned())
            .collect();
        let enc2 = Encoder::fit(&many.iter().collect::<Vec<_>>(), [true; GROUPS]);
        assert_eq!(enc2.levels()[0], 2);
        assert_eq!((enc2.encode(&many[0])[0], enc2.encode(&f[0])[0]), (1, 0));
        // a group left out has one level and encodes as 0
        let no_hour = Encoder::fit(&refs, parse_groups("flavour,batch_size").unwrap());
        assert_eq!(no_hour.levels()[3], 1);
        assert_eq!(no_hour.encode(&f[5]), [0, 0, 0, 0, 0, 0]);
        assert_eq!(parse_groups("all").unwrap(), [true; GROUPS]);
        assert_eq!(parse_groups("").unwrap(), [false; GROUPS]);
        assert!(parse_groups("zone").is_err());
    }
}
