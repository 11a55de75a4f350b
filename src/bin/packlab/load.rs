//! The CLI's inputs: files and folders read into `InputFile`s, usage traces (`--trace`, bundled ones found
//! from the repository), workloads (`--workload`, bundled, synthetic), the scenario references of given
//! files (`--print-link`), and one registry run on the loaded inputs (`run_report`). The command files
//! import this module, never `main.rs`.

use clap::Args;
use packlab::input::InputFile;
use packlab::scenario::{Scenario, TraceRef, ValidScenario, WorkloadRef};
use packlab::trace::{self, TraceFormat, UsageTrace};
use packlab::workload::{Workload, WorkloadFacts};
use std::path::{Path, PathBuf};

/// A usage trace given on the command line.
#[derive(Args, Debug, Clone)]
pub struct TraceArgs {
    /// Trace path: a PlanetLab day folder (one file per VM, CPU % per line), a .zip of one, a long CSV
    /// `item,time,usage` (usage in VM units), a packlab wide .tsv/.tsv.gz file, a Bitbrains GWA-T-12 folder,
    /// Azure 2019 CPU readings files or an Alibaba 2018 machine_usage.csv.
    #[arg(long, value_name = "PATH")]
    pub trace: PathBuf,
    /// Trace format: planetlab | csv | wide | bitbrains | azure-readings-avg | azure-readings-max |
    /// alibaba-machine-usage (default: guessed from the names and first lines: .tsv/.tsv.gz = wide, a .csv
    /// or a folder of them by its header, any other folder or .zip = planetlab).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

/// Reads a path into input files: a folder's regular files (names relative to the folder's parent, so the
/// folder name is kept), or a single file.
fn read_files(path: &Path) -> Result<Vec<InputFile>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        let folder = path
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| ".".into());
        let mut out = Vec::new();
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for ent in entries {
            let ent = ent.map_err(|e| format!("{}: {e}", path.display()))?;
            let p = ent.path();
            if p.is_file() {
                let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                out.push(InputFile {
                    name: format!("{folder}/{}", ent.file_name().to_string_lossy()),
                    bytes,
                });
            }
        }
        if out.is_empty() {
            return Err(format!("{}: the folder holds no files", path.display()));
        }
        Ok(out)
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| path.display().to_string());
        Ok(vec![InputFile { name, bytes }])
    }
}

fn load_files(
    files: &[InputFile],
    path: &Path,
    format: Option<&str>,
) -> Result<UsageTrace, String> {
    let fmt = format.map(TraceFormat::parse).transpose()?;
    let name = packlab::input::upload_name(files);
    let name = if name == "upload" {
        path.display().to_string()
    } else {
        name
    };
    trace::read_trace(&name, files, fmt).map_err(|e| e.to_string())
}

pub fn load_trace(a: &TraceArgs) -> Result<UsageTrace, String> {
    let files = read_files(&a.trace)?;
    load_files(&files, &a.trace, a.format.as_deref())
}

/// Finds a bundled trace's file: relative to the working directory, to the executable's repository
/// (target/<profile>/packlab → repository root), or to the source tree this binary was built from.
fn bundled_path(rel: &str) -> Option<PathBuf> {
    let mut cands = vec![PathBuf::from(rel)];
    if let Ok(exe) = std::env::current_exe() {
        for anc in exe.ancestors().skip(1).take(4) {
            cands.push(anc.join(rel));
        }
    }
    cands.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel));
    cands.into_iter().find(|p| p.is_file())
}

/// What a scenario's model reads, loaded: its usage trace or its workload (or neither).
#[derive(Default)]
pub struct Loaded {
    trace: Option<UsageTrace>,
    workload: Option<Workload>,
    /// The workload as the lifetime model's compact records, read so for that model (issue 30).
    facts: Option<WorkloadFacts>,
}

