//! The Azure public **vmtable** CSV in the 2017 (V1) and 2019 (V2) schemas ([`read_vmtable`]), with
//! subscription and deployment ids (seed 000 App. B, ALGORITHMS.md §2.1).

use crate::input::parse::{col_of, err, lines};
use crate::input::{TraceError, MAX_TIME_S};
use crate::workload::record::{CpuStats, UsageRef, Vm};
use serde::Serialize;

/// Schema of an Azure public vmtable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum VmtableSchema {
    /// Azure Public Dataset V1 (2017): exact core counts and memory, no header, trace end 2,591,700 s.
    V1_2017,
    /// Azure Public Dataset V2 (2019): core-count and memory buckets (`>24`, `>64`), trace end 2,591,400 s;
    /// with or without the header line of ../shared/data/azure-v2-20vm-cpu-readings (an extra 12th column
    /// `duration` is accepted and ignored).
    V2_2019,
}

impl VmtableSchema {
    /// The end-of-trace timestamp (s): a VM with `deleted ≥` this value was alive at the end (censored).
    pub fn trace_end_s(&self) -> u64 {
        match self {
            VmtableSchema::V1_2017 => 2_591_700,
            VmtableSchema::V2_2019 => 2_591_400,
        }
    }
}

/// A parsed vmtable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmTable {
    /// File name.
    pub name: String,
    /// Detected schema.
    pub schema: VmtableSchema,
    /// True if the file had a header line.
    pub header: bool,
    /// Rows in file order, as workload VMs (see [`crate::workload::AzureVmtableReader`] for the fields): ids,
    /// sizes, created and deleted times (`deleted_s` `None` when at or after the schema's trace end) and the
    /// CPU statistics (`usage.stats`, percent / 100).
    pub rows: Vec<Vm>,
}

impl VmTable {
    /// End of the observation window (s): the schema's trace end.
    pub fn trace_end_s(&self) -> u64 {
        self.schema.trace_end_s()
    }
}

/// Reads an Azure vmtable CSV (V1 2017 or V2 2019), detecting the schema: from the header when there is one
/// (V2 names such as `vm_virtual_core_count_bucket` / `vmcorecountbucket` → V2; `vmcorecount` → V1); without a
/// header V2 if any core or memory field is a `>` bucket or the largest deletion time is 2,591,400 s, else V1.
/// Errors: wrong column count, unparsable numbers (with line and column), deletion before creation or after
/// [`MAX_TIME_S`], no rows.
pub fn read_vmtable(file: &str, text: &str) -> Result<VmTable, TraceError> {
    let mut rows = Vec::new();
    let mut header = false;
    let mut schema_hint: Option<VmtableSchema> = None;
    let mut saw_bucket = false;
    let mut max_deleted = 0u64;
    for (ln, l) in lines(text) {
        let fields: Vec<&str> = l.split(',').collect();
        let mut starts = Vec::with_capacity(fields.len());
        let mut o = 0;
        for f in &fields {
            starts.push(o);
            o += f.len() + 1;
        }
        let col = |i: usize| col_of(l, starts[i]);
        if rows.is_empty()
            && !header
            && fields.len() >= 4
            && fields[3].trim().parse::<u64>().is_err()
        {
            header = true;
            let low: Vec<String> = fields
                .iter()
                .map(|f| f.trim().to_ascii_lowercase())
                .collect();
            if low.iter().any(|f| f.contains("bucket")) {
                schema_hint = Some(VmtableSchema::V2_2019);
            } else if low
                .iter()
                .any(|f| f == "vmcorecount" || f == "vm_virtual_core_count" || f == "corecount")
            {
                schema_hint = Some(VmtableSchema::V1_2017);
            }
            continue;
        }
        if fields.len() != 11 && fields.len() != 12 {
            return Err(err(
                file,
                ln,
                1,
                format!(
                    "{} columns; a vmtable row has 11 (or 12 with duration)",
                    fields.len()
                ),
            ));
        }
        let int = |i: usize, what: &str| -> Result<u64, TraceError> {
            fields[i].trim().parse::<u64>().map_err(|_| {
                err(
                    file,
                    ln,
                    col(i),
                    format!("{what} '{}' is not a non-negative integer", fields[i]),
                )
            })
        };
        let num = |i: usize, what: &str| -> Result<f64, TraceError> {
            fields[i]
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    err(
                        file,
                        ln,
                        col(i),
                        format!("{what} '{}' is not a number", fields[i]),
                    )
                })
        };
        let created = int(3, "vmcreated")?;
        let deleted = int(4, "vmdeleted")?;
        if deleted as f64 > MAX_TIME_S {
            return Err(err(
                file,
                ln,
                col(4),
                format!("vmdeleted {deleted} s is beyond the largest time {MAX_TIME_S} s"),
            ));
        }
        if deleted < created {
            return Err(err(
                file,
                ln,
                col(4),
                format!("deleted {deleted} s before created {created} s"),
            ));
        }
        let (cores, memory_gb) = {
            let c = fields[9].trim();
            let m = fields[10].trim();
            let cores = if c.starts_with('>') {
                saw_bucket = true;
                32
            } else {
                c.parse::<f64>()
                    .ok()
                    .filter(|v| *v >= 1.0 && v.fract() == 0.0)
                    .map(|v| v as u32)
                    .ok_or_else(|| {
                        err(
                            file,
                            ln,
                            col(9),
                            format!("core count '{c}' is not a positive integer or '>24'"),
                        )
                    })?
            };
            let mem = if m.starts_with('>') {
                saw_bucket = true;
                128.0
            } else {
                m.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| {
                        err(
                            file,
                            ln,
                            col(10),
                            format!("memory '{m}' is not a number or '>64'"),
                        )
                    })?
            };
            (cores, mem)
        };
        for (i, f) in fields.iter().enumerate().take(3) {
            if f.trim().is_empty() {
                return Err(err(file, ln, col(i), "empty id"));
            }
        }
        max_deleted = max_deleted.max(deleted);
        let (max_cpu, avg_cpu, p95_max_cpu) =
            (num(5, "maxcpu")?, num(6, "avgcpu")?, num(7, "p95maxcpu")?);
        rows.push(Vm {
            id: fields[0].trim().into(),
            tenant: Some(fields[1].trim().into()),
            deployment: Some(fields[2].trim().into()),
            category: Some(fields[8].trim().into()),
            cores: cores as f64,
            memory_gb,
            gpus: 0.0,
            created_s: created as f64,
            started_s: None,
            // censored below once the schema (its trace end) is known
            deleted_s: Some(deleted as f64),
            censored_at_s: None,
            lifetime_range_s: None,
            io_bytes: None,
            usage: Some(Box::new(UsageRef {
                stats: Some(CpuStats {
                    avg: avg_cpu / 100.0,
                    max: max_cpu / 100.0,
                    p95_max: p95_max_cpu / 100.0,
                }),
                series: None,
            })),
        });
    }
    if rows.is_empty() {
        return Err(TraceError::new(file, None, None, "no vmtable rows"));
    }
    let schema = schema_hint.unwrap_or(
        if saw_bucket || max_deleted == VmtableSchema::V2_2019.trace_end_s() {
            VmtableSchema::V2_2019
        } else {
            VmtableSchema::V1_2017
        },
    );
    let end = schema.trace_end_s() as f64;
    for vm in &mut rows {
        if vm.deleted_s.is_some_and(|d| d >= end) {
            vm.deleted_s = None;
        }
    }
    Ok(VmTable {
        name: file.to_string(),
        schema,
        header,
        rows,
    })
}
