//! A workload's VMs as compact records of what the lifetime model reads (ALGORITHMS.md §5.1, §5.2, §5.9;
//! issue 30): creation, exit or censoring, shape, tenant batch and lifetime bin, 24 bytes per VM against the
//! 216 bytes of a [`Vm`], with the few distinct shapes, batches and bins in tables beside them.
//!
//! The tables are indexed by `u16`: at most [`MAX_SHAPES`] distinct shapes and [`MAX_RANGES`] distinct bins
//! (the bundled arrivals have 16 and 752, the bins clipped at the cuts), an error beyond. Built directly from
//! parsed Azure arrivals ([`WorkloadFacts::from_arrivals`], so the lifetime run on the bundled arrivals never
//! holds a [`Vm`] per VM), or converted from any [`Workload`] ([`WorkloadFacts::from_workload`]: vmtable,
//! Alibaba, synthetic). Both give the same facts for the same arrivals, in the workload's order (index `i` here
//! is `Workload::vms[i]`); only the tables' numbering (order of first use) may differ.
//!
//! [`Vm`]: super::record::Vm

use super::azure::arrivals::AzureArrivals;
use super::azure::{arrival_lifetime, select_splits};
use super::format::WorkloadFormat;
use super::record::Workload;
use crate::input::TraceError;
use compact_str::{format_compact, CompactString};
use std::collections::HashMap;

/// Flag of [`VmFacts::group`]: the VM has no deployment (its group is keyed by its id).
const NO_DEPLOYMENT: u32 = 1 << 31;
/// [`VmFacts::life`]: the exit `end_s` is exact.
const LIFE_EXACT: u16 = 0;
/// [`VmFacts::life`]: censored at the workload's end.
const LIFE_CENSORED: u16 = 1;
/// [`VmFacts::life`]: censored at `end_s`, before the workload's end.
const LIFE_CENSORED_AT: u16 = 2;
/// [`VmFacts::life`] values from this one on: an exit `end_s` given as a bin, [`WorkloadFacts::ranges`]
/// `[life − LIFE_RANGE]`.
const LIFE_RANGE: u16 = 3;
/// Most distinct shapes `(cores, memory, GPUs)` one workload's facts may hold.
pub const MAX_SHAPES: usize = u16::MAX as usize + 1;
/// Most distinct lifetime bins `[lo, hi]` one workload's facts may hold.
pub const MAX_RANGES: usize = (u16::MAX - LIFE_RANGE) as usize + 1;

/// The index of `value` (numbers, compared bit for bit) in `table`, appended when new and `table` holds fewer than
/// `max` entries; `None` when it is new and the table is full. `index` maps each entry's bits to its index.
fn intern<const N: usize>(
    table: &mut Vec<[f64; N]>,
    index: &mut HashMap<[u64; N], u16>,
    value: [f64; N],
    max: usize,
) -> Option<u16> {
    let key = value.map(f64::to_bits);
    if let Some(&i) = index.get(&key) {
        return Some(i);
    }
    if table.len() >= max {
        return None;
    }
    let i = table.len() as u16;
    table.push(value);
    index.insert(key, i);
    Some(i)
}

/// One VM's facts (24 bytes): the [`Vm`] fields the lifetime model reads, the repeated ones as indexes into
/// [`WorkloadFacts`]'s tables.
///
/// [`Vm`]: super::record::Vm
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmFacts {
    /// Creation time, s (`Vm::created_s`).
    pub created_s: f64,
    /// The exit `Vm::deleted_s` when observed, `Vm::censored_at_s` when censored before the workload's end,
    /// else unused (NaN).
    end_s: f64,
    /// Index into [`WorkloadFacts::groups`], with [`NO_DEPLOYMENT`] set when the VM has no deployment.
    group: u32,
    /// Index into [`WorkloadFacts::shapes`].
    shape: u16,
    /// Which of `end_s`'s meanings holds, and the lifetime bin (see the `LIFE_*` constants).
    life: u16,
}

