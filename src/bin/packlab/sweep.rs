//! `packlab sweep` (run a sweep file's cells, whole or one shard) and `packlab merge` (combine the shards'
//! results into the results of the whole sweep); the sweep itself is `packlab::sweep`.

use clap::Args;
use packlab::sweep::{self, CellResult, Shard, Sweep, SweepResults};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep file (JSON: `{"scenario": {...} or "LINK", "axes": [{"field": "placement.capacity",
    /// "values": [0.5, 1, 2]}, …]}`). A `scripts` entry of the scenario may give `"source_file": PATH`
    /// (relative to the sweep file) instead of `"source"`: a policy script of your own in every cell.
    #[arg(value_name = "SWEEP.json")]
    file: PathBuf,
    /// Run only shard I of N (0 ≤ I < N): the cells I, I + N, I + 2N, … (e.g. `--shard
    /// $JOB_COMPLETION_INDEX/4` in a Kubernetes Indexed Job, `--shard $SLURM_ARRAY_TASK_ID/4` in a Slurm
    /// array). Default: the whole sweep.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Folder for the results: `shard-I-of-N.json`; the whole sweep also writes `results.json` and
    /// `results.csv` (what `packlab merge` writes from the shards).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The uploaded trace the scenario refers to (as in `packlab run`).
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// The uploaded workload the scenario refers to (as in `packlab run`).
    #[arg(long, value_name = "PATH")]
    workload: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The folder holding every shard's `shard-I-of-N.json`; `results.json` and `results.csv` are written
    /// there.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// `packlab sweep`: checks every cell first, then runs the shard's cells one after another (each on all
/// cores) and writes the shard's results.
pub fn run(a: &SweepArgs) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let mut sw = Sweep::parse(&text).map_err(|e| format!("{}: {e}", a.file.display()))?;
    // policy scripts named by file, relative to the sweep file
    let dir = a.file.parent().unwrap_or(Path::new("."));
    sw.read_script_files(|p| {
        std::fs::read_to_string(dir.join(p)).map_err(|e| format!("{}: {e}", dir.join(p).display()))
    })
    .map_err(|e| format!("{}: {e}", a.file.display()))?;
    let shard = a.shard.unwrap_or(Shard::WHOLE);
    // every cell is checked before any runs (those of the other shards too: a shard never fails half way)
    let all = sw
        .cells()
        .map_err(|e| format!("{}: {e}", a.file.display()))?;
    let cells: Vec<_> = shard.cells(all.len()).map(|i| all[i].clone()).collect();
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let mut results = sw.results(shard);
    let mut progress = crate::progress::Progress::new("packlab sweep", "cells");
    // inputs are loaded once per distinct trace/workload reference
    let mut loaded: Vec<(String, crate::load::Loaded)> = Vec::new();
    for (k, cell) in cells.iter().enumerate() {
        progress.update(k, cells.len());
        let sc = &cell.scenario;
        let key = serde_json::to_string(&(&sc.model, &sc.trace, &sc.workload)).unwrap_or_default();
        let at = match loaded.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                let l = crate::load::load_inputs(sc, a.trace.as_deref(), a.workload.as_deref())
                    .map_err(|e| format!("cell {}: {e}", cell.index))?;
                loaded.push((key, l));
                loaded.len() - 1
            }
        };
        let valid = sc
            .clone()
            .into_valid()
            .map_err(|errs| format!("cell {}: {}", cell.index, errs[0]))?;
        let report = crate::load::run_report(&valid, &loaded[at].1, &mut |_, _| true)
            .map_err(|e| format!("cell {}: {e}", cell.index))?;
        let report = serde_json::from_str(&report).map_err(|e| e.to_string())?;
        results.cells.push(CellResult::new(cell, report));
    }
    progress.update(cells.len(), cells.len());
    progress.finish();
    let name = format!("shard-{}-of-{}.json", shard.index, shard.count);
    write_json(&a.out.join(&name), &results)?;
    eprintln!(
        "packlab sweep: {} of {} cells → {}",
        results.cells.len(),
        sw.len(),
        a.out.join(&name).display()
    );
    if shard.count == 1 {
        write_merged(&a.out, sweep::merge(vec![results])?)?;
    }
    Ok(())
}

/// `packlab merge`: reads every `shard-*-of-*.json` of the folder and writes the merged results.
pub fn merge(a: &MergeArgs) -> Result<(), String> {
    let dir = &a.dir;
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
        })
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!("{}: no shard-I-of-N.json files", dir.display()));
    }
    let mut shards = Vec::new();
    for p in &names {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let r: SweepResults = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}:{}:{}: not sweep results: {e}",
                p.display(),
                e.line(),
                e.column()
            )
        })?;
        shards.push(r);
    }
    let merged = sweep::merge(shards).map_err(|e| format!("{}: {e}", dir.display()))?;
    eprintln!(
        "packlab merge: {} shards, {} cells",
        names.len(),
        merged.cells.len()
    );
    write_merged(dir, merged)
}

fn write_merged(dir: &Path, r: SweepResults) -> Result<(), String> {
    write_json(&dir.join("results.json"), &r)?;
    let p = dir.join("results.csv");
    std::fs::write(&p, sweep::to_csv(&r)).map_err(|e| format!("{}: {e}", p.display()))
}

fn write_json(p: &Path, r: &SweepResults) -> Result<(), String> {
    std::fs::write(p, r.to_json()).map_err(|e| format!("{}: {e}", p.display()))
}
