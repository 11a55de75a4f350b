//! `packlab`: the command-line front end of the packlab engine (same engine as the browser playground).
//!
//! Every subcommand prints results on stdout (JSON with `--json`) and, on bad input, one line on stderr
//! naming the problem and exits non-zero; it never panics on user input.

mod admission;
mod common;
mod era;
mod lifetime;
mod oversub;
mod placement;
mod progress;
mod sweep;

use clap::{Args, Parser, Subcommand};
use packlab::input::InputFile;
use packlab::scenario::{Scenario, TraceRef, WorkloadRef};
use packlab::trace::{self, TraceFormat, UsageTrace};
use packlab::workload::Workload;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "packlab",
    version,
    about = "Cloud resource management algorithms of five papers: stochastic bin packing (GPA), admission control, … — native CLI of the packlab playground"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a Scenario JSON file (or a share link) of any model exactly as the playground does; prints its report.
    Run(RunArgs),
    /// Run a sweep file's cells (a scenario over axes of values and seeds), whole or one shard `--shard I/N`
    /// of a batch job; writes `shard-I-of-N.json` (and, whole, `results.json` and `results.csv`) in `--out`.
    Sweep(sweep::SweepArgs),
    /// Merge the shards' `shard-I-of-N.json` of a folder into `results.json` and `results.csv`, identical to
    /// the unsharded run's.
    Merge(sweep::MergeArgs),
    /// List the models of the registry (ids, charts, operations) and the bundled data (JSON).
    Models,
    /// Print summary statistics of a usage trace (VMs, samples, mean/s.d. usage in VM units).
    Summary(TraceArgs),
    /// Convert a usage trace into packlab's compact wide format (.tsv.gz), as used for the bundled traces.
    Bundle(BundleArgs),
    /// The placement model (seed 002): pack one trace, sweep the (m, q) frontier.
    #[command(subcommand)]
    Placement(PlacementCommand),
    /// The admission model (seed 000): tune a preset's policies, moments, the Azure fit.
    #[command(subcommand)]
    Admission(AdmissionCommand),
    /// The lifetime model (seed 003): best fit, LA-Binary, NILAS and LAVA on a pool's share of real arrivals.
    Lifetime(LifetimeGroup),
    /// The reservation model (seed 004): ERA's BASIC_ECON, greedy and on-demand on E4.1 or E4.3.
    Era(EraGroup),
    /// The oversubscription model (seed 001): evaluate rate policies on E1.1–E1.4, train C2MARL.
    Oversub(OversubGroup),
    /// = `packlab oversub train` (earlier name).
    #[command(hide = true)]
    OversubTrain(oversub::TrainArgs),
    /// = `packlab placement pack` (earlier name).
    #[command(hide = true)]
    Pack(placement::PackArgs),
    /// = `packlab placement frontier` (earlier name).
    #[command(hide = true)]
    Frontier(placement::FrontierArgs),
    /// = `packlab admission tune` (earlier name).
    #[command(hide = true)]
    Admit(admission::AdmitArgs),
    /// = `packlab admission moments` (earlier name).
    #[command(hide = true)]
    AdmitMoments(admission::MomentsArgs),
    /// = `packlab admission fit` (earlier name).
    #[command(hide = true)]
    AdmitFit(admission::FitArgs),
}

/// The help of a model's command group: its verbs only. The group also takes the earlier form's flags
/// (`packlab lifetime --share 0.03` = `packlab lifetime run --share 0.03`), which stay out of its help.
const GROUP_HELP: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\nCommands:\n{subcommands}{after-help}";

/// `packlab lifetime <verb>`; without a verb, the earlier form `packlab lifetime [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab lifetime <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct LifetimeGroup {
    #[command(subcommand)]
    verb: Option<LifetimeCommand>,
    #[command(flatten)]
    earlier: lifetime::LifetimeArgs,
}

/// Commands of the lifetime model.
#[derive(Subcommand, Debug)]
enum LifetimeCommand {
    /// Simulate the policies on one pool's share of a workload; one JSON object per policy with `--json`
    /// (`--model-metrics`: the learned predictor's model metrics instead).
    Run(lifetime::LifetimeArgs),
}

/// `packlab era <verb>`; without a verb, the earlier form `packlab era [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab era <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct EraGroup {
    #[command(subcommand)]
    verb: Option<EraCommand>,
    #[command(flatten)]
    earlier: era::EraArgs,
}

/// Commands of the reservation model.
#[derive(Subcommand, Debug)]
enum EraCommand {
    /// Run E4.1 (synthetic or SWIM jobs) or E4.3 (beside real Azure load); one JSON object per (policy, κ_use)
    /// with `--json`.
    Run(era::EraArgs),
}