impl VmFacts {
    /// True if the VM's exit was not observed (`Vm::is_censored`).
    pub fn is_censored(&self) -> bool {
        matches!(self.life, LIFE_CENSORED | LIFE_CENSORED_AT)
    }

    /// The exit, s (`Vm::deleted_s`).
    pub fn deleted_s(&self) -> Option<f64> {
        (!self.is_censored()).then_some(self.end_s)
    }

    /// For a VM censored before the workload's end, the time it was last known alive, s (`Vm::censored_at_s`).
    pub fn censored_at_s(&self) -> Option<f64> {
        (self.life == LIFE_CENSORED_AT).then_some(self.end_s)
    }

    /// Observed lifetime, s, as `Vm::lifetime_s`: exit (or censoring time, else `trace_end_s`) − creation,
    /// never negative.
    pub fn lifetime_s(&self, trace_end_s: f64) -> f64 {
        let end = if self.life == LIFE_CENSORED {
            trace_end_s
        } else {
            self.end_s
        };
        (end - self.created_s).max(0.0)
    }

    /// Index of the VM's group: its deployment, or itself when it has none (VMs with equal
    /// `deployment.unwrap_or(id)` share one).
    pub fn group(&self) -> usize {
        (self.group & !NO_DEPLOYMENT) as usize
    }

    /// Whether the VM has a deployment.
    pub fn has_deployment(&self) -> bool {
        self.group & NO_DEPLOYMENT == 0
    }
}

/// A workload's VMs as [`VmFacts`] with their tables, and what the lifetime model reads of the rest.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadFacts {
    /// Workload name (`Workload::name`).
    pub name: String,
    /// Format it was read from.
    pub source: WorkloadFormat,
    /// VMs in the workload's order (sorted by creation, ties in file order).
    pub vms: Vec<VmFacts>,
    /// Distinct shapes `(cores, memory GB, GPUs)`, in order of first use.
    pub shapes: Vec<[f64; 3]>,
    /// Per group: its key, the deployment (or for a VM without one, its id), in order of first use.
    pub groups: Vec<CompactString>,
    /// Distinct lifetime bins `[lo, hi]`, s (`Vm::lifetime_range_s`), in order of first use.
    pub ranges: Vec<[f64; 2]>,
    /// The node inventory `(cores, memory GB, GPUs)` per host (empty when the source has none).
    pub hosts: Vec<[f64; 3]>,
    /// Start of the observation window, s.
    pub trace_start_s: f64,
    /// End of the observation window, s.
    pub trace_end_s: f64,
}

/// Builds the tables while records are added (one map per table, dropped at the end).
struct Builder {
    facts: WorkloadFacts,
    shape_of: HashMap<[u64; 3], u16>,
    range_of: HashMap<[u64; 2], u16>,
}

impl Builder {
    fn new(name: &str, source: WorkloadFormat, capacity: usize) -> Builder {
        Builder {
            facts: WorkloadFacts {
                name: name.to_string(),
                source,
                vms: Vec::with_capacity(capacity),
                shapes: Vec::new(),
                groups: Vec::new(),
                ranges: Vec::new(),
                hosts: Vec::new(),
                trace_start_s: 0.0,
                trace_end_s: 0.0,
            },
            shape_of: HashMap::new(),
            range_of: HashMap::new(),
        }
    }

    fn too_many(&self, what: &str, limit: usize) -> TraceError {
        TraceError::new(
            &self.facts.name,
            None,
            None,
            format!("more than {limit} distinct {what}: too many for the lifetime model's compact records"),
        )
    }