/// Loads what the model of `sc` reads (registry facts `uses_trace`, `uses_workload`, `reads_facts`): `trace` / `workload`
/// when given (checked against an upload's SHA-256, overriding a bundled reference), else the bundled file.
pub fn load_inputs(
    sc: &Scenario,
    trace: Option<&Path>,
    workload: Option<&Path>,
) -> Result<Loaded, String> {
    let info = sc.model.info();
    if info.reads_facts {
        // it reads only the compact records: arrivals are read without a VM record per VM
        return Ok(Loaded {
            facts: Some(load_facts(&sc.workload, workload)?),
            ..Loaded::default()
        });
    }
    if info.uses_workload {
        return Ok(Loaded {
            workload: Some(load_workload(&sc.workload, workload)?),
            ..Loaded::default()
        });
    }
    if !info.uses_trace {
        // e.g. the admission model (seed 000) needs no trace
        return Ok(Loaded::default());
    }
    let t = match (&sc.trace, trace) {
        (_, Some(path)) => {
            let files = read_files(path)?;
            let t = load_files(&files, path, None)?;
            if let TraceRef::Upload { sha256, name } = &sc.trace {
                // the content's hash, or the files' hash of a link made before content identity
                let got = t.content_sha256();
                if &got != sha256 && &packlab::input::upload_sha256(&files) != sha256 {
                    return Err(format!("{}: its content's SHA-256 {got} differs from the scenario's upload '{name}' ({sha256}); not the same trace", path.display()));
                }
            }
            t
        }
        (TraceRef::Bundled(id), None) => load_bundled_trace(id)?,
        (TraceRef::Upload { name, .. }, None) => {
            return Err(format!(
                "the scenario uses the uploaded trace '{name}': pass it with --trace PATH"
            ))
        }
    };
    Ok(Loaded {
        trace: Some(t),
        ..Loaded::default()
    })
}

/// Loads bundled trace `id` from its file (found by [`bundled_path`]). Errors: unknown id, missing file, a
/// file that does not parse.
pub fn load_bundled_trace(id: &str) -> Result<UsageTrace, String> {
    let b = packlab::data::bundled_trace(id).ok_or_else(|| format!("no bundled trace '{id}'"))?;
    let path = bundled_path(b.path).ok_or_else(|| {
        format!(
            "bundled trace file {} not found (run from the repository)",
            b.path
        )
    })?;
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    trace::read_trace(id, &[InputFile { name: file, bytes }], b.format).map_err(|e| e.to_string())
}

/// The scenario reference of the trace at `a` (for `--print-link`): the bundled trace whose content (VMs,
/// samples, usage values, interval, grid) equals it, else an upload reference with the name and the content's
/// SHA-256 the playground computes for the same data (the user uploads it, picked any way, to reproduce).
pub fn trace_ref_of(a: &TraceArgs) -> Result<TraceRef, String> {
    let files = read_files(&a.trace)?;
    let t = load_files(&files, &a.trace, a.format.as_deref())?;
    for b in packlab::data::BUNDLED_DATA
        .iter()
        .filter(|b| b.kind == packlab::data::DataKind::UsageTrace)
    {
        if let Ok(bt) = load_bundled_trace(b.id) {
            if (&bt.items, bt.samples, &bt.usage, bt.interval_s, &bt.grid)
                == (&t.items, t.samples, &t.usage, t.interval_s, &t.grid)
            {
                return Ok(TraceRef::Bundled(b.id.to_string()));
            }
        }
    }
    Ok(TraceRef::Upload {
        name: packlab::input::upload_name(&files),
        sha256: t.content_sha256(),
    })
}

/// The upload reference of the workload at `path` (for `--print-link`): the name and SHA-256 the playground
/// computes for the same files.
pub fn workload_upload_ref(path: &Path) -> Result<WorkloadRef, String> {
    let files = read_workload_files(path)?;
    Ok(WorkloadRef::Upload {
        name: packlab::input::upload_name(&files),
        sha256: packlab::input::upload_sha256(&files),
    })
}