/// `packlab oversub <verb>`; without a verb, the earlier form `packlab oversub [FLAGS]` (= `run`).
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "packlab oversub <COMMAND>",
    help_template = GROUP_HELP
)]
pub struct OversubGroup {
    #[command(subcommand)]
    verb: Option<OversubCommand>,
    #[command(flatten)]
    earlier: oversub::OversubArgs,
}

/// Commands of the oversubscription model.
#[derive(Subcommand, Debug)]
enum OversubCommand {
    /// Evaluate rate policies (Grid-x, MA, SL, peak, GPA, C2MARL trained in the run or from a file) on
    /// E1.1–E1.4; one JSON object per policy with `--json`.
    Run(oversub::OversubArgs),
    /// Train C2MARL at one safety level and write the trained policy (evaluate it with
    /// `packlab oversub run --policies c2marl:FILE`).
    Train(oversub::TrainArgs),
}

/// Commands of the placement model (one group per model of the registry, named by its id).
#[derive(Subcommand, Debug)]
enum PlacementCommand {
    /// Pack one trace with one fit test and rule and print m_abs, m_norm, m, q (seed 002 §5.1).
    Pack(placement::PackArgs),
    /// Sweep each fit family's knob and print the (m, q) frontier with the Pareto front (CSV or JSON).
    Frontier(placement::FrontierArgs),
}

/// Commands of the admission model.
#[derive(Subcommand, Debug)]
enum AdmissionCommand {
    /// Run an experiment preset (E0.1–E0.4), tuning each policy to the SLA.
    Tune(admission::AdmitArgs),
    /// Posterior-integrated moments E[X_t], Var[X_t] of a deployment's cores (ALGORITHMS.md §2.4–2.6).
    Moments(admission::MomentsArgs),
    /// Fit the model to Azure data by maximum likelihood (seed 000 App. B) and print the estimates.
    Fit(admission::FitArgs),
}

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

#[derive(Args, Debug)]
struct RunArgs {
    /// Scenario JSON file (full or partial; missing fields take their defaults).
    #[arg(value_name = "SCENARIO.json", required_unless_present = "link")]
    scenario: Option<PathBuf>,
    /// A share link (`https://…#s=v2.d1.…`, `s=v2.d1.…` or `v2.d1.…`; old `v1.…` links too) instead of a file.
    #[arg(long, value_name = "LINK", conflicts_with = "scenario")]
    link: Option<String>,
    /// The uploaded trace a scenario refers to (its SHA-256 must match); also overrides a bundled trace.
    #[arg(long, value_name = "PATH")]
    trace: Option<PathBuf>,
    /// The uploaded workload a scenario refers to (its SHA-256 must match); also overrides a bundled one.
    #[arg(long, value_name = "PATH")]
    workload: Option<PathBuf>,
    /// Print JSON (the default for `run`; kept for symmetry).
    #[arg(long)]
    json: bool,
    /// Print the scenario's share link (`v2.d<k>.…`, the part after `#s=`) instead of running it.
    #[arg(long)]
    print_link: bool,
}

#[derive(Args, Debug)]
struct BundleArgs {
    #[command(flatten)]
    trace: TraceArgs,
    /// Output file (.tsv.gz, gzip-compressed; .tsv for plain text).
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// Extra header fields, e.g. `source=planetlab-cloudsim/20110303` (no spaces).
    #[arg(long, value_name = "K=V", default_value = "")]
    header: String,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            let text = e.render().to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            eprintln!("packlab: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match dispatch(&cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("packlab: {}", msg.lines().next().unwrap_or(""));
            ExitCode::FAILURE
        }
    }
}