    /// Adds a VM of group `group` (a [`NO_DEPLOYMENT`] flag included).
    fn push(
        &mut self,
        created_s: f64,
        shape: [f64; 3],
        group: u32,
        deleted: Option<f64>,
        range: Option<[f64; 2]>,
        censored_at: Option<f64>,
    ) -> Result<(), TraceError> {
        let Some(shape) = intern(
            &mut self.facts.shapes,
            &mut self.shape_of,
            shape,
            MAX_SHAPES,
        ) else {
            return Err(self.too_many("VM shapes", MAX_SHAPES));
        };
        let (end_s, life) = match (deleted, range, censored_at) {
            (Some(d), None, _) => (d, LIFE_EXACT),
            (Some(d), Some(r), _) => {
                let Some(k) = intern(&mut self.facts.ranges, &mut self.range_of, r, MAX_RANGES)
                else {
                    return Err(self.too_many("lifetime bins", MAX_RANGES));
                };
                (d, LIFE_RANGE + k)
            }
            (None, _, Some(c)) => (c, LIFE_CENSORED_AT),
            (None, _, None) => (f64::NAN, LIFE_CENSORED),
        };
        self.facts.vms.push(VmFacts {
            created_s,
            end_s,
            group,
            shape,
            life,
        });
        Ok(())
    }

    /// The facts, sorted by creation as [`Workload`]'s records are (stable: a sorted list is left as it is).
    fn finish(mut self) -> Result<WorkloadFacts, TraceError> {
        let vms = &mut self.facts.vms;
        if vms.is_empty() {
            return Err(TraceError::new(
                &self.facts.name,
                None,
                None,
                "the workload holds no VMs",
            ));
        }
        if !vms.is_sorted_by(|a, b| a.created_s.total_cmp(&b.created_s).is_le()) {
            vms.sort_by(|a, b| a.created_s.total_cmp(&b.created_s));
        }
        Ok(self.facts)
    }
}

impl WorkloadFacts {
    /// The compact records of a workload's VMs, in its order. Errors: more than [`MAX_SHAPES`] distinct shapes
    /// or [`MAX_RANGES`] distinct lifetime bins (naming the workload).
    pub fn from_workload(w: &Workload) -> Result<WorkloadFacts, TraceError> {
        let mut b = Builder::new(&w.name, w.source, w.vms.len());
        let mut group_of: HashMap<&str, u32> = HashMap::new();
        for v in &w.vms {
            let key = v.deployment.as_deref().unwrap_or(v.id.as_str());
            let n = group_of.len() as u32;
            let g = *group_of.entry(key).or_insert_with(|| {
                b.facts.groups.push(key.into());
                n
            });
            let flag = if v.deployment.is_none() {
                NO_DEPLOYMENT
            } else {
                0
            };
            b.push(
                v.created_s,
                [v.cores, v.memory_gb, v.gpus],
                g | flag,
                v.deleted_s,
                v.lifetime_range_s,
                v.censored_at_s,
            )?;
        }
        b.facts.hosts = w
            .hosts
            .iter()
            .map(|h| [h.cores, h.memory_gb, h.gpus])
            .collect();
        b.facts.trace_start_s = w.trace_start_s;
        b.facts.trace_end_s = w.trace_end_s;
        // already in the workload's order
        Ok(b.facts)
    }

    /// The compact records of parsed arrivals, the same as [`WorkloadFacts::from_workload`] of
    /// [`super::azure::arrivals_to_workload`]'s workload (`split`: one split, `None` = all) without building
    /// it: each tenant batch is its group `<split>:<batch>`, freed once its VMs are records. Errors: as
    /// [`super::azure::arrivals_to_workload`].
    pub fn from_arrivals(
        name: &str,
        data: AzureArrivals,
        split: Option<&str>,
    ) -> Result<WorkloadFacts, TraceError> {
        let sel = select_splits(name, data, split)?;
        let mut b = Builder::new(name, WorkloadFormat::AzureArrivals, sel.count);
        let trace_end = sel.trace_end_s;
        for sp in sel.splits {
            let cut = sp.cut_s as f64;
            for (k, batch) in sp.batches.into_iter().enumerate() {
                let t = batch.t_s as f64;
                let g = b.facts.groups.len() as u32;
                b.facts.groups.push(format_compact!("{}:{k}", sp.name));
                for a in &batch.vms {
                    let memory = sel.flavours.get(a.flavour).map(|f| f.memory_gb);
                    let (deleted, range, censored_at) =
                        arrival_lifetime(a, t, cut, trace_end, &sel.intervals);
                    b.push(
                        t,
                        [a.cores as f64, memory.unwrap_or(0.0), 0.0],
                        g,
                        deleted,
                        range,
                        censored_at,
                    )?;
                }
            }
        }
        b.facts.trace_start_s = sel.trace_start_s;
        b.facts.trace_end_s = trace_end;
        b.finish()
    }