/// Reads a path into input files for a workload: a single file, or a folder's files and those of its
/// immediate subfolders (the Azure arrivals folder has `maps/` and `traces/`), named relative to the folder's
/// parent, in name order.
fn read_workload_files(path: &Path) -> Result<Vec<InputFile>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_dir() {
        return read_files(path);
    }
    let mut out = read_files(path).unwrap_or_default();
    let folder = path
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| ".".into());
    for ent in std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))? {
        let p = ent.map_err(|e| format!("{}: {e}", path.display()))?.path();
        if p.is_dir() {
            for f in read_files(&p).unwrap_or_default() {
                out.push(InputFile {
                    name: format!("{folder}/{}", f.name),
                    bytes: f.bytes,
                });
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{}: the folder holds no files", path.display()));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Loads the workload `r` refers to: `path` when given (checked against an upload's SHA-256), else the
/// bundled file.
pub fn load_workload(r: &WorkloadRef, path: Option<&Path>) -> Result<Workload, String> {
    load_as(
        r,
        path,
        |name, files| {
            packlab::workload::read_workload(name, files, None).map_err(|e| e.to_string())
        },
        |b, path| b.read_workload_at(path),
        Ok,
    )
}

/// Loads the workload `r` refers to as [`load_workload`] does, as the lifetime model's compact records
/// (arrivals without a VM record per VM; issue 30).
pub fn load_facts(r: &WorkloadRef, path: Option<&Path>) -> Result<WorkloadFacts, String> {
    load_as(
        r,
        path,
        |name, files| packlab::workload::read_facts(name, files, None).map_err(|e| e.to_string()),
        |b, path| b.read_facts_at(path),
        |w| WorkloadFacts::from_workload(&w).map_err(|e| e.to_string()),
    )
}

/// [`load_workload`] with the readers of an upload (`read`), of a bundled file (`bundled`) and the conversion
/// of a generated workload (`generated`).
fn load_as<T>(
    r: &WorkloadRef,
    path: Option<&Path>,
    read: impl Fn(&str, &[InputFile]) -> Result<T, String>,
    bundled: impl Fn(&packlab::data::BundledData, &Path) -> Result<T, String>,
    generated: impl Fn(Workload) -> Result<T, String>,
) -> Result<T, String> {
    match (r, path) {
        (_, Some(path)) => {
            let files = read_workload_files(path)?;
            if let WorkloadRef::Upload { sha256, name } = r {
                let got = packlab::input::upload_sha256(&files);
                if &got != sha256 {
                    return Err(format!("{}: SHA-256 {got} differs from the scenario's upload '{name}' ({sha256}); not the same workload", path.display()));
                }
            }
            read(&path.display().to_string(), &files)
        }
        (WorkloadRef::Bundled(id), None) => {
            let b = packlab::data::bundled(id)
                .filter(|b| b.kind.is_workload())
                .ok_or_else(|| format!("no bundled workload '{id}'"))?;
            let path = bundled_path(b.path).ok_or_else(|| {
                format!(
                    "bundled file {} not found (run from the repository)",
                    b.path
                )
            })?;
            bundled(b, &path)
        }
        (WorkloadRef::Upload { name, .. }, None) => Err(format!(
            "the scenario uses the uploaded workload '{name}': pass it with --workload PATH"
        )),
        (WorkloadRef::Synthetic(p), None) => {
            generated(packlab::workload::synthetic::generate(p).map_err(|e| e.to_string())?)
        }
    }
}

/// Runs any model's validated scenario to the end through the registry and the experiment contract (all cores) on its
/// loaded inputs and returns its report as one JSON line (what `packlab run` prints). `progress(done, total)`
/// sees the units of work; false cancels.
pub fn run_report(
    sc: &ValidScenario,
    loaded: &Loaded,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<String, String> {
    let inputs = packlab::models::Inputs {
        trace: loaded.trace.as_ref(),
        workload: loaded.workload.as_ref(),
        facts: loaded.facts.as_ref(),
        ..Default::default()
    };
    let mut run = packlab::scenario::start_valid(sc, &inputs).map_err(|e| e.to_string())?;
    packlab::experiment::drive(&mut run, progress).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    run.report(&mut serde_json::Serializer::new(&mut out))
        .ok_or("the experiment ended without a report")?
        .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}