fn dispatch(cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::Pack(a) | Command::Placement(PlacementCommand::Pack(a)) => placement::cmd_pack(a),
        Command::Frontier(a) | Command::Placement(PlacementCommand::Frontier(a)) => {
            placement::cmd_frontier(a)
        }
        Command::Run(a) => cmd_run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Merge(a) => sweep::merge(a),
        Command::Models => {
            let out = serde_json::json!({
                "models": packlab::models::MODELS,
                "bundled_data": packlab::data::BUNDLED_DATA,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::Summary(a) => {
            let t = load_trace(a)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&t.summary()).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::Bundle(a) => cmd_bundle(a),
        Command::Lifetime(g) => lifetime::run(match &g.verb {
            Some(LifetimeCommand::Run(a)) => a,
            None => &g.earlier,
        }),
        Command::Era(g) => era::run(match &g.verb {
            Some(EraCommand::Run(a)) => a,
            None => &g.earlier,
        }),
        Command::Oversub(g) => match &g.verb {
            Some(OversubCommand::Run(a)) => oversub::run(a),
            Some(OversubCommand::Train(a)) => oversub::train(a),
            None => oversub::run(&g.earlier),
        },
        Command::OversubTrain(a) => oversub::train(a),
        Command::Admit(a) | Command::Admission(AdmissionCommand::Tune(a)) => {
            admission::run_admit(a)
        }
        Command::AdmitMoments(a) | Command::Admission(AdmissionCommand::Moments(a)) => {
            admission::run_moments(a)
        }
        Command::AdmitFit(a) | Command::Admission(AdmissionCommand::Fit(a)) => {
            admission::run_fit(a)
        }
    }
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

fn cmd_run(a: &RunArgs) -> Result<(), String> {
    let sc = match (&a.scenario, &a.link) {
        (_, Some(link)) => Scenario::from_link(link).map_err(|e| format!("--link: {e}"))?,
        (Some(path), None) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let sc = Scenario::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            if let Err(errs) = sc.validate() {
                return Err(format!("{}: {}", path.display(), errs[0]));
            }
            sc
        }
        (None, None) => return Err("give a scenario file or --link".into()),
    };
    let _ = a.json;
    if a.print_link {
        for (flag, given) in [
            ("--trace", a.trace.is_some()),
            ("--workload", a.workload.is_some()),
        ] {
            if given {
                return Err(common::not_in_scenario(
                    flag,
                    "a file given beside a scenario is not part of it; name it in the scenario's upload reference",
                ));
            }
        }
        return common::print_link(&sc);
    }
    let loaded = load_inputs(&sc, a.trace.as_deref(), a.workload.as_deref())?;
    let mut progress = progress::Progress::new("packlab run", "units of work");
    let report = run_report(&sc, &loaded, &mut |d, t| progress.update(d, t));
    progress.finish();
    println!("{}", report?);
    Ok(())
}

/// What a scenario's model reads, loaded: its usage trace or its workload (or neither).
#[derive(Default)]
pub struct Loaded {
    trace: Option<UsageTrace>,
    workload: Option<Workload>,
}

/// Loads what the model of `sc` reads (registry facts `uses_trace`, `uses_workload`): `trace` / `workload`
/// when given (checked against an upload's SHA-256, overriding a bundled reference), else the bundled file.
pub fn load_inputs(
    sc: &Scenario,
    trace: Option<&Path>,
    workload: Option<&Path>,
) -> Result<Loaded, String> {
    let info = sc.model.info();
    if info.uses_workload {
        return Ok(Loaded {
            workload: Some(load_workload(&sc.workload, workload)?),
            trace: None,
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
        workload: None,
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
    let read = |name: &str, files: &[InputFile]| {
        packlab::workload::read_workload(name, files, None).map_err(|e| e.to_string())
    };
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
            b.read_workload_at(&path)
        }
        (WorkloadRef::Upload { name, .. }, None) => Err(format!(
            "the scenario uses the uploaded workload '{name}': pass it with --workload PATH"
        )),
        (WorkloadRef::Synthetic(p), None) => {
            packlab::workload::synthetic::generate(p).map_err(|e| e.to_string())
        }
    }
}

/// Runs any model's scenario to the end through the registry and the experiment contract (all cores) on its
/// loaded inputs and returns its report as one JSON line (what `packlab run` prints). `progress(done, total)`
/// sees the units of work; false cancels.
pub fn run_report(
    sc: &Scenario,
    loaded: &Loaded,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<String, String> {
    let inputs = packlab::models::Inputs {
        trace: loaded.trace.as_ref(),
        workload: loaded.workload.as_ref(),
        ..Default::default()
    };
    let mut run = packlab::scenario::start(sc, &inputs).map_err(|e| e.to_string())?;
    packlab::experiment::drive(&mut run, progress).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    run.report(&mut serde_json::Serializer::new(&mut out))
        .ok_or("the experiment ended without a report")?
        .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

fn cmd_bundle(a: &BundleArgs) -> Result<(), String> {
    use std::io::Write;
    if a.header.contains(char::is_whitespace) {
        return Err("--header: no spaces allowed".into());
    }
    let t = load_trace(&a.trace)?;
    let text = trace::write_wide(&t, &a.header);
    let out = if a.out.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        gz.finish().map_err(|e| e.to_string())?
    } else {
        text.into_bytes()
    };
    std::fs::write(&a.out, &out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!(
        "wrote {} ({} VMs × {} samples, {} bytes)",
        a.out.display(),
        t.items.len(),
        t.samples,
        out.len()
    );
    Ok(())
}