    /// The VM's deployment (`Vm::deployment`).
    pub fn deployment(&self, v: &VmFacts) -> Option<&str> {
        v.has_deployment().then(|| self.groups[v.group()].as_str())
    }

    /// The VM's shape `(cores, memory GB, GPUs)`.
    pub fn shape(&self, v: &VmFacts) -> [f64; 3] {
        self.shapes[v.shape as usize]
    }

    /// The VM's lifetime bin `[lo, hi]`, s, when its exit is given as one (`Vm::lifetime_range_s`).
    pub fn lifetime_range_s(&self, v: &VmFacts) -> Option<[f64; 2]> {
        (v.life >= LIFE_RANGE).then(|| self.ranges[(v.life - LIFE_RANGE) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Vm;

    /// Every fact of every VM equals its [`Vm`]'s field, for the bundled arrivals read both ways (669,435
    /// VMs: binned, censored at the `dev` cut and at the end), and a record is 24 bytes.
    #[test]
    fn arrivals_facts_are_the_records_fields() {
        assert_eq!(std::mem::size_of::<VmFacts>(), 24);
        let b = crate::data::bundled("azure2017-arrivals").unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(b.path);
        let bytes = std::fs::read(&path).unwrap();
        let file = crate::input::InputFile {
            name: b.file_name().into(),
            bytes,
        };
        let w = crate::workload::read_workload(b.id, std::slice::from_ref(&file), None).unwrap();
        let data = crate::workload::azure::read_arrivals_data(b.id, &[file]).unwrap();
        let f = WorkloadFacts::from_arrivals(b.id, data, None).unwrap();
        // the tables' numbering follows first use (the bundle's order or the sorted records'): compared by value
        let g = WorkloadFacts::from_workload(&w).unwrap();
        assert_eq!(f.vms.len(), 669_435);
        assert_eq!(g.vms.len(), 669_435);
        assert_eq!(
            (f.trace_start_s, f.trace_end_s),
            (w.trace_start_s, w.trace_end_s)
        );
        let mut seen = [0usize; 4];
        for ((v, x), y) in w.vms.iter().zip(&f.vms).zip(&g.vms) {
            same(&f, v, x);
            same(&g, v, y);
            seen[usize::from(x.censored_at_s().is_some()) + 2 * usize::from(x.is_censored())] += 1;
        }
        // binned exits, censored at the `dev` cut before the end, censored at the end: all present; the 16
        // flavours of SOURCE.md, the bins clipped at the cuts far under the limit
        assert!(
            seen[0] > 0 && seen[1] == 0 && seen[2] > 0 && seen[3] > 0,
            "{seen:?}"
        );
        assert!(
            f.shapes.len() == 16 && (13..MAX_RANGES / 10).contains(&f.ranges.len()),
            "{} {}",
            f.shapes.len(),
            f.ranges.len()
        );
    }

    fn same(f: &WorkloadFacts, v: &Vm, x: &VmFacts) {
        assert_eq!(x.created_s.to_bits(), v.created_s.to_bits());
        assert_eq!(
            x.deleted_s().map(f64::to_bits),
            v.deleted_s.map(f64::to_bits)
        );
        assert_eq!(
            x.censored_at_s().map(f64::to_bits),
            v.censored_at_s.map(f64::to_bits)
        );
        assert_eq!(x.is_censored(), v.is_censored());
        assert_eq!(x.lifetime_s(7e6).to_bits(), v.lifetime_s(7e6).to_bits());
        let r = |r: Option<[f64; 2]>| r.map(|r| r.map(f64::to_bits));
        if !v.is_censored() {
            assert_eq!(r(f.lifetime_range_s(x)), r(v.lifetime_range_s));
        }
        assert_eq!(f.deployment(x), v.deployment.as_deref());
        assert_eq!(
            f.shape(x).map(f64::to_bits),
            [v.cores, v.memory_gb, v.gpus].map(f64::to_bits)
        );
    }

    fn vm(id: &str, deployment: Option<&str>, created: f64, deleted: Option<f64>) -> Vm {
        Vm {
            id: id.into(),
            tenant: None,
            deployment: deployment.map(Into::into),
            category: None,
            cores: 2.0,
            memory_gb: 4.0,
            gpus: 0.0,
            created_s: created,
            started_s: None,
            deleted_s: deleted,
            censored_at_s: None,
            lifetime_range_s: None,
            io_bytes: None,
            usage: None,
        }
    }

    /// Groups by hand: VMs with one deployment share a group, a VM without one is its own (keyed by its id);
    /// shapes and exits as the records give them.
    #[test]
    fn groups_and_exits_by_hand() {
        let mut w = Workload {
            name: "w".into(),
            source: WorkloadFormat::AzureVmtable,
            vms: vec![
                vm("a", Some("d1"), 0.0, Some(10.0)),
                vm("b", None, 5.0, None),
                vm("c", Some("d1"), 6.0, Some(7.0)),
                vm("d", Some("d2"), 8.0, None),
            ],
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s: 100.0,
            notes: Vec::new(),
        };
        w.vms[3].cores = 8.0;
        w.vms[3].censored_at_s = Some(50.0);
        let f = WorkloadFacts::from_workload(&w).unwrap();
        let g: Vec<usize> = f.vms.iter().map(VmFacts::group).collect();
        assert_eq!(g, [0, 1, 0, 2]);
        assert_eq!(f.groups, ["d1", "b", "d2"]);
        assert_eq!(f.deployment(&f.vms[1]), None);
        assert_eq!(f.shapes, [[2.0, 4.0, 0.0], [8.0, 4.0, 0.0]]);
        let life: Vec<f64> = f.vms.iter().map(|v| v.lifetime_s(100.0)).collect();
        assert_eq!(life, [10.0, 95.0, 1.0, 42.0]);
        assert_eq!(f.vms[3].censored_at_s(), Some(50.0));
        assert_eq!(f.vms[1].deleted_s(), None);
    }

    /// [`MAX_SHAPES`] distinct shapes fit; one more is an error naming the workload, not a wrapped index.
    #[test]
    fn too_many_shapes_is_an_error() {
        let mut w = Workload {
            name: "wide".into(),
            source: WorkloadFormat::AlibabaGpu2023,
            vms: (0..MAX_SHAPES)
                .map(|k| {
                    let mut v = vm(&format!("v{k}"), None, 0.0, None);
                    v.cores = 1.0 + k as f64;
                    v
                })
                .collect(),
            hosts: Vec::new(),
            trace_start_s: 0.0,
            trace_end_s: 1.0,
            notes: Vec::new(),
        };
        let f = WorkloadFacts::from_workload(&w).unwrap();
        assert_eq!(f.shape(&f.vms[MAX_SHAPES - 1])[0], MAX_SHAPES as f64);
        w.vms.push(vm("last", None, 0.0, None));
        w.vms.last_mut().unwrap().memory_gb = 5.0;
        let e = WorkloadFacts::from_workload(&w).unwrap_err().to_string();
        assert!(
            e.contains("wide") && e.contains("65536 distinct VM shapes"),
            "{e}"
        );
    }
}
